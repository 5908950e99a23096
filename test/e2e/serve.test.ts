/** `hostplane serve` as a real process: the listening line, bootstrap through the admin CLI, a project and a
 * sealed secret over HTTP, the 0600 key file, a graceful SIGTERM that lets in-flight requests finish, and a
 * restart refused when its key file does not open the stored secrets. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../client';
import { KEY_FILE, openSealer } from '../../core/sealing';
import { openTestStore } from '../helpers/store';
import { projects, secrets } from '../../store/schema';
import { bootstrapWithCli, cleanup, http, runHostplane, startHostplane, tempDir, until, type Running } from '../helpers/proc';

let dir: string;
let serve: Running;
let token: string;
/** The typed client (client/) with the token the CLI issued. */
let api: Client;

beforeAll(async () => {
  dir = tempDir('hostplane-serve-');
  // The CLI bootstraps first (`admin init` creates the store), then serve starts on the same data dir.
  token = await bootstrapWithCli(dir);
  serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns', 'off']);
  api = createClient({ baseUrl: serve.url, token });
}, 60_000);
afterAll(cleanup);

/** A PUT whose body arrives in two parts, `gapMs` apart. It asks for `100 Continue`, which the server sends as it
 * hands the request to the app: `onInFlight` runs only once the request is provably inside the server. */
function slowPut(url: string, path: string, body: string, onInFlight: () => void, gapMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), {
      method: 'PUT',
      // Keep-alive, as real clients: the server must still close the connection after the answer to exit.
      agent: new Agent({ keepAlive: true }),
      headers: {
        authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue',
      },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.once('continue', () => {
      req.write(body.slice(0, 10));
      onInFlight();
      setTimeout(() => req.end(body.slice(10)), gapMs);
    });
    req.flushHeaders();
  });
}

describe('hostplane serve', () => {
  it('prints {"listening": URL} first and answers /healthz there', async () => {
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(serve.url).port)).toBeGreaterThan(0);
    expect((await http(serve.url, 'GET', '/healthz')).status).toBe(200);
  });

  it('creates the sealing key file DATA/sealing.key with mode 0600 on first start', () => {
    const path = join(dir, 'sealing.key');
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('runs the sandbox OAuth provider with its control token in a 0600 file, never in the log', async () => {
    const path = join(dir, 'oauth-sandbox.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const { url, token: control } = JSON.parse(readFileSync(path, 'utf8')) as { url: string; token: string };
    const put = (auth: string) => fetch(`${url}/_sandbox/github/users/7`, {
      method: 'PUT', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify({ email: 'a@example.test' }),
    });
    expect((await put('')).status).toBe(401);
    expect((await put(`Bearer ${control}`)).status).toBe(200);
    expect(serve.stderr()).toContain(url);
    expect(serve.stderr()).not.toContain(control);
  });

  it('creates a project and seals a secret for the token the CLI issued', async () => {
    const p = await api.POST('/v1/orgs/{orgSlug}/projects', { path: { orgSlug: 'acme' }, body: { name: 'blog' } });
    expect(p.status).toBe(201);
    expect(p.data?.hostname).toBe('blog.hostplane.app');
    const blog = { orgSlug: 'acme', projectName: 'blog' };
    const s = await api.PUT('/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}', { path: { ...blog, secretName: 'API_KEY' }, body: { value: 'e2e-plain-value' } });
    expect(s.status).toBe(200);
    expect(s.data).toMatchObject({ name: 'API_KEY', version: 1 });
    const list = await api.GET('/v1/orgs/{orgSlug}/projects/{projectName}/secrets', { path: blog });
    expect(list.data?.items.map((i) => i.name)).toEqual(['API_KEY']);
    expect(JSON.stringify(list.data)).not.toContain('e2e-plain-value');
  });

  it('answers 401 to a token it never issued and 404 to an org that does not exist', async () => {
    const stranger = createClient({ baseUrl: serve.url, token: 'hp_not-issued' });
    const unknown = await stranger.GET('/v1/orgs/{orgSlug}/projects', { path: { orgSlug: 'acme' } });
    expect([unknown.status, unknown.error?.code]).toEqual([401, 'unauthorized']);
    const nope = await api.GET('/v1/orgs/{orgSlug}/projects', { path: { orgSlug: 'nope' } });
    expect([nope.status, nope.error?.code]).toEqual([404, 'not_found']);
  });

  it('on SIGTERM finishes the requests in flight with their normal status, refuses new ones, and exits 0', async () => {
    const value = JSON.stringify({ value: 'second-version' });
    const inFlight: Promise<{ status: number; text: string }>[] = [];
    let started = 0;
    const bothStarted = new Promise<void>((resolve) => {
      const one = (): void => { if (++started === 2) resolve(); };
      inFlight.push(
        slowPut(serve.url, '/v1/orgs/acme/projects/blog/secrets/API_KEY', value, one, 1200),
        slowPut(serve.url, '/v1/orgs/acme/projects/blog/secrets/OTHER', value, one, 1500),
      );
    });
    await bothStarted;
    serve.proc.kill('SIGTERM');
    // Its log line is written in the tick that closes the listener.
    await until('the shutdown line', () => serve.stderr().includes('shutting down'));
    // Stopped accepting: a new connection is refused while the old requests are still being answered.
    await expect(fetch(`${serve.url}/healthz`)).rejects.toThrow();
    const [a, b] = await Promise.all(inFlight);
    expect(a!.status).toBe(200);
    expect(JSON.parse(a!.text)).toMatchObject({ name: 'API_KEY', version: 2 });
    expect(b!.status).toBe(200);
    expect(JSON.parse(b!.text)).toMatchObject({ name: 'OTHER', version: 1 });
    const exit = await Promise.race([serve.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5000))]);
    // Exits promptly once the in-flight requests are answered (not only when the 10 s force timer fires).
    expect(exit).toEqual({ code: 0, signal: null });
  }, 20_000);

  it('closed the database cleanly: no WAL left behind, and every acknowledged write is there', async () => {
    const wal = join(dir, 'hostplane.db-wal');
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    const s = await openTestStore(dir);
    try {
      expect(await s.db.select({ name: projects.name }).from(projects)).toEqual([{ name: 'blog' }]);
      const rows = await s.db.select({ name: secrets.name, version: secrets.version, sealed: secrets.sealed }).from(secrets).orderBy(secrets.name);
      expect(rows.map((r) => [r.name, r.version])).toEqual([['API_KEY', 2], ['OTHER', 1]]);
      // The value was sealed with the key serve created in the data dir, under its context.
      const sealer = openSealer(join(dir, KEY_FILE));
      expect(sealer.open('acme/blog/API_KEY', rows[0]!.sealed)).toBe('second-version');
      expect(() => sealer.open('acme/blog/OTHER', rows[0]!.sealed)).toThrow();
    } finally {
      s.close();
    }
  });
});

describe('a restart with a key file that does not open the store', () => {
  const serveArgs = (...more: string[]): string[] => ['serve', '--port', '0', '--metrics-listen', '127.0.0.1:0', '--data', dir, '--dns', 'off', ...more];

  /** What a refused start must leave as it was: the store's secret rows, and the bytes and mtime of the store's
   * file (SQLite) and of every key file named. */
  async function state(keyFiles: string[]): Promise<unknown> {
    const s = await openTestStore(dir);
    let rows;
    try {
      rows = await s.db.select().from(secrets).orderBy(secrets.name);
    } finally {
      await s.close();
    }
    const file = (path: string) => (existsSync(path) ? { bytes: readFileSync(path).toString('base64'), mtimeMs: statSync(path).mtimeMs } : null);
    return { rows, files: [join(dir, 'hostplane.db'), ...keyFiles].map(file) };
  }

  it('another installation\'s key file: exit 2 with one line naming the file, and neither the store nor a key file changes', async () => {
    const other = join(tempDir('hostplane-otherkey-'), 'sealing.key');
    openSealer(other);
    const before = await state([join(dir, 'sealing.key'), other]);
    const r = await runHostplane(serveArgs('--sealing-key', other));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^hostplane serve: the sealing key file ${other} does not open this store's sealed data \\(its key k1 does not open`, 'm'));
    expect(await state([join(dir, 'sealing.key'), other])).toEqual(before);
  });

  it('a key file that is not there: exit 2 naming it, and it is not created', async () => {
    const missing = join(tempDir('hostplane-nokey-'), 'sealing.key');
    const before = await state([join(dir, 'sealing.key')]);
    const r = await runHostplane(serveArgs('--sealing-key', missing));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`hostplane serve: the sealing key file ${missing} does not open this store's sealed data (the file does not exist)`);
    expect(existsSync(missing)).toBe(false);
    expect(await state([join(dir, 'sealing.key')])).toEqual(before);
  });

  it('the installation\'s own key file (the default) starts it again', async () => {
    const again = await startHostplane(serveArgs());
    expect((await http(again.url, 'GET', '/healthz')).status).toBe(200);
    expect(await again.stop()).toEqual({ code: 0, signal: null });
  });
});
