/** `hostplane serve` and `admin` on PostgreSQL with real processes (issue 22): the store in the database, the data
 * dir for what is local; a wrong or unreachable URL stops the start before anything starts, without the password. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';
import { hasKnot } from '../helpers/knot';
import { cleanup, http, runHostplane, startHostplane, tempDir, until } from '../helpers/proc';

const missing = postgresMissing();

describe.skipIf(missing)(`serve and admin with --database-url${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let cluster: Cluster;
  let url: string;
  beforeAll(async () => {
    cluster = await startCluster();
    url = await cluster.createDatabase();
  }, 60_000);
  afterAll(async () => {
    await cleanup();
    await cluster?.destroy();
  });

  const adminJson = async (data: string, ...args: string[]) => {
    const r = await runHostplane(['admin', '--data', data, '--database-url', url, ...args]);
    if (r.code !== 0) throw new Error(`admin ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  it('keeps the store in the database across restarts, and the admin CLI on another data dir sees it', async () => {
    const data = tempDir('hostplane-pg-serve-');
    const adminDir = tempDir('hostplane-pg-admin-');
    expect(await adminJson(adminDir, 'init')).toEqual({ store: url });
    await adminJson(adminDir, 'org', 'create', 'acme');
    await adminJson(adminDir, 'user', 'create', 'owner@acme.test');
    await adminJson(adminDir, 'member', 'add', 'acme', 'owner@acme.test', 'admin');
    const { token } = await adminJson(adminDir, 'token', 'create', 'owner@acme.test') as { token: string };
    expect(existsSync(join(adminDir, 'hostplane.db'))).toBe(false);

    const args = ['serve', '--port', '0', '--data', data, '--dns', 'off', '--database-url', url];
    let serve = await startHostplane(args);
    expect((await http(serve.url, 'POST', '/v1/orgs/acme/projects', { token, body: { name: 'blog' } })).status).toBe(201);
    await serve.stop();
    expect(existsSync(join(data, 'hostplane.db'))).toBe(false);
    serve = await startHostplane(args);
    const listed = await http(serve.url, 'GET', '/v1/orgs/acme/projects', { token });
    expect(listed.body.items.map((p: { name: string }) => p.name)).toEqual(['blog']);
    await serve.stop();
  }, 120_000);

  it('refuses an unreachable database: exits non-zero naming where, never the password, and leaves no data dir', async () => {
    const data = join(tempDir('hostplane-pg-bad-'), 'data');
    const bad = `postgres://hostplane:pa55-word-x@localhost/nowhere?host=${encodeURIComponent(`${cluster.socketDir}/absent`)}`;
    const r = await runHostplane(['serve', '--port', '0', '--data', data, '--dns', 'off', '--database-url', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${cluster.socketDir}/absent`);
    expect(r.stderr + r.stdout).not.toContain('pa55-word-x');
    expect(r.stdout).not.toContain('listening');
    expect(existsSync(data)).toBe(false);
  }, 60_000);

  // The outage the issue names: PostgreSQL stopped for 10 s under write load, then started again.
  it.skipIf(!hasKnot())('serving through a 10 s outage under write load: 503 within the timeout, no acknowledged write lost, DNS converges, no password anywhere', async () => {
    const password = 'pw-e2e-outage-71f3';
    const db = new URL(await cluster.createDatabase());
    db.username = 'hostplane';
    db.password = password;
    const withPassword = db.toString();
    const adminDir = tempDir('hostplane-pg-outage-admin-');
    const adminOut = async (...args: string[]) => {
      const r = await runHostplane(['admin', '--data', adminDir, '--database-url', withPassword, ...args]);
      if (r.code !== 0) throw new Error(`admin ${args.join(' ')}: ${r.stderr}`);
      return r.stdout + r.stderr;
    };
    await adminOut('init');
    await adminOut('org', 'create', 'acme', '--plan', 'pro');
    await adminOut('user', 'create', 'owner@acme.test');
    await adminOut('member', 'add', 'acme', 'owner@acme.test', 'admin');
    const { token } = JSON.parse(await adminOut('token', 'create', 'owner@acme.test')) as { token: string };
    const serve = await startHostplane(['serve', '--port', '0', '--data', tempDir('hostplane-pg-outage-'), '--dns-listen', '127.0.0.1:0', '--database-url', withPassword]);
    const zone = '/v1/orgs/acme/dns/zones/example.com';
    expect((await http(serve.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: 'example.com' } })).status).toBe(200);

    const acknowledged = new Map<string, number>();
    const unexpected: string[] = [];
    let done = false;
    let n = 0;
    const writer = async (): Promise<void> => {
      while (!done) {
        const name = `w${n++}.example.com`;
        const r = await http(serve.url, 'PUT', `${zone}/rrsets/${name}/A`, { token, body: { records: [{ content: '192.0.2.1' }], ttl: 300 } }).catch(() => undefined);
        if (r?.status === 200) acknowledged.set(name, Number(r.headers.get('x-generation')));
        else if (r && r.status !== 503) unexpected.push(`${r.status} ${r.text}`);
      }
    };
    const load = Promise.all([writer(), writer(), writer()]);
    let down = false;
    try {
      await until('writes acknowledged before the outage', () => acknowledged.size >= 5);
      await cluster.stop();
      down = true;
      const stoppedAt = Date.now();
      // Asked again and again while it is down: each answer is a prompt 503, for 10 s.
      while (Date.now() - stoppedAt < 10_000) {
        const asked = Date.now();
        const r = await http(serve.url, 'GET', zone, { token });
        expect(r.status).toBe(503);
        expect(r.body.code).toBe('store_unavailable');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Date.now() - asked).toBeLessThan(15_000);
      }
      await cluster.start();
      down = false;
      const atRestart = acknowledged.size;
      await until('writes acknowledged after the outage', () => acknowledged.size >= atRestart + 5, 30_000);
    } finally {
      done = true;
      if (down) await cluster.start();
      await load;
    }
    expect(unexpected).toEqual([]);
    expect(serve.proc.exitCode).toBeNull();

    const stored = new Set<string>();
    let cursor: string | null = null;
    do {
      const page = await http(serve.url, 'GET', `${zone}${cursor ? `?cursor=${cursor}` : ''}`, { token });
      expect(page.status).toBe(200);
      for (const r of page.body.rrsets as { name: string; type: string }[]) if (r.type === 'A') stored.add(r.name);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect([...acknowledged.keys()].filter((name) => !stored.has(name))).toEqual([]);

    const last = Math.max(...acknowledged.values());
    // The reconciler backs off while the store is away: its next pass may come some seconds after the restart.
    await until('the nameserver serving the last acknowledged generation', async () => {
      const r = await http(serve.url, 'GET', `${zone}?waitGeneration=${last}&wait=30`, { token });
      return r.body.status?.ready === true && r.body.status.observedGeneration >= last;
    }, 90_000);

    const status = await adminOut('status', '--json');
    const metrics = await (await fetch(serve.metrics!)).text();
    await serve.stop();
    for (const seen of [serve.stderr(), status, metrics]) expect(seen).not.toContain(password);
  }, 180_000);

  it('refuses a URL that is not PostgreSQL\'s', async () => {
    const r = await runHostplane(['admin', '--data', tempDir('hostplane-pg-url-'), '--database-url', 'mysql://u:secret-pw@h/db', 'org', 'list']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/postgres:\/\//);
    expect(r.stderr).not.toContain('secret-pw');
  });
});
