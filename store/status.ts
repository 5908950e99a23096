/** Reconcile status of everything, for operators (`hostplane admin status`). */
import { eq } from 'drizzle-orm';
import type { Store } from './db';
import { latestSeq } from './feed';
import { zoneStatus, zones } from './schema';

export interface ZoneReconcileStatus {
  zone: string;
  generation: number;
  observedGeneration: number | null;
  converged: boolean;
  servedSerial: number | null;
  desiredSerial: number;
  /** The whole failure, paths and the nameserver's words included: operators only. */
  lastError: string | null;
  /** What the tenant reads. */
  reason: string | null;
  message: string | null;
  reconciledAt: string | null;
}

export async function readStatus(s: Store): Promise<{ changeSeq: number; zones: ZoneReconcileStatus[] }> {
  const rows = s.db
    .select({ zone: zones.name, generation: zones.generation, serial: zones.serial, st: zoneStatus })
    .from(zones)
    .leftJoin(zoneStatus, eq(zoneStatus.zone, zones.name))
    .orderBy(zones.name)
    .all();
  return {
    changeSeq: await latestSeq(s),
    zones: rows.map((r) => ({
      zone: r.zone,
      generation: r.generation,
      observedGeneration: r.st?.observedGeneration ?? null,
      converged: r.st?.observedGeneration === r.generation && !r.st?.lastError,
      servedSerial: r.st?.servedSerial ?? null,
      desiredSerial: r.serial,
      lastError: r.st?.lastError ?? null,
      reason: r.st?.reason ?? null,
      message: r.st?.message ?? null,
      reconciledAt: r.st?.reconciledAt ?? null,
    })),
  };
}
