/**
 * Deployment access (spec 4.4, part 3's grants table): per project its policy (no row reads `public`), the
 * password and bypass secret as hashes only (lib/access-hash.ts), and authorizeAccess's one-time codes (only
 * their SHA-256 is kept; single use, 60 s, bound to host, user and `next`). Every change of what a node
 * enforces records a 'project' change, so the bundle reconciler rebuilds the bundles of the project's nodes.
 */
import { and, eq, inArray, lt } from 'drizzle-orm';
import { createHash, randomBytes } from 'node:crypto';
import { AppError, badRequest } from '../lib/errors';
import type { Role } from './accounts';
import { iso, type Store } from './db';
import { checkLiveProject } from './live-project';
import type { ProjectWrite } from './projects';
import { appendAudit, recordChange } from './feed';
import { accessCodes, accessPolicies, hostnames, memberships, orgs, placements, projects, users } from './schema';

export type AccessMode = 'public' | 'org' | 'password';
export const ACCESS_MODES: readonly AccessMode[] = ['public', 'org', 'password'];

/** A one-time code lives this long at most (spec 4.4 rule 5; issue 11: ≤ 60 s). */
export const ACCESS_CODE_TTL_MS = 60_000;

export interface AccessPolicyState {
  mode: AccessMode;
  hasPassword: boolean;
  hasBypass: boolean;
  /** Null: never set. */
  updatedAt: string | null;
  /** Rises when the mode or the password changes (0: never set). */
  version: number;
}

type Row = typeof accessPolicies.$inferSelect;

const stateOf = (row: Row | undefined): AccessPolicyState => row
  ? { mode: row.mode, hasPassword: row.passwordHash !== null, hasBypass: row.bypassHash !== null, updatedAt: row.updatedAt, version: row.version }
  : { mode: 'public', hasPassword: false, hasBypass: false, updatedAt: null, version: 0 };

export async function accessPolicy(s: Store, projectId: number): Promise<AccessPolicyState> {
  const [row] = await s.db.select().from(accessPolicies).where(eq(accessPolicies.projectId, projectId)).limit(1);
  return stateOf(row);
}

/** The policy as a node enforces it (bundle `access`): hashes included. */
export interface AccessForBundle { mode: AccessMode; passwordHash: string | null; bypassHash: string | null; version: number }

export async function accessForBundle(s: Store, projectIds: number[]): Promise<Map<number, AccessForBundle>> {
  const out = new Map<number, AccessForBundle>();
  if (projectIds.length === 0) return out;
  for (const r of await s.db.select().from(accessPolicies).where(inArray(accessPolicies.projectId, projectIds))) {
    out.set(r.projectId, { mode: r.mode, passwordHash: r.passwordHash, bypassHash: r.bypassHash, version: r.version });
  }
  return out;
}

/**
 * setAccess: the mode as sent; `passwordHash` given replaces the stored one, absent keeps it. `password` mode
 * with no password sent now nor ever stored is 400. A repeat of the stored policy (the same mode, no password sent)
 * changes nothing, `updatedAt` included, and is audited like any call (as putRRset and updateAuthSettings). A
 * password sent is a change: its hash is new. The audit record names the mode and whether a password was
 * sent, never the password nor its hash.
 */
export async function setAccessPolicy(s: Store, p: ProjectWrite & { mode: AccessMode; passwordHash?: string }): Promise<AccessPolicyState> {
  const now = s.clock();
  return s.write(async (tx) => {
    await checkLiveProject(tx, p);
    await tx.lock(`project/${p.projectId}`);
    const [old] = await tx.select().from(accessPolicies).where(eq(accessPolicies.projectId, p.projectId));
    const passwordHash = p.passwordHash ?? old?.passwordHash ?? null;
    if (p.mode === 'password' && passwordHash === null) {
      throw badRequest('mode `password` needs a password: none was sent and none is stored');
    }
    // A repeat of the stored policy writes nothing, so its `updatedAt` and the tag stay; it is audited all the same.
    const changed = !old || old.mode !== p.mode || old.passwordHash !== passwordHash;
    const row = changed
      ? { mode: p.mode, passwordHash, bypassHash: old?.bypassHash ?? null, version: (old?.version ?? 0) + 1, updatedAt: iso(now) }
      : old;
    if (changed) {
      await tx.insert(accessPolicies).values({ projectId: p.projectId, ...row }).onConflictDoUpdate({ target: accessPolicies.projectId, set: row });
      await recordChange(s, tx, 'project', String(p.projectId), now);
    }
    await appendAudit(tx, {
      orgId: p.orgId, event: 'access.set', actor: p.actor, target: p.projectName,
      details: { mode: p.mode, passwordChanged: p.passwordHash !== undefined },
    }, now);
    return stateOf({ projectId: p.projectId, ...row });
  });
}

/** newAccessBypass: stores the hash of a new secret, the old one stops matching at once (one hash per project). */
export async function setBypass(s: Store, p: ProjectWrite & { bypassHash: string }): Promise<void> {
  const now = s.clock();
  await s.write(async (tx) => {
    await checkLiveProject(tx, p);
    await tx.lock(`project/${p.projectId}`);
    const [old] = await tx.select().from(accessPolicies).where(eq(accessPolicies.projectId, p.projectId));
    if (old) {
      await tx.update(accessPolicies).set({ bypassHash: p.bypassHash, updatedAt: iso(now) }).where(eq(accessPolicies.projectId, p.projectId));
    } else {
      await tx.insert(accessPolicies).values({ projectId: p.projectId, mode: 'public', passwordHash: null, bypassHash: p.bypassHash, version: 1, updatedAt: iso(now) });
    }
    await recordChange(s, tx, 'project', String(p.projectId), now);
    await appendAudit(tx, { orgId: p.orgId, event: 'access.bypass.new', actor: p.actor, target: p.projectName }, now);
  });
}

/** revokeAccessBypass: idempotent; the policy stays as it is. Answers whether this call revoked one. */
export async function revokeBypass(s: Store, p: ProjectWrite): Promise<{ revoked: boolean }> {
  const now = s.clock();
  return s.write(async (tx) => {
    await tx.lock(`project/${p.projectId}`);
    const [old] = await tx.select().from(accessPolicies).where(eq(accessPolicies.projectId, p.projectId));
    if (!old || old.bypassHash === null) return { revoked: false };
    await tx.update(accessPolicies).set({ bypassHash: null, updatedAt: iso(now) }).where(eq(accessPolicies.projectId, p.projectId));
    await recordChange(s, tx, 'project', String(p.projectId), now);
    await appendAudit(tx, { orgId: p.orgId, event: 'access.bypass.revoke', actor: p.actor, target: p.projectName }, now);
    return { revoked: true };
  });
}

/** A routable hostname (a project's default one, or an active custom one) with its project and org. */
export interface KnownHost { host: string; projectId: number; orgId: number; orgSlug: string }

export async function knownHost(s: Store, name: string): Promise<KnownHost | undefined> {
  // No hostname holds U+0000, which PostgreSQL's text cannot carry at all: asked, it fails the query.
  if (name.includes('\0')) return undefined;
  const [host] = await s.db.select({ host: hostnames.name, projectId: projects.id, orgId: orgs.id, orgSlug: orgs.slug })
    .from(hostnames).innerJoin(projects, eq(projects.id, hostnames.projectId)).innerJoin(orgs, eq(orgs.id, projects.orgId))
    .where(and(eq(hostnames.name, name), eq(hostnames.status, 'active'))).limit(1);
  return host;
}

const codeHash = (code: string): string => createHash('sha256').update(code, 'utf8').digest('hex');

/** Issues a one-time code for (host, user, next); expired codes are swept in the same write. */
export async function issueAccessCode(s: Store, p: { host: KnownHost; userId: number; next: string }): Promise<string> {
  const now = s.clock();
  const code = randomBytes(32).toString('base64url');
  await s.write(async (tx) => {
    await tx.delete(accessCodes).where(lt(accessCodes.expiresAt, iso(now)));
    await tx.insert(accessCodes).values({
      codeHash: codeHash(code), host: p.host.host, projectId: p.host.projectId, userId: p.userId, next: p.next,
      expiresAt: iso(new Date(now.getTime() + ACCESS_CODE_TTL_MS)),
    });
  });
  return code;
}

export interface Redeemed { host: string; next: string; user: string; org: string; role: Role }

const gone = (): AppError => new AppError(404, 'not_found', 'no such code: unknown, expired, already redeemed, or for a host this node does not serve');

/**
 * Redeems a code once, for node `nodeId`: the code is deleted by the first redeem whatever its outcome (a
 * foreign node's attempt burns it too), so a second redeem is 404. An expired code, a node the host's project is not placed on, or a user no longer in
 * the org is 404 too. The role is the user's role now.
 */
export async function redeemAccessCode(s: Store, nodeId: string, code: string): Promise<Redeemed> {
  const now = s.clock();
  const found = await s.write(async (tx): Promise<Redeemed | undefined> => {
    const [row] = await tx.delete(accessCodes).where(eq(accessCodes.codeHash, codeHash(code))).returning();
    if (!row || row.expiresAt <= iso(now)) return undefined;
    const [placed] = await tx.select({ n: placements.nodeId }).from(placements)
      .where(and(eq(placements.projectId, row.projectId), eq(placements.nodeId, nodeId)));
    // The host must still be the project's, routable.
    const [host] = await tx.select({ p: hostnames.projectId }).from(hostnames)
      .where(and(eq(hostnames.name, row.host), eq(hostnames.projectId, row.projectId), eq(hostnames.status, 'active')));
    if (!placed || !host) return undefined;
    const [who] = await tx.select({ email: users.email, org: orgs.slug, role: memberships.role })
      .from(projects).innerJoin(orgs, eq(orgs.id, projects.orgId))
      .innerJoin(memberships, eq(memberships.orgId, orgs.id)).innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(projects.id, row.projectId), eq(users.id, row.userId)));
    if (!who) return undefined;
    return { host: row.host, next: row.next, user: who.email, org: who.org, role: who.role };
  });
  if (!found) throw gone();
  return found;
}
