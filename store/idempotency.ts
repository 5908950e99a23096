/** Idempotency-Key records (table `idempotency_keys`): claimed before an operation runs, then given its answer
 * or released; at most `maxKeys` per scope (the oldest answered ones make room). api/idempotency.ts says what is
 * stored and why in three writes. */
import { and, asc, count, eq, inArray, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';
import type { Store, Tx } from './db';
import { idempotencyKeys } from './schema';

export interface StoredAnswer { status: number; headers: Record<string, string>; body: string | null }

export type Claim =
  /** The key is this request's now: run the operation, then `finishKey` or `releaseKey` with `lease`. */
  | { kind: 'run'; lease: string }
  /** The same request answered before: send this again. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key went with another request (operation, path or body). */
  | { kind: 'reused' }
  /** The same request is running (its lease not over). */
  | { kind: 'running' };

export interface ClaimRequest {
  scope: string;
  key: string;
  operation: string;
  fingerprint: string;
  /** How long a claimed request holds the key before a retry may take it over (a crashed process). */
  leaseMs: number;
  /** How long a record is kept. */
  ttlMs: number;
  /** The most records one scope holds: a new key beyond it drops the scope's oldest answered ones. */
  maxKeys: number;
}

/** How often a store prunes expired rows (in a claim's write). */
const PRUNE_EVERY_MS = 60_000;
const lastPrune = new WeakMap<Store, number>();

const at = (ms: number): string => new Date(ms).toISOString();

/**
 * Claims `key` for the request in one write: a row of the caller that has not expired either holds the key
 * (another fingerprint: `reused`), replays its answer, or is running; a missing, expired or abandoned (lease
 * over, no answer) row is (re)claimed for this request. Prunes expired rows now and then in the same write.
 */
export async function claimKey(s: Store, r: ClaimRequest): Promise<Claim> {
  const nowMs = s.clock().getTime();
  const now = at(nowMs);
  const prune = nowMs - (lastPrune.get(s) ?? 0) >= PRUNE_EVERY_MS;
  if (prune) lastPrune.set(s, nowMs);
  return s.write(async (tx) => {
    // Retries sent at once must see each other's claim: else each reads no row and runs (PostgreSQL runs them at
    // once). Taken before the prune's row locks, which a claim of an expired key waits for.
    await tx.lock(`idempotency/${r.scope}/${r.key}`);
    // A minute's worth of expired rows at a time: pruning once a minute keeps each batch small.
    if (prune) await tx.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, now));
    const where = and(eq(idempotencyKeys.scope, r.scope), eq(idempotencyKeys.key, r.key));
    const [row] = await tx.select().from(idempotencyKeys).where(where);
    if (row && row.expiresAt > now) {
      if (row.fingerprint !== r.fingerprint) return { kind: 'reused' } as const;
      if (row.status !== null) return { kind: 'replay', answer: { status: row.status, headers: row.headers ?? {}, body: row.body } } as const;
      if (row.lockedUntil > now) return { kind: 'running' } as const;
      // Claimed by a process that is gone (or a request past its lease): this request runs it again.
      const lease = at(nowMs + r.leaseMs);
      await tx.update(idempotencyKeys).set({ lockedUntil: lease }).where(where);
      return { kind: 'run', lease } as const;
    }
    // A new key of the scope (an expired row of the same key is replaced, not added): keep the scope within
    // maxKeys. The count reads at most maxKeys entries of the (scope, created_at) index, and the oldest are
    // first in it, so this costs the same whatever the table holds.
    if (!row) await trimScope(tx, r.scope, r.maxKeys, now);
    const values = {
      scope: r.scope, key: r.key, operation: r.operation, fingerprint: r.fingerprint, status: null, headers: null, body: null,
      createdAt: now, lockedUntil: at(nowMs + r.leaseMs), expiresAt: at(nowMs + r.ttlMs),
    };
    await tx.insert(idempotencyKeys).values(values).onConflictDoUpdate({ target: [idempotencyKeys.scope, idempotencyKeys.key], set: values });
    return { kind: 'run', lease: values.lockedUntil } as const;
  });
}

/**
 * Makes room for one more key of `scope` under `maxKeys` by deleting its oldest records (expired ones, which are
 * oldest, first). Dropping the oldest, rather than storing nothing more, is what a Stripe user expects: keys
 * are retried soon after their first use, so the newest keys, the ones still being retried, keep their answers;
 * a key dropped early behaves as one past its 24 hours (a retry runs the operation again), which clients already
 * handle. Storing nothing more would instead leave every new request of a caller at the cap unprotected for up to
 * a day. A request still running keeps its record (its lease not over: its answer is still to be stored, and a
 * retry of it must stay 409); should every record of the scope be running, the new one is added anyway, a
 * bound the connection caps set.
 */
async function trimScope(tx: Tx, scope: string, maxKeys: number, now: string): Promise<void> {
  const [held] = await tx.select({ n: count() }).from(
    tx.select({ one: sql`1` }).from(idempotencyKeys).where(eq(idempotencyKeys.scope, scope)).limit(maxKeys).as('held'),
  );
  if ((held?.n ?? 0) < maxKeys) return;
  const settled = or(isNotNull(idempotencyKeys.status), lte(idempotencyKeys.lockedUntil, now), lte(idempotencyKeys.expiresAt, now));
  const oldest = await tx.select({ key: idempotencyKeys.key }).from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.scope, scope), settled)).orderBy(asc(idempotencyKeys.createdAt)).limit(held!.n - maxKeys + 1);
  if (oldest.length > 0) {
    await tx.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), inArray(idempotencyKeys.key, oldest.map((o) => o.key))));
  }
}

/** The claim of `lease` on the key, unless a retry took the row over after the lease ended. */
const claimed = (scope: string, key: string, lease: string) =>
  and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key), eq(idempotencyKeys.lockedUntil, lease), isNull(idempotencyKeys.status));

/** Stores the answer of a request that claimed the key with `lease`, to be replayed until the record expires. */
export async function finishKey(s: Store, scope: string, key: string, lease: string, answer: StoredAnswer): Promise<void> {
  await s.write(async (tx) => {
    await tx.update(idempotencyKeys).set({ status: answer.status, headers: answer.headers, body: answer.body }).where(claimed(scope, key, lease));
  });
}

/** Frees a key claimed with `lease` whose answer is not stored: the next request with it runs the operation. */
export async function releaseKey(s: Store, scope: string, key: string, lease: string): Promise<void> {
  await s.write(async (tx) => {
    await tx.delete(idempotencyKeys).where(claimed(scope, key, lease));
  });
}
