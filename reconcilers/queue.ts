import PQueue from 'p-queue';

/**
 * A work queue with what controller-runtime's workqueue promises and p-queue alone does not: a key queued
 * twice runs once (dedup), a key never runs twice at once, and a key changed while it runs runs again
 * right after. Adding is also how changes arriving together get batched: they collapse into one run.
 */
export function keyedQueue(concurrency: number, run: (key: string) => Promise<void>) {
  const q = new PQueue({ concurrency });
  const pending = new Set<string>();
  const running = new Set<string>();
  const dirty = new Set<string>();
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
  return { add, onIdle: () => q.onIdle(), clear: () => q.clear() };
}
