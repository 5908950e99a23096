/**
 * The zone's lookups beside its passes (reconcilers/zones/looks.ts): a parent that never answers, for the delegation
 * or for its DS while DNSSEC turns off, holds no pass, so another organization's change is served while the looks
 * wait; at most one look of each kind is under way per zone; its end records what it found, under the term of the
 * pass that started it. On both stores.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../lib/log';
import { ResolverError, type AddressLookup, type ParentDs, type Resolver } from '../../../providers/resolver';
import { startRunner } from '../../../reconcilers/runner';
import { zoneReconciler } from '../../../reconcilers/zones';
import { createOrg } from '../../../store/accounts';
import { zoneAliasesOf } from '../../../store/aliases';
import type { Store } from '../../../store/db';
import { bid, fencedStore, resign, withTerm } from '../../../store/leader';
import { statusOf } from '../../../store/status';
import { createZone, putRRset, setZoneDnssec, type ZoneFacts } from '../../../store/zones';
import { checkCnameConflict, validateRRset } from '../../../zonefiles';
import { FakeNameserver } from '../../helpers/fake-nameserver';
import { openTestStore } from '../../helpers/store';

const ZONE = 'example.com';
const NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const QUOTA = { plan: 'free', rrsets: 5000, bytes: 5 << 20 };
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });
/** One tenant's zones, as many as the zone queue runs passes at once, whose parent stops answering. */
const SLOW = ['s0', 's1', 's2', 's3'].map((n) => `${n}.slow.test`);

describe('zone reconciler: looks at the parent', () => {
  let store: Store;
  let ns: FakeNameserver;
  let orgId: number;
  let hostile: number;
  /** The lookups a silent parent holds, each answered by its function. */
  let hung: { zone: string; answer: (ds: ParentDs | null) => void; fail: () => void }[];
  let parentSilent: boolean;
  /** A lookup of a slow zone that is held while the parent is silent. */
  const held = <T>(zone: string, answered: T, asDs: (ds: ParentDs | null) => T): Promise<T> => {
    if (!parentSilent || !SLOW.includes(zone)) return Promise.resolve(answered);
    return new Promise<T>((resolve, reject) => {
      hung.push({ zone, answer: (ds) => resolve(asDs(ds)), fail: () => reject(new ResolverError(`resolver 192.0.2.53 did not answer in 2 s for ${zone}`, 'the resolver did not answer in 2 s')) });
    });
  };
  const resolver: Resolver = {
    ns: (zone) => held(zone, [], () => NS),
    ds: (zone) => held<ParentDs | null>(zone, { count: 1, ttl: 60 }, (ds) => ds),
  };
  const status = async (zone: string) => (await statusOf<ZoneFacts>(store, 'zone', zone))!;
  const served = () => ns.served.get(ZONE)?.text ?? '';

  beforeEach(async () => {
    store = await openTestStore(':memory:', { clock: () => new Date('2026-11-29T12:00:00Z') });
    ns = new FakeNameserver();
    ns.signerBump = 1;
    hung = [];
    parentSilent = false;
    orgId = (await createOrg(store, 'acme', 'free')).id;
    hostile = (await createOrg(store, 'hostile', 'free')).id;
    await createZone(store, { orgId, name: ZONE, nameservers: NS, actor: 'test', quota: null });
  });
  afterEach(() => store.close());

  /** The runner over the zones, as serve runs it; `during` runs while the slow parent's lookups are held, which it
   * releases at the end in any case. */
  const withRunner = async (during: (idle: () => Promise<void>) => Promise<void>): Promise<void> => {
    const r = zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, secondaryCheckMs: 0 });
    const runner = await startRunner({ store, log: silent, reconcilers: [r], concurrency: 4 });
    try {
      await runner.idle();
      await during(async () => {
        expect(r.background!.busy()).toBe(true);
        await runner.idle();
      });
    } finally {
      for (const h of hung) h.fail();
      await runner.stop();
    }
  };

  /** Another organization's change, served while every slow parent's lookup is held, each asked once. */
  const servedBeside = async (): Promise<void> => {
    await vi.waitFor(() => expect(hung).toHaveLength(SLOW.length), { timeout: 10_000, interval: 10 });
    await putRRset(store, { orgId, zone: ZONE, actor: 't', cnameConflict: checkCnameConflict, quota: QUOTA, rrset: validateRRset(ZONE, { name: `www.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.80' }] }) });
    await vi.waitFor(() => expect(served()).toContain('www 300 IN A 192.0.2.80\n'), { timeout: 10_000, interval: 10 });
    expect(hung.map((h) => h.zone).sort()).toEqual(SLOW);
  };

  it('a parent that never answers the delegation lookup holds no pass; the look\'s end records the delegation', async () => {
    parentSilent = true;
    await withRunner(async (idle) => {
      for (const zone of SLOW) await createZone(store, { orgId: hostile, name: zone, nameservers: NS, actor: 'test', quota: null });
      await servedBeside();
      for (const zone of SLOW) expect((await status(zone)).facts.delegated).toBeNull();
      for (const h of hung.splice(0)) h.answer(null);
      await idle();
      for (const zone of SLOW) expect((await status(zone)).facts.delegated).toBe(true);
    });
  });

  it('a parent that never answers for its DS while DNSSEC turns off holds no pass; the zone stays signed until the look ends', async () => {
    for (const zone of SLOW) {
      await createZone(store, { orgId: hostile, name: zone, nameservers: NS, actor: 'test', quota: null });
      await setZoneDnssec(store, { orgId: hostile, zone, enabled: true, actor: 't' });
    }
    await withRunner(async (idle) => {
      for (const zone of SLOW) expect((await status(zone)).facts.parentDs).toEqual({ ttl: 60, seenAt: '2026-11-29T12:00:00Z' });
      parentSilent = true;
      for (const zone of SLOW) await setZoneDnssec(store, { orgId: hostile, zone, enabled: false, actor: 't' });
      await servedBeside();
      for (const zone of SLOW) {
        expect(ns.served.get(zone)).toMatchObject({ dnssec: true, deleteDs: true });
        expect((await status(zone)).conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'ParentDsUnknown' });
      }
      // Gone at the parent, but seen under its TTL ago: caches may still hold it.
      for (const h of hung.splice(0)) h.answer(null);
      await idle();
      for (const zone of SLOW) {
        expect(ns.served.get(zone)).toMatchObject({ dnssec: true, deleteDs: true });
        expect((await status(zone)).conditions.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'WaitingForCaches' });
      }
    });
  });

  it('a look writes under the term of the pass that started it: a deposed leader\'s look records nothing', async () => {
    let answer!: (found: AddressLookup) => void;
    const targets: Resolver = { ns: async () => [], addressRecords: () => new Promise((resolve) => { answer = resolve; }) };
    const fenced = fencedStore(store);
    await bid(fenced, { holder: 'host:a', url: 'http://a' }, 60_000);
    await putRRset(store, { orgId, zone: ZONE, actor: 't', cnameConflict: checkCnameConflict, quota: QUOTA, rrset: validateRRset(ZONE, { name: ZONE, type: 'ALIAS', ttl: 300, records: [{ content: 'cdn.example.net' }] }) });
    const r = zoneReconciler({ store: fenced, nameserver: ns, resolver: targets, nameservers: NS, log: silent, secondaryCheckMs: 0 });
    await withTerm(1, () => r.reconcile(ZONE, new AbortController().signal));
    await withTerm(1, () => r.reconcile(ZONE, new AbortController().signal));
    expect(r.background!.busy()).toBe(true);
    await resign(fenced, 1);
    answer({ kind: 'records', a: ['192.0.2.10'], aaaa: [], ttl: 300 });
    await r.background!.onIdle();
    expect((await zoneAliasesOf(store, ZONE)).aliases[0]).toMatchObject({ checkedAt: null });
  });
});
