/** DNS zones and their rrsets: the desired state the zone reconciler converges the nameserver to. */
import { and, asc, count, eq, gt, inArray, like, or, sql } from 'drizzle-orm';
import { conflict, notFound } from '../lib/errors';
import { quotaExceeded } from '../rules/plans';
import { aliasConflict, checkCnameConflict, dsWithoutDelegation, MAX_ALIASES_PER_ZONE, nextSerial, renderedBytes, serialGreater, validateRRset, type RecordType, type RRset } from '../zonefiles';
import { iso, type Db, type Store, type Tx } from './db';
import { appendAudit, auditStatement, recordChange, runLast, runStatement, type Statement } from './feed';
import { decodeCursor, toPage, type Page } from './paging';
import { randomUUID } from 'node:crypto';
import { domains, resourceStatus, rrsetTombstones, rrsets, zoneAliases, zoneFinalizers, zoneRevisions, zoneTombstones, zones, type DsValue } from './schema';
import { statusOf, toResourceStatus, type ResourceStatus, type StatusKind } from './status';
import { revisionStatement, summaryOf, writeOrDryRun, type RevisionChange, type RevisionNote } from './zone-revisions';
import { handedChanges, handOver } from './zone-handover';

export type DnssecState = 'off' | 'signing' | 'ds_pending';
export type ManagedBy = 'system' | 'app' | 'acme' | null;

export interface ZoneRow {
  name: string;
  /** This lifetime of the zone: a zone created again under the name gets another. */
  uid: string;
  orgId: number;
  dnssec: DnssecState;
  ds: DsValue[];
  serial: number;
  generation: number;
  createdAt: string;
  rrsetCount: number;
  bytes: number;
  /** Deletions at or below this generation may have lost their tombstones (store/rrset-tombstones.ts): the changes
   * since an earlier generation are not known without reading the zone whole. */
  tombstonesPrunedTo: number;
  /** The sum of the zone's revisions' bytes (the schema's `revisionBytes`). */
  revisionBytes: number;
}

export interface StoredRRset extends RRset { managedBy: ManagedBy }

/** What the zone reconciler observes of a zone, besides its conditions. */
export interface ZoneFacts {
  /** The SOA serial the nameserver answered with; a signer may serve more than the zone's own. */
  servedSerial: number | null;
  /** The serial of the zone text last applied: the zone's own, or one above a served serial the signer raised. */
  renderedSerial: number | null;
  /** DS values the signer reports for the parent. */
  signerDs: DsValue[];
  /** Whether the parent delegates to the service's nameservers (looked up apart from the apply path). */
  delegated: boolean | null;
  /** How the nameserver was last told to sign the zone: `delete-ds` while DNSSEC goes off (CDS/CDNSKEY DELETE
   * published, still signed). Absent before the first apply that recorded it. */
  signing?: 'off' | 'on' | 'delete-ds';
  /** The parent's DS rrset as last seen through the resolver (its TTL, when), null once it was seen gone. */
  parentDs?: { ttl: number; seenAt: string } | null;
  /** The signer's KSK (key tag) the nameserver was told the parent publishes a DS for (setZoneDS). */
  dsConfirmedKeyTag?: number | null;
  /** What each configured secondary served at the last look. */
  secondaries?: { address: string; serial: number | null }[];
  /** What each ALIAS target resolved to (reconcilers/zones/aliases.ts). */
  aliases?: AliasFact[];
}

/** What status shows of each ALIAS. */
export interface AliasFact {
  name: string;
  target: string;
  /** The addresses served at the name, A then AAAA; [] while the target never answered. */
  addresses: string[];
  /** Their TTL; null while the target never answered. */
  ttl: number | null;
  resolvedAt: string | null;
  checkedAt: string | null;
  error: string | null;
}

export type ZoneStatus = ResourceStatus<ZoneFacts>;
/** Zone status as the zone reconciler records it (store/status.ts recordStatus). */
export const ZONE_STATUS: StatusKind<ZoneFacts> = { kind: 'zone', facts: { servedSerial: null, renderedSerial: null, signerDs: [], delegated: null } };

export interface ZoneWithStatus extends ZoneRow { status: ZoneStatus | null }

/** What an rrset's entity tag is made of: the zone's lifetime and the generation that last changed the rrset,
 * which a repeated identical write leaves as it is. */
export interface RRsetVersion { uid: string; changedGen: number }

/**
 * A write's precondition (If-Match, If-None-Match: api/conditional.ts), called inside the write's transaction
 * with what is stored now, so that nothing can change between the check and the write; it throws to refuse.
 * For an rrset, null when there is none.
 */
export type RRsetPrecondition = (current: RRsetVersion | null) => void;
/** A zone operation's precondition, called with the zone row and its status as the transaction reads them. */
export type ZonePrecondition = (current: ZoneWithStatus) => void;

/** The zone's status as the write's transaction reads it, for a precondition on the whole zone. */
async function statusInTx(tx: Tx, z: ZoneRow): Promise<ZoneStatus | null> {
  const [row] = await tx.select().from(resourceStatus).where(and(eq(resourceStatus.kind, 'zone'), eq(resourceStatus.key, z.name)));
  if (!row || row.uid !== z.uid) return null;
  return toResourceStatus<ZoneFacts>(row);
}

export async function checkZone(tx: Tx, z: ZoneRow, precondition: ZonePrecondition | undefined): Promise<void> {
  if (precondition) precondition({ ...z, status: await statusInTx(tx, z) });
}

const NS_TTL = 86_400;

/** The zone row by name: prepared once per store (each side), since writes and every reconcile pass read it. */
const zoneByNameQuery = (db: Db) => db.select().from(zones).where(eq(zones.name, sql.placeholder('name'))).prepare();

/** The zone of this organization; another's reads as missing. Null: of whichever organization holds it, for
 * the service's own records (a project's hostname may have one in a platform zone the operator holds). Read
 * through the store, or through a write's handle. */

async function zoneOf(q: Pick<Tx, 'prepared'>, orgId: number | null, name: string): Promise<ZoneRow> {
  const [z] = await q.prepared('zoneOf', zoneByNameQuery).execute({ name });
  if (!z || (orgId !== null && z.orgId !== orgId)) throw notFound(`zone ${name}`);
  return z;
}

/** The zone a write changes, read under the zone's lock: its serial, generation and sizes are read, then
 * written back. */
export async function zoneToChange(tx: Tx, orgId: number | null, name: string): Promise<ZoneRow> {
  await tx.lock(`zone/${name}`);
  return zoneOf(tx, orgId, name);
}

/** An rrset stored at the name an rrset write names, as the write checks it against the new one. */
interface RRsetAtName { type: string; managedBy: string | null; bytes: number; ttl: number; records: RRset['records']; changedGen: number }

/** `zoneToChange` with the rrsets stored at `owner`, in one statement: an rrset write needs both, and on
 * PostgreSQL each statement is a round trip held under the zone's lock. */
async function zoneToChangeAt(tx: Tx, orgId: number | null, name: string, owner: string): Promise<{ z: ZoneRow; atName: RRsetAtName[] }> {
  await tx.lock(`zone/${name}`);
  const rows = await tx.prepared('zoneWithRRsetsAtName', (db) => db.select({
    zone: zones,
    rrset: { type: rrsets.type, managedBy: rrsets.managedBy, bytes: rrsets.bytes, ttl: rrsets.ttl, records: rrsets.records, changedGen: rrsets.changedGen },
  })
    .from(zones).leftJoin(rrsets, and(eq(rrsets.zone, zones.name), eq(rrsets.name, sql.placeholder('owner'))))
    .where(eq(zones.name, sql.placeholder('name'))).prepare())
    .execute({ name, owner });
  const z = rows[0]?.zone;
  if (!z || (orgId !== null && z.orgId !== orgId)) throw notFound(`zone ${name}`);
  return { z, atName: rows.flatMap((r) => (r.rrset ? [r.rrset] : [])) };
}

/**
 * Every desired change to a zone's content raises its serial (never backwards: it is stored) and generation, and
 * is recorded as the revision of that generation; an rrset write also moves the zone's size (`grow`: rrsets and
 * bytes added), in the same statement. The zone row, the revision, the feed row and the statements `along` makes for
 * the new generation go together (store/feed.ts `recordChange`): on PostgreSQL one round trip.
 */
export async function bump(
  s: Store, tx: Tx, z: ZoneRow, now: Date, note: RevisionNote, grow = { rrsets: 0, bytes: 0 }, along: (generation: number) => Statement[] = () => [],
): Promise<ZoneRow> {
  const serial = nextSerial(z.serial, now);
  const generation = z.generation + 1;
  const zoneRow: Statement = {
    key: 'bumpZone',
    build: (db) => db.update(zones)
      .set({
        serial: sql`${sql.placeholder('serial')}`, generation: sql`${sql.placeholder('generation')}`,
        rrsetCount: sql`${zones.rrsetCount} + ${sql.placeholder('rrsets')}`, bytes: sql`${zones.bytes} + ${sql.placeholder('bytes')}`,
        revisionBytes: sql`${zones.revisionBytes} + ${sql.placeholder('revisionBytes')}`,
      })
      .where(eq(zones.name, sql.placeholder('name'))),
    values: { serial, generation, name: z.name, ...grow, revisionBytes: note.bytes ?? 0 },
  };
  await recordChange(s, tx, 'zone', z.name, now, [zoneRow, revisionStatement(z.name, generation, serial, note, now), ...along(generation)]);
  return { ...z, serial, generation, rrsetCount: z.rrsetCount + grow.rrsets, bytes: z.bytes + grow.bytes, revisionBytes: z.revisionBytes + (note.bytes ?? 0) };
}

const withStatus = async (s: Store, z: ZoneRow): Promise<ZoneWithStatus> => ({ ...z, status: (await zoneStatusOf(s, z)) ?? null });

/** The status of this lifetime of the zone. */
export function zoneStatusOf(s: Store, z: { name: string; uid: string }): Promise<ZoneStatus | undefined> {
  return statusOf<ZoneFacts>(s, 'zone', z.name, z.uid);
}

export interface CreateZone {
  orgId: number;
  name: string;
  nameservers: string[];
  actor: string;
  /** The organization's zone quota (plan name and limit); the operator's own zones have none. */
  quota: { plan: string; limit: number } | null;
}

/**
 * Idempotent: the same organization gets its existing zone back unchanged (`created: false`). A zone held
 * by another organization, or nested in or above one, is `zone_taken`: a nested zone would let one tenant
 * answer for names of another. A new zone beyond the quota is `quota_exceeded`, counted inside the write
 * transaction so that concurrent creations cannot pass it. Both checks read zones of any organization: zone
 * creations take one lock, `zones`.
 */
/** The names above `name` (`a.b.example.com` → `b.example.com`, `example.com`, `com`). */
export const parentNames = (name: string): string[] => {
  const labels = name.split('.');
  return labels.slice(1).map((_, i) => labels.slice(i + 1).join('.'));
};

/** The zones of any organization at, above or below `name`, as a write's transaction reads them (under the
 * `zones` lock, which zone creations and purchases take). */
export async function zonesAround(tx: Tx, name: string): Promise<{ name: string; orgId: number }[]> {
  const parents = parentNames(name);
  // LIKE only narrows the search: `_` in a zone name is a LIKE wildcard, so keep true nesting alone.
  return (await tx.select({ name: zones.name, orgId: zones.orgId }).from(zones)
    .where(or(eq(zones.name, name), parents.length ? inArray(zones.name, parents) : undefined, like(zones.name, `%.${name}`))))
    .filter((z) => z.name === name || parents.includes(z.name) || z.name.endsWith(`.${name}`));
}

export async function createZone(s: Store, p: CreateZone): Promise<{ zone: ZoneWithStatus; created: boolean }> {
  const now = s.clock();
  const parents = parentNames(p.name);
  const result = await s.write(async (tx) => {
    await tx.lock('zones');
    const clash = await zonesAround(tx, p.name);
    // An organization may split its own zones (delegation inside one account); only another's is in the way.
    const same = clash.find((z) => z.name === p.name);
    if (same && same.orgId === p.orgId) return { zone: await zoneOf(tx, p.orgId, p.name), created: false };
    if (clash.some((z) => z.orgId !== p.orgId)) {
      throw conflict('zone_taken', `zone ${p.name} (or a zone above or below it) belongs to another organization`);
    }
    // A domain another organization holds or is buying (store/domains.ts): its zone, and every name under it,
    // are theirs to come; a zone of another under it would answer for part of what they paid for.
    const held = (await tx.select({ name: domains.name, orgId: domains.orgId, status: domains.status }).from(domains)
      .where(inArray(domains.name, [p.name, ...parents])))
      .find((d) => d.orgId !== p.orgId && d.status !== 'transferred_out');
    if (held) {
      throw conflict('zone_taken', held.name === p.name
        ? `zone ${p.name} belongs to a domain of another organization`
        : `zone ${p.name} is under ${held.name}, a domain of another organization`);
    }
    if (p.quota) {
      // A purchase still open holds a zone to come (store/domains.ts reserves it against the same quota).
      const [counted] = await tx.select({ n: count() }).from(zones).where(eq(zones.orgId, p.orgId));
      const [buying] = await tx.select({ n: count() }).from(domains).where(and(eq(domains.orgId, p.orgId), eq(domains.status, 'pending')));
      const n = (counted?.n ?? 0) + (buying?.n ?? 0);
      if (n >= p.quota.limit) throw quotaExceeded('zones', p.quota.limit, n, p.quota.plan, 'zones');
    }
    const [before] = await tx.select({ serial: zoneTombstones.serial }).from(zoneTombstones).where(eq(zoneTombstones.name, p.name));
    const ns: RRset = { name: p.name, type: 'NS', ttl: NS_TTL, records: p.nameservers.map((h) => ({ content: h })) };
    const bytes = renderedBytes(p.name, ns);
    const row: ZoneRow = {
      name: p.name, uid: randomUUID(), orgId: p.orgId, dnssec: 'off', ds: [], serial: nextSerial(before?.serial ?? 0, now), generation: 1, createdAt: iso(now),
      rrsetCount: 1, bytes, tombstonesPrunedTo: 0, revisionBytes: 0,
    };
    await tx.insert(zones).values(row);
    await tx.insert(rrsets).values({ zone: p.name, ...ns, managedBy: 'system', changedGen: 1, bytes });
    const diff: RevisionChange[] = [{ op: 'add', name: p.name, type: 'NS', before: null, after: { ttl: ns.ttl, records: ns.records }, managedBy: 'system' }];
    await recordChange(s, tx, 'zone', p.name, now, [revisionStatement(p.name, 1, row.serial, { actor: p.actor, summary: 'zone created', diff }, now)]);
    await recordChange(s, tx, 'zone-lifetime', p.name, now);
    await appendAudit(tx, { orgId: p.orgId, event: 'dns.zone.create', actor: p.actor, target: p.name }, now);
    return { zone: row, created: true };
  });
  return { zone: await withStatus(s, result.zone), created: result.created };
}

export async function listZones(s: Store, orgId: number, limit: number, cursor?: string): Promise<Page<ZoneWithStatus>> {
  const after = cursor === undefined ? undefined : gt(zones.name, decodeCursor(cursor));
  const rows = await s.db.select().from(zones).where(and(eq(zones.orgId, orgId), after)).orderBy(asc(zones.name)).limit(limit + 1);
  const page = toPage(rows, limit, (r) => r.name);
  return { items: await Promise.all(page.items.map((z) => withStatus(s, z))), nextCursor: page.nextCursor };
}

/** The zone row with the status of its lifetime, in one statement: getZone is the API's hot read. */
const zoneWithStatusQuery = (db: Db) => db.select({ zone: zones, st: resourceStatus }).from(zones)
  .leftJoin(resourceStatus, and(eq(resourceStatus.kind, 'zone'), eq(resourceStatus.key, zones.name), eq(resourceStatus.uid, zones.uid)))
  .where(eq(zones.name, sql.placeholder('name'))).prepare();

export async function getZone(s: Store, orgId: number, name: string): Promise<ZoneWithStatus> {
  const [row] = await s.prepared('zoneWithStatus', zoneWithStatusQuery).execute({ name });
  if (!row || row.zone.orgId !== orgId) throw notFound(`zone ${name}`);
  return { ...row.zone, status: row.st && toResourceStatus<ZoneFacts>(row.st) };
}

/** The zone row by name alone, for reconcilers (no organization scope). */
export async function zoneByName(s: Store, name: string): Promise<ZoneRow | undefined> {
  const [zone] = await s.prepared('zoneOf', zoneByNameQuery).execute({ name });
  return zone;
}

/** Every stored zone with whether it is signed: what the nameserver starts with. */
export async function zoneConfigs(s: Store): Promise<{ name: string; dnssec: boolean }[]> {
  return (await s.db.select({ name: zones.name, dnssec: zones.dnssec }).from(zones)).map((z) => ({ name: z.name, dnssec: z.dnssec !== 'off' }));
}

/** Every zone's lifetime, and whether a nameserver served it (its status, of that lifetime, records a served serial):
 * what the catalog zone lists (reconcilers/zones/catalog.ts). */
export async function zoneLifetimes(s: Store): Promise<{ name: string; uid: string; served: boolean }[]> {
  const rows = await s.db.select({ name: zones.name, uid: zones.uid, statusUid: resourceStatus.uid, facts: resourceStatus.facts }).from(zones)
    .leftJoin(resourceStatus, and(eq(resourceStatus.kind, ZONE_STATUS.kind), eq(resourceStatus.key, zones.name)));
  return rows.map((r) => ({ name: r.name, uid: r.uid, served: r.statusUid === r.uid && (r.facts as Partial<ZoneFacts> | null)?.servedSerial != null }));
}

/** Every zone name the zone reconciler may have work for: zones, and deleted zones not finalized yet. */
export async function allZoneNames(s: Store): Promise<string[]> {
  const names = (await s.db.select({ name: zones.name }).from(zones)).map((r) => r.name);
  const finalizing = (await s.db.selectDistinct({ name: zoneFinalizers.name }).from(zoneFinalizers)).map((r) => r.name);
  return [...new Set([...names, ...finalizing])].sort();
}

export async function deleteZone(s: Store, p: { orgId: number; name: string; actor: string; precondition?: ZonePrecondition }): Promise<void> {
  const now = s.clock();
  await s.write(async (tx) => {
    const z = await zoneToChange(tx, p.orgId, p.name);
    await checkZone(tx, z, p.precondition);
    const [st] = await tx.select({ facts: resourceStatus.facts }).from(resourceStatus)
      .where(and(eq(resourceStatus.kind, 'zone'), eq(resourceStatus.key, p.name), eq(resourceStatus.uid, z.uid)));
    const served = (st?.facts as ZoneFacts | undefined)?.servedSerial ?? null;
    // The later one in RFC 1982 terms: near 2^32 the later serial may be the smaller number.
    const last = served !== null && serialGreater(served, z.serial) ? served : z.serial;
    await tx.insert(zoneTombstones).values({ name: p.name, serial: last }).onConflictDoUpdate({ target: zoneTombstones.name, set: { serial: last } });
    await tx.delete(rrsets).where(eq(rrsets.zone, p.name));
    await tx.delete(rrsetTombstones).where(eq(rrsetTombstones.zone, p.name));
    await tx.delete(zoneAliases).where(eq(zoneAliases.zone, p.name));
    await tx.delete(zoneRevisions).where(eq(zoneRevisions.zone, p.name));
    await tx.delete(zones).where(eq(zones.name, p.name));
    // The observed status belongs to this lifetime: a zone created again under the name must not inherit it.
    await tx.delete(resourceStatus).where(and(eq(resourceStatus.kind, 'zone'), eq(resourceStatus.key, p.name)));
    // Deletion is level-triggered: the reconciler lists this row until the nameserver has purged the zone.
    await tx.insert(zoneFinalizers).values({ uid: z.uid, name: p.name, deletedAt: iso(now) });
    await recordChange(s, tx, 'zone', p.name, now);
    await recordChange(s, tx, 'zone-lifetime', p.name, now);
    await appendAudit(tx, { orgId: p.orgId, event: 'dns.zone.delete', actor: p.actor, target: p.name }, now);
  });
}

export interface PutRRset {
  orgId: number;
  zone: string;
  rrset: RRset;
  actor: string;
  cnameConflict: (existing: RecordType[], type: RecordType) => boolean;
  /** The plan's per-zone limits: rrsets, and the zone file's bytes. */
  quota: { plan: string; rrsets: number; bytes: number };
  precondition?: RRsetPrecondition;
  /** Answer what the write would do, and roll it back. */
  dryRun?: boolean;
}

/** What a zone write did (or, dry, would do): the zone's generation and serial after it (unchanged by a no-op)
 * and the rrsets it changed. */
export interface ZoneChangeResult { generation: number; serial: number; diff: RevisionChange[] }

/** The stored rrset with its version, and the zone after the write (unchanged when it was a no-op); `changed`
 * false when the rrset was already so. */
export interface PutRRsetResult extends ZoneChangeResult { rrset: StoredRRset; version: RRsetVersion; changed: boolean }

/** Who writes an rrset: a customer through the API (`managedBy` null), or the service for one of its owners. */
interface RRsetWriter {
  managedBy: ManagedBy;
  actor: string;
  cnameConflict: PutRRset['cnameConflict'];
  /** Null for the service's own records (see putManagedRRset). */
  quota: PutRRset['quota'] | null;
  precondition?: RRsetPrecondition;
}

/** Each writer changes only the rrsets it owns: customers theirs, each owner of the service its own. */
export function checkOwner(owner: string | null, writer: ManagedBy, name: string, type: string, verb: 'edited' | 'deleted'): void {
  if (owner === writer) return;
  if (writer === null) throw conflict('managed_rrset', `${name} ${type} is managed by the service and cannot be ${verb}`);
  if (owner === null) throw conflict('customer_rrset', `${name} ${type} is the customer's: the service leaves it as it is`);
  throw conflict('managed_rrset', `${name} ${type} is managed by ${owner}, not ${writer}`);
}

const rrsetAudit = (event: string, z: ZoneRow, r: { name: string; type: string }, actor: string, now: Date, details?: Record<string, unknown>): Statement =>
  auditStatement({ orgId: z.orgId, event, actor, target: `${z.name}/${r.name}/${r.type}`, ...(details ? { details } : {}) }, now);

export const auditRRset = (tx: Tx, ...a: Parameters<typeof rrsetAudit>): Promise<void> => runStatement(tx, rrsetAudit(...a));

/**
 * Replaces the whole rrset (name + type) of a zone read under its lock with the rrsets at its name
 * (zoneToChangeAt), for the writer that owns it. The CNAME rule and the writer's quotas are checked against what
 * is stored, inside the write transaction, so two concurrent puts cannot both pass them. Answers whether anything changed: the same rrset again (records are
 * canonical and sorted, so any order compares equal) changes nothing: no generation, no serial, no reload.
 * A declarative client re-applying its zone must not use up serials. The statements `along` (the audit record) go
 * with the change, and are not run when nothing changed.
 */
async function setRRset(
  s: Store, tx: Tx, { z, atName }: { z: ZoneRow; atName: RRsetAtName[] }, rrset: RRset, w: RRsetWriter, now: Date, along: Statement[],
): Promise<{ changedGen: number; zone: ZoneRow; diff: RevisionChange[] }> {
  const old = atName.find((r) => r.type === rrset.type);
  if (old) checkOwner(old.managedBy, w.managedBy, rrset.name, rrset.type, 'edited');
  w.precondition?.(old ? { uid: z.uid, changedGen: old.changedGen } : null);
  if (w.cnameConflict(atName.map((r) => r.type as RecordType), rrset.type)) {
    throw conflict('cname_conflict', `a CNAME cannot share the name ${rrset.name} with another type`);
  }
  if (dsWithoutDelegation([...atName.map((r) => r.type), rrset.type])) {
    throw conflict('ds_without_delegation', `a DS needs an NS rrset at ${rrset.name}: put the delegation's NS first`);
  }
  if (aliasConflict([...atName.map((r) => r.type), rrset.type])) throw aliasBeside(rrset.name);
  if (rrset.type === 'ALIAS' && !old) await checkAliasCount(tx, z.name, 1);
  if (old && old.ttl === rrset.ttl && JSON.stringify(old.records) === JSON.stringify(rrset.records)) {
    return { changedGen: old.changedGen, zone: z, diff: [] };
  }
  const bytes = renderedBytes(z.name, rrset);
  const grow = bytes - (old?.bytes ?? 0);
  const { quota } = w;
  if (quota) {
    if (!old && z.rrsetCount >= quota.rrsets) throw quotaExceeded('rrsets_per_zone', quota.rrsets, z.rrsetCount, quota.plan, 'rrsets per zone');
    if (grow > 0 && z.bytes + grow > quota.bytes) {
      throw quotaExceeded('zone_bytes', quota.bytes, z.bytes, quota.plan, 'bytes of zone file per zone');
    }
  }
  const diff: RevisionChange[] = [{
    op: old ? 'change' : 'add', name: rrset.name, type: rrset.type, before: old ? { ttl: old.ttl, records: old.records } : null,
    after: { ttl: rrset.ttl, records: rrset.records }, managedBy: w.managedBy,
  }];
  const upsert = (generation: number): Statement => ({
    key: 'upsertRRset',
    build: (db) => db.insert(rrsets)
      .values({
        zone: sql.placeholder('zone'), name: sql.placeholder('name'), type: sql.placeholder('type'), ttl: sql.placeholder('ttl'),
        records: sql.placeholder('records'), managedBy: sql.placeholder('managedBy'), changedGen: sql.placeholder('changedGen'), bytes: sql.placeholder('bytes'),
      })
      // Only the owner gets here, so the stored managedBy is already the writer's.
      .onConflictDoUpdate({
        target: [rrsets.zone, rrsets.name, rrsets.type],
        set: { ttl: sql`excluded.ttl`, records: sql`excluded.records`, changedGen: sql`excluded.changed_gen`, bytes: sql`excluded.bytes` },
      }),
    values: { zone: z.name, ...rrset, managedBy: w.managedBy, changedGen: generation, bytes },
  });
  const bumped = await bump(s, tx, z, now, { actor: w.actor, summary: summaryOf(diff), diff }, { rrsets: old ? 0 : 1, bytes: grow }, (g) => [upsert(g), ...along]);
  handOver(s, tx, z.name, z.uid, bumped.generation, diff);
  return { changedGen: bumped.generation, zone: bumped, diff };
}

export const aliasBeside = (name: string) =>
  conflict('alias_conflict', `an ALIAS cannot share the name ${name} with an A or AAAA rrset: the ALIAS's addresses are served there`);

/** 409 `alias_limit` when `adding` more ALIAS rrsets would take the zone past {@link MAX_ALIASES_PER_ZONE}. */
export async function checkAliasCount(tx: Tx, zone: string, adding: number): Promise<void> {
  const [row] = await tx.select({ n: count() }).from(rrsets).where(and(eq(rrsets.zone, zone), eq(rrsets.type, 'ALIAS')));
  const n = Number(row?.n ?? 0);
  if (n + adding > MAX_ALIASES_PER_ZONE) {
    throw conflict('alias_limit', `a zone holds at most ${MAX_ALIASES_PER_ZONE} ALIAS rrsets (each is resolved every few minutes); ${zone} has ${n}`, { limit: MAX_ALIASES_PER_ZONE, count: n });
  }
}

/** Removes an rrset of a zone read under its lock, for the writer that owns it (`actor` for the revision); false
 * when there is none. */
async function removeRRset(
  s: Store, tx: Tx, z: ZoneRow, key: { name: string; type: string }, w: { managedBy: ManagedBy; actor: string }, now: Date, precondition?: RRsetPrecondition,
): Promise<ZoneChangeResult | false> {
  const where = and(eq(rrsets.zone, z.name), eq(rrsets.name, key.name), eq(rrsets.type, key.type));
  const [row] = await tx.select({ managedBy: rrsets.managedBy, bytes: rrsets.bytes, changedGen: rrsets.changedGen, ttl: rrsets.ttl, records: rrsets.records })
    .from(rrsets).where(where);
  if (!row) return false;
  checkOwner(row.managedBy, w.managedBy, key.name, key.type, 'deleted');
  precondition?.({ uid: z.uid, changedGen: row.changedGen });
  if (key.type === 'NS') {
    const atName = await tx.select({ type: rrsets.type }).from(rrsets).where(and(eq(rrsets.zone, z.name), eq(rrsets.name, key.name)));
    if (dsWithoutDelegation(atName.map((r) => r.type).filter((t) => t !== 'NS'))) {
      throw conflict('ds_without_delegation', `${key.name} has a DS, which needs its NS: delete the DS first`);
    }
  }
  await tx.delete(rrsets).where(where);
  const diff: RevisionChange[] = [{ op: 'remove', name: key.name, type: key.type, before: { ttl: row.ttl, records: row.records }, after: null, managedBy: w.managedBy }];
  const { generation, serial } = await bump(s, tx, z, now, { actor: w.actor, summary: summaryOf(diff), diff }, { rrsets: -1, bytes: -row.bytes });
  await tombstone(tx, z.name, key, generation, now);
  handOver(s, tx, z.name, z.uid, generation, diff);
  return { generation, serial, diff };
}

/** Marks an rrset deleted at `generation`, for the reconciler's incremental read (zoneChangesSince). */
async function tombstone(tx: Tx, zone: string, key: { name: string; type: string }, generation: number, now: Date): Promise<void> {
  const at = iso(now);
  await tx.insert(rrsetTombstones).values({ zone, name: key.name, type: key.type, gen: generation, at })
    .onConflictDoUpdate({ target: [rrsetTombstones.zone, rrsetTombstones.name, rrsetTombstones.type], set: { gen: generation, at } });
}

/** A customer's write: managed rows are locked (409 `managed_rrset`), the plan's quotas hold. */
export async function putRRset(s: Store, p: PutRRset): Promise<PutRRsetResult> {
  const now = s.clock();
  const { rrset } = p;
  return writeOrDryRun(s, p.dryRun ?? false, async (tx) => {
    const read = await zoneToChangeAt(tx, p.orgId, p.zone, rrset.name);
    const { z } = read;
    const writer = { managedBy: null, actor: p.actor, cnameConflict: p.cnameConflict, quota: p.quota, precondition: p.precondition };
    const audit = rrsetAudit('dns.rrset.set', z, rrset, p.actor, now, { ttl: rrset.ttl, records: rrset.records.length });
    const set = await setRRset(s, tx, read, rrset, writer, now, [audit]);
    // A put of what is stored is audited all the same: the customer asked for it.
    if (set.diff.length === 0) await runLast(tx, audit);
    return {
      rrset: { ...rrset, managedBy: null }, version: { uid: z.uid, changedGen: set.changedGen }, changed: set.diff.length > 0,
      generation: set.zone.generation, serial: set.zone.serial, diff: set.diff,
    };
  });
}

/** Answers the zone after the deletion. A missing rrset is 404 whatever the precondition says. */
export async function deleteRRset(s: Store, p: {
  orgId: number; zone: string; name: string; type: string; actor: string; precondition?: RRsetPrecondition; dryRun?: boolean;
}): Promise<ZoneChangeResult> {
  const now = s.clock();
  return writeOrDryRun(s, p.dryRun ?? false, async (tx) => {
    const z = await zoneToChange(tx, p.orgId, p.zone);
    const removed = await removeRRset(s, tx, z, p, { managedBy: null, actor: p.actor }, now, p.precondition);
    if (removed === false) throw notFound(`rrset ${p.name} ${p.type}`);
    await auditRRset(tx, 'dns.rrset.delete', z, p, p.actor, now);
    return removed;
  });
}

export interface PutManagedRRset {
  /** The zone by name, of whichever organization holds it. */
  zone: string;
  rrset: RRset;
  managedBy: Exclude<ManagedBy, null>;
  /** The audit actor: `system` for reconcilers. */
  actor: string;
}

/**
 * Sets an rrset the service owns (a hostname's record, an ACME challenge) through the customer's path: the
 * same generation and serial bump, change feed, counts and bytes, CNAME rule and audit (in the zone's
 * organization). It never overwrites a customer's rrset (409 `customer_rrset`) nor another owner's (409
 * `managed_rrset`). The plan's quotas do not refuse it: the record is part of what the customer asked for
 * (a hostname), which a refusal would leave half done; it still counts toward them. Reconcilers re-apply
 * their records on every pass, so the same rrset again is no change and no audit record.
 *
 * The rrset is validated as the API validates a customer's (ZoneValidationError): one bad record would keep the
 * whole zone from being served, and its canonical form is what makes a repeated write compare equal.
 */
export async function putManagedRRset(s: Store, p: PutManagedRRset): Promise<StoredRRset> {
  const now = s.clock();
  const rrset = validateRRset(p.zone, p.rrset);
  return s.write(async (tx) => {
    const read = await zoneToChangeAt(tx, null, p.zone, rrset.name);
    const { z } = read;
    const audit = rrsetAudit('dns.rrset.set', z, rrset, p.actor, now, { ttl: rrset.ttl, records: rrset.records.length, managedBy: p.managedBy });
    await setRRset(s, tx, read, rrset, { managedBy: p.managedBy, actor: p.actor, cnameConflict: checkCnameConflict, quota: null }, now, [audit]);
    return { ...rrset, managedBy: p.managedBy };
  });
}

/**
 * Brings every zone's apex NS (the service's own rrset, `managedBy: system`) to `nameservers`, after the
 * operator changed `--nameservers`: the SOA's MNAME and the API's answer follow the flag at once, and the NS a
 * zone serves must not be left naming the old ones. Each rewrite is a change like any other (generation,
 * serial, audit as `system`), so secondaries get it by IXFR. Returns the zones rewritten.
 */
export async function syncZoneNameservers(s: Store, nameservers: string[]): Promise<string[]> {
  const rows = await s.raw<{ zone: string; records: string }>('apexNs',
    "SELECT rrsets.zone AS zone, rrsets.records AS records FROM rrsets JOIN zones ON zones.name = rrsets.zone WHERE rrsets.name = rrsets.zone AND rrsets.type = 'NS' AND rrsets.managed_by = 'system'");
  const rewritten: string[] = [];
  for (const { zone, records } of rows) {
    const want = validateRRset(zone, { name: zone, type: 'NS', ttl: NS_TTL, records: nameservers.map((content) => ({ content })) });
    const have = (JSON.parse(records) as RRset['records']).map((r) => r.content).sort();
    if (JSON.stringify(have) === JSON.stringify(want.records.map((r) => r.content).sort())) continue;
    await putManagedRRset(s, { zone, rrset: want, managedBy: 'system', actor: 'system' });
    rewritten.push(zone);
  }
  return rewritten;
}

/** Removes an rrset the service owns, with the same bookkeeping as deleteRRset. Idempotent, as reconcilers
 * need: false when there is none. A customer's or another owner's rrset is 409, as for putManagedRRset. */
export async function deleteManagedRRset(s: Store, p: {
  zone: string; name: string; type: string; managedBy: Exclude<ManagedBy, null>; actor: string;
}): Promise<boolean> {
  const now = s.clock();
  return s.write(async (tx) => {
    const z = await zoneToChange(tx, null, p.zone);
    const removed = (await removeRRset(s, tx, z, p, p, now)) !== false;
    if (removed) await auditRRset(tx, 'dns.rrset.delete', z, p, p.actor, now, { managedBy: p.managedBy });
    return removed;
  });
}

/**
 * off → signing on enable (signing and ds_pending stay as they are); any → off on disable, deleting the
 * recorded DS values. Both raise the serial: turning signing off only takes effect in the nameserver when the
 * unsigned zone is loaded with a higher serial.
 */
export async function setZoneDnssec(s: Store, p: {
  orgId: number; zone: string; enabled: boolean; actor: string; precondition?: ZonePrecondition;
}): Promise<ZoneWithStatus> {
  const now = s.clock();
  const row = await s.write(async (tx) => {
    const z = await zoneToChange(tx, p.orgId, p.zone);
    await checkZone(tx, z, p.precondition);
    const next: DnssecState = p.enabled ? (z.dnssec === 'off' ? 'signing' : z.dnssec) : 'off';
    if (next === z.dnssec) return z;
    const ds = next === 'off' ? [] : z.ds;
    await tx.update(zones).set({ dnssec: next, ds }).where(eq(zones.name, z.name));
    const bumped = await bump(s, tx, { ...z, dnssec: next, ds }, now, { actor: p.actor, summary: p.enabled ? 'DNSSEC on' : 'DNSSEC off', diff: [] });
    await appendAudit(tx, { orgId: p.orgId, event: p.enabled ? 'dns.dnssec.enable' : 'dns.dnssec.disable', actor: p.actor, target: z.name }, now);
    return bumped;
  });
  return await withStatus(s, row);
}

/**
 * Records the DS values reported for the parent zone (spec 3): off → 409 `dnssec_off`; a non-empty list
 * moves signing → ds_pending; an empty list means "none yet": in signing nothing changes, and in ds_pending
 * it withdraws the values recorded before and goes back to signing.
 */
export async function setZoneDs(s: Store, p: {
  orgId: number; zone: string; ds: DsValue[]; actor: string; precondition?: ZonePrecondition;
}): Promise<ZoneWithStatus> {
  const now = s.clock();
  const row = await s.write(async (tx) => {
    const z = await zoneToChange(tx, p.orgId, p.zone);
    if (z.dnssec === 'off') throw conflict('dnssec_off', `DNSSEC is off for ${z.name}; enable it first`);
    await checkZone(tx, z, p.precondition);
    if (p.ds.length === 0 && z.dnssec === 'signing') return z;
    const dnssec: DnssecState = p.ds.length === 0 ? 'signing' : 'ds_pending';
    await tx.update(zones).set({ dnssec, ds: p.ds }).where(eq(zones.name, z.name));
    // No new zone text, but the reconciler confirms a DS that matches the signer's key to the signer.
    await recordChange(s, tx, 'zone', z.name, now);
    await appendAudit(tx, { orgId: p.orgId, event: 'dns.dnssec.ds', actor: p.actor, target: z.name, details: { ds: p.ds.length } }, now);
    return { ...z, dnssec, ds: p.ds };
  });
  return await withStatus(s, row);
}

interface RawRRset { name: string; type: string; ttl: number; records: string; managed_by: string | null }
const fromRaw = (r: RawRRset): StoredRRset => ({
  name: r.name, type: r.type as RecordType, ttl: r.ttl, records: JSON.parse(r.records) as RRset['records'], managedBy: r.managed_by as ManagedBy,
});

/** The lifetime and generation of the zone as one statement saw them: a LEFT JOIN from the zone row carries them
 * on every row, and answers one row (its other columns null) when nothing else matched. */
interface Seen { zone_uid: string; zone_gen: number }

/** Reads of a zone that would not agree on a generation this many times in a row fail (the reconciler retries). */
export const GENERATION_READS = 5;

/**
 * The zone row, and what `read` answers of the zone, at one generation. Each statement reads its own snapshot (on
 * both databases), and another process may commit between two: `read`'s statements carry the lifetime and
 * generation they saw, every rrset write raises the generation, so they agree with the zone row read after them
 * unless something was committed in between. Then all is read again; only a commit landing in the moment between
 * two statements costs that, however long the reads take.
 */
async function atOneGeneration<R extends Seen[][]>(s: Store, name: string, read: () => Promise<R>): Promise<{ zone: ZoneRow; rows: R } | undefined> {
  for (let attempt = 1; ; attempt++) {
    const rows = await read();
    const zone = await zoneByName(s, name);
    if (!zone) return undefined;
    if (rows.every((r) => r[0]?.zone_uid === zone.uid && r[0].zone_gen === zone.generation)) return { zone, rows };
    if (attempt >= GENERATION_READS) throw new Error(`zone ${name} changed during each of ${GENERATION_READS} reads`);
  }
}

/** `RawRRset` or, for a zone without rrsets, its columns null. */
type MaybeRawRRset = Seen & ({ [K in keyof RawRRset]: RawRRset[K] } | { [K in keyof RawRRset]: null });

/** Where a page of a zone's rrsets starts: after this rrset, in page order. */
export interface RRsetCursor { name: string; type: string }

/**
 * One page of a zone's stored rrsets: the first page starts with every apex rrset (at most one per type,
 * even beyond `limit`), then come the others by name and type, the primary key's order, so a page reads a
 * range of the index however large the zone is. A page ends at `limit` rrsets or once their rendered bytes
 * reach `maxBytes`, so no answer grows with the zone; `next` is where the following page starts, null
 * after the last.
 */
export async function zoneRRsetPage(s: Store, zone: string, limit: number, maxBytes: number, after?: RRsetCursor): Promise<{
  items: (StoredRRset & { changedGen: number })[]; next: RRsetCursor | null;
}> {
  const { items, next } = await rrsetPage(s, zone, limit, maxBytes, after);
  return {
    items: items.map((r) => ({
      name: r.name, type: r.type as RecordType, ttl: r.ttl, records: JSON.parse(r.records) as RRset['records'], managedBy: r.managed_by as ManagedBy,
      changedGen: r.changed_gen,
    })),
    next,
  };
}

/** A page's rrset as stored: `records` is the JSON text of the records. */
export interface RawPageRRset { name: string; type: string; ttl: number; records: string; managed_by: string | null; changed_gen: number }

/** `zoneRRsetPage` with each rrset's records as their stored JSON text, for an answer that splices them in. */
export async function zoneRRsetPageJson(s: Store, zone: string, limit: number, maxBytes: number, after?: RRsetCursor): Promise<{
  items: RawPageRRset[]; next: RRsetCursor | null;
}> {
  return rrsetPage(s, zone, limit, maxBytes, after);
}

/** Where a page's rrsets other than the apex's start: after `after`, or, after the apex (which comes first), at the
 * start of the other names (some sort before it). */
const pageStart = (zone: string, after?: RRsetCursor): RRsetCursor => after && after.name !== zone ? after : { name: '', type: '' };

async function rrsetPage(s: Store, zone: string, limit: number, maxBytes: number, after?: RRsetCursor): Promise<{ items: (RawPageRRset & { bytes: number })[]; next: RRsetCursor | null }> {
  type Row = RawPageRRset & { bytes: number; apex: number };
  // The hot read path of getZone: one statement (on PostgreSQL one round trip, and one snapshot), with the page's
  // bound in SQL: the first page's apex rrsets (apex 0), then the others by name and type, at most `limit` + 1 of
  // them, the row after the page telling whether there is a next one. The loop below stops at the page's end.
  const first = after ? 0 : 1;
  const from = pageStart(zone, after);
  const rows = await s.raw<Row>('zoneRRsetPage', `SELECT * FROM (
      SELECT 0 AS apex, name, type, ttl, records, managed_by, bytes, changed_gen FROM rrsets WHERE zone = ? AND name = ? AND ? = 1
    ) AS a
    UNION ALL
    SELECT * FROM (
      SELECT 1 AS apex, name, type, ttl, records, managed_by, bytes, changed_gen FROM rrsets
      WHERE zone = ? AND name <> ? AND (name, type) > (?, ?) ORDER BY name, type LIMIT ?
    ) AS r
    ORDER BY apex, name, type`, [zone, zone, first, zone, zone, from.name, from.type, limit + 1]);
  const items: Row[] = [];
  let bytes = 0;
  for (const r of rows) {
    if (r.apex === 1 && (items.length >= limit || (items.length > 0 && bytes >= maxBytes))) {
      const last = items.at(-1)!;
      return { items, next: last.name === zone ? { name: '', type: '' } : { name: last.name, type: last.type } };
    }
    items.push(r);
    bytes += r.bytes;
  }
  return { items, next: null };
}

/** The zone row and all its rrsets in a stable order (by name, then type), of one generation. The rrsets are read
 * raw: for a zone of 100,000 rrsets the generic row mapping was most of the time. */
export async function zoneSnapshot(s: Store, name: string): Promise<{ zone: ZoneRow; rrsets: StoredRRset[] } | undefined> {
  const read = await atOneGeneration(s, name, async () => [await s.raw<MaybeRawRRset>('zoneRRsets',
    `SELECT z.uid AS zone_uid, z.generation AS zone_gen, r.name, r.type, r.ttl, r.records, r.managed_by
     FROM zones z LEFT JOIN rrsets r ON r.zone = z.name WHERE z.name = ? ORDER BY r.name, r.type`, [name])] as const);
  return read && { zone: read.zone, rrsets: read.rows[0].flatMap((r) => r.name === null ? [] : [fromRaw(r)]) };
}

export interface ZoneDelta { zone: ZoneRow; changed: StoredRRset[]; removed: { name: string; type: RecordType }[] }

/**
 * What changed in a zone after generation `since`: the zone row, rrsets written since, and the keys of rrsets
 * deleted since (a key both deleted and written again is in `changed` only). Of one generation. `more` instead,
 * for a caller to read the zone whole: once the rrsets written or deleted since are more than `atMost` (a caller that
 * would load the zone whole then is spared reading, and the event loop holding, a change of tens of thousands of
 * rrsets), or when deletions since may have lost their tombstones (`since` below the zone's tombstonesPrunedTo).
 */
export async function zoneChangesSince(s: Store, name: string, since: number, atMost: number): Promise<ZoneDelta | { zone: ZoneRow; more: true } | undefined> {
  const read = await atOneGeneration(s, name, async () => [
    await s.raw<MaybeRawRRset>('zoneChangedRRsets', `SELECT z.uid AS zone_uid, z.generation AS zone_gen, r.name, r.type, r.ttl, r.records, r.managed_by
      FROM zones z LEFT JOIN rrsets r ON r.zone = z.name AND r.changed_gen > ? WHERE z.name = ? LIMIT ?`, [since, name, atMost + 1]),
    await s.raw<Seen & ({ name: string; type: string } | { name: null; type: null })>('zoneRemovedRRsets', `SELECT z.uid AS zone_uid, z.generation AS zone_gen, t.name, t.type
      FROM zones z LEFT JOIN rrset_tombstones t ON t.zone = z.name AND t.gen > ? WHERE z.name = ? LIMIT ?`, [since, name, atMost + 1]),
  ] as const);
  if (!read) return undefined;
  // The zone row is read after the tombstones, and a prune raises the mark in the transaction that deletes them:
  // tombstones the read missed were pruned before it, under a mark the zone row shows.
  if (read.zone.tombstonesPrunedTo > since) return { zone: read.zone, more: true };
  // Each list read is whole unless it reached the LIMIT (a zone without changes answers one row, of nulls).
  if (read.rows.some((rows) => rows.length > atMost && rows[0]!.name !== null)) return { zone: read.zone, more: true };
  const changed = read.rows[0].flatMap((r) => r.name === null ? [] : [fromRaw(r)]);
  const written = new Set(changed.map((r) => `${r.name} ${r.type}`));
  const removed = read.rows[1].flatMap((r) => r.name === null || written.has(`${r.name} ${r.type}`) ? [] : [{ name: r.name, type: r.type as RecordType }]);
  if (changed.length + removed.length > atMost) return { zone: read.zone, more: true };
  return { zone: read.zone, changed, removed };
}

/**
 * zoneChangesSince up to `z`'s generation from what this process's writes handed over (store/zone-handover.ts), without
 * reading the store; undefined when they do not cover every generation since: then only a read tells.
 */
export function zoneChangesHandedOver(s: Store, z: ZoneRow, since: number, atMost: number): ZoneDelta | { zone: ZoneRow; more: true } | undefined {
  const handed = handedChanges(s, z.name, z.uid, since, z.generation, atMost);
  if (handed === 'more') return { zone: z, more: true };
  return handed && {
    zone: z,
    changed: handed.flatMap((c) => c.after ? [{ name: c.name, type: c.type as RecordType, ttl: c.after.ttl, records: c.after.records, managedBy: c.managedBy as ManagedBy }] : []),
    removed: handed.flatMap((c) => c.after ? [] : [{ name: c.name, type: c.type as RecordType }]),
  };
}

/**
 * The rrsets of `zone` as they were at its generation `zone.generation`, in getZone's order (the apex rrsets, then the
 * others by name and type), read `pageSize` at a time, or fewer once their stored bytes reach `maxBytes`, as they are
 * asked for, so that neither the reads nor what is made of them hold the whole zone: a page's statement reads the
 * rrsets its sizes let in and one more (rrsetsWithin), not `pageSize` + 1 large ones to keep a few. A page is that
 * generation's unless a write since touched its range: then the zone moved on, so an rrset written since (its
 * `changedGen`) or deleted since (a tombstone) in the range fails the read with a 409 `zone_changed`; a write
 * elsewhere in the zone does not. Once tombstones after the generation may
 * have been pruned, no page can be told apart from one missing a deletion: 409 too.
 */
export async function* zoneRRsetsAt(s: Store, zone: ZoneRow, pageSize: number, maxBytes: number): AsyncGenerator<StoredRRset[]> {
  let after: RRsetCursor | undefined;
  for (;;) {
    const { items, next } = await rrsetPage(s, zone.name, await rrsetsWithin(s, zone.name, pageSize, maxBytes, after), maxBytes, after);
    const now = await zoneByName(s, zone.name);
    if (now?.uid !== zone.uid || (now.generation !== zone.generation && await touchedSince(s, zone, items, after, next))) {
      throw conflict('zone_changed', `zone ${zone.name} changed while it was read; read it again`);
    }
    yield items.map(fromRaw);
    if (!next) return;
    after = next;
  }
}

/** How many of the rrsets other than the apex's after `after` a page of `limit` rrsets and `maxBytes` takes, told from
 * their stored sizes alone (one at least): the page up to the one whose bytes reach `maxBytes`, as rrsetPage cuts it
 * (which also counts the apex's). */
async function rrsetsWithin(s: Store, zone: string, limit: number, maxBytes: number, after: RRsetCursor | undefined): Promise<number> {
  const from = pageStart(zone, after);
  const sizes = await s.raw<{ bytes: number }>('zoneRRsetPageSizes', `SELECT bytes FROM rrsets
    WHERE zone = ? AND name <> ? AND (name, type) > (?, ?) ORDER BY name, type LIMIT ?`, [zone, zone, from.name, from.type, limit]);
  let n = 0;
  for (let bytes = 0; n < sizes.length && bytes < maxBytes; n++) bytes += sizes[n]!.bytes;
  return Math.max(1, n);
}

/** Whether a write after `zone`'s generation touched the range of a page: wrote one of its rrsets, or deleted one
 * from its range, which runs from after `after` (the apex too on the first page) to its last rrset, or to the end
 * of the zone on the last page. A deletion is told by its tombstone, so also whenever tombstones after the generation
 * may be gone: pruned (the zone's mark, read in the tombstones' statement, so that a prune committed after it is
 * seen), or with the zone's lifetime. */
async function touchedSince(s: Store, zone: ZoneRow, items: RawPageRRset[], after: RRsetCursor | undefined, next: RRsetCursor | null): Promise<boolean> {
  if (items.some((r) => r.changed_gen > zone.generation)) return true;
  const from = pageStart(zone.name, after);
  const last = next ? items.filter((r) => r.name !== zone.name).at(-1) : undefined;
  const [row] = await s.raw<{ n: number; pruned: number | null }>(next ? 'zoneTombstonesInPage' : 'zoneTombstonesAfter', `SELECT COUNT(*) AS n,
      (SELECT tombstones_pruned_to FROM zones WHERE name = ? AND uid = ?) AS pruned
    FROM rrset_tombstones
    WHERE zone = ? AND gen > ? AND ((name = ? AND ? = 1) OR (name <> ? AND (name, type) > (?, ?)${next ? ' AND (name, type) <= (?, ?)' : ''}))`,
  [zone.name, zone.uid, zone.name, zone.generation, zone.name, after ? 0 : 1, zone.name, from.name, from.type, ...(last ? [last.name, last.type] : next ? ['', ''] : [])]);
  return !row || Number(row.n) > 0 || row.pruned === null || row.pruned > zone.generation;
}
