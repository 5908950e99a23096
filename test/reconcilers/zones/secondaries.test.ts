/** The look at the secondaries: judged against the served serial (RFC 1982), and scheduled as passes of the zone
 * (after a change is served, again while one is behind), on the store's clock: no timer of the reconciler's own. */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../lib/log';
import { judgeSecondaries } from '../../../reconcilers/zones/secondaries';
import { zoneReconciler } from '../../../reconcilers/zones';
import { createOrg } from '../../../store/accounts';
import { type Store } from '../../../store/db';
import { openTestStore } from '../../helpers/store';
import { statusOf } from '../../../store/status';
import { createZone, putRRset, type ZoneFacts } from '../../../store/zones';
import { checkCnameConflict } from '../../../zonefiles';
import { FakeNameserver } from '../../helpers/fake-nameserver';

const NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const noAbort = new AbortController().signal;
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const ZONE = 'example.com';

describe('judgeSecondaries', () => {
  it('counts a secondary at the served serial or later (across the wrap) as in sync, one earlier or serving nothing as behind', () => {
    const want = 4_294_967_295;
    expect(judgeSecondaries([{ address: 'a', serial: want }, { address: 'b', serial: 5 }], want)).toMatchObject({
      behind: false, condition: { type: 'SecondariesInSync', status: 'True', reason: 'InSync' },
    });
    const look = judgeSecondaries([{ address: 'a', serial: want - 1 }, { address: 'b', serial: null }], want);
    expect(look.behind).toBe(true);
    expect(look.condition).toMatchObject({ status: 'False', reason: 'SecondaryBehind', message: `a serves ${want - 1}, b serves nothing, not serial ${want}; NOTIFY is sent again` });
    expect(look.facts.secondaries).toHaveLength(2);
  });
});

describe('zone reconciler: secondaries', () => {
  let store: Store;
  let ns: FakeNameserver;
  let now: number;
  let orgId: number;
  const status = async () => (await statusOf<ZoneFacts>(store, 'zone', ZONE))!;
  const inSync = async () => (await status()).conditions.find((c) => c.type === 'SecondariesInSync');
  const notifies = () => ns.actions.filter((a) => a.op === 'notifySecondaries').length;

  beforeEach(async () => {
    now = Date.parse('2026-11-26T12:00:00Z');
    store = await openTestStore(':memory:', { clock: () => new Date(now) });
    ns = new FakeNameserver();
    orgId = (await createOrg(store, 'acme', 'free')).id;
    await createZone(store, { orgId, name: ZONE, nameservers: NS, actor: 'test', quota: null });
  });
  afterEach(() => store.close());

  it('says which secondary is behind, sends NOTIFY again until it catches up, then says in sync and stops looking', async () => {
    ns.secondaries = ['192.0.2.53:53', '192.0.2.54:53'];
    const r = zoneReconciler({ store, nameserver: ns, resolver: { ns: async () => [] }, nameservers: NS, log: silent, secondaryCheckMs: 2_000, secondaryRetryMs: 30_000 });
    await r.reconcile(ZONE, noAbort);
    // The pass after the apply looks at the parent; the secondaries are looked at 2 s after the change was served.
    expect(await r.reconcile(ZONE, noAbort)).toEqual({ requeueAfterMs: 2_000 });
    expect(await inSync()).toBeUndefined();
    const served = ns.served.get(ZONE)!.serial;
    ns.secondaryServes.set('192.0.2.53:53', new Map([[ZONE, served]]));

    now += 2_000;
    expect(await r.reconcile(ZONE, noAbort)).toEqual({ requeueAfterMs: 30_000 });
    expect(await inSync()).toMatchObject({ status: 'False', reason: 'SecondaryBehind', message: expect.stringContaining('192.0.2.54:53 serves nothing') });
    expect((await status()).facts.secondaries).toEqual([{ address: '192.0.2.53:53', serial: served }, { address: '192.0.2.54:53', serial: null }]);
    expect(notifies()).toBe(1);

    // Not due yet: no look, no NOTIFY.
    now += 10_000;
    expect(await r.reconcile(ZONE, noAbort)).toEqual({ requeueAfterMs: 20_000 });
    expect(notifies()).toBe(1);

    ns.secondaryServes.set('192.0.2.54:53', new Map([[ZONE, served]]));
    now += 20_000;
    expect((await r.reconcile(ZONE, noAbort)).requeueAfterMs).toBeGreaterThan(60_000);
    expect(await inSync()).toMatchObject({ status: 'True', reason: 'InSync' });
    expect(notifies()).toBe(1);
  });

  it('looks no more once the nameserver says it has no secondaries', async () => {
    const r = zoneReconciler({ store, nameserver: ns, resolver: { ns: async () => [] }, nameservers: NS, log: silent });
    await r.reconcile(ZONE, noAbort);
    expect(await r.reconcile(ZONE, noAbort)).toEqual({ requeueAfterMs: 2_000 });
    now += 2_000;
    // Only the next look at the parent (10 minutes after the last) is left.
    expect((await r.reconcile(ZONE, noAbort)).requeueAfterMs).toBe(598_000);
    expect(await inSync()).toBeUndefined();
    // A change served later schedules no look either.
    await putRRset(store, { orgId, zone: ZONE, actor: 't', cnameConflict: checkCnameConflict, quota: { plan: 'free', rrsets: 5000, bytes: 5 << 20 }, rrset: { name: `www.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] } });
    expect((await r.reconcile(ZONE, noAbort)).requeueAfterMs).toBe(598_000);
    expect(ns.actions.map((a) => a.op)).toContain('applyChanges');
  });
});
