/** Console sign-in: users' passwords (as scrypt hashes) and the sessions a sign-in opens. A session's cookie value
 * is stored only as its hash, as API tokens are; a password set or changed ends every session of its user. */
import { and, asc, eq, gt, lte } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { notFound } from '../lib/errors';
import { hashToken, newToken, type Principal, type Role } from './accounts';
import { iso, type Store, type Tx } from './db';
import { consoleSessions, memberships, orgs, users } from './schema';

/** A console password's length (CONTRACT.md: at least 12 characters), and a bound on what is hashed. */
export const PASSWORD_LENGTH = { min: 12, max: 1024 } as const;

/** How long a session lasts from its sign-in (absolute: no sliding renewal, so a stolen cookie dies on its own). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

async function endSessionsOf(tx: Tx, userId: number): Promise<number> {
  const ended = await tx.delete(consoleSessions).where(eq(consoleSessions.userId, userId)).returning({ hash: consoleSessions.hash });
  return ended.length;
}

/** Sets the user's password hash (`admin user password`) and ends the user's sessions; 404 for no such user. */
export async function setPasswordHash(s: Store, email: string, passwordHash: string): Promise<{ sessionsEnded: number }> {
  return s.write(async (tx) => {
    const [u] = await tx.update(users).set({ passwordHash }).where(eq(users.email, email)).returning({ id: users.id });
    if (!u) throw notFound(`user ${email}`);
    return { sessionsEnded: await endSessionsOf(tx, u.id) };
  });
}

/** What a sign-in checks its password against: undefined for no such user. `passwordHash` null: none was set. */
export async function signInRecord(s: Store, email: string): Promise<(Principal & { passwordHash: string | null }) | undefined> {
  const [u] = await s.db.select({ userId: users.id, email: users.email, passwordHash: users.passwordHash })
    .from(users).where(eq(users.email, email)).limit(1);
  return u;
}

export async function passwordHashOf(s: Store, userId: number): Promise<string | null> {
  const [u] = await s.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId)).limit(1);
  return u?.passwordHash ?? null;
}

export interface NewSession { token: string; csrf: string; expiresAt: string }

const sessionRow = (s: Store, userId: number): NewSession & { hash: string; row: typeof consoleSessions.$inferInsert } => {
  const token = newToken('hps');
  const csrf = randomBytes(32).toString('base64url');
  const now = s.clock();
  const expiresAt = iso(new Date(now.getTime() + SESSION_TTL_MS));
  const hash = hashToken(token);
  return { token, csrf, expiresAt, hash, row: { hash, userId, csrf, createdAt: iso(now), expiresAt } };
};

/** Opens a session for the user; its expired sessions are dropped on the way, so the table holds live ones only. */
export async function openSession(s: Store, userId: number): Promise<NewSession> {
  const { row, token, csrf, expiresAt } = sessionRow(s, userId);
  await s.write(async (tx) => {
    await tx.delete(consoleSessions).where(and(eq(consoleSessions.userId, userId), lte(consoleSessions.expiresAt, row.createdAt)));
    await tx.insert(consoleSessions).values(row);
  });
  return { token, csrf, expiresAt };
}

/** A user's own password change: the new hash, every session of the user ended, and one new session for the
 * browser that changed it. */
export async function changePassword(s: Store, userId: number, passwordHash: string): Promise<NewSession> {
  const { row, token, csrf, expiresAt } = sessionRow(s, userId);
  await s.write(async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, userId));
    await endSessionsOf(tx, userId);
    await tx.insert(consoleSessions).values(row);
  });
  return { token, csrf, expiresAt };
}

export interface Session { principal: Principal; csrf: string; expiresAt: string }

/** The live session of a cookie value, or undefined (unknown, ended or expired). */
export async function sessionByToken(s: Store, token: string): Promise<Session | undefined> {
  const [row] = await s.db.select({ userId: users.id, email: users.email, csrf: consoleSessions.csrf, expiresAt: consoleSessions.expiresAt })
    .from(consoleSessions)
    .innerJoin(users, eq(users.id, consoleSessions.userId))
    .where(and(eq(consoleSessions.hash, hashToken(token)), gt(consoleSessions.expiresAt, iso(s.clock()))))
    .limit(1);
  return row && { principal: { userId: row.userId, email: row.email }, csrf: row.csrf, expiresAt: row.expiresAt };
}

export async function endSession(s: Store, token: string): Promise<void> {
  await s.write(async (tx) => {
    await tx.delete(consoleSessions).where(eq(consoleSessions.hash, hashToken(token)));
  });
}

/** The organizations the user is a member of, with the role, by slug. */
export async function membershipsOf(s: Store, userId: number): Promise<{ slug: string; plan: string; role: Role }[]> {
  return s.db.select({ slug: orgs.slug, plan: orgs.plan, role: memberships.role })
    .from(memberships).innerJoin(orgs, eq(orgs.id, memberships.orgId))
    .where(eq(memberships.userId, userId)).orderBy(asc(orgs.slug));
}
