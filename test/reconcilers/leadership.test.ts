/** Which process leads (issue 23 item 1): one leader at a time, a clean stop hands over at once, a leader that cannot
 * renew stops what it runs before its lease can pass, and a refused write of its term makes it step down. Short
 * leases stand for the 15 s one. */
import { Writable } from 'node:stream';
import client from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { startHeartbeat, startLeadership, type Leadership } from '../../reconcilers/leadership';
import { startRunner } from '../../reconcilers/runner';
import { identityWatch, type Reconciler } from '../../reconcilers/types';
import type { Store } from '../../store/db';
import { recordChange } from '../../store/feed';
import { bid, fencedStore, leadershipStatus, readLease, resign } from '../../store/leader';
import { orgs } from '../../store/schema';
import { until } from '../helpers/proc';
import { openTestStore } from '../helpers/store';

const log = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const LEASE = { leaseMs: 1500, renewMs: 300, deadlineMs: 1000 };

const stores: Store[] = [];
const running: Leadership[] = [];
afterEach(async () => {
  for (const l of running.splice(0)) await l.stop();
  for (const s of stores.splice(0)) s.close();
});

/** A candidate whose `lead` records each term it started and stopped. */
async function candidate(s: Store, name: string, opts: Partial<typeof LEASE> = {}) {
  const terms: { term: number; stoppedAt?: number; lost: () => void }[] = [];
  const l = await startLeadership({
    store: s, candidate: { holder: `host:${name}`, url: `http://${name}` }, log, ...LEASE, ...opts,
    lead: async (term, lost) => {
      const t: (typeof terms)[number] = { term, lost };
      terms.push(t);
      return async () => {
        t.stoppedAt = Date.now();
      };
    },
  });
  running.push(l);
  return { l, terms };
}

describe('leadership', () => {
  it('lets one candidate lead; its clean stop resigns and another leads at once with the next term', async () => {
    const s = await openTestStore();
    stores.push(s);
    const a = await candidate(s, 'a');
    const b = await candidate(s, 'b');
    expect(a.l.term()).toBe(1);
    expect(b.l.term()).toBeNull();
    expect(a.terms.map((t) => t.term)).toEqual([1]);
    const stoppedAt = Date.now();
    await a.l.stop();
    expect(a.terms[0]!.stoppedAt).toBeDefined();
    // Well before the lease would have passed: the resignation, not the lease, ended it.
    await until('b to lead', () => b.l.term() === 2, 1000, 10);
    expect(Date.now() - stoppedAt).toBeLessThan(LEASE.leaseMs);
    expect(b.terms.map((t) => t.term)).toEqual([2]);
  });

  it('stops what it runs once renewals fail for the deadline, while its lease is still live, and no one else leads before it passes', async () => {
    const s = await openTestStore();
    stores.push(s);
    let cut = false;
    const hanging = { ...s, write: ((fn, o) => (cut ? new Promise(() => undefined) : s.write(fn, o))) as Store['write'] };
    const a = await candidate(hanging, 'a');
    expect(a.l.term()).toBe(1);
    cut = true;
    const cutAt = Date.now();
    await until('a to step down', () => a.l.term() === null, 5000, 10);
    expect(a.terms[0]!.stoppedAt).toBeDefined();
    expect(a.terms[0]!.stoppedAt! - cutAt).toBeLessThanOrEqual(LEASE.deadlineMs + 100);
    const lease = await readLease(s);
    expect(lease!.expiresMs).toBeGreaterThan(lease!.nowMs);
    expect(await bid(s, { holder: 'host:b', url: 'http://b' }, LEASE.leaseMs)).toMatchObject({ won: false });
  });

  it('no longer holds its term once the deadline passed on its clock, though a frozen loop has not run the deadline\'s timer', async () => {
    const s = await openTestStore();
    stores.push(s);
    const a = await candidate(s, 'a');
    expect(a.l.holds(1)).toBe(true);
    expect(a.l.holds(2)).toBe(false);
    // The event loop blocked past the deadline stands for a process stopped (SIGSTOP) and continued.
    const end = performance.now() + LEASE.deadlineMs + 50;
    while (performance.now() < end);
    expect(a.l.term()).toBe(1);
    expect(a.l.holds(1)).toBe(false);
  });

  it('steps down when a write of its term was refused, and bids again for a new term', async () => {
    const s = await openTestStore();
    stores.push(s);
    const a = await candidate(s, 'a');
    a.terms[0]!.lost();
    expect(a.l.term()).toBeNull();
    await until('what it ran to stop', () => a.terms[0]!.stoppedAt !== undefined);
    // The same holder takes its lease back with a new term, so writes of the old one stay refused.
    await until('a to lead again', () => a.l.term() === 2, 5000, 10);
  });

  it('starts a new term only once what the last one ran has stopped (two terms never restart the nameserver at once)', async () => {
    const s = await openTestStore();
    stores.push(s);
    const events: string[] = [];
    let release!: () => void;
    const slowStop = new Promise<void>((res) => { release = res; });
    const lost: (() => void)[] = [];
    const l = await startLeadership({
      store: s, candidate: { holder: 'host:slow', url: 'http://slow' }, log, ...LEASE,
      lead: async (term, onLost) => {
        events.push(`start ${term}`);
        lost.push(onLost);
        return async () => {
          events.push(`stopping ${term}`);
          if (term === 1) await slowStop;
          events.push(`stopped ${term}`);
        };
      },
    });
    running.push(l);
    lost[0]!();
    try {
      // The same holder wins its lease back at once, while term 1 is still stopping.
      await until('term 2 won', () => l.term() === 2, 5000, 10);
      expect(events).toEqual(['start 1', 'stopping 1']);
    } finally {
      release();
    }
    await until('term 2 started', () => events.includes('start 2'), 5000, 10);
    expect(events).toEqual(['start 1', 'stopping 1', 'stopped 1', 'start 2']);
  });

  it('a follower bids once the lease it saw passes', async () => {
    const s = await openTestStore();
    stores.push(s);
    await bid(s, { holder: 'host:gone', url: 'http://gone' }, LEASE.leaseMs);
    const b = await candidate(s, 'b', { renewMs: 60_000 });
    expect(b.l.term()).toBeNull();
    await until('b to lead after the lease passed', () => b.l.term() === 2, LEASE.leaseMs + 1000, 10);
  });
});

describe('a runner of a term', () => {
  it('stops its passes and says so when a write of its term is refused', async () => {
    const s = fencedStore(await openTestStore());
    stores.push(s);
    await bid(s, { holder: 'host:a', url: 'http://a' }, 60_000);
    const passes: string[] = [];
    const r: Reconciler = {
      kind: 'fake', watches: [identityWatch('zone')], keys: async () => [],
      reconcile: async (key) => {
        passes.push(key);
        await s.write(async (tx) => {
          await tx.insert(orgs).values({ slug: key, plan: 'free', createdAt: '2026-11-29T00:00:00Z' });
        });
        return {};
      },
    };
    let fenced = 0;
    const runner = await startRunner({ store: s, reconcilers: [r], log, pollMs: 3_600_000, term: 1, onFenced: () => fenced++ });
    const change = (key: string) => s.write(async (tx) => { await recordChange(s, tx, 'zone', key, new Date()); });
    await change('first');
    await until('the first pass', () => passes.length === 1);
    await runner.idle();
    await resign(s, 1);
    await change('second');
    await until('the runner to be told', () => fenced === 1);
    await change('third');
    await runner.idle();
    expect(passes).toEqual(['first', 'second']);
    expect((await s.db.select({ slug: orgs.slug }).from(orgs)).map((o) => o.slug)).toEqual(['first']);
    await runner.stop();
  });
});

describe('a process that leads again', () => {
  it('starts a runner on the registry of the last one, whose metrics it replaces', async () => {
    const s = await openTestStore();
    stores.push(s);
    const registry = new client.Registry();
    const r: Reconciler = { kind: 'fake', watches: [identityWatch('zone')], keys: async () => ['k'], reconcile: async () => ({}) };
    const first = await startRunner({ store: s, reconcilers: [r], log, registry, pollMs: 3_600_000, term: 1 });
    await first.idle();
    await first.stop();
    const second = await startRunner({ store: s, reconcilers: [r], log, registry, pollMs: 3_600_000, term: 2 });
    await second.idle();
    expect(await registry.getSingleMetricAsString('hostplane_reconcile_duration_seconds')).toContain('hostplane_reconcile_duration_seconds_count{kind="fake",outcome="ok"} 1');
    await second.stop();
  });
});

describe('a process that does not bid (api)', () => {
  it('writes its heartbeat every interval and never leads', async () => {
    const s = await openTestStore();
    stores.push(s);
    const stop = startHeartbeat(s, { holder: 'host:api:http://api', url: 'http://api' }, log, 100);
    try {
      const first = await until('its first heartbeat', async () => (await leadershipStatus(s)).processes[0]);
      expect(first).toMatchObject({ url: 'http://api', pid: process.pid, leader: false });
      await until('a later heartbeat', async () => Date.parse((await leadershipStatus(s)).processes[0]!.heartbeatAt) > Date.parse(first.heartbeatAt));
      expect((await leadershipStatus(s)).leader).toBeNull();
    } finally {
      stop();
    }
  });
});
