/** The sign-in handler through a node:http server that gives it every request (as the front end does after the
 * access gate) and answers 404 "worker" when it declines, driven by a small browser (a cookie jar that follows
 * redirects by hand) against the sandbox OAuth provider. Project databases are made as the supervisor makes them
 * (agent/workers/users.ts prepareDatabase): as root, owned by a worker uid, which the database helper then runs as. */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BundleProject } from '../../../agent/sync/bundle';
import { hostOf } from '../../../agent/gate/frontend';
import { databasePath } from '../../../agent/layout';
import { createSignInService, type SignInService, type SignInServiceOptions } from '../../../agent/signin/service';
import { hardenDir, prepareDatabase, runsAsRoot } from '../../../agent/workers/users';
import { startOAuthSandbox, type OAuthProviderName, type OAuthSandbox } from '../../../providers/oauth/sandbox';
import { captureLogger, listen } from '../../helpers/agent';

const HOST = 'shop.example.test';
/** Another hostname of the same project (a custom domain, say). */
const OTHER_HOST = 'shop.customer.test';
const BLOG_HOST = 'blog.example.test';
const PROVIDERS: OAuthProviderName[] = ['github', 'google', 'kakao'];
const GRANT = 'a1'.repeat(16);
/** As root, the worker users of the projects here (agent/workers/users.ts gives uids from 2,000,000,000). */
const SHOP_UID = 2_000_900_000;
const BLOG_UID = 2_000_900_001;

let sandbox: OAuthSandbox;
let dir: string;
let service: SignInService;
let server: Server;
let url: string;
let project: BundleProject;
/** Projects served besides `project`, by host. */
let others: BundleProject[] = [];
let logs: ReturnType<typeof captureLogger>;

const control = async (path: string, body?: unknown, method = 'PUT'): Promise<void> => {
  const res = await fetch(`${sandbox.url}/_sandbox/${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${sandbox.token}` }, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(res.status).toBe(200);
};

function grant(providers: OAuthProviderName[] = PROVIDERS, over: { maxUsers?: number; sessionDays?: number; grant?: string } = {}): BundleProject {
  return {
    ...project,
    signIn: {
      grant: over.grant ?? GRANT,
      settings: { sessionDays: over.sessionDays ?? 30 },
      maxUsers: over.maxUsers ?? 5000,
      providers: providers.map((p) => ({ provider: p, clientId: `${p}-id`, clientSecret: `${p}-secret-value`, endpoints: sandbox.endpoints(p) })),
    },
  };
}

function setProject(p: BundleProject): void {
  project = p;
  service.apply([p, ...others]);
}

/** The project's database directory and file, as the supervisor makes them for its worker. */
function makeDatabase(name: string, uid: number): string {
  return prepareDatabase(dir, 'acme', name, runsAsRoot() ? { uid, gid: uid } : null);
}

/** How long the service waits for the sandbox provider: well past its answers on a loaded machine (400 ms was not:
 * a sign-in ended 502 instead of reaching the database), and below the slow fault's delay. */
const PROVIDER_TIMEOUT_MS = 2_000;

function startService(over: Partial<SignInServiceOptions> = {}): void {
  service = createSignInService({ dir, log: logs.log, providerTimeoutMs: PROVIDER_TIMEOUT_MS, ...over });
}

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** A browser: cookies of the node's host, redirects followed by hand (the node's `https://HOST` is `url`). */
class Browser {
  jar = new Map<string, string>();

  /** `host`: the site it browses; `from`: the loopback address it connects from. */
  constructor(private readonly host = HOST, private readonly from = '127.0.0.1') {}

  node(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
    const u = new URL(url);
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    return new Promise((resolve, reject) => {
      const req = request({ host: u.hostname, port: u.port, localAddress: this.from, method, path, headers: { host: this.host, ...(cookie ? { cookie } : {}), ...headers } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => {
          for (const c of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
            const [pair, ...attrs] = c.split(';').map((s) => s.trim());
            const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
            if (attrs.includes('Max-Age=0')) this.jar.delete(name);
            else this.jar.set(name, value);
          }
          resolve({ status: res.statusCode!, headers: res.headers, body });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** Starts a login and lets the provider consent: the callback path the provider redirects to, or the
   * provider's refusal. */
  async toProvider(p: OAuthProviderName, extra = ''): Promise<{ callback: string } | { status: number; body: string }> {
    const start = await this.node('GET', `/__service/auth/login/${p}?next=/dash${extra}`);
    expect(start.status).toBe(302);
    const res = await fetch(start.headers.location as string, { redirect: 'manual' });
    const to = res.headers.get('location');
    if (res.status !== 302 || !to) return { status: res.status, body: await res.text() };
    const back = new URL(to);
    expect(back.origin).toBe(`https://${this.host}`);
    return { callback: back.pathname + back.search };
  }

  async signIn(p: OAuthProviderName): Promise<Answer> {
    const r = await this.toProvider(p);
    if (!('callback' in r)) throw new Error(`the provider refused: ${r.status} ${r.body}`);
    return this.node('GET', r.callback);
  }

  async session(): Promise<{ status: number; headers: Answer['headers']; json: { user: { id: number; email: string | null; emailVerified: boolean; providers: string[] }; expiresAt: string; code?: string } }> {
    const r = await this.node('GET', '/__service/auth/session');
    return { status: r.status, headers: r.headers, json: JSON.parse(r.body) };
  }
}

const sessionRows = (): number => {
  const db = new Database(databasePath(dir, 'acme', 'shop'), { readonly: true });
  try {
    // The tables are made by the project's database helper, at the project's first sign-in call.
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'service_auth_sessions'").get()) return 0;
    return (db.prepare('SELECT count(*) AS n FROM service_auth_sessions').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

beforeAll(async () => {
  sandbox = await startOAuthSandbox({});
});
afterAll(() => sandbox.close());

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'signin-'));
  if (runsAsRoot()) hardenDir(dir);
  makeDatabase('shop', SHOP_UID);
  logs = captureLogger();
  startService();
  project = { org: 'acme', project: 'shop', hostnames: [HOST, OTHER_HOST], database: true, secrets: [], storage: null, signIn: null };
  others = [];
  server = createServer((req, res) => {
    const host = hostOf(req.headers.host);
    const p = others.find((x) => x.hostnames.includes(host)) ?? project;
    const handled = service.handle(req, res, { project: p, host, path: req.url!, requestId: 'req-1' });
    if (!handled) {
      req.resume();
      res.writeHead(404, { 'content-type': 'text/plain' }).end('worker');
    }
  });
  url = await listen(server);
  await control('faults', undefined, 'DELETE');
  for (const p of PROVIDERS) {
    await control(`${p}/clients/${p}-id`, { clientSecret: `${p}-secret-value`, redirectUris: [HOST, OTHER_HOST].map((h) => `https://${h}/__service/auth/callback/${p}`) });
    await control(`${p}/users/1001`, { email: 'ada@example.test', verified: true });
    await control(`${p}/users/1002`, { email: 'bob@example.test', verified: true });
    await control(`${p}/users/1003`, { email: 'ada@example.test', verified: false });
    await control(`${p}/session`, { userId: '1001' });
  }
  setProject(grant());
});

afterEach(async () => {
  service.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(dir, { recursive: true, force: true });
});

describe('signing in', () => {
  it.each(PROVIDERS)('%s: login, callback, session, logout', async (p) => {
    const b = new Browser();
    const start = await b.node('GET', `/__service/auth/login/${p}?next=/dash`);
    const authorize = new URL(start.headers.location as string);
    expect(authorize.href.startsWith(sandbox.endpoints(p).authorize)).toBe(true);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: 'code', client_id: `${p}-id`, redirect_uri: `https://${HOST}/__service/auth/callback/${p}`, code_challenge_method: 'S256',
    });
    expect(start.headers['set-cookie']![0]).toMatch(/^__Host-service-auth-login=.*; Path=\/; Max-Age=600; HttpOnly; Secure; SameSite=Lax$/);

    const done = await b.signIn(p);
    expect(done.status).toBe(302);
    expect(done.headers.location).toBe('/dash');
    const cookie = (done.headers['set-cookie'] as string[]).find((c) => c.startsWith('__Host-service-auth='))!;
    expect(cookie).toMatch(/; Path=\/; Max-Age=2592000; HttpOnly; Secure; SameSite=Lax$/);
    expect(b.jar.has('__Host-service-auth-login')).toBe(false);

    const s = await b.session();
    expect(s.status).toBe(200);
    expect(s.json.user).toMatchObject({ email: 'ada@example.test', providers: [p] });
    expect(Date.parse(s.json.expiresAt) - Date.now()).toBeGreaterThan(29.9 * 86_400_000);

    const out = await b.node('POST', '/__service/auth/logout', { origin: `https://${HOST}`, 'sec-fetch-site': 'same-origin' });
    expect(out.status).toBe(204);
    expect((await b.session()).status).toBe(401);
    expect(sessionRows()).toBe(0);
    // Nothing secret reaches the log: not the client secret, the code, nor the session token.
    expect(logs.text()).not.toContain('secret-value');
    expect(logs.text()).not.toContain(cookie.split(';')[0]!.split('=')[1]);
  });

  it('stores only the SHA-256 of the session token', async () => {
    const b = new Browser();
    await b.signIn('github');
    const token = b.jar.get('__Host-service-auth')!;
    const db = new Database(databasePath(dir, 'acme', 'shop'), { readonly: true });
    const row = db.prepare('SELECT hex(token_hash) AS h FROM service_auth_sessions').get() as { h: string };
    db.close();
    const { createHash } = await import('node:crypto');
    expect(row.h).toBe(createHash('sha256').update(token).digest('hex').toUpperCase());
  });

  it('refuses a next that leaves the site', async () => {
    const b = new Browser();
    for (const next of ['//evil.example', 'https://evil.example/', '/%2F/evil.example']) {
      expect((await b.node('GET', `/__service/auth/login/github?next=${encodeURIComponent(next)}`)).status).toBe(400);
    }
  });

  it('answers 401 without a session, and 404 for an unknown path under /__service/auth/', async () => {
    const b = new Browser();
    expect((await b.session()).status).toBe(401);
    b.jar.set('__Host-service-auth', 'made-up');
    expect((await b.session()).status).toBe(401);
    expect((await b.node('GET', '/__service/auth/other')).status).toBe(404);
    expect((await b.node('GET', '/__service/auth/logout')).status).toBe(405);
  });
});

describe('what is refused', () => {
  it('a forged state: 403 and no session', async () => {
    const b = new Browser();
    const r = await b.toProvider('google');
    if (!('callback' in r)) throw new Error('no callback');
    const forged = r.callback.replace(/state=[^&]+/, 'state=forged');
    const answer = await b.node('GET', forged);
    expect(answer.status).toBe(403);
    expect(b.jar.has('__Host-service-auth')).toBe(false);
    // The real state no longer works either: the login cookie went with the failed callback.
    expect((await b.node('GET', r.callback)).status).toBe(403);
  });

  it('a callback in another browser (without the login cookie): 403', async () => {
    const r = await new Browser().toProvider('github');
    if (!('callback' in r)) throw new Error('no callback');
    expect((await new Browser().node('GET', r.callback)).status).toBe(403);
  });

  it('a replayed code, even with the login cookie copied: the provider refuses, no session', async () => {
    const b = new Browser();
    const r = await b.toProvider('kakao');
    if (!('callback' in r)) throw new Error('no callback');
    const copy = new Browser();
    copy.jar = new Map(b.jar);
    expect((await b.node('GET', r.callback)).status).toBe(302);
    const replay = await copy.node('GET', r.callback);
    expect(replay.status).toBe(400);
    expect(replay.body).toMatch(/invalid, used or expired/);
    expect(copy.jar.has('__Host-service-auth')).toBe(false);
  });

  it('a redirect URI the provider does not have registered: the provider refuses, no code, no session', async () => {
    await control('github/clients/github-id', { clientSecret: 'github-secret-value', redirectUris: ['https://other.example.test/__service/auth/callback/github'] });
    const b = new Browser();
    const r = await b.toProvider('github');
    expect(r).toMatchObject({ status: 400 });
    expect((await b.session()).status).toBe(401);
  });

  it('denied consent: 403 page, no session', async () => {
    await control('faults', { mode: 'deny', times: 1 });
    const b = new Browser();
    const answer = await b.signIn('google');
    expect(answer.status).toBe(403);
    expect(answer.body).toMatch(/cancelled/);
    expect(b.jar.has('__Host-service-auth')).toBe(false);
  });

  it('a token endpoint slower than the deadline: 502 page, no session', async () => {
    await control('faults', { mode: 'slow_token', delayMs: PROVIDER_TIMEOUT_MS + 3_000, times: 1 });
    const b = new Browser();
    const answer = await b.signIn('kakao');
    expect(answer.status).toBe(502);
    expect(b.jar.has('__Host-service-auth')).toBe(false);
    expect(sessionRows()).toBe(0);
  });

  it('a bad code: 400 page', async () => {
    await control('faults', { mode: 'bad_code', times: 1 });
    expect((await new Browser().signIn('github')).status).toBe(400);
  });

  it.each(['github', 'google', 'kakao'] as const)('%s refusing the project\'s client secret: 502 "not set up", not "start again", and an error log naming the client', async (p) => {
    const wrong = grant();
    setProject({ ...wrong, signIn: { ...wrong.signIn!, providers: wrong.signIn!.providers.map((x) => ({ ...x, clientSecret: 'not-the-registered-one' })) } });
    const answer = await new Browser().signIn(p);
    expect(answer.status).toBe(502);
    expect(answer.body).toContain('not set up correctly');
    expect(logs.text()).toContain(`"clientId":"${p}-id"`);
    expect(logs.text()).not.toContain('not-the-registered-one');
    expect(sessionRows()).toBe(0);
  });

  it('a logout from another site: 403, the session stays', async () => {
    const b = new Browser();
    await b.signIn('github');
    expect((await b.node('POST', '/__service/auth/logout', { origin: 'https://evil.example' })).status).toBe(403);
    expect((await b.node('POST', '/__service/auth/logout', { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await b.session()).status).toBe(200);
  });
});

describe('accounts', () => {
  it('one person through two providers asserting the same verified email is one account', async () => {
    const b = new Browser();
    await b.signIn('github');
    const first = (await b.session()).json.user.id;
    const c = new Browser();
    await c.signIn('google');
    expect((await c.session()).json.user).toEqual({ id: first, email: 'ada@example.test', emailVerified: true, providers: ['github', 'google'] });
  });

  it('an unverified email links nothing: another account', async () => {
    const b = new Browser();
    await b.signIn('github');
    const first = (await b.session()).json.user.id;
    await control('kakao/session', { userId: '1003' });
    const c = new Browser();
    await c.signIn('kakao');
    const other = (await c.session()).json.user;
    expect(other.id).not.toBe(first);
    expect(other.providers).toEqual(['kakao']);
  });

  it('refuses sign-up beyond maxUsers, and still lets the existing users in', async () => {
    setProject(grant(PROVIDERS, { maxUsers: 1 }));
    expect((await new Browser().signIn('github')).status).toBe(302);
    await control('github/session', { userId: '1002' });
    const refused = await new Browser().signIn('github');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/cannot take new accounts/);
    await control('github/session', { userId: '1001' });
    expect((await new Browser().signIn('github')).status).toBe(302);
  });

  it('keeps 10 sessions per user: the 11th evicts the oldest', async () => {
    const browsers: Browser[] = [];
    for (let i = 0; i < 11; i++) {
      const b = new Browser();
      expect((await b.signIn('google')).status).toBe(302);
      browsers.push(b);
    }
    expect((await browsers[0]!.session()).status).toBe(401);
    for (const b of browsers.slice(1)) expect((await b.session()).status).toBe(200);
    expect(sessionRows()).toBe(10);
  });

  it('sessionDays sets the cookie and the session, and lowering it shortens live sessions', async () => {
    setProject(grant(PROVIDERS, { sessionDays: 7 }));
    const b = new Browser();
    const done = await b.signIn('github');
    expect((done.headers['set-cookie'] as string[]).join()).toContain('Max-Age=604800');
    setProject(grant(PROVIDERS, { sessionDays: 1 }));
    const left = Date.parse((await b.session()).json.expiresAt) - Date.now();
    expect(left).toBeLessThanOrEqual(86_400_000);
    expect(left).toBeGreaterThan(86_000_000);
  });
});

describe('grants and providers changing', () => {
  it('a provider removed: its login and callback are 404; registered again, the same account', async () => {
    const b = new Browser();
    await b.signIn('kakao');
    const id = (await b.session()).json.user.id;
    const pending = await new Browser().toProvider('kakao');
    setProject(grant(['github', 'google']));
    expect((await new Browser().node('GET', '/__service/auth/login/kakao')).status).toBe(404);
    if (!('callback' in pending)) throw new Error('no callback');
    expect((await new Browser().node('GET', pending.callback)).status).toBe(404);
    setProject(grant());
    const again = new Browser();
    await again.signIn('kakao');
    expect((await again.session()).json.user.id).toBe(id);
  });

  it('revoked: the paths go to the worker and sessions end; granted again, the same account', async () => {
    const b = new Browser();
    await b.signIn('github');
    const id = (await b.session()).json.user.id;
    setProject({ ...project, signIn: null });
    const fallThrough = await b.node('GET', '/__service/auth/session');
    expect(fallThrough).toMatchObject({ status: 404, body: 'worker' });
    expect((await b.node('GET', '/__service/auth/login/github')).body).toBe('worker');
    setProject(grant(PROVIDERS, { grant: 'b2'.repeat(16) }));
    expect((await b.session()).status).toBe(401);
    const again = new Browser();
    await again.signIn('github');
    expect((await again.session()).json.user.id).toBe(id);
  });

  it('a revoke and a grant the node only sees as a new grant id (coalesced into one bundle, or across a restart) end the old sessions', async () => {
    const b = new Browser();
    await b.signIn('google');
    expect((await b.session()).status).toBe(200);
    service.close();
    startService();
    setProject(grant(PROVIDERS, { grant: 'c3'.repeat(16) }));
    expect((await b.session()).status).toBe(401);
    // The same grant id again is the same grant: a node restart alone ends nothing.
    const c = new Browser();
    await c.signIn('google');
    service.close();
    startService();
    setProject(grant(PROVIDERS, { grant: 'c3'.repeat(16) }));
    expect((await c.session()).status).toBe(200);
  });

  it('does not create the tables in the database of a project that never had the grant', async () => {
    const blog = makeDatabase('blog', BLOG_UID);
    service.close();
    startService();
    service.apply([{ ...project, project: 'blog', signIn: null }]);
    const db = new Database(blog, { readonly: true });
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'service_auth%'").all()).toEqual([]);
    db.close();
  });

  it('declines paths outside /__service/auth/', async () => {
    expect((await new Browser().node('GET', '/__service/authx')).body).toBe('worker');
    expect((await new Browser().node('GET', '/dash')).body).toBe('worker');
  });
});

describe('sessions are bound', () => {
  it('to the host that made them: the cookie of one hostname of the project does nothing on another', async () => {
    const b = new Browser(OTHER_HOST);
    expect((await b.signIn('github')).status).toBe(302);
    expect((await b.session()).status).toBe(200);
    const elsewhere = new Browser(HOST);
    elsewhere.jar = new Map(b.jar);
    expect((await elsewhere.session()).status).toBe(401);
  });

  it('a new login in a browser that has a session ends that session', async () => {
    const b = new Browser();
    await b.signIn('github');
    const first = b.jar.get('__Host-service-auth')!;
    await b.signIn('google');
    expect(b.jar.get('__Host-service-auth')).not.toBe(first);
    expect(sessionRows()).toBe(1);
    const old = new Browser();
    old.jar.set('__Host-service-auth', first);
    expect((await old.session()).status).toBe(401);
  });

  it('the session says whether the email is verified, and an unverified one is not answered as the user\'s', async () => {
    const b = new Browser();
    await b.signIn('github');
    expect((await b.session()).json.user).toMatchObject({ email: 'ada@example.test', emailVerified: true });
    await control('kakao/session', { userId: '1003' });
    const c = new Browser();
    await c.signIn('kakao');
    expect((await c.session()).json.user).toMatchObject({ email: null, emailVerified: false, providers: ['kakao'] });
  });
});

describe('callbacks are rate-limited', () => {
  it('per client address: 429 with Retry-After beyond it, before the code is exchanged; another address goes on', async () => {
    service.close();
    startService({ callbacks: { perAddress: { limit: 2, windowSeconds: 60 } } });
    setProject(grant());
    const b = new Browser();
    expect((await b.signIn('github')).status).toBe(302);
    expect((await b.signIn('github')).status).toBe(302);
    await control('faults', { mode: 'bad_code', times: 1 });
    const refused = await b.signIn('github');
    // Refused before the exchange: the fault the provider holds for the next exchange is still there.
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers.ratelimit).toMatch(/^"signin-callback";r=0;t=\d+$/);
    const other = new Browser(HOST, '127.0.0.2');
    expect((await other.signIn('github')).status).toBe(400);
    expect((await other.signIn('github')).status).toBe(302);
  });

  it('per project, whatever the address', async () => {
    service.close();
    startService({ callbacks: { perProject: { limit: 2, windowSeconds: 60 } } });
    setProject(grant());
    expect((await new Browser(HOST, '127.0.0.2').signIn('github')).status).toBe(302);
    expect((await new Browser(HOST, '127.0.0.3').signIn('github')).status).toBe(302);
    const refused = await new Browser(HOST, '127.0.0.4').signIn('github');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
  });
});

describe('the project database is the worker\'s', () => {
  /** A view of the session table that takes about 12 s to read (10^8 rows made one by one): about 12 times the
   * helper's deadline here, and long enough that a reader on the agent's event loop would stall every project. */
  const SLOW_VIEW = `CREATE VIEW service_auth_sessions AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000000)
    SELECT i AS id, CAST(i AS BLOB) AS token_hash, 1 AS user_id, CAST(i AS BLOB) AS grant_id, 1 AS host_id, i AS created_at, i AS expires_at FROM r`;

  it('a query that runs forever in one project\'s database: that project answers 503 within the deadline; the agent and other projects go on', async () => {
    service.close();
    startService({ database: { callTimeoutMs: 1_000 } });
    makeDatabase('blog', BLOG_UID);
    others = [{ ...grant(), project: 'blog', hostnames: [BLOG_HOST] }];
    setProject(grant());
    const b = new Browser();
    await b.signIn('github');
    const blog = new Browser(BLOG_HOST);
    blog.jar.set('__Host-service-auth', 'made-up');
    expect((await blog.session()).status).toBe(401); // the blog's helper runs

    // What the shop's worker can do to its own database.
    const db = new Database(databasePath(dir, 'acme', 'shop'));
    db.exec(`DROP TABLE service_auth_sessions; ${SLOW_VIEW}`);
    db.close();

    let ticks = 0;
    const timer = setInterval(() => { ticks++; }, 20);
    const started = Date.now();
    const stuck = b.session().then((r) => ({ ...r, ms: Date.now() - started }));
    await new Promise((r) => setTimeout(r, 200));
    const other = await blog.session();
    const blogMs = Date.now() - started;
    const answer = await stuck;
    clearInterval(timer);
    expect(other.status).toBe(401);
    expect(blogMs).toBeLessThan(answer.ms);
    expect(ticks).toBeGreaterThan(answer.ms / 20 / 3);
    expect(answer.status).toBe(503);
    expect(answer.json.code).toBe('signin_unavailable');
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.ms).toBeLessThan(2_500);
    expect(logs.text()).toContain('a database call took longer than 1000 ms');

    // After the restart delay the next call starts a new helper: with the view gone, the table is made again
    // (its sessions are gone).
    const again = new Database(databasePath(dir, 'acme', 'shop'));
    again.exec('DROP VIEW service_auth_sessions');
    again.close();
    expect((await b.session()).status).toBe(503);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await b.session()).status).toBe(401);
    expect((await b.signIn('github')).status).toBe(302);
    expect((await b.session()).status).toBe(200);
  }, 30_000);

  it('more calls than a project may have waiting are refused at once', async () => {
    service.close();
    startService({ database: { callTimeoutMs: 1_500, maxPending: 2 } });
    setProject(grant());
    const b = new Browser();
    await b.signIn('github');
    const db = new Database(databasePath(dir, 'acme', 'shop'));
    db.exec(`DROP TABLE service_auth_sessions; ${SLOW_VIEW}`);
    db.close();
    const waiting = [b.session(), b.session()];
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const refused = await b.session();
    expect(refused.status).toBe(503);
    expect(refused.json.code).toBe('signin_unavailable');
    expect(Date.now() - started).toBeLessThan(500);
    for (const w of await Promise.all(waiting)) expect(w.status).toBe(503);
  }, 30_000);

  it('its file replaced by a link to another file: the other file is not touched, sign-in is unavailable', async () => {
    // Another tenant's database (or any file the agent could write).
    const victim = join(dir, 'victim.sqlite');
    const v = new Database(victim);
    v.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY); INSERT INTO orders VALUES (1)");
    v.close();
    chmodSync(victim, 0o600);
    const before = readFileSync(victim);
    const shop = databasePath(dir, 'acme', 'shop');
    unlinkSync(shop);
    symlinkSync(victim, shop);
    const answer = await new Browser().signIn('github');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(readFileSync(victim).equals(before)).toBe(true);
    expect(existsSync(`${victim}-wal`)).toBe(false);
  });

  it.skipIf(!runsAsRoot())('as root, the helper runs as the project\'s worker: a file its owner may not write is not written', async () => {
    const shop = databasePath(dir, 'acme', 'shop');
    expect(statSync(shop).uid).toBe(SHOP_UID);
    chmodSync(shop, 0o400);
    expect((await new Browser().signIn('github')).status).toBe(503);
    expect(statSync(shop).size).toBe(0);
  });
});
