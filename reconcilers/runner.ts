/**
 * Runs the reconcilers. A change wakes the reconcilers that watch its kind, for the keys their watches map it
 * to: this process's commits at once (store/feed.ts `onChanges`), other processes' from a read of the feed
 * that their commits' hint starts (Store.onOtherCommits) or, should a hint be lost, the feed's periodic poll, and
 * nudges (a change seen early) likewise. Deadlines (requeue, retry with backoff) keep one timer per key,
 * and a periodic resync of every key is the level-triggered safety net.
 */
import client from 'prom-client';
import type { Logger } from '../lib/log';
import { reasonOf } from '../lib/errors';
import { causeOf, StoreUnavailableError, type Store } from '../store/db';
import { FencedError, withTerm } from '../store/leader';
import { randomUUID } from 'node:crypto';
import { changesSince, latestSeq, onChanges, reportFeedPosition, type ChangeKind } from '../store/feed';
import { deadlines, keyedQueue, type KeyedQueue } from './queue';
import { TerminalError, type Reconciler, type Watch } from './types';

export interface RunnerOptions {
  store: Store;
  reconcilers: Reconciler[];
  log: Logger;
  /** How often the change feed is read for changes made by another process (an `api` beside this core, another
   * replica) when no hint of their commits came: the fallback of a lost hint. */
  pollMs?: number;
  /** Full resync of every key, the level-triggered safety net. */
  resyncMs?: number;
  concurrency?: number;
  /** Where reconcile metrics go (the process's /metrics on `--metrics-listen`). */
  registry?: client.Registry;
  /** The leadership term this runner works for: every write of a pass is fenced by it (store/leader.ts withTerm),
   * and a refused one stops the passes and calls `onFenced` (another process leads now). */
  term?: number;
  onFenced?: () => void;
}

export interface Runner {
  /** A change made elsewhere, told before the feed poll would find it: woken like a change from the feed. */
  nudge(kind: ChangeKind, key: string): void;
  /** Keys waiting for a deadline (requeue, retry), over all reconcilers: at most one per key. */
  pending(): number;
  /** Resolves when no reconcile is queued or running and no change is being mapped to keys (tests, shutdown). */
  idle(): Promise<void>;
  /** Leaves no timer, no subscription and no running reconcile behind. */
  stop(): Promise<void>;
}

const MIN_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** After the n-th failure in a row: doubling, jittered so that keys failing together spread out, capped. */
/** How often the feed is tried while the store cannot be reached: the first read that works again passes what
 * failed for it at once, instead of at each key's backoff (up to 30 s after the store is back). */
const STORE_PROBE_MS = 1_000;
const backoff = (failures: number): number =>
  Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** (failures - 1) * (0.8 + Math.random() * 0.4));
const POLL_BATCH = 1000;

interface Worker {
  r: Reconciler;
  queue: ReturnType<typeof keyedQueue>;
  /** Failures in a row per key; a success or a terminal error forgets them. */
  failures: Map<string, number>;
  resyncFailures: number;
  /** Keys whose last pass failed because the store could not be reached: passed again as soon as it answers. */
  storeFailed: Set<string>;
  /** The watches with a spacing: each maps its changes as the jobs of a keyed queue (reconcilers/queue.ts). */
  mappers: Map<Watch, KeyedQueue>;
}

export async function startRunner(o: RunnerOptions): Promise<Runner> {
  const abort = new AbortController();
  const stopped = (): boolean => abort.signal.aborted;
  const pollMs = o.pollMs ?? 500;
  /** How often the feed position is written: each report is a write. */
  const FEED_REPORT_MS = 5_000;
  const resyncMs = o.resyncMs ?? 10 * 60_000;
  /** The poll's and each reconciler's resync deadline. */
  const timers = deadlines();
  /** Resyncs, polls and asynchronous watch mappings under way: none rejects. */
  const inflight = new Set<Promise<void>>();
  const track = (p: Promise<void>): void => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };

  const registers = o.registry ? [o.registry] : [];
  // A process that leads again starts a new runner on the same registry: its metrics replace the last runner's.
  for (const name of ['hostplane_reconcile_duration_seconds', 'hostplane_reconcile_deadlines']) o.registry?.removeSingleMetric(name);
  const duration = new client.Histogram({
    name: 'hostplane_reconcile_duration_seconds',
    help: 'Reconcile passes by kind and outcome (ok, retry, terminal, fenced)',
    labelNames: ['kind', 'outcome'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers,
  });

  const pass = async (w: Worker, key: string): Promise<void> => {
    if (stopped()) return;
    const done = duration.startTimer({ kind: w.r.kind });
    try {
      const res = await (o.term === undefined ? w.r.reconcile(key, abort.signal) : withTerm(o.term, () => w.r.reconcile(key, abort.signal)));
      done({ outcome: 'ok' });
      w.failures.delete(key);
      w.storeFailed.delete(key);
      // At once is right after this pass, as a change during it would be: queued before the pass ends, so that
      // idle() waits for it too.
      if (res.requeueAfterMs === 0 && !stopped()) w.queue.add(key);
      else if (res.requeueAfterMs !== undefined && !stopped()) w.queue.addAfter(key, res.requeueAfterMs);
    } catch (e) {
      const terminal = e instanceof TerminalError;
      const fenced = causeOf(e, FencedError) !== undefined;
      done({ outcome: terminal ? 'terminal' : fenced ? 'fenced' : 'retry' });
      if (stopped()) return;
      if (fenced) {
        o.log.warn({ kind: w.r.kind, key, term: o.term }, 'a write of this pass was refused: this process no longer leads');
        abort.abort();
        o.onFenced?.();
        return;
      }
      if (terminal) {
        w.failures.delete(key);
        w.storeFailed.delete(key);
        o.log.warn({ kind: w.r.kind, key, err: reasonOf(e) }, 'reconcile failed for good; waiting for a new desired state');
        return;
      }
      const n = (w.failures.get(key) ?? 0) + 1;
      w.failures.set(key, n);
      if (causeOf(e, StoreUnavailableError)) w.storeFailed.add(key);
      else w.storeFailed.delete(key);
      const delay = backoff(n);
      o.log.warn({ kind: w.r.kind, key, attempt: n, retryInMs: Math.round(delay), err: reasonOf(e) }, 'reconcile failed; retrying');
      w.queue.addAfter(key, delay);
    }
  };
  const workers = o.reconcilers.map((r): Worker => {
    const w: Worker = {
      r, queue: keyedQueue(r.concurrency ?? o.concurrency ?? 4, (key) => pass(w, key), { spacingMs: r.spacingMs, burst: r.spacingBurst }), failures: new Map(), resyncFailures: 0, storeFailed: new Set(), mappers: new Map(),
    };
    r.background?.attach((key) => {
      if (!stopped()) w.queue.add(key);
    });
    // A spaced mapping queues its keys with `add` whatever woke it: a nudge through it may run a running key once
    // more, where `wake` would not (one pass more, never one less).
    for (const watch of r.watches) {
      if (watch.spacingMs) w.mappers.set(watch, keyedQueue(4, async (changeKey) => mapChange(w, watch, changeKey, false), { spacingMs: watch.spacingMs }));
    }
    return w;
  });
  /** Every queue of the runner: the reconcilers' and their watches' mappers. */
  const queues = (): KeyedQueue[] => workers.flatMap((w) => [w.queue, ...w.mappers.values()]);

  new client.Gauge({
    name: 'hostplane_reconcile_deadlines',
    help: 'Keys waiting for a requeue or retry deadline, by kind',
    labelNames: ['kind'],
    registers,
    collect() {
      for (const w of workers) this.set({ kind: w.r.kind }, w.queue.waiting());
    },
  });

  const scheduleResync = (w: Worker, ms: number): void => {
    if (!stopped()) timers.at(`resync ${w.r.kind}`, ms, () => track(resync(w)));
  };
  const resync = async (w: Worker): Promise<void> => {
    try {
      const keys = await w.r.keys();
      w.resyncFailures = 0;
      if (!stopped()) for (const k of keys) w.queue.add(k);
      scheduleResync(w, resyncMs);
    } catch (e) {
      w.resyncFailures++;
      const delay = backoff(w.resyncFailures);
      o.log.error({ kind: w.r.kind, attempt: w.resyncFailures, retryInMs: Math.round(delay), err: reasonOf(e) }, 'listing keys to resync failed; retrying');
      scheduleResync(w, delay);
    }
  };

  /** A change whose keys are unknown may concern any key: only a resync is sure to cover it. */
  const mappingFailed = (w: Worker, kind: ChangeKind, changeKey: string, e: unknown): void => {
    o.log.error({ kind: w.r.kind, changeKind: kind, changeKey, err: reasonOf(e) }, 'mapping a change to keys failed; resyncing');
    scheduleResync(w, backoff(1));
  };
  /** Queues the keys `watch` maps a change to; never rejects. `nudge`: a write's own signal, after its commit,
   * which this process's commit notification or the feed poll reports too: a key already running for it is not
   * run a second time (half of all passes, under steady writes). */
  const mapChange = (w: Worker, watch: Watch, changeKey: string, nudge: boolean): Promise<void> | undefined => {
    const enqueue = (k: string): void => (nudge ? w.queue.wake(k) : w.queue.add(k));
    let keys: Promise<string[]> | string[];
    try {
      keys = watch.keys(changeKey);
    } catch (e) {
      mappingFailed(w, watch.kind, changeKey, e);
      return undefined;
    }
    if (Array.isArray(keys)) {
      keys.forEach(enqueue);
      return undefined;
    }
    return keys.then(
      (ks) => {
        if (!stopped()) ks.forEach(enqueue);
      },
      (e: unknown) => mappingFailed(w, watch.kind, changeKey, e),
    );
  };
  const route = (kind: ChangeKind, changeKey: string, nudge = false): void => {
    if (stopped()) return;
    for (const w of workers) {
      for (const watch of w.r.watches) {
        if (watch.kind !== kind) continue;
        const mapper = w.mappers.get(watch);
        if (mapper) {
          mapper.add(changeKey);
          continue;
        }
        const mapped = mapChange(w, watch, changeKey, nudge);
        if (mapped) track(mapped);
      }
    }
  };

  let polled = await latestSeq(o.store);
  /** Seqs already routed from this process's commits, for the poll to skip when it reaches them. */
  const announced = new Set<number>();
  /**
   * How many of each change this process's commits announced since the poll before last, for the nudge each of
   * their writers sends once answered (after the announcement and the sync) to map nothing again: mapping a
   * change may query the store, and its keys may have finished their pass by then. One a write announced without
   * nudging stays until the second poll after it; a nudge for another process's change it takes meanwhile is
   * left to that poll.
   */
  let announcedIds = new Map<string, number>();
  let olderIds = new Map<string, number>();
  /** Takes one announcement of `id` from `m`; false when it holds none. */
  const takeOne = (m: Map<string, number>, id: string): boolean => {
    const n = m.get(id);
    if (n === undefined) return false;
    if (n > 1) m.set(id, n - 1);
    else m.delete(id);
    return true;
  };
  const changeId = (kind: ChangeKind, key: string): string => `${kind}\u0000${key}`;
  // Routed at the announcement itself, which SQLite makes while the commit is synced to disk, before its writers
  // are answered: the zone's pass sends its change to the nameserver meanwhile. A timer or a turn of the event
  // loop in between cost a change more than a millisecond on its way to being served.
  const unsubscribe = onChanges(o.store, (batch) => {
    /** Writes of one key committed together are one change to the reconcilers. */
    const routed = new Set<string>();
    for (const c of batch) {
      // Counted even when the poll routed it: the writer's nudge is for a change already mapped either way.
      const id = changeId(c.kind, c.key);
      announcedIds.set(id, (announcedIds.get(id) ?? 0) + 1);
      // The poll can read a commit from COMMIT on (PostgreSQL announces it later): a change it has passed
      // meanwhile was routed by it.
      if (c.seq <= polled) continue;
      announced.add(c.seq);
      if (routed.has(id)) continue;
      routed.add(id);
      route(c.kind, c.key);
    }
  });
  let pollFailures = 0;
  /** The last read of the feed failed because the store could not be reached. */
  let storeDown = false;
  const storeBack = (): void => {
    storeDown = false;
    const retried = workers.reduce((n, w) => n + w.storeFailed.size, 0);
    o.log.info({ retried }, 'the store answers again; passing at once what failed for it');
    for (const w of workers) {
      for (const key of w.storeFailed) w.queue.add(key);
      w.storeFailed.clear();
      if (w.resyncFailures > 0) scheduleResync(w, 0);
    }
  };
  const schedulePoll = (ms: number): void => {
    if (!stopped()) timers.at('poll', ms, () => track(poll()));
  };
  /** This runner as a follower of the feed: pruning keeps what it has not read while it reports. */
  const follower = `runner-${process.pid}-${randomUUID().slice(0, 8)}`;
  let reportedAt = 0;
  let polling = false;
  /** Another process committed while a poll ran, perhaps after its read: the next poll is at once. */
  let hinted = false;
  const poll = async (): Promise<void> => {
    olderIds = announcedIds;
    announcedIds = new Map();
    polling = true;
    hinted = false;
    try {
      for (;;) {
        const batch = await changesSince(o.store, polled, POLL_BATCH);
        // Seqs are never reused, so a hole before the first one read is changes pruned unread (this process
        // stalled past the retention window): only a resync of everything is sure to cover them.
        if (batch.length > 0 && batch[0]!.seq > polled + 1) {
          o.log.warn({ from: polled + 1, to: batch[0]!.seq - 1 }, 'changes were pruned before this process read them; resyncing');
          for (const w of workers) scheduleResync(w, 0);
        }
        for (const c of batch) {
          polled = c.seq;
          if (!announced.delete(c.seq)) route(c.kind, c.key);
        }
        if (batch.length < POLL_BATCH || stopped()) break;
      }
      if (Date.now() - reportedAt >= FEED_REPORT_MS) {
        reportedAt = Date.now();
        await reportFeedPosition(o.store, follower, polled);
      }
      if (storeDown) storeBack();
      pollFailures = 0;
      schedulePoll(hinted ? 0 : pollMs);
    } catch (e) {
      pollFailures++;
      storeDown ||= causeOf(e, StoreUnavailableError) !== undefined;
      const delay = Math.max(pollMs, storeDown ? Math.min(STORE_PROBE_MS, backoff(pollFailures)) : backoff(pollFailures));
      o.log.error({ attempt: pollFailures, retryInMs: Math.round(delay), err: reasonOf(e) }, 'reading the change feed failed; retrying');
      schedulePoll(delay);
    } finally {
      polling = false;
    }
  };
  // A write through another replica reaches this leader's reconcilers within a round trip of its commit, not up to a
  // poll later: a node long-polling any replica sees its bundle soon after the write (issue 23, item 4). While the
  // feed cannot be read, the poll's backoff holds.
  const offOtherCommits = o.store.onOtherCommits(() => {
    if (polling) hinted = true;
    else if (pollFailures === 0) schedulePoll(0);
  });

  for (const w of workers) await resync(w);
  schedulePoll(pollMs);

  return {
    nudge: (kind: ChangeKind, key: string) => {
      const id = changeId(kind, key);
      if (!takeOne(olderIds, id) && !takeOne(announcedIds, id)) route(kind, key, true);
    },
    pending: () => workers.reduce((n, w) => n + w.queue.waiting(), 0),
    idle: async () => {
      for (;;) {
        await Promise.all(inflight);
        await Promise.all([...queues().map((q) => q.onIdle()), ...workers.map((w) => w.r.background?.onIdle())]);
        if (inflight.size === 0 && queues().every((q) => !q.busy()) && workers.every((w) => !w.r.background?.busy())) return;
      }
    },
    stop: async () => {
      abort.abort();
      unsubscribe();
      offOtherCommits();
      timers.clear();
      for (const q of queues()) q.clear();
      await Promise.all(inflight);
      await Promise.all([...queues().map((q) => q.onIdle()), ...workers.map((w) => w.r.background?.stop())]);
    },
  };
}
