/** The change feed and the audit log: both append-only, both written inside the transaction of the change. */
import { and, desc, eq, gt, lt, max } from 'drizzle-orm';
import { iso, type Store, type Tx } from './db';
import { audit, changes } from './schema';

export type ChangeKind = 'project' | 'secret' | 'zone' | 'placement' | 'hostname';

/** Records that the desired state of (kind, key) changed; returns the new feed sequence number. */
export function recordChange(tx: Tx, kind: ChangeKind, key: string, at: Date): number {
  return tx.insert(changes).values({ kind, key, at: iso(at) }).returning({ seq: changes.seq }).get().seq;
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

export function appendAudit(tx: Tx, e: AuditEntry, at: Date): void {
  tx.insert(audit).values({ ...e, details: e.details ?? {}, at: iso(at) }).run();
}

export interface AuditRecord { id: string; at: string; event: string; actor: string; target: string; details: Record<string, unknown> }

/** Newest first; the cursor is the id of the last item of the previous page. */
export async function listAudit(s: Store, orgId: number, limit: number, before?: number): Promise<AuditRecord[]> {
  const rows = s.db.select().from(audit)
    .where(before === undefined ? eq(audit.orgId, orgId) : and(eq(audit.orgId, orgId), lt(audit.id, before)))
    .orderBy(desc(audit.id)).limit(limit).all();
  return rows.map((r) => ({ id: String(r.id), at: r.at, event: r.event, actor: r.actor, target: r.target, details: r.details }));
}
