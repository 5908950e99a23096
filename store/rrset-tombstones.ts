/**
 * Pruning of rrset tombstones. A deleted rrset leaves a tombstone (zone, name, type, the generation that deleted it,
 * when) for the readers of a zone's changes since a generation: the zone reconciler's incremental pass
 * (zoneChangesSince) and the export's check of its pages (zoneRRsetsAt). Kept until the zone is deleted, a tenant
 * whose names churn (imports of files with ever-new names, a script adding and deleting `tmp-N`) grew them without
 * bound, beyond the plan's quotas, which count rrsets.
 *
 * A pruned tombstone must not let a reader miss its deletion: the transaction that deletes tombstones raises the
 * zone's `tombstonesPrunedTo` to their highest generation, and a reader since a generation below that mark reads
 * the zone whole (the reconciler) or fails with 409 `zone_changed` (an export). Correctness rests on the mark alone;
 * what is pruned, and when, only decides how often a reader pays for it:
 * - only tombstones at or below the generation the zone reconciler has applied (the status of the zone's lifetime,
 *   its observedGeneration), which the leader's passes are past: its next pass reads the changes since what it
 *   serves and stays incremental. Another process's reconciler left behind (a leader deposed meanwhile) loads the
 *   zone whole, as it does after any takeover;
 * - only tombstones older than `graceMs`, so that an export that started before the deletion, and takes less than
 *   that to read, is never failed by the prune;
 * - in transactions of `chunk` tombstones, at most `maxRows` a run, under the zone's lock (a write of the zone waits
 *   for one chunk at most; a tombstone written again meanwhile is not deleted under its new generation): a zone of
 *   100,000 tombstones is pruned in about a hundred short transactions, the rest of a run's excess by the next run.
 * Tombstones therefore stay bounded by the deletions of the last grace (and those not applied yet).
 */
import { iso, type Store } from './db';

export interface TombstoneRetention {
  /** Tombstones this young stay, applied or not. */
  graceMs: number;
  /** Tombstones deleted per transaction. */
  chunk: number;
  /** Tombstones deleted per run at most. */
  maxRows: number;
}

/** Five minutes is far longer than an export takes unless its reader holds it back (200,000 rrsets stream in about
 * 2 s); a run every 30 s deletes up to 3,300 tombstones a second. */
export const TOMBSTONE_RETENTION: TombstoneRetention = { graceMs: 5 * 60_000, chunk: 1000, maxRows: 100_000 };

/** The generation the zone's reconciler applied, of the zone's current lifetime; null without a status. */
const APPLIED = `SELECT st.observed_generation FROM zones z
  JOIN resource_status st ON st.kind = 'zone' AND st.key = z.name AND st.uid = z.uid WHERE z.name = ?`;

interface Pruned { name: string; type: string; gen: number }

/** Deletes the tombstones the rule lets go, zone by zone; returns how many went. */
export async function pruneRRsetTombstones(s: Store, r: TombstoneRetention = TOMBSTONE_RETENTION): Promise<number> {
  const before = iso(new Date(s.clock().getTime() - r.graceMs));
  const zones = await s.raw<{ name: string }>('zonesWithPrunableTombstones', `SELECT z.name AS name FROM zones z
      JOIN resource_status st ON st.kind = 'zone' AND st.key = z.name AND st.uid = z.uid
    WHERE EXISTS (SELECT 1 FROM rrset_tombstones t WHERE t.zone = z.name AND t.gen <= st.observed_generation AND t.at < ?)
    ORDER BY z.name`, [before]);
  let deleted = 0;
  for (const { name: zone } of zones) {
    // Within a run each chunk starts after the last one's keys: tombstones kept (young, or not applied yet) are
    // passed over once.
    let after = { name: '', type: '' };
    for (;;) {
      if (deleted >= r.maxRows) return deleted;
      const limit = Math.min(r.chunk, r.maxRows - deleted);
      const gone = await s.write(async (tx) => {
        await tx.lock(`zone/${zone}`);
        const rows = await tx.raw<Pruned>('pruneRRsetTombstones', `DELETE FROM rrset_tombstones WHERE zone = ? AND (name, type) IN (
            SELECT name, type FROM rrset_tombstones
            WHERE zone = ? AND (name, type) > (?, ?) AND at < ? AND gen <= (${APPLIED})
            ORDER BY name, type LIMIT ?)
          RETURNING name, type, gen`, [zone, zone, after.name, after.type, before, zone, limit]);
        if (rows.length === 0) return rows;
        const top = rows.reduce((g, t) => Math.max(g, t.gen), 0);
        await tx.raw('raiseTombstonesPrunedTo', 'UPDATE zones SET tombstones_pruned_to = ? WHERE name = ? AND tombstones_pruned_to < ?', [top, zone, top]);
        return rows;
      });
      deleted += gone.length;
      if (gone.length < limit) break;
      after = gone.reduce((a, b) => (b.name > a.name || (b.name === a.name && b.type > a.type) ? b : a));
    }
  }
  return deleted;
}
