/**
 * Issue 7 item 1 against a real knotd: a zone's lifetime, not its name, owns what the nameserver holds.
 * A zone deleted and created again by another organization (in one reconcile pass, in one second) is served
 * with the new owner's records and DNSSEC keys only; a deletion whose reconcile never ran (the process died
 * after the 204) is finished after a restart; a zone knotd holds that the store never had is removed.
 */
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { createKnotNameserver, type KnotNameserver, type KnotNameserverOptions } from '../../providers/nameserver/knot';
import { zoneReconciler } from '../../reconcilers/zones';
import type { Reconciler } from '../../reconcilers/types';
import { finalizersOf } from '../../store/finalizers';
import { deleteZone, zoneByName } from '../../store/zones';
import { startTestApi, type TestApi } from '../helpers/app';
import { query, type Server } from '../../harness/dns';
import { hasKnot, knotTitle } from '../helpers/knot';
import { cleanup, tempDir } from '../helpers/proc';

const NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const noAbort = new AbortController().signal;

describe.skipIf(!hasKnot())(knotTitle('zone lifetimes and finalizers against knotd'), () => {
  let t: TestApi;
  let ns: KnotNameserver;
  let opts: KnotNameserverOptions;
  let dns: Server;
  let r: Reconciler;

  /** Each start's knotd takes a port of its own (port 0): one picked once could be another process's by the next. */
  const start = async (): Promise<void> => {
    ns = createKnotNameserver(opts);
    await ns.start([]);
    dns = ns.address();
    r = zoneReconciler({ store: t.store, nameserver: ns, resolver: { ns: async () => [] }, nameservers: NS, log: silent });
  };
  /** What the runner does at start: every key it lists, reconciled. */
  const resync = async (): Promise<void> => {
    for (const key of await r.keys()) await r.reconcile(key, noAbort);
  };
  const as = (org: 'acme' | 'globex') => ({ token: org === 'acme' ? t.tokens.admin : t.other.token });
  const zones = (org: string) => `/v1/orgs/${org}/dns/zones`;
  const a = async (name: string) => ((await query(dns, name, 'A')).answers ?? []).flatMap((x) => (x.type === 'A' ? [x.data] : []));
  const dnskeys = async (zone: string) => ((await query(dns, zone, 'DNSKEY', { dnssecOk: true })).answers ?? [])
    .flatMap((x) => (x.type === 'DNSKEY' ? [Buffer.from(x.data.key).toString('base64')] : [])).sort();

  beforeAll(async () => {
    t = await startTestApi({ plan: 'pro' });
    const dir = tempDir('hostplane-lifetimes-');
    opts = { dir: join(dir, 'knot'), zonesDir: join(dir, 'zones'), listen: '127.0.0.1:0' };
    await start();
  });
  afterAll(async () => {
    await ns?.stop();
    await t?.close();
    await cleanup();
  });

  async function servedSignedByAcme(zone: string): Promise<string[]> {
    expect((await t.call('POST', zones('acme'), { ...as('acme'), body: { name: zone } })).status).toBe(200);
    expect((await t.call('PUT', `${zones('acme')}/${zone}/rrsets/www.${zone}/A`, { ...as('acme'), body: { records: [{ content: '192.0.2.1' }] } })).status).toBe(200);
    expect((await t.call('POST', `${zones('acme')}/${zone}/dnssec`, { ...as('acme'), body: { enabled: true } })).status).toBe(200);
    await r.reconcile(zone, noAbort);
    const keys = await dnskeys(zone);
    expect(keys.length).toBeGreaterThan(0);
    expect(await a(`www.${zone}`)).toEqual(['192.0.2.1']);
    return keys;
  }

  it('deleted and created again by another organization in one pass and one second: only the new owner\'s records and keys', async () => {
    const zone = 'shared.test';
    const acmeKeys = await servedSignedByAcme(zone);
    // Both changes land before the reconciler runs again, within the same second.
    expect((await t.call('DELETE', `${zones('acme')}/${zone}`, as('acme'))).status).toBe(204);
    expect((await t.call('POST', zones('globex'), { ...as('globex'), body: { name: zone } })).status).toBe(200);
    expect((await t.call('PUT', `${zones('globex')}/${zone}/rrsets/mail.${zone}/A`, { ...as('globex'), body: { records: [{ content: '198.51.100.7' }] } })).status).toBe(200);
    expect((await t.call('POST', `${zones('globex')}/${zone}/dnssec`, { ...as('globex'), body: { enabled: true } })).status).toBe(200);
    await r.reconcile(zone, noAbort);

    expect(await a(`www.${zone}`)).toEqual([]);
    expect(await a(`mail.${zone}`)).toEqual(['198.51.100.7']);
    const globexKeys = await dnskeys(zone);
    expect(globexKeys.length).toBeGreaterThan(0);
    expect(globexKeys.filter((k) => acmeKeys.includes(k))).toEqual([]);
    expect(await finalizersOf(t.store, 'zone', zone)).toEqual([]);
    const st = (await t.call('GET', `${zones('globex')}/${zone}`, as('globex'))).body.status;
    expect(st.ready).toBe(true);
  });

  it('a deletion whose reconcile never ran (the process died after the 204) is finished after a restart', async () => {
    const zone = 'crashed.test';
    await servedSignedByAcme(zone);
    await ns.stop();
    // The API's DELETE committed; nothing converged it before the crash.
    const orgId = (await zoneByName(t.store, zone))!.orgId;
    await deleteZone(t.store, { orgId, name: zone, actor: 'test' });
    await start();
    expect(await finalizersOf(t.store, 'zone', zone)).toHaveLength(1);
    await resync();
    expect((await query(dns, zone, 'SOA')).rcode).toBe('REFUSED');
    expect(await ns.zones()).not.toContain(zone);
    expect(await finalizersOf(t.store, 'zone', zone)).toEqual([]);
    // Created again, it is signed with new keys: the old ones were purged with it.
    expect((await t.call('POST', zones('acme'), { ...as('acme'), body: { name: zone } })).status).toBe(200);
    await r.reconcile(zone, noAbort);
    expect((await query(dns, zone, 'SOA')).rcode).toBe('NOERROR');
  });

  it('a zone knotd holds that the store never had is removed', async () => {
    const zone = 'stray.test';
    const text = `$ORIGIN ${zone}.\n@ 300 IN SOA ns1.hostplane.test. hostmaster.${zone}. 1 3600 600 604800 300\n@ 300 IN NS ns1.hostplane.test.\n`;
    await ns.applyZone(zone, text, { dnssec: false });
    await ns.stop();
    await start();
    expect((await query(dns, zone, 'SOA')).rcode).toBe('NOERROR');
    expect(await zoneByName(t.store, zone)).toBeUndefined();
    await resync();
    expect((await query(dns, zone, 'SOA')).rcode).toBe('REFUSED');
    expect(await ns.zones()).not.toContain(zone);
  });
});
