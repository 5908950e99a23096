/**
 * Pruning of rrset tombstones (store/rrset-tombstones.ts), in this process, on SQLite and on PostgreSQL (a cluster
 * this bench starts, fsync on): one zone holding 100,000 tombstones its reconciler applied and older than the grace,
 * among 10,000 young ones spread over the same names (a tenant churning names). One line per store and step:
 *   - the zone reconciler's read of the changes since its served generation (zoneChangesSince), which reads the
 *     tombstones after it, before the prune and after it;
 *   - one prune run (TOMBSTONE_RETENTION): rows, time, its chunks' writes (p50 and max, from the call to the commit,
 *     the time a write of the zone waits behind one) and the event loop's longest delay meanwhile (aim: under 50 ms);
 *   - a second run, which finds only young tombstones.
 *
 *   npx tsx bench/rrset-tombstones.ts              (also run by `npm run bench`)
 *   npx tsx bench/rrset-tombstones.ts --sqlite     (SQLite alone)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { postgresMissing, startCluster } from '../harness/postgres';
import { createOrg } from '../store/accounts';
import { iso, openStore, type Store } from '../store/db';
import { openPgStore } from '../store/db-pg';
import { pruneRRsetTombstones, TOMBSTONE_RETENTION } from '../store/rrset-tombstones';
import { recordStatus } from '../store/status';
import { createZone, zoneByName, zoneChangesSince, ZONE_STATUS } from '../store/zones';
import { ms, stats } from './dns-lib';
import { note, out } from './dns-sides';
import { command } from './lib';

const ZONE = 'churn.test';
const OLD = 100_000;
const YOUNG = 10_000;
/** Generations the old tombstones spread over (a deletion a generation would take as long to make as to prune). */
const GENERATIONS = 1000;
const AIM_LOOP_MS = 50;
const T0 = Date.parse('2026-11-29T12:00:00Z');

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

/** The zone with its tombstones, the old ones applied by its reconciler and past the grace at `now`. */
async function fill(s: Store, setNow: (t: number) => void): Promise<void> {
  const orgId = (await createOrg(s, 'bench', 'pro')).id;
  await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test'], actor: 'bench', quota: null });
  const total = OLD + YOUNG;
  // Every eleventh name is young, so that kept tombstones lie among the pruned ones.
  await s.write(async (tx) => {
    await tx.raw('bench tombstones', `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO rrset_tombstones (zone, name, type, gen, at)
      SELECT CAST(? AS text), 'tmp-' || CAST(i AS text) || '.' || CAST(? AS text), 'TXT',
        CASE WHEN i % 11 = 0 THEN ? + 1 ELSE 1 + i % ? END,
        CASE WHEN i % 11 = 0 THEN CAST(? AS text) ELSE CAST(? AS text) END FROM n`,
    [total, ZONE, ZONE, GENERATIONS, GENERATIONS, iso(new Date(T0 + TOMBSTONE_RETENTION.graceMs)), iso(new Date(T0))]);
    await tx.raw('bench generation', 'UPDATE zones SET generation = ? WHERE name = ?', [GENERATIONS + 1, ZONE]);
  });
  const z = (await zoneByName(s, ZONE))!;
  await recordStatus(s, ZONE_STATUS, ZONE, { uid: z.uid, generation: z.generation });
  setNow(T0 + TOMBSTONE_RETENTION.graceMs + 1000);
}

/** The reconciler's read of the changes since the generation it serves, best of five. */
async function changesRead(s: Store): Promise<number> {
  const { generation } = (await zoneByName(s, ZONE))!;
  const took: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await zoneChangesSince(s, ZONE, generation, 40);
    took.push(performance.now() - t0);
  }
  return Math.min(...took);
}

/** One prune run: rows, time, each chunk's write and the event loop's longest delay. */
async function pruneRun(s: Store): Promise<string> {
  const writes: number[] = [];
  const timed: Store = {
    ...s,
    write: async (fn, opts) => {
      const t0 = performance.now();
      try {
        return await s.write(fn, opts);
      } finally {
        writes.push(performance.now() - t0);
      }
    },
  };
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const t0 = performance.now();
  const n = await pruneRRsetTombstones(timed);
  const took = performance.now() - t0;
  loop.disable();
  const w = stats(writes);
  const lag = loop.max / 1e6;
  return `${n} rows in ${ms(took)}, ${writes.length} chunks: write p50=${ms(w.p50)} max=${ms(w.max)}; event loop delay max=${ms(lag)}`
    + ` [aim under ${AIM_LOOP_MS}ms: ${lag < AIM_LOOP_MS ? 'met' : 'MISSED'}]`;
}

async function measure(name: string, open: (clock: () => Date) => Promise<Store>): Promise<void> {
  let now = T0;
  const s = await open(() => new Date(now));
  try {
    await fill(s, (t) => {
      now = t;
    });
    const before = await changesRead(s);
    out(`rrset-tombstones ${name} prune of ${OLD} among ${YOUNG} young: ${await pruneRun(s)} (load ${load()})`);
    out(`rrset-tombstones ${name} again, only young ones left: ${await pruneRun(s)} (load ${load()})`);
    out(`rrset-tombstones ${name} zoneChangesSince the served generation: ${ms(before)} before the prune, ${ms(await changesRead(s))} after (load ${load()})`);
  } finally {
    s.close();
  }
}

export async function main(args = process.argv.slice(2)): Promise<number> {
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-tombstones-'));
  try {
    await measure('sqlite', async (clock) => openStore(tmp, { clock }));
    const missing = postgresMissing();
    if (args.includes('--sqlite') || missing) {
      if (missing) note(`postgres skipped: ${missing}`);
      return 0;
    }
    const cluster = await startCluster({ fsync: true });
    try {
      const url = await cluster.createDatabase('bench');
      await measure('postgres', (clock) => openPgStore(url, { clock }));
    } finally {
      await cluster.destroy();
    }
    return 0;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

command(import.meta.url, 'rrset-tombstones', () => main());
