/**
 * The Knot DNS adapter against a real knotd: each test starts its own in a temp dir on its own loopback
 * port, writes zones through the adapter and checks what a resolver (or a secondary) gets back over DNS.
 */
import { processAlive } from '../../../lib/process-alive';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dnsPacket, { type Answer } from 'dns-packet';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { AddressInUseError, createKnotNameserver, findKnot, type KnotNameserver, type KnotNameserverOptions } from '../../../providers/nameserver/knot';
import { knotPaths } from '../../../providers/nameserver/knot-config';
import { StaleSerialError, ZoneFileNotWrittenError, type ZoneConfig } from '../../../providers/nameserver/port';
import { query, txtValue, type Server } from '../../../harness/dns';
import { freePort, hasKnot, knotTitle } from '../../helpers/knot';
import { until } from '../../helpers/proc';
import { captureLogger } from '../../helpers/log';
import { renderCatalog } from '../../../zonefiles/catalog';

/** Holds the adapter's writes of one zone's file (replaceFile) until released, for the test that needs a write under way. */
const fileGate = vi.hoisted(() => ({ held: null as { zone: string; reached: () => void; until: Promise<void> } | null }));
vi.mock('../../../lib/files', async (original) => {
  const files = await original<typeof import('../../../lib/files')>();
  return {
    ...files,
    replaceFile: async (...args: Parameters<typeof files.replaceFile>): Promise<void> => {
      const held = fileGate.held;
      if (held && args[0].includes(held.zone)) {
        held.reached();
        await held.until;
      }
      return files.replaceFile(...args);
    },
  };
});

const ZONE = 'example.test';
const TXT_PARTS = ['a'.repeat(255), 'b'.repeat(255), 'c'.repeat(100)];

function zoneText(serial: number, opts: { www?: string; extra?: string[] } = {}): string {
  return [
    `$ORIGIN ${ZONE}.`,
    `@ 300 IN SOA ns1.${ZONE}. hostmaster.${ZONE}. ${serial} 3600 600 604800 300`,
    `@ 300 IN NS ns1.${ZONE}.`,
    'ns1 300 IN A 192.0.2.53',
    `www 300 IN A ${opts.www ?? '192.0.2.1'}`,
    `txt 300 IN TXT ${TXT_PARTS.map((p) => `"${p}"`).join(' ')}`,
    ...(opts.extra ?? []),
    '',
  ].join('\n');
}

interface Started {
  ns: KnotNameserver;
  server: Server;
  dir: string;
  opts: KnotNameserverOptions;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostplane-knot-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startKnot(zones: ZoneConfig[] = [], extra: Partial<KnotNameserverOptions> = {}): Promise<Started> {
  const dir = tempDir();
  // Port 0: each start, this one and a test's restart on `opts`, has knotd take a port of its own.
  const opts = { dir: join(dir, 'knot'), zonesDir: join(dir, 'zones'), listen: '127.0.0.1:0', ...extra };
  const ns = createKnotNameserver(opts);
  cleanups.push(() => ns.stop());
  await ns.start(zones);
  return { ns, server: ns.address(), dir, opts };
}


/** The RDATA of any answer but OPT (which has none). */
const rdata = (a: Answer | undefined): unknown => (a && 'data' in a ? a.data : undefined);

async function aRecords(server: Server, name: string): Promise<string[]> {
  const response = await query(server, name, 'A');
  return (response.answers ?? []).filter((a) => a.type === 'A').map((a) => rdata(a) as string);
}

/** The zone's DNSKEY set as served, comparable between servers. */
async function dnskeys(server: Server): Promise<string[]> {
  return ((await query(server, ZONE, 'DNSKEY')).answers ?? []).filter((a) => a.type === 'DNSKEY').map((a) => JSON.stringify(rdata(a))).sort();
}

describe.skipIf(!hasKnot())(knotTitle('knot nameserver adapter'), () => {
  it('serves an applied zone: A, NS and a TXT of three strings', async () => {
    const { ns, server } = await startKnot();
    expect(await ns.servedSerial(ZONE)).toBeNull();

    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });

    expect(await aRecords(server, `www.${ZONE}`)).toEqual(['192.0.2.1']);
    const nsAnswer = await query(server, ZONE, 'NS');
    expect(nsAnswer.flag_aa).toBe(true);
    expect(nsAnswer.answers?.map(rdata)).toEqual([`ns1.${ZONE}`]);
    const txt = await query(server, `txt.${ZONE}`, 'TXT');
    expect(txt.flag_tc).toBe(false);
    const [answer] = txt.answers ?? [];
    expect(rdata(answer)).toHaveLength(3);
    expect(txtValue(answer!).toString()).toBe(TXT_PARTS.join(''));
    expect(await ns.servedSerial(ZONE)).toBe(1);
    // Without secondaries nobody may transfer the zone.
    expect((await query(server, ZONE, 'AXFR', { tcp: true })).rcode).not.toBe('NOERROR');
  });

  it('serves a changed zone as soon as applyZone resolves; applying it again changes nothing', async () => {
    const { ns, server, opts } = await startKnot();
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });

    await ns.applyZone(ZONE, zoneText(2, { www: '192.0.2.2' }), { dnssec: false });
    expect(await aRecords(server, `www.${ZONE}`)).toEqual(['192.0.2.2']);
    expect(await ns.servedSerial(ZONE)).toBe(2);

    await ns.applyZone(ZONE, zoneText(2, { www: '192.0.2.2' }), { dnssec: false });
    expect(await ns.servedSerial(ZONE)).toBe(2);
    expect(readFileSync(join(opts.zonesDir, `${ZONE}.zone`), 'utf8')).toBe(zoneText(2, { www: '192.0.2.2' }));
  });

  it('refuses a changed zone whose serial is not above the served one', async () => {
    const { ns, server } = await startKnot();
    await ns.applyZone(ZONE, zoneText(5), { dnssec: false });

    for (const serial of [5, 4]) {
      const err = await ns.applyZone(ZONE, zoneText(serial, { www: '192.0.2.9' }), { dnssec: false }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StaleSerialError);
      expect(err).toMatchObject({ zone: ZONE, serial, served: 5 });
    }
    expect(await aRecords(server, `www.${ZONE}`)).toEqual(['192.0.2.1']);
  });

  it('rejects a zone text knotd cannot load, with its reason, and keeps serving the previous one', async () => {
    const { ns, server, opts } = await startKnot();
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });

    const bad = zoneText(2, { www: 'not-an-address' });
    await expect(ns.applyZone(ZONE, bad, { dnssec: false })).rejects.toThrow(/zone-reload.*failed.*knotd:.*line 5/);

    expect(await aRecords(server, `www.${ZONE}`)).toEqual(['192.0.2.1']);
    expect(readFileSync(join(opts.zonesDir, `${ZONE}.zone`), 'utf8')).toBe(zoneText(1));
    // A new zone that fails to load is not left configured, nor its file on disk.
    await expect(ns.applyZone('other.test', bad.replaceAll(ZONE, 'other.test'), { dnssec: false })).rejects.toThrow(/line 5/);
    expect(readFileSync(join(opts.dir, 'knot.conf'), 'utf8')).not.toContain('other.test');
    expect(() => readFileSync(join(opts.zonesDir, 'other.test.zone'))).toThrow(/ENOENT/);
    await expect(ns.applyZone('other.test', 'no soa here\n', { dnssec: false })).rejects.toThrow(/no SOA/);
  });

  it('signs a zone (DNSKEY, RRSIG, DS) and unsigns it again with a higher serial', async () => {
    const { ns, server } = await startKnot();
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    expect(await ns.ds(ZONE)).toEqual([]);

    await ns.applyZone(ZONE, zoneText(2), { dnssec: true });
    const soa = await query(server, ZONE, 'SOA', { dnssecOk: true });
    expect(soa.answers?.map((a) => a.type)).toEqual(['SOA', 'RRSIG']);
    const dnskey = await query(server, ZONE, 'DNSKEY', { dnssecOk: true });
    expect(dnskey.answers?.filter((a) => a.type === 'DNSKEY').length).toBeGreaterThanOrEqual(2);
    expect(dnskey.answers?.some((a) => a.type === 'RRSIG')).toBe(true);
    const served = await ns.servedSerial(ZONE);
    expect(served).toBeGreaterThan(2);
    const ds = await ns.ds(ZONE);
    expect(ds.length).toBeGreaterThanOrEqual(1);
    for (const d of ds) expect(d).toMatchObject({ algorithm: 13, digest: expect.stringMatching(/^[0-9A-F]{64,96}$/) });

    // The same text again is a no-op, even though knotd serves a higher serial than the text's.
    await ns.applyZone(ZONE, zoneText(2), { dnssec: true });
    expect(await ns.servedSerial(ZONE)).toBe(served);

    // A transaction on a signed zone is signed as it commits, and keeps the serial it sets. The commit's answer does
    // not say so (a signer may serve its own): the caller asks.
    const changed = zoneText(served! + 1, { extra: ['new 300 IN A 192.0.2.99'] });
    const soaLine = (serial: number): string => `@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. ${serial} 3600 600 604800 300`;
    await expect(ns.applyChanges(ZONE, { remove: [], add: [soaLine(served! + 1), `new.${ZONE} 300 A 192.0.2.99`] }, changed)).resolves.toBeNull();
    expect((await query(server, `new.${ZONE}`, 'A', { dnssecOk: true })).answers?.map((a) => a.type)).toEqual(['A', 'RRSIG']);
    expect(await ns.servedSerial(ZONE)).toBe(served! + 1);

    // Unsigned, knotd would replay its signing changeset onto a text with the old serial.
    await expect(ns.applyZone(ZONE, zoneText(served! + 1), { dnssec: false })).rejects.toBeInstanceOf(StaleSerialError);
    await ns.applyZone(ZONE, zoneText(served! + 2), { dnssec: false });
    const unsigned = await query(server, ZONE, 'SOA', { dnssecOk: true });
    expect(unsigned.answers?.map((a) => a.type)).toEqual(['SOA']);
    expect((await query(server, ZONE, 'DNSKEY', { dnssecOk: true })).answers).toEqual([]);
    expect((await query(server, `www.${ZONE}`, 'A', { dnssecOk: true })).answers?.map((a) => a.type)).toEqual(['A']);
    expect(await ns.servedSerial(ZONE)).toBe(served! + 2);
    expect(await ns.ds(ZONE)).toEqual([]);
  });

  it('sends secondaries a minimal IXFR of a signed zone\'s change, and on the way to off asks the parent to delete the DS', async () => {
    const secondary = await freePort();
    const { ns, server } = await startKnot([], { notify: [`127.0.0.1:${secondary}`] });
    await ns.applyZone(ZONE, zoneText(10), { dnssec: true });
    const signed = (await ns.servedSerial(ZONE))!;
    const kdig = (...args: string[]): string => execFileSync('kdig', [`@127.0.0.1`, '-p', String(server.port), '+noall', '+answer', ...args], { encoding: 'utf8' });
    // One A record changed in a file reload (zonefile-load: difference): the IXFR holds that record and the
    // signatures it needs, not the zone signed anew.
    await ns.applyZone(ZONE, zoneText(signed + 1, { www: '192.0.2.77' }), { dnssec: true });
    const ixfr = kdig(ZONE, `IXFR=${signed}`).trim().split('\n').map((l) => l.split(/\s+/));
    const types = ixfr.map((f) => `${f[0]} ${f[3]}${f[3] === 'RRSIG' ? ` ${f[4]}` : ''}`);
    expect(types.filter((t) => !t.endsWith(' SOA') && !t.endsWith('RRSIG SOA')).sort()).toEqual([
      `www.${ZONE}. A`, `www.${ZONE}. A`, `www.${ZONE}. RRSIG A`, `www.${ZONE}. RRSIG A`,
    ]);
    expect(ixfr.filter((f) => f[3] === 'A').map((f) => f[4])).toEqual(['192.0.2.1', '192.0.2.77']);
    // knotd generates no catalog of its own (reconcilers/zones/catalog.ts writes it).
    expect(kdig('catalog.invalid', 'SOA')).toBe('');
    expect(await ns.zones()).toEqual([ZONE]);

    const keys = (await ns.ds(ZONE)).map((d) => d.keyTag);
    await ns.confirmDs(ZONE);
    // Confirming the KSK re-signed the zone: the text goes above the served serial.
    await ns.applyZone(ZONE, zoneText((await ns.servedSerial(ZONE))! + 1, { www: '192.0.2.77' }), { dnssec: true, deleteDs: true });
    expect(kdig(ZONE, 'CDS')).toMatch(/CDS\s+0 0 0 00/);
    expect(kdig(ZONE, 'CDNSKEY')).toMatch(/CDNSKEY\s+0 3 0 AA==/);
    // Still signed with the same keys while the parent may publish the DS.
    expect((await ns.ds(ZONE)).map((d) => d.keyTag)).toEqual(keys);
    expect((await query(server, `www.${ZONE}`, 'A', { dnssecOk: true })).answers?.map((a) => a.type)).toEqual(['A', 'RRSIG']);
    await ns.notifySecondaries(ZONE);
    expect(await ns.secondarySerials(ZONE)).toEqual([{ address: `127.0.0.1:${secondary}`, serial: null }]);
  });

  it('logs what knotd says of its zones, not each control command it received: a change is no lines to read on its way', async () => {
    const { log, text } = captureLogger();
    const { ns } = await startKnot([], { logger: log });
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    const soa = `@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. 2 3600 600 604800 300`;
    await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa, `www.${ZONE} 300 A 192.0.2.2`] }, null);
    await until('the zone\'s lines', async () => (text().includes(`knotd: [${ZONE}.]`) ? true : undefined), 5000, 10);
    expect(text()).not.toContain('received command');
  });

  it('says at info, not as a warning, that it serves no zones yet: a first start is no trouble', async () => {
    const { log, text } = captureLogger();
    await startKnot([], { logger: log });
    const said = await until('knotd\'s "no zones loaded"', async () => text().split('\n').find((l) => l.includes('knotd: no zones loaded')), 5000, 10);
    expect(JSON.parse(said).level).toBe(30);
  });

  it('sends a change at once and commits it only once notBefore resolves', async () => {
    const { ns, server } = await startKnot();
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    const soa = (serial: number): string => `@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. ${serial} 3600 600 604800 300`;
    // A thenable, to see when applyChanges awaits it: once knotd answered the transaction's commands.
    let release!: () => void;
    const gate = new Promise<void>((res) => { release = res; });
    let awaited = false;
    const notBefore = { then: (ok: () => void, fail: (e: unknown) => void) => { awaited = true; return gate.then(ok, fail); } } as unknown as Promise<void>;
    let done = false;
    const applying = ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(2), `www.${ZONE} 300 A 192.0.2.2`] }, zoneText(2, { www: '192.0.2.2' }), { notBefore });
    void applying.finally(() => { done = true; });
    await until('the transaction sent', async () => (awaited ? true : undefined), 5000, 5);
    expect(await aRecords(server, `www.${ZONE}`)).toEqual(['192.0.2.1']);
    expect([await ns.servedSerial(ZONE), done]).toEqual([1, false]);
    release();
    await applying;
    expect(await aRecords(server, `www.${ZONE}`)).toEqual(['192.0.2.2']);
    expect(await ns.servedSerial(ZONE)).toBe(2);
  });

  it('keeps a change\'s control connection for the next, and holds neither a knotc command nor knotd\'s stop behind it', async () => {
    // Kept longer than knotd's control timeout (5 s): a knotc command waiting behind the connection would wait that long.
    const { ns } = await startKnot([], { controlKeptMs: 60_000 });
    const OTHER = 'other.test';
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    const soa = (serial: number): string => `@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. ${serial} 3600 600 604800 300`;
    await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(2), `www.${ZONE} 300 A 192.0.2.2`] }, null);
    await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(3), `www.${ZONE} 300 A 192.0.2.3`] }, null);
    // A new zone is a configuration transaction of knotc processes.
    const started = performance.now();
    await ns.applyZone(OTHER, zoneText(1).replaceAll(ZONE, OTHER), { dnssec: false });
    expect(performance.now() - started).toBeLessThan(4000);
    expect(await ns.servedSerial(ZONE)).toBe(3);
    expect(await ns.servedSerial(OTHER)).toBe(1);
    // knotd stops between control connections: not held until it drops the kept one.
    await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(4), `www.${ZONE} 300 A 192.0.2.4`] }, null);
    const stopping = performance.now();
    await ns.stop();
    expect(performance.now() - stopping).toBeLessThan(4000);
  }, 30_000);

  it('gives the control connection back once a change committed, not once its large zone file is written: another zone\'s change goes meanwhile', async () => {
    const { ns, server, opts } = await startKnot();
    const OTHER = 'other.test';
    const soa = (zone: string, serial: number): string => `@ 300 SOA ns1.${zone}. hostmaster.${zone}. ${serial} 3600 600 604800 300`;
    // A text past the size put in place before the commit (64 KiB) is written after it.
    const filler = Array.from({ length: 400 }, (_, i) => `f${i} 300 IN TXT "${'x'.repeat(200)}"`);
    await ns.applyZone(ZONE, zoneText(1, { extra: filler }), { dnssec: false });
    await ns.applyZone(OTHER, zoneText(1).replaceAll(ZONE, OTHER), { dnssec: false });
    const large = zoneText(2, { www: '192.0.2.2', extra: filler });
    expect(large.length).toBeGreaterThan(64 * 1024);
    let reached!: () => void;
    const writing = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release!: () => void;
    fileGate.held = { zone: ZONE, reached, until: new Promise<void>((resolve) => {
      release = resolve;
    }) };
    // Not a finally, which a test that times out never runs: the gate would then hold every later test's write of
    // ZONE's file for good.
    onTestFinished(() => {
      fileGate.held = null;
      release();
    });
    const applying = ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(ZONE, 2), `www.${ZONE} 300 A 192.0.2.2`] }, large);
    await writing;
    expect(await aRecords(server, `www.${ZONE}`)).toEqual(['192.0.2.2']);
    // Held until the file is written, the connection would keep knotd's control from the other zone's change until
    // knotd dropped it (its control timeout, 5 s).
    const started = performance.now();
    await ns.applyChanges(OTHER, { remove: [`www.${OTHER} A`], add: [soa(OTHER, 2), `www.${OTHER} 300 A 192.0.2.9`] }, null);
    expect(performance.now() - started).toBeLessThan(4000);
    expect(await aRecords(server, `www.${OTHER}`)).toEqual(['192.0.2.9']);
    release();
    await applying;
    expect(readFileSync(join(opts.zonesDir, `${ZONE}.zone`), 'utf8')).toBe(large);
  }, 30_000);

  it('reports a change whose large zone file could not be written after its commit as served, its file to be saved later', async () => {
    const { ns, server, opts } = await startKnot();
    const soa = (serial: number): string => `@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. ${serial} 3600 600 604800 300`;
    const filler = Array.from({ length: 400 }, (_, i) => `f${i} 300 IN TXT "${'x'.repeat(200)}"`);
    await ns.applyZone(ZONE, zoneText(1, { extra: filler }), { dnssec: false });
    const large = zoneText(2, { www: '192.0.2.2', extra: filler });
    const full = Promise.reject(new Error('ENOSPC: no space left on device'));
    full.catch(() => undefined);
    fileGate.held = { zone: ZONE, reached: () => undefined, until: full };
    onTestFinished(() => {
      fileGate.held = null;
    });
    const failed = await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(2), `www.${ZONE} 300 A 192.0.2.2`] }, large)
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ZoneFileNotWrittenError);
    expect(failed).toMatchObject({ zone: ZONE, committed: 2, message: expect.stringMatching(/ENOSPC/) });
    expect(await aRecords(server, `www.${ZONE}`)).toEqual(['192.0.2.2']);
    expect(await ns.servedSerial(ZONE)).toBe(2);
    expect(readFileSync(join(opts.zonesDir, `${ZONE}.zone`), 'utf8')).toBe(zoneText(1, { extra: filler }));
    fileGate.held = null;
    await expect(ns.saveZoneFile(ZONE, large)).resolves.toBe(true);
    expect(readFileSync(join(opts.zonesDir, `${ZONE}.zone`), 'utf8')).toBe(large);
    // Nothing was left open: the next change commits.
    await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(3), `www.${ZONE} 300 A 192.0.2.3`] }, null);
    expect(await ns.servedSerial(ZONE)).toBe(3);
  }, 30_000);

  it('reports a zone served from its journal whose lagging file applyZone asServed could not write as served, its file to be saved later', async () => {
    const { ns, opts } = await startKnot();
    const file = join(opts.zonesDir, `${ZONE}.zone`);
    const soa = (serial: number): string => `@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. ${serial} 3600 600 604800 300`;
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(2), `www.${ZONE} 300 A 192.0.2.2`] }, null);
    // serve restarted before the file was written: this process has applied nothing yet.
    await ns.stop();
    const again = createKnotNameserver(opts);
    cleanups.push(() => again.stop());
    await again.start([{ name: ZONE, dnssec: false }]);
    await until('the change served again', async () => ((await again.servedSerial(ZONE)) === 2 ? true : undefined), 5000, 25);
    const full = Promise.reject(new Error('ENOSPC: no space left on device'));
    full.catch(() => undefined);
    fileGate.held = { zone: ZONE, reached: () => undefined, until: full };
    onTestFinished(() => {
      fileGate.held = null;
    });
    const text2 = zoneText(2, { www: '192.0.2.2' });
    const failed = await again.applyZone(ZONE, text2, { dnssec: false, asServed: true }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ZoneFileNotWrittenError);
    expect(failed).toMatchObject({ zone: ZONE, committed: 2 });
    expect(await again.servedSerial(ZONE)).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe(zoneText(1));
    fileGate.held = null;
    await expect(again.saveZoneFile(ZONE, text2)).resolves.toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(text2);
  }, 30_000);

  it('gives another program\'s knotc its turn during a stream of changes that keeps the control connection busy', async () => {
    const { ns, opts } = await startKnot([], { controlKeptMs: 200 });
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    const soa = (serial: number): string => `@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. ${serial} 3600 600 604800 300`;
    // An operator's knotc waits behind the connection a change keeps; changes one after another never leave it idle.
    let answered = false;
    const knotc = new Promise<string>((resolve, reject) => {
      execFile(findKnot()!.knotc, ['-s', knotPaths(opts.dir).socket, 'status'], (err, stdout) => (err ? reject(err) : resolve(stdout)));
    }).finally(() => {
      answered = true;
    });
    const most = 500;
    let serial = 1;
    while (!answered && serial < most) {
      serial++;
      await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(serial), `www.${ZONE} 300 A 192.0.2.${serial % 250}`] }, null);
    }
    expect(await knotc).toMatch(/Running/);
    expect(serial).toBeLessThan(most);
    expect(await ns.servedSerial(ZONE)).toBe(serial);
  }, 60_000);

  it('sends no change on a kept control connection that knotd dropped while this process stalled past its control timeout', async () => {
    const { ns } = await startKnot();
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    const soa = (serial: number): string => `@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. ${serial} 3600 600 604800 300`;
    await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(2), `www.${ZONE} 300 A 192.0.2.2`] }, null);
    // A synchronous step longer than knotd's control timeout (5 s): the timer that closes the kept connection has
    // not run, and the change's first commands go out before this process reads that knotd closed it.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6000);
    await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(3), `www.${ZONE} 300 A 192.0.2.3`] }, null);
    expect(await ns.servedSerial(ZONE)).toBe(3);
  }, 30_000);

  it('leaves no transaction open in knotd when knotd dropped the connection of one held open past its control timeout', async () => {
    const { ns } = await startKnot();
    const OTHER = 'other.test';
    const otherText = (serial: number): string => zoneText(serial).replaceAll(ZONE, OTHER);
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    await ns.applyZone(OTHER, otherText(1), { dnssec: false });
    // Begun while the pass reads its change (reconcilers/zones/apply.ts): reads that take longer than knotd's control
    // timeout (5 s by default, which knot-config.ts leaves as it is) outlast the connection, not the transaction.
    const txn = ns.openChanges!(ZONE);
    // knotd serves one control connection at a time: another zone's command goes through once knotd dropped the idle
    // one (no sleep: this is the moment it did).
    await ns.applyZone(OTHER, otherText(2), { dnssec: false });
    const soa = `@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. 2 3600 600 604800 300`;
    await txn.apply({ remove: [`www.${ZONE} A`], add: [soa, `www.${ZONE} 300 A 192.0.2.2`] }, zoneText(2, { www: '192.0.2.2' })).catch(() => undefined);
    // What the pass then does: load the zone whole. Its blocking zone-reload must not wait behind a transaction
    // nobody can end (knotd logs "blocked zone update due to open control transaction" and takes no other command
    // for any zone: every change, the catalog, NOTIFY wait until knotd restarts).
    await ns.applyZone(ZONE, zoneText(3, { www: '192.0.2.3' }), { dnssec: false });
    expect(await ns.servedSerial(ZONE)).toBe(3);
    await ns.applyZone(OTHER, otherText(3), { dnssec: false });
    expect(await ns.servedSerial(OTHER)).toBe(3);
  }, 30_000);

  it('leaves the zone file behind a change given no text, serves it across a restart of knotd, and writes the file only for the served text', async () => {
    const { ns, server, opts } = await startKnot();
    const file = join(opts.zonesDir, `${ZONE}.zone`);
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    const soa = (serial: number): string => `@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. ${serial} 3600 600 604800 300`;
    await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(2), `www.${ZONE} 300 A 192.0.2.2`] }, null);
    expect(await aRecords(server, `www.${ZONE}`)).toEqual(['192.0.2.2']);
    expect(readFileSync(file, 'utf8')).toBe(zoneText(1));
    // Only the text knotd serves is written: not an older one, not a later one.
    expect(await ns.saveZoneFile(ZONE, zoneText(1))).toBe(false);
    expect(await ns.saveZoneFile(ZONE, zoneText(3, { www: '192.0.2.2' }))).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(zoneText(1));

    // knotd alone restarted: the old file and its journal, so the change is still served.
    await ns.stop();
    const again = createKnotNameserver(opts);
    cleanups.push(() => again.stop());
    await again.start([{ name: ZONE, dnssec: false }]);
    await until('the change served again', async () => ((await again.servedSerial(ZONE)) === 2 ? true : undefined), 5000, 25);
    expect(await aRecords(again.address(), `www.${ZONE}`)).toEqual(['192.0.2.2']);
    // A text at the served serial is refused, unless the caller knows it is what is served: then its file catches up.
    const text2 = zoneText(2, { www: '192.0.2.2' });
    await expect(again.applyZone(ZONE, text2, { dnssec: false })).rejects.toBeInstanceOf(StaleSerialError);
    await again.applyZone(ZONE, text2, { dnssec: false, asServed: true });
    expect(readFileSync(file, 'utf8')).toBe(text2);
    expect(await again.servedSerial(ZONE)).toBe(2);
    await again.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(3), `www.${ZONE} 300 A 192.0.2.3`] }, null);
    const text3 = zoneText(3, { www: '192.0.2.3' });
    expect(await again.saveZoneFile(ZONE, text3)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(text3);
  });

  it('applies a change as one transaction, keeps the zone file in step, and a restart serves the same', async () => {
    const { ns, opts } = await startKnot();
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    // Quotes, an apostrophe and a semicolon: knotc's command line must pass them through untouched.
    const quoted = '"two words" "it\'s a \\"quote\\"; \\065"';
    const next = zoneText(2, { www: '192.0.2.7', extra: [`note 300 IN TXT ${quoted}`] });

    await ns.applyChanges(
      ZONE,
      {
        remove: [`www.${ZONE} A`, `${ZONE}. 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. 1 3600 600 604800 300`],
        add: [`@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. 2 3600 600 604800 300`, `www.${ZONE} 300 A 192.0.2.7`, `note.${ZONE}. 300 TXT ${quoted}`],
      },
      next,
    );

    const check = async (served: KnotNameserver): Promise<void> => {
      expect(await served.servedSerial(ZONE)).toBe(2);
      expect(await aRecords(served.address(), `www.${ZONE}`)).toEqual(['192.0.2.7']);
      const note = (await query(served.address(), `note.${ZONE}`, 'TXT')).answers?.[0];
      expect(rdata(note)).toEqual([Buffer.from('two words'), Buffer.from('it\'s a "quote"; A')]);
    };
    await check(ns);
    expect(readFileSync(join(opts.zonesDir, `${ZONE}.zone`), 'utf8')).toBe(next);

    // Applying it again, or the full text, is a no-op; a change that does not match the served zone aborts.
    await ns.applyChanges(ZONE, { remove: [], add: [`@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. 2 3600 600 604800 300`] }, next);
    await ns.applyZone(ZONE, next, { dnssec: false });
    const third = zoneText(3, { www: '192.0.2.7', extra: [`note 300 IN TXT ${quoted}`] });
    await expect(
      ns.applyChanges(ZONE, { remove: [`missing.${ZONE} A 192.0.2.1`], add: [`@ 300 SOA ns1.${ZONE}. hostmaster.${ZONE}. 3 3600 600 604800 300`] }, third),
    ).rejects.toThrow(/no such/);
    await check(ns);

    await ns.stop();
    const again = createKnotNameserver(opts);
    cleanups.push(() => again.stop());
    await again.start([{ name: ZONE, dnssec: false }]);
    await check(again);
  });

  it('removes a zone: knotd stops answering for it, and removing again is fine', async () => {
    const { ns, server, opts } = await startKnot();
    await ns.applyZone(ZONE, zoneText(1), { dnssec: true });
    await ns.applyZone('other.test', zoneText(1).replaceAll(ZONE, 'other.test'), { dnssec: false });

    await ns.removeZone(ZONE);

    expect(['REFUSED', 'NOTAUTH']).toContain((await query(server, `www.${ZONE}`, 'A')).rcode);
    expect(await ns.servedSerial(ZONE)).toBeNull();
    expect(await ns.ds(ZONE)).toEqual([]);
    expect(await ns.servedSerial('other.test')).toBe(1);
    expect(readFileSync(join(opts.dir, 'knot.conf'), 'utf8')).not.toContain(`domain: ${ZONE}.`);
    expect(() => readFileSync(join(opts.zonesDir, `${ZONE}.zone`))).toThrow(/ENOENT/);
    await ns.removeZone(ZONE);

    // Added again, it starts from its new text alone.
    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });
    expect(await ns.servedSerial(ZONE)).toBe(1);
  });

  it('restarts knotd after a crash and serves the same zones again; health() tells', async () => {
    const { ns, server } = await startKnot([{ name: 'boot.test', dnssec: false }]);
    await ns.applyZone('boot.test', zoneText(7).replaceAll(ZONE, 'boot.test'), { dnssec: false });
    await ns.applyZone(ZONE, zoneText(3), { dnssec: true });
    const signedSerial = await ns.servedSerial(ZONE);
    const before = ns.health();
    expect(before).toMatchObject({ running: true, restarts: 0, lastError: null });

    process.kill(before.pid!, 'SIGKILL');
    await until('health to report the crash', async () => (ns.health().running ? undefined : true), 2000, 25);
    expect(ns.health().lastError).toMatch(/SIGKILL/);
    await expect(ns.applyZone(ZONE, zoneText(9), { dnssec: true })).rejects.toThrow(/not running/);

    await until('knotd to be back', async () => (ns.health().running ? true : undefined), 5000, 25);
    const after = ns.health();
    expect(after).toMatchObject({ running: true, restarts: 1 });
    expect(after.pid).not.toBe(before.pid);
    expect(await ns.servedSerial('boot.test')).toBe(7);
    expect(await ns.servedSerial(ZONE)).toBe(signedSerial);
    expect((await query(server, ZONE, 'SOA', { dnssecOk: true })).answers?.map((a) => a.type)).toEqual(['SOA', 'RRSIG']);
  });

  it('standing by answers REFUSED for every zone and the catalog; leading again serves the zones from nothing it had, signed with the keys it was given before it signed', async () => {
    const first = await startKnot();
    await first.ns.applyZone(ZONE, zoneText(5), { dnssec: true });
    const keys = await first.ns.dnssecKeys(ZONE);
    expect(keys.map((k) => k.attrs.ksk).sort()).toEqual([false, true]);
    expect(keys.every((k) => k.pem.includes('PRIVATE KEY'))).toBe(true);

    const second = await startKnot([{ name: ZONE, dnssec: true }]);
    await second.ns.applyZone(ZONE, zoneText(5, { www: '192.0.2.99' }), { dnssec: true });
    await second.ns.applyZone('catalog.invalid', renderCatalog({ name: 'catalog.invalid', serial: 3, members: [{ zone: ZONE, uid: 'u1' }] }), { dnssec: false });
    expect(await second.ns.servedSerial('catalog.invalid')).toBe(3);
    const port = second.ns.address().port;
    await second.ns.standBy();
    expect(second.ns.address().port).toBe(port);
    expect((await query(second.server, ZONE, 'SOA')).rcode).toBe('REFUSED');
    expect((await query(second.server, 'catalog.invalid', 'SOA')).rcode).toBe('REFUSED');

    await second.ns.lead([{ name: ZONE, dnssec: true }], new Map([[ZONE, keys]]));
    // What it served before standing by is gone, journal and file alike: only what is applied now is served.
    expect(await second.ns.servedSerial(ZONE)).toBeNull();
    await second.ns.applyZone(ZONE, zoneText(9), { dnssec: true });
    expect(await dnskeys(second.server)).toEqual(await dnskeys(first.server));
    expect(await aRecords(second.server, `www.${ZONE}`)).toEqual(['192.0.2.1']);
    expect((await second.ns.dnssecKeys(ZONE)).map((k) => k.keyId).sort()).toEqual(keys.map((k) => k.keyId).sort());
  });

  it('leading while serving already changes nothing when its keys are the given ones, and replaces keys that differ', async () => {
    const { ns, server } = await startKnot();
    await ns.applyZone(ZONE, zoneText(5), { dnssec: true });
    const own = await ns.dnssecKeys(ZONE);
    const pid = ns.health().pid;
    await ns.lead([{ name: ZONE, dnssec: true }], new Map([[ZONE, own]]));
    expect(ns.health().pid).toBe(pid);
    expect(await ns.servedSerial(ZONE)).not.toBeNull();

    const other = await startKnot();
    await other.ns.applyZone(ZONE, zoneText(5), { dnssec: true });
    const theirs = await other.ns.dnssecKeys(ZONE);
    await ns.lead([{ name: ZONE, dnssec: true }], new Map([[ZONE, theirs]]));
    expect((await ns.dnssecKeys(ZONE)).map((k) => k.keyId).sort()).toEqual(theirs.map((k) => k.keyId).sort());
    await until('the zone signed with the given keys', async () => {
      return JSON.stringify(await dnskeys(server)) === JSON.stringify(await dnskeys(other.server));
    });
  });

  it('stop() leaves no knotd behind', async () => {
    const { ns, server } = await startKnot();
    const { pid } = ns.health();
    expect(pid && processAlive(pid)).toBe(true);

    await ns.stop();

    expect(processAlive(pid!)).toBe(false);
    expect(ns.health()).toMatchObject({ running: false, pid: null });
    await expect(query(server, ZONE, 'SOA', { timeoutMs: 300 })).rejects.toThrow(/no answer/);
  });

  it('sends NOTIFY to the secondaries and lets them transfer the zone', async () => {
    // A stand-in secondary that only records NOTIFY questions. Knot 3.2 sends NOTIFY over TCP.
    const notifies: string[] = [];
    const secondary = createServer((conn) => {
      conn.on('data', (wire) => {
        const packet = dnsPacket.decode(wire.subarray(2)) as dnsPacket.DecodedPacket & { opcode: string };
        if (packet.opcode !== 'NOTIFY') return;
        notifies.push(packet.questions?.[0]?.name ?? '');
        // The opcode travels in the flags field.
        conn.end(dnsPacket.streamEncode({ type: 'response', id: packet.id, flags: (packet.flags ?? 0) | dnsPacket.AUTHORITATIVE_ANSWER, questions: packet.questions }));
      });
    });
    await new Promise<void>((resolve) => secondary.listen(0, '127.0.0.1', resolve));
    const { port } = secondary.address() as AddressInfo;
    cleanups.push(() => new Promise<void>((resolve) => secondary.close(() => resolve())));
    const { ns, server } = await startKnot([], { notify: [`127.0.0.1:${port}`] });

    await ns.applyZone(ZONE, zoneText(1), { dnssec: false });

    await until('a NOTIFY', async () => (notifies.includes(ZONE) ? true : undefined), 5000, 25);
    const axfr = await query(server, ZONE, 'AXFR', { tcp: true });
    expect(axfr.rcode).toBe('NOERROR');
    expect(axfr.answers?.[0]?.type).toBe('SOA');
    expect(axfr.answers?.some((a) => a.type === 'TXT')).toBe(true);
  });

  it('start() with takeOver stops a knotd left running on its directory and serves in its place', async () => {
    const first = await startKnot([{ name: ZONE, dnssec: false }]);
    await first.ns.applyZone(ZONE, zoneText(4), { dnssec: false });
    await first.ns.stop();
    // What a crash of the parent would leave without a parent-death signal: a knotd nobody supervises.
    const orphan = spawn(findKnot()!.knotd, ['-c', join(first.opts.dir, 'knot.conf')], { stdio: 'ignore' });
    const orphanExit = new Promise((resolve) => orphan.once('exit', resolve));
    cleanups.push(async () => {
      orphan.kill('SIGKILL');
    });
    await until('the orphan to serve', async () => ((await query(first.server, ZONE, 'SOA', { timeoutMs: 200 })).rcode === 'NOERROR' ? true : undefined), 5000, 25);

    const second = createKnotNameserver({ ...first.opts, takeOver: true });
    cleanups.push(() => second.stop());
    await second.start([{ name: ZONE, dnssec: false }]);

    await orphanExit;
    expect(second.health().pid).not.toBe(orphan.pid);
    expect(await second.servedSerial(ZONE)).toBe(4);
  });

  it('start() without takeOver fails beside a knotd running on its directory and leaves it serving as it was', async () => {
    const first = await startKnot([{ name: ZONE, dnssec: false }]);
    await first.ns.applyZone(ZONE, zoneText(4), { dnssec: false });
    const config = readFileSync(join(first.opts.dir, 'knot.conf'), 'utf8');

    const second = createKnotNameserver(first.opts);
    cleanups.push(() => second.stop());
    await expect(second.start([])).rejects.toThrow(/already running on .*knot\.sock/);

    expect(first.ns.health()).toMatchObject({ running: true, restarts: 0 });
    expect(await first.ns.servedSerial(ZONE)).toBe(4);
    expect(readFileSync(join(first.opts.dir, 'knot.conf'), 'utf8')).toBe(config);
  });
});

describe.skipIf(!hasKnot())(knotTitle('knot supervision backs off'), () => {
  /** A knotd that records the time of each launch in `dir/launches` (milliseconds), then runs knotd: for
   * `liveMs`, or for good without it. */
  function countingKnotd(dir: string, liveMs?: number): { path: string; launches: () => number[] } {
    const log = join(dir, 'launches');
    const path = join(dir, 'knotd');
    const run = liveMs === undefined
      ? `exec ${findKnot()!.knotd} "$@"`
      // Killed with its wrapper, so that no knotd outlives the test holding the port.
      : `${findKnot()!.knotd} "$@" & pid=$!\ntrap 'kill $pid; wait $pid; exit 1' TERM\nsleep ${liveMs / 1000} & wait $!\nkill $pid; wait $pid`;
    writeFileSync(path, `#!/bin/sh\necho $(($(date +%s%N) / 1000000)) >> ${log}\n${run}\n`, { mode: 0o755 });
    const launches = (): number[] => {
      try {
        return readFileSync(log, 'utf8').trim().split('\n').map(Number);
      } catch {
        return [];
      }
    };
    return { path, launches };
  }

  it('while its DNS port is held by another program: start refuses at once, launches nothing and retries nothing', async () => {
    const dir = tempDir();
    const port = await freePort();
    const tcp = createServer();
    const udp = createSocket('udp4');
    await new Promise<void>((resolve) => tcp.listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', resolve));
    cleanups.push(async () => {
      tcp.close();
      udp.close();
    });
    const knotd = countingKnotd(dir);
    const ns = createKnotNameserver({ dir: join(dir, 'knot'), zonesDir: join(dir, 'zones'), listen: `127.0.0.1:${port}`, knotd: knotd.path });
    cleanups.push(() => ns.stop());

    await expect(ns.start([])).rejects.toBeInstanceOf(AddressInUseError);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(knotd.launches()).toEqual([]);
    expect(ns.health()).toMatchObject({ running: false, pid: null });
  });

  it('when knotd exits soon after it came up, each restart waits longer than the one before', async () => {
    const dir = tempDir();
    const port = await freePort();
    const knotd = countingKnotd(dir, 500);
    const ns = createKnotNameserver({ dir: join(dir, 'knot'), zonesDir: join(dir, 'zones'), listen: `127.0.0.1:${port}`, knotd: knotd.path });
    cleanups.push(() => ns.stop());
    await ns.start([]);

    await until('five launches', async () => (knotd.launches().length >= 5 ? true : undefined), 15_000, 25);
    const [a, b, , d, e] = knotd.launches() as [number, number, number, number, number];
    // Each cycle is the 500 ms run, the start and the delay: 250 ms, then 500, 1000 and 2000. Had a knotd
    // that answered reset the backoff, every cycle would take the same time.
    expect((e - d) - (b - a)).toBeGreaterThan(1000);
    expect(ns.health().restarts).toBeGreaterThanOrEqual(4);
  }, 30_000);
});
