/**
 * Which process leads (docs/deployment.md "Leader election and fencing"): every serve or core process bids for
 * the lease (store/leader.ts); the winner runs what only one may run (`lead`: the reconcilers), renews every
 * `renewMs`, and stops it at once when `deadlineMs` pass on its own monotonic clock without a renewal, which is
 * before the lease can pass to another (the deadline counts from before the renewal was sent, the lease from when
 * the database ran it). Followers bid again when the lease they saw ends, on a timer, and at once when another
 * process's commit may have been a resignation.
 */
import { performance } from 'node:perf_hooks';
import client from 'prom-client';
import { reasonOf } from '../lib/errors';
import type { Logger } from '../lib/log';
import type { Store } from '../store/db';
import { beat, bid, LEASE_MS, readLease, renew, resign, type Candidate } from '../store/leader';

export interface LeadershipOptions {
  store: Store;
  candidate: Candidate;
  log: Logger;
  registry?: client.Registry;
  leaseMs?: number;
  renewMs?: number;
  deadlineMs?: number;
  /** Starts what only the leader runs, for `term`; answers how to stop it. `lost` steps down early (a write of the
   * term was refused: another leads). */
  lead(term: number, lost: () => void): Promise<() => Promise<void>>;
}

export interface Leadership {
  /** The term this process leads, or null. */
  term(): number | null;
  /** Whether this process still holds `term` by its own monotonic clock: false from the moment its deadline passed,
   * before the deadline's timer has run (a process frozen past it runs its callbacks in any order when it thaws). */
  holds(term: number): boolean;
  /** Stops bidding; a leader stops what it runs and resigns, so that another leads at once. */
  stop(): Promise<void>;
}

/** How soon after another process's commit a follower reads the lease again at most: resignations are rare and
 * commits are not. */
const RECHECK_MS = 50;
/** After the lease it saw ends, a follower bids this much later: the database's clock decides, not ours. */
const BID_SLACK_MS = 20;

export async function startLeadership(o: LeadershipOptions): Promise<Leadership> {
  const leaseMs = o.leaseMs ?? LEASE_MS;
  const renewMs = o.renewMs ?? leaseMs / 3;
  const deadlineMs = o.deadlineMs ?? (leaseMs * 2) / 3;
  const registers = o.registry ? [o.registry] : [];
  const leaderGauge = new client.Gauge({ name: 'hostplane_leader', help: '1 while this process leads (runs the reconcilers and provider calls), else 0', registers });
  const termGauge = new client.Gauge({ name: 'hostplane_leader_term', help: 'The leadership term this process leads, or the last one it saw lead', registers });
  leaderGauge.set(0);

  let stopped = false;
  let term: number | null = null;
  /** Stops what leading started; set while leading. */
  let stopLeading: (() => Promise<void>) | null = null;
  let deadline: NodeJS.Timeout | undefined;
  /** When the lease stops being ours on the monotonic clock, unless renewed. */
  let heldUntil = 0;
  let next: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | null = null;
  /** What leading started, being stopped. */
  const stoppingRuns = new Set<Promise<void>>();

  const stepDown = (why: string): void => {
    if (term === null) return;
    o.log.warn({ term, why }, 'no longer the leader: stopping the reconcilers');
    term = null;
    leaderGauge.set(0);
    clearTimeout(deadline);
    const stop = stopLeading;
    stopLeading = null;
    if (stop) {
      const p = stop().catch((e: unknown) => o.log.error({ err: reasonOf(e) }, 'stopping the reconcilers failed'));
      stoppingRuns.add(p);
      void p.finally(() => stoppingRuns.delete(p));
    }
  };
  /** The lease is ours until `deadlineMs` after `sentAt` (monotonic), unless renewed. */
  const holdUntil = (sentAt: number): void => {
    clearTimeout(deadline);
    heldUntil = sentAt + deadlineMs;
    deadline = setTimeout(() => stepDown(`no renewal for ${deadlineMs} ms`), sentAt + deadlineMs - performance.now());
    deadline.unref();
  };
  const schedule = (ms: number): void => {
    clearTimeout(next);
    if (stopped) return;
    next = setTimeout(() => void tick(), Math.max(0, ms));
    next.unref();
  };

  /** Counts attempts: one that answers after the next has begun (it hung past the deadline) changes nothing. */
  let attempts = 0;
  const attempt = async (): Promise<void> => {
    const mine = ++attempts;
    const sentAt = performance.now();
    if (term !== null) {
      const held = term;
      const renewed = await renew(o.store, o.candidate, held, leaseMs);
      if (mine !== attempts) return;
      if (!renewed) stepDown('the lease was lost');
      else if (term === held) holdUntil(sentAt);
      schedule(term === null ? 0 : renewMs);
      return;
    }
    const r = await bid(o.store, o.candidate, leaseMs);
    if (stopped || mine !== attempts) {
      if (r.won) await resign(o.store, r.lease!.term);
      return;
    }
    if (r.lease) termGauge.set(r.lease.term);
    if (r.won) {
      const won = r.lease!.term;
      term = won;
      leaderGauge.set(1);
      holdUntil(sentAt);
      o.log.info({ term: won }, 'leading: starting the reconcilers');
      // What the last term ran may still be stopping (its nameserver standing by): this term starts after it, or
      // both would restart knotd at once, and the standby could land last and leave every zone unserved.
      const started = Promise.all(stoppingRuns).then(() => o.lead(won, () => {
        if (term === won) stepDown('a write of this term was refused: another process leads');
      }));
      stopLeading = async () => (await started)();
      started.catch((e: unknown) => {
        o.log.error({ err: reasonOf(e) }, 'starting the reconcilers failed');
        if (term === won) stepDown('the reconcilers did not start');
      });
      schedule(renewMs);
      return;
    }
    const endsIn = r.lease ? r.lease.expiresMs - r.lease.nowMs + BID_SLACK_MS : 0;
    schedule(Math.min(renewMs, endsIn));
  };
  const tick = (): Promise<void> => {
    if (stopped || ticking) return ticking ?? Promise.resolve();
    // A round trip that never answers (a connection cut without a reset) must not stop the next attempts.
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        attempts++;
        reject(new Error(`no answer from the store in ${deadlineMs} ms`));
      }, deadlineMs);
      timer.unref();
    });
    ticking = Promise.race([attempt(), hung]).catch((e: unknown) => {
      // The deadline, not this failure, decides when a leader stops: one lost round trip is not a lost lease.
      o.log.warn({ err: reasonOf(e), leading: term !== null }, 'the leader lease could not be bid for or renewed; retrying');
      schedule(Math.min(1000, renewMs));
    }).finally(() => {
      clearTimeout(timer);
      ticking = null;
    });
    return ticking;
  };

  // Another process's commit may be a resignation: read the lease (no write) and bid at once if it ended.
  let recheck: NodeJS.Timeout | undefined;
  const unsubscribe = o.store.onOtherCommits(() => {
    if (term !== null || recheck || stopped) return;
    recheck = setTimeout(() => {
      readLease(o.store).then((l) => {
        recheck = undefined;
        if (term === null && (!l || l.expiresMs <= l.nowMs)) void tick();
      }, () => {
        recheck = undefined;
      });
    }, RECHECK_MS);
    recheck.unref();
  });

  await tick();

  /** The one stop: SIGTERM asks for it at once, and the process's close again before the store closes. */
  let stopping: Promise<void> | undefined;
  return {
    term: () => term,
    holds: (t) => term === t && performance.now() < heldUntil,
    stop: () => (stopping ??= (async () => {
      stopped = true;
      unsubscribe();
      clearTimeout(next);
      clearTimeout(recheck);
      // Not waiting for an attempt under way: the database may be what hangs. A bid it wins now is resigned by it.
      const held = term;
      stepDown('stopping');
      if (held !== null) {
        await resign(o.store, held).catch((e: unknown) => o.log.warn({ err: reasonOf(e) }, 'resigning the lease failed: another process leads once it passes'));
      }
      await Promise.all(stoppingRuns);
    })()),
  };
}

/** A process that does not bid (`api`) still says it is alive, every `everyMs`, for `admin status`. Answers the stop. */
export function startHeartbeat(store: Store, candidate: Candidate, log: Logger, everyMs = LEASE_MS / 3): () => void {
  const once = (): void => {
    beat(store, candidate).catch((e: unknown) => log.warn({ err: reasonOf(e) }, 'the heartbeat could not be written; retrying'));
  };
  once();
  const timer = setInterval(once, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
