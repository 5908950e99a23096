/** Runs the reconcilers: wakes them from the change feed, from nudges and from timers, retries with backoff. */
import client from 'prom-client';
import type { Logger } from '../lib/log';
import type { Store } from '../store/db';
import { changesSince, latestSeq } from '../store/feed';
import { keyedQueue } from './queue';
import { TerminalError, type Kind, type Reconciler } from './types';

export interface RunnerOptions {
  store: Store;
  reconcilers: Reconciler[];
  log: Logger;
  /** How often the change feed is read for changes made by another process (an `api` beside this core). */
  pollMs?: number;
  /** Full resync of every key, the level-triggered safety net. */
  resyncMs?: number;
  concurrency?: number;
  /** Where reconcile metrics go (the process's /metrics on `--metrics-listen`). */
  registry?: client.Registry;
}

export interface Runner {
  /** Unknown kinds are ignored: a nudge is only a hint. */
  nudge(kind: string, key: string): void;
  /** Resolves when no reconcile is queued or running (tests, shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 30_000;
const backoff = (failures: number): number => Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(failures, 8)) * (0.8 + Math.random() * 0.4);

export async function startRunner(o: RunnerOptions): Promise<Runner> {
  const abort = new AbortController();
  const timers = new Set<NodeJS.Timeout>();
  const failures = new Map<string, number>();
  const later = (ms: number, fn: () => void): void => {
    if (abort.signal.aborted) return;
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    t.unref();
    timers.add(t);
  };

  const duration = new client.Histogram({
    name: 'hostplane_reconcile_duration_seconds',
    help: 'Reconcile passes by kind and outcome (ok, retry, terminal)',
    labelNames: ['kind', 'outcome'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: o.registry ? [o.registry] : [],
  });
  const queues = new Map<Kind, ReturnType<typeof keyedQueue>>();
  for (const r of o.reconcilers) {
    const queue = keyedQueue(o.concurrency ?? 4, async (key) => {
      if (abort.signal.aborted) return;
      const id = `${r.kind}/${key}`;
      const done = duration.startTimer({ kind: r.kind });
      try {
        const res = await r.reconcile(key, abort.signal);
        done({ outcome: 'ok' });
        failures.delete(id);
        if (res.requeueAfterMs !== undefined) later(res.requeueAfterMs, () => queue.add(key));
      } catch (e) {
        done({ outcome: e instanceof TerminalError ? 'terminal' : 'retry' });
        if (e instanceof TerminalError) {
          o.log.warn({ kind: r.kind, key, err: e.message }, 'reconcile failed for good; waiting for a new desired state');
          return;
        }
        const n = (failures.get(id) ?? 0) + 1;
        failures.set(id, n);
        const delay = backoff(n);
        o.log.warn({ kind: r.kind, key, attempt: n, retryInMs: Math.round(delay), err: (e as Error).message }, 'reconcile failed; retrying');
        later(delay, () => queue.add(key));
      }
    });
    queues.set(r.kind, queue);
  }

  const resync = async (): Promise<void> => {
    for (const r of o.reconcilers) for (const key of await r.keys()) queues.get(r.kind)!.add(key);
  };
  let seq = await latestSeq(o.store);
  await resync();

  const poll = async (): Promise<void> => {
    try {
      for (const c of await changesSince(o.store, seq)) {
        seq = c.seq;
        queues.get(c.kind as Kind)?.add(c.key);
      }
    } catch (e) {
      o.log.error({ err: (e as Error).message }, 'reading the change feed failed');
    }
    later(o.pollMs ?? 500, () => void poll());
  };
  later(o.pollMs ?? 500, () => void poll());
  const periodic = (): void => later(o.resyncMs ?? 10 * 60_000, () => void resync().finally(periodic));
  periodic();

  return {
    nudge: (kind, key) => queues.get(kind as Kind)?.add(key),
    idle: async () => {
      for (const q of queues.values()) await q.onIdle();
    },
    stop: async () => {
      abort.abort();
      for (const t of timers) clearTimeout(t);
      for (const q of queues.values()) {
        q.clear();
        await q.onIdle();
      }
    },
  };
}
