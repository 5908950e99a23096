import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../lib/log';
import type { Resolver } from '../../../providers/resolver';
import { createOrg } from '../../../store/accounts';
import { type Store } from '../../../store/db';
import { onPostgres, openTestStore } from '../../helpers/store';
import { statusOf } from '../../../store/status';
import { createZone, deleteRRset, deleteZone, putRRset, setZoneDnssec, zoneByName, zoneSnapshot, type ZoneFacts } from '../../../store/zones';
import { zoneReconciler } from '../../../reconcilers/zones';
import { applyZoneChanges } from '../../../store/zone-changes';
import { pruneRRsetTombstones, TOMBSTONE_RETENTION } from '../../../store/rrset-tombstones';
import { DEFER_FILE_RRSETS, zoneApplier } from '../../../reconcilers/zones/apply';
import { checkCnameConflict, renderZone, serialGreater } from '../../../zonefiles';
import { soaFor } from '../../../zonefiles/soa';
import { FakeNameserver } from '../../helpers/fake-nameserver';
import { settle } from '../../helpers/passes';
import { captureLogger } from '../../helpers/log';
import { UnservableZoneError, type ZoneChanges } from '../../../providers/nameserver/port';
import { TerminalError } from '../../../reconcilers/types';
import { zones } from '../../../store/schema';
import { readStatus } from '../../../store/read-model';
import { eq } from 'drizzle-orm';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { KEY_FILE, openSealer } from '../../../core/sealing';
import { keysToImport } from '../../../reconcilers/zones/keys';
import { raiseServedSerial, servedSerialFloor, storedKeys } from '../../../store/dnssec-keys';
import { tempDir } from '../../helpers/proc';
import { bid, FencedError, fencedStore, resign, withTerm } from '../../../store/leader';

const NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const noAbort = new AbortController().signal;
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });

describe('zone reconciler', () => {
  let store: Store;
  let ns: FakeNameserver;
  let orgId: number;
  let delegatedTo: string[];
  let now: number;
  const resolver: Resolver = { ns: async () => delegatedTo };
  const reconciler = (deferFileFrom?: number, fileSaveMs = 0) => zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, deferFileFrom, fileSaveMs });
  /** The store as another process's writes reach it: committed, and neither handed over to this process's zone passes
   * (store/zone-handover.ts) nor announced to it. */
  const elsewhere = (): Store => Object.create(store) as Store;
  const putA = (name: string, ip: string, via = store) => putRRset(via, { orgId, zone: 'example.com', actor: 't', cnameConflict: checkCnameConflict, quota: { plan: 'free', rrsets: 5000, bytes: 5 << 20 },
    rrset: { name, type: 'A', ttl: 300, records: [{ content: ip }] } });
  const rendered = async () => {
    const snap = (await zoneSnapshot(store, 'example.com'))!;
    return renderZone({ name: 'example.com', soa: soaFor('example.com', snap.zone.serial, NS), rrsets: snap.rrsets });
  };

  beforeEach(async () => {
    now = Date.parse('2026-11-26T12:00:00Z');
    store = await openTestStore(':memory:', { clock: () => new Date(now) });
    ns = new FakeNameserver();
    orgId = (await createOrg(store, 'acme', 'free')).id;
    delegatedTo = [];
    await createZone(store, { orgId, name: 'example.com', nameservers: NS, actor: 'test', quota: null });
  });
  afterEach(() => store.close());

  it('converges, then is a no-op on the second pass', async () => {
    const r = reconciler();
    await r.reconcile('example.com', noAbort);
    expect(ns.actions).toEqual([{ op: 'applyZone', zone: 'example.com', dnssec: false }]);
    ns.actions.length = 0;
    await r.reconcile('example.com', noAbort);
    expect(ns.actions).toEqual([]);
    const st = await statusOf<ZoneFacts>(store, 'zone', 'example.com');
    const z = await zoneByName(store, 'example.com');
    expect(st).toMatchObject({ observedGeneration: z!.generation, facts: { servedSerial: z!.serial }, lastError: null });
    expect(st!.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Served', observedGeneration: z!.generation })]);
  });

  it('serves the stored rrsets with the stored serial', async () => {
    await putRRset(store, { orgId, zone: 'example.com', actor: 't', cnameConflict: checkCnameConflict, quota: { plan: 'free', rrsets: 5000, bytes: 5 << 20 },
      rrset: { name: 'www.example.com', type: 'A', ttl: 300, records: [{ content: '192.0.2.7' }] } });
    await reconciler().reconcile('example.com', noAbort);
    const text = ns.served.get('example.com')!.text;
    expect(text).toMatch(/^www\s+300\s+(IN\s+)?A\s+192\.0\.2\.7$/m);
    expect(text).toContain(String((await zoneByName(store, 'example.com'))!.serial));
  });

  it('does not mark a failed apply as converged and records the error', async () => {
    ns.failWith = 'knotc: connection refused';
    await expect(reconciler().reconcile('example.com', noAbort)).rejects.toThrow('connection refused');
    const st = await statusOf<ZoneFacts>(store, 'zone', 'example.com');
    expect(st).toMatchObject({ observedGeneration: 0, lastError: 'knotc: connection refused' });
  });

  it('tells the tenant a reason and a message without server paths; operators keep the whole error', async () => {
    ns.failWith = "[example.com.] zone parser failed, file '/srv/hostplane/data/zones/example.com.zone' (RDATA overflow)";
    await expect(reconciler().reconcile('example.com', noAbort)).rejects.toThrow('zone parser failed');
    const st = (await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!;
    expect(st).toMatchObject({ lastError: ns.failWith, conditions: [expect.objectContaining({ type: 'Ready', status: 'False', reason: 'ApplyFailed' })] });
    expect(st.conditions[0]!.message).not.toMatch(/\/|knot|parser|\.zone/);
    const admin = (await readStatus(store)).zones.find((z) => z.zone === 'example.com');
    expect(admin).toMatchObject({ lastError: ns.failWith, ready: false });
  });

  it('a stored zone whose name breaks the rule never reaches the nameserver: terminal status, others unaffected', async () => {
    await store.write(async (tx) => { await tx.insert(zones).values({ name: '-evil.test', uid: 'evil-lifetime', orgId, dnssec: 'off', ds: [], serial: 1, generation: 1, createdAt: '2026-01-01T00:00:00Z' }); });
    const knotLike = new FakeNameserver();
    // What the Knot adapter does with such a name: its configuration writer refuses it.
    knotLike.applyZone = async (name) => {
      throw new UnservableZoneError(name);
    };
    const r = zoneReconciler({ store, nameserver: knotLike, resolver, nameservers: NS, log: silent });
    await expect(r.reconcile('-evil.test', noAbort)).rejects.toBeInstanceOf(TerminalError);
    expect(await statusOf<ZoneFacts>(store, 'zone', '-evil.test')).toMatchObject({ conditions: [expect.objectContaining({ reason: 'InvalidZoneName', status: 'False' })], observedGeneration: 0 });
    await reconciler().reconcile('example.com', noAbort);
    expect(ns.served.has('example.com')).toBe(true);
    // Deleting it needs nothing from the nameserver.
    await store.write(async (tx) => { await tx.delete(zones).where(eq(zones.name, '-evil.test')); });
    await r.reconcile('-evil.test', noAbort);
    expect(knotLike.actions).toEqual([]);
  });

  it('removes a deleted zone from the nameserver and drops its status', async () => {
    const r = reconciler();
    await r.reconcile('example.com', noAbort);
    await deleteZone(store, { orgId, name: 'example.com', actor: 't' });
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.at(-1)).toEqual({ op: 'removeZone', zone: 'example.com' });
    expect(await statusOf<ZoneFacts>(store, 'zone', 'example.com')).toBeUndefined();
  });

  it('serves a serial above one the signer moved ahead, and never rewrites the zone\'s own serial', async () => {
    const r = reconciler();
    await r.reconcile('example.com', noAbort);
    const before = (await zoneByName(store, 'example.com'))!.serial;
    const moved = before + 5;
    ns.served.get('example.com')!.serial = moved;
    await putA('a.example.com', '192.0.2.1');
    const desired = (await zoneByName(store, 'example.com'))!;
    expect(await r.reconcile('example.com', noAbort)).toEqual({ requeueAfterMs: 0 });
    await r.reconcile('example.com', noAbort);
    const served = (await ns.servedSerial('example.com'))!;
    expect(serialGreater(served, moved)).toBe(true);
    expect(await zoneByName(store, 'example.com')).toEqual(desired);
    expect(await statusOf<ZoneFacts>(store, 'zone', 'example.com')).toMatchObject({
      observedGeneration: desired.generation, facts: { servedSerial: served, renderedSerial: served },
    });
    // Stable: a second pass renders the same text and changes nothing.
    ns.actions.length = 0;
    await r.reconcile('example.com', noAbort);
    expect(ns.actions).toEqual([]);
  });

  it('records the serial it is about to serve as the store\'s floor before the nameserver serves it (a signed one plus the signer\'s increment)', async () => {
    await setZoneDnssec(store, { orgId, zone: 'example.com', enabled: true, actor: 't' });
    const serial = (await zoneByName(store, 'example.com'))!.serial;
    ns.failWith = 'knotd died';
    await expect(reconciler().reconcile('example.com', noAbort)).rejects.toThrow();
    expect(await servedSerialFloor(store, 'example.com')).toBe(serial + 1);
  });

  it('a nameserver that does not serve the zone gets a serial above one a previous leader served without recording it', async () => {
    await reconciler().reconcile('example.com', noAbort);
    const before = (await ns.servedSerial('example.com'))!;
    expect(await servedSerialFloor(store, 'example.com')).toBe(before);
    // The old leader served further before it died, without a status to say so.
    await raiseServedSerial(store, 'example.com', before + 3);
    ns = new FakeNameserver();
    await reconciler().reconcile('example.com', noAbort);
    expect(serialGreater((await ns.servedSerial('example.com'))!, before + 3)).toBe(true);
  });

  it('after a takeover the first serial goes above the served one even where the same text would do; after a loss of its own state, not', async () => {
    await reconciler().reconcile('example.com', noAbort);
    const before = (await ns.servedSerial('example.com'))!;
    ns = new FakeNameserver();
    await reconciler().reconcile('example.com', noAbort);
    expect(await ns.servedSerial('example.com')).toBe(before);
    ns = new FakeNameserver();
    await zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, tookOver: true }).reconcile('example.com', noAbort);
    expect(serialGreater((await ns.servedSerial('example.com'))!, before)).toBe(true);
  });

  it('keeps a signed zone\'s keys in the store, sealed, for the next leader; a rollover replaces them; a purge forgets them', async () => {
    const sealer = openSealer(join(tempDir('hostplane-zone-keys-'), KEY_FILE));
    const r = zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, sealer });
    await setZoneDnssec(store, { orgId, zone: 'example.com', enabled: true, actor: 't' });
    await r.reconcile('example.com', noAbort);
    const imported = async () => (await keysToImport({ store, sealer }, ['example.com'])).get('example.com');
    expect(await imported()).toEqual(ns.keys);
    ns.keys = [ns.keys[0]!, { keyId: 'z2', attrs: { ksk: false, zsk: true, active: 2 }, pem: 'PEM of z2' }];
    await r.reconcile('example.com', noAbort);
    expect(await imported()).toEqual(ns.keys);
    const { uid } = (await zoneByName(store, 'example.com'))!;
    await deleteZone(store, { orgId, name: 'example.com', actor: 't' });
    await r.reconcile('example.com', noAbort);
    expect(await storedKeys(store, 'example.com', uid)).toEqual([]);
  });

  it('reads the signer DS back as an observed fact when DNSSEC is on', async () => {
    await setZoneDnssec(store, { orgId, zone: 'example.com', enabled: true, actor: 't' });
    await reconciler().reconcile('example.com', noAbort);
    expect(ns.actions).toEqual([{ op: 'applyZone', zone: 'example.com', dnssec: true }]);
    expect((await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!.facts.signerDs).toEqual(ns.dsRecords);
  });

  /** Runs `write` once, just before the first store statement labelled `label`. */
  const writeBefore = (label: string, write: () => Promise<unknown>): void => {
    const raw = store.raw.bind(store);
    let pending = true;
    vi.spyOn(store, 'raw').mockImplementation(async (l, sql, params) => {
      if (pending && l === label) {
        pending = false;
        await write();
      }
      return raw(l, sql, params);
    });
  };

  it.each([
    ['a change since the served generation (another process\'s, so read from the store)', 'zoneChangedRRsets', true],
    ['the whole zone', 'zoneRRsets', false],
  ])('claims no generation whose signing came after the pass read the zone: DNSSEC turned on while it reads %s', async (_what, label, servedBefore) => {
    const r = reconciler();
    if (servedBefore) await r.reconcile('example.com', noAbort);
    await putA('a.example.com', '192.0.2.1', elsewhere());
    writeBefore(label, () => setZoneDnssec(store, { orgId, zone: 'example.com', enabled: true, actor: 't' }));
    await r.reconcile('example.com', noAbort);
    vi.restoreAllMocks();
    const ready = async (): Promise<boolean> => {
      const st = await statusOf<ZoneFacts>(store, 'zone', 'example.com');
      const z = (await zoneByName(store, 'example.com'))!;
      return st?.observedGeneration === z.generation && st.conditions.some((c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === z.generation);
    };
    // Ready at the generation that turned signing on is a claim that the zone is served signed.
    if (await ready()) expect(ns.served.get('example.com')!.dnssec).toBe(true);
    await settle(r, 'example.com');
    expect(await ready()).toBe(true);
    expect(ns.served.get('example.com')!.dnssec).toBe(true);
  });

  it('sends a large zone only what changed, and serves the same text as a whole render', async () => {
    const r = reconciler(2);
    await putA('a.example.com', '192.0.2.1');
    await putA('b.example.com', '192.0.2.2');
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone']);
    await putA('a.example.com', '192.0.2.9');
    await putA('c.example.com', '192.0.2.3');
    await deleteRRset(store, { orgId, zone: 'example.com', name: 'b.example.com', type: 'A', actor: 't' });
    await r.reconcile('example.com', noAbort);
    const serial = (await zoneByName(store, 'example.com'))!.serial;
    expect(ns.actions[1]).toEqual({
      op: 'applyChanges', zone: 'example.com',
      remove: ['a.example.com. A', 'b.example.com. A'],
      add: [
        'a.example.com. 300 IN A 192.0.2.9',
        'c.example.com. 300 IN A 192.0.2.3',
        `example.com. 3600 IN SOA ns1.hostplane.test. hostmaster.example.com. ${serial} 10800 3600 1209600 300`,
      ],
      file: false,
    });
    // The file follows, rendered once from the image (here at once: fileSaveMs 0).
    expect(ns.actions[2]).toEqual({ op: 'saveZoneFile', zone: 'example.com', serial });
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
    ns.actions.length = 0;
    await r.reconcile('example.com', noAbort);
    expect(ns.actions).toEqual([]);
  });

  it('sends an rrset deleted and put again (an ACME challenge\'s TXT) as a change, not as a whole load: what it removed is no longer served', async () => {
    const r = reconciler(2);
    await putA('a.example.com', '192.0.2.1');
    await putA('b.example.com', '192.0.2.2');
    await r.reconcile('example.com', noAbort);
    for (const round of [1, 2]) {
      await putA('x.example.com', `192.0.2.${10 + round}`);
      await r.reconcile('example.com', noAbort);
      await deleteRRset(store, { orgId, zone: 'example.com', name: 'x.example.com', type: 'A', actor: 't' });
      await r.reconcile('example.com', noAbort);
    }
    expect(ns.actions.filter((a) => a.op !== 'saveZoneFile').map((a) => [a.op, 'remove' in a ? a.remove : []])).toEqual([
      ['applyZone', []],
      ['applyChanges', []], ['applyChanges', ['x.example.com. A']],
      ['applyChanges', []], ['applyChanges', ['x.example.com. A']],
    ]);
  });

  it('takes the changes this process wrote as its writes handed them over, and reads from the store those written elsewhere', async () => {
    const r = reconciler(2);
    await putA('a.example.com', '192.0.2.1');
    await r.reconcile('example.com', noAbort);
    const raw = vi.spyOn(store, 'raw');
    const changeReads = (): number => raw.mock.calls.filter(([label]) => label === 'zoneChangedRRsets').length;
    await putA('a.example.com', '192.0.2.2');
    await putA('b.example.com', '192.0.2.3');
    await putA('c.example.com', '192.0.2.6');
    await deleteRRset(store, { orgId, zone: 'example.com', name: 'a.example.com', type: 'A', actor: 't' });
    await putA('c.example.com', '192.0.2.7');
    ns.actions.length = 0;
    await r.reconcile('example.com', noAbort);
    expect(changeReads()).toBe(0);
    const serial = (await zoneByName(store, 'example.com'))!.serial;
    expect(ns.actions[0]).toEqual({
      op: 'applyChanges', zone: 'example.com', remove: ['a.example.com. A'],
      add: ['b.example.com. 300 IN A 192.0.2.3', 'c.example.com. 300 IN A 192.0.2.7', `example.com. 3600 IN SOA ns1.hostplane.test. hostmaster.example.com. ${serial} 10800 3600 1209600 300`],
      file: false,
    });
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
    // A generation made elsewhere breaks the chain, before and after this process's own write.
    await putA('c.example.com', '192.0.2.4', elsewhere());
    await putA('d.example.com', '192.0.2.5');
    await r.reconcile('example.com', noAbort);
    expect(changeReads()).toBe(1);
    expect(ns.actions.at(-2)).toMatchObject({ op: 'applyChanges', add: [expect.stringMatching(/^c\./), expect.stringMatching(/^d\./), expect.stringContaining(' SOA ')] });
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
  });

  it('loads the zone whole, and so serves a deletion, when the tombstones since the generation it serves were pruned', async () => {
    const r = reconciler(2);
    await putA('a.example.com', '192.0.2.1');
    await putA('b.example.com', '192.0.2.2');
    await r.reconcile('example.com', noAbort);
    await deleteRRset(elsewhere(), { orgId, zone: 'example.com', name: 'b.example.com', type: 'A', actor: 't' });
    // Another process's reconciler (a leader meanwhile) serves the deletion it wrote and records it; once the grace has
    // passed its tombstone is pruned.
    await zoneReconciler({ store, nameserver: new FakeNameserver(), resolver, nameservers: NS, log: silent }).reconcile('example.com', noAbort);
    now += TOMBSTONE_RETENTION.graceMs + 1000;
    expect(await pruneRRsetTombstones(store)).toBe(1);
    await putA('c.example.com', '192.0.2.3');
    ns.actions.length = 0;
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone']);
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
    expect(ns.served.get('example.com')!.text).not.toContain('b.example.com');
  });

  it('sends a change set to the nameserver as one transaction at the set\'s serial, its puts and deletes together', async () => {
    const r = reconciler(2);
    await putA('a.example.com', '192.0.2.1');
    await putA('b.example.com', '192.0.2.2');
    await r.reconcile('example.com', noAbort);
    const set = await applyZoneChanges(store, {
      orgId, zone: 'example.com', actor: 't', quota: null, changes: [
        { op: 'put', name: 'a.example.com', type: 'A', ttl: 300, records: [{ content: '192.0.2.9' }] },
        { op: 'delete', name: 'b.example.com', type: 'A' },
        { op: 'put', name: 'c.example.com', type: 'TXT', ttl: 300, records: [{ content: 'c' }] },
      ],
    });
    ns.actions.length = 0;
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.filter((a) => a.op !== 'saveZoneFile')).toEqual([{
      op: 'applyChanges', zone: 'example.com',
      remove: ['a.example.com. A', 'b.example.com. A'],
      add: [
        'a.example.com. 300 IN A 192.0.2.9',
        'c.example.com. 300 IN TXT "c"',
        `example.com. 3600 IN SOA ns1.hostplane.test. hostmaster.example.com. ${set.serial} 10800 3600 1209600 300`,
      ],
      file: false,
    }]);
  });

  it('by default sends a zone its file with each change below DEFER_FILE_RRSETS rrsets, and apart from them from there on', async () => {
    // A pass below it reads and renders the zone whole in one turn of the event loop, before the change goes to the
    // nameserver: a quarter of a millisecond at most.
    expect(DEFER_FILE_RRSETS).toBeLessThanOrEqual(50);
    const r = reconciler(undefined);
    // The apex NS counts: one rrset short of the threshold.
    for (let i = 0; i < DEFER_FILE_RRSETS - 2; i++) await putA(`h${i}.example.com`, '192.0.2.1');
    await r.reconcile('example.com', noAbort);
    await putA('h0.example.com', '192.0.2.2');
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.at(-1)).toMatchObject({ op: 'applyChanges' });
    expect(ns.actions.at(-1)).not.toHaveProperty('file');
    await putA('a.example.com', '192.0.2.3');
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.slice(-2).map((a) => a.op)).toEqual(['applyChanges', 'saveZoneFile']);
    expect(ns.actions.at(-2)).toMatchObject({ file: false });
  });

  it('loads a large zone whole when too many rrsets changed at once for an incremental change to pay', async () => {
    const r = zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, deferFileFrom: 1, maxIncremental: 2, fileSaveMs: 0 });
    await putA('a.example.com', '192.0.2.1');
    await r.reconcile('example.com', noAbort);
    for (const n of ['b', 'c', 'd']) await putA(`${n}.example.com`, '192.0.2.2');
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyZone']);
    await putA('e.example.com', '192.0.2.5');
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyZone', 'applyChanges', 'saveZoneFile']);
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
  });

  it('sends more changes than maxIncremental incrementally while they are at most a quarter of the zone\'s rrsets', async () => {
    const r = zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, deferFileFrom: 1, maxIncremental: 2, fileSaveMs: 0 });
    for (let i = 0; i < 19; i++) await putA(`h${i}.example.com`, '192.0.2.1');
    await r.reconcile('example.com', noAbort);
    // 5 changes of 20 rrsets (the apex NS counts): incremental; then 6 of 21, a whole load.
    for (let i = 0; i < 5; i++) await putA(`h${i}.example.com`, '192.0.2.2');
    await r.reconcile('example.com', noAbort);
    for (let i = 0; i < 5; i++) await putA(`h${i}.example.com`, '192.0.2.3');
    await putA('new.example.com', '192.0.2.3');
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyChanges', 'saveZoneFile', 'applyZone']);
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
  });

  it('writes a large zone\'s file at most every fileSaveMs while it changes, from the state served, and once it is quiet', async () => {
    const r = reconciler(1, 150);
    await putA('a.example.com', '192.0.2.1');
    await r.reconcile('example.com', noAbort);
    const before = ns.served.get('example.com')!.text;
    for (const ip of ['192.0.2.2', '192.0.2.3']) {
      await putA('a.example.com', ip);
      const result = await r.reconcile('example.com', noAbort);
      // Looked at again when the file is due, not at the next resync.
      expect(result.requeueAfterMs).toBeLessThanOrEqual(1_000);
    }
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyChanges', 'applyChanges']);
    expect(ns.served.get('example.com')!.text).toBe(before);
    now += 160;
    await r.reconcile('example.com', noAbort);
    const serial = (await zoneByName(store, 'example.com'))!.serial;
    expect(ns.actions.at(-1)).toEqual({ op: 'saveZoneFile', zone: 'example.com', serial });
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
    ns.actions.length = 0;
    // The first look at the secondaries (the fake has none) is due 2 s after the last change.
    now += 2_000;
    await r.reconcile('example.com', noAbort);
    expect((await r.reconcile('example.com', noAbort)).requeueAfterMs).toBeGreaterThan(60_000);
    expect(ns.actions).toEqual([]);
  });

  it('does not read a zone whole for a file that is due once the zone moved on: the next pass saves it', async () => {
    const applier = zoneApplier({ store, nameserver: ns, nameservers: NS, log: silent, deferFileFrom: 1, fileSaveMs: 0 });
    const signing = { dnssec: false, deleteDs: false };
    await putA('a.example.com', '192.0.2.1');
    await applier.apply((await zoneByName(store, 'example.com'))!, undefined, signing);
    await putA('a.example.com', '192.0.2.2');
    const { served } = (await applier.apply((await zoneByName(store, 'example.com'))!, undefined, signing))!;
    await putA('a.example.com', '192.0.2.3');
    const reads = vi.spyOn(store, 'prepared');
    expect(await applier.flush('example.com', served)).toBeGreaterThan(0);
    expect(reads.mock.calls.map(([key]) => key)).not.toContain('zoneRRsets');
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyChanges']);
  });

  it('sends a small zone its change incrementally too, with its file, and falls back to a whole load when it is refused', async () => {
    await putA('a.example.com', '192.0.2.1');
    const small = reconciler();
    await small.reconcile('example.com', noAbort);
    await putA('a.example.com', '192.0.2.2');
    await small.reconcile('example.com', noAbort);
    // Its file comes with the change.
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyChanges']);
    expect(ns.actions[1]).not.toHaveProperty('file');
    expect(ns.served.get('example.com')!.text).toBe(await rendered());

    const big = reconciler(1);
    await big.reconcile('example.com', noAbort);
    ns.applyChanges = async () => { throw new Error('knotc: zone-commit failed'); };
    await putA('a.example.com', '192.0.2.3');
    await big.reconcile('example.com', noAbort);
    expect(ns.actions.at(-1)).toEqual({ op: 'applyZone', zone: 'example.com', dnssec: false });
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
  });

  it('takes an unsigned zone\'s served serial from the commit\'s answer; asks the nameserver for a signed zone\'s, and in a pass with nothing to apply, which so finds a drift', async () => {
    const r = reconciler();
    await r.reconcile('example.com', noAbort);
    const asked = (): number => ns.servedSerialAsked.get('example.com') ?? 0;
    const before = asked();
    await putA('a.example.com', '192.0.2.1');
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.at(-1)).toMatchObject({ op: 'applyChanges' });
    expect(asked()).toBe(before);
    const st = (await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!;
    expect(st.facts.servedSerial).toBe(ns.served.get('example.com')!.serial);
    expect(st.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True' }));

    // Nothing to apply: asked, and a nameserver that lost the zone's change is found out.
    ns.served.get('example.com')!.serial -= 1;
    await expect(r.reconcile('example.com', noAbort)).rejects.toThrow(/is not the applied/);
    expect(asked()).toBe(before + 1);

    await setZoneDnssec(store, { orgId, zone: 'example.com', enabled: true, actor: 't' });
    await settle(r, 'example.com');
    const signed = asked();
    await putA('a.example.com', '192.0.2.2');
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.at(-1)).toMatchObject({ op: 'applyChanges' });
    expect(asked()).toBe(signed + 1);
  });

  it('says a nameserver that went down right after it committed a change is down, not that it serves the change', async () => {
    const r = reconciler();
    await r.reconcile('example.com', noAbort);
    const commit = ns.applyChanges.bind(ns);
    vi.spyOn(ns, 'applyChanges').mockImplementation(async (...args) => {
      const committed = await commit(...args);
      ns.down = true;
      return committed;
    });
    await putA('a.example.com', '192.0.2.1');
    expect(await r.reconcile('example.com', noAbort)).toEqual({ requeueAfterMs: 5_000 });
    expect(ns.actions.at(-1)).toMatchObject({ op: 'applyChanges' });
    const st = (await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!;
    expect(st.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'False', reason: 'NameserverDown' }));
  });

  it.skipIf(onPostgres())(`writes what a pass of a change observed (the served floor, the status) in one commit${onPostgres() ? ' (skipped: each write commits apart on PostgreSQL)' : ''}`, async () => {
    const r = zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, soleLeader: true });
    await r.reconcile('example.com', noAbort);
    await putA('a.example.com', '192.0.2.1');
    const before = store.stats().commits;
    await r.reconcile('example.com', noAbort);
    expect(store.stats().commits - before).toBe(1);
    expect(await servedSerialFloor(store, 'example.com')).toBe(ns.served.get('example.com')!.serial);
    expect((await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!.facts.servedSerial).toBe(ns.served.get('example.com')!.serial);
  });

  it('takes a change whose zone file could not be written as served, not refused: Ready, no whole load, and the file written later', async () => {
    const r = reconciler(undefined, 5000);
    await r.reconcile('example.com', noAbort);
    const before = ns.served.get('example.com')!.text;
    // The fake records no refused whole load among its actions.
    const wholeLoads = vi.spyOn(ns, 'applyZone');
    await putA('a.example.com', '192.0.2.1');
    ns.fileWriteFails = true;
    const result = await r.reconcile('example.com', noAbort);
    const z = (await zoneByName(store, 'example.com'))!;
    expect(wholeLoads).not.toHaveBeenCalled();
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyChanges']);
    expect(ns.served.get('example.com')!.text).toBe(before);
    expect(ns.served.get('example.com')!.serial).toBe(z.serial);
    const st = (await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!;
    expect(st.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True', observedGeneration: z.generation }));
    expect(st.facts.servedSerial).toBe(z.serial);
    // The pass asks for the next by the time the file is due, which writes it.
    expect(result.requeueAfterMs).toBeLessThanOrEqual(5000);
    ns.fileWriteFails = false;
    now += 5000;
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyChanges', 'saveZoneFile']);
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
  });

  it('takes a zone whose lagging file still cannot be written after a restart as served: Ready, its next change incremental, the file written later', async () => {
    const before = reconciler(undefined, 5000);
    await before.reconcile('example.com', noAbort);
    await putA('a.example.com', '192.0.2.1');
    ns.fileWriteFails = true;
    await before.reconcile('example.com', noAbort);
    // serve restarted before the file was due, the disk still full: the nameserver serves the change from its journal.
    const r = reconciler(undefined, 5000);
    const result = await r.reconcile('example.com', noAbort);
    let z = (await zoneByName(store, 'example.com'))!;
    expect(ns.actions.at(-1)).toEqual({ op: 'applyZone', zone: 'example.com', dnssec: false, asServed: true });
    let st = (await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!;
    expect(st.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True', observedGeneration: z.generation }));
    expect(result.requeueAfterMs).toBeLessThanOrEqual(5000);
    await putA('b.example.com', '192.0.2.2');
    await r.reconcile('example.com', noAbort);
    z = (await zoneByName(store, 'example.com'))!;
    expect(ns.actions.at(-1)).toMatchObject({ op: 'applyChanges' });
    expect(ns.served.get('example.com')!.serial).toBe(z.serial);
    st = (await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!;
    expect(st.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True', observedGeneration: z.generation }));
    ns.fileWriteFails = false;
    now += 5000;
    await r.reconcile('example.com', noAbort);
    expect(ns.actions.at(-1)).toEqual({ op: 'saveZoneFile', zone: 'example.com', serial: z.serial });
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
  });

  it('says once in the log that a zone file cannot be written, however many changes and retries meet the full disk, and once that it is written again', async () => {
    const { log, lines } = captureLogger();
    const r = zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log, fileSaveMs: 5000 });
    await r.reconcile('example.com', noAbort);
    ns.fileWriteFails = true;
    for (const [i, name] of ['a', 'b', 'c'].entries()) {
      await putA(`${name}.example.com`, `192.0.2.${i + 1}`);
      await r.reconcile('example.com', noAbort);
      // Due, tried again, and failed again.
      now += 5000;
      await r.reconcile('example.com', noAbort);
    }
    const about = (text: string): string[] => lines.filter((l) => l.includes(text));
    expect(about('zone file')).toHaveLength(1);
    expect(about('the zone is served; its zone file is written later')).toHaveLength(1);
    ns.fileWriteFails = false;
    now += 5000;
    await r.reconcile('example.com', noAbort);
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
    expect(about('the zone file is written again')).toHaveLength(1);
    // The next time the disk is full is said again.
    ns.fileWriteFails = true;
    await putA('d.example.com', '192.0.2.4');
    await r.reconcile('example.com', noAbort);
    expect(about('the zone is served; its zone file is written later')).toHaveLength(2);
  });

  it('commits nothing to the nameserver before the store has synced it: a whole load waits, a change is sent and commits after', async () => {
    /** The store's sync of everything committed so far, held until the test lets it return. */
    const holdSync = (): (() => void) => {
      let release!: () => void;
      const held = new Promise<void>((res) => { release = res; });
      vi.spyOn(store, 'synced').mockImplementation(() => held);
      return release;
    };
    const r = reconciler();
    let release = holdSync();
    const load = r.reconcile('example.com', noAbort);
    await new Promise((res) => setImmediate(res));
    expect(ns.actions).toEqual([]);
    release();
    await load;
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone']);

    release = holdSync();
    await putA('a.example.com', '192.0.2.1');
    const change = r.reconcile('example.com', noAbort);
    await new Promise((res) => setImmediate(res));
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone']);
    expect(ns.served.get('example.com')!.text).not.toBe(await rendered());
    release();
    await change;
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyChanges']);
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
  });

  /** Each store write answers only once `after` settles (its commit, and so its Tx.afterCommit, as before). */
  const holdWrites = (after: () => Promise<void>): void => {
    const write = store.write.bind(store);
    vi.spyOn(store, 'write').mockImplementation(async (fn, opts) => {
      const value = await write(fn, opts);
      await after();
      return value;
    });
  };

  /** `r` serves the zone, then a change of it is sent while `hold` holds what the change's commit waits for, and
   * committed only once that is let go. */
  const sentThenCommitted = async (r: ReturnType<typeof reconciler>, hold: (wait: Promise<void>) => void): Promise<void> => {
    await r.reconcile('example.com', noAbort);
    await putA('a.example.com', '192.0.2.1');
    let release!: () => void;
    hold(new Promise<void>((res) => { release = res; }));
    const change = r.reconcile('example.com', noAbort);
    await vi.waitFor(() => expect(ns.sent).toEqual(['example.com']));
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone']);
    release();
    await change;
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyChanges']);
  };

  it('sends a change once the floor\'s write has committed, and commits it only once that write is on disk', async () => {
    await sentThenCommitted(reconciler(), (wait) => holdWrites(() => wait));
    expect(ns.served.get('example.com')!.text).toBe(await rendered());
  });

  it('commits nothing to the nameserver, and fails the pass, when the floor\'s write committed but did not reach the disk', async () => {
    const r = reconciler();
    await r.reconcile('example.com', noAbort);
    await putA('a.example.com', '192.0.2.1');
    holdWrites(async () => { throw new Error('the store committed this write but could not sync it to disk: EIO'); });
    await expect(r.reconcile('example.com', noAbort)).rejects.toThrow('could not sync it to disk');
    expect(ns.sent).toEqual(['example.com']);
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone']);
  });

  it('a deposed leader\'s pass sends nothing to the nameserver: its floor\'s write is refused first', async () => {
    const fenced = fencedStore(store);
    await bid(fenced, { holder: 'host:a', url: 'http://a' }, 60_000);
    const r = zoneReconciler({ store: fenced, nameserver: ns, resolver, nameservers: NS, log: silent });
    await withTerm(1, () => r.reconcile('example.com', noAbort));
    await putA('a.example.com', '192.0.2.1');
    await resign(fenced, 1);
    await expect(withTerm(1, () => r.reconcile('example.com', noAbort))).rejects.toBeInstanceOf(FencedError);
    expect(ns.sent).toEqual([]);
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone']);
  });

  describe('where no other process can lead (SQLite)', () => {
    const sole = (maxIncremental?: number) => zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, soleLeader: true, maxIncremental });
    // Each transaction opened is applied or abandoned: one left open would hold up the zone's other operations.
    afterEach(() => expect(ns.openTransactions).toBe(0));

    it('begins the nameserver\'s transaction of an unsigned zone before it reads the change, and abandons it when the zone loads whole instead', async () => {
      const opened = vi.spyOn(ns, 'openChanges');
      const r = sole(1);
      await r.reconcile('example.com', noAbort);
      await putA('a.example.com', '192.0.2.1');
      await putA('b.example.com', '192.0.2.2');
      await r.reconcile('example.com', noAbort);
      // Two changed rrsets, past the bound of one: loaded whole, after the transaction begun for them was given up.
      expect(opened).toHaveBeenCalledTimes(1);
      expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyZone']);
      expect(ns.served.get('example.com')!.text).toBe(await rendered());
      // Where a floor is written first, the transaction begins only once it committed: not for a whole load.
      await putA('a.example.com', '192.0.2.3');
      await putA('b.example.com', '192.0.2.4');
      await zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, maxIncremental: 1 }).reconcile('example.com', noAbort);
      expect(opened).toHaveBeenCalledTimes(1);
    });

    /** The floor as the nameserver is handed each text (before it may serve it), and the serial of that text. */
    const floorsAtSend = (): { floor: number | null; serial: number }[] => {
      const seen: { floor: number | null; serial: number }[] = [];
      const look = async (text: string | null, changes?: ZoneChanges) => {
        const soa = text ?? changes!.add.find((l) => / SOA /.test(l))!;
        seen.push({ floor: await servedSerialFloor(store, 'example.com'), serial: Number(/ SOA \S+ \S+ (\d+)/.exec(soa)![1]) });
      };
      const [whole, changes] = [ns.applyZone.bind(ns), ns.applyChanges.bind(ns)];
      ns.applyZone = async (name, text, opts) => { await look(text); return whole(name, text, opts); };
      ns.applyChanges = async (name, c, text, opts) => { await look(text, c); return changes(name, c, text, opts); };
      return seen;
    };

    it.each([
      { case: 'an unsigned change at the zone\'s own serial: its row is durable with it, no floor is written first', floorFirst: false, prepare: async () => {} },
      { case: 'a signed change: the signer serves more than the text', floorFirst: true, prepare: async () => {
        await setZoneDnssec(store, { orgId, zone: 'example.com', enabled: true, actor: 't' });
      } },
      { case: 'a text above a serial another nameserver served: its serial is not the row\'s', floorFirst: true, prepare: async () => {
        await raiseServedSerial(store, 'example.com', (await zoneByName(store, 'example.com'))!.serial + 3);
        ns = new FakeNameserver();
      } },
    ])('$case', async ({ floorFirst, prepare }) => {
      await sole().reconcile('example.com', noAbort);
      await prepare();
      const r = sole();
      await r.reconcile('example.com', noAbort);
      await putA('a.example.com', '192.0.2.1');
      const seen = floorsAtSend();
      // knotd takes one control connection at a time, for all zones: none is held while a write waits for the store.
      const openAtWrites: number[] = [];
      const write = store.write.bind(store);
      vi.spyOn(store, 'write').mockImplementation((fn, opts) => {
        openAtWrites.push(ns.openTransactions);
        return write(fn, opts);
      });
      const durableCommits = (): number => store.stats().commits - store.stats().lazyCommits;
      const before = durableCommits();
      await settle(r, 'example.com');
      expect(seen).toHaveLength(1);
      // An unsigned pass at the zone's own serial waits for no disk of its own: the change's write was durable.
      if (floorFirst) expect(durableCommits()).toBeGreaterThan(before);
      else expect(durableCommits()).toBe(before);
      const [{ floor, serial }] = seen as [{ floor: number | null; serial: number }];
      const signedFloor = (await zoneByName(store, 'example.com'))!.dnssec === 'off' ? serial : serial + 1;
      if (floorFirst) expect(floor).toBe(signedFloor);
      else expect(floor === null || serialGreater(serial, floor)).toBe(true);
      // Once seen served, the floor is recorded all the same.
      expect(await servedSerialFloor(store, 'example.com')).toBe(signedFloor);
      expect(openAtWrites.filter((n) => n > 0)).toEqual([]);
    });

    it('sends an unsigned change at once and commits it only once the store synced what the pass read; a failed sync commits nothing and fails the pass', async () => {
      const r = sole();
      await sentThenCommitted(r, (wait) => vi.spyOn(store, 'synced').mockImplementation(() => wait));

      await putA('a.example.com', '192.0.2.2');
      vi.spyOn(store, 'synced').mockRejectedValue(new Error('EIO: i/o error, fdatasync'));
      await expect(r.reconcile('example.com', noAbort)).rejects.toThrow('fdatasync');
      expect(ns.sent).toEqual(['example.com', 'example.com']);
      expect(ns.actions.map((a) => a.op)).toEqual(['applyZone', 'applyChanges']);
    });
  });

  it('fails the pass, and commits nothing to the nameserver, when the floor cannot be written', async () => {
    await setZoneDnssec(store, { orgId, zone: 'example.com', enabled: true, actor: 't' });
    const r = reconciler();
    await r.reconcile('example.com', noAbort);
    await putA('a.example.com', '192.0.2.1');
    vi.spyOn(store, 'write').mockRejectedValue(new Error('disk I/O error'));
    await expect(r.reconcile('example.com', noAbort)).rejects.toThrow('disk I/O error');
    expect(ns.actions.map((a) => a.op)).toEqual(['applyZone']);
  });

  it('lets a quiet zone start two passes within its spacing: a change a slow write brought close to the one before is not held', () => {
    expect(reconciler()).toMatchObject({ spacingMs: 20, spacingBurst: 2 });
  });

  it('looks up the delegation beside the pass after the one that applied, and the pass after the look records it', async () => {
    delegatedTo = [...NS];
    const r = reconciler();
    // The slow lookup is not on the way of the change: the applying pass asks for the next pass at once.
    expect(await r.reconcile('example.com', noAbort)).toEqual({ requeueAfterMs: 0 });
    expect((await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!.facts.delegated).toBeNull();
    await settle(r, 'example.com');
    expect((await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!.facts.delegated).toBe(true);
  });

  it('records no delegation when the parent points elsewhere', async () => {
    delegatedTo = ['ns1.elsewhere.test'];
    await settle(reconciler(), 'example.com');
    expect((await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!.facts.delegated).toBe(false);
  });

  it('looks the delegation up again once delegationTtlMs has passed, not before', async () => {
    delegatedTo = ['ns1.elsewhere.test'];
    const r = zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, delegationTtlMs: 60_000 });
    await settle(r, 'example.com');
    delegatedTo = [...NS];
    now += 59_000;
    expect(await settle(r, 'example.com')).toBe(1_000);
    expect((await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!.facts.delegated).toBe(false);
    now += 1_000;
    await settle(r, 'example.com');
    expect((await statusOf<ZoneFacts>(store, 'zone', 'example.com'))!.facts.delegated).toBe(true);
  });
});
