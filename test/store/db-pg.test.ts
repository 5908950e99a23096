/** The write contract on PostgreSQL (docs/store.md): the same `write(fn)` as SQLite's, on a throw-away cluster. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { count, eq, sql } from 'drizzle-orm';
import pg from 'pg';
import { causeOf, isUniqueViolation, StoreUnavailableError, WriteAbortedError, WriteContractError, type Store, type Tx } from '../../store/db';
import { AppError } from '../../lib/errors';
import { checkDatabaseUrl, openPgStore, redactUrl } from '../../store/db-pg';
import { onChanges, recordChange, recordChangeSeq, type Change } from '../../store/feed';
import { audit, orgs } from '../../store/schema';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';

const missing = postgresMissing();

describe('checkDatabaseUrl', () => {
  it.each([
    ['a parameter it would ignore', 'postgres://u:s3cret-pw@db.internal/hp?application_name=x', /--database-url: the URL parameter application_name is not supported/],
    ['a password with a bare %', 'postgres://u:s3cret-pw%zz@db.internal/hp', /--database-url: its password is not percent-encoded/],
    ['a database name with a bare %', 'postgres://u:s3cret-pw@db.internal/h%p', /--database-url: its database is not percent-encoded/],
  ])('refuses %s as a usage error, without the password', (_what, url, message) => {
    const e = (() => {
      try {
        checkDatabaseUrl(url);
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).message).toMatch(message);
    expect((e as AppError).message).not.toContain('s3cret-pw');
  });

  it('takes a socket directory as host=', () => {
    expect(checkDatabaseUrl('postgres://u@localhost/hp?host=%2Frun%2Fpostgresql').searchParams.get('host')).toBe('/run/postgresql');
  });
});

describe.skipIf(missing)(`the store on PostgreSQL${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let cluster: Cluster;
  let s: Store;
  beforeAll(async () => {
    // The WAL writer flushes what a commit without synchronous_commit left in memory only after this long, so what
    // a write leaves unflushed when it is answered stays unflushed while the test looks.
    cluster = await startCluster({ settings: { wal_writer_delay: '10s' } });
    s = await openPgStore(await cluster.createDatabase());
  }, 60_000);
  afterAll(async () => {
    s?.close();
    await cluster?.destroy();
  });

  const addOrg = (tx: Tx, slug: string) => tx.insert(orgs).values({ slug, plan: 'free', createdAt: '2026-01-01T00:00:00Z' });
  const orgCount = async (): Promise<number> => (await s.db.select({ n: count() }).from(orgs))[0]!.n;

  it('commits a write and answers its value; a write that throws leaves nothing', async () => {
    const id = await s.write(async (tx) => (await addOrg(tx, 'acme').returning({ id: orgs.id }))[0]!.id);
    expect(typeof id).toBe('number');
    await expect(s.write(async (tx) => {
      await addOrg(tx, 'gone');
      throw new Error('no');
    })).rejects.toThrow('no');
    expect((await s.db.select().from(orgs).where(eq(orgs.slug, 'gone'))).length).toBe(0);
    expect(s.stats().commits).toBeGreaterThan(0);
  });

  it('recognizes a unique violation', async () => {
    const e = await s.write(async (tx) => addOrg(tx, 'acme')).catch((x: unknown) => x);
    expect(isUniqueViolation(e)).toBe(true);
  });

  // A counted limit (one org whose slug starts with "lim-") checked by two writes at once: READ COMMITTED lets both
  // count zero unless they take the lock first.
  const limited = (slug: string, lock: boolean) => s.write(async (tx) => {
    if (lock) await tx.lock('org/limit');
    const [n] = await tx.select({ n: count() }).from(orgs).where(sql`${orgs.slug} LIKE ${'lim' + (lock ? 'L' : 'U') + '-%'}`);
    await tx.raw('sleep', 'SELECT pg_sleep(0.2)');
    if (n!.n >= 1) return false;
    await addOrg(tx, slug);
    return true;
  });
  it('tx.lock serializes writes that check a counted limit; without it both pass', async () => {
    const locked = await Promise.all([limited('limL-a', true), limited('limL-b', true)]);
    expect(locked.filter(Boolean)).toHaveLength(1);
    const unlocked = await Promise.all([limited('limU-a', false), limited('limU-b', false)]);
    expect(unlocked.filter(Boolean)).toHaveLength(2);
  });

  it('takes the same lock whether it goes out with BEGIN (first statement) or after other statements', async () => {
    let locked!: () => void;
    const firstLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const first = s.write(async (tx) => {
      await tx.lock('org/same');
      locked();
      await addOrg(tx, 'same-a');
      await tx.raw('hold', 'SELECT pg_sleep(0.3)');
    });
    await firstLocked;
    const second = s.write(async (tx) => {
      await tx.raw('before', 'SELECT 1 AS one');
      await tx.lock('org/same');
      const [seen] = await tx.raw<{ n: number }>('same seen', 'SELECT count(*) AS n FROM orgs WHERE slug = ?', ['same-a']);
      return seen!.n;
    });
    await first;
    expect(await second).toBe(1);
  });

  it.each([['serialization failure', '40001'], ['deadlock', '40P01']])('runs a write again after a %s', async (_name, code) => {
    let attempts = 0;
    const slug = `retry-${code}`;
    await s.write(async (tx) => {
      attempts++;
      await addOrg(tx, slug);
      if (attempts === 1) await tx.raw(`force ${code}`, `DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '${code}'; END $$`);
    });
    expect(attempts).toBe(2);
    expect((await s.db.select().from(orgs).where(eq(orgs.slug, slug))).length).toBe(1);
  });

  it('resolves a real deadlock between two writes by running the loser again', async () => {
    const both = (first: string, second: string, slug: string) => s.write(async (tx) => {
      await tx.lock(first);
      await tx.raw('sleep', 'SELECT pg_sleep(0.2)');
      await tx.lock(second);
      await addOrg(tx, slug);
    });
    await Promise.all([both('dl/a', 'dl/b', 'dl-1'), both('dl/b', 'dl/a', 'dl-2')]);
    expect((await s.db.select().from(orgs).where(sql`${orgs.slug} LIKE 'dl-%'`)).length).toBe(2);
  }, 20_000);

  it('gives up after a bounded number of attempts with WriteAbortedError, answered as the store unavailable for a moment', async () => {
    let attempts = 0;
    const e = await s.write(async (tx) => {
      attempts++;
      await tx.raw('force 40001', `DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '40001'; END $$`);
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(WriteAbortedError);
    expect(attempts).toBe(5);
    expect(causeOf(e, StoreUnavailableError)?.message).toMatch(/aborted this write 5 times against other writes \(forced\); retry/);
  });

  it('commits every write without holding its locks across the WAL flush, and answers a durable one once flushed past it', async () => {
    const wrote = async (slug: string, durable: boolean) => s.write(async (tx) => {
      await addOrg(tx, slug);
      return (await tx.raw<{ synchronous_commit: string; lsn: string }>('show', 'SELECT current_setting(?) AS synchronous_commit, pg_current_wal_insert_lsn()::text AS lsn', ['synchronous_commit']))[0]!;
    }, { durable });
    expect((await wrote('lazy', false)).synchronous_commit).toBe('off');
    const durable = await wrote('durable', true);
    expect(durable.synchronous_commit).toBe('off');
    const [flushed] = await s.raw<{ past: boolean }>('flushed', 'SELECT pg_current_wal_flush_lsn() >= ?::pg_lsn AS past', [durable.lsn]);
    expect(flushed!.past).toBe(true);
    expect(s.stats().lazyCommits).toBe(1);
  });

  it('synced() resolves once every commit visible so far is flushed: a lazy write read by a reconciler included', async () => {
    const flushedPast = async (lsn: string) => (await s.raw<{ past: boolean }>('flushed', 'SELECT pg_current_wal_flush_lsn() >= ?::pg_lsn AS past', [lsn]))[0]!.past;
    // PostgreSQL may flush a lazy commit on its own before it is looked at (another commit's flush, the WAL writer
    // woken): the test needs one that is not flushed yet, and a few tries find it.
    let lazy: string | undefined;
    for (let i = 0; i < 5 && lazy === undefined; i++) {
      const { lsn } = await s.write(async (tx) => {
        await addOrg(tx, `read-before-flush-${i}`);
        return (await tx.raw<{ lsn: string }>('lsn', 'SELECT pg_current_wal_insert_lsn()::text AS lsn'))[0]!;
      }, { durable: false });
      if (!(await flushedPast(lsn))) lazy = lsn;
    }
    expect(lazy, 'a lazy commit not flushed yet, in 5 tries').toBeDefined();
    await s.synced();
    expect(await flushedPast(lazy!)).toBe(true);
  });

  it('loses no acknowledged write when PostgreSQL is killed right after answering', async () => {
    const slugs = Array.from({ length: 8 }, (_, i) => `kept-${i}`);
    await Promise.all(slugs.map((slug) => s.write(async (tx) => addOrg(tx, slug))));
    await cluster.stop({ immediate: true });
    await cluster.start();
    const present = await vi.waitFor(async () => s.raw<{ slug: string }>('kept', 'SELECT slug FROM orgs WHERE slug LIKE ? ORDER BY slug', ['kept-%']), { timeout: 15_000 });
    expect(present.map((r) => r.slug)).toEqual(slugs);
  }, 60_000);

  /** A write that records a change in place, then holds the feed lock 0.3 s: `recorded` once it holds it, `committed`
   * with the change's seq. */
  const holdingFeed = (key: string): { recorded: Promise<void>; committed: Promise<number> } => {
    let recorded!: () => void;
    const held = new Promise<void>((resolve) => {
      recorded = resolve;
    });
    const committed = s.write(async (tx) => {
      const seq = await recordChangeSeq(s, tx, 'zone', key, new Date());
      recorded();
      await tx.raw('hold', 'SELECT pg_sleep(0.3)');
      return seq;
    });
    return { recorded: held, committed };
  };

  it('makes changes visible in seq order: a write recording a change after another waits for its commit', async () => {
    const holder = holdingFeed('first.example');
    await holder.recorded;
    const first = holder.committed;
    const second = s.write(async (tx) => {
      const seq = await recordChangeSeq(s, tx, 'zone', 'second.example', new Date());
      // A statement of its own, so it sees what committed before it started: the first write, if it waited for it.
      const [seen] = await tx.raw<{ n: number }>('first seen', 'SELECT count(*) AS n FROM changes WHERE key = ?', ['first.example']);
      return { seq, firstCommitted: seen!.n === 1 };
    });
    const [a, b] = await Promise.all([first, second]);
    expect(b.seq).toBeGreaterThan(a);
    expect(b.firstCommitted).toBe(true);
  });

  it('records a change in the round trip of the COMMIT, under the feed lock: after a change that holds it, announced with its seq', async () => {
    const heard: Change[] = [];
    const stop = onChanges(s, (batch) => heard.push(...batch));
    const holder = holdingFeed('held.example');
    await holder.recorded;
    try {
      await s.write(async (tx) => {
        await addOrg(tx, 'with-commit');
        await recordChange(s, tx, 'zone', 'later.example', new Date());
      });
      const held = await holder.committed;
      const [row] = await s.raw<{ seq: number }>('later seq', 'SELECT seq FROM changes WHERE key = ?', ['later.example']);
      expect(row!.seq).toBeGreaterThan(held);
      expect(heard.find((c) => c.key === 'later.example')).toEqual({ seq: row!.seq, kind: 'zone', key: 'later.example' });
    } finally {
      stop();
    }
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      await s.write(async (tx) => recordChange(s, tx, 'zone', 'alone.example', new Date()));
      // BEGIN, the feed row, NOTIFY, COMMIT and the flush: one round trip.
      expect(query.mock.calls.length).toBe(1);
    } finally {
      query.mockRestore();
    }
  });

  it("sends BEGIN with a write's first statement, its parameters inlined: one row written in two round trips", async () => {
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      const [row] = await s.write(async (tx) => addOrg(tx, "o'brien\\$1").returning({ id: orgs.id, slug: orgs.slug }));
      expect(row).toEqual({ id: expect.any(Number), slug: "o'brien\\$1" });
      // BEGIN with the row, then NOTIFY with COMMIT and the flush.
      expect(query.mock.calls.length).toBe(2);
      query.mockClear();
      // Dollar quoting, where a $n may be no parameter: BEGIN goes alone first.
      const [dollars] = await s.write(async (tx) => tx.raw<{ a: string; b: string }>('dollars', 'SELECT $$a$1$$ AS a, ? AS b', ['b']));
      expect(dollars).toEqual({ a: 'a$1', b: 'b' });
      expect(query.mock.calls.length).toBe(3);
    } finally {
      query.mockRestore();
    }
  });

  it('fails a write whose statement sent with COMMIT fails, with that error: nothing of it commits, the connection serves on', async () => {
    const e = await s.write(async (tx) => {
      await addOrg(tx, 'sent-last');
      tx.withCommit!('INSERT INTO orgs (slug, plan, created_at) VALUES (?, ?, ?)', ['sent-last', 'free', '2026-01-01T00:00:00Z']);
    }).catch((x: unknown) => x);
    expect(isUniqueViolation(e)).toBe(true);
    expect((await s.db.select().from(orgs).where(eq(orgs.slug, 'sent-last'))).length).toBe(0);
    // Every pooled connection again, none left in the failed transaction.
    await Promise.all(Array.from({ length: 12 }, (_, i) => s.write(async (tx) => {
      tx.withCommit!('INSERT INTO orgs (slug, plan, created_at) VALUES (?, ?, ?)', [`after-${i}`, "it's free", '2026-01-01T00:00:00Z']);
    })));
    expect((await s.db.select().from(orgs).where(sql`${orgs.slug} LIKE 'after-%'`)).map((o) => o.plan)).toEqual(Array(12).fill("it's free"));
  });

  it('runs a write again whose statement sent with COMMIT PostgreSQL aborted (deadlock, serialization failure)', async () => {
    let attempts = 0;
    await s.write(async (tx) => {
      attempts++;
      await addOrg(tx, 'retried-at-commit');
      if (attempts === 1) tx.withCommit!(`DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = '40P01'; END $$`, []);
    });
    expect(attempts).toBe(2);
    expect((await s.db.select().from(orgs).where(eq(orgs.slug, 'retried-at-commit'))).length).toBe(1);
  });

  it('refuses a transaction handle used after its write settled', async () => {
    let kept: Tx | undefined;
    await s.write(async (tx) => {
      kept = tx;
    });
    const e = await Promise.resolve().then(() => addOrg(kept!, 'late')).catch((x: unknown) => x);
    expect(causeOf(e, WriteContractError)).toBeDefined();
    expect((await s.db.select().from(orgs).where(eq(orgs.slug, 'late'))).length).toBe(0);
  });

  it.each([
    ['', async (_tx: Tx) => undefined],
    [', a statement sent with its COMMIT too', async (tx: Tx) => recordChange(s, tx, 'zone', 'swallowed.example', new Date())],
  ])('fails a write whose function swallowed a failed statement%s: PostgreSQL rolled it back', async (_what, then) => {
    const e = await s.write(async (tx) => {
      await addOrg(tx, 'swallowed');
      await addOrg(tx, 'acme').catch(() => undefined);
      await then(tx);
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(WriteAbortedError);
    expect((await s.db.select().from(orgs).where(eq(orgs.slug, 'swallowed'))).length).toBe(0);
  });

  it('keeps the audit log append-only in the database itself', async () => {
    const [org] = await s.db.select({ id: orgs.id }).from(orgs).limit(1);
    await s.write(async (tx) => {
      await tx.insert(audit).values({ orgId: org!.id, at: '2026-01-01T00:00:00Z', event: 'e', actor: 'a', target: 't' });
    });
    const refused = async (w: Promise<unknown>) => ((await w.catch((x: unknown) => x)) as Error).cause;
    expect(await refused(s.write(async (tx) => tx.update(audit).set({ event: 'x' })))).toHaveProperty('message', 'audit log is append-only');
    expect(await refused(s.write(async (tx) => tx.delete(audit)))).toHaveProperty('message', 'audit log is append-only');
  });

  it('answers raw SQL with ? parameters on both sides', async () => {
    const rows = await s.raw<{ slug: string }>('test slug', 'SELECT slug FROM orgs WHERE slug = ? OR slug = ? ORDER BY slug', ['acme', 'nope']);
    expect(rows).toEqual([{ slug: 'acme' }]);
    expect(await s.write(async (tx) => tx.raw<{ n: number }>('test n', 'SELECT count(*) AS n FROM orgs WHERE slug = ?', ['acme']))).toEqual([{ n: 1 }]);
  });

  it("hears other processes' commits (onOtherCommits), not its own", async () => {
    const other = await openPgStore(await cluster.createDatabase('other_commits'));
    const second = await openPgStore(cluster.url('other_commits'));
    try {
      let heard = 0;
      let own = 0;
      const off = second.onOtherCommits(() => heard++);
      const offOwn = other.onOtherCommits(() => own++);
      // Each listener is called once when its LISTEN is in place (what came before is unknown): that call, late under
      // load, must not pass for the commit of `other` below.
      await vi.waitFor(() => expect(heard).toBeGreaterThan(0), { timeout: 10_000 });
      // The LISTEN is in place once a commit of `second` itself is heard by `other`.
      await vi.waitFor(async () => {
        await second.write(async (tx) => addOrg(tx, `ping-${Date.now()}-${Math.random()}`));
        expect(own).toBeGreaterThan(0);
      }, { timeout: 10_000, interval: 100 });
      const before = heard;
      await other.write(async (tx) => addOrg(tx, 'heard'));
      await vi.waitFor(() => expect(heard).toBeGreaterThan(before), { timeout: 10_000 });
      const heardBefore = heard;
      await second.write(async (tx) => addOrg(tx, 'own'));
      await new Promise((r) => setImmediate(r));
      expect(heard).toBe(heardBefore);
      off();
      offOwn();
    } finally {
      other.close();
      second.close();
    }
  }, 30_000);

  it('tells its listener once when its LISTEN is in place, with no commit: what came before it was not notified to it', async () => {
    let heard = 0;
    const off = s.onOtherCommits(() => heard++);
    try {
      await vi.waitFor(() => expect(heard).toBe(1), { timeout: 10_000 });
    } finally {
      off();
    }
  });

  it('answers StoreUnavailableError while the server is down, promptly, and works again once it is back', async () => {
    const before = await orgCount();
    await cluster.stop();
    const started = Date.now();
    await expect(s.write(async (tx) => addOrg(tx, 'while-down'))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(causeOf(await orgCount().catch((x: unknown) => x), StoreUnavailableError)).toBeDefined();
    expect(Date.now() - started).toBeLessThan(15_000);
    await cluster.start();
    await s.write(async (tx) => addOrg(tx, 'after'));
    expect(await orgCount()).toBe(before + 1);
  }, 60_000);

  it('refuses an unreachable database naming where it is, and never its password', async () => {
    const url = `postgres://hostplane:s3cret-pw@localhost/nowhere?host=${encodeURIComponent(`${cluster.socketDir}/absent`)}`;
    const e = await openPgStore(url).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StoreUnavailableError);
    expect((e as Error).message).toContain(`${cluster.socketDir}/absent`);
    expect((e as Error).message).not.toContain('s3cret-pw');
    expect(redactUrl(url)).not.toContain('s3cret-pw');
  });

  it.each([
    ['a database that does not exist', 'hostplane', 'nosuchdb', /database "nosuchdb" does not exist/],
    ['a role that does not exist', 'nosuchrole', 'postgres', /role "nosuchrole" does not exist/],
  ])('refuses %s naming where the URL points and why, never its password', async (_what, user, database, why) => {
    const e = await openPgStore(`postgres://${user}:s3cret-pw@localhost/${database}?host=${encodeURIComponent(cluster.socketDir)}`).catch((x: unknown) => x);
    expect((e as Error).message).toContain(`socket ${cluster.socketDir}/.s.PGSQL.5432 database ${database}`);
    expect((e as Error).message).toMatch(why);
    expect((e as Error).message).not.toContain('s3cret-pw');
  });
});
