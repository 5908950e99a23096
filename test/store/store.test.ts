/** The store (issue 2 part 2): durable SQLite settings, the append-only audit log, the change feed, generations,
 * and migrations that survive processes starting together on a fresh data dir. Group commit and the write
 * contract: write.test.ts; feed pruning: feed.test.ts. */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { afterEach, describe, expect, it } from 'vitest';
import { createOrg, orgBySlug, registerNode } from '../../store/accounts';
import { openStore, type Store } from '../../store/db';
import { appendAudit, changesSince, latestSeq } from '../../store/feed';
import { createProject, setPlacement } from '../../store/projects';
import { audit, changes, projects } from '../../store/schema';
import { deleteSecret, setSecret } from '../../store/secrets';
import { createZone, putRRset, zoneByName } from '../../store/zones';
import { ROOT } from '../helpers/proc';
import { rawSqlite } from '../helpers/sqlite';
import { onPostgres, openTestStore } from '../helpers/store';

const dirs: string[] = [];
const stores: Store[] = [];
async function fresh(): Promise<{ dir: string; s: Store }> {
  const dir = mkdtempSync(join(tmpdir(), 'hostplane-store-'));
  dirs.push(dir);
  const s = await openTestStore(dir);
  stores.push(s);
  return { dir, s };
}
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** What `q` failed with, the causes' messages included: drizzle wraps the driver's error, whose wording is its own. */
async function refusal(q: PromiseLike<unknown>): Promise<string> {
  try {
    await q;
  } catch (e) {
    const messages: string[] = [];
    for (let c = e; c instanceof Error; c = c.cause) messages.push(c.message);
    return messages.join(' / ');
  }
  throw new Error('it was not refused');
}
/** The schema migrations the store's database recorded (drizzle keeps them in a table of its own). */
const migrationsApplied = async (s: Store): Promise<number> =>
  (await s.raw<{ n: number }>('applied', `SELECT count(*) AS n FROM ${s.dialect === 'postgres' ? 'drizzle.' : ''}__drizzle_migrations`))[0]!.n;
const migrationFiles = (s: Store): number =>
  readMigrationFiles({ migrationsFolder: join(ROOT, 'store', s.dialect === 'postgres' ? 'migrations-pg' : 'migrations') }).length;

const newProject = (s: Store, orgId: number, name: string) =>
  createProject(s, { orgId, plan: 'free', limit: 10, name, database: false, hostname: `${name}.test.example`, actor: 'user:t@test' });

describe('durability settings', () => {
  it.skipIf(onPostgres())('runs in WAL mode with synchronous=NORMAL (1): the store syncs the WAL itself, off the event loop (write.test.ts; SQLite pragmas)', async () => {
    const { s } = await fresh();
    const sqlite = rawSqlite(s);
    expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqlite.pragma('synchronous', { simple: true })).toBe(1);
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(sqlite.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
  });

  it('keeps what was written across close and reopen', async () => {
    const { dir, s } = await fresh();
    const org = await createOrg(s, 'acme', 'free');
    await newProject(s, org.id, 'kept');
    s.close();
    const again = await openTestStore(dir);
    stores.push(again);
    expect(await again.db.select({ name: projects.name }).from(projects)).toEqual([{ name: 'kept' }]);
  });
});

describe('audit log is append-only', () => {
  async function withRecord(): Promise<Store> {
    const { s } = await fresh();
    await s.write((tx) => appendAudit(tx, { orgId: 1, event: 'test.event', actor: 'user:a@test', target: 't', details: { n: 1 } }, new Date()));
    return s;
  }

  it('an UPDATE fails and leaves the record as it was', async () => {
    const s = await withRecord();
    expect(await refusal(s.raw('forge', "UPDATE audit SET event = 'forged' RETURNING id"))).toMatch(/append-only/);
    expect(await refusal(s.write(async (tx) => tx.update(audit).set({ actor: 'user:someone-else@test' }).where(eq(audit.id, 1))))).toMatch(/append-only/);
    expect(await s.db.select({ event: audit.event, actor: audit.actor }).from(audit)).toEqual([{ event: 'test.event', actor: 'user:a@test' }]);
  });

  it('a DELETE fails and the record stays', async () => {
    const s = await withRecord();
    expect(await refusal(s.raw('erase', 'DELETE FROM audit RETURNING id'))).toMatch(/append-only/);
    expect(await refusal(s.write(async (tx) => tx.delete(audit).where(eq(audit.id, 1))))).toMatch(/append-only/);
    expect(await s.db.select().from(audit)).toHaveLength(1);
  });

  it('the triggers are in the schema, so they also bind connections that bypass the store module', async () => {
    const s = await withRecord();
    const triggers = await s.raw<{ name: string }>('audit triggers', s.dialect === 'postgres'
      ? "SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'audit'::regclass AND NOT tgisinternal ORDER BY tgname"
      : "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit' ORDER BY name");
    expect(triggers.map((r) => r.name)).toEqual(expect.arrayContaining(['audit_no_delete', 'audit_no_update']));
  });

  it('appending still works after a refused change', async () => {
    const s = await withRecord();
    expect(await refusal(s.write(async (tx) => tx.delete(audit)))).toMatch(/append-only/);
    await s.write((tx) => appendAudit(tx, { orgId: 1, event: 'test.second', actor: 'a', target: 't' }, new Date()));
    expect(await s.db.select().from(audit)).toHaveLength(2);
  });
});

describe('change feed', () => {
  it('records project, secret and placement changes with a strictly increasing seq', async () => {
    const { s } = await fresh();
    const org = await createOrg(s, 'acme', 'free');
    expect(await latestSeq(s)).toBe(0);
    const p = await newProject(s, org.id, 'blog');
    await setSecret(s, { orgId: org.id, projectId: p.id, projectName: 'blog', name: 'A', sealed: 'v1.k1.x.y', actor: 'a' });
    await setSecret(s, { orgId: org.id, projectId: p.id, projectName: 'blog', name: 'A', sealed: 'v1.k1.x.z', actor: 'a' });
    await deleteSecret(s, { orgId: org.id, projectId: p.id, projectName: 'blog', name: 'A', actor: 'a' });
    await registerNode(s, 'node-1');
    await setPlacement(s, org.id, 'blog', 'node-1');

    const feed = await changesSince(s, 0);
    expect(feed.map((c) => c.kind)).toEqual(['project', 'secret', 'secret', 'secret', 'placement']);
    expect(feed[0]!.key).toBe(String(p.id));
    for (let i = 1; i < feed.length; i++) expect(feed[i]!.seq).toBeGreaterThan(feed[i - 1]!.seq);
    expect(await latestSeq(s)).toBe(feed[feed.length - 1]!.seq);
    // Following the feed from a seen seq gives only what came after.
    expect((await changesSince(s, feed[2]!.seq)).map((c) => c.seq)).toEqual(feed.slice(3).map((c) => c.seq));
  });

  it('a refused change (conflict, missing secret) records nothing, in the feed or the audit log', async () => {
    const { s } = await fresh();
    const org = await createOrg(s, 'acme', 'free');
    const p = await newProject(s, org.id, 'blog');
    const seq = await latestSeq(s);
    const audits = (await s.db.select().from(audit)).length;
    await expect(newProject(s, org.id, 'blog')).rejects.toMatchObject({ code: 'project_name_taken' });
    await expect(deleteSecret(s, { orgId: org.id, projectId: p.id, projectName: 'blog', name: 'NOPE', actor: 'a' })).rejects.toMatchObject({ status: 404 });
    await expect(createProject(s, { orgId: org.id, plan: 'free', limit: 1, name: 'over', database: false, hostname: 'over.test.example', actor: 'a' }))
      .rejects.toMatchObject({ code: 'project_limit' });
    expect(await latestSeq(s)).toBe(seq);
    expect(await s.db.select().from(audit)).toHaveLength(audits);
    expect(await s.db.select().from(projects)).toHaveLength(1);
  });

  it('seq never goes back, even after the newest change row is gone and the store reopens', async () => {
    const { dir, s } = await fresh();
    const org = await createOrg(s, 'acme', 'free');
    await newProject(s, org.id, 'a');
    await newProject(s, org.id, 'b');
    const top = await latestSeq(s);
    await s.write(async (tx) => { await tx.delete(changes).where(eq(changes.seq, top)); });
    s.close();
    const again = await openTestStore(dir);
    stores.push(again);
    const org2 = await orgBySlug(again, 'acme');
    await newProject(again, org2!.id, 'c');
    expect(await latestSeq(again)).toBeGreaterThan(top);
  });
});

describe('desired rows', () => {
  it('a new project carries generation 1', async () => {
    const { s } = await fresh();
    const org = await createOrg(s, 'acme', 'free');
    await newProject(s, org.id, 'blog');
    expect(await s.db.select({ generation: projects.generation }).from(projects)).toEqual([{ generation: 1 }]);
  });
});

describe('migrations', () => {
  it('reopening an existing store applies nothing twice', async () => {
    const { dir, s } = await fresh();
    const before = await migrationsApplied(s);
    expect(before).toBeGreaterThan(0);
    stores.push(await openTestStore(dir), await openTestStore(dir));
    expect(await migrationsApplied(s)).toBe(before);
  });

  it('stores opened at once on fresh data both open, and apply each migration once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-together-'));
    dirs.push(dir);
    const both = await Promise.all([openTestStore(dir), openTestStore(dir)]);
    stores.push(...both);
    expect(await migrationsApplied(both[0])).toBe(migrationFiles(both[0]));
  });

  // It makes the SQLite file by hand; on PostgreSQL, the test above races the migrations' advisory lock.
  it.skipIf(onPostgres())('a process opening the store while another is midway through migrating it succeeds (no "table already exists")', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-race-'));
    dirs.push(dir);
    // Connection A is another process that started on the same fresh dir a moment earlier: it has made the
    // migrations table (as drizzle does before its BEGIN) and is inside its migration transaction.
    const a = new Database(join(dir, 'hostplane.db'));
    a.pragma('journal_mode = WAL');
    a.exec('CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)');
    a.exec('BEGIN IMMEDIATE');
    for (const m of readMigrationFiles({ migrationsFolder: join(ROOT, 'store', 'migrations') })) {
      for (const stmt of m.sql) a.exec(stmt);
      a.prepare('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)').run(m.hash, m.folderMillis);
    }
    // Process B opens the store now: it reads "nothing applied" and then waits for A's write lock.
    const script = join(dir, 'open.mts');
    writeFileSync(script, [
      `import { openStore } from ${JSON.stringify(join(ROOT, 'store', 'db.ts'))};`,
      "console.log('opening');",
      `try { openStore(${JSON.stringify(dir)}).close(); console.log('ok'); } catch (e) { console.log('FAIL ' + (e as Error).message.split('\\n')[0]); }`,
    ].join('\n'));
    const child = spawn(process.execPath, ['--import', join(ROOT, 'node_modules/tsx/dist/esm/index.mjs'), script], { cwd: ROOT });
    let out = '';
    const opening = new Promise<void>((resolve) => {
      child.stdout.on('data', (c: Buffer) => {
        out += String(c);
        if (out.includes('opening')) resolve();
      });
    });
    child.stderr.on('data', (c: Buffer) => { out += String(c); });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      await opening;
      await new Promise((r) => setTimeout(r, 400));
      a.exec('COMMIT');
      await exited;
    } finally {
      if (a.inTransaction) a.exec('ROLLBACK');
      a.close();
      child.kill('SIGKILL');
    }
    expect(out.trim().split('\n')).toEqual(['opening', 'ok']);
    const s = openStore(dir);
    stores.push(s);
    expect(await migrationsApplied(s)).toBe(migrationFiles(s));
  }, 20_000);
});

describe('what the data dir lets others read', () => {
  // The modes of the SQLite files; a PostgreSQL store keeps nothing in the data dir.
  it.skipIf(onPostgres())('creates the data dir 0700 and the store 0600 (its WAL too), and tightens ones made before the rule', async () => {
    const { dir, s } = await fresh();
    await createOrg(s, 'perm', 'free');
    const mode = (p: string) => statSync(p).mode & 0o777;
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'hostplane.db'))).toBe(0o600);
    expect(mode(join(dir, 'hostplane.db-wal'))).toBe(0o600);
    s.close();
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'hostplane.db'), 0o644);
    stores.push(await openTestStore(dir));
    expect([mode(dir), mode(join(dir, 'hostplane.db'))]).toEqual([0o700, 0o600]);
  });
});

// Tracked by SQLite's user_version; a PostgreSQL store was made after the sizes existed.
describe.skipIf(onPostgres())('data migrations', () => {
  it('fill the rendered size of rrsets stored before zones counted it, once', async () => {
    const { dir, s } = await fresh();
    const org = await createOrg(s, 'sized', 'free');
    await createZone(s, { orgId: org.id, name: 'sized.example', nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    const rrset = { name: 'www.sized.example', type: 'TXT' as const, ttl: 300, records: [{ content: 'v'.repeat(300) }] };
    await putRRset(s, { orgId: org.id, zone: 'sized.example', rrset, actor: 't', cnameConflict: () => false, quota: { plan: 'free', rrsets: 10, bytes: 1 << 20 } });
    const sized = (await zoneByName(s, 'sized.example'))!;
    expect(sized.bytes).toBeGreaterThan(300);
    s.close();
    // As a store migrated before the sizes existed: columns at their default, user_version 0.
    const raw = new Database(join(dir, 'hostplane.db'));
    raw.exec("UPDATE rrsets SET bytes = 0; UPDATE zones SET bytes = 0; PRAGMA user_version = 0");
    raw.close();
    const again = openStore(dir);
    stores.push(again);
    expect((await zoneByName(again, 'sized.example'))!.bytes).toBe(sized.bytes);
  });
});

describe('raw SQL', () => {
  it('runs a write\'s statement that answers no rows (no RETURNING to satisfy the driver) and answers []', async () => {
    const { s } = await fresh();
    expect(await s.write((tx) => tx.raw('test insert', 'INSERT INTO rrset_tombstones (zone, name, type, gen) VALUES (?, ?, ?, ?)', ['raw.test', 'x.raw.test', 'A', 7]))).toEqual([]);
    expect(await s.raw<{ gen: number }>('test read', 'SELECT gen FROM rrset_tombstones WHERE name = ?', ['x.raw.test'])).toEqual([{ gen: 7 }]);
    expect(await s.write((tx) => tx.raw('test delete', 'DELETE FROM rrset_tombstones WHERE name = ?', ['x.raw.test']))).toEqual([]);
    expect(await s.raw('test read', 'SELECT gen FROM rrset_tombstones WHERE name = ?', ['x.raw.test'])).toEqual([]);
  });
});
