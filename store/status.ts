/** The status of reconciled resources (one model for every kind); what operators read of it is store/read-model.ts. */
import { and, eq, sql } from 'drizzle-orm';
import { setCondition, type Condition } from '../lib/conditions';
import { iso, type Store } from './db';
import { runLast } from './feed';
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
 * Calls `listener` after each committed status write of this process to (kind, key) (recordStatus,
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

/** A condition as a reconciler judges it: the status writer stamps the generation and the transition time. */
export type Judged = Omit<Condition, 'observedGeneration' | 'lastTransitionTime'>;

/** A kind of status: its name, and the facts of a resource observed for the first time. */
export interface StatusKind<F> {
  readonly kind: string;
  readonly facts: F;
}

/** What one reconcile pass observed of one resource. Anything it leaves out stays as the stored status has it. */
export interface StatusUpdate<F> {
  /** The lifetime observed: a stored status of another lifetime counts as none. */
  uid: string;
  /** The desired generation judged: every condition in `set` carries it. */
  generation: number;
  /** Whether the pass acted on `generation` (applied it): it becomes the status's observedGeneration. A pass that
   * failed before acting leaves the one before (0 when none). Default true. */
  acted?: boolean;
  set?: Judged[];
  /** Condition types that no longer apply. */
  drop?: string[];
  facts?: Partial<F>;
  lastError?: string | null;
}

/** Key order aside, equal: a status read back from JSON columns is compared with one built in code. */
const canonical = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x)
  ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  : x));

/**
 * The one status writer: merges `u` into the stored status of `key` and writes it, unless nothing but the time
 * would change. A pass over converged state therefore writes nothing (a resync of thousands of keys costs no
 * commits), `reconciledAt` is when the status last changed, and a condition's `lastTransitionTime` moves only
 * when its status flips (setCondition). Answers whether it wrote. Only reconcilers write status, one pass of a
 * key at a time (the runner's queue): the read and the write need no transaction of their own.
 */
export async function recordStatus<F>(s: Store, k: StatusKind<F>, key: string, u: StatusUpdate<F>): Promise<boolean> {
  const prev = await statusOf<F>(s, k.kind, key, u.uid);
  const now = iso(s.clock());
  let conditions = (prev?.conditions ?? []).filter((c) => !u.drop?.includes(c.type));
  for (const c of u.set ?? []) conditions = setCondition(conditions, { ...c, observedGeneration: u.generation }, now);
  const next: ResourceStatus<F> = {
    uid: u.uid,
    observedGeneration: u.acted === false ? prev?.observedGeneration ?? 0 : u.generation,
    conditions,
    facts: { ...(prev?.facts ?? k.facts), ...u.facts },
    lastError: u.lastError === undefined ? prev?.lastError ?? null : u.lastError,
    reconciledAt: now,
  };
  if (prev && canonical({ ...prev, reconciledAt: '' }) === canonical({ ...next, reconciledAt: '' })) return false;
  await writeStatus(s, k.kind, key, next);
  return true;
}

async function writeStatus<F>(s: Store, kind: string, key: string, st: ResourceStatus<F>): Promise<void> {
  const row = { kind, key, ...st, facts: st.facts as Record<string, unknown> };
  // Every pass that observed something new writes one: built once (built each time, it cost more than the write), and
  // on PostgreSQL sent with the COMMIT.
  await s.write(async (tx) => {
    await runLast(tx, { key: 'recordStatus', values: row, build: (db) => db.insert(resourceStatus).values({
      kind: sql.placeholder('kind'), key: sql.placeholder('key'), uid: sql.placeholder('uid'), observedGeneration: sql.placeholder('observedGeneration'),
      conditions: sql.placeholder('conditions'), facts: sql.placeholder('facts'), lastError: sql.placeholder('lastError'), reconciledAt: sql.placeholder('reconciledAt'),
    }).onConflictDoUpdate({
      target: [resourceStatus.kind, resourceStatus.key],
      set: {
        uid: sql`excluded.uid`, observedGeneration: sql`excluded.observed_generation`, conditions: sql`excluded.conditions`, facts: sql`excluded.facts`,
        lastError: sql`excluded.last_error`, reconciledAt: sql`excluded.reconciled_at`,
      },
    }) });
  }, OBSERVATION);
  announceStatus(s, kind, key);
}

/** A status row as the resource's status, its facts typed as the kind's. */
export const toResourceStatus = <F>(row: typeof resourceStatus.$inferSelect): ResourceStatus<F> => ({
  uid: row.uid, observedGeneration: row.observedGeneration, conditions: row.conditions, facts: row.facts as F, lastError: row.lastError, reconciledAt: row.reconciledAt,
});

/** The status of this lifetime of the resource; a status left by an earlier lifetime reads as none. */
export async function statusOf<F>(s: Store, kind: string, key: string, uid?: string): Promise<ResourceStatus<F> | undefined> {
  const [row] = await s.prepared('statusOf', (db) => db.select().from(resourceStatus)
    .where(and(eq(resourceStatus.kind, sql.placeholder('kind')), eq(resourceStatus.key, sql.placeholder('key')))).prepare())
    .execute({ kind, key });
  if (!row || (uid !== undefined && row.uid !== uid)) return undefined;
  return toResourceStatus<F>(row);
}

export async function dropStatus(s: Store, kind: string, key: string): Promise<void> {
  await s.write(async (tx) => {
    await tx.delete(resourceStatus).where(and(eq(resourceStatus.kind, kind), eq(resourceStatus.key, key)));
  }, OBSERVATION);
  announceStatus(s, kind, key);
}
