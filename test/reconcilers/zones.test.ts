import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../core/log';
import type { Resolver } from '../../core/resolver';
import { createOrg } from '../../store/accounts';
import { openStore, type Store } from '../../store/db';
import { createZone, deleteZone, putRRset, setZoneDnssec, zoneByName, zoneStatusOf } from '../../store/zones';
import { zoneReconciler } from '../../reconcilers/zones';
import { checkCnameConflict } from '../../zonefiles';
import { FakeNameserver } from '../helpers/fake-nameserver';
import { Writable } from 'node:stream';

const NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const noAbort = new AbortController().signal;
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });

describe('zone reconciler', () => {
  let store: Store;
  let ns: FakeNameserver;
  let orgId: number;
  let delegatedTo: string[];
  const resolver: Resolver = { ns: async () => delegatedTo };
  const reconciler = () => zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent });

  beforeEach(async () => {
    store = openStore(':memory:');
    ns = new FakeNameserver();
    orgId = (await createOrg(store, 'acme', 'free')).id;
    delegatedTo = [];
    await createZone(store, { orgId, name: 'example.com', nameservers: NS, actor: 'test' });
  });
  afterEach(() => store.close());

  it('converges, then is a no-op on the second pass', async () => {
    const r = reconciler();
    await r.reconcile('example.com', noAbort);
    expect(ns.actions).toEqual([{ op: 'applyZone', zone: 'example.com', dnssec: false }]);
    ns.actions.length = 0;
    await r.reconcile('example.com', noAbort);
    expect(ns.actions).toEqual([]);
    const st = await zoneStatusOf(store, 'example.com');
    const z = await zoneByName(store, 'example.com');
    expect(st).toMatchObject({ observedGeneration: z!.generation, servedSerial: z!.serial, lastError: null });
  });

  it('serves the stored rrsets with the stored serial', async () => {
    await putRRset(store, { orgId, zone: 'example.com', actor: 't', cnameConflict: checkCnameConflict,
      rrset: { name: 'www.example.com', type: 'A', ttl: 300, records: [{ content: '192.0.2.7' }] } });
    await reconciler().reconcile('example.com', noAbort);
    const text = ns.served.get('example.com')!.text;
    expect(text).toMatch(/^www\s+300\s+(IN\s+)?A\s+192\.0\.2\.7$/m);
    expect(text).toContain(String((await zoneByName(store, 'example.com'))!.serial));
  });

  it('does not mark a failed apply as converged and records the error', async () => {
    ns.failWith = 'knotc: connection refused';
    await expect(reconciler().reconcile('example.com', noAbort)).rejects.toThrow('connection refused');
    const st = await zoneStatusOf(store, 'example.com');
    expect(st).toMatchObject({ observedGeneration: 0, lastError: 'knotc: connection refused' });
  });

  it('removes a deleted zone from the nameserver and drops its status', async () => {
    const r = reconciler();
    await r.reconcile('example.com', noAbort);
    await deleteZone(store, { orgId, name: 'example.com', actor: 't' });
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.at(-1)).toEqual({ op: 'removeZone', zone: 'example.com' });
    expect(await zoneStatusOf(store, 'example.com')).toBeUndefined();
  });

  it('raises the stored serial above one a signer moved ahead, never backwards', async () => {
    const r = reconciler();
    await r.reconcile('example.com', noAbort);
    const before = (await zoneByName(store, 'example.com'))!.serial;
    ns.served.get('example.com')!.serial = before + 5;
    await putRRset(store, { orgId, zone: 'example.com', actor: 't', cnameConflict: checkCnameConflict,
      rrset: { name: 'a.example.com', type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] } });
    expect(await r.reconcile('example.com', noAbort)).toEqual({ requeueAfterMs: 0 });
    const raised = (await zoneByName(store, 'example.com'))!.serial;
    expect(raised).toBeGreaterThan(before + 5);
    await r.reconcile('example.com', noAbort);
    expect(await ns.servedSerial('example.com')).toBe(raised);
  });

  it('reads the signer DS back as an observed fact when DNSSEC is on', async () => {
    await setZoneDnssec(store, { orgId, zone: 'example.com', enabled: true, actor: 't' });
    await reconciler().reconcile('example.com', noAbort);
    expect(ns.actions).toEqual([{ op: 'applyZone', zone: 'example.com', dnssec: true }]);
    expect((await zoneStatusOf(store, 'example.com'))!.dsObserved).toEqual(ns.dsRecords);
  });

  it('records delegation when public DNS points at the service nameservers', async () => {
    delegatedTo = [...NS];
    await reconciler().reconcile('example.com', noAbort);
    await new Promise((r) => setTimeout(r, 20));
    expect((await zoneStatusOf(store, 'example.com'))!.delegated).toBe(true);
  });

  it('records no delegation when the parent points elsewhere', async () => {
    delegatedTo = ['ns1.elsewhere.test'];
    await reconciler().reconcile('example.com', noAbort);
    await new Promise((r) => setTimeout(r, 20));
    expect((await zoneStatusOf(store, 'example.com'))!.delegated).toBe(false);
  });
});
