/**
 * What a hostile tenant must not get through the DNS API (issue 6, items 1, 2, 4 and the UTF-8 bullet of 6):
 * zone names knotd cannot serve, the platform's own domains and public suffixes, more zones, rrsets or
 * zone-file bytes than the plan allows, and answers that grow with the zone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS, type Plans } from '../../rules/plans';
import { zones } from '../../store/schema';
import { startTestApi, type TestApi } from '../helpers/app';

const ZONES = '/v1/orgs/acme/dns/zones';
const zonePath = (zone: string) => `${ZONES}/${zone}`;
const records = (...contents: string[]) => contents.map((content) => ({ content }));
const free = DEFAULT_PLANS.free!;

async function create(t: TestApi, name: string) {
  return t.call('POST', ZONES, { body: { name } });
}

describe('zone names', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi({
      plan: 'pro',
      config: { appDomain: 'hostplane.app', serviceDomains: ['hostplane.dev', 'Dienst.Bücher.test.'] },
      dns: { configured: true, nameservers: ['ns1.hostplane.net', 'ns2.hostplane.net'] },
    });
  });
  afterAll(() => t.close());

  it.each([
    ['-evil.test', 'a leading hyphen'],
    ['trail-.test', 'a trailing hyphen'],
    ['xn--.test', 'an empty A-label'],
    ['xn--zz.test', 'an A-label that is not punycode'],
    ['ab--cd.test', 'hyphens in the third and fourth position of a non-A-label'],
    ['a_b.test', 'an underscore inside a label'],
    ['example._x', 'an underscore top-level label'],
    ['example.123', 'a numeric top-level label'],
    ['1.2.3.4', 'an IPv4 address'],
    ['test', 'one label'],
    ['a..test', 'an empty label'],
    [`${'a'.repeat(64)}.test`, 'a label over 63 bytes'],
    [`${'b'.repeat(63)}.${'b'.repeat(63)}.${'b'.repeat(63)}.${'b'.repeat(36)}.test`, 'over 232 characters: its SOA RNAME and zone file name would not fit'],
    ['*.wild.test', 'a wildcard'],
    ['exa mple.test', 'a space'],
  ])('%s (%s) → 400 bad_request', async (name) => {
    const r = await create(t, name);
    expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([400, 'bad_request']);
  });

  it.each([
    ['Bücher.Example', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['_domainkey.mail.example', '_domainkey.mail.example'],
    ['a-b.example', 'a-b.example'],
  ])('%s is a zone name, stored as %s', async (name, stored) => {
    const r = await create(t, name);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.name).toBe(stored);
  });

  it.each([
    'hostplane.app', 'shop.hostplane.app', 'a.b.hostplane.app', // the app domain: other orgs' default hostnames
    'hostplane.net', 'ns1.hostplane.net', // the nameservers' registrable domain
    'hostplane.dev', 'api.hostplane.dev', // --service-domains
    'dienst.xn--bcher-kva.test', 'x.dienst.bücher.test', // a service domain given in Unicode
    'xn--bcher-kva.test', 'bücher.test', // above a service domain: it would answer for it
    'co.uk', 'in-addr.arpa', 'com.au', // ICANN public suffixes
    'github.io', 'blogspot.com', // private section of the Public Suffix List
  ])('%s is the platform\'s or a public suffix → 400', async (name) => {
    const r = await create(t, name);
    expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([400, 'bad_request']);
    expect((await t.call('GET', zonePath(name))).status).toBe(404);
  });

  it.each(['example.co.uk', 'someone.github.io', '10.in-addr.arpa', 'nothostplane.app', 'hostplane.app.example'])(
    '%s is registrable and not the platform\'s → 200', async (name) => {
      expect((await create(t, name)).status).toBe(200);
    },
  );

  it('a zone named before the rule stays readable and deletable by its owner', async () => {
    const { id: orgId } = (await t.store.db.query.orgs.findFirst({ where: (o, { eq }) => eq(o.slug, 'acme') }))!;
    await t.store.db.insert(zones).values({ name: '-old.test', uid: 'old-lifetime', orgId, dnssec: 'off', ds: [], serial: 1, generation: 1, createdAt: '2026-01-01T00:00:00Z' });
    expect((await t.call('GET', zonePath('-old.test'))).status).toBe(200);
    expect((await t.call('DELETE', zonePath('-old.test'))).status).toBe(204);
  });
});

describe('zone names with the fallback origin in a domain of its own (issue 20 item 7)', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi({ config: { fallbackOrigin: 'edge.cdn-other.net' }, dns: { configured: true, nameservers: ['ns1.hostplane.net', 'ns2.hostplane.net'] } });
  });
  afterAll(() => t.close());

  // The zone would hold the fallback origin and every organization's o-<hex> origin that customers' CNAMEs point at.
  it.each(['cdn-other.net', 'sub.cdn-other.net', 'edge.cdn-other.net', 'o-0123456789abcdef.edge.cdn-other.net'])(
    '%s is refused as hostnames refuse it: 400 bad_request, a domain this service uses itself', async (name) => {
      const r = await create(t, name);
      expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([400, 'bad_request']);
      expect(r.body.message).toMatch(/a domain this service uses itself/);
      expect(r.body.message).toContain('cdn-other.net');
      expect((await t.call('GET', zonePath(name))).status).toBe(404);
    },
  );

  it('the nameservers\' domain stays refused, and a neighbour of the fallback origin\'s domain is a zone', async () => {
    expect((await create(t, 'hostplane.net')).status).toBe(400);
    expect((await create(t, 'cdn-other2.net')).status).toBe(200);
  });
});

describe('quotas of the plan table', () => {
  let t: TestApi;
  const plans: Plans = { ...DEFAULT_PLANS, free: { ...free, zones: 3, rrsetsPerZone: 4, zoneBytes: 4096 } };
  beforeAll(async () => { t = await startTestApi({ config: { plans } }); });
  afterAll(() => t.close());

  it('zones per org: the next new zone is 409 quota_exceeded with quota, limit, count, plan; an existing one is still 200', async () => {
    for (const n of ['q1', 'q2', 'q3']) expect((await create(t, `${n}.quota.example`)).status).toBe(200);
    const r = await create(t, 'q4.quota.example');
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'quota_exceeded', details: { quota: 'zones', limit: 3, count: 3, plan: 'free' } });
    expect((await create(t, 'q1.quota.example')).status).toBe(200);
    expect((await t.call('DELETE', zonePath('q3.quota.example'))).status).toBe(204);
    expect((await create(t, 'q4.quota.example')).status).toBe(200);
  });

  it('zones per org hold under concurrent creation', async () => {
    const u = await startTestApi({ config: { plans } });
    try {
      const rs = await Promise.all(Array.from({ length: 12 }, (_, i) => create(u, `c${i}.race.example`)));
      expect(rs.filter((r) => r.status === 200)).toHaveLength(3);
      expect(rs.filter((r) => r.status === 409 && r.body.code === 'quota_exceeded')).toHaveLength(9);
      expect((await u.call('GET', `${ZONES}?limit=100`)).body.items).toHaveLength(3);
    } finally {
      await u.close();
    }
  });

  it('rrsets per zone (the apex NS counts): a new rrset beyond it is 409; replacing or deleting one is not', async () => {
    const u = await startTestApi({ config: { plans } });
    try {
      expect((await create(u, 'rr.example')).status).toBe(200);
      const put = (name: string, content = '192.0.2.1') => u.call('PUT', `${zonePath('rr.example')}/rrsets/${name}/A`, { body: { records: records(content) } });
      for (const n of ['a', 'b', 'c']) expect((await put(`${n}.rr.example`)).status).toBe(200);
      const over = await put('d.rr.example');
      expect(over.status).toBe(409);
      expect(over.body).toMatchObject({ code: 'quota_exceeded', details: { quota: 'rrsets_per_zone', limit: 4, count: 4, plan: 'free' } });
      expect((await put('a.rr.example', '192.0.2.9')).status).toBe(200);
      expect((await u.call('DELETE', `${zonePath('rr.example')}/rrsets/a.rr.example/A`)).status).toBe(204);
      expect((await put('d.rr.example')).status).toBe(200);
    } finally {
      await u.close();
    }
  });

  it('zone-file bytes per zone: a write that would pass it is 409; a write that shrinks the zone is not', async () => {
    const u = await startTestApi({ config: { plans } });
    try {
      expect((await create(u, 'bytes.example')).status).toBe(200);
      const txt = (name: string, n: number) => u.call('PUT', `${zonePath('bytes.example')}/rrsets/${name}/TXT`, { body: { records: records('x'.repeat(n)) } });
      expect((await txt('big.bytes.example', 3000)).status).toBe(200);
      const over = await txt('more.bytes.example', 1000);
      expect(over.status).toBe(409);
      expect(over.body).toMatchObject({ code: 'quota_exceeded', details: { quota: 'zone_bytes', limit: 4096, plan: 'free' } });
      expect(over.body.details.count).toBeGreaterThan(3000);
      expect((await txt('big.bytes.example', 100)).status).toBe(200);
      expect((await txt('more.bytes.example', 1000)).status).toBe(200);
    } finally {
      await u.close();
    }
  });
});

describe('getZone pages its rrsets', () => {
  let t: TestApi;
  const ZONE = 'paged.example';
  // Owners that sort before and after the apex name, and several types at one owner.
  const owners = [...Array.from({ length: 20 }, (_, i) => `h${String(i).padStart(2, '0')}.${ZONE}`), `a.${ZONE}`, `zz.${ZONE}`];
  beforeAll(async () => {
    t = await startTestApi({ plan: 'pro' });
    expect((await create(t, ZONE)).status).toBe(200);
    for (const o of owners) {
      expect((await t.call('PUT', `${zonePath(ZONE)}/rrsets/${o}/A`, { body: { records: records('192.0.2.1') } })).status).toBe(200);
    }
    expect((await t.call('PUT', `${zonePath(ZONE)}/rrsets/h00.${ZONE}/TXT`, { body: { records: records('t') } })).status).toBe(200);
    expect((await t.call('PUT', `${zonePath(ZONE)}/rrsets/@/TXT`, { body: { records: records('apex') } })).status).toBe(200);
  });
  afterAll(() => t.close());

  async function all(limit: number) {
    const pages: { name: string; type: string }[][] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `?limit=${limit}&cursor=${cursor}` : `?limit=${limit}`;
      const r = await t.call('GET', zonePath(ZONE) + q);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      pages.push(r.body.rrsets);
      cursor = r.body.nextCursor;
    } while (cursor && pages.length < 100);
    return pages;
  }

  it('every rrset exactly once across the pages, the SOA and the apex first, nextCursor null on the last', async () => {
    const expected = 1 + 2 + owners.length + 1; // SOA, apex NS + TXT, the A rrsets, one more TXT
    for (const limit of [1, 2, 5, 7, 1000]) {
      const pages = await all(limit);
      const keys = pages.flat().map((r) => `${r.name} ${r.type}`);
      expect(new Set(keys).size, `limit ${limit}`).toBe(keys.length);
      expect(keys, `limit ${limit}`).toHaveLength(expected);
      expect(keys.slice(0, 3)).toEqual([`${ZONE} SOA`, `${ZONE} NS`, `${ZONE} TXT`]);
      for (const p of pages.slice(1)) expect(p.length).toBeLessThanOrEqual(limit);
    }
    expect(await all(1000)).toHaveLength(1);
  });

  it('limit defaults to 1,000 and parses strictly; a cursor this API never issued is 400', async () => {
    const r = await t.call('GET', zonePath(ZONE));
    expect(r.body.rrsets).toHaveLength(26);
    expect(r.body.nextCursor).toBeNull();
    for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'limit=-1', 'limit=2.5', 'limit=0x10', 'limit=1e1', 'limit=%2010%20', 'limit=', 'cursor=!!', 'cursor=bm90IGpzb24', `cursor=${Buffer.from('[1,2]').toString('base64url')}`]) {
      const bad = await t.call('GET', `${zonePath(ZONE)}?${q}`);
      expect([bad.status, bad.body.code], q).toEqual([400, 'bad_request']);
    }
  });

  it('a page of large rrsets ends at about 1 MiB, before limit', async () => {
    const u = await startTestApi({ plan: 'pro' });
    try {
      expect((await create(u, 'large.example')).status).toBe(200);
      for (let i = 0; i < 30; i++) {
        const r = await u.call('PUT', `${zonePath('large.example')}/rrsets/t${i}.large.example/TXT`, { body: { records: records('y'.repeat(60_000)) } });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
      }
      const first = await u.call('GET', zonePath('large.example'));
      expect(first.body.rrsets.length).toBeLessThan(30);
      expect(first.body.nextCursor).not.toBeNull();
      expect(Buffer.byteLength(JSON.stringify(first.body))).toBeLessThan(2 * 1024 * 1024);
      const second = await u.call('GET', `${zonePath('large.example')}?cursor=${first.body.nextCursor}`);
      expect(first.body.rrsets.length + second.body.rrsets.length).toBe(32);
      expect(second.body.nextCursor).toBeNull();
    } finally {
      await u.close();
    }
  });
});

describe('request bodies', () => {
  let t: TestApi;
  beforeAll(async () => { t = await startTestApi(); });
  afterAll(() => t.close());

  it('a body that is not valid UTF-8 is 400, never a value silently changed to U+FFFD', async () => {
    expect((await create(t, 'utf8.example')).status).toBe(200);
    const body = Buffer.concat([Buffer.from('{"records":[{"content":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}]}')]);
    const path = `${zonePath('utf8.example')}/rrsets/utf8.example/TXT`;
    const res = await fetch(t.url + path, {
      method: 'PUT', headers: { authorization: `Bearer ${t.tokens.admin}`, 'content-type': 'application/json' }, body,
    });
    const text = await res.text();
    await t.documented('PUT', path, { status: res.status, headers: res.headers, text });
    expect(res.status).toBe(400);
    expect(JSON.parse(text)).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/UTF-8/) });
    const zone = await t.call('GET', zonePath('utf8.example'));
    expect(zone.body.rrsets.map((r: { type: string }) => r.type)).toEqual(['SOA', 'NS']);
  });
});
