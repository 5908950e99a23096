/**
 * The size rule against a real knotd: what the API accepts is what knotd loads, serves and signs in one DNS
 * message, and one byte or record more is refused with 400. Then the other side of the rule: data that
 * bypasses it (written into the store directly), which knotd rejects, leaves the last good version served,
 * across a restart of knotd, while the zone's status says why.
 *
 * Runs the in-process API over a store, the real zone reconciler and the real Knot adapter, driven pass by
 * pass: the shortest path that is still the production one from PUT to answer.
 */
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Answer } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { createKnotNameserver, type KnotNameserver, type KnotNameserverOptions } from '../../providers/nameserver/knot';
import type { ZoneConfig } from '../../providers/nameserver/port';
import { zoneReconciler } from '../../reconcilers/zones';
import { statusOf } from '../../store/status';
import { putRRset, zoneByName, type ZoneFacts } from '../../store/zones';
import {
  answerBytes, answerReserveBytes, checkCnameConflict, MAX_MESSAGE_BYTES, maxTxtValueBytes, type RecordType, type RRset,
} from '../../zonefiles';
import { startTestApi, type TestApi } from '../helpers/app';
import { query, txtValue, type DnsResponse, type Server } from '../../harness/dns';
import { freePort, hasKnot, knotTitle } from '../helpers/knot';
import { cleanup, tempDir } from '../helpers/proc';

const NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const noAbort = new AbortController().signal;

const ofType = (r: DnsResponse, type: string, section: 'answers' | 'authorities' = 'answers'): Answer[] =>
  (r[section] ?? []).filter((a) => a.type === type);
const covered = (r: DnsResponse, type: string): boolean =>
  ofType(r, 'RRSIG').some((a) => a.type === 'RRSIG' && a.data.typeCovered === type);

/** `count` distinct host names of 253 characters (255 octets on the wire). */
const longHosts = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => `h${String(i).padStart(4, '0')}.${'n'.repeat(63)}.${'n'.repeat(63)}.${'n'.repeat(63)}.${'n'.repeat(43)}.example.net`);

describe.skipIf(!hasKnot())(knotTitle('the largest rrsets the API accepts, served and signed by knotd'), () => {
  const ZONE = 'size.example';
  let t: TestApi;
  let ns: KnotNameserver;
  let dns: Server;
  let reconcile: () => Promise<void>;

  const reserve = answerReserveBytes(ZONE);
  const maxTxt = maxTxtValueBytes(ZONE);
  const txtOf = (bytes: number): string => `${'x'.repeat(bytes % 2)}${'é'.repeat(Math.floor(bytes / 2))}`;
  // RR fixed part (12), CAA flags and tag length (2), tag `tbs` (3).
  const maxCaa = MAX_MESSAGE_BYTES - reserve - 12 - 2 - 3;
  const caaOf = (n: number): string => `0 tbs "${'v'.repeat(n)}"`;
  // TXT records of 200 bytes: 12 octets of RR and 201 of RDATA each.
  const manyFit = Math.floor((MAX_MESSAGE_BYTES - reserve) / 213);
  const manyTxt = (n: number): string[] => Array.from({ length: n }, (_, i) => `${String(i).padStart(4, '0')}${'t'.repeat(196)}`);
  // MX to 253-character hosts: 12 octets of RR, 2 + 255 of RDATA each.
  const mxFit = Math.floor((MAX_MESSAGE_BYTES - reserve) / 269);
  const manyMx = (n: number): string[] => longHosts(n).map((h, i) => `${i} ${h}`);
  // A records at a name of 253 octets: what knotd signs is each record with that name, 267 octets a record.
  const longOwner = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(46)}.${ZONE}`;
  const signFit = Math.floor(MAX_MESSAGE_BYTES / 267);
  const manyA = (n: number): string[] => Array.from({ length: n }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
  /** A name of 255 octets on the wire that the wildcard `*.wild.<zone>` matches. */
  const longQname = (() => {
    const tail = `.wild.${ZONE}`;
    return `${'q'.repeat(63)}.${'q'.repeat(63)}.${'q'.repeat(63)}.${'q'.repeat(253 - 3 * 64 - tail.length)}${tail}`;
  })();

  const put = (name: string, type: RecordType, contents: string[]) =>
    t.call('PUT', `/v1/orgs/acme/dns/zones/${ZONE}/rrsets/${name}/${type}`, { body: { records: contents.map((content) => ({ content })), ttl: 300 } });

  beforeAll(async () => {
    t = await startTestApi({ plan: 'pro' });
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: ZONE } })).status).toBe(200);
    const dir = tempDir('hostplane-size-');
    const port = await freePort();
    dns = { host: '127.0.0.1', port };
    ns = createKnotNameserver({ dir: join(dir, 'knot'), zonesDir: join(dir, 'zones'), listen: `127.0.0.1:${port}` });
    await ns.start([]);
    const r = zoneReconciler({ store: t.store, nameserver: ns, resolver: { ns: async () => [] }, nameservers: NS, log: silent });
    reconcile = async () => {
      await r.reconcile(ZONE, noAbort);
    };
  });
  afterAll(async () => {
    await ns?.stop();
    await t?.close();
    await cleanup();
  });

  const stored: Record<string, RRset> = {};

  it('accepts each at its limit and refuses one byte, or one record, more with 400 naming it', async () => {
    const cases: [string, RecordType, string[], string[], string][] = [
      [`big.${ZONE}`, 'TXT', [txtOf(maxTxt)], [txtOf(maxTxt + 1)], 'records[0].content'],
      [`*.wild.${ZONE}`, 'TXT', [txtOf(maxTxt)], [txtOf(maxTxt + 1)], 'records[0].content'],
      [`caa.${ZONE}`, 'CAA', [caaOf(maxCaa)], [caaOf(maxCaa + 1)], 'records[0].content'],
      [`many.${ZONE}`, 'TXT', manyTxt(manyFit), manyTxt(manyFit + 1), 'records'],
      [`mx.${ZONE}`, 'MX', manyMx(mxFit), manyMx(mxFit + 1), 'records'],
      [longOwner, 'A', manyA(signFit), manyA(signFit + 1), 'records'],
      [`alias.${ZONE}`, 'CNAME', [`big.${ZONE}`], [], ''],
    ];
    for (const [name, type, fits, over, path] of cases) {
      const ok = await put(name, type, fits);
      expect(ok.status, `${name} ${type}: ${JSON.stringify(ok.body).slice(0, 300)}`).toBe(200);
      stored[name] = ok.body as RRset;
      if (over.length === 0) continue;
      const refused = await put(name, type, over);
      expect(refused.status, `${name} ${type} over the limit`).toBe(400);
      expect(refused.body).toMatchObject({ code: 'bad_request', details: { issues: [{ path, message: expect.stringMatching(/(one DNS message holds|a signer takes at most) 65535/) }] } });
    }
    expect(longOwner).toHaveLength(251);
    expect(signFit).toBe(245);
    expect(stored[`big.${ZONE}`]!.records[0]!.content).toBe(txtOf(maxTxt));
  });

  it('knotd loads them and serves each, over TCP, as it was put and in the size predicted', async () => {
    await reconcile();
    expect((await statusOf<ZoneFacts>(t.store, 'zone', ZONE))?.lastError).toBeNull();

    for (const name of [`big.${ZONE}`, `caa.${ZONE}`, `many.${ZONE}`, longOwner]) {
      const rrset = stored[name]!;
      const r = await query(dns, name, rrset.type as Exclude<RecordType, 'ALIAS'>, { tcp: true, noEdns: true });
      expect(r.flag_tc).toBe(false);
      // No names in their RDATA: the message is exactly what wire.ts counts.
      expect(r.messageBytes, name).toBe(answerBytes(ZONE, rrset).unsigned);
      const served = ofType(r, rrset.type);
      if (rrset.type === 'TXT') {
        expect(served.map((a) => txtValue(a).toString('utf8')).sort()).toEqual(rrset.records.map((x) => x.content).sort());
      } else if (rrset.type === 'A') {
        expect(served.map((a) => a.type === 'A' && a.data).sort()).toEqual(rrset.records.map((x) => x.content).sort());
      } else {
        expect(served.map((a) => a.type === 'CAA' && `${a.data.flags} ${a.data.tag} "${a.data.value}"`)).toEqual(rrset.records.map((x) => x.content));
      }
    }

    const mx = await query(dns, `mx.${ZONE}`, 'MX', { tcp: true, noEdns: true });
    expect(mx.flag_tc).toBe(false);
    // knotd compresses the exchange names, so the answer is smaller than counted, never larger.
    expect(mx.messageBytes).toBeLessThanOrEqual(answerBytes(ZONE, stored[`mx.${ZONE}`]!).unsigned);
    expect(ofType(mx, 'MX').map((a) => a.type === 'MX' && `${a.data.preference} ${a.data.exchange}`).sort())
      .toEqual(stored[`mx.${ZONE}`]!.records.map((x) => x.content).sort());

    const wild = await query(dns, longQname, 'TXT', { tcp: true });
    expect(wild.flag_tc).toBe(false);
    expect(ofType(wild, 'TXT').map((a) => txtValue(a).toString('utf8'))).toEqual([txtOf(maxTxt)]);
    const alias = await query(dns, `alias.${ZONE}`, 'TXT', { tcp: true });
    expect(alias.flag_tc).toBe(false);
    expect(alias.answers?.map((a) => a.type)).toEqual(['CNAME', 'TXT']);
  });

  it('once DNSSEC is on, knotd signs them, and every answer with its RRSIGs fits in one message', async () => {
    expect((await t.call('POST', `/v1/orgs/acme/dns/zones/${ZONE}/dnssec`, { body: { enabled: true } })).status).toBe(200);
    await reconcile();
    const status = await statusOf<ZoneFacts>(t.store, 'zone', ZONE);
    expect(status).toMatchObject({ lastError: null, observedGeneration: (await zoneByName(t.store, ZONE))!.generation });
    expect(ofType(await query(dns, ZONE, 'DNSKEY', { dnssecOk: true }), 'DNSKEY').length).toBeGreaterThan(0);

    const asked: [string, Exclude<RecordType, 'ALIAS'>, string][] = [
      [`big.${ZONE}`, 'TXT', `big.${ZONE}`],
      [`caa.${ZONE}`, 'CAA', `caa.${ZONE}`],
      [`many.${ZONE}`, 'TXT', `many.${ZONE}`],
      [`mx.${ZONE}`, 'MX', `mx.${ZONE}`],
      [longOwner, 'A', longOwner],
      [longQname, 'TXT', `*.wild.${ZONE}`],
      [`alias.${ZONE}`, 'TXT', `big.${ZONE}`],
    ];
    for (const [qname, type, owner] of asked) {
      const r = await query(dns, qname, type, { tcp: true, dnssecOk: true });
      expect(r.flag_tc, `${qname} ${type}`).toBe(false);
      expect(r.rcode).toBe('NOERROR');
      expect(covered(r, type), `${qname} ${type} signed`).toBe(true);
      expect(ofType(r, type)).toHaveLength(stored[owner]!.records.length);
      expect(r.messageBytes).toBeLessThanOrEqual(answerBytes(ZONE, stored[owner]!).worstCase);
    }
    // The wildcard answer carries its proof: the NSEC that no closer name exists, signed.
    const wild = await query(dns, longQname, 'TXT', { tcp: true, dnssecOk: true });
    expect(ofType(wild, 'NSEC', 'authorities')).toHaveLength(1);
    expect(ofType(wild, 'RRSIG', 'authorities')).toHaveLength(1);
  });
});

describe.skipIf(!hasKnot())(knotTitle('a zone version knotd rejects: the last good one stays served, and the status says why'), () => {
  let t: TestApi;
  let opts: KnotNameserverOptions;
  let ns: KnotNameserver;
  let dns: Server;
  let reconciler: ReturnType<typeof zoneReconciler>;
  /** The same, taking every change to a served unsigned zone as an incremental transaction. */
  let incremental: ReturnType<typeof zoneReconciler>;
  const logged: string[] = [];
  const log = createLogger({ level: 'warn', destination: new Writable({ write(c, _e, cb) { logged.push(String(c)); cb(); } }) });

  /** Each start's knotd takes a port of its own (port 0): one picked once could be another process's by the next. */
  const start = async (zones: ZoneConfig[]): Promise<void> => {
    ns = createKnotNameserver(opts);
    await ns.start(zones);
    dns = ns.address();
    const deps = { store: t.store, nameserver: ns, resolver: { ns: async () => [] }, nameservers: NS, log: silent };
    reconciler = zoneReconciler(deps);
    incremental = zoneReconciler({ ...deps, log, deferFileFrom: 1 });
  };

  beforeAll(async () => {
    t = await startTestApi({ plan: 'pro' });
    const dir = tempDir('hostplane-reject-');
    opts = { dir: join(dir, 'knot'), zonesDir: join(dir, 'zones'), listen: '127.0.0.1:0' };
    await start([]);
  });
  afterAll(async () => {
    await ns?.stop();
    await t?.close();
    await cleanup();
  });

  /** What validation would refuse, written straight into the store as data from before the rule would be. */
  async function bypass(zone: string, rrset: RRset): Promise<void> {
    const orgId = (await zoneByName(t.store, zone))!.orgId;
    await putRRset(t.store, {
      orgId, zone, rrset, actor: 'test', cnameConflict: checkCnameConflict, quota: { plan: 'pro', rrsets: 1_000_000, bytes: 1e9 },
    });
  }

  async function served(zone: string, dnssec: boolean): Promise<{ serial: number | undefined; www: string[]; signed: boolean }> {
    const soa = await query(dns, zone, 'SOA', { dnssecOk: dnssec });
    expect(soa.rcode, `${zone} SOA`).toBe('NOERROR');
    const www = await query(dns, `www.${zone}`, 'A', { dnssecOk: dnssec });
    const answer = ofType(soa, 'SOA')[0];
    return {
      serial: answer?.type === 'SOA' ? answer.data.serial : undefined,
      www: ofType(www, 'A').map((a) => (a.type === 'A' ? a.data : '')),
      signed: covered(soa, 'SOA') && covered(www, 'A'),
    };
  }

  const caa65538 = { type: 'CAA', records: [{ content: `0 issue "${'a'.repeat(65_527)}.com"` }] } as const;
  it.each([
    ['unsigned: a CAA record of 65538 octets, which knotd cannot parse', 'caa-reject.example', false, false, caa65538, /text is too long/],
    ['unsigned, as an incremental change: the same CAA record', 'caa-inc-reject.example', false, true, caa65538, /text is too long/],
    ['signed: an rrset of 66,000 bytes, which knotd loads but cannot sign', 'sign-reject.example', true, false,
      { type: 'TXT', records: [{ content: 'a'.repeat(33_000) }, { content: 'b'.repeat(33_000) }] }, /not enough space/],
  ] as const)('%s', async (_, zone, dnssec, viaChanges, bad, reason) => {
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: zone } })).status).toBe(200);
    expect((await t.call('PUT', `/v1/orgs/acme/dns/zones/${zone}/rrsets/www.${zone}/A`, { body: { records: [{ content: '192.0.2.1' }], ttl: 300 } })).status).toBe(200);
    if (dnssec) expect((await t.call('POST', `/v1/orgs/acme/dns/zones/${zone}/dnssec`, { body: { enabled: true } })).status).toBe(200);
    const r = viaChanges ? incremental : reconciler;
    await r.reconcile(zone, noAbort);
    const good = await served(zone, dnssec);
    expect(good).toMatchObject({ www: ['192.0.2.1'], signed: dnssec });
    const goodStatus = await statusOf<ZoneFacts>(t.store, 'zone', zone);

    await bypass(zone, { name: `big.${zone}`, ttl: 300, type: bad.type, records: [...bad.records] });
    expect((await t.call('PUT', `/v1/orgs/acme/dns/zones/${zone}/rrsets/www.${zone}/A`, { body: { records: [{ content: '192.0.2.2' }], ttl: 300 } })).status).toBe(200);
    await expect(r.reconcile(zone, noAbort)).rejects.toThrow(reason);
    // knotd refused the transaction, then the whole zone.
    if (viaChanges) expect(logged.join('')).toContain('incremental change refused');

    const status = await statusOf<ZoneFacts>(t.store, 'zone', zone);
    expect(status?.lastError).toMatch(reason);
    expect(status).toMatchObject({ observedGeneration: goodStatus!.observedGeneration, facts: { servedSerial: goodStatus!.facts.servedSerial } });
    expect(await served(zone, dnssec)).toEqual(good);
    // The tenant reads the reason without the nameserver's own words; operators have those in lastError.
    const detail = await t.call('GET', `/v1/orgs/acme/dns/zones/${zone}`);
    expect(detail.body.status).toMatchObject({ ready: false, lastError: expect.stringContaining('serves the last one it took') });
    expect(detail.body.status.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'False', reason: 'ApplyFailed' }));

    // A restart loads what is on disk: the last good version, not the rejected one, and not SERVFAIL.
    await ns.stop();
    await start([{ name: zone, dnssec }]);
    expect(await served(zone, dnssec)).toEqual(good);
  });

  it('DNSSEC turned on over data that cannot be signed: the zone stays served unsigned, and the status says why', async () => {
    const zone = 'enable-reject.example';
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: zone } })).status).toBe(200);
    expect((await t.call('PUT', `/v1/orgs/acme/dns/zones/${zone}/rrsets/www.${zone}/A`, { body: { records: [{ content: '192.0.2.1' }], ttl: 300 } })).status).toBe(200);
    // Unsigned, knotd loads an rrset over 64 KiB (and answers SERVFAIL for it alone).
    await bypass(zone, { name: `big.${zone}`, type: 'TXT', ttl: 300, records: [{ content: 'a'.repeat(33_000) }, { content: 'b'.repeat(33_000) }] });
    await reconciler.reconcile(zone, noAbort);
    const good = await served(zone, false);
    expect(good.www).toEqual(['192.0.2.1']);

    expect((await t.call('POST', `/v1/orgs/acme/dns/zones/${zone}/dnssec`, { body: { enabled: true } })).status).toBe(200);
    await expect(reconciler.reconcile(zone, noAbort)).rejects.toThrow(/not enough space/);
    expect((await statusOf<ZoneFacts>(t.store, 'zone', zone))?.lastError).toMatch(/not enough space/);
    expect(await served(zone, true)).toEqual(good);

    // Started again with the desired setting, as serve does, knotd takes the signing it last accepted
    // (unsigned here, kept in knot.conf): the zone is served, not SERVFAIL.
    await ns.stop();
    await start([{ name: zone, dnssec: true }]);
    expect(await served(zone, true)).toEqual(good);
  });
});
