/** Both stores hold the same tables: the PostgreSQL schema is derived from the SQLite one, and its migrations must
 * have been generated again after every change of it (`npm run db:generate`). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTableName, is } from 'drizzle-orm';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { openStore, type Store } from '../../store/db';
import { openPgStore } from '../../store/db-pg';
import * as sqliteSchema from '../../store/schema';
import * as pgSchema from '../../store/schema-pg';
import { createOrg } from '../../store/accounts';
import { createZone, listZones } from '../../store/zones';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';

const sqliteTables = Object.entries(sqliteSchema).filter(([, t]) => is(t, SQLiteTable)) as [string, SQLiteTable][];

it('store/schema-pg.ts exports every table of store/schema.ts under the same name (drizzle-kit reads its exports)', () => {
  for (const [name, t] of sqliteTables) {
    expect(pgSchema, name).toHaveProperty(name, pgSchema.pgTables.get(getTableName(t)));
  }
});

const missing = postgresMissing();
describe.skipIf(missing)(`the migrated PostgreSQL database${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let cluster: Cluster;
  let pg: Store;
  let lite: Store;
  beforeAll(async () => {
    cluster = await startCluster();
    pg = await openPgStore(await cluster.createDatabase());
    lite = openStore(':memory:');
  }, 60_000);
  afterAll(async () => {
    pg?.close();
    lite?.close();
    await cluster?.destroy();
  });

  type Column = { name: string; notNull: boolean };
  it.each(sqliteTables.map(([, t]) => getTableName(t)))('%s has the same columns, nullability and key on both', async (table) => {
    const liteCols = await lite.raw<{ name: string; notnull: number; pk: number }>(`cols ${table}`, `SELECT name, "notnull", pk FROM pragma_table_info('${table}')`);
    const pgCols = await pg.raw<{ name: string; nullable: string }>('pg columns', `SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = ? ORDER BY ordinal_position`, [table]);
    const pgKey = await pg.raw<{ name: string }>('pg key', `SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = ?::regclass AND i.indisprimary ORDER BY a.attname`, [table]);
    const byName = (a: Column, b: Column) => a.name.localeCompare(b.name);
    // A SQLite primary key column is NOT NULL in practice (integer ones are the rowid; the others are declared so).
    expect(pgCols.map((c) => ({ name: c.name, notNull: c.nullable === 'NO' })).sort(byName))
      .toEqual(liteCols.map((c) => ({ name: c.name, notNull: c.notnull === 1 || c.pk > 0 })).sort(byName));
    expect(pgKey.map((k) => k.name)).toEqual(liteCols.filter((c) => c.pk > 0).map((c) => c.name).sort());
  });

  it('has the same indexes on both', async () => {
    const liteIdx = await lite.raw<{ name: string }>('lite idx', `SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name`);
    const pgIdx = await pg.raw<{ name: string }>('pg idx', `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND NOT i.indisprimary ORDER BY c.relname`);
    expect(pgIdx.map((i) => i.name)).toEqual(liteIdx.map((i) => i.name));
  });

  it('keeps every text column in byte order (COLLATE "C"), as SQLite compares', async () => {
    const other = await pg.raw<{ col: string }>('pg collations', `SELECT table_name || '.' || column_name AS col FROM information_schema.columns
      WHERE table_schema = 'public' AND data_type = 'text' AND collation_name IS DISTINCT FROM 'C' ORDER BY 1`);
    expect(other).toEqual([]);
  });

  it('lists in byte order on a database created with a language collation (ICU en-US puts ab before a-c)', async () => {
    const s = await openPgStore(await cluster.createDatabase(undefined, "TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'"));
    try {
      const org = await createOrg(s, 'acme', 'pro');
      for (const name of ['ab.test', 'a-c.test', 'B.test']) await createZone(s, { orgId: org.id, name, nameservers: ['ns1.test'], actor: 't', quota: null });
      const names = (await listZones(s, org.id, 10)).items.map((z) => z.name);
      expect(names).toEqual(['B.test', 'a-c.test', 'ab.test']);
      expect(names).toEqual([...names].sort());
    } finally {
      s.close();
    }
  });
});
