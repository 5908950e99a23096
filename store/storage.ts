/**
 * Object storage grants (spec 4.6, part 3's grants table). The prefix belongs to the project, not to the grant:
 * assigned at the first grant (`storage_prefixes`) and handed back by every later one, so a grant after a revoke
 * finds the objects left under it. The quota is the plan's (rules/plans.ts), read when asked, never chosen by the
 * caller; `usedBytes` is what the nodes last reported (store/nodes.ts).
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { iso, type Store, type Tx } from './db';
import { checkLiveProject } from './live-project';
import type { ProjectWrite } from './projects';
import { appendAudit, recordChange } from './feed';
import { projectUsage, storageGrants, storagePrefixes } from './schema';

export interface StorageGrantState {
  granted: boolean;
  /** The project's prefix: null until its first grant, kept after a revoke. */
  prefix: string | null;
  usedBytes: number | null;
  usedBytesAt: string | null;
}

/** A new prefix: 96 random bits, a directory name on the reference node and an object key prefix elsewhere. */
const newPrefix = (): string => `p${randomBytes(12).toString('hex')}/`;

/** What the revoke's audit record says of the objects: they stay, and deleting under a prefix is no operation yet. */
export const REVOKE_NOTE = 'objects under the prefix are kept: deleting objects under a prefix needs a core operation that does not exist yet';

async function prefixOf(tx: Tx, projectId: number): Promise<string | undefined> {
  const [row] = await tx.select({ prefix: storagePrefixes.prefix }).from(storagePrefixes).where(eq(storagePrefixes.projectId, projectId));
  return row?.prefix;
}

/** A write's precondition (If-Match: api/conditional.ts), called inside its transaction, after the project's lock,
 * with the grant state as it is; it throws to refuse. */
export type StoragePrecondition = (current: StorageGrantState) => void;

/** `storageState` inside a write, for its precondition. */
async function stateIn(tx: Tx, projectId: number): Promise<StorageGrantState> {
  const [grant] = await tx.select({ prefix: storageGrants.prefix }).from(storageGrants).where(eq(storageGrants.projectId, projectId));
  const prefix = await prefixOf(tx, projectId);
  const [usage] = await tx.select({ usedBytes: projectUsage.usedBytes, at: projectUsage.reportedAt }).from(projectUsage)
    .where(eq(projectUsage.projectId, projectId)).orderBy(desc(projectUsage.reportedAt)).limit(1);
  return { granted: grant !== undefined, prefix: prefix ?? null, usedBytes: usage?.usedBytes ?? null, usedBytesAt: usage?.at ?? null };
}

/**
 * grantStorage: idempotent. The first grant of the project assigns its prefix; a grant of a granted project
 * changes nothing (no change, no audit record). `quotaBytes` (the plan's now) is recorded with the grant row.
 * Answers whether this call granted.
 */
export async function grantStorage(s: Store, p: ProjectWrite & { quotaBytes: number; precondition?: StoragePrecondition }): Promise<{ granted: boolean; prefix: string }> {
  const now = s.clock();
  return s.write(async (tx) => {
    await checkLiveProject(tx, p);
    await tx.lock(`project/${p.projectId}`);
    if (p.precondition) p.precondition(await stateIn(tx, p.projectId));
    let prefix = await prefixOf(tx, p.projectId);
    if (prefix === undefined) {
      prefix = newPrefix();
      await tx.insert(storagePrefixes).values({ projectId: p.projectId, prefix, createdAt: iso(now) });
    }
    const inserted = await tx.insert(storageGrants).values({ projectId: p.projectId, prefix, quotaBytes: p.quotaBytes, createdAt: iso(now) })
      .onConflictDoNothing().returning({ id: storageGrants.projectId });
    if (inserted.length === 0) return { granted: false, prefix };
    await recordChange(s, tx, 'storage', String(p.projectId), now);
    await appendAudit(tx, { orgId: p.orgId, event: 'storage.grant', actor: p.actor, target: p.projectName, details: { prefix, quotaBytes: p.quotaBytes } }, now);
    return { granted: true, prefix };
  });
}

/**
 * revokeStorage: idempotent. Removes the grant, never the objects nor the prefix; the audit record says so.
 * Revoking what is not granted changes nothing. Answers whether this call revoked.
 */
export async function revokeStorage(s: Store, p: ProjectWrite & { precondition?: StoragePrecondition }): Promise<{ revoked: boolean }> {
  const now = s.clock();
  return s.write(async (tx) => {
    if (p.precondition) {
      // A gone project is 404 before its conditions are judged; and a grant committed after the precondition's
      // read would otherwise be what the revoke removes.
      await checkLiveProject(tx, p);
      await tx.lock(`project/${p.projectId}`);
      p.precondition(await stateIn(tx, p.projectId));
    }
    const gone = await tx.delete(storageGrants).where(eq(storageGrants.projectId, p.projectId)).returning({ prefix: storageGrants.prefix });
    if (gone.length === 0) return { revoked: false };
    await recordChange(s, tx, 'storage', String(p.projectId), now);
    await appendAudit(tx, {
      orgId: p.orgId, event: 'storage.revoke', actor: p.actor, target: p.projectName,
      details: { prefix: gone[0]!.prefix, objectsDeleted: false, note: REVOKE_NOTE },
    }, now);
    return { revoked: true };
  });
}

/** The grant state of a project with its last reported usage: of all nodes it is placed on, the latest report. */
export async function storageState(s: Store, projectId: number): Promise<StorageGrantState> {
  const q = s.prepared('storageState', (db) => ({
    grant: db.select({ prefix: storageGrants.prefix }).from(storageGrants).where(eq(storageGrants.projectId, sql.placeholder('id'))).prepare(),
    owned: db.select({ prefix: storagePrefixes.prefix }).from(storagePrefixes).where(eq(storagePrefixes.projectId, sql.placeholder('id'))).prepare(),
    usage: db.select({ usedBytes: projectUsage.usedBytes, at: projectUsage.reportedAt }).from(projectUsage)
      .where(and(eq(projectUsage.projectId, sql.placeholder('id')))).orderBy(desc(projectUsage.reportedAt)).limit(1).prepare(),
  }));
  const [grant] = await q.grant.execute({ id: projectId });
  const [owned] = await q.owned.execute({ id: projectId });
  const [usage] = await q.usage.execute({ id: projectId });
  return { granted: grant !== undefined, prefix: owned?.prefix ?? null, usedBytes: usage?.usedBytes ?? null, usedBytesAt: usage?.at ?? null };
}
