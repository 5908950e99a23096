/** Retry delays of the node agent: exponential with jitter, so that a fleet of nodes that lost the control plane
 * together does not come back in lockstep. */

export interface BackoffOptions {
  /** The first delay (before jitter). */
  baseMs: number;
  /** No delay exceeds it. */
  maxMs: number;
  /** [0, 1): Math.random by default; tests fix it. */
  random?: () => number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/** The delay before retry number `attempt` (1 for the first): base·2^(attempt−1), capped at max, of which a
 * random half is kept ("equal jitter": never less than half the step, so retries do spread out). */
export function backoffDelay(attempt: number, opts: BackoffOptions = DEFAULT_BACKOFF): number {
  const step = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, Math.min(30, attempt - 1)));
  return Math.round(step / 2 + (opts.random ?? Math.random)() * (step / 2));
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
