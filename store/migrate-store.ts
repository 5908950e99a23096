/**
 * Moving an installation from its SQLite store to PostgreSQL (`hostplane admin migrate-store`, docs/operations.md):
 * every table of store/schema.ts copied into an empty database, in one PostgreSQL transaction so that a failure
 * half way leaves the target as empty as it was. The copy records where it came from (`store_meta`): run again on
 * the same source it does nothing, and no other source is copied over it.
 */
import Database from 'better-sqlite3';
import { createHash, type Hash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { getTableName, is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { DataDirLockedError, lockDataDir } from '../lib/datadir-lock';
import { badRequest, conflict } from '../lib/errors';
import { iso, openStore, STORE_FILE, type Tx } from './db';
import { openPgStore, redactUrl } from './db-pg';
import * as schema from './schema';

/** The `store_meta` key of the record a copy leaves in its target. */
export const COPIED_FROM = 'copied_from_sqlite';

/** PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMETERS = 65_535;
const BATCH_ROWS = 1000;

export interface TableCopy {
  name: string;
  columns: string[];
  /** The primary key's columns: rows are read in its order, so that two reads of one store digest alike. */
  key: string[];
  /** The autoincrement column, whose PostgreSQL identity must continue past the ids SQLite handed out. */
  identity: string | undefined;
}

const quoted = (name: string): string => `"${name}"`;

/** Every table of store/schema.ts, each after the tables its foreign keys reference: PostgreSQL checks a foreign
 * key at each insert. Derived from the schema, so that a new table is copied without a word here. */
export function copyOrder(): TableCopy[] {
  const tables = (Object.values(schema) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable));
  const byName = new Map<string, SQLiteTable>(tables.map((t) => [getTableName(t), t]));
  const ordered: TableCopy[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (t: SQLiteTable): void => {
    const config = getTableConfig(t);
    if (state.get(config.name) === 'done') return;
    if (state.get(config.name) === 'visiting') throw new Error(`store/schema.ts: foreign keys form a cycle through ${config.name}`);
    state.set(config.name, 'visiting');
    for (const fk of config.foreignKeys) {
      const referenced = getTableName(fk.reference().foreignTable);
      if (referenced !== config.name) visit(byName.get(referenced)!);
    }
    const columns = config.columns as SQLiteColumn[];
    const compositeKey = config.primaryKeys[0]?.columns.map((c) => c.name);
    ordered.push({
      name: config.name,
      columns: columns.map((c) => c.name),
      key: compositeKey ?? columns.filter((c) => c.primary).map((c) => c.name),
      identity: columns.find((c) => (c as SQLiteColumn & { autoIncrement?: boolean }).autoIncrement === true)?.name,
    });
    state.set(config.name, 'done');
  };
  tables.forEach(visit);
  return ordered;
}

/** The source's rows of one table in key order, in batches a single INSERT can take. */
function* batchesOf(source: Database.Database, t: TableCopy): Generator<unknown[][]> {
  const order = (t.key.length > 0 ? t.key : t.columns).map(quoted).join(', ');
  const rows = source.prepare(`SELECT ${t.columns.map(quoted).join(', ')} FROM ${quoted(t.name)} ORDER BY ${order}`).raw().iterate() as IterableIterator<unknown[]>;
  const size = Math.min(BATCH_ROWS, Math.floor(MAX_PARAMETERS / t.columns.length));
  let batch: unknown[][] = [];
  for (const row of rows) {
    batch.push(row);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** What the source holds, digested row by row: a target that records the same digest is a copy of it as it is. */
const digestRows = (hash: Hash, table: string, batch: unknown[][]): void => {
  for (const row of batch) hash.update(`${JSON.stringify([table, ...row])}\n`);
};

function digestOf(source: Database.Database, tables: TableCopy[]): string {
  const hash = createHash('sha256');
  for (const t of tables) for (const batch of batchesOf(source, t)) digestRows(hash, t.name, batch);
  return hash.digest('hex');
}

/** Where an identity must continue: past every id SQLite ever handed out (`sqlite_sequence` remembers the ids of
 * rows deleted since, as the pruned feed's), so that no id of a deleted row comes back. */
function lastId(source: Database.Database, t: TableCopy & { identity: string }): number {
  const row = source.prepare(`SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0), coalesce((SELECT max(${quoted(t.identity)}) FROM ${quoted(t.name)}), 0)) AS id`)
    .get(t.name) as { id: number };
  return row.id;
}

export interface CopiedFrom {
  digest: string;
  /** The data dir it was copied from, as its real path then. */
  from: string;
  tables: Record<string, number>;
  rows: number;
  /** The change feed's position: the last sequence number handed out, which the next change follows. */
  feedSeq: number;
}

export interface MigrateResult extends Omit<CopiedFrom, 'digest'> {
  /** The target without its password. */
  to: string;
  /** False: the target held this source's copy already, and nothing was done. */
  copied: boolean;
  at: string;
}

type Outcome = { copied: CopiedFrom } | { occupied: string[]; record: { value: CopiedFrom; at: string } | undefined };

async function copyInto(tx: Tx, source: Database.Database, tables: TableCopy[], from: string): Promise<Outcome> {
  // Two copies into one database at once: the second waits, then finds the first one's rows.
  await tx.lock('hostplane/migrate-store');
  const occupied = (await tx.raw<{ name: string }>('migrate-store occupied', tables
    .map((t) => `SELECT '${t.name}' AS name WHERE EXISTS (SELECT 1 FROM ${quoted(t.name)})`).join(' UNION ALL '))).map((r) => r.name);
  if (occupied.length > 0) {
    const [record] = await tx.raw<{ value: string; at: string }>('migrate-store record', 'SELECT value, at FROM store_meta WHERE key = ?', [COPIED_FROM]);
    return { occupied, record: record && { value: JSON.parse(record.value) as CopiedFrom, at: record.at } };
  }
  const hash = createHash('sha256');
  const counts: Record<string, number> = {};
  let feedSeq = 0;
  for (const t of tables) {
    let n = 0;
    for (const batch of batchesOf(source, t)) {
      const row = `(${t.columns.map(() => '?').join(', ')})`;
      await tx.raw(`migrate-store ${t.name} ${batch.length}`, `INSERT INTO ${quoted(t.name)} (${t.columns.map(quoted).join(', ')}) VALUES ${batch.map(() => row).join(', ')}`, batch.flat());
      digestRows(hash, t.name, batch);
      n += batch.length;
    }
    counts[t.name] = n;
    if (t.identity) {
      const id = lastId(source, { ...t, identity: t.identity });
      // A sequence starts at 1: an empty table that never handed out an id has nothing to continue from.
      if (id > 0) await tx.raw('migrate-store setval', 'SELECT setval(pg_get_serial_sequence(?, ?), ?)', [t.name, t.identity, id]);
      if (t.name === getTableName(schema.changes)) feedSeq = id;
    }
  }
  const copied: CopiedFrom = {
    digest: hash.digest('hex'), from, tables: counts, rows: Object.values(counts).reduce((a, b) => a + b, 0), feedSeq,
  };
  return { copied };
}

/**
 * Copies the SQLite store of `dataDir` into the empty PostgreSQL database of `url`. The data dir is locked meanwhile
 * (a running serve or core refuses the copy: stop it first), the source is brought to this version's schema as
 * serve would at its start, then read in one read transaction: a consistent copy even if an `api` process wrote.
 */
export async function migrateStore(dataDir: string, url: string, clock: () => Date = () => new Date()): Promise<MigrateResult> {
  const file = join(dataDir, STORE_FILE);
  if (!existsSync(file)) throw badRequest(`no SQLite store in ${dataDir} (${file} does not exist)`);
  let lock;
  try {
    lock = lockDataDir(dataDir);
  } catch (e) {
    if (e instanceof DataDirLockedError) throw conflict('data_dir_in_use', `${e.message}: stop it before moving its store`);
    throw e;
  }
  try {
    openStore(dataDir, { create: false }).close();
    const source = new Database(file, { readonly: true, fileMustExist: true });
    try {
      source.exec('BEGIN');
      const tables = copyOrder();
      const target = await openPgStore(url, { clock });
      try {
        const from = realpathSync(dataDir);
        const at = iso(clock());
        const outcome = await target.write(async (tx) => {
          const o = await copyInto(tx, source, tables, from);
          if ('copied' in o) {
            await tx.raw('migrate-store mark', 'INSERT INTO store_meta (key, value, at) VALUES (?, ?, ?)', [COPIED_FROM, JSON.stringify(o.copied), at]);
          }
          return o;
        });
        const to = redactUrl(url);
        const result = ({ digest: _digest, ...c }: CopiedFrom, copied: boolean, when: string): MigrateResult => ({ to, ...c, copied, at: when });
        if ('copied' in outcome) return result(outcome.copied, true, at);
        const { occupied, record } = outcome;
        if (record && record.value.digest === digestOf(source, tables)) return result(record.value, false, record.at);
        const why = record
          ? `it holds a copy of another SQLite store, or of this one before it changed (copied ${record.at} from ${record.value.from})`
          : `it holds rows in ${occupied.join(', ')}`;
        throw conflict('target_not_empty', `the database ${to} is not empty: ${why}; migrate-store copies into an empty database only`);
      } finally {
        target.close();
      }
    } finally {
      source.close();
    }
  } finally {
    lock.release();
  }
}
