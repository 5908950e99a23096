import PQueue from 'p-queue';

/**
 * Timers by id, at most one per id: asking for an id that already waits keeps the earlier of the two
 * deadlines. Without it every pass of a key that asks to be checked again later leaves a timer of its own,
 * and a burst of passes replays itself as a burst when they all fire.
 */
export function deadlines() {
  const waiting = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  return {
    at(id: string, ms: number, fn: () => void): void {
      const at = Date.now() + ms;
      const current = waiting.get(id);
      if (current) {
        if (current.at <= at) return;
        clearTimeout(current.timer);
      }
      const timer = setTimeout(() => {
        waiting.delete(id);
        fn();
      }, ms);
      timer.unref();
      waiting.set(id, { at, timer });
    },
    size: (): number => waiting.size,
    clear(): void {
      for (const w of waiting.values()) clearTimeout(w.timer);
      waiting.clear();
    },
  };
}

/**
 * A work queue with what controller-runtime's workqueue promises and p-queue alone does not: a key queued
 * twice runs once (dedup), a key never runs twice at once, a key changed while it runs runs again right
 * after, and a key asked for later waits on one deadline, the earliest asked. Adding is also how changes
 * arriving together get batched: they collapse into one run.
 *
 * With `spacingMs`, a key starts at most once per that time: added sooner, it waits for the end of the
 * spacing and runs once then for everything added meanwhile. A key idle for longer runs at once, so a lone
 * change waits for nothing; under a stream of changes to one key (a client rewriting a zone's records in a
 * loop) each run takes many changes instead of one or two. With `burst`, a key quiet for that many spacings may
 * start that many times at once before the spacing holds it (a bucket of `burst` starts, refilled one a spacing):
 * over a stream the rate stays one run a spacing, but two changes of a steady trickle that come closer than the
 * spacing by chance (a slow write, then a quick one) are not held apart. The wait counts as queued: `busy` and
 * `onIdle` see it. A run its deadline woke (`addAfter`: a look, a file due, a retry) is not spaced and spaces nothing:
 * otherwise each one held the change that came next for up to the spacing, a few changes in a hundred under
 * a steady stream (the change latency's p99).
 */
export function keyedQueue(concurrency: number, run: (key: string) => Promise<void>, opts: { spacingMs?: number; burst?: number } = {}) {
  const q = new PQueue({ concurrency });
  const pending = new Set<string>();
  const running = new Set<string>();
  const dirty = new Set<string>();
  const later = deadlines();
  const spacingMs = opts.spacingMs ?? 0;
  /** How far ahead of now a key's bucket may be full again and the key still start. */
  const burst = opts.burst ?? 1;
  if (!Number.isInteger(burst) || burst < 1) throw new RangeError(`keyedQueue: burst must be a whole number of starts, at least 1 (got ${burst})`);
  const slackMs = (burst - 1) * spacingMs;
  /** When each key's bucket is full again (performance.now(): a clock set back must not hold keys): each start moves
   * it a spacing on from itself or from now, whichever is later. A time past is as good as none; such entries are
   * swept whenever the map has doubled since the last sweep. */
  const started = new Map<string, number>();
  let sweepAt = 1024;
  const spaced = deadlines();
  /** Queued keys whose run only a deadline asked for. */
  const unspaced = new Set<string>();
  let spacedDone: { promise: Promise<void>; resolve: () => void } | null = null;
  const settleSpaced = (): void => {
    if (spaced.size() > 0 || !spacedDone) return;
    spacedDone.resolve();
    spacedDone = null;
  };
  const sweep = (now: number): void => {
    for (const [k, full] of started) if (full <= now) started.delete(k);
    sweepAt = Math.max(1024, 2 * started.size);
  };
  const add = (key: string, byDeadline = false): void => {
    if (running.has(key)) {
      dirty.add(key);
      return;
    }
    if (pending.has(key)) {
      if (!byDeadline) unspaced.delete(key);
      return;
    }
    if (spacingMs > 0 && !byDeadline) {
      const now = performance.now();
      const wait = (started.get(key) ?? -Infinity) - slackMs - now;
      if (wait > 0) {
        if (!spacedDone) {
          let resolve!: () => void;
          spacedDone = { promise: new Promise<void>((r) => { resolve = r; }), resolve };
        }
        spaced.at(key, wait, () => {
          add(key);
          settleSpaced();
        });
        return;
      }
      if (started.size >= sweepAt) sweep(now);
    }
    pending.add(key);
    if (byDeadline) unspaced.add(key);
    void q.add(async () => {
      pending.delete(key);
      running.add(key);
      // From the start, not the queueing: a key that waited behind others is not held again for that wait.
      if (spacingMs > 0 && !unspaced.delete(key)) {
        const now = performance.now();
        started.set(key, Math.max(started.get(key) ?? now, now) + spacingMs);
      }
      try {
        await run(key);
      } finally {
        running.delete(key);
        if (dirty.delete(key)) add(key);
      }
    });
  };
  return {
    add: (key: string): void => add(key),
    /** Like add, except that a key already running is left to finish without running again: for a signal that
     * only repeats a change something else reports as well. */
    wake: (key: string): void => {
      if (!running.has(key)) add(key);
    },
    addAfter: (key: string, ms: number): void => later.at(key, ms, () => add(key, true)),
    /** Keys waiting for their deadline. */
    waiting: (): number => later.size(),
    /** True while a key is queued (a spacing wait included) or running. */
    busy: (): boolean => q.size > 0 || q.pending > 0 || spaced.size() > 0,
    /** Resolves when nothing is queued, waiting out its spacing or running. */
    onIdle: async (): Promise<void> => {
      for (;;) {
        await q.onIdle();
        if (!spacedDone) return;
        await spacedDone.promise;
      }
    },
    /** Drops queued keys and deadlines; a running key finishes, without running again. */
    clear: (): void => {
      q.clear();
      pending.clear();
      unspaced.clear();
      dirty.clear();
      later.clear();
      spaced.clear();
      started.clear();
      settleSpaced();
    },
  };
}

export type KeyedQueue = ReturnType<typeof keyedQueue>;
