/**
 * The zone reconciler's way to unsigned (CDS/CDNSKEY DELETE while the parent's DS is seen, then its TTL), its
 * DS confirmation to the signer: against a fake nameserver and resolver.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../lib/log';
import { ResolverError, type ParentDs, type Resolver } from '../../../providers/resolver';
import { zoneReconciler } from '../../../reconcilers/zones';
import { createOrg } from '../../../store/accounts';
import { type Store } from '../../../store/db';
import { openTestStore } from '../../helpers/store';
import { statusOf } from '../../../store/status';
import { createZone, setZoneDnssec, setZoneDs, type ZoneFacts } from '../../../store/zones';
import { FakeNameserver } from '../../helpers/fake-nameserver';
import { settle } from '../../helpers/passes';

const NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const noAbort = new AbortController().signal;
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const ZONE = 'example.com';

describe('zone reconciler: signing', () => {
  let store: Store;
  let ns: FakeNameserver;
  let orgId: number;
  let now: number;
  let parentDs: ParentDs | null | Error;
  const resolver: Resolver = {
    ns: async () => [],
    ds: async () => {
      if (parentDs instanceof Error) throw parentDs;
      return parentDs;
    },
  };
  const reconciler = () => zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, dsWatchMs: 1_000, delegationTtlMs: 86_400_000 });
  const status = async () => (await statusOf<ZoneFacts>(store, 'zone', ZONE))!;
  const condition = async (type: string) => (await status()).conditions.find((c) => c.type === type);
  const dnssec = (enabled: boolean) => setZoneDnssec(store, { orgId, zone: ZONE, enabled, actor: 't' });

  beforeEach(async () => {
    now = Date.parse('2026-11-26T12:00:00Z');
    store = await openTestStore(':memory:', { clock: () => new Date(now) });
    ns = new FakeNameserver();
    ns.signerBump = 1;
    orgId = (await createOrg(store, 'acme', 'free')).id;
    parentDs = null;
    await createZone(store, { orgId, name: ZONE, nameservers: NS, actor: 'test', quota: null });
  });
  afterEach(() => store.close());

  /** A signed zone whose parent publishes its DS (TTL 3600 s). */
  const signedAndDelegated = async () => {
    const r = reconciler();
    await dnssec(true);
    parentDs = { count: 1, ttl: 3600 };
    // The pass after the apply looks at the parent: its DS is known before DNSSEC goes off.
    await settle(r, ZONE);
    expect((await status()).facts.parentDs).toEqual({ ttl: 3600, seenAt: '2026-11-26T12:00:00Z' });
    expect(ns.served.get(ZONE)).toMatchObject({ dnssec: true, deleteDs: false });
    ns.actions.length = 0;
    return r;
  };

  it('stays signed and asks for the DS to go while the parent publishes it, then for its TTL, then unsigns', async () => {
    const r = await signedAndDelegated();
    await dnssec(false);
    // The parent still has the DS: signed, CDS/CDNSKEY DELETE published, not Ready, looked at again soon.
    expect(await settle(r, ZONE)).toBe(1_000);
    expect(ns.actions).toEqual([{ op: 'applyZone', zone: ZONE, dnssec: true, deleteDs: true }]);
    expect(await condition('Ready')).toMatchObject({ status: 'False', reason: 'WaitingForParent' });
    expect(await condition('Signed')).toMatchObject({ status: 'True', reason: 'DeletingDs' });
    ns.actions.length = 0;
    now += 10_000;
    // Through a cache the TTL counts down: the largest seen is kept.
    parentDs = { count: 1, ttl: 100 };
    await settle(r, ZONE);
    expect(ns.actions).toEqual([]);
    expect((await status()).facts.parentDs).toMatchObject({ ttl: 3600 });

    // Gone at the parent: signatures stay until the DS's TTL has passed since it was last seen.
    parentDs = null;
    now += 1_000;
    expect(await settle(r, ZONE)).toBe(3_600_000 - 1_000);
    expect(ns.actions).toEqual([]);
    expect(await condition('Ready')).toMatchObject({ status: 'False', reason: 'WaitingForCaches' });
    now += 3_600_000;
    await settle(r, ZONE);
    expect(ns.actions).toEqual([{ op: 'applyZone', zone: ZONE, dnssec: false }]);
    expect(ns.served.get(ZONE)).toMatchObject({ dnssec: false });
    expect(await condition('Ready')).toMatchObject({ status: 'True', reason: 'Served' });
    expect(await condition('Signed')).toBeUndefined();
    expect((await status()).facts).toMatchObject({ signing: 'off', parentDs: null });
  });

  it('unsigns a zone whose parent never had a DS once the look says so, signed until then', async () => {
    const r = reconciler();
    await dnssec(true);
    await r.reconcile(ZONE, noAbort);
    ns.actions.length = 0;
    await dnssec(false);
    await settle(r, ZONE);
    expect(ns.actions).toEqual([
      { op: 'applyZone', zone: ZONE, dnssec: true, deleteDs: true },
      { op: 'applyZone', zone: ZONE, dnssec: false },
    ]);
    expect(await condition('Ready')).toMatchObject({ status: 'True' });
  });

  it('unsigns only on a look that found the DS gone once its TTL had passed: a gone seen earlier is asked again', async () => {
    const r = await signedAndDelegated();
    await dnssec(false);
    parentDs = null;
    await settle(r, ZONE);
    expect(await condition('Ready')).toMatchObject({ status: 'False', reason: 'WaitingForCaches' });
    now += 3_600_000;
    // Published again since: the look from before the TTL passed does not count.
    parentDs = { count: 1, ttl: 3600 };
    await settle(r, ZONE);
    expect(ns.served.get(ZONE)).toMatchObject({ dnssec: true, deleteDs: true });
    expect(await condition('Ready')).toMatchObject({ status: 'False', reason: 'WaitingForParent' });
  });

  it('a DS look from an earlier way to off does not count once the zone was signed again', async () => {
    let holding = false;
    let answer!: (ds: ParentDs | null) => void;
    const held: Resolver = { ns: async () => [], ds: async () => (holding ? new Promise((resolve) => { answer = resolve; }) : null) };
    const r = zoneReconciler({ store, nameserver: ns, resolver: held, nameservers: NS, log: silent, dsWatchMs: 1_000, delegationTtlMs: 86_400_000 });
    await dnssec(true);
    await settle(r, ZONE);
    holding = true;
    await dnssec(false);
    await r.reconcile(ZONE, noAbort);
    await dnssec(true);
    await r.reconcile(ZONE, noAbort);
    // Gone, but asked before the zone was signed again, when a DS may have been published since.
    answer(null);
    await r.background!.onIdle();
    await dnssec(false);
    await r.reconcile(ZONE, noAbort);
    expect(ns.served.get(ZONE)).toMatchObject({ dnssec: true, deleteDs: true });
    expect(await condition('Ready')).toMatchObject({ status: 'False', reason: 'ParentDsUnknown' });
    answer(null);
    await r.background!.onIdle();
  });

  it('keeps the signatures while the parent\'s DS cannot be looked up', async () => {
    const r = await signedAndDelegated();
    await dnssec(false);
    parentDs = new Error('SERVFAIL');
    expect(await settle(r, ZONE)).toBe(1_000);
    expect(ns.served.get(ZONE)).toMatchObject({ dnssec: true, deleteDs: true });
    expect(await status()).toMatchObject({ lastError: expect.stringContaining('SERVFAIL') });
    expect(await condition('Ready')).toMatchObject({ status: 'False', reason: 'ParentDsUnknown' });
  });

  it('says why the DS lookup failed without the address of the service\'s resolver, which the tenant reads', async () => {
    const r = await signedAndDelegated();
    await dnssec(false);
    parentDs = new ResolverError('10.1.2.3:53: SERVFAIL for the DS of the zone', 'the resolver: SERVFAIL for the DS of the zone');
    await settle(r, ZONE);
    expect((await status())?.lastError).toBe('DS lookup: the resolver: SERVFAIL for the DS of the zone');
  });

  it('signing again on the way to off stops asking for the DS to go', async () => {
    const r = await signedAndDelegated();
    await dnssec(false);
    await settle(r, ZONE);
    await dnssec(true);
    await settle(r, ZONE);
    expect(ns.served.get(ZONE)).toMatchObject({ dnssec: true, deleteDs: false });
    expect(await condition('Ready')).toMatchObject({ status: 'True' });
  });

  it('confirms a recorded DS that matches the signer\'s key, once; one that does not match is not confirmed', async () => {
    const r = reconciler();
    await dnssec(true);
    await r.reconcile(ZONE, noAbort);
    ns.actions.length = 0;
    await setZoneDs(store, { orgId, zone: ZONE, actor: 't', ds: [{ keyTag: 999, algorithm: 13, digestType: 2, digest: 'CD'.repeat(32) }] });
    await r.reconcile(ZONE, noAbort);
    expect(ns.actions).toEqual([]);
    const ds = ns.dsRecords[0]!;
    await setZoneDs(store, { orgId, zone: ZONE, actor: 't', ds: [{ ...ds, digest: ds.digest.toLowerCase() }] });
    await r.reconcile(ZONE, noAbort);
    await r.reconcile(ZONE, noAbort);
    expect(ns.actions).toEqual([{ op: 'confirmDs', zone: ZONE }]);
    expect((await status()).facts.dsConfirmedKeyTag).toBe(ds.keyTag);
  });
});
