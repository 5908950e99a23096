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
 */
export function keyedQueue(concurrency: number, run: (key: string) => Promise<void>) {
  const q = new PQueue({ concurrency });
  const pending = new Set<string>();
  const running = new Set<string>();
  const dirty = new Set<string>();
  const later = deadlines();
  const add = (key: string): void => {
    if (running.has(key)) {
      dirty.add(key);
      return;
    }
    if (pending.has(key)) return;
    pending.add(key);
    void q.add(async () => {
      pending.delete(key);
      running.add(key);
      try {
        await run(key);
      } finally {
        running.delete(key);
        if (dirty.delete(key)) add(key);
      }
    });
  };
  return {
    add,
    /** Like add, except that a key already running is left to finish without running again: for a signal that
     * only repeats a change something else reports as well. */
    wake: (key: string): void => {
      if (!running.has(key)) add(key);
    },
    addAfter: (key: string, ms: number): void => later.at(key, ms, () => add(key)),
    /** Keys waiting for their deadline. */
    waiting: (): number => later.size(),
    /** True while a key is queued or running. */
    busy: (): boolean => q.size > 0 || q.pending > 0,
    onIdle: () => q.onIdle(),
    /** Drops queued keys and deadlines; a running key finishes, without running again. */
    clear: (): void => {
      q.clear();
      pending.clear();
      dirty.clear();
      later.clear();
    },
  };
}
