/** The write contract (docs/store.md): a write function awaits its handle and nothing else, uses nothing but its
 * handle, groups of writes commit together up to GROUP_LIMIT, and a transaction the database rolls back whole
 * fails every write in it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { count, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOrg } from '../../store/accounts';
import { GROUP_LIMIT, openStore, StoreUnavailableError, WriteAbortedError, WriteContractError, type Store, type Tx } from '../../store/db';
import { audit, memberships, orgs } from '../../store/schema';
import { rawSqlite } from '../helpers/sqlite';
import { onPostgres } from '../helpers/store';

/** fdatasync as the kernel answers it, unless a test queued failures: Linux reports a failed writeback once per
 * open file, so a later fdatasync of the same fd returns 0 though the pages it could not write are gone. */
const fsync = vi.hoisted(() => ({ failures: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fdatasync = (fd: number, cb: (e: NodeJS.ErrnoException | null) => void): void => {
    if (fsync.failures > 0) {
      fsync.failures--;
      setImmediate(() => cb(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })));
      return;
    }
    fs.fdatasync(fd, cb);
  };
  return { ...fs, default: { ...fs, fdatasync }, fdatasync };
});

const dirs: string[] = [];
const stores: Store[] = [];
function fresh(): Store {
  const dir = mkdtempSync(join(tmpdir(), 'hostplane-write-'));
  dirs.push(dir);
  const s = openStore(dir);
  stores.push(s);
  return s;
}
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const orgCount = (s: Store): number => s.db.select({ n: count() }).from(orgs).get()!.n;
const addOrg = (tx: Tx, slug: string) => tx.insert(orgs).values({ slug, plan: 'free', createdAt: 'now' });
/** What a second connection sees: committed rows only. */
function committedOrgs(s: Store): number {
  const other = new Database(rawSqlite(s).name, { readonly: true });
  try {
    return (other.prepare('SELECT count(*) AS n FROM orgs').get() as { n: number }).n;
  } finally {
    other.close();
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Group commit, savepoints, the guards that catch a write function awaiting something else, and SQLite's own
// whole-transaction failures are the SQLite store's; test/store/db-pg.test.ts holds the PostgreSQL store's side.
const sqliteOnly = describe.skipIf(onPostgres());

sqliteOnly('group commit, counted', () => {
  it('writes of one turn share one commit, each in its own savepoint: one that throws rolls back alone', async () => {
    const s = fresh();
    const before = s.stats();
    const results = await Promise.allSettled([
      createOrg(s, 'one', 'free'),
      s.write(async (tx) => {
        await tx.insert(audit).values({ orgId: 1, at: 'x', event: 'half.done', actor: 'a', target: 't', details: {} });
        throw new Error('changed my mind');
      }),
      createOrg(s, 'two', 'free'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('changed my mind');
    expect(s.stats()).toEqual({ commits: before.commits + 1, lazyCommits: before.lazyCommits, writes: before.writes + 3, aborts: before.aborts, syncs: before.syncs + 1, checkpoints: before.checkpoints });
    expect(s.db.select().from(audit).where(eq(audit.event, 'half.done')).all()).toEqual([]);
    // Settled means committed: a second connection, which sees only committed data, has both orgs.
    expect(committedOrgs(s)).toBe(2);
  });

  it('a group of writes that are not durable commits without waiting for the disk; one durable write makes its group durable', async () => {
    const s = fresh();
    const before = s.stats();
    await s.write(async (tx) => { await addOrg(tx, 'lazy'); }, { durable: false });
    expect(s.stats()).toMatchObject({ commits: before.commits + 1, lazyCommits: before.lazyCommits + 1, syncs: before.syncs });
    await Promise.all([
      s.write(async (tx) => { await addOrg(tx, 'lazy2'); }, { durable: false }),
      s.write(async (tx) => { await addOrg(tx, 'durable'); }),
    ]);
    expect(s.stats()).toMatchObject({ commits: before.commits + 2, lazyCommits: before.lazyCommits + 1, syncs: before.syncs + 1 });
    await expect(s.write(async (tx) => { await addOrg(tx, 'lazy'); }, { durable: false })).rejects.toThrow();
    expect(orgCount(s)).toBe(3);
  });

  it('a durable write is answered after the disk\'s wait, which holds no turn of the event loop; one that is not durable waits for none', async () => {
    const s = fresh();
    const order: string[] = [];
    const durable = s.write(async (tx) => { await addOrg(tx, 'durable'); }).then(() => order.push('durable write'));
    // Queued after the write's commit: with the disk waited for inside COMMIT it ran only after the answer.
    setImmediate(() => order.push('next turn'));
    await durable;
    expect(order).toEqual(['next turn', 'durable write']);
    // Settled means committed: a second connection sees it.
    expect(committedOrgs(s)).toBe(1);

    order.length = 0;
    const lazy = s.write(async (tx) => { await addOrg(tx, 'lazy'); }, { durable: false }).then(() => order.push('lazy write'));
    setImmediate(() => order.push('next turn'));
    await lazy;
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual(['lazy write', 'next turn']);
  });

  it('a write that is not durable, queued when the store closes, fails like any other (no unhandled rejection)', async () => {
    const s = openStore(':memory:');
    const pending = s.write(async (tx) => { await addOrg(tx, 'late'); }, { durable: false });
    s.close();
    await expect(pending).rejects.toBeInstanceOf(WriteAbortedError);
  });

  it('a write issued in a later turn is a transaction of its own', async () => {
    const s = fresh();
    const before = s.stats().commits;
    await createOrg(s, 'first', 'free');
    await expect(createOrg(s, 'first', 'free')).rejects.toMatchObject({ code: 'org_exists' });
    expect(s.stats().commits).toBe(before + 2);
  });

  it(`a group holds ${GROUP_LIMIT} writes at most: the rest commit in the next transactions`, async () => {
    const s = fresh();
    const before = s.stats();
    const n = 2 * GROUP_LIMIT + 10;
    await Promise.all(Array.from({ length: n }, (_, i) => s.write(async (tx) => { await addOrg(tx, `org-${i}`); })));
    expect(s.stats()).toEqual({ commits: before.commits + 3, lazyCommits: before.lazyCommits, writes: before.writes + n, aborts: before.aborts, syncs: before.syncs + 3, checkpoints: before.checkpoints });
    expect(orgCount(s)).toBe(n);
  });

  it('commit listeners hear of each commit, after it', async () => {
    const s = fresh();
    const heard: number[] = [];
    const off = s.onCommit(() => heard.push(committedOrgs(s)));
    await Promise.all([createOrg(s, 'a', 'free'), createOrg(s, 'b', 'free')]);
    await createOrg(s, 'c', 'free');
    off();
    await createOrg(s, 'd', 'free');
    expect(heard).toEqual([2, 3]);
  });

  it('commit listeners hear of a commit while its sync runs, before its writers are answered; synced() resolves once it is on disk', async () => {
    const s = fresh();
    const order: string[] = [];
    s.onCommit(() => {
      order.push('heard');
      void s.synced().then(() => order.push('synced'));
    });
    await createOrg(s, 'a', 'free').then(() => order.push('answered'));
    expect(order).toEqual(['heard', 'synced', 'answered']);
    // Nothing committed since: on disk already.
    await s.synced();
  });

  it('synced() syncs the WAL itself once another process committed, whose writer may not have synced yet, and only then', async () => {
    const s = fresh();
    await createOrg(s, 'mine', 'free');
    const other = openStore(dirname(rawSqlite(s).name));
    stores.push(other);
    const syncs = (): number => s.stats().syncs;
    const before = syncs();
    await s.synced();
    expect(syncs()).toBe(before);
    await createOrg(other, 'theirs', 'free');
    await s.synced();
    expect(syncs()).toBe(before + 1);
    await s.synced();
    expect(syncs()).toBe(before + 1);
    // Its own commits are its own groups' syncs.
    await createOrg(s, 'mine2', 'free');
    await s.synced();
    expect(syncs()).toBe(before + 2);
  });

  it('a store opened on a WAL another process wrote syncs it first: that process may have committed without syncing', async () => {
    const s = fresh();
    await createOrg(s, 'a', 'free');
    const other = openStore(dirname(rawSqlite(s).name));
    stores.push(other);
    expect(other.stats().syncs).toBe(1);
    await other.synced();
    expect(other.stats().syncs).toBe(1);
  });
});

sqliteOnly('a write function awaits its handle and nothing else', () => {
  it('awaiting the handle many times, and promises already settled, is fine: the group still commits once', async () => {
    const s = fresh();
    const before = s.stats().commits;
    const many = (prefix: string) => s.write(async (tx) => {
      for (let i = 0; i < 100; i++) {
        await addOrg(tx, `${prefix}-${i}`);
        await Promise.resolve();
      }
      const [row] = await tx.select({ n: count() }).from(orgs);
      return row!.n;
    });
    const [a, b] = await Promise.all([many('a'), many('b')]);
    // The second write ran after the first inside the same transaction, and saw its rows.
    expect([a, b]).toEqual([100, 200]);
    expect(s.stats().commits).toBe(before + 1);
  });

  it.each([
    ['a timer', () => sleep(5)],
    ['setImmediate', () => new Promise((r) => setImmediate(r))],
    ['file I/O', () => import('node:fs/promises').then((fs) => fs.readFile(import.meta.filename))],
  ])('awaiting %s fails the write: its changes roll back, the others of its group commit, and its handle refuses the rest', async (_what, other) => {
    const s = fresh();
    let late: unknown;
    const results = await Promise.allSettled([
      createOrg(s, 'before', 'free'),
      s.write(async (tx) => {
        await addOrg(tx, 'first-half');
        await other();
        try {
          await addOrg(tx, 'second-half');
        } catch (e) {
          late = e;
          throw e;
        }
      }),
      createOrg(s, 'after', 'free'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(WriteContractError);
    await expect.poll(() => late).toBeInstanceOf(WriteContractError);
    expect(s.db.select({ slug: orgs.slug }).from(orgs).orderBy(orgs.slug).all().map((o) => o.slug)).toEqual(['after', 'before']);
  });

  it('a write started inside a write is refused, awaited or not, and the outer one rolls back when it fails', async () => {
    const s = fresh();
    let inner: Promise<void> | undefined;
    await expect(s.write(async (tx) => {
      await addOrg(tx, 'outer');
      inner = s.write(async (t) => { await addOrg(t, 'inner'); });
      await inner;
    })).rejects.toBeInstanceOf(WriteContractError);
    await expect(inner).rejects.toBeInstanceOf(WriteContractError);
    let detached: Promise<void> | undefined;
    await expect(s.write(async (tx) => {
      await addOrg(tx, 'outer2');
      detached = s.write(async (t) => { await addOrg(t, 'inner2'); });
      detached.catch(() => undefined);
      throw new Error('refused');
    })).rejects.toThrow('refused');
    await expect(detached).rejects.toBeInstanceOf(WriteContractError);
    expect(s.db.select({ slug: orgs.slug }).from(orgs).all()).toEqual([]);
  });

  it('inside a write, the store itself refuses: the handle is the way in', async () => {
    const s = fresh();
    await expect(s.write(async () => s.db.select().from(orgs).all())).rejects.toBeInstanceOf(WriteContractError);
    await expect(s.write(async () => {
      s.prepared('orgs', (db) => db.select().from(orgs).prepare()).all();
    })).rejects.toBeInstanceOf(WriteContractError);
    await expect(s.write(async () => {
      rawSqlite(s).prepare('SELECT 1').get();
    })).rejects.toBeInstanceOf(WriteContractError);
    // Outside writes it reads as always.
    expect(s.db.select().from(orgs).all()).toEqual([]);
  });

  it('a handle kept past its write refuses queries, prepared statements and locks', async () => {
    const s = fresh();
    let kept: Tx | undefined;
    const q = await s.write(async (tx) => {
      kept = tx;
      return tx.prepared('orgSlugs', (db) => db.select({ slug: orgs.slug }).from(orgs).prepare());
    });
    expect(() => kept!.select().from(orgs).all()).toThrow(WriteContractError);
    expect(() => addOrg(kept!, 'late').run()).toThrow(WriteContractError);
    expect(() => q.all()).toThrow(WriteContractError);
    await expect(kept!.lock('org/1')).rejects.toBeInstanceOf(WriteContractError);
    expect(orgCount(s)).toBe(0);
  });

  it('the type admits asynchronous write functions only', async () => {
    const s = fresh();
    // @ts-expect-error a synchronous function is not a write function: PostgreSQL cannot serve it
    await s.write((tx) => tx.select().from(orgs).all());
  });
});

sqliteOnly('a transaction the database rolls back whole fails every write of its group', () => {
  it('a deferred foreign key violated at COMMIT: every write fails, nothing commits, no listener hears of it', async () => {
    const s = fresh();
    const before = s.stats();
    let heard = 0;
    s.onCommit(() => heard++);
    const results = await Promise.allSettled([
      createOrg(s, 'innocent', 'free'),
      s.write(async (tx) => {
        // The check moves to COMMIT, after every savepoint of the group has been released.
        await tx.run(sql`PRAGMA defer_foreign_keys = ON`);
        await tx.insert(memberships).values({ orgId: 999, userId: 999, role: 'admin' });
      }),
      createOrg(s, 'bystander', 'free'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) {
      const e = (r as PromiseRejectedResult).reason;
      expect(e).toBeInstanceOf(WriteAbortedError);
      expect(e.cause).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    }
    expect([orgCount(s), committedOrgs(s), heard]).toEqual([0, 0, 0]);
    expect(s.stats()).toEqual({ commits: before.commits, lazyCommits: before.lazyCommits, writes: before.writes, aborts: before.aborts + 1, syncs: before.syncs, checkpoints: before.checkpoints });
    // The store goes on: the next group commits.
    await createOrg(s, 'next', 'free');
    expect([orgCount(s), heard]).toEqual([1, 1]);
  });

  it('disk full (SQLITE_FULL) mid-group: the writes before it fail too, and the writes after it never run', async () => {
    const s = fresh();
    const raw = rawSqlite(s);
    raw.exec('CREATE TABLE blobs (b BLOB)');
    const pages = raw.pragma('page_count', { simple: true }) as number;
    raw.pragma(`max_page_count = ${pages + 8}`);
    const ran: number[] = [];
    const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => s.write(async (tx) => {
      ran.push(i);
      await tx.run(sql`INSERT INTO blobs VALUES (randomblob(3000))`);
    })));
    const reasons = results.map((r) => (r.status === 'rejected' ? r.reason : r));
    expect(reasons.every((e) => e instanceof WriteAbortedError)).toBe(true);
    expect((reasons[0] as WriteAbortedError).cause).toMatchObject({ cause: { code: 'SQLITE_FULL' } });
    expect(ran.length).toBeGreaterThan(1);
    expect(ran.length).toBeLessThan(40);
    expect(raw.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(0);
    raw.pragma(`max_page_count = ${pages + 1000}`);
    await s.write(async (tx) => { await tx.run(sql`INSERT INTO blobs VALUES (randomblob(3000))`); });
    expect(raw.prepare('SELECT count(*) FROM blobs').pluck().get()).toBe(1);
  });

  it('once the transaction is gone, the handle refuses: no statement commits on its own', async () => {
    const s = fresh();
    let after: unknown;
    const results = await Promise.allSettled([
      createOrg(s, 'before', 'free'),
      s.write(async (tx) => {
        // What SQLite does itself on some I/O errors.
        await tx.run(sql`ROLLBACK`);
        try {
          await addOrg(tx, 'orphan');
        } catch (e) {
          after = e;
        }
      }),
      createOrg(s, 'after', 'free'),
    ]);
    expect(results.every((r) => r.status === 'rejected' && r.reason instanceof WriteAbortedError)).toBe(true);
    expect(after).toBeInstanceOf(WriteAbortedError);
    expect(orgCount(s)).toBe(0);
  });
});

// The gate before the nameserver's commit (docs/dns.md step 2): after a commit whose WAL sync failed, nothing says
// its pages reached the disk, and a later fdatasync of the same file answers 0 without writing them (Linux reports
// a writeback error once per open file). synced() resolves all the same as soon as a later sync succeeded.
sqliteOnly('synced() after a failed sync', () => {
  afterEach(() => {
    fsync.failures = 0;
  });

  it('keeps rejecting once a commit it covers could not be synced, though a later commit\'s sync succeeded', async () => {
    const s = fresh();
    await createOrg(s, 'before', 'free');
    fsync.failures = 1;
    await expect(createOrg(s, 'lost', 'free')).rejects.toThrow('could not sync');
    await expect(s.synced()).rejects.toThrow('EIO');
    // Visible to every reader (a zone pass reads it), and not known to be on disk.
    expect(orgCount(s)).toBe(2);
    await expect(s.synced()).rejects.toThrow('EIO');
  });

  it('refuses every durable write once a sync failed, unrun, and still commits one that need not be durable', async () => {
    const s = fresh();
    fsync.failures = 1;
    await expect(createOrg(s, 'lost', 'free')).rejects.toThrow('could not sync');
    // A later sync would answer 0: the write would be acknowledged as durable on a log that lost pages.
    const refused = await createOrg(s, 'after', 'free').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect((refused as Error).message).toMatch(/sync of the store's log failed \(EIO.*no durable write until it is opened again/);
    expect(orgCount(s)).toBe(1);
    await s.write(async (tx) => {
      await tx.insert(orgs).values({ slug: 'lazy', plan: 'free', createdAt: new Date().toISOString() });
    }, { durable: false });
    expect(orgCount(s)).toBe(2);
  });

  it('rejects when the sync of its own commit failed while synced() ran one of its own for another process\'s commit', async () => {
    const s = fresh();
    await createOrg(s, 'mine', 'free');
    const other = openStore(dirname(rawSqlite(s).name));
    stores.push(other);
    await createOrg(other, 'theirs', 'free');
    const woke = new Promise<{ gate: Promise<void> }>((resolve) => {
      const off = s.onCommit(() => {
        off();
        // The pass this commit wakes, as the zone reconciler's: it read the commit, and waits for the disk.
        resolve({ gate: s.synced() });
      });
    });
    fsync.failures = 1;
    const write = createOrg(s, 'mine2', 'free');
    await expect(write).rejects.toThrow('could not sync');
    const { gate } = await woke;
    // The group's sync (the first) failed; the pass's wait must not resolve on the second.
    await expect(gate).rejects.toThrow('EIO');
  });
});
