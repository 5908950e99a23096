/**
 * Deployment access (spec 4.4, part 3's grants table, part 5, part 6; CONTRACT.md; issue 11 items 1 and 2):
 * a project never set reads `public`; setAccess's modes, the kept password, 400 for `password` mode with none;
 * the password only as a scrypt hash and never returned; the bypass secret shown once and stored as a hash, a
 * new one replacing the old; revoke idempotent leaving the policy; audit records and logs without either value;
 * roles; 503 `no_core`; authorizeAccess's known hosts, `next` allowlist and org check, and the one-time code's
 * redeem by a node serving the host, once, within 60 s.
 */
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSafeNext } from '../../rules/safe-next';
import { verifyPassword } from '../../lib/access-hash';
import { orgBySlug, registerNode } from '../../store/accounts';
import { ACCESS_CODE_TTL_MS } from '../../store/access';
import { changesSince } from '../../store/feed';
import { setPlacement } from '../../store/projects';
import { accessCodes, accessPolicies, hostnames } from '../../store/schema';
import { startTestApi, type TestApi } from '../helpers/app';

const A = '/v1/orgs/acme/projects/blog/access';
let t: TestApi;
let projectId: number;
beforeAll(async () => {
  t = await startTestApi();
  const r = await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blog' } });
  expect(r.status).toBe(201);
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'shop' } })).status).toBe(201);
  const [blog] = await t.store.db.select().from(hostnames).where(eq(hostnames.name, 'blog.hostplane.test'));
  projectId = blog!.projectId;
});
afterAll(async () => { await t.close(); });

const stored = async () => (await t.store.db.select().from(accessPolicies).where(eq(accessPolicies.projectId, projectId)))[0];
const audit = async (event: string) => (await t.call('GET', '/v1/orgs/acme/audit?limit=1000')).body.items.filter((i: { event: string }) => i.event === event);

describe('access policy', () => {
  it('a project never set reads public with 200, not 404, with an ETag honoured by If-None-Match', async () => {
    const r = await t.call('GET', A, { token: t.tokens.viewer });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ mode: 'public', hasPassword: false, hasBypass: false, updatedAt: null, rollout: [] });
    const tag = r.headers.get('etag')!;
    expect(tag).toMatch(/^"/);
    const again = await t.call('GET', A, { token: t.tokens.viewer, headers: { 'if-none-match': tag } });
    expect(again.status).toBe(304);
  });

  it('password mode with no password sent and none ever stored is 400, and stores nothing', async () => {
    const r = await t.call('PUT', A, { body: { mode: 'password' } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect(await stored()).toBeUndefined();
  });

  it('stores the password only as a scrypt hash (N=2^17, r=8, p=1) and never returns it', async () => {
    const r = await t.call('PUT', A, { body: { mode: 'password', password: 'correct horse' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ mode: 'password', hasPassword: true, hasBypass: false, updatedAt: expect.any(String), rollout: [] });
    expect(r.headers.get('etag')).toMatch(/^"/);
    expect(JSON.stringify(r.body)).not.toContain('correct horse');
    const row = (await stored())!;
    expect(row.passwordHash).toMatch(/^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(row.passwordHash).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', row.passwordHash!)).toBe(true);
    expect(await verifyPassword('wrong horse', row.passwordHash!)).toBe(false);
    const got = await t.call('GET', A, { token: t.tokens.viewer });
    expect(got.body).toEqual(r.body);
  });

  it('a save without a password keeps the stored one; a new value replaces it and raises the version', async () => {
    const before = (await stored())!;
    const toOrg = await t.call('PUT', A, { body: { mode: 'org' } });
    expect(toOrg.status).toBe(200);
    expect(toOrg.body).toMatchObject({ mode: 'org', hasPassword: true });
    expect((await stored())!.passwordHash).toBe(before.passwordHash);
    const back = await t.call('PUT', A, { body: { mode: 'password' } });
    expect(back.status).toBe(200);
    expect((await stored())!.passwordHash).toBe(before.passwordHash);
    const v = (await stored())!.version;
    expect((await t.call('PUT', A, { body: { mode: 'password', password: 'battery staple' } })).status).toBe(200);
    const after = (await stored())!;
    expect(after.passwordHash).not.toBe(before.passwordHash);
    expect(after.version).toBe(v + 1);
    expect(await verifyPassword('battery staple', after.passwordHash!)).toBe(true);
  });

  it('each change records a project change for the bundle reconciler and nudges it', async () => {
    const changes = (await changesSince(t.store, 0)).filter((c) => c.kind === 'project' && c.key === String(projectId));
    expect(changes.length).toBeGreaterThanOrEqual(3);
    expect(t.nudges.filter((n) => n.kind === 'project' && n.key === String(projectId)).length).toBeGreaterThanOrEqual(3);
  });

  it('refuses an unknown mode and unknown fields (400)', async () => {
    expect((await t.call('PUT', A, { body: { mode: 'private' } })).status).toBe(400);
    expect((await t.call('PUT', A, { body: { mode: 'public', passwordHash: 'x' } })).status).toBe(400);
    expect((await t.call('PUT', A, { body: { mode: 'password', password: '' } })).status).toBe(400);
    const short = await t.call('PUT', A, { body: { mode: 'password', password: 'a'.repeat(7) } });
    expect(short.status).toBe(400);
    expect(short.body.details.issues).toEqual([expect.objectContaining({ path: 'body.password' })]);
    expect((await t.call('PUT', A, { body: { mode: 'password', password: 'a'.repeat(8) } })).status).toBe(200);
  });

  it('roles: viewer reads, only admin sets; another org and a missing project are 404', async () => {
    expect((await t.call('GET', A, { token: t.tokens.viewer })).status).toBe(200);
    expect((await t.call('PUT', A, { token: t.tokens.member, body: { mode: 'public' } })).status).toBe(403);
    expect((await t.call('POST', `${A}/bypass`, { token: t.tokens.member })).status).toBe(403);
    expect((await t.call('DELETE', `${A}/bypass`, { token: t.tokens.member })).status).toBe(403);
    expect((await t.call('GET', A, { token: t.other.token })).status).toBe(404);
    expect((await t.call('GET', '/v1/orgs/acme/projects/ghost/access', { token: t.tokens.viewer })).status).toBe(404);
    expect((await t.call('PUT', '/v1/orgs/acme/projects/ghost/access', { body: { mode: 'public' } })).status).toBe(404);
  });
});

describe('bypass secret', () => {
  let first: string;
  it('is 32 random bytes or more, shown once, stored only as its SHA-256', async () => {
    const r = await t.call('POST', `${A}/bypass`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    first = r.body.secret;
    expect(Buffer.from(first, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect((await stored())!.bypassHash).toBe(createHash('sha256').update(first).digest('hex'));
    expect(JSON.stringify(await stored())).not.toContain(first);
    const got = await t.call('GET', A, { token: t.tokens.viewer });
    expect(got.body.hasBypass).toBe(true);
    expect(JSON.stringify(got.body)).not.toContain(first);
  });

  it('a new one invalidates the old at once; Idempotency-Key is ignored (every call runs)', async () => {
    const headers = { 'idempotency-key': 'bypass-1' };
    const a = await t.call('POST', `${A}/bypass`, { headers });
    const b = await t.call('POST', `${A}/bypass`, { headers });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(new Set([first, a.body.secret, b.body.secret]).size).toBe(3);
    expect((await stored())!.bypassHash).toBe(createHash('sha256').update(b.body.secret).digest('hex'));
  });

  it('revoke is idempotent (204 twice) and leaves the policy as it was', async () => {
    const before = (await stored())!;
    expect((await t.call('DELETE', `${A}/bypass`)).status).toBe(204);
    expect((await t.call('DELETE', `${A}/bypass`)).status).toBe(204);
    const after = (await stored())!;
    expect(after.bypassHash).toBeNull();
    expect({ ...after, bypassHash: null, updatedAt: null }).toEqual({ ...before, bypassHash: null, updatedAt: null });
    expect((await t.call('GET', A, { token: t.tokens.viewer })).body).toMatchObject({ mode: before.mode, hasPassword: true, hasBypass: false });
    expect(await audit('access.bypass.revoke')).toHaveLength(1);
    // A project that never had a policy: 204, and still public.
    expect((await t.call('DELETE', '/v1/orgs/acme/projects/shop/access/bypass')).status).toBe(204);
    expect((await t.call('GET', '/v1/orgs/acme/projects/shop/access')).body.mode).toBe('public');
  });

  it('audit records name the events, never a password, a hash or a secret; the logs hold neither', async () => {
    const items = (await t.call('GET', '/v1/orgs/acme/audit?limit=1000')).body.items as { event: string }[];
    const events = items.map((i) => i.event);
    expect(events).toEqual(expect.arrayContaining(['access.set', 'access.bypass.new', 'access.bypass.revoke']));
    const text = JSON.stringify(items);
    for (const bad of ['correct horse', 'battery staple', '$scrypt$', first]) {
      expect(text).not.toContain(bad);
      expect(t.logs.join('')).not.toContain(bad);
    }
  });
});

describe('authorizeAccess and redeem', () => {
  const AUTH = '/v1/access/authorize';
  let nodeToken: string;
  let otherNodeToken: string;
  beforeAll(async () => {
    nodeToken = await registerNode(t.store, 'n-blog');
    otherNodeToken = await registerNode(t.store, 'n-else');
    const acme = (await orgBySlug(t.store, 'acme'))!;
    await setPlacement(t.store, acme.id, 'blog', 'n-blog');
    await setPlacement(t.store, acme.id, 'shop', 'n-else');
  });

  const codeOf = (redirect: string): string => new URL(redirect).searchParams.get('code')!;
  const redeem = (code: string, token = nodeToken, node = 'n-blog') => t.call('POST', `/v1/nodes/${node}/access/redeem`, { token, body: { code } });

  it('a viewer gets the callback redirect with a code; the node serving the host redeems it once, with the role', async () => {
    const r = await t.call('POST', AUTH, { token: t.tokens.viewer, body: { to: 'blog.hostplane.test', next: '/dash?x=1' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const url = new URL(r.body.redirect);
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe('https://blog.hostplane.test/__service/access/callback');
    expect(url.searchParams.get('next')).toBe('/dash?x=1');
    const code = codeOf(r.body.redirect);
    expect(Buffer.from(code, 'base64url').length).toBeGreaterThanOrEqual(32);
    // Only a hash of the code is stored.
    expect(JSON.stringify(await t.store.db.select().from(accessCodes))).not.toContain(code);
    const first = await redeem(code);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ host: 'blog.hostplane.test', next: '/dash?x=1', user: 'viewer@acme.test', org: 'acme', role: 'viewer' });
    expect((await redeem(code)).status).toBe(404);
  });

  it('a node not serving the host gets 404 (and the code is spent); a node naming another node is 404', async () => {
    const r = await t.call('POST', AUTH, { token: t.tokens.member, body: { to: 'blog.hostplane.test', next: '/' } });
    const code = codeOf(r.body.redirect);
    expect((await redeem(code, otherNodeToken, 'n-else')).status).toBe(404);
    expect((await redeem(code)).status).toBe(404);
    const r2 = await t.call('POST', AUTH, { token: t.tokens.member, body: { to: 'blog.hostplane.test', next: '/' } });
    expect((await redeem(codeOf(r2.body.redirect), otherNodeToken, 'n-blog')).status).toBe(404);
    const ok = await redeem(codeOf(r2.body.redirect));
    expect(ok.status).toBe(200);
    expect(ok.body.role).toBe('member');
  });

  it('an expired code is 404; a code lives 60 s at most', async () => {
    expect(ACCESS_CODE_TTL_MS).toBeLessThanOrEqual(60_000);
    const before = Date.now();
    const r = await t.call('POST', AUTH, { token: t.tokens.admin, body: { to: 'blog.hostplane.test', next: '/' } });
    const code = codeOf(r.body.redirect);
    const [row] = await t.store.db.select().from(accessCodes).where(eq(accessCodes.codeHash, createHash('sha256').update(code).digest('hex')));
    expect(Date.parse(row!.expiresAt) - before).toBeLessThanOrEqual(60_000 + 1000);
    await t.store.db.update(accessCodes).set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).where(eq(accessCodes.codeHash, row!.codeHash));
    expect((await redeem(code)).status).toBe(404);
  });

  it('to must be a routable hostname: unknown and pending custom names are 404, an active custom one passes', async () => {
    expect((await t.call('POST', AUTH, { body: { to: 'nowhere.example', next: '/' } })).status).toBe(404);
    // Looked up on PostgreSQL, whose text cannot hold U+0000, such a name failed the query with a 500.
    expect((await t.call('POST', AUTH, { body: { to: 'blog.hostplane.test\u0000', next: '/' } })).status).toBe(404);
    expect((await t.call('POST', '/v1/orgs/acme/projects/blog/hostnames', { body: { name: 'www.customer.example' } })).status).toBe(200);
    expect((await t.call('POST', AUTH, { body: { to: 'www.customer.example', next: '/' } })).status).toBe(404);
    await t.store.db.update(hostnames).set({ status: 'active' }).where(eq(hostnames.name, 'www.customer.example'));
    const r = await t.call('POST', AUTH, { body: { to: 'WWW.Customer.example', next: '/' } });
    expect(r.status).toBe(200);
    expect(new URL(r.body.redirect).host).toBe('www.customer.example');
  });

  it('passes the node\'s state on in the redirect, unchanged; a state of another form is 400', async () => {
    const state = 'Ab-_'.repeat(8);
    const r = await t.call('POST', AUTH, { body: { to: 'blog.hostplane.test', next: '/x', state } });
    expect(r.status).toBe(200);
    expect(new URL(r.body.redirect).searchParams.get('state')).toBe(state);
    expect(new URL((await t.call('POST', AUTH, { body: { to: 'blog.hostplane.test', next: '/x' } })).body.redirect).searchParams.has('state')).toBe(false);
    for (const bad of ['short', 'a'.repeat(129), 'has space and more characters', 'x&next=//evil.example&yy']) {
      expect((await t.call('POST', AUTH, { body: { to: 'blog.hostplane.test', next: '/x', state: bad } })).status, bad).toBe(400);
    }
  });

  it('a caller outside the host\'s org is 403; no token is 401', async () => {
    expect((await t.call('POST', AUTH, { token: t.other.token, body: { to: 'blog.hostplane.test', next: '/' } })).status).toBe(403);
    expect((await t.call('POST', AUTH, { token: t.tokens.stranger, body: { to: 'blog.hostplane.test', next: '/' } })).status).toBe(403);
    expect((await t.call('POST', AUTH, { token: null, body: { to: 'blog.hostplane.test', next: '/' } })).status).toBe(401);
  });

  const hostileNext = [
    '', 'dash', '//evil.example', '//evil.example/', '/\\evil.example', '\\\\evil.example', '/\\/evil.example',
    'https://evil.example', 'http://evil.example/x', 'javascript:alert(1)', 'data:text/html,x', ' /dash', '/dash x',
    '/dash\ttab', '/dash\nLocation: x', '/dash\r\n', '/%2F/evil.example', '/%2f%2fevil.example', '/%5Cevil.example',
    '/%5cevil.example', '%2F%2Fevil.example', '/%0d%0aSet-Cookie:x', '/%09', '/%E2%80%AE', '/caf\u00e9', '/\u2215evil',
    '/%zz', '/%', '/x%2', `/${'a'.repeat(2048)}`, '/%20', '/\u0000', '/.//evil.example', '/a/%2E%2E//evil.example',
  ];
  it.each(hostileNext.map((n) => [JSON.stringify(n).slice(0, 40), n]))('next %s is refused (400)', async (_l, next) => {
    expect(isSafeNext(next)).toBe(false);
    const r = await t.call('POST', AUTH, { body: { to: 'blog.hostplane.test', next } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
  });

  const hostileTo = [
    'evil.example', 'blog.hostplane.test.evil.example', 'blog.hostplane.test/x', 'blog.hostplane.test:443', 'https://blog.hostplane.test',
    'blog.hostplane.test.', '@evil.example', 'evil.example#blog.hostplane.test', 'hostplane.test', '*.hostplane.test',
  ];
  it.each(hostileTo)('to %s is refused (404)', async (to) => {
    const r = await t.call('POST', AUTH, { body: { to, next: '/' } });
    expect(r.status).toBe(404);
  });

  const goodNext = ['/', '/dash?x=1', '/a/b/c', '/a.b-c_d~e', '/q?next=%2Fhome', '/~user/#frag', '/a//b', '/.well-known/security.txt', '/a/...', '/a?p=../b'];
  it.each(goodNext)('next %s passes', async (next) => {
    expect(isSafeNext(next)).toBe(true);
    const r = await t.call('POST', AUTH, { body: { to: 'blog.hostplane.test', next } });
    expect(r.status).toBe(200);
    expect(new URL(r.body.redirect).searchParams.get('next')).toBe(next);
  });
});

describe('without a core', () => {
  it('every access operation answers 503 no_core', async () => {
    const bare = await startTestApi({ core: null });
    try {
      await bare.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blog' } });
      for (const [method, path, body] of [['GET', A], ['PUT', A, { mode: 'public' }], ['POST', `${A}/bypass`], ['DELETE', `${A}/bypass`],
        ['POST', '/v1/access/authorize', { to: 'blog.hostplane.test', next: '/' }]] as [string, string, unknown?][]) {
        const r = await bare.call(method, path, { body });
        expect(r.status, `${method} ${path}`).toBe(503);
        expect(r.body.code).toBe('no_core');
      }
    } finally {
      await bare.close();
    }
  });
});
