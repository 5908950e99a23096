/**
 * Deployment access end to end: `serve` (TLS) and `node-agent` (HTTPS front end) as real processes, the policy
 * set through the API. Each mode through the real gate: `password` (form, CSRF, session cookie, a changed
 * password ending it), the bypass secret (rotation: the old one refused as soon as the node has the new
 * bundle), `org` (the dashboard's round trip through authorizeAccess and the node's redeem; a viewer refused;
 * a replayed, an expired, another node's and another host's code refused; hostile `next` values refused at the
 * callback), and `public` again. No password, secret or code reaches a log line.
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeFetch } from '../../agent/sync/fetch';
import { openTestStore } from '../helpers/store';
import { createClient } from '../../client/index';
import { cookiesOf, HOSTILE_NEXT, send, type TlsAnswer } from '../helpers/agent';
import { adminJson, bootstrapWithCli, cleanup, runHostplane, startHostplane, tempDir, until } from '../helpers/proc';
import { hasOpenssl, makePki } from '../../harness/tls';

afterAll(cleanup);

const BLOG = 'blog.hostplane.app';
const DASHBOARD = 'https://dash.hostplane.test/access';
/** A worker that answers the headers it received: what passes the gate, and without which credentials. */
const ECHO = "require('http').createServer((q,s)=>{q.resume();s.setHeader('content-type','application/json');"
  + "s.end(JSON.stringify({headers:q.headers}))}).listen(process.env.SERVICE_SOCKET)";

describe.skipIf(!hasOpenssl())('deployment access at the node', () => {
  it('enforces each mode end to end', async () => {
    const data = tempDir();
    const pki = makePki(tempDir('hostplane-pki-'));
    const ownerToken = await bootstrapWithCli(data);
    const tokenOf = async (email: string, role: string): Promise<string> => {
      await adminJson(data, 'user', 'create', email);
      await adminJson(data, 'member', 'add', 'acme', email, role);
      return (await adminJson<{ token: string }>(data, 'token', 'create', email)).token;
    };
    const memberToken = await tokenOf('mia@acme.test', 'member');
    const viewerToken = await tokenOf('vic@acme.test', 'viewer');
    const serve = await startHostplane(['serve', '--port', '0', '--data', data, '--dns', 'off', '--tls-cert', pki.certPath, '--tls-key', pki.keyPath]);
    const transport = nodeFetch({ ca: pki.ca });
    const client = (token: string) => createClient({ baseUrl: serve.url, token, fetch: transport.fetch });
    const api = client(ownerToken);
    for (const name of ['blog', 'shop', 'other']) {
      expect((await api.POST('/v1/orgs/{orgSlug}/projects', { path: { orgSlug: 'acme' }, body: { name } })).status).toBe(201);
    }
    const { token: nodeToken } = await adminJson<{ token: string }>(data, 'node', 'register', 'n1');
    await adminJson(data, 'node', 'register', 'n2');
    await adminJson(data, 'placement', 'set', 'acme', 'blog', 'n1');
    await adminJson(data, 'placement', 'set', 'acme', 'shop', 'n1');
    await adminJson(data, 'placement', 'set', 'acme', 'other', 'n2');
    const agent = await startHostplane([
      'node-agent', '--node', 'n1', '--dir', tempDir('hostplane-node-'), '--control', serve.url, '--ca', pki.caPath, '--listen', '127.0.0.1:0',
      '--tls-cert', pki.certPath, '--tls-key', pki.keyPath, '--dashboard-url', DASHBOARD, '--access-session', '2h',
      '--worker', `exec '${process.execPath}' -e "${ECHO}"`,
    ], { env: { HOSTPLANE_NODE_TOKEN: nodeToken } });
    expect(agent.url).toMatch(/^https:\/\//);

    const get = (o: { path?: string; method?: string; headers?: Record<string, string>; body?: string } = {}, host = BLOG): Promise<TlsAnswer> =>
      send(agent.url, { host, ca: pki.ca, ...o });
    const received = (a: TlsAnswer): Record<string, string> => (JSON.parse(a.body) as { headers: Record<string, string> }).headers;
    const fromWorker = (a: TlsAnswer): boolean => a.status === 200 && received(a).host === BLOG;
    const setAccess = async (mode: 'public' | 'org' | 'password', password?: string): Promise<void> => {
      const r = await api.PUT('/v1/orgs/{orgSlug}/projects/{projectName}/access', {
        path: { orgSlug: 'acme', projectName: 'blog' }, body: password === undefined ? { mode } : { mode, password },
      });
      expect(r.status).toBe(200);
    };

    // public: the worker answers.
    await until('the worker', async () => (fromWorker(await get()) ? true : undefined));

    // password: the form, then a session; a new password ends it.
    await setAccess('password', 'first-password-1');
    const form = await until('the password form', async () => {
      const a = await get({ path: '/inside' });
      return a.status === 401 ? a : undefined;
    });
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const login = (password: string) => get({
      method: 'POST', path: '/__service/access/login', body: new URLSearchParams({ password, csrf, next: '/inside' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(form), origin: `https://${BLOG}` },
    });
    expect((await login('wrong-password')).status).toBe(401);
    const in1 = await login('first-password-1');
    expect(in1.status).toBe(303);
    expect(in1.headers.location).toBe('/inside');
    expect(in1.headers['set-cookie']![0]).toMatch(/^__Host-service-access=[^;]+; Max-Age=7200; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    const session = cookiesOf(in1);
    expect(fromWorker(await get({ headers: { cookie: session } }))).toBe(true);
    await setAccess('password', 'second-password-2');
    await until('the old session to end', async () => ((await get({ headers: { cookie: session } })).status === 401 ? true : undefined));
    expect((await login('first-password-1')).status).toBe(401);
    expect((await login('second-password-2')).status).toBe(303);

    // bypass: the current secret passes; after a rotation the old one is refused once the new one works.
    const bypass = async (): Promise<string> => {
      const r = await api.POST('/v1/orgs/{orgSlug}/projects/{projectName}/access/bypass', { path: { orgSlug: 'acme', projectName: 'blog' } });
      expect(r.status).toBe(200);
      return r.data!.secret;
    };
    const withBypass = (secret: string) => get({ headers: { 'service-access-bypass': secret } });
    const first = await bypass();
    await until('the bypass', async () => (fromWorker(await withBypass(first)) ? true : undefined));
    const second = await bypass();
    await until('the new bypass', async () => (fromWorker(await withBypass(second)) ? true : undefined));
    expect(received(await withBypass(second))).not.toHaveProperty('service-access-bypass');
    const old = await withBypass(first);
    expect(old.status).toBe(403);
    expect(JSON.parse(old.body)).toMatchObject({ code: 'bypass_refused' });

    // org: to the dashboard; back through authorizeAccess and the callback.
    await setAccess('org');
    const toDashboard = await until('the dashboard redirect', async () => {
      const a = await get({ path: '/reports?q=1' });
      return a.status === 302 ? a : undefined;
    });
    const dash = new URL(toDashboard.headers.location!);
    expect(`${dash.origin}${dash.pathname}`).toBe(DASHBOARD);
    expect(Object.fromEntries(dash.searchParams)).toEqual({ to: BLOG, next: '/reports?q=1', state: expect.stringMatching(/^[\w-]{22}$/) });
    // The dashboard passes the node's state on; the callback admits only in the browser holding it.
    const state = dash.searchParams.get('state')!;
    const stateCookie = cookiesOf(toDashboard);
    expect(stateCookie).toBe(`__Host-service-access-state=${state}`);
    const authorize = async (token: string, to = BLOG, next = '/reports?q=1'): Promise<string> => {
      const r = await client(token).POST('/v1/access/authorize', { body: { to, next, state } });
      expect(r.status).toBe(200);
      const u = new URL(r.data!.redirect);
      expect(u.origin).toBe(`https://${to}`);
      return `${u.pathname}${u.search}`;
    };
    const callbackAt = (path: string, cookie = stateCookie) => get({ path, headers: { cookie } });
    // A member's link opened in a browser that did not start the round trip (login CSRF): refused, code unspent.
    const sent = await authorize(memberToken);
    expect((await callbackAt(sent, 'app=1')).status).toBe(403);
    expect((await callbackAt(sent)).status).toBe(302);

    for (const token of [memberToken, ownerToken]) {
      const path = await authorize(token);
      const cb = await callbackAt(path);
      expect(cb.status).toBe(302);
      expect(cb.headers.location).toBe('/reports?q=1');
      const cookie = cookiesOf(cb);
      const inside = await get({ path: '/reports?q=1', headers: { cookie: `${cookie}; app=1` } });
      expect(fromWorker(inside)).toBe(true);
      expect(received(inside).cookie).toBe('app=1');
      // Replayed: refused, and the first redeem's session stands.
      const replay = await callbackAt(path);
      expect(replay.status).toBe(403);
      expect(replay.headers['set-cookie']).toBeUndefined();
    }
    const refused = async (path: string, what: string): Promise<void> => {
      const a = await callbackAt(path);
      expect(a.status, what).toBe(403);
      expect(a.headers['set-cookie'], what).toBeUndefined();
      expect(a.headers.location, what).toBeUndefined();
    };
    await refused(await authorize(viewerToken), 'a viewer');
    // Expired: the code's row aged past its 60 s.
    const expiring = await authorize(memberToken);
    const code = new URLSearchParams(expiring.split('?')[1]).get('code')!;
    const store = await openTestStore(data);
    try {
      const aged = await store.write((tx) => tx.raw('test age code', 'UPDATE access_codes SET expires_at = ? WHERE code_hash = ? RETURNING code_hash',
        [new Date(Date.now() - 1000).toISOString(), createHash('sha256').update(code).digest('hex')]));
      expect(aged).toHaveLength(1);
    } finally {
      store.close();
    }
    await refused(expiring, 'an expired code');
    // A code for a host another node serves, and one for another host this node serves, at blog's callback.
    await refused(await authorize(memberToken, 'other.hostplane.app', '/'), 'a code for another node\'s host');
    await refused(await authorize(memberToken, 'shop.hostplane.app', '/'), 'a code for another host of this node');
    // Hostile next values, whatever the code: refused before anything is spent.
    for (const next of HOSTILE_NEXT) {
      const a = await callbackAt(`/__service/access/callback?code=${'a'.repeat(43)}&next=${encodeURIComponent(next)}&state=${state}`);
      expect(a.status, JSON.stringify(next)).toBe(400);
      expect(a.headers.location).toBeUndefined();
    }
    // A valid link whose next was changed on the way: the code is bound to its next.
    const bound = await authorize(memberToken, BLOG, '/reports?q=1');
    await refused(bound.replace('next=%2Freports%3Fq%3D1', 'next=%2Felsewhere'), 'another next');

    // public again: everything passes, the node's cookie not forwarded.
    await setAccess('public');
    const open = await until('public again', async () => {
      const a = await get({ headers: { cookie: `${session}; app=1` } });
      return fromWorker(a) ? a : undefined;
    });
    expect(received(open).cookie).toBe('app=1');

    for (const text of [agent.stderr(), serve.stderr()]) {
      for (const secret of ['first-password-1', 'second-password-2', first, second, code]) expect(text).not.toContain(secret);
    }
    expect(agent.stderr()).toContain('access granted');
    expect((await agent.stop()).code).toBe(0);
    transport.close();
  }, 120_000);
});

describe('node-agent access flags: usage errors stop before anything starts, exit 2', () => {
  const base = ['node-agent', '--node', 'n1', '--token', 't', '--dir', '/tmp/x', '--control', 'http://127.0.0.1:1'];
  it.concurrent.each([
    [['--tls-cert', '/nonexistent.pem'], '--tls-cert and --tls-key go together'],
    [['--tls-cert', '/nonexistent.pem', '--tls-key', '/nonexistent.key'], '--tls-cert /nonexistent.pem cannot be read: ENOENT'],
    [['--http-listen', '127.0.0.1:8080'], '--http-listen needs --tls-cert and --tls-key: without them --listen serves plain HTTP itself'],
    [['--dashboard-url', 'ftp://dash.example'], 'invalid --dashboard-url ftp://dash.example; expected an http or https URL'],
    [['--access-session', '0m'], 'invalid --access-session 0m; expected a number and m, h or d, from 1m to 365d, as 24h'],
    [['--access-session', '366d'], 'invalid --access-session 366d; expected a number and m, h or d, from 1m to 365d, as 24h'],
    [['--access-session', '24'], 'invalid --access-session 24; expected a number and m, h or d, from 1m to 365d, as 24h'],
  ])('%j', async (args, message) => {
    expect(await runHostplane([...base, ...args])).toEqual({ code: 2, stdout: '', stderr: `hostplane: ${message}\n` });
  });
});
