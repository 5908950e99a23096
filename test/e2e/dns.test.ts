/**
 * The DNS group end to end: a real `hostplane serve` supervising a real knotd on a loopback port, driven
 * over HTTP, and what the nameserver answers read back with dns-packet, as a resolver would.
 */
import type { Answer } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query, txtValue, type DnsResponse } from '../../harness/dns';
import { freePort, hasKnot, knotTitle } from '../helpers/knot';
import { relative } from 'node:path';
import { bootstrapWithCli, cleanup, http, ROOT, startHostplane, tempDir, type Running } from '../helpers/proc';

/** Polls until `check` passes: convergence is asynchronous by design (the API only writes desired state). */
async function eventually<T>(fn: () => Promise<T>, check: (v: T) => boolean, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T = await fn();
  while (!check(last)) {
    if (Date.now() > deadline) return last;
    await new Promise((r) => setTimeout(r, 20));
    last = await fn();
  }
  return last;
}

const data = (a: Answer): unknown => (a as { data: unknown }).data;
const answersOf = (r: DnsResponse, type: string): Answer[] => (r.answers ?? []).filter((a) => a.type === type);

// The same behaviour with the zone file written with each change, and apart from it (forced here for every
// zone size with --defer-file-from 1, as for large zones).
describe.skipIf(!hasKnot()).each([
  ['zone file with each change', '5000'],
  ['zone file deferred', '1'],
])(knotTitle('DNS zones served by Knot DNS through hostplane serve (%s)'), (_path, deferFileFrom) => {
  let serve: Running;
  let token: string;
  let dns: { host: string; port: number };
  const zonePath = '/v1/orgs/acme/dns/zones/example.com';
  const put = (name: string, type: string, records: string[], ttl = 300) =>
    http(serve.url, 'PUT', `${zonePath}/rrsets/${name}/${type}`, { token, body: { records: records.map((content) => ({ content })), ttl } });
  const ask = (name: string, type: Parameters<typeof query>[2], dnssecOk = false) => query(dns, name, type, { dnssecOk });

  beforeAll(async () => {
    const dir = tempDir();
    token = await bootstrapWithCli(dir);
    dns = { host: '127.0.0.1', port: await freePort() };
    serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns-listen', `127.0.0.1:${dns.port}`, '--nameservers', 'ns1.hostplane.test,ns2.hostplane.test', '--defer-file-from', deferFileFrom]);
    const created = await http(serve.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: 'example.com' } });
    expect(created.status).toBe(200);
  });
  afterAll(cleanup);

  it('serves the SOA and the system NS of a new zone', async () => {
    const soa = await eventually(() => ask('example.com', 'SOA'), (r) => answersOf(r, 'SOA').length === 1);
    expect(soa.rcode).toBe('NOERROR');
    const zone = (await http(serve.url, 'GET', zonePath, { token })).body;
    expect((data(answersOf(soa, 'SOA')[0]!) as { serial: number }).serial).toBe(zone.serial);
    const ns = await ask('example.com', 'NS');
    expect(answersOf(ns, 'NS').map(data).sort()).toEqual(['ns1.hostplane.test', 'ns2.hostplane.test']);
  });

  it('answers exactly the A, AAAA, MX, SRV, CAA and 600-byte TXT rrsets that were put', async () => {
    const txt = 'v=long;' + 'é'.repeat(120) + 'ü'.repeat(100) + 'x'.repeat(600 - 7 - 440);
    expect(Buffer.byteLength(txt)).toBe(600);
    for (const [name, type, records] of [
      ['www.example.com', 'A', ['192.0.2.10', '192.0.2.11']],
      ['www.example.com', 'AAAA', ['2001:db8::10']],
      ['@', 'MX', ['10 mail.example.com', '20 backup.example.net']],
      ['_sip._tcp.example.com', 'SRV', ['10 5 5060 sip.example.com']],
      ['@', 'CAA', ['0 issue "letsencrypt.org"']],
      ['long.example.com', 'TXT', [txt]],
    ] as const) {
      const r = await put(name, type, [...records]);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    // The last write served means all of them are: the reconciler serves the zone whole.
    await eventually(() => ask('long.example.com', 'TXT'), (r) => answersOf(r, 'TXT').length === 1);
    const a = await ask('www.example.com', 'A');
    expect(answersOf(a, 'A').map(data).sort()).toEqual(['192.0.2.10', '192.0.2.11']);
    expect((answersOf(a, 'A')[0] as { ttl?: number }).ttl).toBe(300);
    expect(answersOf(await ask('www.example.com', 'AAAA'), 'AAAA').map(data)).toEqual(['2001:db8::10']);
    expect(answersOf(await ask('example.com', 'MX'), 'MX').map(data).sort((x, y) => (x as { preference: number }).preference - (y as { preference: number }).preference))
      .toEqual([{ preference: 10, exchange: 'mail.example.com' }, { preference: 20, exchange: 'backup.example.net' }]);
    expect(answersOf(await ask('_sip._tcp.example.com', 'SRV'), 'SRV').map(data)).toEqual([{ priority: 10, weight: 5, port: 5060, target: 'sip.example.com' }]);
    const caa = answersOf(await ask('example.com', 'CAA'), 'CAA').map(data) as { tag: string; value: string; flags: number }[];
    expect(caa.map((c) => [c.flags, c.tag, c.value])).toEqual([[0, 'issue', 'letsencrypt.org']]);
    const t = answersOf(await ask('long.example.com', 'TXT'), 'TXT');
    expect(t).toHaveLength(1);
    expect((data(t[0]!) as Buffer[]).every((chunk) => chunk.length <= 255)).toBe(true);
    expect(txtValue(t[0]!).equals(Buffer.from(txt, 'utf8'))).toBe(true);
  });

  it('replaces an rrset whole and stops answering a deleted one', async () => {
    expect((await put('www.example.com', 'A', ['192.0.2.99'])).status).toBe(200);
    const a = await eventually(() => ask('www.example.com', 'A'), (r) => answersOf(r, 'A').length === 1);
    expect(answersOf(a, 'A').map(data)).toEqual(['192.0.2.99']);
    expect((await http(serve.url, 'DELETE', `${zonePath}/rrsets/www.example.com/AAAA`, { token })).status).toBe(204);
    const gone = await eventually(() => ask('www.example.com', 'AAAA'), (r) => answersOf(r, 'AAAA').length === 0);
    expect(answersOf(gone, 'AAAA')).toEqual([]);
    expect(gone.rcode).toBe('NOERROR');
  });

  it('serves a change set of 300 rrsets at once, at the one serial the set took', async () => {
    const changes = [
      ...Array.from({ length: 300 }, (_, i) => ({ op: 'put', name: `set${i}.example.com`, type: 'A', ttl: 300, records: [{ content: `198.51.100.${i % 250}` }] })),
      { op: 'delete', name: 'long.example.com', type: 'TXT' },
    ];
    const r = await http(serve.url, 'POST', `${zonePath}/changes`, { token, body: { changes } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const z = await http(serve.url, 'GET', `${zonePath}?waitGeneration=${r.body.generation}&wait=20`, { token });
    expect(z.body.status.ready).toBe(true);
    const soa = await ask('example.com', 'SOA');
    expect((data(answersOf(soa, 'SOA')[0]!) as { serial: number }).serial).toBe(r.body.serial);
    for (const i of [0, 150, 299]) expect(answersOf(await ask(`set${i}.example.com`, 'A'), 'A').map(data)).toEqual([`198.51.100.${i % 250}`]);
    expect(answersOf(await ask('long.example.com', 'TXT'), 'TXT')).toEqual([]);
  });

  it('reports convergence: observedGeneration reaches generation and the served serial is readable', async () => {
    const z = await eventually(
      async () => (await http(serve.url, 'GET', zonePath, { token })).body,
      (b) => b.status.observedGeneration === b.status.generation,
    );
    expect(z.status).toMatchObject({ lastError: null, servedSerial: z.serial });
    // Operators see the reconciler at work on /metrics, beside the API's own metrics.
    const metrics = await (await fetch(serve.metrics!)).text();
    expect(metrics).toMatch(/hostplane_reconcile_duration_seconds_count\{kind="zone",outcome="ok"\} [1-9]/);
    expect(metrics).toContain('hostplane_http_request_duration_seconds');
    // Neither path fell back: an incremental change the nameserver refused would be logged.
    expect(serve.stderr()).not.toContain('incremental change refused');
  });

  it('signs the zone when DNSSEC is enabled, shows the signer DS, and stops signing when disabled', async () => {
    const on = await http(serve.url, 'POST', `${zonePath}/dnssec`, { token, body: { enabled: true } });
    expect(on.body.dnssec).toBe('signing');
    const dnskey = await eventually(() => ask('example.com', 'DNSKEY', true), (r) => answersOf(r, 'DNSKEY').length > 0, 10_000);
    expect(answersOf(dnskey, 'DNSKEY').length).toBeGreaterThan(0);
    const signed = await eventually(() => ask('www.example.com', 'A', true), (r) => answersOf(r, 'RRSIG').length > 0, 10_000);
    expect(answersOf(signed, 'RRSIG').length).toBeGreaterThan(0);
    const withDs = await eventually(
      async () => (await http(serve.url, 'GET', zonePath, { token })).body,
      (b) => b.status.signerDs.length > 0, 10_000,
    );
    expect(withDs.status.signerDs[0]).toMatchObject({ algorithm: 13 });
    expect(JSON.stringify(withDs)).not.toMatch(/PRIVATE|privatekey/i);

    const off = await http(serve.url, 'POST', `${zonePath}/dnssec`, { token, body: { enabled: false } });
    expect(off.body).toMatchObject({ dnssec: 'off', ds: [] });
    const unsigned = await eventually(() => ask('www.example.com', 'A', true), (r) => answersOf(r, 'RRSIG').length === 0, 10_000);
    expect(answersOf(unsigned, 'RRSIG')).toEqual([]);
    expect(answersOf(await ask('example.com', 'DNSKEY', true), 'DNSKEY')).toEqual([]);
  });

  it('stops answering for a deleted zone', async () => {
    expect((await http(serve.url, 'DELETE', zonePath, { token })).status).toBe(204);
    const r = await eventually(() => ask('example.com', 'SOA'), (x) => x.rcode === 'REFUSED' || x.rcode === 'NOTAUTH');
    expect(['REFUSED', 'NOTAUTH']).toContain(r.rcode);
    expect(answersOf(r, 'SOA')).toEqual([]);
  });

  it('shuts down cleanly on SIGTERM, knotd with it', async () => {
    const pid = serve.proc.pid!;
    const exit = await serve.stop('SIGTERM');
    expect(exit.code).toBe(0);
    expect(() => process.kill(pid, 0)).toThrow();
    const r = await query(dns, 'example.com', 'SOA', { timeoutMs: 300 }).catch((e: Error) => e);
    expect(r).toBeInstanceOf(Error);
  });
});

describe.skipIf(!hasKnot())(knotTitle('serve with a relative --data path'), () => {
  afterAll(cleanup);

  // Its own bootstrap (CLI processes) and serve: 20 s on PostgreSQL at load 20, 13 of them the CLI runs; the
  // default 30 s timed out in a loaded PostgreSQL batch.
  it('serves zones (knotd gets absolute paths, whatever the working directory)', async () => {
    const dir = relative(ROOT, tempDir());
    expect(dir.startsWith('/')).toBe(false);
    const token = await bootstrapWithCli(dir);
    const dns = { host: '127.0.0.1', port: await freePort() };
    const serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns-listen', `127.0.0.1:${dns.port}`]);
    expect((await http(serve.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: 'relative.test' } })).status).toBe(200);
    const soa = await eventually(() => query(dns, 'relative.test', 'SOA'), (r) => answersOf(r, 'SOA').length === 1);
    expect(answersOf(soa, 'SOA')).toHaveLength(1);
  }, 60_000);
});
