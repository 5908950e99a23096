import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../lib/log';
import { createOrg } from '../../../store/accounts';
import type { Store } from '../../../store/db';
import { raiseServedSerial, servedSerialFloor } from '../../../store/dnssec-keys';
import { changesSince } from '../../../store/feed';
import { createZone, deleteZone, putRRset, zoneByName } from '../../../store/zones';
import { catalogReconciler } from '../../../reconcilers/zones/catalog';
import { zoneReconciler } from '../../../reconcilers/zones';
import { checkCnameConflict, serialGreater } from '../../../zonefiles';
import { catalogLabel } from '../../../zonefiles/catalog';
import { FakeNameserver } from '../../helpers/fake-nameserver';
import { openTestStore } from '../../helpers/store';

const NS = ['ns1.hostplane.test'];
const CATALOG = 'catalog.invalid';
const noAbort = new AbortController().signal;
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });

describe('catalog reconciler', () => {
  let store: Store;
  let orgId: number;
  let now: number;

  beforeEach(async () => {
    now = Date.parse('2026-11-29T12:00:00Z');
    store = await openTestStore(':memory:', { clock: () => new Date(now) });
    orgId = (await createOrg(store, 'acme', 'free')).id;
  });
  afterEach(() => store.close());

  const create = (name: string) => createZone(store, { orgId, name, nameservers: NS, actor: 't', quota: null });
  /** One leader's reconcilers over its own nameserver (its knotd). */
  const leader = (ns = new FakeNameserver()) => ({
    ns,
    zone: zoneReconciler({ store, nameserver: ns, resolver: { ns: async () => [] }, nameservers: NS, log: silent, catalogZone: CATALOG }),
    catalog: catalogReconciler({ store, nameserver: ns, catalogZone: CATALOG, log: silent }),
  });
  /** The catalog the nameserver serves: serial and member PTRs. */
  const served = (ns: FakeNameserver) => {
    const text = ns.served.get(CATALOG)?.text ?? '';
    return { serial: ns.served.get(CATALOG)?.serial, members: text.split('\n').filter((l) => l.includes(' PTR ')) };
  };
  const uid = async (name: string) => (await zoneByName(store, name))!.uid;

  it('lists a zone under the label of its lifetime once a nameserver served it, not before', async () => {
    const l = leader();
    await create('example.com');
    const first = await l.catalog.reconcile(CATALOG, noAbort);
    expect(served(l.ns).members).toEqual([]);
    // Not served yet: looked at again soon.
    expect(first.requeueAfterMs).toBeLessThan(1000);
    await l.zone.reconcile('example.com', noAbort);
    await l.catalog.reconcile(CATALOG, noAbort);
    expect(served(l.ns).members).toEqual([`${catalogLabel(await uid('example.com'))}.zones.${CATALOG}. 0 IN PTR example.com.`]);
  });

  it('converges, then is a no-op on the second pass', async () => {
    const l = leader();
    await create('example.com');
    await l.zone.reconcile('example.com', noAbort);
    await l.catalog.reconcile(CATALOG, noAbort);
    l.ns.actions.length = 0;
    const again = await l.catalog.reconcile(CATALOG, noAbort);
    expect(l.ns.actions).toEqual([]);
    expect(again.requeueAfterMs).toBeGreaterThan(60_000);
  });

  it('on a new leader\'s nameserver keeps every member\'s label and serves a serial above every one served before', async () => {
    const old = leader();
    for (const name of ['a.test', 'b.test']) {
      await create(name);
      await old.zone.reconcile(name, noAbort);
    }
    await old.catalog.reconcile(CATALOG, noAbort);
    const before = served(old.ns);
    expect(await servedSerialFloor(store, CATALOG)).toBe(before.serial);
    // The old leader served a later catalog it could not see served (it died right after recording it).
    await raiseServedSerial(store, CATALOG, before.serial! + 5);

    const next = leader();
    await next.catalog.reconcile(CATALOG, noAbort);
    const after = served(next.ns);
    expect(after.members).toEqual(before.members);
    expect(serialGreater(after.serial!, before.serial! + 5)).toBe(true);
    expect(await servedSerialFloor(store, CATALOG)).toBe(after.serial);
  });

  it('drops a deleted zone, and lists it under another label once created again and served', async () => {
    const l = leader();
    await create('example.com');
    await l.zone.reconcile('example.com', noAbort);
    await l.catalog.reconcile(CATALOG, noAbort);
    const [before] = served(l.ns).members;
    await deleteZone(store, { orgId, name: 'example.com', actor: 't' });
    await l.catalog.reconcile(CATALOG, noAbort);
    expect(served(l.ns).members).toEqual([]);
    await create('example.com');
    await l.zone.reconcile('example.com', noAbort);
    await l.zone.reconcile('example.com', noAbort);
    await l.catalog.reconcile(CATALOG, noAbort);
    const [after] = served(l.ns).members;
    expect(after).toMatch(/ PTR example\.com\.$/);
    expect(after).not.toBe(before);
  });

  it('is woken by a zone created or deleted, not by an rrset written to a member, and reads nothing to tell', async () => {
    const l = leader();
    const [watch] = l.catalog.watches;
    const watched = async (): Promise<string[]> => (await changesSince(store, 0)).filter((c) => c.kind === watch!.kind).map((c) => c.key);
    await create('example.com');
    expect(await watched()).toEqual(['example.com']);
    await putRRset(store, { orgId, zone: 'example.com', actor: 't', cnameConflict: checkCnameConflict, quota: { plan: 'free', rrsets: 5000, bytes: 5 << 20 },
      rrset: { name: 'www.example.com', type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] } });
    expect(await watched()).toEqual(['example.com']);
    await deleteZone(store, { orgId, name: 'example.com', actor: 't' });
    expect(await watched()).toEqual(['example.com', 'example.com']);
    // Mapped without the store: a closed one would fail a read.
    store.close();
    expect(await watch!.keys('example.com')).toEqual([CATALOG]);
  });

  it('applies the catalog again when the nameserver lost it (a restart on an older file)', async () => {
    const l = leader();
    await create('example.com');
    await l.zone.reconcile('example.com', noAbort);
    await l.catalog.reconcile(CATALOG, noAbort);
    const before = served(l.ns);
    l.ns.served.delete(CATALOG);
    await l.catalog.reconcile(CATALOG, noAbort);
    expect(served(l.ns).members).toEqual(before.members);
    expect(serialGreater(served(l.ns).serial!, before.serial!)).toBe(true);
  });

  it('is no zone the zone reconciler removes', async () => {
    const l = leader();
    await create('example.com');
    await l.zone.reconcile('example.com', noAbort);
    await l.catalog.reconcile(CATALOG, noAbort);
    expect(await l.zone.keys()).toEqual(['example.com']);
  });
});
