/**
 * Issue 14, "How it is checked": `hostplane serve` as a hidden primary with real third-party software around
 * it on loopback. BIND `named` and a second knotd follow it as secondaries through its catalog zone, under
 * TSIG; a signed parent zone (`com`, another knotd) holds the zone's DS as a registry would; Unbound validates
 * through the primary and through BIND, and is the resolver serve's delegation and DS checks use
 * (`--resolver`), so nothing here asks the machine's resolver.
 *
 * Needs the flags `--catalog-zone`, `--tsig-key` and `--resolver` of `serve`. secondaries-harness.test.ts proves
 * the same harness against a plain knotd: when only this file fails, hostplane is at fault.
 */
import type { Answer } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsResponse, Server } from '../../harness/dns';
import { freePort } from '../helpers/knot';
import { bootstrapWithCli, cleanup, http, startHostplane, tempDir, type Running } from '../helpers/proc';
import {
  axfr, diffRecords, dsAnchor, eventually, hasSecondaryTools, newTsigKey, parentZoneText, secondariesTitle, soaSerial,
  startBindSecondary, startKnotPrimary, startKnotSecondary, startUnbound, stopDaemons, verifySigned, writeTsigKeyFile,
  type Axfr, type KnotPrimary, type Resolver, type Secondary, type TsigKey,
} from '../../harness/secondaries';

const ZONE = 'example.com';
const zonePath = `/v1/orgs/acme/dns/zones/${ZONE}`;
const rrs = (answers: Answer[] | undefined, type: string): Answer[] => (answers ?? []).filter((a) => a.type === type);
const types = (copy: Axfr): Set<string> => new Set(copy.records.map((r) => r.split(' ')[3]!));

describe.skipIf(!hasSecondaryTools())(secondariesTitle('serve as hidden primary: BIND and Knot secondaries via catalog and TSIG, Unbound validating'), () => {
  let serve: Running;
  let token: string;
  let key: TsigKey;
  let primary: Server;
  let parent: KnotPrimary;
  let bind: Secondary;
  let knot: Secondary;
  let secondaries: Secondary[];
  /** Validates through the primary; also serve's `--resolver`. */
  let viaPrimary: Resolver;
  /** Validates through the BIND secondary. */
  let viaBind: Resolver;

  const api = (method: string, path: string, body?: unknown) => http(serve.url, method, path, { token, body });
  const primaryAxfr = (zone: string) => axfr(primary, zone, key);

  /** Waits until the API says the zone's current generation is served (the primary has it). */
  async function applied(zone = ZONE): Promise<void> {
    const z = await eventually(
      async () => (await api('GET', `/v1/orgs/acme/dns/zones/${zone}`)).body,
      (b) => b?.status?.ready === true && b.status.observedGeneration === b.status.generation,
      15_000,
    );
    expect(z.status, JSON.stringify(z.status)).toMatchObject({ ready: true });
  }

  /** Every secondary serves `zone` at the primary's serial with exactly the primary's records; a signed copy
   * passes dnssec-verify and ldns-verify-zone. */
  async function converged(zone = ZONE, opts: { signed?: boolean } = {}): Promise<Axfr> {
    const reference = await primaryAxfr(zone);
    expect(reference.ok, reference.text).toBe(true);
    await Promise.all(secondaries.map(async (s) => {
      const at = await eventually(() => s.soa(zone), (v) => v === reference.serial, 15_000);
      expect(at, `${s.kind} serves ${zone} at the primary's serial ${reference.serial}\n${s.log().slice(-4000)}`).toBe(reference.serial);
      const copy = await s.axfr(zone);
      expect(copy.ok, copy.text).toBe(true);
      expect(diffRecords(reference, copy), `${s.kind}'s copy of ${zone} at serial ${reference.serial}`).toEqual({ missing: [], extra: [] });
      if (opts.signed) {
        const v = await verifySigned(zone, copy);
        expect(v.ok, `${s.kind}'s copy of ${zone}: ${v.output}`).toBe(true);
      }
    }));
    return reference;
  }

  /** The primary's serial before a change, so that the next converged() is known to be about the new one. */
  async function change(name: string, type: string, records: string[], ttl = 300): Promise<void> {
    const before = await soaSerial(primary, ZONE);
    const r = await api('PUT', `${zonePath}/rrsets/${name}/${type}`, { records: records.map((content) => ({ content })), ttl });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await applied();
    const after = await eventually(() => soaSerial(primary, ZONE), (v) => v !== before, 10_000);
    expect(after).not.toBe(before);
  }

  /** Secure answers (AD) for a record, NXDOMAIN and NODATA through both validating resolvers. */
  async function validatesSecure(name: string, address: string): Promise<void> {
    for (const r of [viaPrimary, viaBind]) {
      const a = await r.resolve(name, 'A');
      expect([a.rcode, a.flag_ad], `${name} A\n${r.log().slice(-3000)}`).toEqual(['NOERROR', true]);
      expect(rrs(a.answers, 'A').map((x) => (x as { data: unknown }).data)).toEqual([address]);
      const nx = await r.resolve(`nope-${Date.now()}.${ZONE}`, 'A');
      expect([nx.rcode, nx.flag_ad], `NXDOMAIN\n${r.log().slice(-3000)}`).toEqual(['NXDOMAIN', true]);
      const nodata = await r.resolve(name, 'TXT');
      expect([nodata.rcode, nodata.flag_ad, rrs(nodata.answers, 'TXT')], `NODATA\n${r.log().slice(-3000)}`).toEqual(['NOERROR', true, []]);
    }
  }

  type Seen = { ixfr: number; axfr: number; sizes: number };
  const transfers = (): Seen[] => secondaries.map((s) => ({ ...s.transfers(ZONE), sizes: s.transferBytes(ZONE).length }));
  /** Since `before`: no AXFR, at least `changes` IXFRs, each of them small (one rrset, its signatures and NSEC
   * changes: about 1 KB; the whole signed zone is tens of KB by then). */
  function onlyIxfrSince(before: Seen[], changes: number, maxBytes = 4096): void {
    secondaries.forEach((s, i) => {
      const now = s.transfers(ZONE);
      expect(now.axfr - before[i]!.axfr, `${s.kind} fell back to AXFR\n${s.log().slice(-4000)}`).toBe(0);
      expect(now.ixfr - before[i]!.ixfr, `${s.kind} IXFRs`).toBeGreaterThanOrEqual(changes);
      const sizes = s.transferBytes(ZONE).slice(before[i]!.sizes);
      expect(sizes.filter((b) => b > maxBytes), `${s.kind}'s transfers over ${maxBytes} bytes (all: ${sizes.join(', ')})`).toEqual([]);
    });
  }

  beforeAll(async () => {
    const dir = tempDir('hostplane-secondaries-');
    const keyDir = tempDir('hostplane-tsig-');
    token = await bootstrapWithCli(dir);
    key = newTsigKey('hostplane-xfr');
    const keyFile = writeTsigKeyFile(keyDir, key);
    const [dnsPort, bindPort, knotPort] = await Promise.all([freePort(), freePort(), freePort()]);
    primary = { host: '127.0.0.1', port: dnsPort };
    // The parent zone, without a DS for the child yet (an unsigned delegation).
    parent = await startKnotPrimary({ zones: [{ name: 'com', text: parentZoneText('com', ZONE, { serial: 1 }), signed: true }], secondaries: [], catalogZone: 'catalog.parent.invalid' });
    const parentDs = (await parent.ds('com')).filter((l) => /\sDS\s/.test(l));
    viaPrimary = await startUnbound({ stubs: { com: parent.server, [ZONE]: primary }, trustAnchors: parentDs });
    serve = await startHostplane([
      'serve', '--port', '0', '--data', dir, '--dns-listen', `127.0.0.1:${dnsPort}`,
      '--nameservers', 'ns1.hostplane.test,ns2.hostplane.test',
      '--secondaries', `127.0.0.1:${bindPort},127.0.0.1:${knotPort}`,
      '--catalog-zone', 'catalog.invalid',
      '--tsig-key', keyFile,
      '--resolver', `127.0.0.1:${viaPrimary.port}`,
    ]);
    const created = await api('POST', '/v1/orgs/acme/dns/zones', { name: ZONE });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await applied();
    // The catalog too, before a secondary asks for it: a primary without it yet answers REFUSED, unsigned, which BIND
    // logs as a missing TSIG (the transfers test below reads BIND's log for those).
    await eventually(() => primaryAxfr('catalog.invalid'), (c) => c.records.some((r) => / PTR example\.com\.$/.test(r)), 15_000);
    [bind, knot] = await Promise.all([
      startBindSecondary({ primary, port: bindPort, tsig: key, catalogZone: 'catalog.invalid' }),
      startKnotSecondary({ primary, port: knotPort, tsig: key, catalogZone: 'catalog.invalid' }),
    ]);
    secondaries = [bind, knot];
    viaBind = await startUnbound({ stubs: { com: parent.server, [ZONE]: bind.server }, trustAnchors: parentDs });
  }, 90_000);
  afterAll(async () => {
    await serve?.stop('SIGTERM');
    await stopDaemons();
    await cleanup();
  });

  it('the secondaries learn the zone from the catalog and serve the primary\'s copy', async () => {
    await converged();
    const catalog = await primaryAxfr('catalog.invalid');
    expect(catalog.ok, catalog.text).toBe(true);
    expect(catalog.records.some((r) => / PTR example\.com\.$/.test(r)), catalog.records.join('\n')).toBe(true);
  });

  it('transfers need the TSIG key: unsigned AXFR requests of the zone and the catalog are refused', async () => {
    for (const zone of [ZONE, 'catalog.invalid']) {
      const unsigned = await axfr(primary, zone);
      expect(unsigned.ok, unsigned.text).toBe(false);
      expect((await axfr(primary, zone, key)).ok).toBe(true);
    }
    // The secondaries got their copies with the key.
    expect(bind.log()).not.toMatch(/expected a TSIG|tsig verify failure|bad key/i);
    expect(knot.log()).not.toMatch(/TSIG.*(failed|bad)|BADKEY|BADSIG/);
  });

  it('unsigned: 10 single changes each reach both secondaries as an IXFR at the primary\'s serial', async () => {
    const before = transfers();
    for (let i = 0; i < 10; i++) {
      await change(`u${i}.${ZONE}`, 'A', [`192.0.2.${i + 1}`]);
      await converged();
    }
    onlyIxfrSince(before, 10);
  });

  it('DNSSEC on: the secondaries serve the signed zone, and it validates through the parent\'s DS', async () => {
    const before = transfers();
    const on = await api('POST', `${zonePath}/dnssec`, { enabled: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    const z = await eventually(async () => (await api('GET', zonePath)).body, (b) => b.status.signerDs.length > 0, 15_000);
    expect(z.status.signerDs.length).toBeGreaterThan(0);
    await eventually(() => primaryAxfr(ZONE), (c) => types(c).has('DNSKEY') && types(c).has('RRSIG') && types(c).has('NSEC'), 15_000);
    await applied();
    await converged(ZONE, { signed: true });
    // Signing was an incremental change too.
    secondaries.forEach((s, i) => expect(s.transfers(ZONE).axfr - before[i]!.axfr, `${s.kind} AXFR on signing\n${s.log().slice(-4000)}`).toBe(0));

    // The registry publishes the DS (in the parent) and the owner records it (setZoneDS).
    const ds = (z.status.signerDs as { keyTag: number; algorithm: number; digestType: number; digest: string }[]);
    await parent.setZone({ name: 'com', text: parentZoneText('com', ZONE, { serial: 2, ds: ds.map((d) => dsAnchor(ZONE, d)) }), signed: true });
    const recorded = await api('PUT', `${zonePath}/dnssec/ds`, { ds: ds.map(({ keyTag, algorithm, digestType, digest }) => ({ keyTag, algorithm, digestType, digest })) });
    expect(recorded.status, JSON.stringify(recorded.body)).toBe(200);
    await validatesSecure(`u0.${ZONE}`, '192.0.2.1');
  });

  it('signed: 50 single changes each reach both secondaries as a minimal IXFR, exact and valid; Unbound still validates', async () => {
    const before = transfers();
    for (let i = 0; i < 50; i++) {
      await change(`s${i}.${ZONE}`, 'A', [`198.51.100.${i + 1}`]);
      await converged(ZONE, { signed: true });
    }
    onlyIxfrSince(before, 50);
    await validatesSecure(`s49.${ZONE}`, '198.51.100.50');
    // A replaced rrset: the old record is gone from every copy.
    await change(`s0.${ZONE}`, 'A', ['198.51.100.200']);
    const copy = await converged(ZONE, { signed: true });
    expect(copy.records.filter((r) => r.startsWith(`s0.${ZONE}. `) && r.split(' ')[3] === 'A')).toEqual([`s0.${ZONE}. 300 IN A 198.51.100.200`]);
    await validatesSecure(`s0.${ZONE}`, '198.51.100.200');
  }, 180_000);

  it('a zone created through the API appears on the secondaries through the catalog, a deleted one disappears', async () => {
    const created = await api('POST', '/v1/orgs/acme/dns/zones', { name: 'added.com' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await applied('added.com');
    await converged('added.com');
    expect((await api('DELETE', '/v1/orgs/acme/dns/zones/added.com')).status).toBe(204);
    await Promise.all(secondaries.map(async (s) => {
      const gone = await eventually(() => s.soa('added.com'), (v) => v === null, 20_000);
      expect(gone, `${s.kind} still serves added.com\n${s.log().slice(-3000)}`).toBeNull();
    }));
    const catalog = await primaryAxfr('catalog.invalid');
    expect(catalog.records.some((r) => / PTR added\.com\.$/.test(r))).toBe(false);
  });

  it('DNSSEC off is safe: CDS/CDNSKEY DELETE while the parent has the DS, unsigned once it is gone, never SERVFAIL', async () => {
    const answers: { via: string; at: number; rcode: string; ad: boolean }[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        await Promise.all([['primary', viaPrimary], ['bind', viaBind]].map(async ([via, r]) => {
          const a: DnsResponse | null = await (r as Resolver).resolve(`s1.${ZONE}`, 'A').catch(() => null);
          answers.push({ via: via as string, at: Date.now(), rcode: a?.rcode ?? 'TIMEOUT', ad: a?.flag_ad ?? false });
        }));
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
    try {
      const off = await api('POST', `${zonePath}/dnssec`, { enabled: false });
      expect(off.body).toMatchObject({ dnssec: 'off', ds: [] });
      // While the parent still has the DS, the zone stays signed and asks for the DS' removal (RFC 8078).
      const deleting = await eventually(() => primaryAxfr(ZONE), (c) => c.records.some((r) => / CDS 0 0 0 00$/.test(r)), 20_000);
      expect(deleting.records.filter((r) => / (CDS|CDNSKEY) /.test(r)), deleting.records.join('\n')).toEqual(expect.arrayContaining([
        expect.stringMatching(/ CDS 0 0 0 00$/), expect.stringMatching(/ CDNSKEY 0 3 0 AA==$/),
      ]));
      expect(types(deleting).has('RRSIG')).toBe(true);
      await converged(ZONE, { signed: true });
      // The registry acts on CDS DELETE: the DS leaves the parent. Only then do the signatures go.
      await parent.setZone({ name: 'com', text: parentZoneText('com', ZONE, { serial: 3 }), signed: true });
      const dsRemovedAt = Date.now();
      const unsigned = await eventually(() => primaryAxfr(ZONE), (c) => !types(c).has('RRSIG') && !types(c).has('DNSKEY'), 90_000, 250);
      expect([...types(unsigned)].sort(), unsigned.records.join('\n')).toEqual(['A', 'NS', 'SOA']);
      process.stderr.write(`DNSSEC off: unsigned ${Date.now() - dsRemovedAt} ms after the DS left the parent\n`);
      await applied();
      await converged();
      // Insecure now (the parent proves there is no DS), answered, not SERVFAIL.
      for (const r of [viaPrimary, viaBind]) {
        const a = await eventually(() => r.resolve(`s1.${ZONE}`, 'A'), (x) => x.rcode === 'NOERROR' && !x.flag_ad, 5_000);
        expect([a.rcode, a.flag_ad]).toEqual(['NOERROR', false]);
      }
    } finally {
      probing = false;
      await probe;
    }
    expect(answers.length).toBeGreaterThan(10);
    expect(answers.filter((a) => a.rcode !== 'NOERROR'), 'answers that were not NOERROR during DNSSEC off').toEqual([]);
  }, 150_000);

  it('after DNSSEC off, changes still reach the secondaries as IXFR', async () => {
    const before = transfers();
    for (let i = 0; i < 3; i++) {
      await change(`after${i}.${ZONE}`, 'A', [`203.0.113.${i + 1}`]);
      await converged();
    }
    onlyIxfrSince(before, 3);
  });

  it('a secondary that was down catches up on its own, and the zone\'s status shows it behind meanwhile', async () => {
    await converged();
    await knot.stop();
    await change(`while-down.${ZONE}`, 'A', ['203.0.113.99']);
    const behind = await eventually(
      async () => (await api('GET', zonePath)).body,
      (b) => b.status.conditions.some((c: { type: string; status: string }) => c.type === 'SecondariesInSync' && c.status === 'False'),
      15_000,
    );
    const condition = behind.status.conditions.find((c: { type: string }) => c.type === 'SecondariesInSync');
    expect(condition, JSON.stringify(behind.status.conditions)).toMatchObject({ status: 'False', reason: 'SecondaryBehind' });
    expect(condition.message).toContain(String(knot.port));
    expect(condition.message).not.toContain(String(bind.port));
    const downSince = Date.now();
    await knot.restart();
    // No operator: the primary keeps notifying a secondary that is behind (the SOA refresh alone would take an hour).
    const serial = await soaSerial(primary, ZONE);
    const caughtUp = await eventually(() => knot.soa(ZONE), (v) => v === serial, 90_000, 250);
    expect(caughtUp, knot.log().slice(-3000)).toBe(serial);
    process.stderr.write(`secondary caught up ${Date.now() - downSince} ms after it came back\n`);
    await converged();
    const inSync = await eventually(
      async () => (await api('GET', zonePath)).body,
      (b) => b.status.conditions.some((c: { type: string; status: string }) => c.type === 'SecondariesInSync' && c.status === 'True'),
      45_000, 250,
    );
    const after = inSync.status.conditions.find((c: { type: string }) => c.type === 'SecondariesInSync');
    expect(after, JSON.stringify(after)).toMatchObject({ status: 'True', reason: 'InSync' });
    process.stderr.write(`SecondariesInSync True again ${Date.now() - downSince} ms after the secondary came back\n`);
  }, 120_000);
});
