/** Organizations, users, memberships, API tokens and node tokens: what the operator CLI bootstraps. */
import { and, eq, sql } from 'drizzle-orm';
import { createHash, randomBytes } from 'node:crypto';
import { conflict, notFound } from '../lib/errors';
import { isUniqueViolation, iso, type Store } from './db';
import { memberships, nodes, orgs, tokens, users } from './schema';

export type Role = 'viewer' | 'member' | 'admin';
export const ROLES: readonly Role[] = ['viewer', 'member', 'admin'];
export const roleAtLeast = (role: Role, min: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(min);

export interface Org { id: number; slug: string; plan: string }

/** Hex SHA-256: the only form in which a bearer token is stored or compared. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
const newToken = (prefix: string): string => `${prefix}_${randomBytes(32).toString('base64url')}`;

export async function createOrg(s: Store, slug: string, plan: string): Promise<Org> {
  try {
    const createdAt = iso(s.clock());
    return await s.write(async (tx) => {
      const [org] = await tx.insert(orgs).values({ slug, plan, createdAt }).returning({ id: orgs.id, slug: orgs.slug, plan: orgs.plan });
      return org!;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict('org_exists', `organization ${slug} already exists`);
    throw e;
  }
}

export async function createUser(s: Store, email: string): Promise<{ id: number; email: string }> {
  try {
    const createdAt = iso(s.clock());
    return await s.write(async (tx) => {
      const [user] = await tx.insert(users).values({ email, createdAt }).returning({ id: users.id, email: users.email });
      return user!;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict('user_exists', `user ${email} already exists`);
    throw e;
  }
}

async function userByEmail(s: Store, email: string): Promise<{ id: number }> {
  const u = s.db.select({ id: users.id }).from(users).where(eq(users.email, email)).get();
  if (!u) throw notFound(`user ${email}`);
  return u;
}

export async function orgBySlug(s: Store, slug: string): Promise<Org | undefined> {
  return s.db.select({ id: orgs.id, slug: orgs.slug, plan: orgs.plan }).from(orgs).where(eq(orgs.slug, slug)).get();
}

/** Adds the user to the org, or changes the role of an existing membership. */
export async function setMembership(s: Store, orgSlug: string, email: string, role: Role): Promise<void> {
  const org = await orgBySlug(s, orgSlug);
  if (!org) throw notFound(`organization ${orgSlug}`);
  const user = await userByEmail(s, email);
  await s.write(async (tx) => {
    await tx.insert(memberships).values({ orgId: org.id, userId: user.id, role })
      .onConflictDoUpdate({ target: [memberships.orgId, memberships.userId], set: { role } });
  });
}

/** Issues a bearer token for the user; the token is returned here only, and stored as its hash. */
export async function issueToken(s: Store, email: string): Promise<string> {
  const user = await userByEmail(s, email);
  const token = newToken('hp');
  const createdAt = iso(s.clock());
  await s.write(async (tx) => {
    await tx.insert(tokens).values({ hash: hashToken(token), userId: user.id, createdAt });
  });
  return token;
}

export interface Principal { userId: number; email: string }

export async function principalByToken(s: Store, token: string): Promise<Principal | undefined> {
  return s.prepared('principalByToken', (db) => db
    .select({ userId: users.id, email: users.email })
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .where(eq(tokens.hash, sql.placeholder('hash')))
    .prepare()).get({ hash: hashToken(token) });
}

/** The org and the caller's role in it, or undefined when the org does not exist or the caller is no member:
 * both read the same, so a stranger cannot tell another organization exists. */
export async function membership(s: Store, slug: string, userId: number): Promise<{ org: Org; role: Role } | undefined> {
  const row = s.prepared('membership', (db) => db
    .select({ id: orgs.id, slug: orgs.slug, plan: orgs.plan, role: memberships.role })
    .from(orgs)
    .innerJoin(memberships, and(eq(memberships.orgId, orgs.id), eq(memberships.userId, sql.placeholder('userId'))))
    .where(eq(orgs.slug, sql.placeholder('slug')))
    .prepare()).get({ slug, userId });
  return row && { org: { id: row.id, slug: row.slug, plan: row.plan }, role: row.role };
}

export async function registerNode(s: Store, nodeId: string): Promise<string> {
  const token = newToken('hpn');
  try {
    const createdAt = iso(s.clock());
    await s.write(async (tx) => {
      await tx.insert(nodes).values({ id: nodeId, tokenHash: hashToken(token), createdAt });
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict('node_exists', `node ${nodeId} already registered`);
    throw e;
  }
  return token;
}

/** A node authenticated by its token: what node operations act for. */
export interface NodePrincipal { nodeId: string }

export async function nodePrincipalByToken(s: Store, token: string): Promise<NodePrincipal | undefined> {
  return s.prepared('nodePrincipalByToken', (db) => db
    .select({ nodeId: nodes.id })
    .from(nodes)
    .where(eq(nodes.tokenHash, sql.placeholder('hash')))
    .prepare()).get({ hash: hashToken(token) });
}

export async function nodeExists(s: Store, nodeId: string): Promise<boolean> {
  return s.db.select({ id: nodes.id }).from(nodes).where(eq(nodes.id, nodeId)).get() !== undefined;
}
