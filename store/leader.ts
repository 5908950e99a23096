/**
 * The leader lease and fencing (CONTRACT.md "Several machines", docs/deployment.md "Leader election and fencing").
 * One `leader` row per installation, elected by INSERT … ON CONFLICT DO UPDATE WHERE the lease has passed, with a
 * term that rises with every new leader. Times are the database's clock: processes on machines whose clocks
 * disagree still agree on when a lease ends. A write made for a reconcile pass carries the term it was started
 * under (`withTerm`), and the store refuses it in its own transaction when that term no longer holds a live lease:
 * a leader paused past its lease cannot write after it lost, whatever its timers believe.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { AppError } from '../lib/errors';
import type { Dialect, Store, Tx } from './db';

/** How long a lease lasts from its last renewal (Kubernetes' default lease duration). */
export const LEASE_MS = 15_000;
/** Silent processes are forgotten after a day. */
const PROCESS_RETENTION_MS = 24 * 3600_000;

/** A write of a reconcile pass whose term no longer holds the lease: rolled back. On the API side (a Core port call
 * on a process that just lost the lease) it answers 503 `not_leader`, a moment's state, not the caller's fault. */
export class FencedError extends AppError {
  override name = 'FencedError';
  constructor(readonly term: number) {
    super(503, 'not_leader', `this process no longer leads (term ${term} was superseded or its lease passed); retry`);
  }
}

/** The database's clock in milliseconds since the epoch. */
const NOW: Record<Dialect, string> = {
  sqlite: "CAST(unixepoch('subsec') * 1000 AS INTEGER)",
  postgres: '(extract(epoch from clock_timestamp()) * 1000)::bigint',
};

/**
 * The lease on SQLite. The store is a file in one data dir, whose lock admits one `serve` or `core`: no other
 * process can ever bid. A 15 s lease there guards against nobody, and a loaded machine that renews late (a long
 * import holding the event loop, a starved process) would make the sole candidate step down and lead again in a new
 * term: the reconcilers stopped and started, the nameserver stood by and reloaded for nothing. So it holds a day's
 * lease, renewed as often as any; a process restarted on the data dir takes it back at once, under another host name
 * too (`Candidate.sole`).
 */
export const SOLE_CANDIDATE_LEASE = { leaseMs: 24 * 60 * 60 * 1000, renewMs: LEASE_MS / 3 } as const;

/** Whether no other process can ever bid on `store`'s lease: SQLite's, whose data dir's lock admits one `serve` or
 * `core` (`api` processes never bid). */
export const soleCandidate = (store: Store): boolean => store.dialect === 'sqlite';

/** Who bids: a process is named by its host and data dir, which the data dir's lock keeps to one process at a time,
 * so that a process restarted on its data dir takes its own lease back at once instead of waiting it out. */
export interface Candidate {
  holder: string;
  /** The URL the other processes reach its API at (--advertise-url, else its listening URL). */
  url: string;
  /** No other process can bid (SQLite: the data dir's lock admits one serve or core): its bid takes the lease
   * whoever holds it. A holder of another name is then this data dir's last process on another host or in another
   * container (a rescheduled pod has a new hostname), gone without resigning, whose day-long lease
   * ({@link SOLE_CANDIDATE_LEASE}) must not be waited out with no leader and the nameserver standing by. */
  sole?: boolean;
}

export const holderOf = (dataDir: string): string => `${hostname()}:${resolve(dataDir)}`;

export interface Lease {
  term: number;
  holder: string;
  url: string;
  sinceMs: number;
  renewedMs: number;
  expiresMs: number;
  /** The database's clock when it was read. */
  nowMs: number;
}

type LeaseRow = Lease;
const COLUMNS = 'term, holder, url, since_ms AS "sinceMs", renewed_ms AS "renewedMs", expires_ms AS "expiresMs"';

/** Records that `c` (process `pid`) is alive, in `tx`; processes silent for a day are forgotten. */
async function heartbeat(tx: Tx, dialect: Dialect, c: Candidate, pid: number): Promise<void> {
  const now = NOW[dialect];
  await tx.raw('leader heartbeat', `INSERT INTO processes (holder, url, pid, started_ms, heartbeat_ms) VALUES (?, ?, ?, ${now}, ${now})
    ON CONFLICT (holder) DO UPDATE SET url = excluded.url, pid = excluded.pid, heartbeat_ms = excluded.heartbeat_ms,
      started_ms = CASE WHEN processes.pid = excluded.pid THEN processes.started_ms ELSE excluded.started_ms END`, [c.holder, c.url, pid]);
  await tx.raw('leader forget processes', `DELETE FROM processes WHERE heartbeat_ms < ${now} - ?`, [PROCESS_RETENTION_MS]);
}

/** Records that `c` is alive, for a process that does not bid (`api`). */
export async function beat(s: Store, c: Candidate, pid = process.pid): Promise<void> {
  await s.write((tx) => heartbeat(tx, s.dialect, c, pid));
}

/**
 * Bids for the lease: won when there is no leader row, its lease has passed, or `c` holds it already (a restart on
 * the same data dir). A win starts a new term. Answers the lease as it stands after the bid, won or not (null: never
 * held), and records `c`'s heartbeat in the same transaction.
 */
export async function bid(s: Store, c: Candidate, leaseMs = LEASE_MS, pid = process.pid): Promise<{ won: boolean; lease: Lease | null }> {
  const now = NOW[s.dialect];
  return s.write(async (tx) => {
    await heartbeat(tx, s.dialect, c, pid);
    const [won] = await tx.raw<LeaseRow>('leader bid', `INSERT INTO leader (id, term, holder, url, since_ms, renewed_ms, expires_ms) VALUES (1, 1, ?, ?, ${now}, ${now}, ${now} + ?)
      ON CONFLICT (id) DO UPDATE SET term = leader.term + 1, holder = excluded.holder, url = excluded.url, since_ms = excluded.since_ms,
        renewed_ms = excluded.renewed_ms, expires_ms = excluded.expires_ms
      WHERE leader.expires_ms <= excluded.since_ms OR leader.holder = excluded.holder OR ? = 1
      RETURNING ${COLUMNS}, ${now} AS "nowMs"`, [c.holder, c.url, leaseMs, c.sole ? 1 : 0]);
    if (won) return { won: true, lease: won };
    const [held] = await tx.raw<LeaseRow>('leader read in write', `SELECT ${COLUMNS}, ${now} AS "nowMs" FROM leader WHERE id = 1`);
    return { won: false, lease: held ?? null };
  });
}

/** Extends the lease of `term` held by `c` by `leaseMs` from now, with `c`'s heartbeat; false when that term no
 * longer holds a live lease (another leads, or it passed), and then nothing is extended. */
export async function renew(s: Store, c: Candidate, term: number, leaseMs = LEASE_MS, pid = process.pid): Promise<boolean> {
  const now = NOW[s.dialect];
  return s.write(async (tx) => {
    await heartbeat(tx, s.dialect, c, pid);
    const rows = await tx.raw<{ term: number }>('leader renew', `UPDATE leader SET renewed_ms = ${now}, expires_ms = ${now} + ?
      WHERE id = 1 AND term = ? AND holder = ? AND expires_ms > ${now} RETURNING term`, [leaseMs, term, c.holder]);
    return rows.length === 1;
  });
}

/** Ends the lease of `term` now, so that another process's next bid wins: a clean stop hands over at once. Every
 * commit notifies the other processes (Store.onOtherCommits), which is what wakes their bids. */
export async function resign(s: Store, term: number): Promise<void> {
  const now = NOW[s.dialect];
  await s.write(async (tx) => {
    await tx.raw('leader resign', `UPDATE leader SET expires_ms = ${now} WHERE id = 1 AND term = ? AND expires_ms > ${now}`, [term]);
  });
}

/** The lease as it stands, live or not (null: nobody ever led). */
export async function readLease(s: Store): Promise<Lease | null> {
  const [row] = await s.raw<LeaseRow>('leader read', `SELECT ${COLUMNS}, ${NOW[s.dialect]} AS "nowMs" FROM leader WHERE id = 1`);
  return row ?? null;
}

/** The lease while it is live by the database's clock: null while none leads (never elected, or its lease passed). */
export async function liveLease(s: Store): Promise<Lease | null> {
  const l = await readLease(s);
  return l !== null && l.expiresMs > l.nowMs ? l : null;
}

export interface ProcessBeat {
  holder: string;
  url: string;
  pid: number;
  startedMs: number;
  heartbeatMs: number;
}

export const processBeats = (s: Store): Promise<ProcessBeat[]> =>
  s.raw<ProcessBeat>('leader processes', 'SELECT holder, url, pid, started_ms AS "startedMs", heartbeat_ms AS "heartbeatMs" FROM processes ORDER BY holder');

/**
 * Refuses the rest of the write unless `term` holds a live lease, in the write's own transaction. On PostgreSQL the
 * check locks the leader row FOR SHARE until the commit, so a successor's bid (an UPDATE of that row) waits for the
 * writes of the term it ends: every write of term N commits before term N+1 begins, or not at all. A transaction
 * left open by a paused process would hold that lock: a fenced write's transaction is ended by the server after
 * FENCED_IDLE_MS idle, which no healthy write function comes near (it awaits nothing but its handle), and which ends
 * before the lease can pass (a leader renews at least every 10 s, the lease is 15 s), so the successor never waits.
 */
const FENCED_IDLE_MS = 5_000;

export async function fence(tx: Tx, dialect: Dialect, term: number): Promise<void> {
  const rows = dialect === 'postgres'
    ? await tx.raw('leader fence', `SELECT set_config('idle_in_transaction_session_timeout', '${FENCED_IDLE_MS}', true) FROM leader
        WHERE id = 1 AND term = ? AND expires_ms > ${NOW.postgres} FOR SHARE`, [term])
    : await tx.raw('leader fence', `SELECT term FROM leader WHERE id = 1 AND term = ? AND expires_ms > ${NOW.sqlite}`, [term]);
  if (rows.length === 0) throw new FencedError(term);
}

const passTerm = new AsyncLocalStorage<number>();

/** Runs `fn` as work of leadership term `term`: every write it makes through a `fencedStore` is fenced by it. */
export const withTerm = <T>(term: number, fn: () => Promise<T>): Promise<T> => passTerm.run(term, fn);

/** The term of the reconcile pass this code runs in (withTerm), or undefined outside one (an API request). */
export const currentTerm = (): number | undefined => passTerm.getStore();

/**
 * `s` with its writes fenced when made inside `withTerm` (a reconcile pass of the leader), wherever the code that
 * writes lives (a reconciler, the domain saga it calls); other writes (API requests) are `s`'s own.
 */
export function fencedStore(s: Store): Store {
  return {
    ...s,
    write: (fn, opts) => {
      const term = passTerm.getStore();
      if (term === undefined) return s.write(fn, opts);
      return s.write(async (tx) => {
        await fence(tx, s.dialect, term);
        return fn(tx);
      }, opts);
    },
  };
}

export interface LeadershipStatus {
  /** Who leads now; null while none does (never elected, or its lease passed). */
  leader: { url: string; term: number; since: string; renewedAt: string; expiresAt: string } | null;
  /** Every process heard from in the last day, with its last heartbeat. */
  processes: { holder: string; url: string; pid: number; startedAt: string; heartbeatAt: string; leader: boolean }[];
}

const isoMs = (ms: number): string => new Date(ms).toISOString();

/** What `admin status` shows of the leadership. */
export async function leadershipStatus(s: Store): Promise<LeadershipStatus> {
  const live = await liveLease(s);
  return {
    leader: live && { url: live.url, term: live.term, since: isoMs(live.sinceMs), renewedAt: isoMs(live.renewedMs), expiresAt: isoMs(live.expiresMs) },
    processes: (await processBeats(s)).map((p) => ({
      holder: p.holder, url: p.url, pid: p.pid, startedAt: isoMs(p.startedMs), heartbeatAt: isoMs(p.heartbeatMs), leader: live?.holder === p.holder,
    })),
  };
}
