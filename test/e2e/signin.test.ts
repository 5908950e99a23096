/**
 * App sign-in through real processes: `serve` (told to send nodes to a sandbox OAuth provider this test runs, by
 * `--oauth-providers FILE`) and `node-agent` with a worker that answers 404 under `/__service/`. Signing in with
 * each provider, the session read, logout; a forged state, a replayed code and a redirect URI the provider does
 * not have refused; revoke (the paths fall through to the worker, old sessions end: the grant again has another
 * id) and grant again (the same account); a provider removed, then registered again (the same account).
 */
import { chmodSync, existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startOAuthSandbox, type OAuthProviderName, type OAuthSandbox } from '../../providers/oauth/sandbox';
import { adminJson, bootstrapWithCli, cleanup, startHostplane, tempDir, until } from '../helpers/proc';

const HOST = 'blog.hostplane.app';
const PROVIDERS: OAuthProviderName[] = ['github', 'google', 'kakao'];
let sandbox: OAuthSandbox | undefined;

afterAll(async () => {
  await sandbox?.close();
  await cleanup();
});

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** A browser for `HOST` on the node's front end (`https://HOST` is the node at `nodeUrl`), cookies kept. */
class Browser {
  jar = new Map<string, string>();
  constructor(private nodeUrl: string) {}

  node(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
    const u = new URL(this.nodeUrl);
    const cookie = [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
    return new Promise((resolve, reject) => {
      const req = request({ host: u.hostname, port: u.port, method, path, headers: { host: HOST, ...(cookie ? { cookie } : {}), ...headers } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => {
          for (const c of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
            const pair = c.split(';')[0]!;
            const name = pair.slice(0, pair.indexOf('='));
            if (/Max-Age=0(;|$)/.test(c)) this.jar.delete(name);
            else this.jar.set(name, pair.slice(pair.indexOf('=') + 1));
          }
          resolve({ status: res.statusCode!, headers: res.headers, body });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** Login, then the provider's consent: the callback path it redirects to, or its refusal. */
  async toProvider(p: OAuthProviderName): Promise<{ callback: string } | { status: number }> {
    const start = await this.node('GET', `/__service/auth/login/${p}?next=/welcome`);
    expect(start.status).toBe(302);
    const res = await fetch(start.headers.location as string, { redirect: 'manual' });
    const to = res.headers.get('location');
    if (res.status !== 302 || !to) return { status: res.status };
    return { callback: new URL(to).pathname + new URL(to).search };
  }

  async signIn(p: OAuthProviderName): Promise<Answer> {
    const r = await this.toProvider(p);
    if (!('callback' in r)) throw new Error(`the provider refused: ${r.status}`);
    return this.node('GET', r.callback);
  }

  async session(): Promise<{ status: number; user?: { id: number; email: string | null; providers: string[] } }> {
    const r = await this.node('GET', '/__service/auth/session');
    return r.status === 200 ? { status: 200, user: (JSON.parse(r.body) as { user: { id: number; email: string | null; providers: string[] } }).user } : { status: r.status };
  }
}

describe('app sign-in on the reference node', () => {
  it('signs people in with each provider, and keeps their accounts across revoke, re-grant and provider changes', async () => {
    sandbox = await startOAuthSandbox({});
    const sb = sandbox;
    const control = async (path: string, body: unknown): Promise<void> => {
      const r = await fetch(`${sb.url}/_sandbox/${path}`, { method: 'PUT', headers: { 'content-type': 'application/json', authorization: `Bearer ${sb.token}` }, body: JSON.stringify(body) });
      expect(r.status).toBe(200);
    };
    const data = tempDir();
    const nodeDir = tempDir('hostplane-node-');
    const files = tempDir('hostplane-signin-');
    const endpoints = join(files, 'oauth.json');
    writeFileSync(endpoints, JSON.stringify(Object.fromEntries(PROVIDERS.map((p) => [p, sb.endpoints(p)]))));
    // As root the worker runs as its own uid: it must be able to read its script.
    chmodSync(files, 0o755);
    const workerScript = join(files, 'worker.mjs');
    writeFileSync(workerScript, `
      import { createServer } from 'node:http';
      createServer((req, res) => {
        req.resume();
        const ours = req.url.startsWith('/__service/');
        res.writeHead(ours ? 404 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(ours ? { code: 'worker_not_found' } : { worker: true }));
      }).listen(process.env.SERVICE_SOCKET);
      process.stdin.on('end', () => process.exit(0)).resume();
    `, { mode: 0o644 });

    const token = await bootstrapWithCli(data);
    const serve = await startHostplane(['serve', '--port', '0', '--data', data, '--dns', 'off', '--oauth-providers', endpoints]);
    const api = async (method: string, path: string, body?: unknown): Promise<number> => {
      const r = await fetch(`${serve.url}/v1/orgs/acme/projects${path}`, {
        method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
      });
      await r.text();
      return r.status;
    };
    expect(await api('POST', '', { name: 'blog', database: true })).toBe(201);
    const { token: nodeToken } = await adminJson<{ token: string }>(data, 'node', 'register', 'n1');
    await adminJson(data, 'placement', 'set', 'acme', 'blog', 'n1');
    expect(await api('POST', '/blog/auth')).toBe(200);
    for (const p of PROVIDERS) {
      expect(await api('PUT', `/blog/auth/providers/${p}`, { clientId: `${p}-client`, clientSecret: `${p}-secret-value` })).toBe(200);
      await control(`${p}/clients/${p}-client`, { clientSecret: `${p}-secret-value`, redirectUris: [`https://${HOST}/__service/auth/callback/${p}`] });
      await control(`${p}/users/4242`, { email: 'ada@example.test', verified: true });
      await control(`${p}/users/4343`, { email: 'bob@example.test', verified: true });
      await control(`${p}/session`, { userId: '4242' });
    }

    const agent = await startHostplane([
      'node-agent', '--node', 'n1', '--dir', nodeDir, '--control', serve.url, '--listen', '127.0.0.1:0', '--report-interval-ms', '300',
      '--worker', `exec '${process.execPath}' '${workerScript}'`,
    ], { env: { HOSTPLANE_NODE_TOKEN: nodeToken } });
    const browser = () => new Browser(agent.url);
    const sessionPath = async (): Promise<Answer> => browser().node('GET', '/__service/auth/session');
    await until('the worker', async () => ((await browser().node('GET', '/')).status === 200 ? true : undefined));
    await until('the sign-in handler', async () => ((await sessionPath()).status === 401 ? true : undefined));

    // Each provider: one account, since all three assert the same verified email.
    let ada: number | undefined;
    for (const p of PROVIDERS) {
      const b = browser();
      const done = await b.signIn(p);
      expect(done.status).toBe(302);
      expect(done.headers.location).toBe('/welcome');
      const s = await b.session();
      expect(s.status).toBe(200);
      ada ??= s.user!.id;
      expect(s.user!.id).toBe(ada);
      expect(s.user!.providers).toContain(p);
      expect((await b.node('POST', '/__service/auth/logout', { origin: `https://${HOST}` })).status).toBe(204);
      expect((await b.session()).status).toBe(401);
    }

    // A forged state, a replayed code, a redirect URI the provider does not have.
    const forged = browser();
    const pending = await forged.toProvider('github');
    if (!('callback' in pending)) throw new Error('no callback');
    expect((await forged.node('GET', pending.callback.replace(/state=[^&]+/, 'state=forged'))).status).toBe(403);
    const first = browser();
    const round = await first.toProvider('google');
    if (!('callback' in round)) throw new Error('no callback');
    const replayer = browser();
    replayer.jar = new Map(first.jar);
    expect((await first.node('GET', round.callback)).status).toBe(302);
    expect((await replayer.node('GET', round.callback)).status).toBe(400);
    expect((await replayer.session()).status).toBe(401);
    await control('kakao/clients/kakao-client', { clientSecret: 'kakao-secret-value', redirectUris: [`https://elsewhere.example.test/__service/auth/callback/kakao`] });
    expect(await browser().toProvider('kakao')).toEqual({ status: 400 });
    await control('kakao/clients/kakao-client', { clientSecret: 'kakao-secret-value', redirectUris: [`https://${HOST}/__service/auth/callback/kakao`] });

    // Revoke: the worker gets the paths (404 there) and the sessions end; a grant again lets Ada into her account.
    const kept = browser();
    await kept.signIn('github');
    expect((await kept.session()).status).toBe(200);
    expect(await api('DELETE', '/blog/auth')).toBe(204);
    const fallen = await until('the revoke on the node', async () => {
      const r = await sessionPath();
      return r.status === 404 && r.body.includes('worker_not_found') ? r : undefined;
    });
    expect(fallen.status).toBe(404);
    expect((await browser().node('GET', '/__service/auth/login/github')).body).toContain('worker_not_found');
    expect(await api('POST', '/blog/auth')).toBe(200);
    await until('the grant on the node', async () => ((await sessionPath()).status === 401 ? true : undefined));
    expect((await kept.session()).status).toBe(401);
    const back = browser();
    expect((await back.signIn('github')).status).toBe(302);
    expect((await back.session()).user!.id).toBe(ada);

    // A provider removed: its paths are 404 at the node; registered again, the same account.
    expect(await api('DELETE', '/blog/auth/providers/kakao')).toBe(204);
    await until('kakao removed on the node', async () => {
      const r = await browser().node('GET', '/__service/auth/login/kakao');
      return r.status === 404 && r.headers['content-type']?.toString().startsWith('text/html') ? true : undefined;
    });
    expect((await browser().node('GET', '/__service/auth/login/github')).status).toBe(302);
    expect(await api('PUT', '/blog/auth/providers/kakao', { clientId: 'kakao-client', clientSecret: 'kakao-secret-value' })).toBe(200);
    await until('kakao back on the node', async () => ((await browser().node('GET', '/__service/auth/login/kakao')).status === 302 ? true : undefined));
    const again = browser();
    expect((await again.signIn('kakao')).status).toBe(302);
    expect((await again.session()).user!.id).toBe(ada);

    // Bob is another person: another account.
    await control('google/session', { userId: '4343' });
    const bob = browser();
    await bob.signIn('google');
    expect((await bob.session()).user).toMatchObject({ email: 'bob@example.test', providers: ['google'] });
    expect((await bob.session()).user!.id).not.toBe(ada);

    if (process.getuid?.() === 0) {
      // The sign-in tables are written by the project's database helper, which runs as the worker's user: the
      // files SQLite made are the worker's, not root's.
      // Its directory is keyed by the project's lifetime (agent/workers/lifetimes.ts): `blog.<uid>`.
      const [lifetime] = readdirSync(join(nodeDir, 'databases', 'acme')).filter((d) => /^blog\.[0-9a-f]{32}$/.test(d));
      const db = join(nodeDir, 'databases', 'acme', lifetime!, 'blog.sqlite');
      const owner = statSync(db).uid;
      expect(owner).toBeGreaterThanOrEqual(2_000_000_000);
      for (const suffix of ['-wal', '-shm']) if (existsSync(db + suffix)) expect(statSync(db + suffix).uid).toBe(owner);
    }

    // No client secret reaches either process's log.
    for (const p of PROVIDERS) {
      expect(serve.stderr()).not.toContain(`${p}-secret-value`);
      expect(agent.stderr()).not.toContain(`${p}-secret-value`);
    }
  }, 120_000);
});
