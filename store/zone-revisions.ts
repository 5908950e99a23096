/**
 * Zone revisions: every generation of a zone, with who made it, when, and the rrsets it changed, recorded in the
 * transaction of the change itself (store/zones.ts `bump`), so that no generation is served without its revision.
 * Kept REVISION_KEEP_MS; a restore (store/zone-changes.ts) walks them back from the newest.
 */
import { and, asc, desc, eq, gt, lt, lte, sql, type SQL } from 'drizzle-orm';
import { notFound } from '../lib/errors';
import { iso, type Store, type Tx } from './db';
import type { Statement } from './feed';
import { zoneRevisions, zones, type RevisionChange } from './schema';

export type { RevisionChange } from './schema';

/** What a generation records besides its number and serial. */
export interface RevisionNote {
  actor: string;
  summary: string;
  diff: RevisionChange[];
  /** A change set's: the rendered bytes of the rrsets its diff holds, before and after ({@link capZoneRevisions}). */
  bytes?: number;
}

export interface RevisionHead { generation: number; serial: number; at: string; actor: string; summary: string }

/** 90 days (CONTRACT.md "Zone changes, files and revisions"). */
export const REVISION_KEEP_MS = 90 * 86_400_000;

/** The revision row of a zone's generation, written with the change that made it (store/zones.ts `bump`). */
export const revisionStatement = (zone: string, generation: number, serial: number, note: RevisionNote, at: Date): Statement => ({
  key: 'recordRevision',
  build: (db) => db.insert(zoneRevisions).values({
    zone: sql.placeholder('zone'), generation: sql.placeholder('generation'), serial: sql.placeholder('serial'), at: sql.placeholder('at'),
    actor: sql.placeholder('actor'), summary: sql.placeholder('summary'), diff: sql.placeholder('diff'), bytes: sql.placeholder('bytes'),
  }),
  values: { zone, generation, serial, at: iso(at), actor: note.actor, summary: note.summary, diff: note.diff, bytes: note.bytes ?? 0 },
});

/** A zone's revisions, newest first, `limit` of them after the generation `before` (the previous page's last). */
export async function listRevisions(s: Store, zone: string, limit: number, before?: number): Promise<{ items: RevisionHead[]; next: number | null }> {
  const rows = await s.db.select({
    generation: zoneRevisions.generation, serial: zoneRevisions.serial, at: zoneRevisions.at, actor: zoneRevisions.actor, summary: zoneRevisions.summary,
  }).from(zoneRevisions)
    .where(and(eq(zoneRevisions.zone, zone), before === undefined ? undefined : lt(zoneRevisions.generation, before)))
    .orderBy(desc(zoneRevisions.generation)).limit(limit + 1);
  const items = rows.slice(0, limit);
  return { items, next: rows.length > limit ? items.at(-1)!.generation : null };
}

export async function getRevision(s: Store, zone: string, generation: number): Promise<RevisionHead & { diff: RevisionChange[] }> {
  const [row] = await s.db.select().from(zoneRevisions).where(and(eq(zoneRevisions.zone, zone), eq(zoneRevisions.generation, generation)));
  if (!row) throw notFound(`revision ${generation} of zone ${zone}`);
  return { generation: row.generation, serial: row.serial, at: row.at, actor: row.actor, summary: row.summary, diff: row.diff };
}

/** The revisions of a zone after `generation`, oldest first, as a write's transaction reads them: a restore's walk
 * back; undefined when the revision `generation` itself is not kept. */
export async function revisionsSince(tx: Tx, zone: string, generation: number): Promise<RevisionChange[][] | undefined> {
  const [at] = await tx.select({ generation: zoneRevisions.generation }).from(zoneRevisions)
    .where(and(eq(zoneRevisions.zone, zone), eq(zoneRevisions.generation, generation)));
  if (!at) return undefined;
  const rows = await tx.select({ diff: zoneRevisions.diff }).from(zoneRevisions)
    .where(and(eq(zoneRevisions.zone, zone), gt(zoneRevisions.generation, generation))).orderBy(asc(zoneRevisions.generation));
  return rows.map((r) => r.diff);
}

/** The bytes of change sets' revisions a zone keeps, as a multiple of the plan's zone size: a replacing import or a
 * restore of a whole zone stores its rrsets before and after (twice the zone), so this keeps about the last four of
 * those besides every smaller one. Without it a 14-byte import alternated with a restore of the generation before
 * stored 5 MB a request of a full zone, for 90 days. */
export const REVISION_BYTES_PER_ZONE_BYTES = 8;

/** Revisions a cap reads at a time, oldest first: one write usually drops one or two. */
const CAP_READ = 64;

/**
 * Keeps a zone's change-set revisions within `capBytes` (in the transaction of the set that wrote the newest, with
 * the zone `z` as that write left it): once the revisions' bytes pass it, the oldest are deleted until the rest fit,
 * as age prunes them, so that a restore still finds every revision after the generation it restores. The newest is
 * always kept. A single rrset's write counts nothing: its revision is as large as its request. The zone's running
 * total (`revisionBytes`) says whether any must go, so a write reads only the revisions it drops (and the next one).
 */
export async function capZoneRevisions(tx: Tx, z: { name: string; generation: number; revisionBytes: number }, capBytes: number): Promise<void> {
  let over = z.revisionBytes - capBytes;
  let last: number | undefined;
  for (let after = 0; over > 0;) {
    const rows = await tx.select({ generation: zoneRevisions.generation, bytes: zoneRevisions.bytes }).from(zoneRevisions)
      .where(and(eq(zoneRevisions.zone, z.name), gt(zoneRevisions.generation, after), lt(zoneRevisions.generation, z.generation), gt(zoneRevisions.bytes, 0)))
      .orderBy(asc(zoneRevisions.generation)).limit(CAP_READ);
    for (const r of rows) {
      if (over <= 0) break;
      over -= r.bytes;
      last = r.generation;
    }
    if (rows.length < CAP_READ) break;
    after = rows.at(-1)!.generation;
  }
  if (last !== undefined) await dropRevisions(tx, z.name, lte(zoneRevisions.generation, last));
}

/** Deletes the zone's revisions `which` picks and takes their bytes off its total, under the zone's lock. */
async function dropRevisions(tx: Tx, zone: string, which: SQL | undefined): Promise<number> {
  const gone = await tx.delete(zoneRevisions).where(and(eq(zoneRevisions.zone, zone), which)).returning({ bytes: zoneRevisions.bytes });
  const bytes = gone.reduce((n, r) => n + Number(r.bytes), 0);
  if (bytes > 0) await tx.update(zones).set({ revisionBytes: sql`${zones.revisionBytes} - ${bytes}` }).where(eq(zones.name, zone));
  return gone.length;
}

/** Rows deleted per transaction, about: writes never wait long behind a prune. */
const PRUNE_CHUNK = 5000;

/** Deletes revisions older than `keepMs`, zone by zone, oldest first, a chunk per transaction under the zone's lock
 * (its total of bytes goes down with them); returns how many went. */
export async function pruneZoneRevisions(s: Store, keepMs = REVISION_KEEP_MS): Promise<number> {
  const cutoff = iso(new Date(s.clock().getTime() - keepMs));
  const old = await s.db.selectDistinct({ zone: zoneRevisions.zone }).from(zoneRevisions).where(lt(zoneRevisions.at, cutoff)).orderBy(asc(zoneRevisions.zone));
  let deleted = 0;
  for (const { zone } of old) {
    for (;;) {
      const n = await s.write(async (tx) => {
        await tx.lock(`zone/${zone}`);
        const rows = await tx.select({ generation: zoneRevisions.generation }).from(zoneRevisions)
          .where(and(eq(zoneRevisions.zone, zone), lt(zoneRevisions.at, cutoff))).orderBy(asc(zoneRevisions.generation)).limit(PRUNE_CHUNK);
        const last = rows.at(-1);
        return last ? dropRevisions(tx, zone, and(lte(zoneRevisions.generation, last.generation), lt(zoneRevisions.at, cutoff))) : 0;
      });
      deleted += n;
      if (n < PRUNE_CHUNK) break;
    }
  }
  return deleted;
}

/** The answer of a write run for its answer alone, carried out of the write so that its transaction rolls back. */
class RolledBack {
  constructor(readonly result: unknown) {}
}

/**
 * Runs `fn` as a write; with `dryRun` its transaction rolls back once `fn` has answered, so a dry run passes every
 * check the write makes and answers what the write would (generation, serial, diff) on the one code path, and
 * leaves nothing behind: no row, no feed entry, no audit record.
 */
export async function writeOrDryRun<T>(s: Store, dryRun: boolean, fn: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await s.write(async (tx) => {
      const result = await fn(tx);
      if (dryRun) throw new RolledBack(result);
      return result;
    });
  } catch (e) {
    if (e instanceof RolledBack) return e.result as T;
    throw e;
  }
}

const VERB = { add: 'added', change: 'changed', remove: 'removed' } as const;

/** A revision's one-line summary of its rrset changes: the rrset when there is one, else the counts. */
export function summaryOf(diff: readonly RevisionChange[]): string {
  if (diff.length === 1) return `${VERB[diff[0]!.op]} ${diff[0]!.name} ${diff[0]!.type}`;
  const n = (op: RevisionChange['op']): number => diff.filter((d) => d.op === op).length;
  return `${diff.length} rrsets: ${n('add')} added, ${n('change')} changed, ${n('remove')} removed`;
}
