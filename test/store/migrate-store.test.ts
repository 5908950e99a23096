/** store/migrate-store.ts: the copy's table order, its one transaction, and identities that go on where SQLite's
 * left off (test/cli/migrate-store.test.ts runs the command itself). */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, getTableName, is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';
import { createOrg } from '../../store/accounts';
import { openStore, STORE_FILE, type Store } from '../../store/db';
import { openPgStore } from '../../store/db-pg';
import { appendAudit, latestSeq, recordChange, recordChangeSeq } from '../../store/feed';
import { copyOrder, migrateStore } from '../../store/migrate-store';
import * as schema from '../../store/schema';
import { removeTempDirs, tempDir } from '../../harness/temp';

afterAll(removeTempDirs);

it('copies every table of the schema once, each after the tables it references', () => {
  const order = copyOrder().map((t) => t.name);
  const tables = (Object.values(schema) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable));
  expect([...order].sort()).toEqual(tables.map((t) => getTableName(t)).sort());
  for (const t of tables) {
    for (const fk of getTableConfig(t).foreignKeys) {
      expect(order.indexOf(getTableName(fk.reference().foreignTable)), `${getTableName(t)} after what it references`).toBeLessThan(order.indexOf(getTableName(t)));
    }
  }
});

/** A SQLite store in a new data dir, filled by `fill`, closed again. */
async function source(fill: (s: Store) => Promise<void>): Promise<string> {
  const dir = tempDir('hostplane-migrate-');
  const s = openStore(dir);
  try {
    await fill(s);
  } finally {
    s.close();
  }
  return dir;
}

/** What a fill cannot do through the store functions: rows as an older version, or a bug, may have left them. */
function rawly(dir: string, sql: string): void {
  const db = new Database(join(dir, STORE_FILE));
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

const missing = postgresMissing();
describe.skipIf(missing)(`migrateStore${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.destroy();
  });

  const withTarget = async <T>(url: string, fn: (s: Store) => Promise<T>): Promise<T> => {
    const s = await openPgStore(url);
    try {
      return await fn(s);
    } finally {
      s.close();
    }
  };

  it('leaves the target empty when a row fails half way: the copy is one transaction', async () => {
    const dir = await source(async (s) => {
      await createOrg(s, 'acme', 'free');
    });
    // A membership of a user that does not exist: PostgreSQL refuses it after orgs and users went in.
    rawly(dir, `PRAGMA foreign_keys = OFF; INSERT INTO memberships (org_id, user_id, role) VALUES (1, 99, 'admin')`);
    const url = await cluster.createDatabase();
    await expect(migrateStore(dir, url)).rejects.toThrow(/foreign key/);
    await withTarget(url, async (t) => {
      expect(await t.db.select({ n: count() }).from(schema.orgs)).toEqual([{ n: 0 }]);
      expect(await t.db.select({ n: count() }).from(schema.storeMeta)).toEqual([{ n: 0 }]);
    });
  });

  it('goes on past every id SQLite handed out, those of rows deleted since included, and copies in batches', async () => {
    const dir = await source(async (s) => {
      const org = await createOrg(s, 'acme', 'free');
      await s.write(async (tx) => {
        for (let i = 0; i < 2500; i++) await appendAudit(tx, { orgId: org.id, event: 'e', actor: 'a', target: `t${i}` }, s.clock());
        for (let i = 0; i < 5; i++) await recordChange(s, tx, 'project', `p${i}`, s.clock());
      });
      await createOrg(s, 'gone', 'free');
    });
    // The feed's newest rows pruned, and the newest org removed: neither seq 5 nor org 2 may be handed out again.
    rawly(dir, `DELETE FROM changes WHERE seq > 3; DELETE FROM orgs WHERE slug = 'gone'`);
    const url = await cluster.createDatabase();
    const result = await migrateStore(dir, url);
    expect(result).toMatchObject({ copied: true, feedSeq: 5, tables: { audit: 2500, changes: 3, orgs: 1 } });
    await withTarget(url, async (t) => {
      expect(await t.db.select({ n: count() }).from(schema.audit)).toEqual([{ n: 2500 }]);
      expect(await latestSeq(t)).toBe(3);
      expect(await t.write(async (tx) => recordChangeSeq(t, tx, 'project', 'next', t.clock()))).toBe(6);
      expect((await createOrg(t, 'next', 'free')).id).toBe(3);
    });
    expect(await migrateStore(dir, url)).toMatchObject({ copied: false, tables: result.tables });
  });
});
