/**
 * SOA serials at the top of their 32-bit range (RFC 1982): through the in-process API, a zone whose serial
 * reached 2^32-1 goes on taking writes, and can be deleted and created again; then, with a real knotd as
 * the primary and another knotd as its secondary, the wrapped serial is served and the secondary, by its
 * own serial comparison, takes it as newer and transfers the zone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { createKnotNameserver, findKnot, type KnotNameserver } from '../../providers/nameserver/knot';
import { zoneReconciler } from '../../reconcilers/zones';
import { zones } from '../../store/schema';
import { recordStatus } from '../../store/status';
import { ZONE_STATUS, zoneByName } from '../../store/zones';
import { serialGreater } from '../../zonefiles';
import { startTestApi, type TestApi } from '../helpers/app';
import { query, type Server } from '../../harness/dns';
import { freePort, hasKnot, knotTitle } from '../helpers/knot';
import { tempDir, cleanup } from '../helpers/proc';

const TOP = 4_294_967_295;
const zonePath = (zone: string) => `/v1/orgs/acme/dns/zones/${zone}`;

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi();
});
afterAll(async () => {
  await t.close();
});

async function create(zone: string): Promise<number> {
  const r = await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: zone } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.serial as number;
}

const setSerial = async (zone: string, serial: number): Promise<void> => {
  await t.store.db.update(zones).set({ serial }).where(eq(zones.name, zone));
};

async function serialOf(zone: string): Promise<number> {
  const r = await t.call('GET', zonePath(zone));
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.serial as number;
}

const putTxt = (zone: string, name: string, value: string) =>
  t.call('PUT', `${zonePath(zone)}/rrsets/${name}/TXT`, { body: { records: [{ content: value }], ttl: 300 } });

describe('SOA serials through the API, past 2^32 - 1 (RFC 1982)', () => {
  it('a zone at serial 2^32-1 accepts writes: its serial wraps to one that follows', async () => {
    const zone = 'top.example';
    await create(zone);
    await setSerial(zone, TOP);

    const put = await putTxt(zone, `a.${zone}`, 'after the top');
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const wrapped = await serialOf(zone);
    expect(wrapped).toBeLessThan(TOP);
    expect(serialGreater(wrapped, TOP)).toBe(true);

    expect((await putTxt(zone, `b.${zone}`, 'and on')).status).toBe(200);
    expect((await t.call('DELETE', `${zonePath(zone)}/rrsets/a.${zone}/TXT`)).status).toBe(204);
    const later = await serialOf(zone);
    expect(serialGreater(later, wrapped)).toBe(true);
  });

  it('a zone deleted at serial 2^32-1 can be created again, with a serial after the old one', async () => {
    const zone = 'reborn-top.example';
    await create(zone);
    await setSerial(zone, TOP);
    expect((await t.call('DELETE', zonePath(zone))).status).toBe(204);

    const again = await create(zone);
    expect(serialGreater(again, TOP)).toBe(true);
    expect((await putTxt(zone, zone, 'back')).status).toBe(200);
  });

  it('a zone created again follows the later of its stored and its served serial, in RFC 1982 terms', async () => {
    const zone = 'later.example';
    const dated = await create(zone);
    // The signer served a serial just past today's date form; the stored one is numerically larger but,
    // more than 2^31 ahead of it, earlier.
    const served = dated + 5;
    const stored = served + 2 ** 31 + 100;
    expect(serialGreater(served, stored)).toBe(true);
    await setSerial(zone, stored);
    await recordStatus(t.store, ZONE_STATUS, zone, {
      uid: (await zoneByName(t.store, zone))!.uid, generation: 1, lastError: null, facts: { servedSerial: served, renderedSerial: served },
    });
    expect((await t.call('DELETE', zonePath(zone))).status).toBe(204);

    const again = await create(zone);
    expect(serialGreater(again, served)).toBe(true);
    expect(serialGreater(again, stored)).toBe(true);
  });
});

const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];

async function servedSerial(server: Server, zone: string): Promise<number | null> {
  const r = await query(server, zone, 'SOA', { timeoutMs: 500 }).catch(() => null);
  const soa = r?.rcode === 'NOERROR' ? r.answers?.find((a) => a.type === 'SOA') : undefined;
  return soa && soa.type === 'SOA' ? (soa.data.serial ?? null) : null;
}

async function waitFor<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A plain knotd secondary of `zone`, taking NOTIFY from and transferring off the primary at `primaryPort`. */
function startSecondary(dir: string, port: number, primaryPort: number, zone: string): ChildProcess {
  for (const d of ['run', 'db', 'zones']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'knot.conf'), [
    'server:',
    `    rundir: "${dir}/run"`,
    `    listen: 127.0.0.1@${port}`,
    'database:',
    `    storage: "${dir}/db"`,
    'remote:',
    '  - id: primary',
    `    address: 127.0.0.1@${primaryPort}`,
    'acl:',
    '  - id: from_primary',
    '    address: 127.0.0.1',
    '    action: notify',
    'template:',
    '  - id: default',
    `    storage: "${dir}/zones"`,
    'zone:',
    `  - domain: ${zone}.`,
    '    master: primary',
    '    acl: from_primary',
    '',
  ].join('\n'));
  return spawn(findKnot()!.knotd, ['-c', join(dir, 'knot.conf')], { stdio: 'ignore' });
}

describe.skipIf(!hasKnot())(knotTitle('a wrapped serial served by knotd and followed by a knotd secondary'), () => {
  let primary: KnotNameserver;
  let secondary: ChildProcess | undefined;
  afterAll(async () => {
    if (secondary && secondary.exitCode === null) {
      const exited = new Promise((r) => secondary!.once('exit', r));
      secondary.kill('SIGTERM');
      await exited;
    }
    await primary?.stop();
    await cleanup();
  });

  it('serves the serial that follows 2^32-1, and the secondary transfers the zone at it', async () => {
    const zone = 'wrap.example';
    await create(zone);
    await setSerial(zone, TOP);
    const dir = tempDir('hostplane-serial-');
    const [primaryPort, secondaryPort] = [await freePort(), await freePort()];
    primary = createKnotNameserver({
      dir: join(dir, 'knot'), zonesDir: join(dir, 'zones'), listen: `127.0.0.1:${primaryPort}`, notify: [`127.0.0.1:${secondaryPort}`],
    });
    await primary.start([]);
    const reconciler = zoneReconciler({ store: t.store, nameserver: primary, resolver: { ns: async () => [] }, nameservers: NS, log: silent });
    const noAbort = new AbortController().signal;
    const primaryServer = { host: '127.0.0.1', port: primaryPort };
    const secondaryServer = { host: '127.0.0.1', port: secondaryPort };

    await reconciler.reconcile(zone, noAbort);
    expect(await servedSerial(primaryServer, zone)).toBe(TOP);
    secondary = startSecondary(join(dir, 'secondary'), secondaryPort, primaryPort, zone);
    await waitFor('the secondary at 2^32-1', () => servedSerial(secondaryServer, zone), (s) => s === TOP);

    expect((await putTxt(zone, `new.${zone}`, 'written at the top')).status).toBe(200);
    await reconciler.reconcile(zone, noAbort);
    const wrapped = (await zoneByName(t.store, zone))!.serial;
    expect(wrapped).toBeLessThan(TOP);
    expect(await servedSerial(primaryServer, zone)).toBe(wrapped);

    // knotd's own RFC 1982 check: a secondary that took the wrapped serial as older would keep 2^32-1.
    await waitFor('the secondary at the wrapped serial', () => servedSerial(secondaryServer, zone), (s) => s === wrapped);
    const txt = await query(secondaryServer, `new.${zone}`, 'TXT');
    expect(txt.answers?.map((a) => a.type)).toEqual(['TXT']);
  });
});
