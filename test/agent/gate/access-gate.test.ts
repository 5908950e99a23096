/**
 * The access gate in the front end, over HTTPS with a throwaway certificate and an echo worker that answers what
 * it received: each mode admits what it should and nothing else, the node's credentials never reach the worker,
 * and what an unadmitted client can make the node spend is bounded (body size, attempts per address,
 * verifications at once, redeems).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { accessGate, type AccessGateOptions } from '../../../agent/gate/access-gate';
import type { BundleProject } from '../../../agent/sync/bundle';
import type { Redeemed } from '../../../agent/sync/control';
import { frontend } from '../../../agent/gate/frontend';
import type { ServiceHandler } from '../../../agent/gate/services';
import type { Route } from '../../../agent/workers/supervisor';
import type { Worker } from '../../../agent/workers/worker-process';
import { bypassHash, hashPassword } from '../../../lib/access-hash';
import { bundleOf, captureLogger, cookiesOf, HOSTILE_NEXT, listenOnSocket, send, type TlsAnswer } from '../../helpers/agent';
import { until } from '../../helpers/proc';
import { hasOpenssl, makePki, type TestPki } from '../../../harness/tls';

const dir = mkdtempSync(join(tmpdir(), 'hostplane-access-'));
const PASSWORD = 'correct horse battery staple';
const BYPASS = 'bypass-secret-one';
let passwordHash: string;
let pki: TestPki;

type Access = { mode: 'public' | 'org' | 'password'; passwordHash?: string | null; bypassHash?: string | null; version?: number; membersVersion?: number };

/** A project as a bundle carries it; a new object is what a new bundle brings. */
const project = (name: string, access: Access | null, org = 'acme'): BundleProject => {
  const p = bundleOf('1', [{ org, project: name, hostnames: [`${name}.hostplane.test`] }]).bundle.projects[0]!;
  return access === null ? p : { ...p, access: { passwordHash: null, bypassHash: null, version: 1, ...access } };
};

/** What the echo worker received. */
interface Echo { url: string; headers: Record<string, string> }

const hosts = new Map<string, { project: BundleProject; down?: boolean }>();
const redeems: string[] = [];
let redeemAnswer: (code: string) => Promise<Redeemed | null> = () => Promise.resolve(null);
const serviceCalls: string[] = [];
let now = Date.now();

let echo: Server;
let worker: Worker;
let closeEcho = async (): Promise<void> => undefined;
let tls: { server: Server; url: string };
let plain: { server: Server; url: string };

const route = (host: string): Route => {
  const h = hosts.get(host);
  if (!h) return { kind: 'unknown' };
  const key = `${h.project.org}/${h.project.project}`;
  return h.down ? { kind: 'unavailable', key, project: h.project } : { kind: 'worker', key, project: h.project, worker, release: () => undefined };
};

/** The node's services: answers `/__service/auth/hello` only, and records what reached it. */
const services: ServiceHandler = (req, res, ctx) => {
  serviceCalls.push(ctx.path);
  if (!ctx.path.startsWith('/__service/auth/hello')) return false;
  req.resume();
  res.end('hello from the sign-in service');
  return true;
};

async function listen(server: Server, scheme: string): Promise<{ server: Server; url: string }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function gate(o: Partial<AccessGateOptions> = {}): ServiceHandler {
  return accessGate({
    key: randomBytes(32), dashboardUrl: 'https://dash.hostplane.test/access?from=node',
    redeem: (code) => {
      redeems.push(code);
      return redeemAnswer(code);
    },
    log: captureLogger().log, now: () => now, ...o,
  });
}

async function startFrontends(g: ServiceHandler): Promise<void> {
  const handler = frontend(route, { gate: g, services });
  tls = await listen(createHttpsServer({ cert: readFileSync(pki.certPath), key: readFileSync(pki.keyPath) }, handler), 'https');
  plain = await listen(createHttpServer(handler), 'http');
}

async function stopFrontends(): Promise<void> {
  for (const s of [tls.server, plain.server]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
}

const get = (host: string, o: Omit<Parameters<typeof send>[1], 'host' | 'ca'> = {}): Promise<TlsAnswer> => send(tls.url, { host, ca: pki.ca, ...o });
const echoed = (a: TlsAnswer): Echo => JSON.parse(a.body) as Echo;

/** The password form's token and the CSRF cookie it came with. */
async function formOf(host: string): Promise<{ csrf: string; cookie: string }> {
  const a = await get(host);
  const csrf = /name="csrf" value="([^"]+)"/.exec(a.body)?.[1];
  if (!csrf) throw new Error(`no form: ${a.status} ${a.body}`);
  return { csrf, cookie: cookiesOf(a) };
}

function postLogin(host: string, fields: Record<string, string>, o: { cookie?: string; headers?: Record<string, string>; localAddress?: string } = {}): Promise<TlsAnswer> {
  const body = new URLSearchParams(fields).toString();
  return get(host, {
    method: 'POST', path: '/__service/access/login', body, localAddress: o.localAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(o.cookie ? { cookie: o.cookie } : {}), ...o.headers },
  });
}

/** Signs in with the password; the session cookie. */
async function signIn(host: string, password = PASSWORD, localAddress?: string): Promise<string> {
  const f = await formOf(host);
  const a = await postLogin(host, { password, csrf: f.csrf, next: '/after' }, { cookie: f.cookie, localAddress });
  expect(a.status, a.body).toBe(303);
  return cookiesOf(a);
}

beforeAll(async () => {
  pki = makePki(dir);
  passwordHash = await hashPassword(PASSWORD);
  echo = createHttpServer((req, res) => {
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url, headers: req.headers }));
  });
  // A worker listens on a Unix socket (agent/workers/worker-process.ts).
  const at = await listenOnSocket(echo);
  closeEcho = at.close;
  worker = { id: 1, socketPath: at.socketPath, agent: new Agent({ keepAlive: true }) } as unknown as Worker;
}, 30_000);
afterAll(async () => {
  await closeEcho();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasOpenssl())('access gate', () => {
  // Attempts are limited per address (all of these come from one): that is the next describe's.
  const lots = { limit: 1000, windowSeconds: 60 };
  const unlimited = (o: Partial<AccessGateOptions> = {}) => gate({ attempts: lots, projectAttempts: lots, callbacks: lots, ...o });
  beforeAll(() => startFrontends(unlimited()));
  afterAll(stopFrontends);
  beforeEach(() => {
    hosts.clear();
    redeems.length = 0;
    serviceCalls.length = 0;
    now = Date.now();
    redeemAnswer = () => Promise.resolve(null);
  });
  const use = (p: BundleProject, down = false): string => {
    const host = p.hostnames[0]!;
    hosts.set(host, { project: p, down });
    return host;
  };

  describe('public', () => {
    it('passes everything, over HTTP too, and takes the node\'s credentials out of what the worker gets', async () => {
      for (const p of [project('open', { mode: 'public' }), project('old', null)]) {
        const host = use(p);
        const headers = { 'service-access-bypass': 'x', cookie: '__Host-service-access=a; app=1; __Host-service-access-csrf=b; __Host-service-access-app=c' };
        const a = await get(host, { path: '/x?y=1', headers });
        expect(a.status).toBe(200);
        expect(echoed(a).url).toBe('/x?y=1');
        expect(echoed(a).headers).not.toHaveProperty('service-access-bypass');
        expect(echoed(a).headers.cookie).toBe('app=1; __Host-service-access-app=c');
        expect((await send(plain.url, { host })).status).toBe(200);
      }
    });

    it('leaves a request without the node\'s cookies as it is', async () => {
      const host = use(project('open', { mode: 'public' }));
      expect(echoed(await get(host, { headers: { cookie: 'a=1; b=2' } })).headers.cookie).toBe('a=1; b=2');
      expect(echoed(await get(host, { headers: { cookie: '__Host-service-access=x' } })).headers).not.toHaveProperty('cookie');
    });
  });

  describe('password', () => {
    it('answers 403 https_required over plain HTTP, whatever the request carries', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash, bypassHash: bypassHash(BYPASS) }));
      for (const headers of [{}, { 'service-access-bypass': BYPASS }] as Record<string, string>[]) {
        const a = await send(plain.url, { host, headers });
        expect(a.status).toBe(403);
        expect(JSON.parse(a.body)).toMatchObject({ code: 'https_required' });
      }
    });

    it('shows the password form (401) with a CSRF token, the page headers, and everything it shows escaped', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }));
      const a = await get(host, { path: '/a?b=<script>"x"' });
      expect(a.status).toBe(401);
      expect(a.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(a.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'");
      expect(a.headers).toMatchObject({ 'x-frame-options': 'DENY', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      expect(a.body).toContain('action="/__service/access/login"');
      expect(a.body).not.toContain('<script>');
      expect(a.headers['set-cookie']).toEqual([expect.stringMatching(/^__Host-service-access-csrf=[\w-]{22}; Path=\/; HttpOnly; Secure; SameSite=Lax$/)]);
      // The browser's nonce is kept: a second tab's form stays valid.
      const again = await get(host, { headers: { cookie: cookiesOf(a) } });
      expect(again.headers['set-cookie']).toBeUndefined();
      expect(/name="csrf" value="([^"]+)"/.exec(again.body)?.[1]).toBe(/name="csrf" value="([^"]+)"/.exec(a.body)?.[1]);
      expect(redeems).toEqual([]);
    });

    it('a wrong password shows the form again; the right one sets the session cookie and goes to next', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }));
      const f = await formOf(host);
      const wrong = await postLogin(host, { password: 'nope', csrf: f.csrf, next: '/after' }, { cookie: f.cookie });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toContain('Wrong password.');
      const right = await postLogin(host, { password: PASSWORD, csrf: f.csrf, next: '/after?x=1' }, { cookie: f.cookie });
      expect(right.status).toBe(303);
      expect(right.headers.location).toBe('/after?x=1');
      expect(right.headers['set-cookie']).toEqual([expect.stringMatching(/^__Host-service-access=[\w.-]+; Max-Age=86400; Path=\/; HttpOnly; Secure; SameSite=Lax$/)]);
      const a = await get(host, { path: '/in', headers: { cookie: `${cookiesOf(right)}; app=1` } });
      expect(a.status).toBe(200);
      expect(echoed(a).headers.cookie).toBe('app=1');
    });

    it('an unsafe next after the password goes to / instead', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }));
      const f = await formOf(host);
      const a = await postLogin(host, { password: PASSWORD, csrf: f.csrf, next: '//evil.example' }, { cookie: f.cookie });
      expect(a.headers.location).toBe('/');
    });

    it('a session ends with a new policy version (a changed password), a mode change, its expiry, or another host', async () => {
      const p = project('secret', { mode: 'password', passwordHash, version: 3 });
      const host = use(p);
      const cookie = await signIn(host);
      expect((await get(host, { headers: { cookie } })).status).toBe(200);
      use({ ...p, access: { ...(p.access as object), version: 4 } });
      expect((await get(host, { headers: { cookie } })).status).toBe(401);
      use({ ...p, access: { ...(p.access as object), mode: 'org' } });
      expect((await get(host, { headers: { cookie } })).status).toBe(302);
      use(p);
      expect((await get(host, { headers: { cookie } })).status).toBe(200);
      now += 86_400_000;
      expect((await get(host, { headers: { cookie } })).status).toBe(401);
      now -= 86_400_000;
      // Another project's host, same node, same policy.
      const other = use(project('other', { mode: 'password', passwordHash, version: 3 }));
      expect((await get(other, { headers: { cookie } })).status).toBe(401);
    });

    it('refuses a forged or tampered session cookie', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }));
      const cookie = await signIn(host);
      const value = cookie.split('=')[1]!;
      const parts = value.split('.');
      const forged = [
        ['1', 'password', '1', String(Math.floor(now / 1000) + 999_999), parts[4], parts[5]].join('.'),
        [...parts.slice(0, 5), Buffer.alloc(32).toString('base64url')].join('.'),
        [...parts.slice(0, 5), parts[5]!.slice(0, 20)].join('.'),
        [...parts.slice(0, 4), Buffer.from('ada@acme.test').toString('base64url'), parts[5]].join('.'),
        `${value}.x`, '', 'x',
      ];
      for (const f of forged) expect((await get(host, { headers: { cookie: `__Host-service-access=${f}` } })).status, f).toBe(401);
    });

    it('refuses a form without its CSRF token, with another browser\'s, or sent from another site', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }));
      const f = await formOf(host);
      const g = await formOf(host);
      const fields = { password: PASSWORD, csrf: f.csrf, next: '/' };
      for (const [what, cookie, csrf] of [['no cookie', '', f.csrf], ['another nonce', g.cookie, f.csrf], ['no token', f.cookie, '']] as const) {
        const a = await postLogin(host, { ...fields, csrf }, { cookie });
        expect(a.status, what).toBe(403);
        expect(a.headers['set-cookie']?.some((c) => c.startsWith('__Host-service-access='))).toBeFalsy();
      }
      for (const headers of [{ origin: 'https://evil.example' }, { origin: 'http://secret.hostplane.test' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }] as Record<string, string>[]) {
        const a = await postLogin(host, fields, { cookie: f.cookie, headers });
        expect(a.status, JSON.stringify(headers)).toBe(403);
      }
      // Another port is another origin; the same port (the Host header's) is the same one.
      const otherPort = await postLogin(host, fields, { cookie: f.cookie, headers: { host: 'secret.hostplane.test:8443', origin: 'https://secret.hostplane.test:9443' } });
      expect(otherPort.status).toBe(403);
      const same = await postLogin(host, fields, { cookie: f.cookie, headers: { host: 'secret.hostplane.test:8443', origin: 'https://secret.hostplane.test:8443', 'sec-fetch-site': 'same-origin' } });
      expect(same.status).toBe(303);
    });

    it('takes only a small urlencoded form', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }));
      const f = await formOf(host);
      const big = await postLogin(host, { password: 'x'.repeat(5000), csrf: f.csrf }, { cookie: f.cookie });
      expect(big.status).toBe(413);
      const json = await get(host, { method: 'POST', path: '/__service/access/login', body: '{}', headers: { 'content-type': 'application/json', cookie: f.cookie } });
      expect(json.status).toBe(415);
      const put = await get(host, { method: 'PUT', path: '/__service/access/login' });
      expect(put.status).toBe(405);
    });

    it('GET of the login path shows the form with next', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }));
      const a = await get(host, { path: '/__service/access/login?next=/deep/page' });
      expect(a.status).toBe(200);
      expect(a.body).toContain('name="next" value="/deep/page"');
    });

    it('logout clears the session; one sent from another site does not', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }));
      const cookie = await signIn(host);
      const cross = await get(host, { path: '/__service/access/logout', headers: { cookie, 'sec-fetch-site': 'cross-site' } });
      expect(cross.status).toBe(403);
      expect(cross.headers['set-cookie']).toBeUndefined();
      const out = await get(host, { path: '/__service/access/logout', method: 'POST', headers: { cookie, origin: `https://${host}` } });
      expect(out.status).toBe(200);
      expect(out.headers['set-cookie']).toEqual(['__Host-service-access=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax']);
    });
  });

  describe('bypass', () => {
    it('the current secret passes (not forwarded); a wrong or old one is 403 bypass_refused, a cookie notwithstanding', async () => {
      const p = project('secret', { mode: 'password', passwordHash, bypassHash: bypassHash(BYPASS) });
      const host = use(p);
      const a = await get(host, { headers: { 'service-access-bypass': BYPASS } });
      expect(a.status).toBe(200);
      expect(echoed(a).headers).not.toHaveProperty('service-access-bypass');
      const cookie = await signIn(host);
      for (const wrong of ['bypass-secret-two', '', BYPASS.slice(0, -1), `${BYPASS}x`, BYPASS.toUpperCase()]) {
        const r = await get(host, { headers: { 'service-access-bypass': wrong, cookie } });
        expect(r.status, wrong).toBe(403);
        expect(JSON.parse(r.body)).toMatchObject({ code: 'bypass_refused' });
      }
      // Rotated: the old secret is refused as soon as the node has the new bundle.
      use({ ...p, access: { ...(p.access as object), bypassHash: bypassHash('bypass-secret-two') } });
      expect((await get(host, { headers: { 'service-access-bypass': BYPASS } })).status).toBe(403);
      expect((await get(host, { headers: { 'service-access-bypass': 'bypass-secret-two' } })).status).toBe(200);
      // Revoked: none passes.
      use({ ...p, access: { ...(p.access as object), bypassHash: null } });
      expect((await get(host, { headers: { 'service-access-bypass': 'bypass-secret-two' } })).status).toBe(403);
    });
  });

  describe('org', () => {
    const member = (host: string, next: string, o: Partial<Redeemed> = {}): (() => Promise<Redeemed>) =>
      () => Promise.resolve({ host, next, user: 'ada@acme.test', org: 'acme', role: 'member', ...o });
    /** A code of the form authorizeAccess issues (43 base64url characters) from a readable name. */
    const codeOf = (name: string): string => name.padEnd(43, '0');
    /** The round trip's state, as the browser that started it keeps it. */
    const STATE = 's'.repeat(22);
    const callback = (host: string, code: string, next: string, headers: Record<string, string> = {}, state = STATE): Promise<TlsAnswer> => get(host, {
      path: `/__service/access/callback?code=${encodeURIComponent(codeOf(code))}&next=${encodeURIComponent(next)}&state=${state}`,
      headers: { ...headers, cookie: [headers.cookie, `__Host-service-access-state=${STATE}`].filter(Boolean).join('; ') },
    });

    it('sends a GET to the dashboard with to and next; other methods get 401 access_required', async () => {
      const host = use(project('team', { mode: 'org' }));
      const a = await get(host, { path: '/reports?q=1' });
      expect(a.status).toBe(302);
      const to = new URL(a.headers.location!);
      expect(to.origin + to.pathname).toBe('https://dash.hostplane.test/access');
      expect(Object.fromEntries(to.searchParams)).toEqual({ from: 'node', to: host, next: '/reports?q=1', state: expect.stringMatching(/^[\w-]{22}$/) });
      expect(a.headers['set-cookie']).toEqual([`__Host-service-access-state=${to.searchParams.get('state')}; Max-Age=600; Path=/; HttpOnly; Secure; SameSite=Lax`]);
      const post = await get(host, { method: 'POST', body: 'x' });
      expect(post.status).toBe(401);
      expect(JSON.parse(post.body)).toMatchObject({ code: 'access_required' });
    });

    it('the callback redeems the code and admits a member or an admin with a session for that user', async () => {
      const host = use(project('team', { mode: 'org' }));
      for (const role of ['member', 'admin'] as const) {
        redeemAnswer = member(host, '/reports', { role });
        const a = await callback(host, `code-${role}`, '/reports');
        expect(a.status).toBe(302);
        expect(a.headers.location).toBe('/reports');
        expect(a.headers['set-cookie']).toEqual([
          expect.stringMatching(/^__Host-service-access=1\.org\.1\.\d+\.[\w-]+\.[\w-]{43}; Max-Age=86400; Path=\/; HttpOnly; Secure; SameSite=Lax$/),
          '__Host-service-access-state=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax',
        ]);
        expect(Buffer.from(cookiesOf(a).split('.')[4]!, 'base64url').toString()).toBe('ada@acme.test');
        expect((await get(host, { path: '/reports', headers: { cookie: cookiesOf(a) } })).status).toBe(200);
      }
      expect(redeems).toEqual([codeOf('code-member'), codeOf('code-admin')]);
    });

    it('a demotion or a removal in the organization (a new members version) ends org sessions, not password ones', async () => {
      const host = use(project('team', { mode: 'org', membersVersion: 4 }));
      redeemAnswer = member(host, '/');
      const cookie = cookiesOf(await callback(host, 'members', '/'));
      expect((await get(host, { path: '/', headers: { cookie } })).status).toBe(200);
      use(project('team', { mode: 'org', membersVersion: 5 }));
      expect((await get(host, { path: '/', headers: { cookie } })).status).toBe(302);
      const secret = use(project('secret', { mode: 'password', passwordHash, membersVersion: 4 }));
      const session = await signIn(secret);
      use(project('secret', { mode: 'password', passwordHash, membersVersion: 5 }));
      expect((await get(secret, { path: '/', headers: { cookie: session } })).status).toBe(200);
    });

    it('round trips started together in one browser (two tabs) share its state, so each comes back', async () => {
      const host = use(project('team', { mode: 'org' }));
      const first = await get(host, { path: '/a' });
      const state = new URL(first.headers.location!).searchParams.get('state');
      const second = await get(host, { path: '/b', headers: { cookie: cookiesOf(first) } });
      expect(new URL(second.headers.location!).searchParams.get('state')).toBe(state);
      expect(new URL((await get(host, { path: '/c' })).headers.location!).searchParams.get('state')).not.toBe(state);
    });

    it('a callback in a browser that did not start the round trip (no state, another state) is refused before redeeming', async () => {
      const host = use(project('team', { mode: 'org' }));
      redeemAnswer = member(host, '/');
      const victim = (cookie: string | undefined, state: string) => get(host, {
        path: `/__service/access/callback?code=${codeOf('sent-by-link')}&next=%2F&state=${state}`, headers: cookie ? { cookie } : {},
      });
      expect((await victim(undefined, STATE)).status).toBe(403);
      expect((await victim(`__Host-service-access-state=${'t'.repeat(22)}`, STATE)).status).toBe(403);
      expect((await victim(`__Host-service-access-state=${STATE}`, 'short')).status).toBe(400);
      expect(redeems).toEqual([]);
    });

    it('a HEAD of the callback (a link preview) does not spend the code', async () => {
      const host = use(project('team', { mode: 'org' }));
      redeemAnswer = member(host, '/');
      const head = await get(host, { method: 'HEAD', path: `/__service/access/callback?code=${codeOf('preview')}&next=%2F&state=${STATE}` });
      expect(head.status).toBe(200);
      expect(head.headers['set-cookie']).toBeUndefined();
      expect(redeems).toEqual([]);
      expect((await callback(host, 'preview', '/')).status).toBe(302);
    });

    it('a session cookie planted before the real one does not shadow it', async () => {
      const host = use(project('team', { mode: 'org' }));
      redeemAnswer = member(host, '/');
      const real = cookiesOf(await callback(host, 'shadow', '/'));
      const a = await get(host, { path: '/', headers: { cookie: `__Host-service-access=junk; ${real}` } });
      expect(a.status).toBe(200);
      expect((JSON.parse(a.body) as Echo).headers.cookie).toBeUndefined();
    });

    it('refuses a viewer, and a code the control plane does not redeem, or redeemed for another host, next or org', async () => {
      const host = use(project('team', { mode: 'org' }));
      const cases: [string, () => Promise<Redeemed | null>][] = [
        ['viewer', member(host, '/', { role: 'viewer' })],
        ['spent, expired or foreign', () => Promise.resolve(null)],
        ['another host', member('shop.hostplane.test', '/')],
        ['another next', member(host, '/elsewhere')],
        ['another org', member(host, '/', { org: 'globex' })],
      ];
      for (const [what, answer] of cases) {
        redeemAnswer = answer;
        const a = await callback(host, 'code', '/');
        expect(a.status, what).toBe(403);
        expect(a.headers['set-cookie'], what).toBeUndefined();
        expect(a.headers.location, what).toBeUndefined();
      }
      expect(redeems).toHaveLength(cases.length);
    });

    it('answers 502 when the control plane cannot redeem', async () => {
      const host = use(project('team', { mode: 'org' }));
      redeemAnswer = () => Promise.reject(new Error('fetch failed'));
      const a = await callback(host, 'code', '/');
      expect(a.status).toBe(502);
      expect(a.headers['set-cookie']).toBeUndefined();
    });

    it.each(HOSTILE_NEXT.map((n) => [JSON.stringify(n).slice(0, 40), n]))('the callback refuses next %s (400) before redeeming the code', async (_l, next) => {
      const host = use(project('team', { mode: 'org' }));
      redeemAnswer = member(host, next);
      const a = await callback(host, 'code', next);
      expect(a.status).toBe(400);
      expect(a.headers.location).toBeUndefined();
      expect(a.headers['set-cookie']).toBeUndefined();
      expect(redeems).toEqual([]);
    });

    it('refuses a malformed code before redeeming it', async () => {
      const host = use(project('team', { mode: 'org' }));
      for (const path of ['/__service/access/callback?next=/', `/__service/access/callback?code=${'a'.repeat(44)}&next=/`, '/__service/access/callback?code=short&next=/', `/__service/access/callback?code=${'a'.repeat(42)}%20&next=/`]) {
        expect((await get(host, { path })).status, path).toBe(400);
      }
      expect(redeems).toEqual([]);
    });

    it('answers 503 dashboard_not_configured without a dashboard', async () => {
      await stopFrontends();
      await startFrontends(unlimited({ dashboardUrl: null }));
      try {
        const host = use(project('team', { mode: 'org' }));
        const a = await get(host);
        expect(a.status).toBe(503);
        expect(JSON.parse(a.body)).toMatchObject({ code: 'dashboard_not_configured' });
      } finally {
        await stopFrontends();
        await startFrontends(unlimited());
      }
    });
  });

  describe('order', () => {
    it('gates /__service/auth/* before the node\'s services, and hands them what it admits', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }));
      expect((await get(host, { path: '/__service/auth/hello' })).status).toBe(401);
      expect(serviceCalls).toEqual([]);
      const cookie = await signIn(host);
      const a = await get(host, { path: '/__service/auth/hello', headers: { cookie } });
      expect(a.body).toBe('hello from the sign-in service');
      expect(serviceCalls).toContain('/__service/auth/hello');
    });

    it('answers for a protected project whose worker is down before the 503', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }), true);
      expect((await get(host)).status).toBe(401);
      const cookie = await signIn(host);
      expect((await get(host, { headers: { cookie } })).status).toBe(503);
    });

    it('a path of the gate for another mode goes on to next; an unknown one is 404', async () => {
      const host = use(project('secret', { mode: 'password', passwordHash }));
      const a = await get(host, { path: '/__service/access/callback?code=x&next=/page' });
      expect(a.status).toBe(302);
      expect(a.headers.location).toBe('/page');
      expect(redeems).toEqual([]);
      expect((await get(host, { path: '/__service/access/other' })).status).toBe(404);
    });

    it('answers 503 access_policy_invalid for an access section it cannot read', async () => {
      const host = use({ ...project('odd', null), access: { mode: 'members-only', version: 1 } });
      const a = await get(host);
      expect(a.status).toBe(503);
      expect(JSON.parse(a.body)).toMatchObject({ code: 'access_policy_invalid' });
    });
  });
});

describe.skipIf(!hasOpenssl())('access gate limits', () => {
  afterAll(stopFrontends);

  it('limits password attempts per client address: past the limit 429 with Retry-After, the right password too; another address is not', async () => {
    await startFrontends(gate({ attempts: { limit: 3, windowSeconds: 60 } }));
    const host = 'secret.hostplane.test';
    hosts.set(host, { project: project('secret', { mode: 'password', passwordHash }) });
    const f = await formOf(host);
    for (let i = 0; i < 3; i++) expect((await postLogin(host, { password: `guess-${i}`, csrf: f.csrf }, { cookie: f.cookie })).status).toBe(401);
    const limited = await postLogin(host, { password: PASSWORD, csrf: f.csrf }, { cookie: f.cookie });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['ratelimit-policy']).toBe('"access-password";q=3;w=60');
    await signIn(host, PASSWORD, '127.0.0.2');
    await stopFrontends();
  }, 20_000);

  it('limits password attempts per project from all addresses together; another project is not limited', async () => {
    await startFrontends(gate({ projectAttempts: { limit: 3, windowSeconds: 60 } }));
    const host = 'secret.hostplane.test';
    hosts.set(host, { project: project('secret', { mode: 'password', passwordHash }) });
    hosts.set('other.hostplane.test', { project: project('other', { mode: 'password', passwordHash }) });
    const f = await formOf(host);
    for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4']) {
      expect((await postLogin(host, { password: 'guess', csrf: f.csrf }, { cookie: f.cookie, localAddress: address })).status).toBe(401);
    }
    const limited = await postLogin(host, { password: PASSWORD, csrf: f.csrf }, { cookie: f.cookie, localAddress: '127.0.0.5' });
    expect(limited.status).toBe(429);
    expect(limited.headers['ratelimit-policy']).toBe('"access-password-project";q=3;w=60');
    await signIn('other.hostplane.test', PASSWORD, '127.0.0.5');
    await stopFrontends();
  }, 20_000);

  it('limits callbacks per client address before redeeming: made-up codes cannot spend the node\'s calls', async () => {
    await startFrontends(gate({ callbacks: { limit: 2, windowSeconds: 60 } }));
    const host = 'team.hostplane.test';
    hosts.set(host, { project: project('team', { mode: 'org' }) });
    redeems.length = 0;
    redeemAnswer = () => Promise.resolve(null);
    const state = 's'.repeat(22);
    const made = (i: number) => get(host, {
      path: `/__service/access/callback?code=${String(i).padEnd(43, 'z')}&next=%2F&state=${state}`, headers: { cookie: `__Host-service-access-state=${state}` },
    });
    expect([(await made(1)).status, (await made(2)).status]).toEqual([403, 403]);
    const limited = await made(3);
    expect(limited.status).toBe(429);
    expect(limited.headers['ratelimit-policy']).toBe('"access-callback";q=2;w=60');
    expect(redeems).toHaveLength(2);
    await stopFrontends();
  });

  it('runs at most the configured verifications at once and refuses past the queue at once (503, Retry-After)', async () => {
    let running = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    await startFrontends(gate({
      verifications: { concurrent: 1, queued: 1 },
      verifyPassword: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((r) => gates.push(r));
        running--;
        return false;
      },
    }));
    const host = 'secret.hostplane.test';
    hosts.set(host, { project: project('secret', { mode: 'password', passwordHash }) });
    const f = await formOf(host);
    const attempt = () => postLogin(host, { password: 'x', csrf: f.csrf }, { cookie: f.cookie });
    const first = attempt();
    const second = attempt();
    await until('one verification running', () => gates.length === 1, 5000, 10);
    const third = await attempt();
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('1');
    gates.shift()!();
    await until('one verification running', () => gates.length === 1, 5000, 10);
    gates.shift()!();
    expect([(await first).status, (await second).status]).toEqual([401, 401]);
    expect(most).toBe(1);
  });
});
