/**
 * Fuzz over record contents, end to end: hostile rrsets (sizes at the limits of one record and of one
 * answer, multibyte and control characters, zone-file metacharacters, names near 255 octets, many records,
 * CAA edge cases, wildcards) PUT through the API of a real `hostplane serve` with knotd. Whatever the API
 * answers 200 to, knotd serves exactly, over TCP without truncation, and signs once DNSSEC is turned on
 * after the writes; whatever it refuses is 400 `bad_request`, and the zones converge without an error.
 *
 * Deterministic: the cases come from a fixed seed (HOSTPLANE_FUZZ_SEED to try another), printed with every
 * failure.
 */
import type { Answer } from 'dns-packet';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordType, RRset } from '../../zonefiles';
import { query, txtValue, type DnsResponse } from '../../harness/dns';
import { freePort, hasKnot, knotTitle } from '../helpers/knot';
import { bootstrapWithCli, cleanup, http, startHostplane, tempDir, type Running } from '../helpers/proc';
import { hostileRRset, type HostileRRset } from '../zonefiles/arbitraries';

const SEED = Number(process.env.HOSTPLANE_FUZZ_SEED ?? 20_261_126);
const RUNS = 400;
// Names of one length, so that the generated sizes aim at the same limits in both.
const UNSIGNED = 'fuzz-u.example';
const SIGNED = 'fuzz-s.example';

interface Case {
  i: number;
  zone: string;
  owner: string;
  input: HostileRRset;
  status?: number;
  stored?: RRset;
}

const describeCase = (c: Case): string => {
  const records = c.input.records.map((r) => JSON.stringify(r.content.length > 80 ? `${r.content.slice(0, 80)}…(${r.content.length})` : r.content));
  return `seed ${SEED} case ${c.i}: ${c.zone} ${c.owner} ${c.input.type} ttl ${c.input.ttl}, ${records.length} records: ${records.slice(0, 3).join(', ')}`;
};

/** The owner expanded to the longest name the wildcard matches: a question of up to 255 octets. */
function questionFor(owner: string): string {
  if (!owner.startsWith('*.')) return owner;
  const rest = owner.slice(2);
  const labels: string[] = [];
  for (let fill = 253 - rest.length - 1; fill > 0;) {
    let n = Math.min(63, fill);
    if (fill - n === 1) n--;
    labels.push('q'.repeat(n));
    fill -= n + 1;
  }
  return [...labels, rest].join('.');
}

/** A served record in the API's canonical content form. */
function contentOf(a: Answer): string {
  switch (a.type) {
    case 'A':
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return a.data;
    case 'AAAA':
      return new URL(`http://[${a.data}]`).hostname.slice(1, -1);
    case 'MX':
      return `${a.data.preference} ${a.data.exchange || '.'}`;
    case 'SRV':
      return `${a.data.priority} ${a.data.weight} ${a.data.port} ${a.data.target || '.'}`;
    case 'TXT':
      return txtValue(a).toString('utf8');
    case 'CAA':
      return `${a.data.flags} ${a.data.tag} "${a.data.value}"`;
    default:
      return `unexpected ${a.type}`;
  }
}

const sorted = (xs: string[]): string[] => [...xs].sort();

describe.skipIf(!hasKnot())(knotTitle('fuzz: what the API accepts knotd serves and signs; the rest is 400'), () => {
  let serve: Running;
  let token: string;
  let dns: { host: string; port: number };
  const cases: Case[] = fc
    .sample(fc.tuple(hostileRRset(UNSIGNED), fc.boolean()), { seed: SEED, numRuns: RUNS })
    .map(([input, signed], i) => {
      const zone = signed ? SIGNED : UNSIGNED;
      const owner = [input.wildcard ? '*' : '', input.prefix, `c${i}`, zone].filter(Boolean).join('.');
      return { i, zone, owner, input };
    });
  const zonePath = (zone: string) => `/v1/orgs/acme/dns/zones/${zone}`;

  beforeAll(async () => {
    const dir = tempDir();
    token = await bootstrapWithCli(dir, 'acme', 'owner@acme.test', 'pro');
    dns = { host: '127.0.0.1', port: await freePort() };
    serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns-listen', `127.0.0.1:${dns.port}`, '--nameservers', 'ns1.hostplane.test,ns2.hostplane.test']);
    for (const zone of [UNSIGNED, SIGNED]) {
      const r = await http(serve.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: zone } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
  });
  afterAll(cleanup);

  it(`answers each of ${RUNS} generated rrsets 200 or 400 bad_request`, async () => {
    for (const c of cases) {
      const r = await http(serve.url, 'PUT', `${zonePath(c.zone)}/rrsets/${encodeURIComponent(c.owner)}/${c.input.type}`, {
        token, body: { records: c.input.records, ttl: c.input.ttl },
      });
      c.status = r.status;
      if (r.status === 200) c.stored = r.body as RRset;
      else expect({ status: r.status, code: r.body?.code }, `${describeCase(c)}\n${r.text.slice(0, 500)}`).toEqual({ status: 400, code: 'bad_request' });
    }
    const accepted = cases.filter((c) => c.stored).length;
    // Not vacuous either way: the generator aims at both sides of every limit.
    expect(accepted).toBeGreaterThan(RUNS / 4);
    expect(RUNS - accepted).toBeGreaterThan(RUNS / 4);
  });

  it('knotd serves every accepted rrset exactly, and signs it once DNSSEC is on', async () => {
    const on = await http(serve.url, 'POST', `${zonePath(SIGNED)}/dnssec`, { token, body: { enabled: true } });
    expect(on.status).toBe(200);
    for (const zone of [UNSIGNED, SIGNED]) {
      const deadline = Date.now() + 40_000;
      for (;;) {
        const { status } = (await http(serve.url, 'GET', zonePath(zone), { token })).body;
        if (status.observedGeneration === status.generation) {
          expect(status.ready, `seed ${SEED}: ${zone}: ${status.lastError}`).toBe(true);
          break;
        }
        expect(Date.now() < deadline, `seed ${SEED}: ${zone} did not converge: ${JSON.stringify(status)}`).toBe(true);
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    for (const c of cases.filter((x) => x.stored)) {
      const rrset = c.stored!;
      const signed = c.zone === SIGNED;
      const qname = questionFor(rrset.name);
      const what = `${describeCase(c)}\nasked ${qname} ${rrset.type}`;
      let r: DnsResponse;
      try {
        // The fuzzed types are served as themselves; an ALIAS (never fuzzed) would be asked as A.
        r = await query(dns, qname, rrset.type as Exclude<RecordType, 'ALIAS'>, { tcp: true, dnssecOk: true, timeoutMs: 5000 });
      } catch (e) {
        throw new Error(`${what}: ${(e as Error).message}`);
      }
      expect({ rcode: r.rcode, tc: r.flag_tc }, what).toEqual({ rcode: 'NOERROR', tc: false });
      // An NS rrset below the apex is a delegation: knotd refers to it (authority) instead of answering.
      const section = rrset.type === 'NS' ? (r.authorities ?? []) : (r.answers ?? []);
      const served = section.filter((a) => a.type === rrset.type);
      expect(sorted(served.map(contentOf)), what).toEqual(sorted(rrset.records.map((x) => x.content)));
      expect(served.every((a) => (a as { ttl?: number }).ttl === rrset.ttl), what).toBe(true);
      const rrsigs = section.filter((a) => a.type === 'RRSIG');
      if (rrset.type === 'NS') {
        // A delegation's NS is not signed; the signed proof that it has no DS is.
        expect(rrsigs.length > 0, `${what}: signed delegation proof`).toBe(signed);
      } else {
        expect(rrsigs.some((a) => a.type === 'RRSIG' && a.data.typeCovered === rrset.type), `${what}: RRSIG`).toBe(signed);
      }
    }
  });
});
