/** `hostplane admin migrate-store --from DIR --to URL` (docs/operations.md) run as a real process: a SQLite store
 * filled through the store functions is copied into PostgreSQL whole, once; a database holding anything else is
 * refused and left as it was, and a password in the URL never reaches the output. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, count, getTableName, is, sql } from 'drizzle-orm';
import { getTableConfig, SQLiteTable, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { lockDataDir } from '../../lib/datadir-lock';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';
import { createOrg, createUser, issueToken, principalByToken, registerNode, setMembership } from '../../store/accounts';
import { openStore, type Store } from '../../store/db';
import { openPgStore } from '../../store/db-pg';
import { appendAudit, latestSeq, reportFeedPosition } from '../../store/feed';
import { COPIED_FROM, copyOrder } from '../../store/migrate-store';
import { createProject, setPlacement } from '../../store/projects';
import * as schema from '../../store/schema';
import { setSecret } from '../../store/secrets';
import { createZone, putRRset } from '../../store/zones';
import { checkCnameConflict } from '../../zonefiles';
import { cleanup, runHostplane, tempDir, type CliResult } from '../helpers/proc';

afterAll(cleanup);

const migrate = (from: string, to: string): Promise<CliResult> => runHostplane(['admin', 'migrate-store', '--from', from, '--to', to]);

/** A store with a row in every table the API's main paths write: accounts, tokens, a node, a project with its
 * default hostname, placement and secret, a zone with rrsets, the audit log and the change feed. */
async function fill(s: Store): Promise<{ token: string }> {
  const org = await createOrg(s, 'acme', 'pro');
  await createUser(s, 'ada@acme.test');
  await setMembership(s, 'acme', 'ada@acme.test', 'admin');
  const token = await issueToken(s, 'ada@acme.test');
  await registerNode(s, 'node-1');
  const project = await createProject(s, { orgId: org.id, plan: 'pro', limit: 100, name: 'blog', database: true, hostname: 'blog.hostplane.app', actor: 'test' });
  await setPlacement(s, org.id, 'blog', 'node-1');
  await setSecret(s, { orgId: org.id, projectId: project.id, projectName: 'blog', name: 'API_KEY', sealed: 'sealed-value', actor: 'test' });
  await createZone(s, { orgId: org.id, name: 'acme.test', nameservers: ['ns1.hostplane.net', 'ns2.hostplane.net'], actor: 'test', quota: null });
  for (const name of ['www', 'api', 'mail']) {
    await putRRset(s, {
      orgId: org.id, zone: 'acme.test', actor: 'test', cnameConflict: checkCnameConflict, quota: { plan: 'pro', rrsets: 5000, bytes: 5 << 20 },
      rrset: { name: `${name}.acme.test`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }, { content: '192.0.2.2' }] },
    });
  }
  await s.write(async (tx) => appendAudit(tx, { orgId: org.id, event: 'test.event', actor: 'test', target: 'acme', details: { n: 1 } }, s.clock()));
  await reportFeedPosition(s, 'runner-1', 2);
  return { token };
}

/** Every row of a table, in primary key order, as drizzle maps them (JSON parsed, booleans as booleans). */
async function rowsOf(s: Store, t: SQLiteTable): Promise<unknown[]> {
  const config = getTableConfig(t);
  const key = config.primaryKeys[0]?.columns ?? (config.columns as SQLiteColumn[]).filter((c) => c.primary);
  return s.db.select().from(t).orderBy(...key.map((c) => asc(c)));
}

const tableObjects = new Map((Object.values(schema) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable)).map((t) => [getTableName(t), t]));

const missing = postgresMissing();
describe.skipIf(missing)(`admin migrate-store${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let cluster: Cluster;
  let dir: string;
  let url: string;
  let lite: Store;
  let target: Store;
  let token: string;
  let first: CliResult;
  beforeAll(async () => {
    cluster = await startCluster();
    dir = tempDir('hostplane-migrate-');
    const s = openStore(dir);
    try {
      ({ token } = await fill(s));
    } finally {
      s.close();
    }
    url = await cluster.createDatabase();
    first = await migrate(dir, url);
    lite = openStore(dir, { create: false });
    target = await openPgStore(url);
  }, 120_000);
  afterAll(async () => {
    lite?.close();
    target?.close();
    await cluster?.destroy();
  });

  it('copies every table: the target reads the same rows as the source, table by table in key order', async () => {
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const out = JSON.parse(first.stdout) as { copied: boolean; to: string; tables: Record<string, number>; rows: number };
    expect(out.copied).toBe(true);
    expect(Object.keys(out.tables).sort()).toEqual([...tableObjects.keys()].sort());
    for (const t of ['orgs', 'users', 'memberships', 'tokens', 'nodes', 'projects', 'hostnames', 'placements', 'secrets', 'zones', 'rrsets', 'audit', 'changes', 'feed_consumers']) {
      expect(out.tables[t], t).toBeGreaterThan(0);
    }
    expect(out.rows).toBe(Object.values(out.tables).reduce((a, b) => a + b, 0));
    for (const { name } of copyOrder()) {
      if (name === 'store_meta') continue;
      const t = tableObjects.get(name)!;
      const rows = await rowsOf(lite, t);
      expect(await rowsOf(target, t), name).toEqual(rows);
      expect(out.tables[name], name).toBe(rows.length);
    }
  });

  it('a token still authenticates on the target', async () => {
    const principal = await principalByToken(lite, token);
    expect(principal).toBeDefined();
    expect(await principalByToken(target, token)).toEqual(principal);
  });

  it('keeps the feed position: the same latest seq, and a new change on the target gets a higher one; ids go on past the copied ones', async () => {
    const seq = await latestSeq(lite);
    expect(seq).toBeGreaterThan(0);
    expect(await latestSeq(target)).toBe(seq);
    expect(JSON.parse(first.stdout)).toMatchObject({ feedSeq: seq });
    const [acme] = await target.db.select().from(schema.orgs).where(sql`${schema.orgs.slug} = 'acme'`);
    await createProject(target, { orgId: acme!.id, plan: 'pro', limit: 100, name: 'shop', database: false, hostname: 'shop.hostplane.app', actor: 'test' });
    expect(await latestSeq(target)).toBeGreaterThan(seq);
    const org = await createOrg(target, 'globex', 'free');
    expect(org.id).toBeGreaterThan(acme!.id);
  });

  it('run again on the same source it does nothing, even after the target was used', async () => {
    const before = await target.db.select({ n: count() }).from(schema.orgs);
    const again = await migrate(dir, url);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('nothing was done');
    const out = JSON.parse(again.stdout) as { copied: boolean; tables: Record<string, number>; at: string };
    expect(out).toMatchObject({ copied: false, tables: JSON.parse(first.stdout).tables, at: JSON.parse(first.stdout).at });
    expect(await target.db.select({ n: count() }).from(schema.orgs)).toEqual(before);
  });

  it('refuses a database that holds anything else, and leaves it as it was', async () => {
    const other = await cluster.createDatabase();
    const s = await openPgStore(other);
    try {
      await createOrg(s, 'someone-else', 'free');
      const r = await migrate(dir, other);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^hostplane: the database .* is not empty: it holds rows in orgs; migrate-store copies into an empty database only\n$/);
      expect((await s.db.select({ slug: schema.orgs.slug }).from(schema.orgs)).map((o) => o.slug)).toEqual(['someone-else']);
      expect(await s.db.select().from(schema.storeMeta)).toEqual([]);
    } finally {
      s.close();
    }
  });

  it('refuses while a serve or core holds the data dir, and copies nothing', async () => {
    const empty = await cluster.createDatabase();
    const lock = lockDataDir(dir);
    let r: CliResult;
    try {
      r = await migrate(dir, empty);
    } finally {
      lock.release();
    }
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`is in use by pid ${process.pid}`);
    const s = await openPgStore(empty);
    try {
      expect(await s.db.select().from(schema.orgs)).toEqual([]);
    } finally {
      s.close();
    }
  });

  it.each([
    ['a database that does not exist', (c: Cluster) => `postgres://hostplane:s3cret-pw@localhost/nowhere?host=${encodeURIComponent(c.socketDir)}`],
    ['a server that cannot be reached', (c: Cluster) => `postgres://hostplane:s3cret-pw@localhost/postgres?host=${encodeURIComponent(`${c.socketDir}/absent`)}`],
    ['a URL of another scheme', () => 'mysql://hostplane:s3cret-pw@localhost/db'],
  ])('never prints the password of the URL: %s', async (_label, urlOf) => {
    const r = await migrate(dir, urlOf(cluster));
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^hostplane: .+\n$/);
    expect(r.stderr).not.toContain('s3cret-pw');
  });

  it('refuses the copy of the source as it was once the source changed', async () => {
    await createOrg(lite, 'late', 'free');
    const r = await migrate(dir, url);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('holds a copy of another SQLite store, or of this one before it changed');
    const [record] = await target.db.select().from(schema.storeMeta);
    expect(record!.key).toBe(COPIED_FROM);
  });
});
