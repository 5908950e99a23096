import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { chmodSync, closeSync, existsSync, fdatasync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { causesOf, messageOf } from '../lib/errors';
import { startCheckpointer } from './checkpointer';
import { runDataMigrations } from './data-migrations';
import * as schema from './schema';

export type Db = BetterSQLite3Database<typeof schema>;

/**
 * What a write function runs on, and its only way into the store (docs/store.md): drizzle queries, statements
 * prepared once per store, and named locks, all inside the write's transaction. It is live only while its
 * write function runs; used later (a callback, a forgotten promise), every statement through it throws.
 */
export interface Tx extends Db {
  /** Builds a statement once per store and reuses it. It belongs to the write side: it runs only inside a write. */
  prepared<T>(key: string, build: (db: Db) => T): T;
  /**
   * Serializes this write with every other write that locks `name`, until it commits. Take it before reading
   * what a counted limit or a read-modify-write depends on. SQLite needs nothing more (every write holds the
   * database's write lock, BEGIN IMMEDIATE); PostgreSQL takes a transaction-scoped advisory lock.
   */
  lock(name: string): Promise<void>;
  /**
   * Runs `fn` once this write has committed, never when it (or its transaction) rolled back: synchronously at the
   * commit, before the store's `onCommit` listeners. What a write wants told once it is true (the change feed's
   * announcements) goes here rather than being read back after the commit.
   */
  afterCommit(fn: () => void): void;
  /** Raw SQL on the write side, as `Store.raw`; a statement that answers no rows (an INSERT without RETURNING)
   * answers []. */
  raw<R>(key: string, text: string, params?: readonly unknown[]): Promise<R[]>;
  /**
   * PostgreSQL only (SQLite runs its statements in the process, where a round trip costs nothing): sends `text`
   * (`?` parameters, as `raw`) in the round trip of this write's COMMIT, just before it, and hands its rows to `then`
   * once the write has committed, before the `afterCommit` callbacks. For the last statements of a write, which
   * nothing later in the write reads: it costs no round trip of its own, and a lock it takes is held for no round
   * trip at all. Its failure fails the write as the statement's own error would have.
   */
  withCommit?<R>(text: string, params: readonly unknown[], then?: (rows: R[]) => void): void;
}

/** Which database a store runs on. Store modules are written once for both (docs/store.md); a query whose SQL
 * differs between them asks this. */
export type Dialect = 'sqlite' | 'postgres';

export interface WriteOptions {
  /**
   * False for what the store can lose to a crash of the machine (not of the process) and have derived again:
   * reconcilers' observations (status). A group made only of such writes is answered without waiting for the
   * disk, and the next durable commit's sync writes it out with its own (the WAL keeps their order), so an
   * observation recorded after a change costs the next API write no fsync of its own. PostgreSQL: `SET LOCAL
   * synchronous_commit = off`. Default true.
   */
  durable?: boolean;
}

export interface WriteStats {
  /** Transactions committed: one per group of writes. */
  commits: number;
  /** Of those, committed without waiting for the disk (every write of the group was not durable). */
  lazyCommits: number;
  /** Writes whose function ran in a transaction that committed (those that threw included). */
  writes: number;
  /** Transactions rolled back whole: every write of them failed. */
  aborts: number;
  /** Waits for the disk begun: SQLite, a WAL sync per durable commit and per `synced()` that found another
   * process's commit; PostgreSQL, a flush per `synced()`. */
  syncs: number;
  /** SQLite: checkpoints of the WAL the checkpointer ran, off the event loop; PostgreSQL: none (the server's own). */
  checkpoints: number;
}

export interface Store {
  readonly dialect: Dialect;
  /**
   * Reads outside writes. Inside a write function it throws: there the write's handle is the way in. Its type is
   * drizzle's SQLite database; on PostgreSQL it is drizzle's node-postgres database over the same table objects,
   * whose builders agree at run time. What only the SQLite dialect has (`.get()`, `.all()`, `.run()`,
   * `.values()`, `db.all(sql)`) is therefore never used: await the builder (test/architecture/dialect.test.ts).
   */
  readonly db: Db;
  readonly clock: () => Date;
  /**
   * Runs `fn` atomically with the write lock taken up front (BEGIN IMMEDIATE), so a count read inside it
   * cannot be passed by a concurrent writer. `fn` may await its handle and nothing else: it must settle
   * before the microtask queue drains, or it fails with WriteContractError and its changes roll back. Writes
   * that arrive in the same turn of the event loop share one commit (group commit, GROUP_LIMIT at most), each
   * in a savepoint of its own: one that throws rolls back alone, and each promise settles only after the
   * commit is on disk, a wait that holds no turn of the event loop. When the database rolls back the whole
   * transaction (disk full, I/O error, a deferred constraint at COMMIT), every write of the group fails with
   * WriteAbortedError and nothing of it commits.
   */
  write<T>(fn: (tx: Tx) => Promise<T>, opts?: WriteOptions): Promise<T>;
  /** Builds a query once per store and reuses it: drizzle otherwise rebuilds the SQL text and SQLite
   * re-prepares the statement on every call, which dominated the hot read paths. Bulk reads whose row
   * mapping is the cost (a zone of 100,000 rrsets) go through `raw` instead. Read side, like `db`. */
  prepared<T>(key: string, build: (db: Db) => T): T;
  /**
   * Raw SQL on the read side, for the hot reads whose row mapping through drizzle is the cost (a zone of 100,000
   * rrsets). `text` is written once for both databases, with `?` for each parameter (PostgreSQL's `$n` are
   * numbered from them); the statement is prepared once per store under `key`. Rows come with the columns'
   * names as the database gives them.
   */
  raw<R>(key: string, text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Calls `listener` after each commit of `write`, synchronously: the change feed announces this process's
   * changes through it (store/feed.ts `onChanges`). SQLite: at COMMIT, while the WAL is being synced and before
   * the writers are answered (what other connections read from COMMIT on); PostgreSQL: once COMMIT returned. A
   * listener must not throw. Returns the unsubscribe. */
  onCommit(listener: () => void): () => void;
  /** Resolves once every commit this process can read so far is on disk, but its own writes made with `durable:
   * false` (observations the service derives again), and rejects when that cannot be made sure. SQLite: the WAL sync
   * of its last durable commit, or a sync of its own when another process (`api` beside `core`, the admin CLI)
   * committed since the last one, whose writers may not have synced yet; once a sync has failed, it rejects until the
   * store is opened again. PostgreSQL: a flush transaction of its own committed, since a write is visible before its
   * flush. What may only act on durable state waits for it: the zone reconciler's nameserver commit, which a crash of
   * the machine could otherwise leave serving, and notifying secondaries of, a write the store lost. */
  synced(): Promise<void>;
  /**
   * Calls `listener` when another process may have committed (a `core` beside this `api`, the admin CLI, another
   * replica): what `onCommit` cannot tell. SQLite: its `data_version` moved (read every OTHER_COMMITS_POLL_MS while
   * anyone listens); PostgreSQL: a notification on a channel every write sends at its commit, and once more each
   * time the listening connection is in place, the first time included (commits before it are not notified to it,
   * and notifications while it was lost are lost). A hint to read again,
   * never the change itself. Returns the unsubscribe; nothing runs while nobody listens.
   */
  onOtherCommits(listener: () => void): () => void;
  /** Counts since the store opened. */
  stats(): WriteStats;
  close(): void;
}

/** How often SQLite's `data_version` is read while someone listens for other processes' commits. */
export const OTHER_COMMITS_POLL_MS = 100;

/** Listeners that share one watch, started with the first and stopped with the last. */
export function sharedWatch(start: (fire: () => void) => () => void): (listener: () => void) => () => void {
  const listeners = new Set<() => void>();
  let stop: (() => void) | undefined;
  const fire = (): void => {
    for (const l of listeners) l();
  };
  return (listener) => {
    listeners.add(listener);
    stop ??= start(fire);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && stop) {
        stop();
        stop = undefined;
      }
    };
  };
}

/** The statement under `key` in `cache`, built on first use: statements are prepared once per store (or connection). */
export const cached = <T>(cache: Map<string, unknown>, key: string, build: () => T): T => {
  let q = cache.get(key) as T | undefined;
  if (q === undefined) {
    q = build();
    cache.set(key, q);
  }
  return q;
};

/** Writes per transaction at most; the rest wait for the next one. It bounds how long a commit holds the write
 * lock, and how many requests one transaction the database rolls back takes with it. */
export const GROUP_LIMIT = 256;

/** A write function broke the write contract: it awaited something other than its handle, or used the store
 * itself instead of its handle. */
export class WriteContractError extends Error {
  override name = 'WriteContractError';
}

/** The database rolled back the whole transaction this write was part of: nothing of it committed. */
export class WriteAbortedError extends Error {
  override name = 'WriteAbortedError';
  constructor(cause: unknown) {
    super(`the store rolled back the transaction of this write: ${messageOf(cause)}`, { cause });
  }
}

/** The database cannot be reached now (PostgreSQL stopped, the network gone): nothing of the write committed, or
 * for a lost COMMIT nothing is known of it. The API answers 503 `store_unavailable` with Retry-After. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}

/** The error of class `type` in `e`'s chain of causes: drizzle wraps what a query threw in an error of its own. */
export function causeOf<T extends Error>(e: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  return causesOf(e).find((c): c is T => c instanceof type);
}

/** The code of the driver's error under `e`: drizzle wraps a failed query's error in one of its own (its `cause`). */
export function driverCode(e: unknown): string | undefined {
  for (const c of causesOf(e)) {
    const code = (c as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Text PostgreSQL cannot store: U+0000 in a text parameter (22021) or a JSON value cast to jsonb (22P05). SQLite
 * stores it. Only a request's own input carries it there, so the API answers 400 for a field its schema let through. */
export const isTextRefused = (e: unknown): boolean => {
  const code = driverCode(e);
  return code === '22021' || code === '22P05';
};

/** A unique or primary key violation, as either store's driver reports it. */
export const isUniqueViolation = (e: unknown): boolean => {
  const code = driverCode(e);
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
};

const EXECUTES = new Set<PropertyKey>(['run', 'get', 'all', 'iterate']);

/** The connection with `check` run before every statement executes through it. */
function guarded(sqlite: Database.Database, check: () => void): Database.Database {
  const statement = (stmt: Database.Statement): Database.Statement => {
    const methods = new Map<PropertyKey, unknown>();
    const proxy: Database.Statement = new Proxy(stmt, {
      get(target, prop) {
        const v: unknown = Reflect.get(target, prop, target);
        if (typeof v !== 'function') return v;
        let m = methods.get(prop);
        if (m === undefined) {
          const f = v as (...args: unknown[]) => unknown;
          // raw(), pluck() and bind() answer the statement itself: keep answering the checked one.
          m = EXECUTES.has(prop)
            ? (...args: unknown[]) => {
              check();
              return f.apply(target, args);
            }
            : (...args: unknown[]) => {
              const r = f.apply(target, args);
              return r === target ? proxy : r;
            };
          methods.set(prop, m);
        }
        return m;
      },
    });
    return proxy;
  };
  const methods = new Map<PropertyKey, unknown>();
  const proxy: Database.Database = new Proxy(sqlite, {
    get(target, prop) {
      if (prop === 'prepare') return (source: string) => statement(target.prepare(source));
      if (prop === 'exec') {
        return (source: string) => {
          check();
          target.exec(source);
          return proxy;
        };
      }
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function' || prop === 'constructor') return v;
      let m = methods.get(prop);
      if (m === undefined) {
        m = (v as (...args: unknown[]) => unknown).bind(target);
        methods.set(prop, m);
      }
      return m;
    },
  });
  return proxy;
}

/**
 * Resolves once the microtask queue has drained. Node runs a process.nextTick callback queued from a microtask
 * only after the queue is empty, and from then on nothing but the event loop can settle a pending promise.
 */
const drained = (): Promise<void> => new Promise((resolve) => queueMicrotask(() => process.nextTick(resolve)));

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** The store's file in a data dir. */
export const STORE_FILE = 'hostplane.db';

export interface OpenStoreOptions {
  /** false: a data dir without a store is an error, and nothing is created (the admin CLI). Default true. */
  create?: boolean;
  clock?: () => Date;
  /** WAL frames past which the checkpointer copies them into the database file (store/checkpointer.ts). */
  checkpointFrames?: number;
}

type Outcome = ({ ok: true; value: unknown } | { ok: false; error: unknown }) & { after?: (() => void)[] };
type Pending = { fn: (tx: Tx) => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void; durable: boolean };

/** Opens (and migrates) the SQLite store in `dataDir/hostplane.db`, creating it unless `create` is false;
 * `:memory:` for tests that need no file. */
export function openStore(dataDir: string | ':memory:', opts: OpenStoreOptions = {}): Store {
  const clock = opts.clock ?? (() => new Date());
  let file = ':memory:';
  if (dataDir !== ':memory:') {
    file = join(dataDir, STORE_FILE);
    if (opts.create === false && !existsSync(file)) {
      throw new Error(`no store in ${dataDir} (${file} does not exist): \`hostplane admin --data ${dataDir} init\` creates an empty one, and serve creates one on first start`);
    }
    // The store holds emails, token hashes and the audit log: only the service's user may read it. Modes are
    // set on existing paths too, for data dirs made before this rule.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
    closeSync(openSync(file, 'a', 0o600));
    // SQLite gives the -wal and -shm files the database file's mode.
    chmodSync(file, 0o600);
  }
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL alone can lose an acknowledged commit on power loss, and FULL fsyncs the WAL inside COMMIT, which
  // holds the event loop for the disk: 1 ms, and 10 to 75 ms on a busy disk, a fifth of the loop's time under
  // concurrent writes (bench/api.ts, PUT at 8 connections), in which no request was read and no zone served.
  // So commits run at NORMAL (SQLite still syncs the WAL before a checkpoint and its header when it is reused),
  // and a durable group's writers are answered once the WAL is synced off the loop (syncWal): FULL's promise.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // Another process (api beside core) may hold the write lock for a moment: wait instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  const checkpointer = file === ':memory:' ? null : startCheckpointer(sqlite, opts.checkpointFrames);
  /** A check for a checkpoint is due after this turn (the commits of a turn need one). */
  let checkAhead = false;

  /** Whether a write function runs now. A group runs within one turn of the event loop, so nothing else does. */
  let running = false;
  /** What the running write asked to run once it has committed (Tx.afterCommit). */
  let afterThis: (() => void)[] = [];
  // On SQLite the read side and the write side share the connection, so a write function reading through
  // `s.db` would see its own transaction; on PostgreSQL it would read outside it. Both sides refuse the other's
  // moment, so that mistake fails here, in tests, and not first on PostgreSQL.
  const readSide = guarded(sqlite, () => {
    if (running) throw new WriteContractError('a write function used the store itself: inside a write, queries go through its transaction handle');
  });
  const writeSide = guarded(sqlite, () => {
    if (!running) throw new WriteContractError('a transaction handle was used outside its write function (after an await of something else, or after it settled)');
    // A statement run after the database rolled the transaction back would commit on its own.
    if (!sqlite.inTransaction) throw new WriteAbortedError('the transaction is no longer open');
  });
  const db = drizzle(readSide, { schema });
  // drizzle reads the applied migrations before its BEGIN, so two processes starting on a fresh data dir at
  // once (`api` beside `core`, or the admin CLI beside `serve`) can both try to apply them, and the loser
  // fails on "table already exists". Running it again reads the winner's record and applies nothing.
  for (let attempt = 1; ; attempt++) {
    try {
      migrate(db, { migrationsFolder });
      break;
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
  runDataMigrations(sqlite);

  const statements = new Map<string, unknown>();
  const writeStatements = new Map<string, unknown>();
  const wdb = drizzle(writeSide, { schema });
  const rawQuery = (cache: Map<string, unknown>, side: Database.Database) => async <R>(key: string, text: string, params: readonly unknown[] = []): Promise<R[]> => {
    const st = cached(cache, `raw ${key}`, () => side.prepare<unknown[], R>(text));
    // The driver refuses all() for a statement without rows; RETURNING only to have rows cost a bulk insert of
    // 40,000 rows a third of its time.
    if (st.reader) return st.all(...params);
    st.run(...params);
    return [];
  };
  const tx: Tx = Object.assign(wdb, {
    prepared: <T>(key: string, build: (db: Db) => T): T => cached(writeStatements, key, () => build(wdb)),
    raw: rawQuery(writeStatements, writeSide),
    afterCommit: (fn: () => void): void => {
      if (!running) throw new WriteContractError('afterCommit was called outside a write function');
      afterThis.push(fn);
    },
    lock: async (): Promise<void> => {
      if (!running) throw new WriteContractError('a lock was taken outside a write function');
    },
  });

  const commitListeners = new Set<() => void>();
  const stats: Omit<WriteStats, 'checkpoints'> = { commits: 0, lazyCommits: 0, writes: 0, aborts: 0, syncs: 0 };
  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const commit = sqlite.prepare('COMMIT');
  const rollback = sqlite.prepare('ROLLBACK');
  const savepoint = sqlite.prepare('SAVEPOINT write');
  const release = sqlite.prepare('RELEASE write');
  const rollbackTo = sqlite.prepare('ROLLBACK TO write');
  /** The WAL file, opened at the first durable commit (the commit has made it); none in memory. */
  let walFd: number | null = null;
  /** Syncs in flight: close() lets them finish on the file. */
  let syncing = 0;
  let closeWhenSynced = false;
  /** The last sync begun (a durable group's, or synced()'s: groups sync one after another), which covers every commit
   * made before it. */
  let lastSync: Promise<void> = Promise.resolve();
  // data_version moves when another connection commits, and only then.
  const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
  /** The data_version as of the last sync begun for other processes' commits (the one at open below). */
  let othersSynced: unknown = dataVersion.get();
  /** `p` with a handler, so that a failed sync nobody awaits is no unhandled rejection; awaiting it still throws. */
  const handled = (p: Promise<void>): Promise<void> => {
    p.catch(() => undefined);
    return p;
  };
  /** The first sync that failed. Linux reports a failed writeback once per open file and marks its pages clean, so
   * a later sync of the WAL succeeds without them: from then on nothing says that what readers see is on disk, and
   * synced() rejects until the store is opened again (PostgreSQL stops at a failed fsync for the same reason). */
  let syncFailure: Error | null = null;
  const syncWal = (): Promise<void> => {
    if (file === ':memory:') return Promise.resolve();
    // SQLite removes the WAL only when the last connection to the store closes, and this one is open: the file
    // stays the one SQLite writes to.
    walFd ??= openSync(`${file}-wal`, 'r');
    const fd = walFd;
    syncing++;
    stats.syncs++;
    return new Promise<void>((resolve, reject) => {
      fdatasync(fd, (e) => {
        syncing--;
        if (closeWhenSynced && syncing === 0) closeSync(fd);
        if (e) {
          syncFailure ??= e;
          reject(e);
        } else resolve();
      });
    });
  };
  // What another process committed before this store opened may not be on disk yet.
  if (file !== ':memory:' && existsSync(`${file}-wal`)) lastSync = handled(syncWal());

  /** Runs one write in its savepoint; when the database has rolled the whole transaction back meanwhile, there is
   * no savepoint left to release, and the caller fails the group. */
  const runOne = async (w: Pending): Promise<Outcome> => {
    savepoint.run();
    afterThis = [];
    running = true;
    let outcome: Outcome | undefined;
    try {
      Promise.resolve(w.fn(tx)).then((value) => { outcome = { ok: true, value }; }, (error: unknown) => { outcome = { ok: false, error }; });
    } catch (error) {
      outcome = { ok: false, error };
    }
    await drained();
    running = false;
    if (!outcome) {
      // Whatever it waits for would resume it outside the transaction; its handle already refuses that.
      outcome = { ok: false, error: new WriteContractError('the write function awaited something other than its transaction handle; it was rolled back') };
    }
    if (!sqlite.inTransaction) return outcome;
    if (!outcome.ok) rollbackTo.run();
    release.run();
    return outcome.ok ? { ...outcome, after: afterThis } : outcome;
  };

  /** One transaction: each write in turn, then one commit; a failure of the transaction itself fails them all. */
  const runGroup = async (given: Pending[]): Promise<void> => {
    // Once a sync failed, no later one says that the pages it covered reached the disk (syncFailure): a write that
    // must be durable is refused unrun, rather than answered as durable on a log that may have lost some of its
    // pages. One that need not be still commits.
    let group = given;
    if (syncFailure) {
      const refused = new StoreUnavailableError(`a sync of the store's log failed (${syncFailure.message}): it takes no durable write until it is opened again`, syncFailure);
      for (const w of given) if (w.durable) w.reject(refused);
      group = given.filter((w) => !w.durable);
      if (group.length === 0) return;
    }
    const outcomes: Outcome[] = [];
    let failure: { error: unknown } | undefined;
    const lazy = group.every((w) => !w.durable);
    try {
      begin.run();
      for (const w of group) {
        const o = await runOne(w);
        // SQLite rolls the whole transaction back on some errors (SQLITE_FULL, SQLITE_IOERR): what the writes
        // before did is gone, and a SAVEPOINT would open a transaction of its own.
        if (!sqlite.inTransaction) {
          failure = { error: o.ok ? new Error('the database rolled the transaction back') : o.error };
          break;
        }
        outcomes.push(o);
      }
      if (!failure) commit.run();
    } catch (error) {
      failure = { error };
    }
    if (failure) {
      stats.aborts++;
      const error = new WriteAbortedError(failure.error);
      for (const w of group) w.reject(error);
      // A failed COMMIT (a deferred foreign key) leaves the transaction open.
      if (sqlite.open && sqlite.inTransaction) rollback.run();
      return;
    }
    // The sync is under way before the commit is announced: what the announcement wakes (the zone reconciler's
    // pass, its nameserver transaction sent but for the commit, which waits for `synced()`) runs while the disk
    // syncs instead of after it. Other connections read the commit from here on anyway; only its writers' answers
    // wait for the disk.
    const synced = lazy ? null : syncWal();
    if (synced) lastSync = handled(synced);
    stats.commits++;
    if (lazy) stats.lazyCommits++;
    stats.writes += group.length;
    for (const o of outcomes) for (const fn of o.after ?? []) fn();
    for (const l of commitListeners) l();
    // After what the commit wakes has run (a zone's pass, its nameserver transaction sent in this turn's
    // microtasks): a checkpoint is never urgent, and the check reads the wal-index from its file.
    if (checkpointer && !checkAhead) {
      checkAhead = true;
      setImmediate(() => {
        checkAhead = false;
        checkpointer.committed();
      });
    }
    if (synced) {
      // The next group waits for this sync: writes arriving meanwhile gather into it, one sync for them all.
      try {
        await synced;
      } catch (error) {
        const unsynced = new Error(`the store committed this write but could not sync it to disk: ${(error as Error).message}`, { cause: error });
        for (const w of group) w.reject(unsynced);
        return;
      }
    }
    group.forEach((w, i) => {
      const o = outcomes[i]!;
      if (o.ok) w.resolve(o.value);
      else w.reject(o.error);
    });
  };

  // Every durable commit waits for the disk; one commit per batch of concurrent writes is what
  // lets throughput grow with concurrency instead of queueing behind one fsync per request.
  const queue: Pending[] = [];
  let scheduled = false;
  const flush = (): void => {
    void runGroup(queue.splice(0, GROUP_LIMIT)).finally(() => {
      if (queue.length > 0) setImmediate(flush);
      else scheduled = false;
    });
  };

  return {
    db,
    clock,
    write: <T>(fn: (tx: Tx) => Promise<T>, opts: WriteOptions = {}) => new Promise<T>((resolve, reject) => {
      // A write started from inside another would commit apart from it (in the next group, even when the outer
      // one rolls back): a store function called inside a write must take its transaction handle instead.
      if (running) {
        reject(new WriteContractError('a write was started inside another write function: pass its transaction handle instead'));
        return;
      }
      queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, durable: opts.durable !== false });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    }),
    dialect: 'sqlite' as const,
    prepared: <T>(key: string, build: (db: Db) => T): T => cached(statements, key, () => build(db)),
    raw: rawQuery(statements, readSide),
    synced: () => {
      if (syncFailure) return Promise.reject(syncFailure);
      const version = sqlite.open ? dataVersion.get() : othersSynced;
      if (version !== othersSynced) {
        othersSynced = version;
        // The sync under way still answers for what it covers: a failure of it must not be hidden by this one.
        lastSync = handled(Promise.all([lastSync, syncWal()]).then(() => undefined));
      }
      return lastSync;
    },
    onCommit: (listener: () => void) => {
      commitListeners.add(listener);
      return () => {
        commitListeners.delete(listener);
      };
    },
    onOtherCommits: sharedWatch((fire) => {
      let seen = dataVersion.get();
      const timer = setInterval(() => {
        if (!sqlite.open || running) return;
        const now = dataVersion.get();
        if (now !== seen) {
          seen = now;
          fire();
        }
      }, OTHER_COMMITS_POLL_MS);
      timer.unref();
      return () => clearInterval(timer);
    }),
    stats: () => ({ ...stats, checkpoints: checkpointer?.count() ?? 0 }),
    close: () => {
      if (sqlite.open) sqlite.close();
      checkpointer?.close();
      if (walFd !== null && !closeWhenSynced) {
        closeWhenSynced = true;
        if (syncing === 0) closeSync(walFd);
      }
    },
  };
}

/** Without the milliseconds, which toISOString always ends with (`.sssZ`, whatever the year): several per write. */
export const iso = (d: Date): string => `${d.toISOString().slice(0, -5)}Z`;
