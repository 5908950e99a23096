/**
 * DNS zones group (spec 4.1, state table of part 3, roles of 5, audit events of 6, errors of 7) through HTTP,
 * against the in-process API. Each zone name is used by one test only, so tests do not depend on each other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rrsets } from '../../store/schema';
import { recordStatus } from '../../store/status';
import { allZoneNames, ZONE_STATUS, zoneByName } from '../../store/zones';
import { startTestApi, type TestApi } from '../helpers/app';

const NAMESERVERS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const ZONES = '/v1/orgs/acme/dns/zones';
const zonePath = (zone: string, slug = 'acme') => `/v1/orgs/${slug}/dns/zones/${zone}`;
const rrPath = (zone: string, name: string, type: string, slug = 'acme') => `${zonePath(zone, slug)}/rrsets/${name}/${type}`;
const records = (...contents: string[]) => contents.map((content) => ({ content }));
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

interface AuditItem { event: string; actor: string; target: string; details: Record<string, unknown> }

async function create(t: TestApi, name: string, token = t.tokens.admin, slug = 'acme') {
  const r = await t.call('POST', `/v1/orgs/${slug}/dns/zones`, { token, body: { name } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

async function get(t: TestApi, zone: string) {
  const r = await t.call('GET', zonePath(zone));
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

async function put(t: TestApi, zone: string, name: string, type: string, body: unknown) {
  return t.call('PUT', rrPath(zone, name, type), { token: t.tokens.member, body });
}

async function auditOf(t: TestApi, slug = 'acme', token = t.tokens.admin): Promise<AuditItem[]> {
  const r = await t.call('GET', `/v1/orgs/${slug}/audit?limit=1000`, { token });
  expect(r.status).toBe(200);
  return r.body.items;
}

const rrsetOf = (detail: { rrsets: { name: string; type: string }[] }, name: string, type: string) =>
  detail.rrsets.find((r) => r.name === name && r.type === type);
const typesOf = (detail: { rrsets: { name: string; type: string }[] }) => detail.rrsets.map((r) => `${r.name} ${r.type}`);
const zoneNudges = (t: TestApi, zone: string) => t.nudges.filter((n) => n.kind === 'zone' && n.key === zone).length;

let t: TestApi;
beforeAll(async () => { t = await startTestApi(); });
afterAll(async () => { await t.close(); });

describe('createZone', () => {
  it('answers 200 ZoneDetail: SOA (system, service serial) and apex NS (system, the configured nameservers)', async () => {
    const before = zoneNudges(t, 'fresh.example');
    const z = await create(t, 'fresh.example');
    expect(z).toMatchObject({ name: 'fresh.example', dnssec: 'off', ds: [], delegated: false, nameservers: NAMESERVERS });
    expect(z.serial).toEqual(expect.any(Number));
    expect(String(z.serial)).toMatch(/^20\d{8}$/); // YYYYMMDDnn
    expect(z.createdAt).toMatch(RFC3339);
    expect(typesOf(z)).toEqual(['fresh.example SOA', 'fresh.example NS']);
    const soa = rrsetOf(z, 'fresh.example', 'SOA') as any;
    expect(soa.managedBy).toBe('system');
    expect(soa.records).toHaveLength(1);
    const [mname, rname, serial] = soa.records[0].content.split(' ');
    expect({ mname, rname, serial: Number(serial) }).toEqual({ mname: NAMESERVERS[0], rname: 'hostmaster.fresh.example', serial: z.serial });
    expect(rrsetOf(z, 'fresh.example', 'NS')).toMatchObject({ managedBy: 'system', records: records(...NAMESERVERS) });
    expect(zoneNudges(t, 'fresh.example')).toBe(before + 1);
    // The same zone reads back identically.
    expect(await get(t, 'fresh.example')).toEqual(z);
  });

  it('is idempotent for the same organization: 200 with the zone unchanged, no second audit record', async () => {
    const first = await create(t, 'again.example');
    const w = await put(t, 'again.example', 'www.again.example', 'A', { records: records('192.0.2.1') });
    expect(w.status).toBe(200);
    const current = await get(t, 'again.example');
    const second = await create(t, 'again.example');
    expect(second).toEqual(current);
    expect(second.createdAt).toBe(first.createdAt);
    expect(second.serial).toBe(current.serial);
    expect(rrsetOf(second, 'www.again.example', 'A')).toBeTruthy();
    const creates = (await auditOf(t)).filter((a) => a.event === 'dns.zone.create' && a.target === 'again.example');
    expect(creates).toHaveLength(1);
  });

  it('writes audit event dns.zone.create with the actor and the zone', async () => {
    await create(t, 'audited.example');
    const a = (await auditOf(t)).find((x) => x.event === 'dns.zone.create' && x.target === 'audited.example');
    expect(a).toMatchObject({ actor: 'user:admin@acme.test', target: 'audited.example' });
  });

  it.each([
    ['Upper.EXAMPLE', 'upper.example'],
    ['trailing.example.', 'trailing.example'],
    ['Both.Example.', 'both.example'],
  ])('normalizes %j to %j (lower case, no trailing dot)', async (given, stored) => {
    const z = await create(t, given);
    expect(z.name).toBe(stored);
    expect(rrsetOf(z, stored, 'SOA')).toBeTruthy();
    expect((await get(t, stored)).name).toBe(stored);
    expect((await get(t, given.replace(/\.$/, ''))).name).toBe(stored);
    expect(await allZoneNames(t.store)).toContain(stored);
    expect(await allZoneNames(t.store)).not.toContain(given);
    // Another spelling of the same zone is the same zone (idempotent), not a second one.
    expect((await create(t, stored)).createdAt).toBe(z.createdAt);
  });

  it('lets an organization nest zones of its own, above and below', async () => {
    await create(t, 'own.nest.example');
    expect((await create(t, 'sub.own.nest.example')).name).toBe('sub.own.nest.example');
    expect((await create(t, 'nest2.own.nest.example')).name).toBe('nest2.own.nest.example');
  });

  it('gives a zone deleted and created again a serial above every serial it had', async () => {
    const z = await create(t, 'again.example');
    for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) {
      expect((await put(t, 'again.example', '@', 'A', { records: records(ip) })).status).toBe(200);
    }
    const last = (await get(t, 'again.example')).serial;
    expect(last).toBeGreaterThan(z.serial);
    expect((await t.call('DELETE', zonePath('again.example'))).status).toBe(204);
    expect((await create(t, 'again.example')).serial).toBeGreaterThan(last);
  });

  describe('another organization', () => {
    beforeAll(async () => {
      await create(t, 'held.nest.example', t.other.token, 'globex');
    });

    it.each([
      ['the same zone', 'held.nest.example'],
      ['the same zone, other spelling', 'HELD.nest.example.'],
      ['a zone one label under it', 'sub.held.nest.example'],
      ['a zone two labels under it', 'a.sub.held.nest.example'],
      ['a zone above it', 'nest.example'],
    ])('holding %s → 409 zone_taken, nothing created', async (_what, name) => {
      const r = await t.call('POST', ZONES, { body: { name } });
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('zone_taken');
      const norm = name.toLowerCase().replace(/\.$/, '');
      expect((await t.call('GET', zonePath(norm))).status).toBe(404);
      expect((await t.call('GET', zonePath('held.nest.example', 'globex'), { token: t.other.token })).status).toBe(200);
    });

    it.each([
      ['a sibling zone', 'sibling.nest.example'],
      ['a zone whose name only ends in the same characters', 'xheld.nest.example'],
      ['a zone under the sibling', 'deep.sibling2.nest.example'],
    ])('does not block %s', async (_what, name) => {
      expect((await create(t, name)).name).toBe(name);
    });

    it('does not block a zone with "_" because of a name matching it character by character', async () => {
      // globex holds www.xb.under.example; acme's _b.under.example is neither above nor below it.
      await create(t, 'www.xb.under.example', t.other.token, 'globex');
      expect((await create(t, '_b.under.example')).name).toBe('_b.under.example');
    });

    it('reports 409 zone_taken to the other organization in the opposite direction too', async () => {
      await create(t, 'mine.example');
      for (const name of ['mine.example', 'x.mine.example']) {
        const r = await t.call('POST', '/v1/orgs/globex/dns/zones', { token: t.other.token, body: { name } });
        expect([r.status, r.body.code]).toEqual([409, 'zone_taken']);
      }
    });
  });

  it.each([
    ['a single label', 'localhost'],
    ['an empty label', 'a..example'],
    ['a leading empty label', '.example'],
    ['only a dot', '.'],
    ['an empty name', ''],
    ['a 64-character label', `${'a'.repeat(64)}.example`],
    ['a name over 253 characters', `${Array.from({ length: 5 }, () => 'b'.repeat(60)).join('.')}.example`],
    ['a "!"', 'bad!.example'],
    ['a space', 'sp ace.example'],
    ['a "/"', 'a/b.example'],
    ['a wildcard label', '*.wild.example'],
    ['an "@"', 'a@b.example'],
  ])('rejects a name with %s → 400 bad_request', async (_what, name) => {
    const r = await t.call('POST', ZONES, { body: { name } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
  });

  it.each([
    ['no name', {}],
    ['a number as name', { name: 5 }],
    ['an unknown field', { name: 'unknown-field.example', dnssec: true }],
    ['a list body', ['list.example']],
  ])('rejects a body with %s → 400 bad_request, nothing created', async (_what, body) => {
    const r = await t.call('POST', ZONES, { body });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect(await allZoneNames(t.store)).not.toContain('unknown-field.example');
  });
});

describe('listZones', () => {
  let l: TestApi;
  const mine = ['e.list.example', 'a.list.example', 'd.list.example', 'b.list.example', 'c.list.example'];
  beforeAll(async () => {
    l = await startTestApi();
    for (const name of mine) await create(l, name);
    await create(l, 'theirs.example', l.other.token, 'globex');
  });
  afterAll(async () => { await l.close(); });

  it('items carry the zone without rrsets', async () => {
    const r = await l.call('GET', '/v1/orgs/acme/dns/zones', { token: l.tokens.viewer });
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(5);
    for (const item of r.body.items) {
      expect(item).not.toHaveProperty('rrsets');
      expect(item).toMatchObject({ dnssec: 'off', ds: [], nameservers: NAMESERVERS });
      expect(item.serial).toEqual(expect.any(Number));
    }
    expect(r.body.nextCursor).toBeNull();
  });

  it.each([
    [2, [2, 2, 1]],
    [1, [1, 1, 1, 1, 1]],
    [3, [3, 2]],
    [5, [5]], // a full last page still ends with nextCursor null
    [1000, [5]],
  ])('pages with limit=%i over 5 zones (pages %j) in name order: nothing dropped or repeated, nextCursor null at the end', async (limit, pages) => {
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const q: string = cursor === null ? `?limit=${limit}` : `?limit=${limit}&cursor=${encodeURIComponent(cursor)}`;
      const r = await l.call('GET', `/v1/orgs/acme/dns/zones${q}`, { token: l.tokens.viewer });
      expect(r.status).toBe(200);
      sizes.push(r.body.items.length);
      seen.push(...r.body.items.map((z: { name: string }) => z.name));
      cursor = r.body.nextCursor;
      if (cursor === null) break;
      expect(cursor).toEqual(expect.any(String));
    }
    expect(sizes).toEqual(pages);
    expect(seen).toEqual([...mine].sort());
  });

  it('does not list another organization\'s zones (either way)', async () => {
    const ours = await l.call('GET', '/v1/orgs/acme/dns/zones');
    expect(ours.body.items.map((z: { name: string }) => z.name)).not.toContain('theirs.example');
    const theirs = await l.call('GET', '/v1/orgs/globex/dns/zones', { token: l.other.token });
    expect(theirs.status).toBe(200);
    expect(theirs.body.items.map((z: { name: string }) => z.name)).toEqual(['theirs.example']);
  });

  it.each(['0', '1001', 'x', '-1'])('rejects limit=%s → 400', async (limit) => {
    const r = await l.call('GET', `/v1/orgs/acme/dns/zones?limit=${limit}`);
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
  });
});

describe('getZone and deleteZone', () => {
  beforeAll(async () => {
    await create(t, 'globex-owned.example', t.other.token, 'globex');
  });

  it.each([
    ['getZone', 'GET'],
    ['deleteZone', 'DELETE'],
  ])('%s of another organization\'s zone → 404, the zone untouched', async (_op, method) => {
    const r = await t.call(method, zonePath('globex-owned.example'));
    expect([r.status, r.body.code]).toEqual([404, 'not_found']);
    // ... and through the other organization's path, where acme is no member.
    const r2 = await t.call(method, zonePath('globex-owned.example', 'globex'));
    expect(r2.status).toBe(404);
    expect((await t.call('GET', zonePath('globex-owned.example', 'globex'), { token: t.other.token })).status).toBe(200);
  });

  it.each([
    ['getZone', 'GET'],
    ['deleteZone', 'DELETE'],
  ])('%s of a zone that does not exist → 404', async (_op, method) => {
    const r = await t.call(method, zonePath('never.example'));
    expect([r.status, r.body.code]).toEqual([404, 'not_found']);
  });

  it('delete → 204; then get → 404, delete → 404, rrset writes → 404; audit dns.zone.delete', async () => {
    await create(t, 'gone.example');
    expect((await put(t, 'gone.example', 'www.gone.example', 'A', { records: records('192.0.2.1') })).status).toBe(200);
    const nudges = zoneNudges(t, 'gone.example');
    const d = await t.call('DELETE', zonePath('gone.example'));
    expect(d.status).toBe(204);
    expect(d.body).toBeUndefined();
    expect(zoneNudges(t, 'gone.example')).toBe(nudges + 1);
    expect((await t.call('GET', zonePath('gone.example'))).status).toBe(404);
    expect((await t.call('DELETE', zonePath('gone.example'))).status).toBe(404);
    expect((await put(t, 'gone.example', 'www.gone.example', 'A', { records: records('192.0.2.1') })).status).toBe(404);
    expect((await t.call('DELETE', rrPath('gone.example', 'www.gone.example', 'A'))).status).toBe(404);
    const list = await t.call('GET', `${ZONES}?limit=1000`);
    expect(list.body.items.map((z: { name: string }) => z.name)).not.toContain('gone.example');
    const a = (await auditOf(t)).filter((x) => x.event === 'dns.zone.delete' && x.target === 'gone.example');
    expect(a).toHaveLength(1);
    expect(a[0]?.actor).toBe('user:admin@acme.test');
  });

  it('a re-created zone starts clean: only SOA and NS, DNSSEC off, no status of the old zone', async () => {
    await create(t, 'reborn.example');
    expect((await put(t, 'reborn.example', 'www.reborn.example', 'A', { records: records('192.0.2.1') })).status).toBe(200);
    expect((await put(t, 'reborn.example', '@', 'TXT', { records: records('old') })).status).toBe(200);
    expect((await t.call('POST', `${zonePath('reborn.example')}/dnssec`, { body: { enabled: true } })).status).toBe(200);
    const old = await get(t, 'reborn.example');
    // What the zone reconciler records once it served the old zone.
    await recordStatus(t.store, ZONE_STATUS, 'reborn.example', {
      uid: (await zoneByName(t.store, 'reborn.example'))!.uid, generation: 4, lastError: null,
      facts: { servedSerial: old.serial, renderedSerial: old.serial, signerDs: [{ keyTag: 1, algorithm: 13, digestType: 2, digest: 'AB'.repeat(32) }], delegated: true },
    });
    expect((await t.call('DELETE', zonePath('reborn.example'))).status).toBe(204);
    const z = await create(t, 'reborn.example');
    expect(typesOf(z)).toEqual(['reborn.example SOA', 'reborn.example NS']);
    expect(z).toMatchObject({ dnssec: 'off', ds: [], delegated: false });
    expect(z.status).toMatchObject({ observedGeneration: null, servedSerial: null, signerDs: [] });
    expect(await get(t, 'reborn.example')).toEqual(z);
  });
});

describe('putRRset and deleteRRset', () => {
  const Z = 'rr.example';
  beforeAll(async () => {
    await create(t, Z);
  });

  it('replaces the whole rrset: 2 A records then 1 leaves only that 1', async () => {
    const a = await put(t, Z, `replace.${Z}`, 'A', { records: records('192.0.2.1', '192.0.2.2') });
    expect(a.status).toBe(200);
    expect(a.body.records).toEqual(records('192.0.2.1', '192.0.2.2'));
    const b = await put(t, Z, `replace.${Z}`, 'A', { records: records('192.0.2.3') });
    expect(b.status).toBe(200);
    expect(b.body).toEqual({ name: `replace.${Z}`, type: 'A', ttl: 3600, records: records('192.0.2.3'), managedBy: null, etag: b.headers.get('etag') });
    expect(rrsetOf(await get(t, Z), `replace.${Z}`, 'A')).toEqual(b.body);
  });

  it('"@" is the apex, and the absolute apex name is the same rrset', async () => {
    const a = await put(t, Z, '@', 'TXT', { records: records('via at') });
    expect(a.status).toBe(200);
    expect(a.body.name).toBe(Z);
    const b = await put(t, Z, Z, 'TXT', { records: records('via name') });
    expect(b.status).toBe(200);
    const txt = (await get(t, Z)).rrsets.filter((r: { type: string }) => r.type === 'TXT');
    expect(txt).toEqual([{ name: Z, type: 'TXT', ttl: 3600, records: records('via name'), managedBy: null, etag: b.headers.get('etag') }]);
    expect((await t.call('DELETE', rrPath(Z, '@', 'TXT'), { token: t.tokens.member })).status).toBe(204);
    expect(rrsetOf(await get(t, Z), Z, 'TXT')).toBeUndefined();
  });

  it.each([
    ['lower case', `abs.${Z}`, `abs.${Z}`],
    ['mixed case', `MiXeD.RR.Example`, `mixed.${Z}`],
    ['with a trailing dot', `dot.${Z}.`, `dot.${Z}`],
    ['a wildcard', `*.wild.${Z}`, `*.wild.${Z}`],
    ['two labels deep', `a.b.${Z}`, `a.b.${Z}`],
  ])('takes an absolute owner name %s', async (_what, name, stored) => {
    const r = await put(t, Z, encodeURIComponent(name), 'A', { records: records('192.0.2.7') });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.name).toBe(stored);
    expect(rrsetOf(await get(t, Z), stored, 'A')).toBeTruthy();
  });

  it.each([
    ['default', undefined, 3600],
    ['explicit', 300, 300],
    ['lowest', 60, 60],
    ['highest', 604_800, 604_800],
  ])('ttl %s → %s', async (_what, ttl, expected) => {
    const body = ttl === undefined ? { records: records('192.0.2.8') } : { records: records('192.0.2.8'), ttl };
    const r = await put(t, Z, `ttl.${Z}`, 'A', body);
    expect(r.status).toBe(200);
    expect(r.body.ttl).toBe(expected);
    expect(rrsetOf(await get(t, Z), `ttl.${Z}`, 'A')).toMatchObject({ ttl: expected });
  });

  it.each([
    ['another zone', 'www.other.example'],
    ['the parent', 'example'],
    ['a name only ending in the zone\'s characters', `x${Z}`],
    ['a relative name', 'www'],
    ['a name with an empty label', `a..${Z}`],
    ['a name with a bad character', `a!b.${Z}`],
    ['a wildcard not leftmost', `a.*.${Z}`],
  ])('rejects an owner name outside the zone or invalid (%s) → 400', async (_what, name) => {
    const r = await put(t, Z, encodeURIComponent(name), 'A', { records: records('192.0.2.1') });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    const d = await t.call('DELETE', rrPath(Z, encodeURIComponent(name), 'A'), { token: t.tokens.member });
    expect(d.status).toBe(400);
  });

  it.each(['@', Z])('rejects a CNAME at the apex (%s) → 400', async (name) => {
    const r = await put(t, Z, name, 'CNAME', { records: records('target.example.net') });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    expect(rrsetOf(await get(t, Z), Z, 'CNAME')).toBeUndefined();
  });

  it.each([
    ['a CNAME beside an A', 'A', '192.0.2.1', 'CNAME', 'target.example.net'],
    ['an A beside a CNAME', 'CNAME', 'target.example.net', 'A', '192.0.2.1'],
    ['a TXT beside a CNAME', 'CNAME', 'target.example.net', 'TXT', 'hello'],
    ['a CNAME beside an MX', 'MX', '10 mail.example.net', 'CNAME', 'target.example.net'],
  ])('%s at the same name → 409 cname_conflict, the first rrset kept', async (_what, firstType, first, secondType, second) => {
    const name = `${firstType.toLowerCase()}-${secondType.toLowerCase()}.conflict.${Z}`;
    expect((await put(t, Z, name, firstType, { records: records(first) })).status).toBe(200);
    const serial = (await get(t, Z)).serial;
    const r = await put(t, Z, name, secondType, { records: records(second) });
    expect([r.status, r.body.code]).toEqual([409, 'cname_conflict']);
    const z = await get(t, Z);
    expect(z.serial).toBe(serial);
    expect(rrsetOf(z, name, firstType)).toMatchObject({ records: records(first) });
    expect(rrsetOf(z, name, secondType)).toBeUndefined();
  });

  it('a DS needs the NS of its delegation (409 ds_without_delegation both ways) and is refused at the apex (400)', async () => {
    const child = `child.${Z}`;
    const ds = records(`2371 13 2 ${'ab'.repeat(32)}`);
    const refused = await put(t, Z, child, 'DS', { records: ds });
    expect([refused.status, refused.body.code]).toEqual([409, 'ds_without_delegation']);
    expect(rrsetOf(await get(t, Z), child, 'DS')).toBeUndefined();
    expect((await put(t, Z, child, 'NS', { records: records('ns1.child.example.net') })).status).toBe(200);
    const stored = await put(t, Z, child, 'DS', { records: ds });
    expect([stored.status, stored.body.records]).toEqual([200, records(`2371 13 2 ${'AB'.repeat(32)}`)]);
    const keep = await t.call('DELETE', rrPath(Z, child, 'NS'), { token: t.tokens.member });
    expect([keep.status, keep.body.code]).toEqual([409, 'ds_without_delegation']);
    expect(rrsetOf(await get(t, Z), child, 'NS')).toBeDefined();
    expect((await t.call('DELETE', rrPath(Z, child, 'DS'), { token: t.tokens.member })).status).toBe(204);
    expect((await t.call('DELETE', rrPath(Z, child, 'NS'), { token: t.tokens.member })).status).toBe(204);
    const apex = await put(t, Z, '@', 'DS', { records: ds });
    expect([apex.status, apex.body.code, apex.body.details.issues[0].path]).toEqual([400, 'bad_request', 'type']);
  });

  it('a CNAME replaces a CNAME; after deleting the CNAME an A may take the name', async () => {
    const name = `alias.${Z}`;
    expect((await put(t, Z, name, 'CNAME', { records: records('one.example.net') })).status).toBe(200);
    const r = await put(t, Z, name, 'CNAME', { records: records('two.example.net') });
    expect(r.status).toBe(200);
    expect(rrsetOf(await get(t, Z), name, 'CNAME')).toMatchObject({ records: records('two.example.net') });
    expect((await t.call('DELETE', rrPath(Z, name, 'CNAME'), { token: t.tokens.member })).status).toBe(204);
    expect((await put(t, Z, name, 'A', { records: records('192.0.2.1') })).status).toBe(200);
  });

  it.each([
    ['PUT', '@', 'NS'],
    ['PUT', Z, 'NS'],
    ['PUT', '@', 'SOA'],
    ['PUT', Z, 'SOA'],
    ['DELETE', '@', 'NS'],
    ['DELETE', Z, 'NS'],
    ['DELETE', '@', 'SOA'],
  ])('%s of the zone\'s own %s %s → 409 managed_rrset, nothing changes', async (method, name, type) => {
    const before = await get(t, Z);
    const body = method === 'PUT' ? { records: records('ns9.example.net') } : undefined;
    const r = await t.call(method, rrPath(Z, name, type), { token: t.tokens.admin, body });
    expect([r.status, r.body.code]).toEqual([409, 'managed_rrset']);
    const after = await get(t, Z);
    expect(after.serial).toBe(before.serial);
    expect(rrsetOf(after, Z, 'NS')).toEqual(rrsetOf(before, Z, 'NS'));
  });

  it.each(['acme', 'app'])('a row managed by %s is locked too: put and delete → 409 managed_rrset', async (managedBy) => {
    const name = `_acme-challenge.${managedBy}.${Z}`;
    await t.store.write(async (tx) => {
      await tx.insert(rrsets).values({ zone: Z, name, type: 'TXT', ttl: 60, records: records('token'), managedBy });
    });
    const p = await put(t, Z, name, 'TXT', { records: records('mine now') });
    expect([p.status, p.body.code]).toEqual([409, 'managed_rrset']);
    const d = await t.call('DELETE', rrPath(Z, name, 'TXT'), { token: t.tokens.member });
    expect([d.status, d.body.code]).toEqual([409, 'managed_rrset']);
    expect(rrsetOf(await get(t, Z), name, 'TXT')).toMatchObject({ records: records('token'), managedBy });
  });

  it('an NS rrset below the apex (a delegation) is the customer\'s to edit', async () => {
    const r = await put(t, Z, `child.${Z}`, 'NS', { records: records('ns1.elsewhere.net', 'ns2.elsewhere.net') });
    expect(r.status).toBe(200);
    expect(r.body.managedBy).toBeNull();
    expect((await t.call('DELETE', rrPath(Z, `child.${Z}`, 'NS'), { token: t.tokens.member })).status).toBe(204);
  });

  it.each([
    ['a name without rrsets', `nothing.${Z}`, 'A'],
    ['a type the name lacks', `replace.${Z}`, 'AAAA'],
  ])('delete of a missing rrset (%s) → 404', async (_what, name, type) => {
    const r = await t.call('DELETE', rrPath(Z, name, type), { token: t.tokens.member });
    expect([r.status, r.body.code]).toEqual([404, 'not_found']);
  });

  it('every successful write raises the serial (never backwards) and nudges the zone reconciler; a refused one does neither', async () => {
    const zone = 'serial.example';
    await create(t, zone);
    const writes: [string, string, string, unknown][] = [
      ['PUT', `www.${zone}`, 'A', { records: records('192.0.2.1') }],
      ['PUT', `www.${zone}`, 'A', { records: records('192.0.2.2') }],
      ['PUT', `www.${zone}`, 'AAAA', { records: records('2001:db8::1') }],
      ['PUT', '@', 'MX', { records: records('10 mail.example.net') }],
      ['DELETE', `www.${zone}`, 'AAAA', undefined],
      ['DELETE', '@', 'MX', undefined],
    ];
    let serial = (await get(t, zone)).serial as number;
    for (const [method, name, type, body] of writes) {
      const nudges = zoneNudges(t, zone);
      const r = await t.call(method, rrPath(zone, name, type), { token: t.tokens.member, body });
      expect(r.status).toBeLessThan(300);
      const next = (await get(t, zone)).serial as number;
      expect(next, `${method} ${name} ${type}`).toBeGreaterThan(serial);
      expect(zoneNudges(t, zone), `${method} ${name} ${type}`).toBe(nudges + 1);
      const soa = rrsetOf(await get(t, zone), zone, 'SOA') as unknown as { records: { content: string }[] };
      expect(soa.records[0]?.content.split(' ')[2]).toBe(String(next));
      serial = next;
    }
    const refused: [string, string, string, unknown][] = [
      ['PUT', `www.${zone}`, 'A', { records: records('192.0.2.300') }],
      ['PUT', `www.${zone}`, 'CNAME', { records: records('x.example.net') }],
      ['PUT', '@', 'NS', { records: records('ns.example.net') }],
      ['DELETE', `none.${zone}`, 'A', undefined],
    ];
    for (const [method, name, type, body] of refused) {
      const nudges = zoneNudges(t, zone);
      const r = await t.call(method, rrPath(zone, name, type), { token: t.tokens.member, body });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect((await get(t, zone)).serial).toBe(serial);
      expect(zoneNudges(t, zone)).toBe(nudges);
    }
  });

  it('a put of the rrset as stored changes nothing and nudges no reconciler', async () => {
    const zone = 'same-again.example';
    await create(t, zone);
    expect((await put(t, zone, `www.${zone}`, 'A', { records: records('192.0.2.1') })).status).toBe(200);
    const { serial } = await get(t, zone);
    const nudges = zoneNudges(t, zone);
    const r = await put(t, zone, `www.${zone}`, 'A', { records: records('192.0.2.1') });
    expect(r.status).toBe(200);
    expect((await get(t, zone)).serial).toBe(serial);
    expect(zoneNudges(t, zone)).toBe(nudges);
  });

  it.each(['FOO', 'a', 'aaaa', 'Cname', 'ds', 'SPF', 'soa', 'A%20'])('rejects the type %j → 400 for put and delete', async (type) => {
    const p = await put(t, Z, `www.${Z}`, type, { records: records('192.0.2.1') });
    expect([p.status, p.body.code]).toEqual([400, 'bad_request']);
    const d = await t.call('DELETE', rrPath(Z, `www.${Z}`, type), { token: t.tokens.member });
    expect([d.status, d.body.code]).toEqual([400, 'bad_request']);
  });

  it('rrset writes on another organization\'s zone → 404, their zone unchanged', async () => {
    await create(t, 'their-rr.example', t.other.token, 'globex');
    for (const [method, type, body] of [
      ['PUT', 'A', { records: records('192.0.2.1') }], ['DELETE', 'A', undefined],
      ['PUT', 'SOA', { records: records('x') }], ['DELETE', 'NS', undefined],
    ] as const) {
      const r = await t.call(method, rrPath('their-rr.example', `www.their-rr.example`, type), { token: t.tokens.admin, body });
      expect(r.status, `${method} ${type}`).toBe(404);
      const apex = await t.call(method, rrPath('their-rr.example', '@', type), { token: t.tokens.admin, body });
      expect(apex.status, `${method} @ ${type}`).toBe(404);
    }
    const theirs = await t.call('GET', zonePath('their-rr.example', 'globex'), { token: t.other.token });
    expect(typesOf(theirs.body)).toEqual(['their-rr.example SOA', 'their-rr.example NS']);
  });

  it.each([
    ['PUT', { records: records('192.0.2.1') }],
    ['DELETE', undefined],
  ])('%s on a zone that does not exist → 404, also for SOA', async (method, body) => {
    for (const type of ['A', 'SOA', 'NS']) {
      const r = await t.call(method, rrPath('absent.example', '@', type), { token: t.tokens.member, body });
      expect([r.status, r.body.code], type).toEqual([404, 'not_found']);
    }
  });

  it('writes audit dns.rrset.set and dns.rrset.delete naming zone, owner and type', async () => {
    expect((await put(t, Z, `audit.${Z}`, 'TXT', { records: records('a', 'b'), ttl: 120 })).status).toBe(200);
    expect((await t.call('DELETE', rrPath(Z, `audit.${Z}`, 'TXT'), { token: t.tokens.member })).status).toBe(204);
    const items = await auditOf(t);
    const target = `${Z}/audit.${Z}/TXT`;
    const set = items.filter((a) => a.event === 'dns.rrset.set' && a.target === target);
    const del = items.filter((a) => a.event === 'dns.rrset.delete' && a.target === target);
    expect(set).toHaveLength(1);
    expect(del).toHaveLength(1);
    expect(set[0]?.actor).toBe('user:member@acme.test');
    expect(del[0]?.actor).toBe('user:member@acme.test');
  });
});

describe('putRRset record shapes', () => {
  const Z = 'shapes.example';
  const owner: Record<string, string> = { SRV: `_sip._tcp.${Z}`, NS: `deleg.${Z}`, DS: `deleg.${Z}`, TLSA: `_443._tcp.${Z}` };
  const nameFor = (type: string) => owner[type] ?? `${type.toLowerCase()}.${Z}`;
  const H32 = '0c'.repeat(32);
  const good: Record<string, string> = {
    A: '192.0.2.1', AAAA: '2001:db8::1', MX: '10 mail.example.net', SRV: '10 5 5060 sip.example.net',
    CAA: '0 issue "letsencrypt.org"', CNAME: 'target.example.net', NS: 'ns1.example.net', TXT: 'ok', PTR: 'host.example.net',
    DS: `2371 13 2 ${H32}`, TLSA: `3 1 1 ${H32}`, SSHFP: `4 2 ${H32}`, NAPTR: '100 10 "S" "SIP+D2U" "" _sip._udp.example.net',
    HTTPS: '1 . alpn=h2,h3', SVCB: '1 svc.example.net port=853',
  };
  beforeAll(async () => { await create(t, Z); });

  const bad: [string, string][] = [
    ['A', '192.0.2'],
    ['A', '192.0.2.256'],
    ['A', '192.0.2.01'],
    ['A', '1.2.3.4.5'],
    ['A', '192.0.2.1/24'],
    ['A', '2001:db8::1'],
    ['A', 'www.example.net'],
    ['A', ''],
    ['AAAA', '192.0.2.1'],
    ['AAAA', '2001:db8::g'],
    ['AAAA', '2001:db8:::1'],
    ['AAAA', '12345::1'],
    ['AAAA', '1:2:3:4:5:6:7:8:9'],
    ['AAAA', 'fe80::1%eth0'],
    ['AAAA', ''],
    ['MX', 'mail.example.net'],
    ['MX', '10'],
    ['MX', 'ten mail.example.net'],
    ['MX', '-1 mail.example.net'],
    ['MX', '65536 mail.example.net'],
    ['MX', '10 mail..example.net'],
    ['MX', '10 *.example.net'],
    ['MX', '10 mail.example.net extra'],
    ['MX', '5 .'],
    ['MX', ''],
    ['SRV', '10 5 5060'],
    ['SRV', 'a 5 5060 sip.example.net'],
    ['SRV', '10 -5 5060 sip.example.net'],
    ['SRV', '10 5 70000 sip.example.net'],
    ['SRV', '10 5 5060 sip..example.net'],
    ['SRV', '10 5 5060 sip.example.net extra'],
    ['SRV', '10 5 5060 bad!.example.net'],
    ['CAA', '0 issue'],
    ['CAA', 'issue "letsencrypt.org"'],
    ['CAA', '256 issue "letsencrypt.org"'],
    ['CAA', 'x issue "letsencrypt.org"'],
    ['CAA', '0 is-sue "letsencrypt.org"'],
    ['CAA', '0 abcdefghijklmnop "letsencrypt.org"'],
    ['CAA', '0 issue "letsencrypt.org'],
    ['CAA', '0 issue "lets encrypt.org"'],
    ['CAA', '0 issue "ca.example; no-equals"'],
    ['CAA', '0 iodef "http://example.net/report"'],
    ['CAA', '0 iodef "not a url"'],
    ['CAA', '0 issue "caf\u00e9.example"'],
    ['CNAME', 'bad..example.net'],
    ['CNAME', '*.example.net'],
    ['CNAME', 'exa mple.net'],
    ['CNAME', ''],
    ['NS', 'ns..example.net'],
    ['NS', '*.example.net'],
    ['NS', 'n$.example.net'],
    ['TXT', 'lone \ud800 surrogate'],
    ['TXT', 'x'.repeat(65_280)],
    ['TXT', '\u00e9'.repeat(32_640)],
    ['DS', `2371 13 3 ${H32}`],
    ['DS', `2371 13 1 ${H32}`],
    ['DS', '2371 13 2 xyz'],
    ['TLSA', `3 1 1 ${H32.slice(2)}`],
    ['TLSA', `4 1 1 ${H32}`],
    ['SSHFP', `5 2 ${H32}`],
    ['NAPTR', '100 10 "S" "SIP+D2U" "!^.*$!x!" sip.example.net'],
    ['NAPTR', '100 10 "S" "SIP+D2U"'],
    ['HTTPS', '0 . alpn=h2'],
    ['HTTPS', '1 . mandatory=port'],
    ['HTTPS', '1 . alpn=h2 alpn=h3'],
    ['HTTPS', '1 . ech=%%%'],
    ['SVCB', '1 . ipv6hint=192.0.2.1'],
    ['SVCB', '1 . no-default-alpn'],
  ];

  // A good record first, so the issue must name the second one; a CNAME rrset holds one record only.
  it.each(bad)('%s %j → 400 bad_request naming the record (records[i].content)', async (type, content) => {
    const given = type === 'CNAME' ? [content] : [good[type] as string, content];
    const r = await put(t, Z, nameFor(type), type, { records: records(...given) });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    const issues = r.body.details?.issues as { path: string; message: string }[];
    expect(issues.map((i) => i.path)).toEqual([`records[${given.length - 1}].content`]);
    if (content.length > 0 && content.length <= 60 && !/[\ud800-\udfff]/.test(content)) {
      expect(issues[0]?.message).toContain(JSON.stringify(content));
    }
  });

  it.each([
    ['a CNAME with two records', `two.cname.${Z}`, 'CNAME', { records: records('a.example.net', 'b.example.net') }, 'records'],
    ['a null MX beside another MX', `nullmx.${Z}`, 'MX', { records: records('0 .', '10 mail.example.net') }, 'records[0].content'],
    ['an SRV owner without _service._proto', `sip.${Z}`, 'SRV', { records: records('10 5 5060 sip.example.net') }, 'name'],
    ['an SRV owner with one underscore label', `_sip.${Z}`, 'SRV', { records: records('10 5 5060 sip.example.net') }, 'name'],
    ['every bad record at once', `many.${Z}`, 'A', { records: records('x', '192.0.2.1', 'y') }, 'records[0].content,records[2].content'],
  ])('rejects %s → 400 with details.issues at %s', async (_what, name, type, body, paths) => {
    const r = await put(t, Z, name, type, body);
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    expect((r.body.details.issues as { path: string }[]).map((i) => i.path).join(',')).toBe(paths);
  });

  it.each([
    ['empty records', { records: [] }],
    ['no records', { ttl: 300 }],
    ['records not a list', { records: { content: '192.0.2.1' } }],
    ['a record without content', { records: [{}] }],
    ['a number as content', { records: [{ content: 3232235777 }] }],
    ['an unknown body field', { records: records('192.0.2.1'), proxied: true }],
    ['an unknown record field', { records: [{ content: '192.0.2.1', priority: 10 }] }],
    ['a fractional ttl', { records: records('192.0.2.1'), ttl: 300.5 }],
    ['a string ttl', { records: records('192.0.2.1'), ttl: '300' }],
    ['a null ttl', { records: records('192.0.2.1'), ttl: null }],
    ['ttl 0', { records: records('192.0.2.1'), ttl: 0 }],
    ['ttl -1', { records: records('192.0.2.1'), ttl: -1 }],
    ['ttl 59 (below the minimum)', { records: records('192.0.2.1'), ttl: 59 }],
    ['ttl 604801 (above the maximum)', { records: records('192.0.2.1'), ttl: 604_801 }],
    ['ttl 2^31', { records: records('192.0.2.1'), ttl: 2 ** 31 }],
    ['1001 records', { records: Array.from({ length: 1001 }, (_, i) => ({ content: `10.0.${i >> 8}.${i & 255}` })) }],
    ['a list body', [{ content: '192.0.2.1' }]],
  ])('rejects a body with %s → 400 bad_request with details.issues', async (_what, body) => {
    const r = await put(t, Z, `body.${Z}`, 'A', body);
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    expect(r.body.details.issues.length).toBeGreaterThan(0);
  });

  it('rejects a body that is not JSON → 400 bad_request', async () => {
    const r = await t.call('PUT', rrPath(Z, `body.${Z}`, 'A'), { token: t.tokens.member, raw: '{"records": [' });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
  });

  it('stored nothing for any refused input', async () => {
    expect(typesOf(await get(t, Z))).toEqual([`${Z} SOA`, `${Z} NS`]);
  });

  it.each([
    ['A', ['192.0.2.10', ' 192.0.2.9 ', '192.0.2.10'], ['192.0.2.9', '192.0.2.10']],
    ['A', ['0.0.0.0', '255.255.255.255'], ['0.0.0.0', '255.255.255.255']],
    ['AAAA', ['2001:DB8:0:0:0:0:0:1'], ['2001:db8::1']],
    ['AAAA', ['2001:0db8::0001', '2001:db8::1'], ['2001:db8::1']],
    ['AAAA', ['2001:db8:0:0:1:0:0:1'], ['2001:db8::1:0:0:1']],
    ['AAAA', ['2001:db8::10', '2001:db8::9'], ['2001:db8::9', '2001:db8::10']],
    ['MX', ['010 Mail.Example.NET.', '5 mx2.example.net'], ['5 mx2.example.net', '10 mail.example.net']],
    ['MX', ['0 .'], ['0 .']],
    ['SRV', ['010 05 05060 SIP.Example.net.'], ['10 5 5060 sip.example.net']],
    ['SRV', ['0 0 0 .'], ['0 0 0 .']],
    ['CAA', ['0 ISSUE letsencrypt.org'], ['0 issue "letsencrypt.org"']],
    ['CAA', ['128 issuewild ";"'], ['128 issuewild ";"']],
    ['CAA', ['0 issue "ca.example; account=123"'], ['0 issue "ca.example; account=123"']],
    ['CAA', ['0 iodef "mailto:security@example.net"'], ['0 iodef "mailto:security@example.net"']],
    ['CAA', ['0 iodef "https://example.net/caa"'], ['0 iodef "https://example.net/caa"']],
    ['CNAME', ['Target.Example.NET.'], ['target.example.net']],
    ['NS', ['NS2.Example.net.', 'ns1.example.net'], ['ns1.example.net', 'ns2.example.net']],
    ['PTR', ['Host.Example.net.'], ['host.example.net']],
    ['TXT', ['v=spf1 -all'], ['v=spf1 -all']],
    ['TXT', ['h\u00e9llo "quoted" \\ back'], ['h\u00e9llo "quoted" \\ back']],
    ['TXT', ['y'.repeat(600)], ['y'.repeat(600)]],
    ['TXT', [''], ['']],
    ['HTTPS', ['1 . port=443 alpn="h3,h2"', '0 CDN.example.net.'], ['0 cdn.example.net', '1 . alpn=h3,h2 port=443']],
    ['SVCB', ['1 Svc.example.net. ipv6hint=2001:DB8::1 mandatory=ipv6hint'], ['1 svc.example.net mandatory=ipv6hint ipv6hint=2001:db8::1']],
    ['TLSA', [`3 1 1 ${'ab'.repeat(16)} ${'cd'.repeat(16)}`], [`3 1 1 ${'AB'.repeat(16)}${'CD'.repeat(16)}`]],
    ['SSHFP', [`1 1 ${'ef'.repeat(20)}`], [`1 1 ${'EF'.repeat(20)}`]],
    ['NAPTR', ['10 100 s SIP+D2U "" _sip._udp.Example.net.'], ['10 100 "S" "SIP+D2U" "" _sip._udp.example.net']],
  ])('%s %j → 200 with canonical %j, read back the same', async (type, given, canonical) => {
    const name = nameFor(type);
    const r = await put(t, Z, name, type, { records: records(...given), ttl: 300 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ name, type, ttl: 300, records: records(...canonical), managedBy: null, etag: r.headers.get('etag') });
    expect(rrsetOf(await get(t, Z), name, type)).toEqual(r.body);
  });
});

describe('DNSSEC state table (setZoneDNSSEC, setZoneDS)', () => {
  const DS = { keyTag: 2371, algorithm: 13, digestType: 2, digest: 'ab'.repeat(32) };
  const dnssec = (zone: string, enabled: unknown) => t.call('POST', `${zonePath(zone)}/dnssec`, { body: { enabled } });
  const setDs = (zone: string, ds: unknown) => t.call('PUT', `${zonePath(zone)}/dnssec/ds`, { body: { ds } });
  const state = async (zone: string) => {
    const z = await get(t, zone);
    return { dnssec: z.dnssec, ds: z.ds };
  };

  it('off → enable → signing (200 Zone without rrsets); the serial rises', async () => {
    const zone = 'sec-enable.example';
    const before = await create(t, zone);
    const r = await dnssec(zone, true);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: zone, dnssec: 'signing', ds: [] });
    expect(r.body).not.toHaveProperty('rrsets');
    expect(r.body.serial).toBeGreaterThan(before.serial);
    expect(await state(zone)).toEqual({ dnssec: 'signing', ds: [] });
    expect(JSON.stringify(r.body)).not.toMatch(/private|secret|key(?!Tag)/i);
  });

  it('signing → enable again → stays signing', async () => {
    const zone = 'sec-twice.example';
    await create(t, zone);
    await dnssec(zone, true);
    const r = await dnssec(zone, true);
    expect([r.status, r.body.dnssec]).toEqual([200, 'signing']);
    expect(await state(zone)).toEqual({ dnssec: 'signing', ds: [] });
  });

  it('signing → DS [] → stays signing with ds []', async () => {
    const zone = 'sec-empty.example';
    await create(t, zone);
    await dnssec(zone, true);
    const r = await setDs(zone, []);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ dnssec: 'signing', ds: [] });
    expect(await state(zone)).toEqual({ dnssec: 'signing', ds: [] });
  });

  it('signing → DS non-empty → ds_pending with the values recorded (digest upper case)', async () => {
    const zone = 'sec-ds.example';
    await create(t, zone);
    await dnssec(zone, true);
    const sha1 = { keyTag: 0, algorithm: 8, digestType: 1, digest: 'c0ffee'.repeat(6) + 'c0ff' };
    const r = await setDs(zone, [DS, sha1]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const expected = [{ ...DS, digest: 'AB'.repeat(32) }, { ...sha1, digest: sha1.digest.toUpperCase() }];
    expect(r.body).toMatchObject({ dnssec: 'ds_pending', ds: expected });
    expect(r.body).not.toHaveProperty('rrsets');
    expect(await state(zone)).toEqual({ dnssec: 'ds_pending', ds: expected });
    // Enabling again does not move ds_pending back.
    expect((await dnssec(zone, true)).body.dnssec).toBe('ds_pending');
  });

  it.each([
    ['[]', []],
    ['a DS value', [DS]],
  ])('off → DS %s → 409 dnssec_off, stays off', async (_what, ds) => {
    const zone = `sec-off-${ds.length}.example`;
    await create(t, zone);
    const r = await setDs(zone, ds);
    expect([r.status, r.body.code]).toEqual([409, 'dnssec_off']);
    expect(await state(zone)).toEqual({ dnssec: 'off', ds: [] });
  });

  it('after disabling, DS → 409 dnssec_off again', async () => {
    const zone = 'sec-off-again.example';
    await create(t, zone);
    await dnssec(zone, true);
    await dnssec(zone, false);
    const r = await setDs(zone, [DS]);
    expect([r.status, r.body.code]).toEqual([409, 'dnssec_off']);
  });

  it.each([
    ['signing', []],
    ['ds_pending', [DS]],
  ])('%s → disable → off with the DS values deleted; the serial rises', async (from, ds) => {
    const zone = `sec-disable-${from.replace('_', '-')}.example`;
    await create(t, zone);
    await dnssec(zone, true);
    if (ds.length) expect((await setDs(zone, ds)).status).toBe(200);
    const before = await get(t, zone);
    expect(before.dnssec).toBe(from);
    const nudges = zoneNudges(t, zone);
    const r = await dnssec(zone, false);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ dnssec: 'off', ds: [] });
    expect(r.body.serial).toBeGreaterThan(before.serial);
    expect(zoneNudges(t, zone)).toBe(nudges + 1);
    expect(await state(zone)).toEqual({ dnssec: 'off', ds: [] });
    // Enabling again starts from signing with no DS values.
    expect((await dnssec(zone, true)).body).toMatchObject({ dnssec: 'signing', ds: [] });
  });

  it('off → disable → stays off (200)', async () => {
    const zone = 'sec-noop.example';
    await create(t, zone);
    const r = await dnssec(zone, false);
    expect([r.status, r.body.dnssec]).toEqual([200, 'off']);
  });

  it.each([
    ['{}', {}],
    ['enabled as a string', { enabled: 'yes' }],
    ['enabled as 1', { enabled: 1 }],
    ['an unknown field', { enabled: true, algorithm: 13 }],
  ])('setZoneDNSSEC with %s → 400 bad_request, state unchanged', async (_what, body) => {
    const zone = 'sec-badbody.example';
    if (!(await allZoneNames(t.store)).includes(zone)) await create(t, zone);
    const r = await t.call('POST', `${zonePath(zone)}/dnssec`, { body });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    expect(await state(zone)).toEqual({ dnssec: 'off', ds: [] });
  });

  it.each([
    ['no ds field', {}],
    ['ds not a list', { ds: DS }],
    ['an unknown field', { ds: [DS], note: 'x' }],
    ['an unknown DS field', { ds: [{ ...DS, flags: 257 }] }],
    ['keyTag missing', { ds: [{ algorithm: 13, digestType: 2, digest: DS.digest }] }],
    ['keyTag 65536', { ds: [{ ...DS, keyTag: 65_536 }] }],
    ['keyTag -1', { ds: [{ ...DS, keyTag: -1 }] }],
    ['keyTag 1.5', { ds: [{ ...DS, keyTag: 1.5 }] }],
    ['keyTag as a string', { ds: [{ ...DS, keyTag: '2371' }] }],
    ['algorithm 256', { ds: [{ ...DS, algorithm: 256 }] }],
    ['digestType 256', { ds: [{ ...DS, digestType: 256 }] }],
    ['a digest with non-hex digits', { ds: [{ ...DS, digest: 'zz'.repeat(32) }] }],
    ['an empty digest', { ds: [{ ...DS, digest: '' }] }],
    ['a digest of 39 hex digits', { ds: [{ ...DS, digestType: 1, digest: 'a'.repeat(39) }] }],
    ['a digest of an odd number of hex digits', { ds: [{ ...DS, digestType: 3, digest: 'a'.repeat(65) }] }],
    ['a SHA-256 digest of SHA-1 length', { ds: [{ ...DS, digestType: 2, digest: 'a'.repeat(40) }] }],
    ['a SHA-1 digest of SHA-256 length', { ds: [{ ...DS, digestType: 1, digest: 'a'.repeat(64) }] }],
    ['a SHA-384 digest of SHA-256 length', { ds: [{ ...DS, digestType: 4, digest: 'a'.repeat(64) }] }],
    ['a digest of 130 hex digits', { ds: [{ ...DS, digestType: 3, digest: 'a'.repeat(130) }] }],
    ['a digest with spaces', { ds: [{ ...DS, digest: `${'ab'.repeat(16)} ${'ab'.repeat(16)}` }] }],
    ['17 values', { ds: Array.from({ length: 17 }, (_, i) => ({ ...DS, keyTag: i })) }],
  ])('setZoneDS with %s → 400 bad_request, state unchanged', async (_what, body) => {
    const zone = 'sec-badds.example';
    if (!(await allZoneNames(t.store)).includes(zone)) {
      await create(t, zone);
      await dnssec(zone, true);
    }
    const r = await t.call('PUT', `${zonePath(zone)}/dnssec/ds`, { body });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    expect(await state(zone)).toEqual({ dnssec: 'signing', ds: [] });
  });

  it.each([
    ['setZoneDNSSEC', 'POST', '/dnssec', { enabled: true }],
    ['setZoneDS', 'PUT', '/dnssec/ds', { ds: [] }],
  ])('%s on another organization\'s zone or a missing zone → 404', async (_op, method, suffix, body) => {
    await t.call('POST', '/v1/orgs/globex/dns/zones', { token: t.other.token, body: { name: 'their-sec.example' } });
    for (const zone of ['their-sec.example', 'missing-sec.example']) {
      const r = await t.call(method, `${zonePath(zone)}${suffix}`, { body });
      expect([r.status, r.body.code], zone).toEqual([404, 'not_found']);
    }
    const theirs = await t.call('GET', zonePath('their-sec.example', 'globex'), { token: t.other.token });
    expect(theirs.body.dnssec).toBe('off');
  });
});

/** Every DNS operation with a valid request, so that nothing but the 503 cause can refuse it. */
const EVERY_OP: [string, string, string, unknown][] = [
  ['listZones', 'GET', '/v1/orgs/acme/dns/zones', undefined],
  ['createZone', 'POST', '/v1/orgs/acme/dns/zones', { name: 'nodns.example' }],
  ['getZone', 'GET', '/v1/orgs/acme/dns/zones/nodns.example', undefined],
  ['deleteZone', 'DELETE', '/v1/orgs/acme/dns/zones/nodns.example', undefined],
  ['putRRset', 'PUT', '/v1/orgs/acme/dns/zones/nodns.example/rrsets/www.nodns.example/A', { records: records('192.0.2.1') }],
  ['deleteRRset', 'DELETE', '/v1/orgs/acme/dns/zones/nodns.example/rrsets/www.nodns.example/A', undefined],
  ['setZoneDNSSEC', 'POST', '/v1/orgs/acme/dns/zones/nodns.example/dnssec', { enabled: true }],
  ['setZoneDS', 'PUT', '/v1/orgs/acme/dns/zones/nodns.example/dnssec/ds', { ds: [] }],
];

describe.each([
  ['without a core', { core: null } as const, 'no_core'],
  ['without own DNS', { dns: { configured: false, nameservers: [] } }, 'dns_not_configured'],
])('%s', (_what, opts, code) => {
  let u: TestApi;
  beforeAll(async () => { u = await startTestApi(opts); });
  afterAll(async () => { await u.close(); });

  it.each(EVERY_OP)(`%s → 503 ${code}, nothing written`, async (_op, method, path, body) => {
    const r = await u.call(method, path, { token: u.tokens.admin, body });
    expect([r.status, r.body.code]).toEqual([503, code]);
    expect(await allZoneNames(u.store)).toEqual([]);
    expect(u.nudges).toEqual([]);
  });
});

describe('a repeated putRRset is a no-op (issue 7 item 5)', () => {
  it('the same records in any order and the same TTL change no generation or serial; the call is still audited', async () => {
    await create(t, 'same.example');
    const body = (order: string[]) => ({ records: records(...order), ttl: 600 });
    expect((await put(t, 'same.example', 'www.same.example', 'A', body(['192.0.2.1', '192.0.2.2']))).status).toBe(200);
    const before = await get(t, 'same.example');
    const audits = (await auditOf(t)).filter((e) => e.target === 'same.example/www.same.example/A').length;
    for (const order of [['192.0.2.2', '192.0.2.1'], ['192.0.2.1', '192.0.2.2', '192.0.2.1'], ['192.0.2.1', '192.0.2.2']]) {
      const r = await put(t, 'same.example', 'www.same.example', 'A', body(order));
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ ttl: 600, records: records('192.0.2.1', '192.0.2.2') });
    }
    const after = await get(t, 'same.example');
    expect([after.serial, after.status.generation]).toEqual([before.serial, before.status.generation]);
    expect((await auditOf(t)).filter((e) => e.target === 'same.example/www.same.example/A')).toHaveLength(audits + 3);
    // A different TTL is a change.
    expect((await put(t, 'same.example', 'www.same.example', 'A', { records: records('192.0.2.1', '192.0.2.2'), ttl: 300 })).status).toBe(200);
    expect((await get(t, 'same.example')).status.generation).toBe(before.status.generation + 1);
  });
});
