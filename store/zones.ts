/** DNS zones and their rrsets: the desired state the zone reconciler converges the nameserver to. */
import { and, asc, count, eq, gt, inArray, like, or, sql } from 'drizzle-orm';
import { conflict, notFound } from '../lib/errors';
import { quotaExceeded } from '../lib/plans';
import { nextSerial, renderedBytes, serialGreater, type RecordType, type RRset } from '../zonefiles';
import { iso, type Store } from './db';
import { appendAudit, recordChange } from './feed';
import { decodeCursor, toPage, type Page } from './paging';
import { rrsetTombstones, rrsets, zoneStatus, zoneTombstones, zones, type DsValue } from './schema';

export type DnssecState = 'off' | 'signing' | 'ds_pending';
export type ManagedBy = 'system' | 'app' | 'acme' | null;

export interface ZoneRow {
  name: string;
  orgId: number;
  dnssec: DnssecState;
  ds: DsValue[];
  serial: number;
  generation: number;
  createdAt: string;
  rrsetCount: number;
  bytes: number;
}

export interface StoredRRset extends RRset { managedBy: ManagedBy }

export interface ZoneStatusRow {
  observedGeneration: number;
  servedSerial: number | null;
  /** For operators: may carry paths and the nameserver's own words. */
  lastError: string | null;
  /** For tenants: a machine reason and a message without server paths. */
  reason: string | null;
  message: string | null;
  reconciledAt: string;
  dsObserved: DsValue[] | null;
  delegated: boolean | null;
}

export interface ZoneWithStatus extends ZoneRow { status: ZoneStatusRow | null }

const NS_TTL = 86_400;

/** The zone of this organization; another's reads as missing. Inside `s.write` it joins the transaction. */
function zoneOf(s: Store, orgId: number, name: string): ZoneRow {
  const z = s.prepared('zoneOf', (db) => db.select().from(zones).where(eq(zones.name, sql.placeholder('name'))).prepare()).get({ name });
  if (!z || z.orgId !== orgId) throw notFound(`zone ${name}`);
  return z;
}

/** Every desired change to a zone's content raises its serial (never backwards: it is stored) and generation. */
function bump(s: Store, z: ZoneRow, now: Date): ZoneRow {
  const serial = nextSerial(z.serial, now);
  const generation = z.generation + 1;
  s.prepared('bumpZone', (db) => db.update(zones)
    .set({ serial: sql`${sql.placeholder('serial')}`, generation: sql`${sql.placeholder('generation')}` })
    .where(eq(zones.name, sql.placeholder('name'))).prepare()).run({ serial, generation, name: z.name });
  recordChange(s, 'zone', z.name, now);
  return { ...z, serial, generation };
}

function addToZoneSize(s: Store, zone: string, rrsets: number, bytes: number): void {
  s.prepared('addToZoneSize', (db) => db.update(zones)
    .set({ rrsetCount: sql`${zones.rrsetCount} + ${sql.placeholder('rrsets')}`, bytes: sql`${zones.bytes} + ${sql.placeholder('bytes')}` })
    .where(eq(zones.name, sql.placeholder('name'))).prepare()).run({ rrsets, bytes, name: zone });
}

const withStatus = (s: Store, z: ZoneRow): ZoneWithStatus => ({
  ...z,
  status: s.db.select().from(zoneStatus).where(eq(zoneStatus.zone, z.name)).get() ?? null,
});

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
 * transaction so that concurrent creations cannot pass it.
 */
export async function createZone(s: Store, p: CreateZone): Promise<{ zone: ZoneWithStatus; created: boolean }> {
  const now = s.clock();
  const labels = p.name.split('.');
  const parents = labels.slice(1).map((_, i) => labels.slice(i + 1).join('.'));
  const result = await s.write((tx) => {
    // LIKE only narrows the search: `_` in a zone name is a LIKE wildcard, so keep true nesting alone.
    const clash = tx.select({ name: zones.name, orgId: zones.orgId }).from(zones)
      .where(or(eq(zones.name, p.name), parents.length ? inArray(zones.name, parents) : undefined, like(zones.name, `%.${p.name}`)))
      .all()
      .filter((z) => z.name === p.name || parents.includes(z.name) || z.name.endsWith(`.${p.name}`));
    // An organization may split its own zones (delegation inside one account); only another's is in the way.
    const same = clash.find((z) => z.name === p.name);
    if (same && same.orgId === p.orgId) return { zone: zoneOf(s, p.orgId, p.name), created: false };
    if (clash.some((z) => z.orgId !== p.orgId)) {
      throw conflict('zone_taken', `zone ${p.name} (or a zone above or below it) belongs to another organization`);
    }
    if (p.quota) {
      const n = tx.select({ n: count() }).from(zones).where(eq(zones.orgId, p.orgId)).get()?.n ?? 0;
      if (n >= p.quota.limit) throw quotaExceeded('zones', p.quota.limit, n, p.quota.plan, 'zones');
    }
    const before = tx.select({ serial: zoneTombstones.serial }).from(zoneTombstones).where(eq(zoneTombstones.name, p.name)).get();
    const ns: RRset = { name: p.name, type: 'NS', ttl: NS_TTL, records: p.nameservers.map((h) => ({ content: h })) };
    const bytes = renderedBytes(p.name, ns);
    const row: ZoneRow = {
      name: p.name, orgId: p.orgId, dnssec: 'off', ds: [], serial: nextSerial(before?.serial ?? 0, now), generation: 1, createdAt: iso(now),
      rrsetCount: 1, bytes,
    };
    tx.insert(zones).values(row).run();
    tx.insert(rrsets).values({ zone: p.name, ...ns, managedBy: 'system', changedGen: 1, bytes }).run();
    recordChange(s, 'zone', p.name, now);
    appendAudit(s, { orgId: p.orgId, event: 'dns.zone.create', actor: p.actor, target: p.name }, now);
    return { zone: row, created: true };
  });
  return { zone: withStatus(s, result.zone), created: result.created };
}

export async function listZones(s: Store, orgId: number, limit: number, cursor?: string): Promise<Page<ZoneWithStatus>> {
  const after = cursor === undefined ? undefined : gt(zones.name, decodeCursor(cursor));
  const rows = s.db.select().from(zones).where(and(eq(zones.orgId, orgId), after)).orderBy(asc(zones.name)).limit(limit + 1).all();
  const page = toPage(rows, limit, (r) => r.name);
  return { items: page.items.map((z) => withStatus(s, z)), nextCursor: page.nextCursor };
}

export async function getZone(s: Store, orgId: number, name: string): Promise<ZoneWithStatus> {
  return withStatus(s, zoneOf(s, orgId, name));
}

/** The zone row by name alone, for reconcilers (no organization scope). */
export async function zoneByName(s: Store, name: string): Promise<ZoneRow | undefined> {
  return s.db.select().from(zones).where(eq(zones.name, name)).get();
}

export async function allZoneNames(s: Store): Promise<string[]> {
  return s.db.select({ name: zones.name }).from(zones).orderBy(asc(zones.name)).all().map((r) => r.name);
}

export async function deleteZone(s: Store, p: { orgId: number; name: string; actor: string }): Promise<void> {
  const now = s.clock();
  await s.write((tx) => {
    const z = zoneOf(s, p.orgId, p.name);
    const served = tx.select({ serial: zoneStatus.servedSerial }).from(zoneStatus).where(eq(zoneStatus.zone, p.name)).get()?.serial ?? null;
    // The later one in RFC 1982 terms: near 2^32 the later serial may be the smaller number.
    const last = served !== null && serialGreater(served, z.serial) ? served : z.serial;
    tx.insert(zoneTombstones).values({ name: p.name, serial: last }).onConflictDoUpdate({ target: zoneTombstones.name, set: { serial: last } }).run();
    tx.delete(rrsets).where(eq(rrsets.zone, p.name)).run();
    tx.delete(rrsetTombstones).where(eq(rrsetTombstones.zone, p.name)).run();
    tx.delete(zones).where(eq(zones.name, p.name)).run();
    // The observed status belongs to this zone: a zone created again under the name must not inherit it.
    tx.delete(zoneStatus).where(eq(zoneStatus.zone, p.name)).run();
    recordChange(s, 'zone', p.name, now);
    appendAudit(s, { orgId: p.orgId, event: 'dns.zone.delete', actor: p.actor, target: p.name }, now);
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
}

/** Replaces the whole rrset (name + type). Managed rows are locked; the CNAME rule and the zone's quotas are
 * checked against what is stored, inside the write transaction, so two concurrent puts cannot both pass them. */
export async function putRRset(s: Store, p: PutRRset): Promise<StoredRRset> {
  const now = s.clock();
  const { rrset } = p;
  return s.write(() => {
    const z = zoneOf(s, p.orgId, p.zone);
    const atName = s.prepared('rrsetTypesAtName', (db) => db.select({ type: rrsets.type, managedBy: rrsets.managedBy, bytes: rrsets.bytes })
      .from(rrsets).where(and(eq(rrsets.zone, sql.placeholder('zone')), eq(rrsets.name, sql.placeholder('name')))).prepare())
      .all({ zone: z.name, name: rrset.name });
    const old = atName.find((r) => r.type === rrset.type);
    if (old?.managedBy) {
      throw conflict('managed_rrset', `${rrset.name} ${rrset.type} is managed by the service and cannot be edited`);
    }
    if (p.cnameConflict(atName.map((r) => r.type as RecordType), rrset.type)) {
      throw conflict('cname_conflict', `a CNAME cannot share the name ${rrset.name} with another type`);
    }
    const bytes = renderedBytes(z.name, rrset);
    const { quota } = p;
    if (!old && z.rrsetCount >= quota.rrsets) throw quotaExceeded('rrsets_per_zone', quota.rrsets, z.rrsetCount, quota.plan, 'rrsets per zone');
    const grow = bytes - (old?.bytes ?? 0);
    if (grow > 0 && z.bytes + grow > quota.bytes) {
      throw quotaExceeded('zone_bytes', quota.bytes, z.bytes, quota.plan, 'bytes of zone file per zone');
    }
    const { generation } = bump(s, z, now);
    addToZoneSize(s, z.name, old ? 0 : 1, grow);
    s.prepared('upsertRRset', (db) => db.insert(rrsets)
      .values({
        zone: sql.placeholder('zone'), name: sql.placeholder('name'), type: sql.placeholder('type'), ttl: sql.placeholder('ttl'),
        records: sql.placeholder('records'), managedBy: null, changedGen: sql.placeholder('changedGen'), bytes: sql.placeholder('bytes'),
      })
      .onConflictDoUpdate({
        target: [rrsets.zone, rrsets.name, rrsets.type],
        set: { ttl: sql`excluded.ttl`, records: sql`excluded.records`, changedGen: sql`excluded.changed_gen`, bytes: sql`excluded.bytes` },
      })
      .prepare()).run({ zone: z.name, ...rrset, changedGen: generation, bytes });
    appendAudit(s, {
      orgId: p.orgId, event: 'dns.rrset.set', actor: p.actor, target: `${z.name}/${rrset.name}/${rrset.type}`,
      details: { ttl: rrset.ttl, records: rrset.records.length },
    }, now);
    return { ...rrset, managedBy: null };
  });
}

export async function deleteRRset(s: Store, p: { orgId: number; zone: string; name: string; type: string; actor: string }): Promise<void> {
  const now = s.clock();
  await s.write((tx) => {
    const z = zoneOf(s, p.orgId, p.zone);
    const where = and(eq(rrsets.zone, z.name), eq(rrsets.name, p.name), eq(rrsets.type, p.type));
    const row = tx.select({ managedBy: rrsets.managedBy, bytes: rrsets.bytes }).from(rrsets).where(where).get();
    if (!row) throw notFound(`rrset ${p.name} ${p.type}`);
    if (row.managedBy) throw conflict('managed_rrset', `${p.name} ${p.type} is managed by the service and cannot be deleted`);
    tx.delete(rrsets).where(where).run();
    const { generation } = bump(s, z, now);
    addToZoneSize(s, z.name, -1, -row.bytes);
    tx.insert(rrsetTombstones).values({ zone: z.name, name: p.name, type: p.type, gen: generation })
      .onConflictDoUpdate({ target: [rrsetTombstones.zone, rrsetTombstones.name, rrsetTombstones.type], set: { gen: generation } }).run();
    appendAudit(s, { orgId: p.orgId, event: 'dns.rrset.delete', actor: p.actor, target: `${z.name}/${p.name}/${p.type}` }, now);
  });
}

/**
 * off → signing on enable (signing and ds_pending stay as they are); any → off on disable, deleting the
 * recorded DS values. Both raise the serial: turning signing off only takes effect in the nameserver when the
 * unsigned zone is loaded with a higher serial.
 */
export async function setZoneDnssec(s: Store, p: { orgId: number; zone: string; enabled: boolean; actor: string }): Promise<ZoneWithStatus> {
  const now = s.clock();
  const row = await s.write((tx) => {
    const z = zoneOf(s, p.orgId, p.zone);
    const next: DnssecState = p.enabled ? (z.dnssec === 'off' ? 'signing' : z.dnssec) : 'off';
    if (next === z.dnssec) return z;
    const ds = next === 'off' ? [] : z.ds;
    tx.update(zones).set({ dnssec: next, ds }).where(eq(zones.name, z.name)).run();
    const bumped = bump(s, { ...z, dnssec: next, ds }, now);
    appendAudit(s, { orgId: p.orgId, event: p.enabled ? 'dns.dnssec.enable' : 'dns.dnssec.disable', actor: p.actor, target: z.name }, now);
    return bumped;
  });
  return withStatus(s, row);
}

/**
 * Records the DS values reported for the parent zone (spec 3): off → 409 `dnssec_off`; a non-empty list
 * moves signing → ds_pending; an empty list means "none yet": in signing nothing changes, and in ds_pending
 * it withdraws the values recorded before and goes back to signing.
 */
export async function setZoneDs(s: Store, p: { orgId: number; zone: string; ds: DsValue[]; actor: string }): Promise<ZoneWithStatus> {
  const now = s.clock();
  const row = await s.write((tx) => {
    const z = zoneOf(s, p.orgId, p.zone);
    if (z.dnssec === 'off') throw conflict('dnssec_off', `DNSSEC is off for ${z.name}; enable it first`);
    if (p.ds.length === 0 && z.dnssec === 'signing') return z;
    const dnssec: DnssecState = p.ds.length === 0 ? 'signing' : 'ds_pending';
    tx.update(zones).set({ dnssec, ds: p.ds }).where(eq(zones.name, z.name)).run();
    appendAudit(s, { orgId: p.orgId, event: 'dns.dnssec.ds', actor: p.actor, target: z.name, details: { ds: p.ds.length } }, now);
    return { ...z, dnssec, ds: p.ds };
  });
  return withStatus(s, row);
}

/** Written only by the zone reconciler. */
export async function recordZoneStatus(s: Store, zone: string, st: ZoneStatusRow): Promise<void> {
  await s.write((tx) => tx.insert(zoneStatus).values({ zone, ...st })
    .onConflictDoUpdate({ target: zoneStatus.zone, set: st }).run());
}

export async function dropZoneStatus(s: Store, zone: string): Promise<void> {
  await s.write((tx) => tx.delete(zoneStatus).where(eq(zoneStatus.zone, zone)).run());
}

export async function zoneStatusOf(s: Store, zone: string): Promise<ZoneStatusRow | undefined> {
  return s.db.select().from(zoneStatus).where(eq(zoneStatus.zone, zone)).get();
}

/** Records the delegation fact alone: it is looked up apart from the apply path, which must not wait for it. */
export async function recordDelegation(s: Store, zone: string, delegated: boolean): Promise<void> {
  await s.write((tx) => tx.update(zoneStatus).set({ delegated }).where(eq(zoneStatus.zone, zone)).run());
}

/** Raises the zone's serial above `served` (a signer bumps the served serial on its own) as a new generation. */
export async function raiseSerial(s: Store, zone: string, served: number): Promise<void> {
  const now = s.clock();
  await s.write((tx) => {
    const z = tx.select().from(zones).where(eq(zones.name, zone)).get();
    if (z && !serialGreater(z.serial, served)) bump(s, { ...z, serial: served }, now);
  });
}

interface RawRRset { name: string; type: string; ttl: number; records: string; managed_by: string | null }
const fromRaw = (r: RawRRset): StoredRRset => ({
  name: r.name, type: r.type as RecordType, ttl: r.ttl, records: JSON.parse(r.records) as RRset['records'], managedBy: r.managed_by as ManagedBy,
});

/** The rrsets of a zone in a stable order (by name, then type). Read on the driver directly: for a zone of
 * 100,000 rrsets the generic row mapping was most of the time. */
function readRRsets(s: Store, zone: string): StoredRRset[] {
  return s.prepared('zoneRRsets', (_db, sqlite) =>
    sqlite.prepare<[string], RawRRset>('SELECT name, type, ttl, records, managed_by FROM rrsets WHERE zone = ? ORDER BY name, type'))
    .all(zone).map(fromRaw);
}

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
  items: StoredRRset[]; next: RRsetCursor | null;
}> {
  type Row = RawRRset & { bytes: number };
  const q = s.prepared('zoneRRsetPage', (_db, sqlite) => ({
    apex: sqlite.prepare<[{ zone: string }], Row>('SELECT name, type, ttl, records, managed_by, bytes FROM rrsets WHERE zone = @zone AND name = @zone ORDER BY type'),
    rest: sqlite.prepare<[{ zone: string; name: string; type: string }], Row>(`SELECT name, type, ttl, records, managed_by, bytes FROM rrsets
      WHERE zone = @zone AND name <> @zone AND (name, type) > (@name, @type) ORDER BY name, type`),
  }));
  return s.db.transaction(() => {
    const items: StoredRRset[] = [];
    let bytes = 0;
    const take = (r: Row): void => {
      items.push(fromRaw(r));
      bytes += r.bytes;
    };
    if (!after) for (const r of q.apex.iterate({ zone })) take(r);
    // The apex comes first, so the place after it is the start of the other names (some sort before it).
    const from = after && after.name !== zone ? after : { name: '', type: '' };
    for (const r of q.rest.iterate({ zone, ...from })) {
      if (items.length >= limit || (items.length > 0 && bytes >= maxBytes)) {
        const last = items.at(-1)!;
        return { items, next: last.name === zone ? { name: '', type: '' } : { name: last.name, type: last.type } };
      }
      take(r);
    }
    return { items, next: null };
  });
}

/** The zone row and all its rrsets, read in one transaction so they belong to one generation. */
export async function zoneSnapshot(s: Store, name: string): Promise<{ zone: ZoneRow; rrsets: StoredRRset[] } | undefined> {
  return s.db.transaction(() => {
    const zone = s.db.select().from(zones).where(eq(zones.name, name)).get();
    return zone && { zone, rrsets: readRRsets(s, name) };
  });
}

/** What changed in a zone after generation `since`: the zone row, rrsets written since, and the keys of
 * rrsets deleted since (a key both deleted and written again is in `changed` only). One transaction. */
export async function zoneChangesSince(s: Store, name: string, since: number): Promise<{
  zone: ZoneRow; changed: StoredRRset[]; removed: { name: string; type: RecordType }[];
} | undefined> {
  const q = s.prepared('zoneChangesSince', (_db, sqlite) => ({
    changed: sqlite.prepare<[string, number], RawRRset>('SELECT name, type, ttl, records, managed_by FROM rrsets WHERE zone = ? AND changed_gen > ?'),
    removed: sqlite.prepare<[string, number], { name: string; type: string }>('SELECT name, type FROM rrset_tombstones WHERE zone = ? AND gen > ?'),
  }));
  return s.db.transaction(() => {
    const zone = s.db.select().from(zones).where(eq(zones.name, name)).get();
    if (!zone) return undefined;
    const changed = q.changed.all(name, since).map(fromRaw);
    const written = new Set(changed.map((r) => `${r.name} ${r.type}`));
    const removed = q.removed.all(name, since).filter((r) => !written.has(`${r.name} ${r.type}`)) as { name: string; type: RecordType }[];
    return { zone, changed, removed };
  });
}
