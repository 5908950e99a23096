/** The status of reconciled resources (one model for every kind); what operators read of it is store/read-model.ts. */
import { and, eq, sql } from 'drizzle-orm';
import type { Store } from './db';
import type { Condition } from '../lib/conditions';
import { resourceStatus } from './schema';

export interface ResourceStatus<F = Record<string, unknown>> {
  /** The lifetime of the resource this status describes. */
  uid: string;
  observedGeneration: number;
  conditions: Condition[];
  facts: F;
  /** The whole failure, for operators only: it may carry server paths and a provider's own words. */
  lastError: string | null;
  reconciledAt: string;
}

const statusListeners = new WeakMap<Store, Set<(kind: string, key: string) => void>>();

/**
 * Calls `listener` after each committed status write of this process to (kind, key) (recordStatus, recordFact,
 * dropStatus), so that a request waiting for a resource to be observed (api/wait.ts) answers at once. Status
 * writes of other processes reach no listener: they are not in the change feed either. Returns the unsubscribe.
 */
export function onStatus(s: Store, listener: (kind: string, key: string) => void): () => void {
  let set = statusListeners.get(s);
  if (!set) statusListeners.set(s, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
  };
}

function announceStatus(s: Store, kind: string, key: string): void {
  for (const l of statusListeners.get(s) ?? []) {
    try {
      l(kind, key);
    } catch {
      // The status is written; a listener's failure is its own.
    }
  }
}

/** What reconcilers observe is derived again after a crash of the machine: written without waiting for the disk. */
const OBSERVATION = { durable: false } as const;

/** Written only by reconcilers. */
export async function recordStatus<F>(s: Store, kind: string, key: string, st: ResourceStatus<F>): Promise<void> {
  const row = { kind, key, ...st, facts: st.facts as Record<string, unknown> };
  // Every reconcile pass writes one: prepared once (built and prepared each time, it cost more than the write).
  await s.write(async (tx) => {
    await tx.prepared('recordStatus', (db) => db.insert(resourceStatus).values({
      kind: sql.placeholder('kind'), key: sql.placeholder('key'), uid: sql.placeholder('uid'), observedGeneration: sql.placeholder('observedGeneration'),
      conditions: sql.placeholder('conditions'), facts: sql.placeholder('facts'), lastError: sql.placeholder('lastError'), reconciledAt: sql.placeholder('reconciledAt'),
    }).onConflictDoUpdate({
      target: [resourceStatus.kind, resourceStatus.key],
      set: {
        uid: sql`excluded.uid`, observedGeneration: sql`excluded.observed_generation`, conditions: sql`excluded.conditions`, facts: sql`excluded.facts`,
        lastError: sql`excluded.last_error`, reconciledAt: sql`excluded.reconciled_at`,
      },
    }).prepare()).execute(row);
  }, OBSERVATION);
  announceStatus(s, kind, key);
}

/** A status row as the resource's status, its facts typed as the kind's. */
export const toResourceStatus = <F>(row: typeof resourceStatus.$inferSelect): ResourceStatus<F> => ({
  uid: row.uid, observedGeneration: row.observedGeneration, conditions: row.conditions, facts: row.facts as F, lastError: row.lastError, reconciledAt: row.reconciledAt,
});

/** The status of this lifetime of the resource; a status left by an earlier lifetime reads as none. */
export async function statusOf<F>(s: Store, kind: string, key: string, uid?: string): Promise<ResourceStatus<F> | undefined> {
  const row = s.prepared('statusOf', (db) => db.select().from(resourceStatus)
    .where(and(eq(resourceStatus.kind, sql.placeholder('kind')), eq(resourceStatus.key, sql.placeholder('key')))).prepare())
    .get({ kind, key });
  if (!row || (uid !== undefined && row.uid !== uid)) return undefined;
  return toResourceStatus<F>(row);
}

export async function dropStatus(s: Store, kind: string, key: string): Promise<void> {
  await s.write(async (tx) => {
    await tx.delete(resourceStatus).where(and(eq(resourceStatus.kind, kind), eq(resourceStatus.key, key)));
  }, OBSERVATION);
  announceStatus(s, kind, key);
}

/** Records one observed fact alone (a slow lookup beside the apply path), for the lifetime `uid` only. */
export async function recordFact(s: Store, kind: string, key: string, uid: string, fact: string, value: unknown): Promise<void> {
  await s.write(async (tx) => {
    await tx.update(resourceStatus)
      .set({ facts: sql`json_set(${resourceStatus.facts}, ${`$.${fact}`}, json(${JSON.stringify(value)}))` })
      .where(and(eq(resourceStatus.kind, kind), eq(resourceStatus.key, key), eq(resourceStatus.uid, uid)));
  }, OBSERVATION);
  announceStatus(s, kind, key);
}
