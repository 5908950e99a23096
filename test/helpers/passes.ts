/** Passes of one reconciler's key as the runner makes them, for tests that drive a reconciler by hand. */
import type { Reconciler } from '../../reconcilers/types';

const noAbort = new AbortController().signal;

/**
 * Passes of `key` until one asks for none sooner than later and no background work it started (a zone's looks through the resolver)
 * asks for one: what the runner does with `requeueAfterMs: 0` and at the end of such work. Answers the last pass's
 * `requeueAfterMs`; throws when six passes do not settle.
 */
export async function settle(r: Reconciler, key: string): Promise<number> {
  let asked = false;
  r.background?.attach(() => { asked = true; });
  for (let i = 0; i < 6; i++) {
    const { requeueAfterMs } = await r.reconcile(key, noAbort);
    await r.background?.onIdle();
    if (requeueAfterMs !== 0 && !asked) return requeueAfterMs!;
    asked = false;
  }
  throw new Error(`${key} did not settle`);
}
