/**
 * `?dryRun=true` on putRRset and deleteRRset (CONTRACT.md "Zone changes, files and revisions"): every refused
 * write is refused the same way dry (status and body), and an accepted one answers the diff, generation and
 * serial the write then takes, leaving the zone, the audit log and the revisions as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../../rules/plans';
import { startTestApi, type TestApi } from '../helpers/app';

const Z = 'dry.example';
const zonePath = (zone: string, slug = 'acme') => `/v1/orgs/${slug}/dns/zones/${zone}`;
const rrPath = (zone: string, name: string, type: string, slug = 'acme') => `${zonePath(zone, slug)}/rrsets/${name}/${type}`;
const records = (...contents: string[]) => contents.map((content) => ({ content }));
/** An error's body without its request id, which is every request's own. */
const answer = (r: { status: number; body: { requestId?: string } }) => {
  const { requestId: _, ...body } = r.body;
  return { status: r.status, body };
};
/** Four rrsets a zone: the apex NS, the two the test starts with, and room for one more. */
const RRSETS = 4;

let t: TestApi;
let otherZone = '';
beforeAll(async () => {
  t = await startTestApi({ config: { plans: { ...DEFAULT_PLANS, free: { ...DEFAULT_PLANS.free!, rrsetsPerZone: RRSETS } } } });
  expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: Z } })).status).toBe(200);
  expect((await t.call('PUT', rrPath(Z, `www.${Z}`, 'A'), { body: { records: records('192.0.2.1') } })).status).toBe(200);
  expect((await t.call('PUT', rrPath(Z, `alias.${Z}`, 'CNAME'), { body: { records: records('target.example.net') } })).status).toBe(200);
  otherZone = 'theirs.example';
  expect((await t.call('POST', '/v1/orgs/globex/dns/zones', { token: t.other.token, body: { name: otherZone } })).status).toBe(200);
});
afterAll(async () => { await t.close(); });

/** Everything a write could change, as the API shows it. */
async function state(): Promise<unknown> {
  return {
    zone: (await t.call('GET', zonePath(Z))).body,
    audit: (await t.call('GET', '/v1/orgs/acme/audit?limit=1000')).body.items.length,
    revisions: (await t.call('GET', `${zonePath(Z)}/revisions`)).body,
  };
}

interface Case { what: string; method: 'PUT' | 'DELETE'; path: string; body?: unknown; headers?: Record<string, string>; status: number; code: string }
const put = (what: string, name: string, type: string, body: unknown, status: number, code: string, headers?: Record<string, string>): Case =>
  ({ what, method: 'PUT', path: rrPath(Z, name, type), body, status, code, ...(headers && { headers }) });
const del = (what: string, path: string, status: number, code: string, headers?: Record<string, string>): Case =>
  ({ what, method: 'DELETE', path, status, code, ...(headers && { headers }) });

const CASES: Case[] = [
  put('a bad A record', `x.${Z}`, 'A', { records: records('192.0.2.1', '192.0.2') }, 400, 'bad_request'),
  put('every bad record at once', `x.${Z}`, 'A', { records: records('x', '192.0.2.1', 'y') }, 400, 'bad_request'),
  put('a bad MX', `x.${Z}`, 'MX', { records: records('mail.example.net') }, 400, 'bad_request'),
  put('an SRV owner without _service._proto', `sip.${Z}`, 'SRV', { records: records('10 5 5060 sip.example.net') }, 400, 'bad_request'),
  put('a CNAME with two records', `c.${Z}`, 'CNAME', { records: records('a.example.net', 'b.example.net') }, 400, 'bad_request'),
  put('a CNAME at the apex', Z, 'CNAME', { records: records('a.example.net') }, 400, 'bad_request'),
  put('an owner outside the zone', 'www.elsewhere.example', 'A', { records: records('192.0.2.1') }, 400, 'bad_request'),
  put('a bad owner', `a..b.${Z}`, 'A', { records: records('192.0.2.1') }, 400, 'bad_request'),
  put('empty records', `x.${Z}`, 'A', { records: [] }, 400, 'bad_request'),
  put('an unknown body field', `x.${Z}`, 'A', { records: records('192.0.2.1'), proxied: true }, 400, 'bad_request'),
  put('ttl 59', `x.${Z}`, 'A', { records: records('192.0.2.1'), ttl: 59 }, 400, 'bad_request'),
  put('an unsupported type', `x.${Z}`, 'HINFO', { records: records('a b') }, 400, 'bad_request'),
  put('the SOA', Z, 'SOA', { records: records('x') }, 409, 'managed_rrset'),
  put('the apex NS', Z, 'NS', { records: records('ns.example.net') }, 409, 'managed_rrset'),
  put('a CNAME beside an A', `www.${Z}`, 'CNAME', { records: records('a.example.net') }, 409, 'cname_conflict'),
  put('an A beside a CNAME', `alias.${Z}`, 'A', { records: records('192.0.2.1') }, 409, 'cname_conflict'),
  put('an ALIAS beside an A', `www.${Z}`, 'ALIAS', { records: records('cdn.example.net') }, 409, 'alias_conflict'),
  put('an ALIAS with two targets', Z, 'ALIAS', { records: records('a.example.net', 'b.example.net') }, 400, 'bad_request'),
  put('an ALIAS at its own name', `self.${Z}`, 'ALIAS', { records: records(`self.${Z}`) }, 400, 'bad_request'),
  put('a stale If-Match', `www.${Z}`, 'A', { records: records('192.0.2.2') }, 412, 'precondition_failed', { 'if-match': '"1-nope"' }),
  put('If-None-Match * on an rrset that exists', `www.${Z}`, 'A', { records: records('192.0.2.2') }, 412, 'precondition_failed', { 'if-none-match': '*' }),
  { what: 'another organization\'s zone', method: 'PUT', path: rrPath('theirs.example', 'www.theirs.example', 'A'), body: { records: records('192.0.2.1') }, status: 404, code: 'not_found' },
  put('a zone name of one label', 'x', 'A', { records: records('192.0.2.1') }, 400, 'bad_request'),
  del('an rrset that is not there', rrPath(Z, `none.${Z}`, 'A'), 404, 'not_found'),
  del('the apex NS', rrPath(Z, Z, 'NS'), 409, 'managed_rrset'),
  del('the SOA', rrPath(Z, Z, 'SOA'), 409, 'managed_rrset'),
  del('a stale If-Match', rrPath(Z, `www.${Z}`, 'A'), 412, 'precondition_failed', { 'if-match': '"1-nope"' }),
  del('an owner outside the zone', rrPath(Z, 'www.elsewhere.example', 'A'), 400, 'bad_request'),
  del('another organization\'s zone', rrPath('theirs.example', 'www.theirs.example', 'A'), 404, 'not_found'),
];

describe('every refused rrset write is refused the same way dry', () => {
  it.each(CASES)('$method $what → $status $code, with and without dryRun', async (c) => {
    const before = await state();
    const sent = (dry: boolean) => t.call(c.method, dry ? `${c.path}?dryRun=true` : c.path, { token: t.tokens.member, body: c.body, ...(c.headers && { headers: c.headers }) });
    const dry = await sent(true);
    const real = await sent(false);
    expect([real.status, real.body.code], JSON.stringify(real.body)).toEqual([c.status, c.code]);
    expect(answer(dry)).toEqual(answer(real));
    expect(await state()).toEqual(before);
  });

  it('the quota: one rrset more than the plan allows is 409 quota_exceeded both ways', async () => {
    expect((await t.call('PUT', rrPath(Z, `fill.${Z}`, 'A'), { body: { records: records('192.0.2.1') } })).status).toBe(200);
    const path = rrPath(Z, `over.${Z}`, 'A');
    const dry = await t.call('PUT', `${path}?dryRun=true`, { token: t.tokens.member, body: { records: records('192.0.2.1') } });
    const real = await t.call('PUT', path, { token: t.tokens.member, body: { records: records('192.0.2.1') } });
    expect([real.status, real.body.code]).toEqual([409, 'quota_exceeded']);
    expect(answer(dry)).toEqual(answer(real));
    expect((await t.call('DELETE', rrPath(Z, `fill.${Z}`, 'A'))).status).toBe(204);
  });

  it('a dryRun that is not true or false is 400', async () => {
    const r = await t.call('PUT', `${rrPath(Z, `x.${Z}`, 'A')}?dryRun=yes`, { body: { records: records('192.0.2.1') } });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
  });
});

describe('an accepted rrset write, dry', () => {
  it('putRRset answers the diff, generation and serial the write then takes, and writes nothing', async () => {
    const before = await state();
    const path = rrPath(Z, `www.${Z}`, 'A');
    const dry = await t.call('PUT', `${path}?dryRun=true`, { token: t.tokens.member, body: { records: records('192.0.2.7'), ttl: 600 } });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.diff).toEqual([
      { op: 'change', name: `www.${Z}`, type: 'A', before: { ttl: 3600, records: records('192.0.2.1') }, after: { ttl: 600, records: records('192.0.2.7') } },
    ]);
    expect(await state()).toEqual(before);
    const real = await t.call('PUT', path, { token: t.tokens.member, body: { records: records('192.0.2.7'), ttl: 600 } });
    expect(real.status).toBe(200);
    const zone = (await t.call('GET', zonePath(Z))).body;
    expect([zone.status.generation, zone.serial]).toEqual([dry.body.generation, dry.body.serial]);
    // The same again changes nothing: an empty diff at the generation it has.
    const again = await t.call('PUT', `${path}?dryRun=true`, { token: t.tokens.member, body: { records: records('192.0.2.7'), ttl: 600 } });
    expect(again.body).toEqual({ generation: zone.status.generation, serial: zone.serial, diff: [] });
  });

  it('deleteRRset answers 200 with the diff instead of 204, and writes nothing', async () => {
    expect((await t.call('PUT', rrPath(Z, `gone.${Z}`, 'TXT'), { body: { records: records('bye') } })).status).toBe(200);
    const before = await state();
    const path = rrPath(Z, `gone.${Z}`, 'TXT');
    const dry = await t.call('DELETE', `${path}?dryRun=true`, { token: t.tokens.member });
    expect(dry.status).toBe(200);
    expect(dry.body.diff).toEqual([{ op: 'remove', name: `gone.${Z}`, type: 'TXT', before: { ttl: 3600, records: records('bye') }, after: null }]);
    expect(await state()).toEqual(before);
    expect((await t.call('DELETE', path, { token: t.tokens.member })).status).toBe(204);
    const zone = (await t.call('GET', zonePath(Z))).body;
    expect([zone.status.generation, zone.serial]).toEqual([dry.body.generation, dry.body.serial]);
  });
});
