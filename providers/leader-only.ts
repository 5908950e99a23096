/**
 * Provider calls of the leader (CONTRACT.md "Several machines": the leader alone runs every call to a provider).
 * The store refuses a deposed leader's writes (store/leader.ts fence), but a registrar, payment provider or edge
 * cannot be asked to check a term: a leader frozen past its lease that thaws in the middle of a reconcile pass
 * would otherwise make the pass's next call before any write of it is refused. So a call made for a term (inside
 * withTerm) goes out only while this process still holds that term by its own monotonic clock, which stops
 * before the lease can pass to another; it is refused with FencedError otherwise, and the runner stops the pass.
 * Calls outside a pass (an API request's, answered at once as the spec says) are made as they come: they are
 * keyed by their object and its generation (sagas/domains.ts), so another process sending them again acts once.
 */
import { currentTerm, FencedError } from '../store/leader';

/** `provider` (a port: every method answers a promise) with each call refused for a term this process no longer
 * holds (`holds`). */
export function leaderOnly<T extends object>(provider: T, holds: (term: number) => boolean): T {
  return new Proxy(provider, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const term = currentTerm();
        if (term !== undefined && !holds(term)) throw new FencedError(term);
        return value.apply(target, args);
      };
    },
  });
}
