/**
 * The Core port of one process among several on one store (CONTRACT.md "Several machines": the leader alone makes
 * every call to a provider; docs/deployment.md "What followers forward"). The methods whose work calls a provider
 * (the domain operations: registrar and payment provider; verifyHostname: the resolver, and the judgement it
 * records) run in the leader's process only:
 * - on the leader, in-process, as work of its term (withTerm): its writes are fenced by the store and its provider
 *   calls refused (providers/leader-only.ts) once the term no longer holds, so a leader deposed during the call
 *   makes no provider call after that;
 * - on a follower, at the leader named by the store's lease, over the Core wire (core/routes.ts) with the
 *   installation's replica token (core/sealing.ts replicaToken);
 * - while none leads, the leader does not answer or it stopped leading: 503 `core_unavailable` with Retry-After,
 *   and no provider call from here.
 * The other methods (sealing, DNS settings, nudges, a node's bundle) need no provider and answer where they are asked.
 */
import { AppError } from '../lib/errors';
import { FencedError, withTerm } from '../store/leader';
import { coreUnavailable } from './client';
import type { Core } from './port';

export interface Leading {
  /** This process's name in the lease (store/leader.ts holderOf). */
  self: string;
  /** The term this process leads and still holds by its own clock (Leadership.holds), or null. */
  held(): number | null;
  /** Who leads by the store's lease, null while none does (an election under way, or a lease that passed). */
  leader(): Promise<{ holder: string; url: string } | null>;
}

/** Whether `e` says the leader could not be reached or stopped leading: a moment's state, answered as one. */
const leaderAway = (e: unknown): boolean =>
  e instanceof AppError && e.status === 503 && (e.code === 'core_unavailable' || e.code === 'not_leader');

/**
 * `local` with its provider-calling methods run on the leader. `forward` makes a Core of the leader at its URL; without
 * it (the Core this process serves to its replicas) a process that does not lead refuses rather than forwards, so a
 * call forwarded to a process that has just lost the lease does not travel on to a third.
 */
export function leaderCore(local: Core, leading: Leading, forward?: (url: string) => Core): Core {
  const onLeader = async <T>(call: (core: Core) => Promise<T>): Promise<T> => {
    const term = leading.held();
    if (term !== null) {
      try {
        return await withTerm(term, () => call(local));
      } catch (e) {
        if (e instanceof FencedError) throw coreUnavailable('this process stopped leading during the call; retry');
        throw e;
      }
    }
    if (!forward) throw coreUnavailable('this process does not lead; retry');
    const lease = await leading.leader();
    if (!lease || lease.holder === leading.self) throw coreUnavailable('no process leads at the moment (an election is under way); retry');
    try {
      return await call(forward(lease.url));
    } catch (e) {
      if (leaderAway(e)) throw coreUnavailable('the leader does not answer or stopped leading; retry');
      throw e;
    }
  };
  return {
    ...local,
    verifyHostname: (name) => onLeader((core) => core.verifyHostname(name)),
    domain: (op, input) => onLeader((core) => core.domain(op, input)),
  };
}
