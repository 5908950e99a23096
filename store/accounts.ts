/** Organizations, users, memberships, API tokens and node tokens: what the operator CLI bootstraps. */
import { and, asc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { hash, randomBytes } from 'node:crypto';
import { conflict, notFound } from '../lib/errors';
import { isUniqueViolation, iso, type Store, type Tx } from './db';
import { authGrants, memberships, nodes, orgs, projects, storageGrants, tokens, users } from './schema';
import { recordChange } from './feed';

export type Role = 'viewer' | 'member' | 'admin';
export const ROLES: readonly Role[] = ['viewer', 'member', 'admin'];
export const roleAtLeast = (role: Role, min: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(min);

export interface Org { id: number; slug: string; plan: string }

/** Hex SHA-256: the only form in which a bearer token is stored or compared. crypto.hash, in one call, takes a
 * third of createHash's time, and every authenticated request hashes its token. */
export const hashToken = (token: string): string => hash('sha256', token, 'hex');
export const newToken = (prefix: string): string => `${prefix}_${randomBytes(32).toString('base64url')}`;

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
  const [u] = await s.db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
  if (!u) throw notFound(`user ${email}`);
  return u;
}

export async function orgBySlug(s: Store, slug: string): Promise<Org | undefined> {
  const [org] = await s.db.select({ id: orgs.id, slug: orgs.slug, plan: orgs.plan }).from(orgs).where(eq(orgs.slug, slug)).limit(1);
  return org;
}

/** A member's role changed or a member left: the org's members version rises and every project of the org is a
 * 'project' change, so the nodes' bundles carry the new version and `org`-mode access sessions made before end
 * (a session admits whoever had the role when it was made; this is how a demotion reaches the nodes). */
async function membersChanged(s: Store, tx: Tx, orgId: number): Promise<void> {
  await tx.update(orgs).set({ membersVersion: sql`${orgs.membersVersion} + 1` }).where(eq(orgs.id, orgId));
  const now = s.clock();
  for (const p of await tx.select({ id: projects.id }).from(projects).where(eq(projects.orgId, orgId))) {
    await recordChange(s, tx, 'project', String(p.id), now);
  }
}

/** Adds the user to the org, or changes the role of an existing membership. Answers the role the user had
 * before (undefined: a new member), so the operator is told when a role changed. */
export async function setMembership(s: Store, orgSlug: string, email: string, role: Role): Promise<{ previousRole: Role | undefined }> {
  const org = await orgBySlug(s, orgSlug);
  if (!org) throw notFound(`organization ${orgSlug}`);
  const user = await userByEmail(s, email);
  return s.write(async (tx) => {
    const [before] = await tx.select({ role: memberships.role }).from(memberships)
      .where(and(eq(memberships.orgId, org.id), eq(memberships.userId, user.id))).limit(1);
    await tx.insert(memberships).values({ orgId: org.id, userId: user.id, role })
      .onConflictDoUpdate({ target: [memberships.orgId, memberships.userId], set: { role } });
    if (before && before.role !== role) await membersChanged(s, tx, org.id);
    return { previousRole: before?.role };
  });
}

/** Takes the user out of the org. Answers the role the user had (undefined: was no member). */
export async function removeMembership(s: Store, orgSlug: string, email: string): Promise<{ previousRole: Role | undefined }> {
  const org = await orgBySlug(s, orgSlug);
  if (!org) throw notFound(`organization ${orgSlug}`);
  const user = await userByEmail(s, email);
  return s.write(async (tx) => {
    const [gone] = await tx.delete(memberships).where(and(eq(memberships.orgId, org.id), eq(memberships.userId, user.id))).returning({ role: memberships.role });
    if (gone) await membersChanged(s, tx, org.id);
    return { previousRole: gone?.role };
  });
}

/** Every organization, by slug. */
export async function listOrgs(s: Store): Promise<{ slug: string; plan: string; createdAt: string }[]> {
  return s.db.select({ slug: orgs.slug, plan: orgs.plan, createdAt: orgs.createdAt }).from(orgs).orderBy(asc(orgs.slug));
}

/** Moves the organization to `plan` (the caller checks it against the plan table). Answers the plan it was on. */
export async function setOrgPlan(s: Store, slug: string, plan: string): Promise<{ previousPlan: string }> {
  const org = await orgBySlug(s, slug);
  if (!org) throw notFound(`organization ${slug}`);
  const now = s.clock();
  await s.write(async (tx) => {
    await tx.update(orgs).set({ plan }).where(eq(orgs.id, org.id));
    // The storage quota of every granted project is the plan's: nodes' bundles carry it (reconcilers/bundles.ts).
    const granted = await tx.select({ id: storageGrants.projectId }).from(storageGrants).innerJoin(projects, eq(projects.id, storageGrants.projectId))
      .where(eq(projects.orgId, org.id));
    for (const g of granted) await recordChange(s, tx, 'storage', String(g.id), now);
    // So is the sign-in user cap of every project granted sign-in (the bundle's `signIn.maxUsers`).
    const signIn = await tx.select({ id: authGrants.projectId }).from(authGrants).innerJoin(projects, eq(projects.id, authGrants.projectId))
      .where(eq(projects.orgId, org.id));
    for (const g of signIn) await recordChange(s, tx, 'project', String(g.id), now);
  });
  return { previousPlan: org.plan };
}

/** Every user, by email, with the organizations they belong to (`slug:role`, by slug). */
export async function listUsers(s: Store): Promise<{ email: string; createdAt: string; orgs: string[] }[]> {
  const rows = await s.db.select({ email: users.email, createdAt: users.createdAt, org: orgs.slug, role: memberships.role })
    .from(users)
    .leftJoin(memberships, eq(memberships.userId, users.id))
    .leftJoin(orgs, eq(orgs.id, memberships.orgId))
    .orderBy(asc(users.email), asc(orgs.slug));
  const byEmail = new Map<string, { email: string; createdAt: string; orgs: string[] }>();
  for (const r of rows) {
    const u = byEmail.get(r.email) ?? { email: r.email, createdAt: r.createdAt, orgs: [] };
    if (r.org) u.orgs.push(`${r.org}:${r.role}`);
    byEmail.set(r.email, u);
  }
  return [...byEmail.values()];
}

/** Characters of a token's hash that name it (`admin token list/revoke`): they reveal nothing of the token, and
 * 48 bits keep them apart. */
const TOKEN_ID_LENGTH = 12;
export const tokenId = (hash: string): string => hash.slice(0, TOKEN_ID_LENGTH);
export const TOKEN_ID = /^[0-9a-f]{12}$/;

export interface TokenInfo { id: string; name: string; email: string; createdAt: string; expiresAt: string | null }

/** Issues a bearer token for the user; the token is returned here only, and stored as its hash. From
 * `expiresAt` (RFC 3339, as `iso` writes it) on, it authenticates no more. `name` defaults to 'unnamed'. */
export async function createToken(
  s: Store, email: string, opts: { name?: string; expiresAt?: string | null } = {},
): Promise<TokenInfo & { token: string }> {
  const user = await userByEmail(s, email);
  const token = newToken('hp');
  const hash = hashToken(token);
  const createdAt = iso(s.clock());
  const name = opts.name ?? 'unnamed';
  const expiresAt = opts.expiresAt ?? null;
  await s.write(async (tx) => {
    await tx.insert(tokens).values({ hash, userId: user.id, createdAt, name, expiresAt });
  });
  return { token, id: tokenId(hash), name, email, createdAt, expiresAt };
}

/** `createToken` without a name or expiry, answering the token only. */
export async function issueToken(s: Store, email: string): Promise<string> {
  return (await createToken(s, email)).token;
}

/** Every API token (never the token, only its id), oldest first. */
export async function listTokens(s: Store): Promise<TokenInfo[]> {
  const rows = await s.db.select({ hash: tokens.hash, name: tokens.name, email: users.email, createdAt: tokens.createdAt, expiresAt: tokens.expiresAt })
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .orderBy(asc(tokens.createdAt), asc(tokens.hash));
  return rows.map(({ hash, ...r }) => ({ id: tokenId(hash), ...r }));
}

/** Deletes the token named by `id`; answers whether there was one (revoking twice is no error). Requests that
 * carry it are refused from the next one on: every request reads the token from the store. */
export async function revokeToken(s: Store, id: string): Promise<{ revoked: boolean }> {
  const match = sql`substr(${tokens.hash}, 1, ${TOKEN_ID_LENGTH}) = ${id}`;
  return s.write(async (tx) => {
    const found = await tx.select({ hash: tokens.hash }).from(tokens).where(match);
    if (found.length > 1) throw conflict('token_ambiguous', `${found.length} tokens have the id ${id}`);
    if (found.length === 1) await tx.delete(tokens).where(eq(tokens.hash, found[0]!.hash));
    return { revoked: found.length === 1 };
  });
}

export interface Principal { userId: number; email: string }

/** The user a token belongs to, unless the token is unknown or expired. */

export async function principalByToken(s: Store, token: string): Promise<Principal | undefined> {
  const [row] = await s.prepared('principalByToken', (db) => db
    .select({ userId: users.id, email: users.email })
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .where(and(
      eq(tokens.hash, sql.placeholder('hash')),
      or(isNull(tokens.expiresAt), gt(tokens.expiresAt, sql.placeholder('now'))),
    ))
    .prepare()).execute({ hash: hashToken(token), now: iso(s.clock()) });
  return row;
}

/** The org and the caller's role in it, or undefined when the org does not exist or the caller is no member:
 * both read the same, so a stranger cannot tell another organization exists. */
export async function membership(s: Store, slug: string, userId: number): Promise<{ org: Org; role: Role } | undefined> {
  const [row] = await s.prepared('membership', (db) => db
    .select({ id: orgs.id, slug: orgs.slug, plan: orgs.plan, role: memberships.role })
    .from(orgs)
    .innerJoin(memberships, and(eq(memberships.orgId, orgs.id), eq(memberships.userId, sql.placeholder('userId'))))
    .where(eq(orgs.slug, sql.placeholder('slug')))
    .prepare()).execute({ slug, userId });
  return row && { org: { id: row.id, slug: row.slug, plan: row.plan }, role: row.role };
}

/**
 * `principalByToken` and `membership` in one statement, for operations in an organization (the hot path of every
 * such request): undefined when the token is unknown or expired; `member` undefined when the org does not exist
 * or the user is no member of it. Same rules as the two, read in one snapshot.
 */
export async function principalInOrg(s: Store, token: string, slug: string): Promise<{ principal: Principal; member: { org: Org; role: Role } | undefined } | undefined> {
  type Row = { userId: number; email: string; orgId: number | null; slug: string | null; plan: string | null; role: Role | null };
  const [row] = await s.raw<Row>('principalInOrg',
    `SELECT u.id AS "userId", u.email AS email, o.id AS "orgId", o.slug AS slug, o.plan AS plan, m.role AS role
     FROM tokens t
     JOIN users u ON u.id = t.user_id
     LEFT JOIN orgs o ON o.slug = ?
     LEFT JOIN memberships m ON m.org_id = o.id AND m.user_id = u.id
     WHERE t.hash = ? AND (t.expires_at IS NULL OR t.expires_at > ?)`,
    // No slug holds U+0000, which PostgreSQL's text cannot carry at all: NULL matches no org on either store.
    [slug.includes('\0') ? null : slug, hashToken(token), iso(s.clock())]);
  if (!row) return undefined;
  const principal: Principal = { userId: row.userId, email: row.email };
  const member = row.role !== null && row.orgId !== null ? { org: { id: row.orgId, slug: row.slug!, plan: row.plan! }, role: row.role } : undefined;
  return { principal, member };
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

/**
 * A new token for the node, printed once; the old one authenticates no more from the commit on. The 'node' change
 * wakes the node's held long-polls, which then find their token gone (api/nodes.ts): a leaked token is contained
 * at once, not at the end of a wait.
 */
export async function rotateNodeToken(s: Store, nodeId: string): Promise<string> {
  const token = newToken('hpn');
  const now = s.clock();
  await s.write(async (tx) => {
    const changed = await tx.update(nodes).set({ tokenHash: hashToken(token) }).where(eq(nodes.id, nodeId)).returning({ id: nodes.id });
    if (changed.length === 0) throw notFound(`node ${nodeId}`);
    await recordChange(s, tx, 'node', nodeId, now);
  });
  return token;
}

/** A node authenticated by its token: what node operations act for, and the hash of the token it came with, so
 * that a request held long can tell whether that token still holds (`nodeTokenHolds`). */
export interface NodePrincipal { nodeId: string; tokenHash: string }

export async function nodePrincipalByToken(s: Store, token: string): Promise<NodePrincipal | undefined> {
  const [row] = await s.prepared('nodePrincipalByToken', (db) => db
    .select({ nodeId: nodes.id, tokenHash: nodes.tokenHash })
    .from(nodes)
    .where(eq(nodes.tokenHash, sql.placeholder('hash')))
    .prepare()).execute({ hash: hashToken(token) });
  return row;
}

/** Whether the token a node authenticated with is still its token: false once the node was removed or its token
 * rotated. */
export async function nodeTokenHolds(s: Store, p: NodePrincipal): Promise<boolean> {
  const rows = await s.prepared('nodeTokenHolds', (db) => db.select({ id: nodes.id }).from(nodes)
    .where(and(eq(nodes.id, sql.placeholder('id')), eq(nodes.tokenHash, sql.placeholder('hash')))).prepare())
    .execute({ id: p.nodeId, hash: p.tokenHash });
  return rows.length > 0;
}
