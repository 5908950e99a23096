/** Secret rows: name, version, and the value sealed by the core. Plain values never reach this module. */
import { randomUUID } from 'node:crypto';
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { notFound } from '../lib/errors';
import { quotaExceeded } from '../rules/plans';
import { iso, type Store, type Tx } from './db';
import { checkLiveProject } from './live-project';
import { appendAudit, recordChange } from './feed';
import { decodeCursor, toPage, type Page } from './paging';
import { secrets } from './schema';

export interface SecretMeta { name: string; version: number; updatedAt: string }
/** The metadata and the secret's lifetime (`uid`: another once it is deleted and set again; '' for a secret set
 * before lifetimes were recorded), which its ETag is made of. */
export interface SecretVersion extends SecretMeta { uid: string }

const metaColumns = { name: secrets.name, version: secrets.version, updatedAt: secrets.updatedAt };
const versionColumns = { ...metaColumns, uid: secrets.uid };

/** A write's precondition (If-Match, If-None-Match: api/conditional.ts), called inside its transaction with the
 * stored secret (null: none); it throws to refuse. */
export type SecretPrecondition = (current: SecretVersion | null) => void;

export interface SetSecret {
  orgId: number; projectId: number; projectName: string; name: string; sealed: string; actor: string; precondition?: SecretPrecondition;
  /** The plan's bytes of a project's secrets, names and values (rules/plans.ts `secretBytes`); absent: no limit.
   * `valueBytes` tells a sealed value's size without opening it (core/sealing.ts sealedBytes): the seal's format is
   * the core's, not the store's. */
  quota?: { plan: string; limit: number; valueBytes: (sealed: string) => number };
}


async function currentMeta(tx: Tx, projectId: number, name: string): Promise<SecretVersion | null> {
  const [row] = await tx.select(versionColumns).from(secrets).where(and(eq(secrets.projectId, projectId), eq(secrets.name, name)));
  return row ?? null;
}

/** Upserts the sealed value and raises the version by one on every call (setSecret is not idempotent); a new
 * secret starts a lifetime (`uid`), which later sets keep. */
export async function setSecret(s: Store, p: SetSecret): Promise<SecretVersion> {
  const now = s.clock();
  return s.write(async (tx) => {
    await checkLiveProject(tx, p);
    // The precondition and the quota decide on what is stored: a concurrent write of the project's secrets must
    // not change it before this one commits (PostgreSQL runs them at once).
    await tx.lock(`project/${p.projectId}`);
    if (p.precondition) p.precondition(await currentMeta(tx, p.projectId, p.name));
    if (p.quota) {
      const others = await tx.select({ name: secrets.name, sealed: secrets.sealed }).from(secrets).where(eq(secrets.projectId, p.projectId));
      // What a secret takes of a worker's environment: `NAME=value`.
      const envBytes = (name: string, sealed: string): number => Buffer.byteLength(name) + 1 + p.quota!.valueBytes(sealed);
      const used = others.filter((o) => o.name !== p.name).reduce((n, o) => n + envBytes(o.name, o.sealed), 0);
      if (used + envBytes(p.name, p.sealed) > p.quota.limit) {
        throw quotaExceeded('secret_bytes', p.quota.limit, used, p.quota.plan, 'bytes of secrets (NAME=value) per project');
      }
    }
    const upsert = tx.prepared('setSecret', (db) => db.insert(secrets)
      .values({
        projectId: sql.placeholder('projectId'), name: sql.placeholder('name'), version: 1, sealed: sql.placeholder('sealed'),
        updatedAt: sql.placeholder('updatedAt'), uid: sql.placeholder('uid'),
      })
      .onConflictDoUpdate({
        target: [secrets.projectId, secrets.name],
        set: { sealed: sql`excluded.sealed`, updatedAt: sql`excluded.updated_at`, version: sql`${secrets.version} + 1` },
      })
      .returning(versionColumns).prepare());
    const [row] = await upsert.execute({ projectId: p.projectId, name: p.name, sealed: p.sealed, updatedAt: iso(now), uid: randomUUID() });
    await recordChange(s, tx, 'secret', String(p.projectId), now);
    await appendAudit(tx, { orgId: p.orgId, event: 'secret.set', actor: p.actor, target: `${p.projectName}/${p.name}`, details: { version: row!.version } }, now);
    return row!;
  });
}

export async function listSecrets(s: Store, projectId: number, limit: number, cursor?: string): Promise<Page<SecretMeta>> {
  const after = cursor === undefined ? undefined : gt(secrets.name, decodeCursor(cursor));
  const rows = await s.db.select(metaColumns).from(secrets).where(and(eq(secrets.projectId, projectId), after))
    .orderBy(asc(secrets.name)).limit(limit + 1);
  return toPage(rows, limit, (r) => r.name);
}

export interface DeleteSecret { orgId: number; projectId: number; projectName: string; name: string; actor: string; precondition?: SecretPrecondition }

export async function deleteSecret(s: Store, p: DeleteSecret): Promise<void> {
  const now = s.clock();
  await s.write(async (tx) => {
    // Else a set committed after the precondition's read would be what the delete removes.
    await tx.lock(`project/${p.projectId}`);
    if (p.precondition) {
      const current = await currentMeta(tx, p.projectId, p.name);
      if (!current) throw notFound(`secret ${p.name}`);
      p.precondition(current);
    }
    const [gone] = await tx.delete(secrets).where(and(eq(secrets.projectId, p.projectId), eq(secrets.name, p.name))).returning({ name: secrets.name });
    if (!gone) throw notFound(`secret ${p.name}`);
    await recordChange(s, tx, 'secret', String(p.projectId), now);
    await appendAudit(tx, { orgId: p.orgId, event: 'secret.delete', actor: p.actor, target: `${p.projectName}/${p.name}` }, now);
  });
}

/** One secret's metadata and lifetime, or undefined when it is not set. */
export async function secretMeta(s: Store, projectId: number, name: string): Promise<SecretVersion | undefined> {
  const [meta] = await s.db.select(versionColumns).from(secrets).where(and(eq(secrets.projectId, projectId), eq(secrets.name, name))).limit(1);
  return meta;
}
