/** The change feed and the audit log, both written inside the transaction of the change. The audit log is
 * append-only; the feed is pruned once its followers have read it (`pruneFeed`). */
import { and, desc, eq, fillPlaceholders, gt, gte, lt, lte, max, min, or, sql } from 'drizzle-orm';
import { iso, type Db, type Store, type Tx } from './db';
import type { Logger } from '../lib/log';
import { audit, changes, feedConsumers } from './schema';

/** The kinds of desired-state change: what the feed records, a nudge names and a reconciler watches. A zone created
 * or deleted records `zone-lifetime` besides `zone`: what the catalog lists, told apart from the rrset writes that make
 * most zone changes without a read of the zone per change. */
export const CHANGE_KINDS = ['project', 'secret', 'zone', 'zone-lifetime', 'placement', 'hostname', 'node', 'domain', 'storage'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface Change { seq: number; kind: ChangeKind; key: string }

/** The in-process subscribers of one store and the changes recorded in its transaction in progress. */
interface Announcer { recorded: Change[]; listeners: Set<(changes: Change[]) => void>; unsubscribe: () => void }
const announcers = new WeakMap<Store, Announcer>();

/**
 * A statement of a write with its values. Built once per store with placeholders, it runs alone (`runStatement`) or
 * goes with the feed row (`recordChange`'s `along`): on PostgreSQL in the same statement, so a change costs one round
 * trip less per statement folded in, and the feed lock, which every change takes, is held from that statement to
 * COMMIT only. Statements sent together run in no set order among themselves: none may read what another writes.
 */
export interface Statement {
  key: string;
  build: (db: Db) => { prepare(): { execute(values: Record<string, unknown>): unknown }; toSQL(): { sql: string; params: unknown[] } };
  values: Record<string, unknown>;
}

export async function runStatement(tx: Tx, st: Statement): Promise<void> {
  await tx.prepared(st.key, (db) => st.build(db).prepare()).execute(st.values);
}

/** `st` as raw SQL: `?` for each parameter, in order, as drizzle numbers them from $1. */
function rawOf(tx: Tx, st: Statement): { text: string; params: unknown[] } {
  const built = tx.prepared(`${st.key} raw`, (db) => {
    const q = st.build(db).toSQL();
    return { text: q.sql.replace(/\$\d+/g, '?'), params: q.params };
  });
  return { text: built.text, params: fillPlaceholders(built.params, st.values) };
}

/** Runs `st` as the last thing the write does: on PostgreSQL in the round trip of its COMMIT (Tx.withCommit). */
export async function runLast(tx: Tx, st: Statement): Promise<void> {
  if (!tx.withCommit) return runStatement(tx, st);
  const { text, params } = rawOf(tx, st);
  tx.withCommit(text, params);
}

/**
 * Records, in the write of `tx`, that the desired state of (kind, key) changed, with the statements `along`. The
 * change is announced to the `onChanges` subscribers of `s` once that write commits (`s` names whose subscribers; the
 * row goes through `tx`). On PostgreSQL the row and `along` go in the round trip of the write's COMMIT (Tx.withCommit),
 * so nothing later in the write may read what they write; the feed lock they take is then held for no round trip.
 */
export async function recordChange(s: Store, tx: Tx, kind: ChangeKind, key: string, at: Date, along: Statement[] = []): Promise<void> {
  if (s.dialect !== 'postgres' || !tx.withCommit) {
    await recordChangeSeq(s, tx, kind, key, at, along);
    return;
  }
  const { text, params } = feedStatementPg(tx, kind, key, at, along);
  let seq = 0;
  tx.withCommit<{ seq: number }>(text, params, (rows) => {
    seq = rows[0]!.seq;
  });
  tx.afterCommit(() => announcers.get(s)?.recorded.push({ seq, kind, key }));
}

/**
 * `recordChange` answering the change's seq inside the write, for a write that stores it (a node bundle's version).
 * On PostgreSQL the row costs a round trip of its own, and the feed lock is held from it to COMMIT.
 */
export async function recordChangeSeq(s: Store, tx: Tx, kind: ChangeKind, key: string, at: Date, along: Statement[] = []): Promise<number> {
  // Followers read the feed by seq. On PostgreSQL a sequence hands out numbers in call order, not commit order, so a
  // follower that read seq 11 could miss seq 10 committed a moment later: writes that record changes commit one
  // after another (docs/store.md). SQLite's writes are serial anyway.
  let seq: number;
  if (s.dialect === 'postgres') {
    const { name, text, params } = feedStatementPg(tx, kind, key, at, along);
    [{ seq }] = (await tx.raw<{ seq: number }>(name, text, params)) as [{ seq: number }];
  } else {
    for (const st of along) await runStatement(tx, st);
    ({ seq } = await appendLocked(tx, kind, key, at));
  }
  // Only once this write has committed: a change rolled back with its write is gone, and SQLite hands its seq to
  // the next change, maybe another process's, which a consumer skipping announced seqs would then skip.
  tx.afterCommit(() => announcers.get(s)?.recorded.push({ seq, kind, key }));
  return seq;
}

async function appendLocked(tx: Tx, kind: ChangeKind, key: string, at: Date): Promise<{ seq: number }> {
  await tx.lock('feed');
  const [row] = await tx.prepared('recordChange', (db) => db.insert(changes)
    .values({ kind: sql.placeholder('kind'), key: sql.placeholder('key'), at: sql.placeholder('at') })
    .returning({ seq: changes.seq }).prepare()).execute({ kind, key, at: iso(at) });
  return row!;
}

/** The `feed` lock (as tx.lock takes it), the statements `along` and the row as one statement. The lock's CTE is
 * volatile, so it runs before the row, and with it the seq, is made; each of `along` runs once, to completion, as
 * every data-modifying CTE does. */
function feedStatementPg(tx: Tx, kind: ChangeKind, key: string, at: Date, along: Statement[]): { name: string; text: string; params: unknown[] } {
  const name = ['recordChangePg', ...along.map((st) => st.key)].join(' ');
  const folded = tx.prepared(name, (db) => {
    const parts = along.map((st) => st.build(db).toSQL());
    // drizzle numbers each statement's parameters from $1 in order; raw numbers the `?` of the whole text.
    const ctes = parts.map((p, i) => `s${i} AS (${p.sql.replace(/\$\d+/g, '?')}), `).join('');
    return {
      text: `WITH ${ctes}feed AS (SELECT pg_advisory_xact_lock(hashtextextended('feed', 0)))
    INSERT INTO changes (kind, key, at) SELECT ?, ?, ? FROM feed RETURNING seq`,
      params: parts.map((p) => p.params),
    };
  });
  const params = along.flatMap((st, i) => fillPlaceholders(folded.params[i]!, st.values));
  return { name, text: folded.text, params: [...params, kind, key, iso(at)] };
}

/**
 * Calls `listener` right after commits of this process's writes with the changes they recorded, each call's changes
 * in `seq` order, so that in-process consumers (reconcilers, long-polls) need not wait for a poll of the feed; changes
 * committed by other processes reach only `changesSince`. Returns the unsubscribe. One commit's changes come in one
 * call (on SQLite, one call for the writes committed together). Calls come in the order their commits were seen to
 * end, which on PostgreSQL (each write on a connection of its own) need not be their seqs' order: a consumer that
 * remembers seqs it was told keeps them as a set, not as a position in the feed.
 */
export function onChanges(s: Store, listener: (changes: Change[]) => void): () => void {
  let a = announcers.get(s);
  if (!a) {
    const created: Announcer = { recorded: [], listeners: new Set(), unsubscribe: () => undefined };
    created.unsubscribe = s.onCommit(() => announce(created));
    announcers.set(s, created);
    a = created;
  }
  const own = a;
  own.listeners.add(listener);
  return () => {
    own.listeners.delete(listener);
    if (own.listeners.size > 0 || announcers.get(s) !== own) return;
    own.unsubscribe();
    announcers.delete(s);
  };
}

/** Tells the subscribers the changes of a commit, in seq order. */
function announce(a: Announcer): void {
  if (a.recorded.length === 0) return;
  const batch = a.recorded.sort((x, y) => x.seq - y.seq);
  a.recorded = [];
  for (const l of a.listeners) {
    try {
      l(batch);
    } catch {
      // The commit succeeded and its writers are answered: a consumer's failure is its own to log.
    }
  }
}

/** Changes after `seq` in order, whoever wrote them; a kind this version does not know matches no watch. */
export async function changesSince(s: Store, seq: number, limit = 1000): Promise<Change[]> {
  return await s.db.select({ seq: changes.seq, kind: changes.kind, key: changes.key }).from(changes)
    .where(gt(changes.seq, seq)).orderBy(changes.seq).limit(limit) as Change[];
}

export async function latestSeq(s: Store): Promise<number> {
  const [head] = await s.db.select({ seq: max(changes.seq) }).from(changes);
  return head?.seq ?? 0;
}

/**
 * Says that the follower `id` (the runner of one process) has read the feed up to `seq`. Until it goes quiet
 * for `staleMs`, pruning keeps what it has not read yet. Each report is a write: report every few seconds,
 * not on every read.
 */
export async function reportFeedPosition(s: Store, id: string, seq: number): Promise<void> {
  const seenAt = iso(s.clock());
  await s.write(async (tx) => {
    await tx.insert(feedConsumers).values({ id, seq, seenAt }).onConflictDoUpdate({ target: feedConsumers.id, set: { seq, seenAt } });
  });
}

export interface FeedRetention {
  /** Rows this young stay, read or not: followers that report no position rely on it. */
  keepMs: number;
  /** The newest rows always stay: the head of the feed is the store's change sequence (`latestSeq`). */
  keepRows: number;
  /** A follower not heard from for this long no longer holds the feed. */
  staleMs: number;
  /** Not even a live follower holds rows older than this (so far behind, it must resync), and followers not
   * heard from for this long are forgotten. */
  maxAgeMs: number;
  /** Rows deleted per transaction: other writes never wait behind a long delete. */
  chunk: number;
  /** Rows deleted per call at most. */
  maxRows: number;
}

/** At 2,000 writes/s: about 1.8 million rows kept (15 minutes), and a run every 30 s deletes up to 3,300 rows/s. */
export const FEED_RETENTION: FeedRetention = {
  keepMs: 15 * 60_000, keepRows: 1000, staleMs: 5 * 60_000, maxAgeMs: 24 * 3_600_000, chunk: 5000, maxRows: 100_000,
};

/**
 * Deletes the oldest rows of the feed that no follower needs, oldest first, in transactions of `chunk` rows:
 * a row goes when it is not one of the newest `keepRows`, is older than `keepMs`, and has been read by every
 * follower heard from in the last `staleMs` or is older than `maxAgeMs`. Returns how many rows went.
 */
export async function pruneFeed(s: Store, r: FeedRetention = FEED_RETENTION): Promise<number> {
  const now = s.clock().getTime();
  const young = iso(new Date(now - r.keepMs));
  const old = iso(new Date(now - r.maxAgeMs));
  const live = iso(new Date(now - r.staleMs));
  await s.write(async (tx) => {
    await tx.delete(feedConsumers).where(lt(feedConsumers.seenAt, old));
  });
  let deleted = 0;
  while (deleted < r.maxRows) {
    const limit = Math.min(r.chunk, r.maxRows - deleted);
    const n = await s.write(async (tx) => {
      const [head] = await tx.select({ seq: max(changes.seq) }).from(changes);
      const [slowest] = await tx.select({ seq: min(feedConsumers.seq) }).from(feedConsumers).where(gte(feedConsumers.seenAt, live));
      const held = slowest?.seq ?? null;
      const rows = await tx.select({ seq: changes.seq, at: changes.at }).from(changes)
        .where(lte(changes.seq, (head?.seq ?? 0) - r.keepRows)).orderBy(changes.seq).limit(limit);
      const kept = rows.findIndex((c) => !(c.at < young && (held === null || c.seq <= held || c.at < old)));
      const count = kept === -1 ? rows.length : kept;
      if (count > 0) await tx.delete(changes).where(lte(changes.seq, rows[count - 1]!.seq));
      return count;
    });
    deleted += n;
    if (n < limit) break;
  }
  return deleted;
}

/** Prunes the feed every `everyMs` until stopped, and with it whatever else `also` prunes of the store by age (zone
 * revisions, rrset tombstones); a failed run is logged and the next one tries again. */
export function startFeedPruning(
  s: Store, log: Logger, everyMs = 30_000, r: FeedRetention = FEED_RETENTION, also: readonly ((s: Store) => Promise<unknown>)[] = [],
): { stop(): Promise<void> } {
  let stopped = false;
  let run = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const schedule = (): void => {
    timer = setTimeout(() => {
      const failed = (what: string) => (e: unknown): void => log.error({ err: e instanceof Error ? e.message : String(e) }, `pruning ${what} failed`);
      run = pruneFeed(s, r).then(
        (n) => {
          if (n >= r.maxRows) log.warn({ deleted: n }, 'the change feed grows faster than it is pruned');
        },
        failed('the change feed'),
      ).then(() => Promise.all(also.map((prune) => prune(s).catch(failed(prune.name))))).then(() => undefined).finally(() => {
        if (!stopped) schedule();
      });
    }, everyMs);
    timer.unref();
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await run;
    },
  };
}

export interface AuditEntry {
  orgId: number;
  event: string;
  actor: string;
  target: string;
  /** Never a secret, password, transfer code or contact: audit rows cannot be deleted. */
  details?: Record<string, unknown>;
}

/** The audit record's statement, for a write that sends it with its feed row. */
export const auditStatement = (e: AuditEntry, at: Date): Statement => ({
  key: 'appendAudit',
  build: (db) => db.insert(audit).values({
    orgId: sql.placeholder('orgId'), event: sql.placeholder('event'), actor: sql.placeholder('actor'),
    target: sql.placeholder('target'), details: sql.placeholder('details'), at: sql.placeholder('at'),
  }),
  values: { ...e, details: e.details ?? {}, at: iso(at) },
});

/** Appends an audit record in the write of `tx`. */
export async function appendAudit(tx: Tx, e: AuditEntry, at: Date): Promise<void> {
  await runStatement(tx, auditStatement(e, at));
}

export interface AuditRecord { id: string; at: string; event: string; actor: string; target: string; details: Record<string, unknown> }

/** Which audit records a read wants: those of one actor, and of one target with the targets under it (`blog` is
 * `blog` and `blog/API_KEY`; a zone, its rrsets). */
export interface AuditFilter { actor?: string; target?: string }

/** Newest first; the cursor is the id of the last item of the previous page. */
export async function listAudit(s: Store, orgId: number, limit: number, before?: number, filter: AuditFilter = {}): Promise<AuditRecord[]> {
  const { actor, target } = filter;
  const rows = await s.db.select().from(audit)
    .where(and(
      eq(audit.orgId, orgId),
      before === undefined ? undefined : lt(audit.id, before),
      actor === undefined ? undefined : eq(audit.actor, actor),
      // substr, not LIKE: a target's `_` and `%` are themselves.
      target === undefined ? undefined : or(eq(audit.target, target), eq(sql`substr(${audit.target}, 1, ${target.length + 1})`, `${target}/`)),
    ))
    .orderBy(desc(audit.id)).limit(limit);
  return rows.map((r) => ({ id: String(r.id), at: r.at, event: r.event, actor: r.actor, target: r.target, details: r.details }));
}
