/**
 * The record types beyond the spec's (HTTPS, SVCB, TLSA, SSHFP, NAPTR, DS at a delegation) end to end: put
 * through the API of a real `hostplane serve`, served by its knotd as kdig reads them, and, once the zone is
 * signed, validated by Unbound (AD) from the zone's own DS as the trust anchor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dsAnchor, eventually, hasSecondaryTools, run, secondariesTitle, startUnbound, stopDaemons, type Resolver } from '../../harness/secondaries';
import { renderRecordData, type RecordType } from '../../zonefiles';
import { freePort, hasKnot } from '../helpers/knot';
import { bootstrapWithCli, cleanup, http, startHostplane, tempDir, type Running } from '../helpers/proc';

const ZONE = 'example.com';
const H32 = '0c72ac70b745ac19998811b131d662c9ac69dbdbe7cb23e5b514b56664c5d3d6';

/** Every new type, at the name it belongs: the DS beside the NS of its delegation. */
const RRSETS: [string, RecordType, string[]][] = [
  [ZONE, 'HTTPS', ['1 . alpn=h3,h2 ipv4hint=192.0.2.1 ipv6hint=2001:db8::1', '2 cdn.example.net mandatory=alpn,port alpn=h2 no-default-alpn port=8443 ech=AEX+/w==']],
  [`_dns.${ZONE}`, 'SVCB', ['1 dns.example.com alpn=dot port=853']],
  [`_25._tcp.mail.${ZONE}`, 'TLSA', [`3 1 1 ${H32}`]],
  [`host.${ZONE}`, 'SSHFP', [`4 2 ${H32}`]],
  [ZONE, 'NAPTR', ['100 10 "S" "SIP+D2U" "" _sip._udp.example.com', '100 20 "U" "E2U+sip" "!^\\\\+1(.*)$!sip:\\\\1@example.com!" .']],
  [`child.${ZONE}`, 'NS', ['ns1.child.example.net']],
  [`child.${ZONE}`, 'DS', [`2371 13 2 ${H32}`]],
];
const served = RRSETS.filter(([, type]) => type !== 'NS');

/** RDATA text in one comparable form: blanks collapsed, one case (kdig prints hex in upper case). */
const comparable = (rdata: string): string => rdata.replace(/\s+/g, ' ').trim().toLowerCase();

describe.skipIf(!hasKnot() || !hasSecondaryTools())(secondariesTitle('HTTPS, SVCB, TLSA, SSHFP, NAPTR and DS: put, served by knotd, signed and validated by Unbound'), () => {
  let serve: Running;
  let token: string;
  let dns: { host: string; port: number };
  let unbound: Resolver;
  const zonePath = `/v1/orgs/acme/dns/zones/${ZONE}`;

  /** kdig's answer lines for one question: `owner ttl class type rdata`, and the header flags. */
  async function kdig(server: { host: string; port: number }, name: string, type: string, flags: string[] = []): Promise<{ rdata: string[]; flags: string; text: string }> {
    const r = await run('kdig', [`@${server.host}`, '-p', String(server.port), '+tcp', '+timeout=3', '+retry=0', ...flags, name, type]);
    const answer = r.stdout.split(/;; ANSWER SECTION:\n/)[1]?.split(/\n\n/)[0] ?? '';
    const rdata = answer.split('\n').map((l) => l.split(/\s+/)).filter((f) => f[3] === type).map((f) => f.slice(4).join(' '));
    return { rdata, flags: /;; Flags: ([^;]*);/.exec(r.stdout)?.[1] ?? '', text: r.stdout };
  }

  beforeAll(async () => {
    const dir = tempDir();
    token = await bootstrapWithCli(dir);
    dns = { host: '127.0.0.1', port: await freePort() };
    serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns-listen', `127.0.0.1:${dns.port}`, '--nameservers', 'ns1.hostplane.test,ns2.hostplane.test']);
    expect((await http(serve.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: ZONE } })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await stopDaemons();
    await cleanup();
  });

  it('takes each through the API and knotd serves exactly what was put', async () => {
    for (const [name, type, contents] of RRSETS) {
      const r = await http(serve.url, 'PUT', `${zonePath}/rrsets/${name}/${type}`, { token, body: { records: contents.map((content) => ({ content })), ttl: 300 } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    for (const [name, type, contents] of served) {
      const expected = contents.map((c) => comparable(renderRecordData(type, c))).sort();
      const got = await eventually(() => kdig(dns, name, type), (a) => a.rdata.length === contents.length, 10_000);
      expect(got.rdata.map(comparable).sort(), `${name} ${type}\n${got.text}`).toEqual(expected);
    }
  }, 60_000);

  it('signs each once DNSSEC is on, and Unbound validates each from the zone\'s DS (AD)', async () => {
    expect((await http(serve.url, 'POST', `${zonePath}/dnssec`, { token, body: { enabled: true } })).status).toBe(200);
    const zone = await eventually(async () => (await http(serve.url, 'GET', zonePath, { token })).body, (b) => b.status.signerDs.length > 0, 20_000);
    for (const [name, type] of served) {
      const covered = new RegExp(`RRSIG\\s+${type}\\s`);
      const signed = await eventually(() => kdig(dns, name, type, ['+dnssec']), (a) => covered.test(a.text), 10_000);
      expect(signed.text, `${name} ${type}`).toMatch(covered);
    }
    unbound = await startUnbound({ stubs: { [ZONE]: dns }, trustAnchors: zone.status.signerDs.map((ds: Parameters<typeof dsAnchor>[1]) => dsAnchor(ZONE, ds)) });
    for (const [name, type, contents] of served) {
      const a = await kdig(unbound.server, name, type, ['+dnssec', '+adflag', '+rec']);
      expect(a.text, `${name} ${type}\n${unbound.log().slice(-2000)}`).toContain('status: NOERROR');
      expect(a.flags.split(/\s+/), `${name} ${type}\n${a.text}\n${unbound.log().slice(-2000)}`).toContain('ad');
      expect(a.rdata.length, `${name} ${type}\n${a.text}`).toBe(contents.length);
    }
  }, 90_000);
});
