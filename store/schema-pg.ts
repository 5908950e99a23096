/**
 * The PostgreSQL schema, derived from store/schema.ts at load time: one source of tables, so a column cannot reach
 * one store only. drizzle-kit reads it to write store/migrations-pg (drizzle-pg.config.ts); queries at run time use
 * store/schema.ts's table objects on both databases (docs/store.md). The types are chosen so that both databases
 * hold the same values: integers are `bigint` (read back as numbers), booleans stay the integers 0 and 1, JSON stays
 * text.
 */
import { getTableName, is, SQL } from 'drizzle-orm';
import {
  bigint, customType, foreignKey, index, integer, pgTable, primaryKey, unique, uniqueIndex,
  type IndexBuilder, type PgColumnBuilderBase, type PgTableWithColumns,
} from 'drizzle-orm/pg-core';
import { getTableConfig, SQLiteTable, type SQLiteColumn } from 'drizzle-orm/sqlite-core';
import * as sqlite from './schema';

/** Text compared byte by byte, as SQLite compares it, whatever collation the database was created with: listings,
 * cursors and range scans order the same on both stores (en_US.UTF-8 would put `a-b` after `ab`). */
const bytewiseText = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/** The SQLite column types store/schema.ts uses; a new one fails here, at load, until it has a PostgreSQL twin. */
function columnOf(c: SQLiteColumn): PgColumnBuilderBase {
  const autoIncrement = (c as SQLiteColumn & { autoIncrement?: boolean }).autoIncrement === true;
  let b;
  switch (c.columnType) {
    case 'SQLiteInteger':
      b = bigint(c.name, { mode: 'number' });
      if (autoIncrement) b = b.generatedByDefaultAsIdentity();
      break;
    case 'SQLiteBoolean':
      b = integer(c.name);
      break;
    case 'SQLiteText':
    case 'SQLiteTextJson':
      b = bytewiseText(c.name);
      break;
    default:
      throw new Error(`store/schema-pg.ts: no PostgreSQL type for ${c.columnType} (${c.name})`);
  }
  if (c.primary) b = b.primaryKey();
  if (c.notNull && !c.primary) b = b.notNull();
  if (c.hasDefault && c.default !== undefined) b = b.default((typeof c.default === 'boolean' ? Number(c.default) : c.default) as never);
  if (c.isUnique) b = b.unique(c.uniqueName);
  return b;
}

type AnyPgTable = PgTableWithColumns<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const tables = new Map<string, AnyPgTable>();
const pgOf = (t: SQLiteTable): AnyPgTable => {
  const found = tables.get(getTableName(t));
  if (!found) throw new Error(`store/schema-pg.ts: ${getTableName(t)} is referenced before it is defined`);
  return found;
};

function tableOf(t: SQLiteTable): AnyPgTable {
  const config = getTableConfig(t);
  const columns = Object.fromEntries(Object.entries(t).filter(([, v]) => config.columns.includes(v as SQLiteColumn))
    .map(([key, c]) => [key, columnOf(c as SQLiteColumn)]));
  const keyOf = new Map(Object.entries(t).map(([key, c]) => [c, key]));
  return pgTable(config.name, columns, (pg) => {
    const col = (c: unknown) => pg[keyOf.get(c)!]!;
    return [
      ...config.primaryKeys.map((pk) => primaryKey({ name: pk.getName(), columns: pk.columns.map(col) as never })),
      ...config.uniqueConstraints.map((u) => unique(u.name).on(...(u.columns.map(col) as [never]))),
      ...config.foreignKeys.map((fk) => {
        const ref = fk.reference();
        const target = pgOf(ref.foreignTable);
        const targetKey = new Map(Object.entries(ref.foreignTable).map(([key, c]) => [c, key]));
        return foreignKey({
          name: fk.getName(),
          columns: ref.columns.map(col) as never,
          foreignColumns: ref.foreignColumns.map((c) => target[targetKey.get(c)!]) as never,
        });
      }),
      ...config.indexes.map((i) => {
        const built: IndexBuilder = (i.config.unique ? uniqueIndex(i.config.name) : index(i.config.name))
          .on(...(i.config.columns.map(col) as [never]));
        return i.config.where && is(i.config.where, SQL) ? built.where(i.config.where) : built;
      }),
    ];
  });
}

for (const t of Object.values(sqlite)) {
  if (is(t, SQLiteTable)) tables.set(getTableName(t), tableOf(t));
}

/** Every table, by its SQL name. */
export const pgTables: ReadonlyMap<string, AnyPgTable> = tables;

// drizzle-kit finds tables among a module's exports: one per table of store/schema.ts, under the same name
// (test/store/schema-pg.test.ts holds the list complete).
const of = (t: SQLiteTable): AnyPgTable => pgOf(t);
export const orgs = of(sqlite.orgs);
export const users = of(sqlite.users);
export const memberships = of(sqlite.memberships);
export const tokens = of(sqlite.tokens);
export const consoleSessions = of(sqlite.consoleSessions);
export const nodes = of(sqlite.nodes);
export const projects = of(sqlite.projects);
export const hostnames = of(sqlite.hostnames);
export const hostnameFinalizers = of(sqlite.hostnameFinalizers);
export const placements = of(sqlite.placements);
export const secrets = of(sqlite.secrets);
export const changes = of(sqlite.changes);
export const feedConsumers = of(sqlite.feedConsumers);
export const storeMeta = of(sqlite.storeMeta);
export const audit = of(sqlite.audit);
export const zones = of(sqlite.zones);
export const rrsets = of(sqlite.rrsets);
export const rrsetTombstones = of(sqlite.rrsetTombstones);
export const zoneAliases = of(sqlite.zoneAliases);
export const zoneRevisions = of(sqlite.zoneRevisions);
export const resourceStatus = of(sqlite.resourceStatus);
export const zoneFinalizers = of(sqlite.zoneFinalizers);
export const authGrants = of(sqlite.authGrants);
export const authProviders = of(sqlite.authProviders);
export const storageGrants = of(sqlite.storageGrants);
export const zoneTombstones = of(sqlite.zoneTombstones);
export const idempotencyKeys = of(sqlite.idempotencyKeys);
export const domains = of(sqlite.domains);
export const domainPurchases = of(sqlite.domainPurchases);
export const domainLedger = of(sqlite.domainLedger);
export const storagePrefixes = of(sqlite.storagePrefixes);
export const nodeBundles = of(sqlite.nodeBundles);
export const nodeReports = of(sqlite.nodeReports);
export const projectUsage = of(sqlite.projectUsage);
export const accessPolicies = of(sqlite.accessPolicies);
export const accessCodes = of(sqlite.accessCodes);
export const leader = of(sqlite.leader);
export const processes = of(sqlite.processes);
export const dnssecKeys = of(sqlite.dnssecKeys);
export const zoneServedSerials = of(sqlite.zoneServedSerials);
