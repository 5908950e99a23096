/**
 * The store tests run on: SQLite unless HOSTPLANE_TEST_STORE=postgres, in which case test/global-setup.ts has
 * started one throw-away PostgreSQL cluster for the run and every data dir (or in-memory store) gets a database
 * of its own on it, as an installation with `--database-url` would.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { openStore, type OpenStoreOptions, type Store } from '../../store/db';
import { openPgStore } from '../../store/db-pg';

/** Set by test/global-setup.ts for the PostgreSQL pass: the cluster's socket dir. */
export const PG_SOCKET_ENV = 'HOSTPLANE_TEST_PG_SOCKET';
export const onPostgres = (): boolean => process.env.HOSTPLANE_TEST_STORE === 'postgres';

const urlOf = (database: string): string => `postgres://hostplane@localhost/${database}?host=${encodeURIComponent(process.env[PG_SOCKET_ENV]!)}`;

const made = new Map<string, Promise<string>>();
let fresh = 0;

async function createDatabase(name: string): Promise<void> {
  const c = new pg.Client({ host: process.env[PG_SOCKET_ENV], user: 'hostplane', database: 'postgres' });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE "${name}"`);
  } catch (e) {
    // Another test process made it first for the same data dir.
    if ((e as { code?: string }).code !== '42P04') throw e;
  } finally {
    await c.end();
  }
}

/** The database of a data dir on the test cluster (made on first use), or a new one for `:memory:`. */
export function databaseUrlFor(dir: string | ':memory:'): Promise<string> {
  const name = dir === ':memory:'
    ? `m${process.pid}_${++fresh}`
    : `d${createHash('sha1').update(resolve(dir)).digest('hex').slice(0, 20)}`;
  let url = made.get(name);
  if (!url) {
    url = createDatabase(name).then(() => urlOf(name));
    made.set(name, url);
  }
  return url;
}

/** The environment a hostplane process started on `dir` needs to find its store in this pass. */
export async function storeEnv(dir: string | undefined): Promise<NodeJS.ProcessEnv> {
  return onPostgres() && dir ? { HOSTPLANE_DATABASE_URL: await databaseUrlFor(dir) } : {};
}

/** The store of `dir` in this pass. */
export async function openTestStore(dir: string | ':memory:' = ':memory:', opts: OpenStoreOptions = {}): Promise<Store> {
  if (!onPostgres()) return openStore(dir, opts);
  return openPgStore(await databaseUrlFor(dir), opts.clock ? { clock: opts.clock } : {});
}

/**
 * What a backup or a stolen disk of the store of `dir` would hold, for scans that a value never reached it. SQLite:
 * its files (database and WAL). PostgreSQL: the database's files after a checkpoint (rows deleted but not yet
 * vacuumed included), and every row of every table as text, because a long value may sit there compressed.
 */
export async function storeBytes(s: Store, dir: string): Promise<Buffer> {
  if (s.dialect === 'sqlite') {
    const files = readdirSync(dir).filter((f) => f.startsWith('hostplane.db'));
    if (files.length === 0) throw new Error(`no store files in ${dir}`);
    return Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
  }
  await s.raw('test checkpoint', 'CHECKPOINT');
  const [where] = await s.raw<{ dir: string; oid: number }>('test database files',
    "SELECT current_setting('data_directory') AS dir, oid::int AS oid FROM pg_database WHERE datname = current_database()");
  const base = join(where!.dir, 'base', String(where!.oid));
  const files = readdirSync(base).map((f) => readFileSync(join(base, f)));
  const tables = await s.raw<{ name: string }>('test tables', "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
  for (const { name } of tables) {
    const rows = await s.raw<{ row: string }>(`test dump ${name}`, `SELECT t::text AS row FROM "${name}" t`);
    files.push(Buffer.from(rows.map((r) => r.row).join('\n')));
  }
  return Buffer.concat(files);
}
