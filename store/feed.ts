/** The change feed and the audit log: both append-only, both written inside the transaction of the change. */
import { and, desc, eq, gt, lt, max, sql } from 'drizzle-orm';
import { iso, type Store } from './db';
import { audit, changes } from './schema';

export type ChangeKind = 'project' | 'secret' | 'zone' | 'placement' | 'hostname';

/**
 * Records that the desired state of (kind, key) changed; returns the new feed sequence number. Call it inside
 * `s.write`: the statement runs on the store's one connection, so it joins that transaction.
 */
export function recordChange(s: Store, kind: ChangeKind, key: string, at: Date): number {
  return s.prepared('recordChange', (db) => db.insert(changes)
    .values({ kind: sql.placeholder('kind'), key: sql.placeholder('key'), at: sql.placeholder('at') })
    .returning({ seq: changes.seq }).prepare()).get({ kind, key, at: iso(at) })!.seq;
}

export async function changesSince(s: Store, seq: number, limit = 1000): Promise<{ seq: number; kind: string; key: string }[]> {
  return s.db.select({ seq: changes.seq, kind: changes.kind, key: changes.key }).from(changes)
    .where(gt(changes.seq, seq)).orderBy(changes.seq).limit(limit).all();
}

export async function latestSeq(s: Store): Promise<number> {
  return s.db.select({ seq: max(changes.seq) }).from(changes).get()?.seq ?? 0;
}

export interface AuditEntry {
  orgId: number;
  event: string;
  actor: string;
  target: string;
  /** Never a secret, password, transfer code or contact: audit rows cannot be deleted. */
  details?: Record<string, unknown>;
}

/** Appends an audit record; like `recordChange`, call it inside `s.write`. */
export function appendAudit(s: Store, e: AuditEntry, at: Date): void {
  s.prepared('appendAudit', (db) => db.insert(audit).values({
    orgId: sql.placeholder('orgId'), event: sql.placeholder('event'), actor: sql.placeholder('actor'),
    target: sql.placeholder('target'), details: sql.placeholder('details'), at: sql.placeholder('at'),
  }).prepare()).run({ ...e, details: e.details ?? {}, at: iso(at) });
}

export interface AuditRecord { id: string; at: string; event: string; actor: string; target: string; details: Record<string, unknown> }

/** Newest first; the cursor is the id of the last item of the previous page. */
export async function listAudit(s: Store, orgId: number, limit: number, before?: number): Promise<AuditRecord[]> {
  const rows = s.db.select().from(audit)
    .where(before === undefined ? eq(audit.orgId, orgId) : and(eq(audit.orgId, orgId), lt(audit.id, before)))
    .orderBy(desc(audit.id)).limit(limit).all();
  return rows.map((r) => ({ id: String(r.id), at: r.at, event: r.event, actor: r.actor, target: r.target, details: r.details }));
}
