import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runDataMigrations } from './data-migrations';
import * as schema from './schema';

export type Db = BetterSQLite3Database<typeof schema>;
/** A drizzle transaction handle; store modules take it so one API write can span several tables. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Store {
  readonly db: Db;
  readonly clock: () => Date;
  /**
   * Runs `fn` atomically with the write lock taken up front (BEGIN IMMEDIATE), so a count read inside it
   * cannot be passed by a concurrent writer. Writes that arrive in the same turn of the event loop share one
   * commit (group commit), each in a savepoint of its own: one that throws rolls back alone, and each
   * promise settles only after the commit is on disk.
   */
  write<T>(fn: (tx: Tx) => T): Promise<T>;
  /** Builds a query once per store and reuses it: drizzle otherwise rebuilds the SQL text and SQLite
   * re-prepares the statement on every call, which dominated the hot read paths. Bulk reads whose row
   * mapping is the cost (a zone of 100,000 rrsets) may prepare on the driver itself. */
  prepared<T>(key: string, build: (db: Db, sqlite: Database.Database) => T): T;
  close(): void;
}

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Opens (and migrates) the SQLite store in `dataDir/hostplane.db`; `:memory:` for tests that need no file. */
export function openStore(dataDir: string | ':memory:', clock: () => Date = () => new Date()): Store {
  let file = ':memory:';
  if (dataDir !== ':memory:') {
    // The store holds emails, token hashes and the audit log: only the service's user may read it. Modes are
    // set on existing paths too, for data dirs made before this rule.
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    chmodSync(dataDir, 0o700);
    file = join(dataDir, 'hostplane.db');
    closeSync(openSync(file, 'a', 0o600));
    // SQLite gives the -wal and -shm files the database file's mode.
    chmodSync(file, 0o600);
  }
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // WAL's default NORMAL can lose an acknowledged commit on power loss; FULL fsyncs the WAL on every commit.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // Another process (api beside core) may hold the write lock for a moment: wait instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  const db = drizzle(sqlite, { schema });
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
  // With synchronous=FULL every commit waits for the disk; one commit per batch of concurrent writes is what
  // lets throughput grow with concurrency instead of queueing behind one fsync per request.
  type Pending = { fn: (tx: Tx) => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void };
  let pending: Pending[] = [];
  const flush = (): void => {
    const batch = pending;
    pending = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      db.transaction((tx) => {
        for (const item of batch) {
          try {
            outcomes.push({ ok: true, value: tx.transaction(item.fn) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      }, { behavior: 'immediate' });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const o = outcomes[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.error);
    });
  };
  return {
    db,
    clock,
    write: <T>(fn: (tx: Tx) => T) => new Promise<T>((resolve, reject) => {
      pending.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (pending.length === 1) setImmediate(flush);
    }),
    prepared: <T>(key: string, build: (db: Db, sqlite: Database.Database) => T): T => {
      let q = statements.get(key) as T | undefined;
      if (q === undefined) {
        q = build(db, sqlite);
        statements.set(key, q);
      }
      return q;
    },
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}

export const iso = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
