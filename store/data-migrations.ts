/**
 * Data migrations: row changes SQL alone cannot make (they need the zone renderer), run once per store
 * after the schema migrations, in order, tracked by SQLite's `user_version` (drizzle keeps its own table).
 */
import type Database from 'better-sqlite3';
import { renderedBytes, type RecordType } from '../zonefiles';

const steps: ((sqlite: Database.Database) => void)[] = [
  // 0004_zone_quotas added `rrsets.bytes` and `zones.bytes` as 0: fill them with the rendered sizes.
  (sqlite) => {
    const rows = sqlite.prepare<[], { zone: string; name: string; type: string; ttl: number; records: string }>(
      'SELECT zone, name, type, ttl, records FROM rrsets',
    ).all();
    const set = sqlite.prepare('UPDATE rrsets SET bytes = ? WHERE zone = ? AND name = ? AND type = ?');
    for (const r of rows) {
      const rrset = { name: r.name, type: r.type as RecordType, ttl: r.ttl, records: JSON.parse(r.records) as { content: string }[] };
      set.run(renderedBytes(r.zone, rrset), r.zone, r.name, r.type);
    }
    sqlite.exec('UPDATE zones SET bytes = (SELECT coalesce(sum(bytes), 0) FROM rrsets WHERE rrsets.zone = zones.name)');
  },
];

export function runDataMigrations(sqlite: Database.Database): void {
  sqlite.transaction(() => {
    const done = sqlite.pragma('user_version', { simple: true }) as number;
    for (let i = done; i < steps.length; i++) steps[i]!(sqlite);
    if (done < steps.length) sqlite.pragma(`user_version = ${steps.length}`);
  }).immediate();
}
