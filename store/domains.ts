/**
 * Domains (spec 4.3): the rows of bought and imported domains, the purchase saga's rows and the ledger. A name is
 * held once, globally (the primary key of `domains`), from the reservation of a purchase on. The registrar is
 * authoritative for expiry, lock and nameservers: the domain reconciler and the registrar calls of the core write
 * its answers here (`recordRegistrarFacts`).
 */
import { and, asc, count, desc, eq, gt, ne, sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../lib/canonical-json';
import { conflict, notFound } from '../lib/errors';
import { quotaExceeded } from '../rules/plans';
import { iso, type Store, type Tx } from './db';
import { appendAudit, recordChange } from './feed';
import { decodeCursor, toPage, type Page } from './paging';
import { domainLedger, domainPurchases, domains, resourceStatus, zones } from './schema';
import { recordStatus, statusOf, toResourceStatus, type Judged, type ResourceStatus, type StatusKind } from './status';
import { zonesAround } from './zones';

export type DomainState = 'pending' | 'active' | 'expired' | 'transferred_out' | 'imported';
export type DomainRow = typeof domains.$inferSelect & { status: DomainState };
export type PurchaseRow = typeof domainPurchases.$inferSelect & { step: PurchaseStep };

/**
 * The saga's steps, each stored before the external call it makes: `reserved` (the name held, the zone quota
 * counted) → `charging` (the charge sent, idempotency key `purchase:<id>:charge`) → `charged` → `registering`
 * (the registration sent, ref `<id>`) → `registered` → `done`; or `refunding` → `refunded` when the name cannot
 * be registered after the charge, `failed` when it ended before any charge (declined, unavailable).
 */
export const PURCHASE_STEPS = ['reserved', 'charging', 'charged', 'registering', 'registered', 'done', 'refunding', 'refunded', 'failed'] as const;
export type PurchaseStep = (typeof PURCHASE_STEPS)[number];
const CLOSED: PurchaseStep[] = ['done', 'refunded', 'failed'];

export interface LedgerEntry { at: string; kind: string; amountCents: number; currency: string; note: string }

/** What the domain reconciler observes of a domain besides its conditions. */
export interface DomainFacts {
  /** The registrar's own auto-renew (or null for an imported domain). */
  registrarAutoRenew: boolean | null;
}
export type DomainStatus = ResourceStatus<DomainFacts>;
/** Domain status as the domain reconciler records it (store/status.ts recordStatus). */
export const DOMAIN_STATUS: StatusKind<DomainFacts> = { kind: 'domain', facts: { registrarAutoRenew: null } };

/** The registrar has just answered for the domain. */
export const SYNCED: Judged = { type: 'Synced', status: 'True', reason: 'Synced', message: 'expiry, lock and nameservers as the registrar answers them' };

/** Records `set` and `lastError` on the status of the domain's current lifetime (the status writer keeps the other
 * conditions); nothing for a name without a domain. The reconciler and the registrar calls of the API share it. */
export async function recordDomainConditions(s: Store, name: string, set: Judged[], lastError: string | null): Promise<void> {
  const dom = await domainByName(s, name);
  if (dom) await recordStatus(s, DOMAIN_STATUS, name, { uid: dom.uid, generation: dom.generation, set, lastError });
}
export interface DomainWithStatus extends DomainRow { observed: DomainStatus | null; purchaseStep: PurchaseStep | null }

const statusJoin = and(eq(resourceStatus.kind, 'domain'), eq(resourceStatus.key, domains.name), eq(resourceStatus.uid, domains.uid));

async function withStatus(s: Store, d: DomainRow): Promise<DomainWithStatus> {
  const st = await statusOf<DomainFacts>(s, 'domain', d.name, d.uid);
  const p = d.status === 'pending'
    ? await openPurchaseOf(s, d.name)
    : undefined;
  return {
    ...d,
    observed: st ?? null,
    purchaseStep: (p?.step as PurchaseStep | undefined) ?? null,
  };
}

/** The domain of this organization; another's (or none) is 404. */
export async function domainOf(s: Store, orgId: number, name: string): Promise<DomainWithStatus> {
  const d = await domainByName(s, name);
  if (!d || d.orgId !== orgId) throw notFound(`domain ${name}`);
  return withStatus(s, d);
}

/** The domain row by name alone, for the core and the reconciler. */
export async function domainByName(s: Store, name: string): Promise<DomainRow | undefined> {
  const [d] = await s.db.select().from(domains).where(eq(domains.name, name)).limit(1) as DomainRow[];
  return d;
}

export async function listDomains(s: Store, orgId: number, limit: number, cursor?: string): Promise<Page<DomainWithStatus>> {
  const after = cursor === undefined ? undefined : gt(domains.name, decodeCursor(cursor));
  // The page with each domain's status and open purchase (one at most: domain_purchases_open_name) in one read.
  const rows = await s.db.select({ d: domains, st: resourceStatus, step: domainPurchases.step }).from(domains)
    .leftJoin(resourceStatus, statusJoin)
    .leftJoin(domainPurchases, and(eq(domainPurchases.name, domains.name), eq(domainPurchases.open, 1)))
    .where(and(eq(domains.orgId, orgId), after)).orderBy(asc(domains.name)).limit(limit + 1);
  const page = toPage(rows, limit, (r) => r.d.name);
  return {
    items: page.items.map(({ d, st, step }) => ({
      ...(d as DomainRow),
      observed: st && toResourceStatus<DomainFacts>(st),
      purchaseStep: d.status === 'pending' ? (step as PurchaseStep | null) : null,
    })),
    nextCursor: page.nextCursor,
  };
}

/** The most recent ledger entries of the organization's domain, newest first. */
export async function ledgerOf(s: Store, orgId: number, name: string, limit = 50): Promise<LedgerEntry[]> {
  return s.db.select({ at: domainLedger.at, kind: domainLedger.kind, amountCents: domainLedger.amountCents, currency: domainLedger.currency, note: domainLedger.note })
    .from(domainLedger).where(and(eq(domainLedger.orgId, orgId), eq(domainLedger.name, name))).orderBy(desc(domainLedger.id)).limit(limit);
}

export async function addLedger(tx: Tx, e: { orgId: number; name: string; kind: string; amountCents: number; currency: string; note: string; reference?: string | null }, at: Date): Promise<void> {
  await tx.insert(domainLedger).values({ ...e, reference: e.reference ?? null, at: iso(at) });
}

/** A zone of another organization at, above or below `name`: the name is theirs to run. */
const zoneOfOther = async (tx: Tx, orgId: number, name: string): Promise<boolean> => (await zonesAround(tx, name)).some((z) => z.orgId !== orgId);

/** The organization's zones and the zones its open purchases will create: what a new zone counts against. */
async function zonesCounted(tx: Tx, orgId: number): Promise<number> {
  const [z] = await tx.select({ n: count() }).from(zones).where(eq(zones.orgId, orgId));
  const [p] = await tx.select({ n: count() }).from(domainPurchases)
    .where(and(eq(domainPurchases.orgId, orgId), eq(domainPurchases.open, 1), sql`${domainPurchases.name} NOT IN (SELECT name FROM zones)`));
  return (z?.n ?? 0) + (p?.n ?? 0);
}

export interface ReservePurchase {
  orgId: number;
  name: string;
  years: number;
  paymentMethod: string;
  contactSealed: string;
  actor: string;
  quota: { plan: string; limit: number };
}

export type Reservation =
  | { kind: 'finished'; domain: DomainRow }
  | { kind: 'open'; purchase: PurchaseRow }
  | { kind: 'new'; purchase: PurchaseRow };

/**
 * The reserve step: holds the name for the organization (a `pending` domain row) and opens its purchase, the zone
 * quota counted with the zones other open purchases will create, before anything is charged. The organization's
 * open purchase of the name is answered as it is (a resend resumes it), a finished one as finished. A name another
 * organization holds, is buying, or runs a zone at, above or below, is 409 `domain_taken`.
 */
export async function reservePurchase(s: Store, p: ReservePurchase): Promise<Reservation> {
  const now = s.clock();
  return s.write(async (tx) => {
    await tx.lock('zones');
    await tx.lock(`domain/${p.name}`);
    const [d] = await tx.select().from(domains).where(eq(domains.name, p.name)) as DomainRow[];
    if (d && d.orgId !== p.orgId && d.status !== 'transferred_out') throw conflict('domain_taken', `${p.name} is held by another organization, or being bought by one`);
    if (d?.status === 'pending') {
      const [open] = await tx.select().from(domainPurchases).where(and(eq(domainPurchases.name, p.name), eq(domainPurchases.open, 1))) as PurchaseRow[];
      if (open) return { kind: 'open', purchase: open };
    }
    if (d && (d.status === 'active' || d.status === 'expired')) return { kind: 'finished', domain: d };
    if (d?.status === 'imported') {
      throw conflict('domain_unavailable', `${p.name} is imported: it is registered at another registrar, where it is renewed and transferred`);
    }
    if (await zoneOfOther(tx, p.orgId, p.name)) throw conflict('domain_taken', `${p.name} (or a zone above or below it) belongs to another organization`);
    const [own] = await tx.select({ name: zones.name }).from(zones).where(eq(zones.name, p.name));
    if (!own) {
      const n = await zonesCounted(tx, p.orgId);
      if (n >= p.quota.limit) throw quotaExceeded('zones', p.quota.limit, n, p.quota.plan, 'zones');
    }
    // A domain transferred out (or left half-made) is bought again as a new lifetime.
    if (d) await tx.delete(domains).where(eq(domains.name, p.name));
    await tx.insert(domains).values({
      name: p.name, orgId: p.orgId, uid: randomUUID(), status: 'pending', nameservers: [], autoRenew: true, createdAt: iso(now),
    });
    const row = {
      id: randomUUID(), orgId: p.orgId, name: p.name, years: p.years, paymentMethod: p.paymentMethod, contactSealed: p.contactSealed, step: 'reserved' as const,
      open: 1, amountCents: null, currency: null, chargeId: null, actor: p.actor, lastError: null, createdAt: iso(now), updatedAt: iso(now),
    };
    await tx.insert(domainPurchases).values(row);
    await recordChange(s, tx, 'domain', p.name, now);
    return { kind: 'new', purchase: row };
  });
}

export async function purchaseById(s: Store, id: string): Promise<PurchaseRow | undefined> {
  const [p] = await s.db.select().from(domainPurchases).where(eq(domainPurchases.id, id)).limit(1) as PurchaseRow[];
  return p;
}

/** The open purchase of `name`, if any (at most one: domain_purchases_open_name). */
export async function openPurchaseOf(s: Store, name: string): Promise<PurchaseRow | undefined> {
  const [p] = await s.db.select().from(domainPurchases).where(and(eq(domainPurchases.name, name), eq(domainPurchases.open, 1))).limit(1) as PurchaseRow[];
  return p;
}

/** Stores the step a purchase is at (before the external call it makes), with what the last one learned. */
export async function setPurchaseStep(
  s: Store, from: Pick<PurchaseRow, 'id' | 'step'>, step: PurchaseStep,
  patch: Partial<{ amountCents: number; currency: string; chargeId: string; lastError: string | null }> = {},
  ledger?: { kind: string; note: string; amountCents: number; currency: string; reference: string },
): Promise<PurchaseRow> {
  const now = s.clock();
  return s.write(async (tx) => {
    const closed = CLOSED.includes(step);
    // Only from the step the caller read: another process (a replica answering the same purchase sent again, a
    // leader's reconciler finishing it) may have moved it on meanwhile, and a step must never go back nor its
    // ledger line be written twice. The caller resumes from the row answered.
    const moved = await tx.update(domainPurchases).set({ step, ...patch, updatedAt: iso(now), ...(closed ? { open: 0, contactSealed: null } : {}) })
      .where(and(eq(domainPurchases.id, from.id), eq(domainPurchases.step, from.step))).returning({ id: domainPurchases.id });
    const [row] = await tx.select().from(domainPurchases).where(eq(domainPurchases.id, from.id)) as PurchaseRow[];
    if (!row) throw new Error(`purchase ${from.id} is gone`);
    if (moved.length === 0) return row;
    if (ledger) await addLedger(tx, { orgId: row.orgId, name: row.name, ...ledger }, now);
    if (closed && step !== 'done') {
      // The name is free again: the pending row of this purchase goes (never a finished domain).
      await tx.delete(domains).where(and(eq(domains.name, row.name), eq(domains.orgId, row.orgId), eq(domains.status, 'pending')));
      await recordChange(s, tx, 'domain', row.name, now);
    }
    return row;
  });
}

/** The last lines of a purchase: the domain active with the registrar's answer, the purchase done (its sealed
 * contact dropped), the audit record (no contact in it). The zone was created before, through createZone. */
export async function finishPurchase(
  s: Store, p: PurchaseRow, reg: { expiresAt: string; locked: boolean; nameservers: string[] }, by: 'request' | 'reconciler',
): Promise<void> {
  const now = s.clock();
  const finished = await s.write(async (tx) => {
    // Finished once: another process that finished it first wrote the domain and its audit record.
    const closing = await tx.update(domainPurchases).set({ step: 'done', open: 0, contactSealed: null, lastError: null, updatedAt: iso(now) })
      .where(and(eq(domainPurchases.id, p.id), eq(domainPurchases.step, 'registered'))).returning({ id: domainPurchases.id });
    if (closing.length === 0) return false;
    await tx.update(domains).set({
      status: 'active', expiresAt: reg.expiresAt, locked: reg.locked, nameservers: reg.nameservers, paymentRef: p.paymentMethod, syncedAt: iso(now),
      generation: sql`${domains.generation} + 1`,
    }).where(and(eq(domains.name, p.name), eq(domains.orgId, p.orgId)));
    await recordChange(s, tx, 'domain', p.name, now);
    await appendAudit(tx, {
      orgId: p.orgId, event: 'domain.purchase', actor: p.actor, target: p.name,
      details: { years: p.years, amountCents: p.amountCents, currency: p.currency, ...(by === 'reconciler' ? { completedBy: 'system' } : {}) },
    }, now);
    return true;
  });
  if (!finished) return;
  // The registrar's answer is as fresh as a sync's: without the condition the domain would read unobserved until
  // the reconciler's next sync, hours away.
  await recordDomainConditions(s, p.name, [SYNCED], null);
}

export interface RegistrarFacts { expiresAt: string; locked: boolean; nameservers: string[] }

/** The registrar's answer about a domain (or its absence: `transferred_out`), for this lifetime only, with the
 * `Synced` condition; an imported domain's delegation, which is public DNS's answer, sets no condition. */
export async function recordRegistrarFacts(s: Store, name: string, uid: string, facts: RegistrarFacts | 'transferred_out' | { delegation: string[] }): Promise<DomainRow | undefined> {
  const now = s.clock();
  const row = await s.write(async (tx) => {
    // The new generation is the one read plus one: a concurrent change of the row must commit before the read.
    await tx.lock(`domain/${name}`);
    const [d] = await tx.select().from(domains).where(and(eq(domains.name, name), eq(domains.uid, uid))) as DomainRow[];
    if (!d) return undefined;
    let set: Partial<typeof domains.$inferInsert>;
    if (facts === 'transferred_out') set = { status: 'transferred_out' };
    else if ('delegation' in facts) set = { nameservers: facts.delegation };
    else {
      const expired = d.status !== 'transferred_out' && Date.parse(facts.expiresAt) < now.getTime();
      set = { ...facts, status: d.status === 'transferred_out' ? d.status : expired ? 'expired' : 'active' };
    }
    const changed = Object.entries(set).some(([k, v]) => JSON.stringify((d as Record<string, unknown>)[k]) !== JSON.stringify(v));
    await tx.update(domains).set({ ...set, syncedAt: iso(now), ...(changed ? { generation: d.generation + 1 } : {}) }).where(eq(domains.name, name));
    if (changed) await recordChange(s, tx, 'domain', name, now);
    const [after] = await tx.select().from(domains).where(eq(domains.name, name)) as DomainRow[];
    return after;
  });
  if (row && !(typeof facts === 'object' && 'delegation' in facts)) await recordDomainConditions(s, name, [SYNCED], null);
  return row;
}

/** importDomain's row (the zone is made before, through createZone): 201 for a new one, 200 for the org's own. */
export async function importDomainRow(s: Store, p: { orgId: number; name: string; nameservers: string[]; actor: string }): Promise<{ domain: DomainRow; created: boolean }> {
  const now = s.clock();
  return s.write(async (tx) => {
    await tx.lock(`domain/${p.name}`);
    const [d] = await tx.select().from(domains).where(eq(domains.name, p.name)) as DomainRow[];
    if (d && d.orgId !== p.orgId && d.status !== 'transferred_out') throw conflict('domain_taken', `${p.name} is held by another organization, or being bought by one`);
    if (d && d.status !== 'transferred_out') return { domain: d, created: false };
    if (d) await tx.delete(domains).where(eq(domains.name, p.name));
    const row = {
      name: p.name, orgId: p.orgId, uid: randomUUID(), status: 'imported' as const, expiresAt: null, locked: false, nameservers: [], autoRenew: false,
      paymentRef: null, renewal: null, syncedAt: null, generation: 1, createdAt: iso(now),
    };
    await tx.insert(domains).values(row);
    await recordChange(s, tx, 'domain', p.name, now);
    await appendAudit(tx, { orgId: p.orgId, event: 'domain.import', actor: p.actor, target: p.name }, now);
    return { domain: row, created: true };
  });
}

/** Another organization's domain row at the name, for importDomain's check before the zone. A domain transferred out
 * is held by nobody here any more: its row is the record of a lifetime that ended. */
export async function heldByOther(s: Store, orgId: number, name: string): Promise<boolean> {
  const [held] = await s.db.select({ n: count() }).from(domains)
    .where(and(eq(domains.name, name), ne(domains.orgId, orgId), ne(domains.status, 'transferred_out')));
  return held!.n > 0;
}

export async function setAutoRenew(s: Store, p: { orgId: number; name: string; autoRenew: boolean; actor: string }): Promise<void> {
  const now = s.clock();
  await s.write(async (tx) => {
    // As recordRegistrarFacts: the generation written is the one read plus one.
    await tx.lock(`domain/${p.name}`);
    const [d] = await tx.select().from(domains).where(eq(domains.name, p.name)) as DomainRow[];
    if (!d || d.orgId !== p.orgId) throw notFound(`domain ${p.name}`);
    if (d.autoRenew === p.autoRenew) return;
    await tx.update(domains).set({ autoRenew: p.autoRenew, generation: d.generation + 1 }).where(eq(domains.name, p.name));
    await recordChange(s, tx, 'domain', p.name, now);
    await appendAudit(tx, { orgId: p.orgId, event: 'domain.auto_renew', actor: p.actor, target: p.name, details: { autoRenew: p.autoRenew } }, now);
  });
}

/** An audit record of a registrar operation done for a caller (`domain.renew`, `domain.lock`, `domain.auth_code`):
 * the details never carry a transfer code. */
export async function auditDomain(s: Store, e: { orgId: number; event: string; actor: string; name: string; details?: Record<string, unknown> }): Promise<void> {
  const now = s.clock();
  await s.write(async (tx) => {
    await appendAudit(tx, { orgId: e.orgId, event: e.event, actor: e.actor, target: e.name, details: e.details }, now);
  });
}

/** A renewal under way (stored before each external call): renew at the registrar, then bill. */
export interface Renewal { fromExpiresAt: string; years: number; state: 'renewing' | 'billing'; amountCents: number; currency: string; newExpiresAt?: string; auto: boolean; actor: string }

/** Moves the renewal of the domain lifetime `uid` from `from` (as the caller read it) to `to`, with its ledger line
 * and the registrar's facts, only while the stored renewal is still `from`: another process (a replica answering a
 * renewal too, the leader's reconciler) may have moved it on, and a renewal must not go back nor be billed in the
 * ledger twice. Answers whether it moved. */
export async function setRenewal(
  s: Store, name: string, uid: string, from: Renewal | null, to: Renewal | null,
  ledger?: { orgId: number; kind: string; amountCents: number; currency: string; note: string; reference?: string | null }, facts?: RegistrarFacts,
): Promise<boolean> {
  const now = s.clock();
  return s.write(async (tx) => {
    await tx.lock(`domain/${name}`);
    const [d] = await tx.select({ renewal: domains.renewal }).from(domains).where(and(eq(domains.name, name), eq(domains.uid, uid)));
    if (!d || canonicalJson(d.renewal ?? null) !== canonicalJson(from)) return false;
    await tx.update(domains).set({ renewal: to as unknown as Record<string, unknown> | null, ...(facts ? { ...facts, status: 'active', syncedAt: iso(now) } : {}) })
      .where(and(eq(domains.name, name), eq(domains.uid, uid)));
    if (ledger) await addLedger(tx, { name, ...ledger }, now);
    return true;
  });
}

/** Every name the domain reconciler looks after: domains and open purchases. */
export async function allDomainKeys(s: Store): Promise<string[]> {
  const a = (await s.db.select({ name: domains.name }).from(domains)).map((r) => r.name);
  const b = (await s.db.select({ name: domainPurchases.name }).from(domainPurchases).where(eq(domainPurchases.open, 1))).map((r) => r.name);
  return [...new Set([...a, ...b])].sort();
}

/** Domains and their reconcile status, for operators (admin status). */
export async function domainReconcileStatus(s: Store) {
  return (await s.db.select({ name: domains.name, status: domains.status, expiresAt: domains.expiresAt, syncedAt: domains.syncedAt, st: resourceStatus })
    .from(domains).leftJoin(resourceStatus, statusJoin).orderBy(asc(domains.name)))
    .map((r) => ({ domain: r.name, status: r.status, expiresAt: r.expiresAt, syncedAt: r.syncedAt, conditions: r.st?.conditions ?? [], lastError: r.st?.lastError ?? null }));
}

export const purchaseIsOpen = (p: PurchaseRow): boolean => !CLOSED.includes(p.step);
