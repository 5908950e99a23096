import Database from 'better-sqlite3';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
rmSync('/tmp/qp.db', { force: true }); rmSync('/tmp/qp.db-wal', { force: true });
const db = new Database('/tmp/qp.db');
db.pragma('journal_mode = WAL'); db.pragma('foreign_keys = OFF');
for (const f of readdirSync('store/migrations').filter((f) => f.endsWith('.sql')).sort()) {
  for (const st of readFileSync(`store/migrations/${f}`, 'utf8').split('--> statement-breakpoint')) if (st.trim()) db.exec(st);
}
db.pragma('foreign_keys = OFF'); db.prepare("insert into zones (name, org_id, dnssec, ds, serial, generation, created_at, rrset_count, bytes, uid, tombstones_pruned_to, revision_bytes) values ('z.test', 1, 'off', '[]', 1, 500, '2020', 100, 1000, 'u', 0, 0)").run();
const ins = db.prepare("insert into rrsets (zone, name, type, ttl, records, managed_by, changed_gen, bytes) values ('z.test', ?, 'A', 300, ?, 'user', ?, 30)");
for (let i = 0; i < 100; i++) ins.run(`r${i}.z.test`, JSON.stringify([`10.0.0.${i}`]), i + 1);
ins.run('c.z.test', JSON.stringify(['10.1.1.1']), 500);
const q1 = db.prepare("SELECT z.uid AS zone_uid, z.generation AS zone_gen, r.name, r.type, r.ttl, r.records, r.managed_by FROM zones z LEFT JOIN rrsets r ON r.zone = z.name AND r.changed_gen > ? WHERE z.name = ? LIMIT ?");
const q2 = db.prepare("select * from zones where name = ?");
for (const [n, f] of [['changed', () => q1.all(499, 'z.test', 41)], ['zone', () => q2.all('z.test')], ['changed', () => q1.all(499, 'z.test', 41)]]) {
  for (let k = 0; k < 1000; k++) f();
  const t = performance.now(); for (let k = 0; k < 10000; k++) f(); console.log(n, ((performance.now() - t) / 10000 * 1000).toFixed(1), 'us');
}
const up = db.prepare("update rrsets set changed_gen = ?, records = ? where zone = 'z.test' and name = 'c.z.test'");
const upz = db.prepare("update zones set generation = ? where name = 'z.test'");
let g = 500; let tr = 0, tw = 0;
for (let k = 0; k < 2000; k++) {
  const t0 = performance.now();
  db.exec('BEGIN'); up.run(++g, JSON.stringify([`10.2.${k % 250}.1`])); upz.run(g); db.exec('COMMIT');
  const t1 = performance.now();
  q1.all(g - 1, 'z.test', 41);
  const t2 = performance.now();
  if (k >= 1000) { tw += t1 - t0; tr += t2 - t1; }
}
console.log('after write: read', (tr / 1000 * 1000).toFixed(1), 'us; write', (tw / 1000 * 1000).toFixed(1), 'us');
