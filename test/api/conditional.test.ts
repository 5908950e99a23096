/**
 * Conditional requests (CONTRACT.md "Plans, quotas and conventions"): ETag on single-resource answers and per
 * rrset, If-None-Match → 304, If-Match → 412 `precondition_failed`, If-None-Match: * on putRRset creates only.
 * Every answer is checked against the served OpenAPI document by `call`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { bodyTag } from '../../api/conditional';
import { secrets } from '../../store/schema';
import { recordStatus } from '../../store/status';
import { ZONE_STATUS, zoneByName } from '../../store/zones';
import { startTestApi, type TestApi } from '../helpers/app';
import { openTestStore } from '../helpers/store';

const zonePath = (zone: string) => `/v1/orgs/acme/dns/zones/${zone}`;
const rrPath = (zone: string, name: string, type: string) => `${zonePath(zone)}/rrsets/${name}/${type}`;
const records = (...contents: string[]) => contents.map((content) => ({ content }));
const STRONG = /^"[\x21\x23-\x7e]+"$/;

let t: TestApi;
beforeAll(async () => { t = await startTestApi(); });
afterAll(async () => { await t.close(); });

async function zone(name: string) {
  const r = await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r;
}
const get = (path: string, headers: Record<string, string> = {}) => t.call('GET', path, { headers });
const put = (zn: string, name: string, type: string, contents: string[], headers: Record<string, string> = {}) =>
  t.call('PUT', rrPath(zn, name, type), { token: t.tokens.member, body: { records: records(...contents) }, headers });
const del = (path: string, headers: Record<string, string> = {}) => t.call('DELETE', path, { headers });
const rrsetIn = (detail: { rrsets: { name: string; type: string; etag: string; records: unknown }[] }, name: string, type: string) =>
  detail.rrsets.find((r) => r.name === name && r.type === type);

describe('ETag on single-resource answers', () => {
  it('createZone and getZone answer the same strong ETag and X-Generation while nothing changes; every rrset has its own etag', async () => {
    const created = await zone('tags.example');
    const tag = created.headers.get('etag')!;
    expect(tag).toMatch(STRONG);
    expect(created.headers.get('x-generation')).toBe(String(created.body.status.generation));
    const read = await get(zonePath('tags.example'));
    expect(read.headers.get('etag')).toBe(tag);
    expect(read.headers.get('x-generation')).toBe('1');
    for (const r of read.body.rrsets) expect(r.etag).toMatch(STRONG);
    expect(new Set(read.body.rrsets.map((r: { etag: string }) => r.etag)).size).toBe(read.body.rrsets.length);
  });

  it('putRRset answers the rrset\'s tag (header and body), the one getZone lists; an identical put keeps tag and generation', async () => {
    await zone('same.example');
    const first = await put('same.example', 'www.same.example', 'A', ['192.0.2.1']);
    expect(first.status).toBe(200);
    const tag = first.headers.get('etag')!;
    expect(first.body.etag).toBe(tag);
    expect(rrsetIn((await get(zonePath('same.example'))).body, 'www.same.example', 'A')!.etag).toBe(tag);
    const zoneTag = (await get(zonePath('same.example'))).headers.get('etag');
    const again = await put('same.example', 'www.same.example', 'A', ['192.0.2.1']);
    expect(again.headers.get('etag')).toBe(tag);
    expect(again.headers.get('x-generation')).toBe(first.headers.get('x-generation'));
    expect((await get(zonePath('same.example'))).headers.get('etag')).toBe(zoneTag);
    const changed = await put('same.example', 'www.same.example', 'A', ['192.0.2.2']);
    expect(changed.headers.get('etag')).not.toBe(tag);
    expect(Number(changed.headers.get('x-generation'))).toBe(Number(first.headers.get('x-generation')) + 1);
  });

  it('a zone created again under its name never answers an old tag', async () => {
    const before = (await zone('again.example')).headers.get('etag');
    const ns = (await get(zonePath('again.example'))).body.rrsets.map((r: { etag: string }) => r.etag);
    expect((await del(zonePath('again.example'))).status).toBe(204);
    const after = (await zone('again.example')).headers.get('etag');
    expect(after).not.toBe(before);
    const nsAfter = (await get(zonePath('again.example'))).body.rrsets.map((r: { etag: string }) => r.etag);
    expect(nsAfter.filter((e: string) => ns.includes(e))).toEqual([]);
  });
});

describe('If-None-Match on GET', () => {
  it.each([
    ['the current tag', (tag: string) => tag, 304],
    ['the current tag in a list', (tag: string) => `"nope", ${tag}`, 304],
    ['the current tag, weak', (tag: string) => `W/${tag}`, 304],
    ['*', () => '*', 304],
    ['another tag', () => '"1-other"', 200],
    ['a malformed list', () => 'not-a-tag', 200],
  ])('getZone with %s → %i', async (_what, header, status) => {
    await zone('inm.example');
    const tag = (await get(zonePath('inm.example'))).headers.get('etag')!;
    const r = await get(zonePath('inm.example'), { 'if-none-match': header(tag) });
    expect(r.status).toBe(status);
    expect(r.headers.get('etag')).toBe(tag);
    if (status === 304) expect(r.body).toBeUndefined();
    else expect(r.body.name).toBe('inm.example');
  });

  it('getZone: a changed rrset and a new status each make the old tag answer 200 again', async () => {
    await zone('moves.example');
    const t0 = (await get(zonePath('moves.example'))).headers.get('etag')!;
    expect((await get(zonePath('moves.example'), { 'if-none-match': t0 })).status).toBe(304);
    await put('moves.example', 'a.moves.example', 'A', ['192.0.2.1']);
    const r1 = await get(zonePath('moves.example'), { 'if-none-match': t0 });
    expect(r1.status).toBe(200);
    const t1 = r1.headers.get('etag')!;
    const z = (await zoneByName(t.store, 'moves.example'))!;
    await recordStatus(t.store, ZONE_STATUS, z.name, {
      uid: z.uid, generation: z.generation, lastError: null,
      set: [{ type: 'Ready', status: 'True', reason: 'Served', message: 'served' }],
      facts: { servedSerial: z.serial, renderedSerial: z.serial },
    });
    const r2 = await get(zonePath('moves.example'), { 'if-none-match': t1 });
    expect(r2.status).toBe(200);
    expect(r2.body.status.ready).toBe(true);
    expect(r2.headers.get('etag')).not.toBe(t1);
  });

  it('getProject: ETag (the one createProject answered), 304 while unchanged', async () => {
    const created = await t.call('POST', '/v1/orgs/acme/projects', { token: t.tokens.member, body: { name: 'etagged' } });
    expect(created.status).toBe(201);
    const read = await get('/v1/orgs/acme/projects/etagged');
    expect(read.headers.get('etag')).toMatch(STRONG);
    expect(read.headers.get('etag')).toBe(created.headers.get('etag'));
    const again = await get('/v1/orgs/acme/projects/etagged', { 'if-none-match': read.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect((await get('/v1/orgs/acme/projects/etagged', { 'if-none-match': '"x"' })).status).toBe(200);
  });
});

describe('If-Match and If-None-Match on rrset writes', () => {
  type Case = [string, 'put' | 'delete', 'exists' | 'missing', (current: string) => Record<string, string>, number];
  const cases: Case[] = [
    ['put, If-Match the current tag', 'put', 'exists', (c) => ({ 'if-match': c }), 200],
    ['put, If-Match a list holding the current tag', 'put', 'exists', (c) => ({ 'if-match': `"0-x", ${c}` }), 200],
    ['put, If-Match a stale tag', 'put', 'exists', () => ({ 'if-match': '"1-000000000000"' }), 412],
    ['put, If-Match the current tag made weak', 'put', 'exists', (c) => ({ 'if-match': `W/${c}` }), 412],
    ['put, If-Match *, rrset exists', 'put', 'exists', () => ({ 'if-match': '*' }), 200],
    ['put, If-Match *, no rrset', 'put', 'missing', () => ({ 'if-match': '*' }), 412],
    ['put, If-Match a tag, no rrset', 'put', 'missing', () => ({ 'if-match': '"1-000000000000"' }), 412],
    ['put, If-None-Match *, no rrset: creates', 'put', 'missing', () => ({ 'if-none-match': '*' }), 200],
    ['put, If-None-Match *, rrset exists', 'put', 'exists', () => ({ 'if-none-match': '*' }), 412],
    ['put, If-None-Match the current tag', 'put', 'exists', (c) => ({ 'if-none-match': c }), 412],
    ['put, If-None-Match another tag', 'put', 'exists', () => ({ 'if-none-match': '"1-000000000000"' }), 200],
    ['delete, If-Match the current tag', 'delete', 'exists', (c) => ({ 'if-match': c }), 204],
    ['delete, If-Match a stale tag', 'delete', 'exists', () => ({ 'if-match': '"1-000000000000"' }), 412],
    ['delete, If-Match *, no rrset: 404 first', 'delete', 'missing', () => ({ 'if-match': '*' }), 404],
  ];
  it.each(cases.map((c, i) => [...c, i] as const))('%s → %i', async (_what, op, state, headers, status, i) => {
    const zn = `rr${i}.example`;
    await zone(zn);
    const name = `www.${zn}`;
    let current = '"none"';
    if (state === 'exists') current = (await put(zn, name, 'A', ['192.0.2.1'])).headers.get('etag')!;
    const gen = (await get(zonePath(zn))).body.status.generation;
    const r = op === 'put' ? await put(zn, name, 'A', ['192.0.2.9'], headers(current)) : await del(rrPath(zn, name, 'A'), headers(current));
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    const after = await get(zonePath(zn));
    if (status === 412) {
      expect(r.body.code).toBe('precondition_failed');
      // Nothing was written: same generation, the rrset as it was.
      expect(after.body.status.generation).toBe(gen);
      expect(rrsetIn(after.body, name, 'A')?.etag).toBe(state === 'exists' ? current : undefined);
    } else if (status === 200) {
      expect(rrsetIn(after.body, name, 'A')!.etag).toBe(r.headers.get('etag'));
    }
  });

  it('a managed rrset is 409 managed_rrset whatever the conditions say', async () => {
    await zone('managed.example');
    const ns = rrsetIn((await get(zonePath('managed.example'))).body, 'managed.example', 'NS')!;
    const r = await put('managed.example', '@', 'NS', ['ns.example.net'], { 'if-match': ns.etag });
    expect(r.status).toBe(409);
    expect((await del(rrPath('managed.example', '@', 'NS'), { 'if-match': '"stale"' })).status).toBe(409);
  });

  it('the check and the write are one: of two concurrent puts with the same If-Match, one wins and the other is 412', async () => {
    await zone('race.example');
    const tag = (await put('race.example', 'www.race.example', 'A', ['192.0.2.1'])).headers.get('etag')!;
    const answers = await Promise.all(['192.0.2.2', '192.0.2.3', '192.0.2.4'].map((ip) => put('race.example', 'www.race.example', 'A', [ip], { 'if-match': tag })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412]);
    const winner = answers.find((a) => a.status === 200)!;
    expect(rrsetIn((await get(zonePath('race.example'))).body, 'www.race.example', 'A')!.records).toEqual(winner.body.records);
  });

  it('If-None-Match: * lets exactly one of concurrent creations through', async () => {
    await zone('create.example');
    const answers = await Promise.all(['192.0.2.2', '192.0.2.3'].map((ip) => put('create.example', 'new.create.example', 'A', [ip], { 'if-none-match': '*' })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
  });
});

describe('If-Match on zone operations (the zone\'s tag)', () => {
  it.each([
    ['setZoneDNSSEC', (zn: string, h: Record<string, string>) => t.call('POST', `${zonePath(zn)}/dnssec`, { body: { enabled: true }, headers: h }), 200],
    ['deleteZone', (zn: string, h: Record<string, string>) => del(zonePath(zn), h), 204],
  ] as const)('%s: a stale tag → 412 and nothing changes; the current one → done', async (op, send, ok) => {
    const zn = `${op.toLowerCase()}.example`;
    const created = await zone(zn);
    const stale = created.headers.get('etag')!;
    await put(zn, `a.${zn}`, 'A', ['192.0.2.1']);
    const before = await get(zonePath(zn));
    const refused = await send(zn, { 'if-match': stale });
    expect(refused.status).toBe(412);
    expect(refused.body.code).toBe('precondition_failed');
    const same = await get(zonePath(zn));
    expect(same.headers.get('etag')).toBe(before.headers.get('etag'));
    const done = await send(zn, { 'if-match': before.headers.get('etag')! });
    expect(done.status).toBe(ok);
    if (ok === 200) {
      expect(done.headers.get('etag')).not.toBe(before.headers.get('etag'));
      expect(done.headers.get('x-generation')).toBe(String(done.body.status.generation));
      expect((await get(zonePath(zn))).headers.get('etag')).toBe(done.headers.get('etag'));
    }
  });

  it('setZoneDS: DS values move the tag though not the generation; If-Match *; 409 dnssec_off comes before 412', async () => {
    const zn = 'ds.example';
    await zone(zn);
    const ds = [{ keyTag: 1, algorithm: 13, digestType: 2, digest: 'AB'.repeat(32) }];
    expect((await t.call('PUT', `${zonePath(zn)}/dnssec/ds`, { body: { ds }, headers: { 'if-match': '"stale"' } })).status).toBe(409);
    const on = await t.call('POST', `${zonePath(zn)}/dnssec`, { body: { enabled: true } });
    const set = await t.call('PUT', `${zonePath(zn)}/dnssec/ds`, { body: { ds }, headers: { 'if-match': on.headers.get('etag')! } });
    expect(set.status).toBe(200);
    expect(set.headers.get('x-generation')).toBe(on.headers.get('x-generation'));
    expect(set.headers.get('etag')).not.toBe(on.headers.get('etag'));
    expect((await t.call('PUT', `${zonePath(zn)}/dnssec/ds`, { body: { ds: [] }, headers: { 'if-match': on.headers.get('etag')! } })).status).toBe(412);
    expect((await t.call('PUT', `${zonePath(zn)}/dnssec/ds`, { body: { ds: [] }, headers: { 'if-match': '*' } })).status).toBe(200);
  });
});

describe('secrets', () => {
  const path = (name: string) => `/v1/orgs/acme/projects/vault/secrets/${name}`;
  const set = (name: string, value: string, headers: Record<string, string> = {}) =>
    t.call('PUT', path(name), { token: t.tokens.member, body: { value }, headers });
  beforeAll(async () => {
    expect((await t.call('POST', '/v1/orgs/acme/projects', { token: t.tokens.member, body: { name: 'vault' } })).status).toBe(201);
  });

  it('setSecret answers an ETag; If-Match with it sets, a stale one is 412 and the version stays', async () => {
    const first = await set('API_KEY', 'one');
    const tag = first.headers.get('etag')!;
    expect(tag).toMatch(STRONG);
    const second = await set('API_KEY', 'two', { 'if-match': tag });
    expect(second.status).toBe(200);
    expect(second.body.version).toBe(2);
    const stale = await set('API_KEY', 'three', { 'if-match': tag });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('precondition_failed');
    const list = await t.call('GET', '/v1/orgs/acme/projects/vault/secrets', { token: t.tokens.member });
    expect(list.body.items.find((s: { name: string }) => s.name === 'API_KEY').version).toBe(2);
  });

  it('If-None-Match: * sets a secret only when it is not set', async () => {
    expect((await set('ONCE', 'a', { 'if-none-match': '*' })).status).toBe(200);
    expect((await set('ONCE', 'b', { 'if-none-match': '*' })).status).toBe(412);
  });

  it('a secret deleted and set again (same second, version 1 again) never answers its old tag', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-11-26T10:00:00.100Z'));
      const old = (await set('REBORN', 'a')).headers.get('etag')!;
      expect((await t.call('DELETE', path('REBORN'), { token: t.tokens.member })).status).toBe(204);
      vi.setSystemTime(new Date('2026-11-26T10:00:00.600Z'));
      const again = await set('REBORN', 'a');
      expect(again.body).toMatchObject({ version: 1, updatedAt: '2026-11-26T10:00:00Z' });
      expect(again.headers.get('etag')).toMatch(STRONG);
      expect(again.headers.get('etag')).not.toBe(old);
      // A client holding the old lifetime's tag is refused, the new one's tag works.
      expect((await set('REBORN', 'b', { 'if-match': old })).status).toBe(412);
      expect((await t.call('DELETE', path('REBORN'), { token: t.tokens.member, headers: { 'if-match': old } })).status).toBe(412);
      expect((await set('REBORN', 'b', { 'if-match': again.headers.get('etag')! })).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a secret set before lifetimes were recorded (uid \'\') keeps the tag it had', async () => {
    const first = (await set('LEGACY', 'a')).body as { name: string; version: number; updatedAt: string };
    await t.store.db.update(secrets).set({ uid: '' }).where(eq(secrets.name, 'LEGACY'));
    expect((await set('LEGACY', 'b', { 'if-match': bodyTag({ name: first.name, version: first.version, updatedAt: first.updatedAt }) })).status).toBe(200);
  });

  it('deleteSecret: a stale If-Match is 412, the current one deletes, a missing secret is 404', async () => {
    const tag = (await set('GONE', 'a')).headers.get('etag')!;
    await set('GONE', 'b');
    expect((await t.call('DELETE', path('GONE'), { token: t.tokens.member, headers: { 'if-match': tag } })).status).toBe(412);
    const current = (await set('GONE', 'c')).headers.get('etag')!;
    expect((await t.call('DELETE', path('GONE'), { token: t.tokens.member, headers: { 'if-match': current } })).status).toBe(204);
    expect((await t.call('DELETE', path('GONE'), { token: t.tokens.member, headers: { 'if-match': current } })).status).toBe(404);
  });
});

/** Issue 20 item 7: If-Match is honoured wherever a GET answers an ETag. */
describe('If-Match on the writes of resources whose GET answers an ETag', () => {
  const project = '/v1/orgs/acme/projects/gated';
  beforeAll(async () => {
    expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'gated', database: true } })).status).toBe(201);
    expect((await t.call('POST', `${project}/auth`)).status).toBe(200);
    expect((await t.call('POST', '/v1/orgs/acme/domains/import', { body: { name: 'tagged-domain.com' } })).status).toBe(201);
  });

  it.each([
    ['setAccess', `${project}/access`, 'PUT', { mode: 'org' }, { mode: 'public' }],
    ['updateAuthSettings', `${project}/auth`, 'PATCH', { sessionDays: 7 }, { sessionDays: 9 }],
    ['setAuthProvider', `${project}/auth/providers/github`, 'PUT', { clientId: 'one', clientSecret: 's1' }, { clientId: 'two', clientSecret: 's2' }],
    ['setDomainAutoRenew', '/v1/orgs/acme/domains/tagged-domain.com/auto-renew', 'POST', { autoRenew: true }, { autoRenew: false }],
  ] as const)('%s: a stale tag is 412 and changes nothing, the current one writes', async (_op, path, method, change, other) => {
    const read = path.includes('/domains/') ? '/v1/orgs/acme/domains/tagged-domain.com' : path.replace(/\/providers\/github$/, '');
    const stale = (await get(read)).headers.get('etag')!;
    expect(stale).toMatch(STRONG);
    expect((await t.call(method, path, { body: change })).status).toBe(200);
    const now = await get(read);
    expect(now.headers.get('etag')).not.toBe(stale);
    const refused = await t.call(method, path, { body: other, headers: { 'if-match': stale } });
    expect([refused.status, refused.body.code]).toEqual([412, 'precondition_failed']);
    expect((await get(read)).body).toEqual(now.body);
    expect((await t.call(method, path, { body: other, headers: { 'if-match': now.headers.get('etag')! } })).status).toBe(200);
  });

  it('the document lists If-Match on every write whose resource\'s GET answers an ETag', async () => {
    const doc = await (await fetch(`${t.url}/openapi.json`)).json() as { paths: Record<string, Record<string, { operationId: string; parameters?: { $ref?: string }[] }>> };
    const takesIfMatch = (id: string) => Object.values(doc.paths).flatMap((p) => Object.values(p)).find((o) => o.operationId === id)!
      .parameters!.some((p) => p.$ref === '#/components/parameters/IfMatch');
    for (const id of ['setAccess', 'updateAuthSettings', 'setAuthProvider', 'setDomainAutoRenew', 'setDomainLock', 'renewDomain']) expect(takesIfMatch(id), id).toBe(true);
  });
});

/**
 * Issue 20 item 7, the writes a hostile-tenant review found ignoring `If-Match`: each of the writes below changes a
 * resource whose GET answers an ETag (the provider and the bypass secret: their parent's, getAuth's and getAccess's), so
 * a stale tag is 412 and nothing is written, the current one or `*` writes. Also: a write that repeats the stored
 * state keeps the tag. A store of its own with a clock the test moves, so a repeat is judged a minute later, and
 * the pro plan for a project per case.
 */
describe('If-Match on every write of a resource whose GET answers an ETag; a repeat keeps the tag', () => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  let u: TestApi;
  beforeAll(async () => { u = await startTestApi({ plan: 'pro', store: await openTestStore(':memory:', { clock: () => new Date(now) }) }); });
  afterAll(async () => { await u.close(); });
  const tick = () => { now += 60_000; };
  const audited = async (event: string, project: string) => (await u.call('GET', '/v1/orgs/acme/audit?limit=1000')).body.items
    .filter((i: { event: string; target: string }) => i.event === event && i.target.split('/')[0] === project).length;
  let n = 0;
  async function project(): Promise<string> {
    const name = `cond-${++n}`;
    expect((await u.call('POST', '/v1/orgs/acme/projects', { body: { name, database: true } })).status).toBe(201);
    return name;
  }
  const P = (name: string) => `/v1/orgs/acme/projects/${name}`;
  const call = (method: string, path: string, body?: unknown) => u.call(method, path, body === undefined ? {} : { body });

  // [operation, method, path under the project, body, the GET whose tag it takes, expected status, audit event,
  //  what makes the write do something]
  const writes = [
    ['deleteAuthProvider', 'DELETE', '/auth/providers/github', undefined, '/auth', 204, 'auth.provider.delete',
      (p: string) => call('PUT', `${P(p)}/auth/providers/github`, { clientId: 'id', clientSecret: 'secret' })],
    ['revokeAuth', 'DELETE', '/auth', undefined, '/auth', 204, 'auth.revoke', (p: string) => call('POST', `${P(p)}/auth`)],
    ['grantAuth', 'POST', '/auth', undefined, '/auth', 200, 'auth.grant', (p: string) => call('DELETE', `${P(p)}/auth`)],
    ['newAccessBypass', 'POST', '/access/bypass', undefined, '/access', 200, 'access.bypass.new', async () => ({ status: 0 })],
    ['revokeAccessBypass', 'DELETE', '/access/bypass', undefined, '/access', 204, 'access.bypass.revoke', (p: string) => call('POST', `${P(p)}/access/bypass`)],
    ['revokeStorage', 'DELETE', '/storage', undefined, '/storage', 204, 'storage.revoke', (p: string) => call('POST', `${P(p)}/storage`)],
    ['grantStorage', 'POST', '/storage', undefined, '/storage', 200, 'storage.grant', (p: string) => call('DELETE', `${P(p)}/storage`)],
  ] as const;

  it.each(writes)('%s: If-Match "stale" is 412 and writes nothing; the current tag writes, and so does *', async (_op, method, sub, body, read, status, event, setup) => {
    const p = await project();
    // Granted first, so that a revoke revokes and a grant after the setup's revoke grants.
    expect((await call('POST', `${P(p)}/auth`)).status).toBe(200);
    expect((await call('POST', `${P(p)}/storage`)).status).toBe(200);
    await setup(p);
    tick();
    const before = await u.call('GET', `${P(p)}${read}`);
    const tag = before.headers.get('etag');
    expect(tag).toMatch(STRONG);
    const audits = await audited(event, p);
    for (const stale of ['"stale"', `W/${tag}`, `"x", ${tag!.slice(0, -1)}x"`]) {
      const refused = await u.call(method, `${P(p)}${sub}`, { body, headers: { 'if-match': stale } });
      expect([refused.status, refused.body.code], stale).toEqual([412, 'precondition_failed']);
    }
    const after = await u.call('GET', `${P(p)}${read}`);
    expect([after.body, after.headers.get('etag')]).toEqual([before.body, tag]);
    expect(await audited(event, p)).toBe(audits);

    const done = await u.call(method, `${P(p)}${sub}`, { body, headers: { 'if-match': `"other", ${tag}` } });
    expect(done.status, JSON.stringify(done.body)).toBe(status);
    expect(await audited(event, p)).toBe(audits + 1);
    await setup(p);
    tick();
    expect((await u.call(method, `${P(p)}${sub}`, { body, headers: { 'if-match': '*' } })).status).toBe(status);
    expect(await audited(event, p)).toBe(audits + 2);
  });

  it('a missing project is 404 whatever If-Match says, and a viewer is 403 (the conditions come after)', async () => {
    for (const [, method, sub, body] of writes) {
      const r = await u.call(method, `${P('nowhere')}${sub}`, { body, headers: { 'if-match': '"stale"' } });
      expect([method, sub, r.status]).toEqual([method, sub, 404]);
    }
    const p = await project();
    const r = await u.call('DELETE', `${P(p)}/storage`, { token: u.tokens.viewer, headers: { 'if-match': '"stale"' } });
    expect(r.status).toBe(403);
  });

  it('grantAuth without a database is 409 database_required whatever If-Match says', async () => {
    const name = `cond-${++n}`;
    expect((await u.call('POST', '/v1/orgs/acme/projects', { body: { name } })).status).toBe(201);
    const r = await u.call('POST', `${P(name)}/auth`, { headers: { 'if-match': '"stale"' } });
    expect([r.status, r.body.code]).toEqual([409, 'database_required']);
  });

  // [operation, method, path under the project, what sets the state, the write that repeats it, the GET]
  const repeats = [
    ['setAccess', 'PUT', '/access', { mode: 'password', password: 'correct horse battery' }, { mode: 'password' }, '/access', 'access.set'],
    ['setAccess (org)', 'PUT', '/access', { mode: 'org' }, { mode: 'org' }, '/access', 'access.set'],
    ['updateAuthSettings', 'PATCH', '/auth', { sessionDays: 7 }, { sessionDays: 7 }, '/auth', 'auth.settings'],
    ['setAuthProvider', 'PUT', '/auth/providers/github', { clientId: 'one', clientSecret: 's1' }, { clientId: 'one', clientSecret: 's1' }, '/auth', 'auth.provider.set'],
  ] as const;

  it.each(repeats)('%s: a write that repeats the stored state keeps the tag and the body, and is audited as asked', async (_op, method, sub, first, again, read, event) => {
    const p = await project();
    expect((await call('POST', `${P(p)}/auth`)).status).toBe(200);
    expect((await call(method, `${P(p)}${sub}`, first)).status).toBe(200);
    tick();
    const before = await u.call('GET', `${P(p)}${read}`);
    const audits = await audited(event, p);
    const repeated = await u.call(method, `${P(p)}${sub}`, { body: again, headers: { 'if-match': before.headers.get('etag')! } });
    expect(repeated.status).toBe(200);
    expect(repeated.headers.get('etag')).toBe(before.headers.get('etag'));
    const after = await u.call('GET', `${P(p)}${read}`);
    expect([after.body, after.headers.get('etag')]).toEqual([before.body, before.headers.get('etag')]);
    // As putRRset and updateAuthSettings: the customer asked for the write, so it is audited, and changes nothing.
    expect(await audited(event, p)).toBe(audits + 1);
  });

  it('the document lists If-Match and 412 on each of these writes', async () => {
    const doc = await (await fetch(`${u.url}/openapi.json`)).json() as { paths: Record<string, Record<string, { operationId: string; parameters?: { $ref?: string }[]; responses: Record<string, unknown> }>> };
    const op = (id: string) => Object.values(doc.paths).flatMap((p) => Object.values(p)).find((o) => o.operationId === id)!;
    for (const [id] of writes) {
      expect(op(id).parameters!.some((p) => p.$ref === '#/components/parameters/IfMatch'), id).toBe(true);
      expect(op(id).responses['412'], id).toBeDefined();
    }
  });
});
