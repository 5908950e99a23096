/**
 * Dry runs (CONTRACT.md "Zone changes, files and revisions"; issue 25 item 2): `?dryRun=true` on putRRset and
 * deleteRRset, `"dryRun": true` on a change set and a restore, `?dryRun=true` on an import. Every refused write is
 * refused the same way dry (status and body), and an accepted one answers the diff, generation and serial the write
 * then takes, leaving the zone (its generation and ETag), the audit log and the revisions as they were, and sends
 * no `X-Generation` (nor putRRset's `ETag`): that generation never comes.
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
async function state(zone = Z): Promise<unknown> {
  const read = await t.call('GET', zonePath(zone));
  return {
    zone: read.body,
    etag: read.headers.get('etag'),
    audit: (await t.call('GET', '/v1/orgs/acme/audit?limit=1000')).body.items.length,
    revisions: (await t.call('GET', `${zonePath(zone)}/revisions`)).body,
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
    expect([dry.headers.get('etag'), dry.headers.get('x-generation')]).toEqual([null, null]);
    const real = await t.call('PUT', path, { token: t.tokens.member, body: { records: records('192.0.2.7'), ttl: 600 } });
    expect(real.status).toBe(200);
    expect(real.headers.get('x-generation')).toBe(String(dry.body.generation));
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

const putChange = (name: string, type: string, ...contents: string[]) => ({ op: 'put', name, type, ttl: 300, records: records(...contents) });
const DS = `2371 13 2 ${'ab'.repeat(32)}`;

interface SetCase { what: string; changes: unknown; headers?: Record<string, string>; status: number; code: string; paths?: string[] }
const SET_CASES: SetCase[] = [
  { what: 'a change of the wrong shape', changes: [{ ...putChange(`x.${Z}`, 'A', '192.0.2.1'), ttl: 0 }], status: 400, code: 'bad_request', paths: ['changes[0].ttl'] },
  {
    what: 'a change of the wrong shape among refusals of every stage',
    changes: [putChange(`x.${Z}`, 'A', '192.0.2'), { op: 'delete', name: `none.${Z}`, type: 'A' }, { op: 'put', name: `y.${Z}`, type: 'A', ttl: 0, records: [] }, putChange(Z, 'NS', 'ns.example.net')],
    status: 400, code: 'bad_request', paths: ['changes[0].records[0].content', 'changes[1]', 'changes[2].ttl', 'changes[2].records', 'changes[3]'],
  },
  { what: 'bad content', changes: [putChange(`x.${Z}`, 'MX', 'mail.example.net')], status: 400, code: 'bad_request', paths: ['changes[0].records[0].content'] },
  { what: 'the SOA', changes: [putChange(Z, 'SOA', 'x')], status: 400, code: 'bad_request', paths: ['changes[0].type'] },
  { what: 'the apex NS (managed)', changes: [{ op: 'delete', name: Z, type: 'NS' }], status: 400, code: 'bad_request', paths: ['changes[0]'] },
  { what: 'a delete of an rrset that is not there', changes: [{ op: 'delete', name: `none.${Z}`, type: 'A' }], status: 400, code: 'bad_request', paths: ['changes[0]'] },
  { what: 'a CNAME beside an A', changes: [putChange(`www.${Z}`, 'CNAME', 'a.example.net')], status: 400, code: 'bad_request', paths: ['changes[0].type'] },
  { what: 'a DS without its NS', changes: [putChange(`child.${Z}`, 'DS', DS)], status: 400, code: 'bad_request', paths: ['changes[0].type'] },
  { what: 'an ALIAS beside an A', changes: [putChange(`www.${Z}`, 'ALIAS', 'cdn.example.net')], status: 400, code: 'bad_request', paths: ['changes[0].type'] },
  {
    what: 'two changes of one rrset', changes: [putChange(`x.${Z}`, 'A', '192.0.2.1'), { op: 'delete', name: `x.${Z}`, type: 'A' }],
    status: 400, code: 'bad_request', paths: ['changes[0]', 'changes[1]'],
  },
  { what: 'no changes', changes: [], status: 400, code: 'bad_request', paths: ['body.changes'] },
  { what: 'more rrsets than the plan allows', changes: [putChange(`x.${Z}`, 'A', '192.0.2.1'), putChange(`y.${Z}`, 'A', '192.0.2.1')], status: 409, code: 'quota_exceeded' },
  { what: 'a stale If-Match', changes: [putChange(`x.${Z}`, 'A', '192.0.2.1')], headers: { 'if-match': '"1-nope"' }, status: 412, code: 'precondition_failed' },
];

describe('every refused change set is refused the same way dry', () => {
  it.each(SET_CASES)('$what → $status $code, with and without dryRun', async (c) => {
    const before = await state();
    const sent = (dryRun: boolean) => t.call('POST', `${zonePath(Z)}/changes`, { token: t.tokens.member, body: { changes: c.changes, dryRun }, ...(c.headers && { headers: c.headers }) });
    const dry = await sent(true);
    const real = await sent(false);
    expect([real.status, real.body.code], JSON.stringify(real.body)).toEqual([c.status, c.code]);
    if (c.paths) expect(real.body.details.issues.map((i: { path: string }) => i.path)).toEqual(c.paths);
    expect(answer(dry)).toEqual(answer(real));
    expect(await state()).toEqual(before);
  });
});

const TEXT = { 'content-type': 'text/dns' };
/** A zone of its own for the writes that are accepted, so that the cases above keep theirs as it is. */
async function zoneWith(name: string): Promise<void> {
  expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } })).status).toBe(200);
  expect((await t.call('PUT', rrPath(name, `www.${name}`, 'A'), { body: { records: records('192.0.2.1') } })).status).toBe(200);
  expect((await t.call('PUT', rrPath(name, `old.${name}`, 'TXT'), { body: { records: records('old') } })).status).toBe(200);
}

/** Sends a write dry, then for real: the same status and body, the dry run writing nothing and sending no
 * `X-Generation`. Answers the real one. */
async function bothWays(zone: string, send: (dry: boolean) => ReturnType<TestApi['call']>) {
  const before = await state(zone);
  const dry = await send(true);
  expect(await state(zone)).toEqual(before);
  const real = await send(false);
  expect(answer(dry)).toEqual(answer(real));
  expect(dry.headers.get('x-generation')).toBeNull();
  if (real.status === 200) expect(real.headers.get('x-generation')).toBe(String(real.body.generation));
  return real;
}

describe('an import, dry and not', () => {
  const imported = (zone: string, raw: string, query = '', headers: Record<string, string> = {}) => (dry: boolean) =>
    t.call('POST', `${zonePath(zone)}/import?dryRun=${dry}${query}`, { token: t.tokens.member, raw, headers: { ...TEXT, ...headers } });

  it.each([
    ['a line of bad content', ['$TTL 300', 'ok A 192.0.2.1', 'bad A 192.0.2.300'], ['line 3']],
    ['a directive it does not take', ['$TTL 300', '$INCLUDE other.zone'], ['line 2']],
    ['a CNAME beside an A', ['$TTL 300', 'www CNAME a.example.net.'], ['line 2']],
  ])('a file with %s is refused at its line both ways', async (_what, lines, paths) => {
    const real = await bothWays(Z, imported(Z, lines.join('\n')));
    expect([real.status, real.body.details.issues.map((i: { path: string }) => i.path)]).toEqual([400, paths]);
  });

  it('a stale If-Match is 412 and a file over the quota 409, both ways', async () => {
    expect((await bothWays(Z, imported(Z, '$TTL 300\nx A 192.0.2.1\n', '', { 'if-match': '"1-nope"' }))).status).toBe(412);
    expect((await bothWays(Z, imported(Z, '$TTL 300\nx A 192.0.2.1\ny A 192.0.2.1\n'))).body.code).toBe('quota_exceeded');
  });

  it('replacing answers the same diff both ways, keeping the service\'s rrsets', async () => {
    const zone = 'import-dry.example';
    await zoneWith(zone);
    const real = await bothWays(zone, imported(zone, '$TTL 300\nwww A 192.0.2.9\n', '&mode=replace'));
    expect(real.status, JSON.stringify(real.body)).toBe(200);
    expect(real.body.diff.map((d: { op: string; name: string; type: string }) => [d.op, d.name, d.type])).toEqual([
      ['remove', `old.${zone}`, 'TXT'], ['change', `www.${zone}`, 'A'],
    ]);
    expect((await t.call('GET', zonePath(zone))).body.rrsets.map((r: { type: string }) => r.type)).toEqual(['SOA', 'NS', 'A']);
  });
});

describe('a restore, dry and not', () => {
  const restored = (zone: string, generation: number | string, headers: Record<string, string> = {}) => (dryRun: boolean) =>
    t.call('POST', `${zonePath(zone)}/revisions/${generation}/restore`, { token: t.tokens.member, body: { dryRun }, headers });

  it('a revision that is not kept is 404, a stale If-Match 412, both ways', async () => {
    expect((await bothWays(Z, restored(Z, 999))).status).toBe(404);
    expect((await bothWays(Z, restored(Z, 1, { 'if-match': '"1-nope"' }))).status).toBe(412);
  });

  it('answers the same diff both ways, and the dry run writes nothing', async () => {
    const zone = 'restore-dry.example';
    await zoneWith(zone);
    const real = await bothWays(zone, restored(zone, 1));
    expect(real.status, JSON.stringify(real.body)).toBe(200);
    expect(real.body.diff.map((d: { op: string; name: string }) => [d.op, d.name])).toEqual([['remove', `old.${zone}`], ['remove', `www.${zone}`]]);
  });

});

describe('a change set, dry and not', () => {
  it('an accepted one answers the same both ways, without X-Generation dry', async () => {
    const zone = 'changes-dry.example';
    await zoneWith(zone);
    const real = await bothWays(zone, (dryRun) => t.call('POST', `${zonePath(zone)}/changes`, { token: t.tokens.member, body: { changes: [putChange(`www.${zone}`, 'A', '192.0.2.5')], dryRun } }));
    expect([real.status, real.body.diff.map((d: { op: string }) => d.op)]).toEqual([200, ['change']]);
  });
});
