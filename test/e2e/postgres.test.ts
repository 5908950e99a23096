/** `hostplane serve` and `admin` on PostgreSQL with real processes (issue 22): the store in the database, the data
 * dir for what is local; a wrong or unreachable URL stops the start before anything starts, without the password. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';
import { cleanup, http, runHostplane, startHostplane, tempDir } from '../helpers/proc';

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

  it('refuses a URL that is not PostgreSQL\'s', async () => {
    const r = await runHostplane(['admin', '--data', tempDir('hostplane-pg-url-'), '--database-url', 'mysql://u:secret-pw@h/db', 'org', 'list']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/postgres:\/\//);
    expect(r.stderr).not.toContain('secret-pw');
  });
});
