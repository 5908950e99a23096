/**
 * Custom hostnames group (spec 4.5, the hostname table of part 3, roles of 5, audit events of 6) through HTTP:
 * every answer is checked against the served OpenAPI document. verifyHostname runs the hostname reconciler's
 * judgement in a core over a stub resolver on loopback.
 */
import { notShown } from '../../reconcilers/hostnames';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app';
import { localCore } from '../../core/local';
import { orgOrigin } from '../../rules/hostnames';
import { createLogger } from '../../lib/log';
import { DEFAULT_PLANS } from '../../rules/plans';
import { orgBySlug } from '../../store/accounts';
import { systemResolver } from '../../providers/resolver';
import { hostnameReconciler } from '../../reconcilers/hostnames';
import { startTestApi, type TestApi } from '../helpers/app';
import { FakeEdge } from '../helpers/edge';
import { startStubResolver, type StubResolver } from '../helpers/stub-resolver';

const FALLBACK = 'edge.hostplane.test';
const CONFIG = { serviceDomains: ['status.example'], fallbackOrigin: FALLBACK };
const HOSTS = '/v1/orgs/acme/projects/blog/hostnames';
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });

let t: TestApi;
let stub: StubResolver;
let server: Server;
let url: string;
/** Run by the core after each verifyHostname: what another client does meanwhile. */
let afterVerify: ((name: string) => Promise<void>) | null = null;
/** A request to the API whose core verifies hostnames, checked against the document like `t.call`. */
async function call(method: string, path: string, o: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
  const token = o.token === undefined ? t.tokens.admin : o.token;
  const headers: Record<string, string> = { ...o.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url + path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  await t.documented(method, path, { status: res.status, headers: res.headers, text });
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

beforeAll(async () => {
  t = await startTestApi({ config: CONFIG });
  stub = await startStubResolver();
  const verifier = hostnameReconciler({
    store: t.store, resolver: systemResolver([stub.address], 500), nameservers: ['ns1.hostplane.test'], edge: new FakeEdge(), fallbackOrigin: FALLBACK, edgeAddresses: [], log: silent,
  });
  const core = localCore({ sealer: t.sealer, dns: { configured: true, nameservers: ['ns1.hostplane.test'] }, nudge: () => undefined, verifyHostname: async (n) => {
    await verifier.verify(n);
    await afterVerify?.(n);
  } });
  server = createServer(createApp({ store: t.store, core, config: { appDomain: 'hostplane.test', plans: (await import('../../rules/plans')).DEFAULT_PLANS, ...CONFIG } }, silent).handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const [slug, name, token] of [['acme', 'blog', t.tokens.admin], ['acme', 'shop', t.tokens.admin], ['globex', 'site', t.other.token]] as const) {
    expect((await call('POST', `/v1/orgs/${slug}/projects`, { token, body: { name } })).status).toBe(201);
  }
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await stub.close();
  await t.close();
});

const add = (name: string, o: { token?: string; path?: string } = {}) => call('POST', o.path ?? HOSTS, { token: o.token ?? t.tokens.member, body: { name } });
const audit = async () => (await call('GET', '/v1/orgs/acme/audit?limit=1000')).body.items as { event: string; target: string; actor: string }[];

describe('addHostname', () => {
  it('answers 200 Hostname: pending_dns, the verify guidance (TXT with the token, CNAME to the org\'s origin under the fallback origin), audit hostname.add', async () => {
    const r = await add('www.customer.test');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'www.customer.test', kind: 'custom', status: 'pending_dns', lastError: null, verifiedAt: null, generation: 1, conditions: [] });
    expect(r.body.createdAt).toMatch(RFC3339);
    const [txt, cname] = r.body.verify;
    expect(txt).toEqual({ type: 'TXT', name: '_service-verify.www.customer.test', value: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(cname).toEqual({ type: 'CNAME', name: 'www.customer.test', value: orgOrigin(FALLBACK, (await orgBySlug(t.store, 'acme'))!.id) });
    expect(r.headers.get('etag')).toMatch(/^"1-/);
    expect(r.headers.get('x-generation')).toBe('1');
    expect((await audit()).find((e) => e.event === 'hostname.add' && e.target === 'www.customer.test')).toMatchObject({ actor: 'user:member@acme.test' });
  });

  it('stores the name lower case and in punycode; the Unicode and ASCII spellings are one name', async () => {
    const r = await add('Bücher.Example.COM');
    expect(r.body.name).toBe('xn--bcher-kva.example.com');
    const again = await add('xn--bcher-kva.example.com');
    expect(again.body).toEqual(r.body);
    expect((await add('bücher.example.com', { path: '/v1/orgs/acme/projects/shop/hostnames' })).body.code).toBe('hostname_taken');
  });

  it('the same name again from the same project: the row unchanged (same token, same createdAt)', async () => {
    const first = await add('again.customer.test');
    const second = await add('again.customer.test');
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
  });

  it.each([
    ['another project of the org', '/v1/orgs/acme/projects/shop/hostnames', () => t.tokens.admin],
    ['a project of another org', '/v1/orgs/globex/projects/site/hostnames', () => t.other.token],
  ])('held by %s: 409 hostname_taken', async (_what, path, token) => {
    await add('held.customer.test');
    const r = await add('held.customer.test', { path, token: token() });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('hostname_taken');
  });

  it('concurrent adds from two orgs: one 200 and one 409, never two rows', async () => {
    const [a, b] = await Promise.all([add('race.customer.test'), add('race.customer.test', { path: '/v1/orgs/globex/projects/site/hostnames', token: t.other.token })]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const listed = [...(await call('GET', HOSTS)).body.items, ...(await call('GET', '/v1/orgs/globex/projects/site/hostnames', { token: t.other.token })).body.items];
    expect(listed.filter((h: { name: string }) => h.name === 'race.customer.test')).toHaveLength(1);
  });

  it.each([
    ['an empty label', 'www..customer.test'],
    ['a leading hyphen', '-www.customer.test'],
    ['a label over 63', `${'a'.repeat(64)}.customer.test`],
    ['a URL', 'https://www.customer.test/'],
    ['spaces', 'www customer.test'],
    ['an IP literal', '192.0.2.1'],
    ['an IPv6 literal', '2001:db8::1'],
    ['a single label', 'localhost'],
    ['a public suffix', 'co.uk'],
    ['a wildcard', '*.customer.test'],
    ['the app domain itself', 'hostplane.test'],
    ['a name under the app domain', 'x.hostplane.test'],
    ['a service domain', 'www.status.example'],
    ['empty', ''],
  ])('%s: 400 bad_request', async (_what, name) => {
    const r = await add(name);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
  });

  it('a viewer may not add (403); an unknown project is 404', async () => {
    expect((await add('v.customer.test', { token: t.tokens.viewer })).status).toBe(403);
    expect((await add('v.customer.test', { path: '/v1/orgs/acme/projects/nope/hostnames' })).status).toBe(404);
  });
});

describe('names inside another organization\'s zone, and the plan\'s limit', () => {
  it('a pending hold of globex inside acme\'s zone, delegated here, yields when acme adds the name: re-adding at each expiry cannot keep it from acme', async () => {
    expect((await call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'acme-owned.test' } })).status).toBe(200);
    stub.set('acme-owned.test', 'NS', [{ type: 'NS', name: 'acme-owned.test', ttl: 300, data: 'ns1.hostplane.test' }]);
    const held = await add('www.acme-owned.test', { token: t.other.token, path: '/v1/orgs/globex/projects/site/hostnames' });
    expect([held.status, held.body.status]).toEqual([200, 'pending_dns']);
    const mine = await add('www.acme-owned.test');
    expect([mine.status, mine.body.status]).toEqual([200, 'pending_dns']);
    const globex = await call('GET', '/v1/orgs/globex/projects/site/hostnames', { token: t.other.token });
    expect(globex.body.items.map((h: { name: string }) => h.name)).not.toContain('www.acme-owned.test');
    // The other way round it is still taken: globex runs no zone holding the name.
    expect((await add('www.acme-owned.test', { token: t.other.token, path: '/v1/orgs/globex/projects/site/hostnames' })).body.code).toBe('hostname_taken');
  });

  it('acme\'s add gets the name although globex adds it again between the judgement and acme\'s next try', async () => {
    expect((await call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'acme-race.test' } })).status).toBe(200);
    stub.set('acme-race.test', 'NS', [{ type: 'NS', name: 'acme-race.test', ttl: 300, data: 'ns1.hostplane.test' }]);
    const globexAdd = () => add('www.acme-race.test', { token: t.other.token, path: '/v1/orgs/globex/projects/site/hostnames' });
    expect((await globexAdd()).status).toBe(200);
    let readded = 0;
    afterVerify = async () => {
      if (readded++ === 0) expect((await globexAdd()).status).toBe(200);
    };
    try {
      const mine = await add('www.acme-race.test');
      expect([mine.status, mine.body.status]).toEqual([200, 'pending_dns']);
      expect(readded).toBe(2);
    } finally {
      afterVerify = null;
    }
  });

  it('a zone created here that public DNS does not delegate takes no name from another organization\'s pending hold', async () => {
    const mine = await add('shop.acme-real.test');
    expect([mine.status, mine.body.status]).toEqual([200, 'pending_dns']);
    expect((await call('POST', '/v1/orgs/globex/dns/zones', { token: t.other.token, body: { name: 'acme-real.test' } })).status).toBe(200);
    const taken = await add('shop.acme-real.test', { token: t.other.token, path: '/v1/orgs/globex/projects/site/hostnames' });
    expect([taken.status, taken.body.code]).toEqual([409, 'hostname_taken']);
    const acme = await call('GET', HOSTS);
    expect(acme.body.items.map((h: { name: string }) => h.name)).toContain('shop.acme-real.test');
  });

  it('custom hostnames per organization are the plan\'s: over it 409 quota_exceeded with the details, and a deleted one frees its place', async () => {
    const plans = { ...DEFAULT_PLANS, free: { ...DEFAULT_PLANS.free!, hostnames: 2 } };
    const small = await startTestApi({ config: { ...CONFIG, plans } });
    try {
      expect((await small.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blog' } })).status).toBe(201);
      const path = '/v1/orgs/acme/projects/blog/hostnames';
      for (const name of ['a.quota.test', 'b.quota.test']) expect((await small.call('POST', path, { body: { name } })).status).toBe(200);
      const over = await small.call('POST', path, { body: { name: 'c.quota.test' } });
      expect([over.status, over.body.code]).toEqual([409, 'quota_exceeded']);
      expect(over.body.details).toEqual({ quota: 'hostnames', limit: 2, count: 2, plan: 'free' });
      // The same name again is the row it has, not a new one.
      expect((await small.call('POST', path, { body: { name: 'a.quota.test' } })).status).toBe(200);
      expect((await small.call('DELETE', `${path}/a.quota.test`)).status).toBe(204);
      expect((await small.call('POST', path, { body: { name: 'c.quota.test' } })).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe('the service\'s own domains', () => {
  it('with the fallback origin in another domain, names under the nameservers\' domain are still refused', async () => {
    const apart = await startTestApi({ config: { fallbackOrigin: 'edge.cdn-service.test' }, dns: { configured: true, nameservers: ['ns1.dns-service.test'] } });
    try {
      expect((await apart.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blog' } })).status).toBe(201);
      for (const name of ['www.dns-service.test', 'x.edge.cdn-service.test']) {
        const r = await apart.call('POST', '/v1/orgs/acme/projects/blog/hostnames', { body: { name } });
        expect([r.status, r.body.code], name).toEqual([400, 'bad_request']);
        expect(r.body.message).toMatch(/a domain of this service/);
      }
    } finally {
      await apart.close();
    }
  });
});

describe('listHostnames', () => {
  it('returns the default hostname (kind default, active, no guidance) with the custom ones, by name', async () => {
    await add('a-list.customer.test', { path: '/v1/orgs/acme/projects/shop/hostnames' });
    const r = await call('GET', '/v1/orgs/acme/projects/shop/hostnames', { token: t.tokens.viewer });
    expect(r.status).toBe(200);
    expect(r.body.items.map((h: { name: string; kind: string; status: string }) => [h.name, h.kind, h.status])).toEqual([
      ['a-list.customer.test', 'custom', 'pending_dns'],
      ['shop.hostplane.test', 'default', 'active'],
    ]);
    expect(r.body.items[1]).toMatchObject({ verify: [], lastError: null });
  });

  it('another org\'s project reads as 404', async () => {
    expect((await call('GET', '/v1/orgs/globex/projects/site/hostnames')).status).toBe(404);
  });
});

describe('deleteHostname', () => {
  it('the default hostname: 400', async () => {
    const r = await call('DELETE', `${HOSTS}/blog.hostplane.test`, { token: t.tokens.member });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/default hostname/);
  });

  it('204, audit hostname.delete, and the name can be taken by another project at once', async () => {
    await add('moving.customer.test');
    expect((await call('DELETE', `${HOSTS}/moving.customer.test`, { token: t.tokens.member })).status).toBe(204);
    expect((await audit()).find((e) => e.event === 'hostname.delete' && e.target === 'moving.customer.test')).toBeTruthy();
    const r = await add('moving.customer.test', { path: '/v1/orgs/globex/projects/site/hostnames', token: t.other.token });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('pending_dns');
    expect((await call('DELETE', `${HOSTS}/moving.customer.test`, { token: t.tokens.member })).status).toBe(404);
  });

  it('If-Match: a stale tag is 412, the current one deletes', async () => {
    const r = await add('tagged.customer.test');
    const tag = r.headers.get('etag')!;
    const stale = await call('DELETE', `${HOSTS}/tagged.customer.test`, { token: t.tokens.member, headers: { 'if-match': '"1-AAAAAAAAAAAAAAAA"' } });
    expect(stale.status).toBe(412);
    expect(stale.body.code).toBe('precondition_failed');
    expect((await call('DELETE', `${HOSTS}/tagged.customer.test`, { token: t.tokens.member, headers: { 'if-match': tag } })).status).toBe(204);
  });
});

describe('verifyHostname', () => {
  it('no proof: 200, still pending_dns, lastError says what is seen; with the TXT in place: active', async () => {
    const added = (await add('verify.customer.test')).body;
    const r = await call('POST', `${HOSTS}/verify.customer.test/verify`, { token: t.tokens.member });
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('pending_dns');
    expect(r.body.lastError).toBe(`no TXT record with the token '${added.verify[0].value}' at _service-verify.verify.customer.test; `
      + `no CNAME to ${orgOrigin(FALLBACK, (await orgBySlug(t.store, 'acme'))!.id)} at verify.customer.test; ${notShown('verify.customer.test')}`);
    expect(r.body.conditions).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'Verified', status: 'False', reason: 'NoProof' })]));
    stub.set('_service-verify.verify.customer.test', 'TXT', [{ type: 'TXT', name: '_service-verify.verify.customer.test', data: added.verify[0].value }]);
    const ok = await call('POST', `${HOSTS}/verify.customer.test/verify`, { token: t.tokens.member });
    expect(ok.body).toMatchObject({ status: 'active', generation: 2, lastError: null });
    expect(ok.body.verifiedAt).toMatch(RFC3339);
    expect(ok.headers.get('x-generation')).toBe('2');
  });

  it('takes the host in its Unicode spelling', async () => {
    await add('Grüße.customer.test');
    const r = await call('POST', `${HOSTS}/${encodeURIComponent('GRÜSSE.customer.test'.toLowerCase().replace('ss', 'ß'))}/verify`, { token: t.tokens.member });
    expect(r.status).toBe(200);
    expect(r.body.name).toBe(new URL('http://grüße.customer.test').hostname);
  });

  it('the default hostname is answered as it is; another project\'s name is 404; a viewer is 403', async () => {
    expect((await call('POST', `${HOSTS}/blog.hostplane.test/verify`, { token: t.tokens.member })).body).toMatchObject({ kind: 'default', status: 'active' });
    await add('other-project.customer.test', { path: '/v1/orgs/acme/projects/shop/hostnames' });
    expect((await call('POST', `${HOSTS}/other-project.customer.test/verify`, { token: t.tokens.member })).status).toBe(404);
    expect((await call('POST', `${HOSTS}/other-project.customer.test/verify`, { token: t.tokens.viewer })).status).toBe(403);
  });

  it('without a core: 503 no_core; the other operations need none', async () => {
    const bare = await startTestApi({ core: null, config: CONFIG });
    try {
      expect((await bare.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blog' } })).status).toBe(201);
      expect((await bare.call('POST', '/v1/orgs/acme/projects/blog/hostnames', { body: { name: 'nocore.customer.test' } })).status).toBe(200);
      const r = await bare.call('POST', '/v1/orgs/acme/projects/blog/hostnames/nocore.customer.test/verify');
      expect(r.status).toBe(503);
      expect(r.body.code).toBe('no_core');
      expect((await bare.call('GET', '/v1/orgs/acme/projects/blog/hostnames')).status).toBe(200);
      expect((await bare.call('DELETE', '/v1/orgs/acme/projects/blog/hostnames/nocore.customer.test')).status).toBe(204);
    } finally {
      await bare.close();
    }
  });
});
