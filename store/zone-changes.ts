/**
 * Change sets: many rrset puts and deletes of one zone applied all or nothing, as one generation and one serial
 * (so the zone reconciler applies them to the nameserver as one transaction: it reads a zone at one generation),
 * and restores of a revision, which are change sets computed from the revisions since.
 */
import { badRequest, notFound } from '../lib/errors';
import { quotaExceeded } from '../rules/plans';
import {
  aliasConflict, checkCnameConflict, dsWithoutDelegation, RECORD_TYPES, renderedBytes, resolveOwner, validateRRset, ZoneValidationError,
  type CurrentRRset, type Issue, type RecordType, type RRset,
} from '../zonefiles';
import { iso, type Store, type Tx } from './db';
import { appendAudit } from './feed';
import { capZoneRevisions, REVISION_BYTES_PER_ZONE_BYTES, revisionsSince, summaryOf, writeOrDryRun, type RevisionChange } from './zone-revisions';
import { handOver } from './zone-handover';
import {
  bump, checkAliasCount, checkOwner, checkZone, zoneToChange, type ZoneChangeResult, type ZonePrecondition, type ZoneRow,
} from './zones';

/** Changes in one set at most (CONTRACT.md "Zone changes, files and revisions"). */
export const MAX_CHANGES = 1000;

/** One change of a set: the whole new content of an rrset (TTL default 3600), or its deletion. Names are absolute
 * (or `@`) and are normalized as putRRset's. Or a change its sender refused already (of the wrong shape): its
 * issues, whose paths name it by its index (`changes[3].ttl`), are among the set's, and nothing more is judged of it. */
export type ZoneChange =
  | { op: 'put'; name: string; type: string; ttl?: number; records: { content: string }[] }
  | { op: 'delete'; name: string; type: string }
  | { op: 'refused'; issues: Issue[] };

export interface ApplyZoneChanges {
  orgId: number;
  zone: string;
  /** The changes, or how to make them from every rrset of the zone as the write reads them (a zone file's import:
   * what it puts and, replacing, deletes is worked out from the zone it is applied to, under the zone's lock, so
   * a write landing meanwhile is neither undone nor missed). Such a function's ZoneValidationError is the
   * answer's 400 as it throws it. */
  changes: ZoneChange[] | ((current: CurrentRRset[]) => ZoneChange[]);
  actor: string;
  /** Answer what the set would do and write nothing. */
  dryRun?: boolean;
  /** The zone's If-Match, checked in the write's transaction. */
  precondition?: ZonePrecondition;
  /** The plan's per-zone limits, as putRRset's. */
  quota: { plan: string; rrsets: number; bytes: number } | null;
  /** What made the change when the caller did not name its rrsets (an import, a restore): said before what changed
   * in the revision's summary, and audited as this one event with what the set changed (`to`: its generation; the
   * counts), instead of an event per rrset. A file of a few bytes replaces a whole zone, a restore names none: an
   * event per rrset was a zone's worth of audit rows, kept for good, for a request of any size. */
  source?: ZoneChangeSource;
  /** The puts are validateRRset's own answers (a parsed zone file's rrsets): not validated a second time. */
  canonical?: boolean;
}

export interface ZoneChangeSource { summary: string; event: string; details: Record<string, unknown> }

/** A change that passed the checks that need no store: its owner normalized, the new rrset canonical. */
interface Planned { index: number; name: string; type: string; rrset: RRset | null }

const keyOf = (name: string, type: string): string => `${name} ${type}`;
const at = (i: number, path?: string): string => (path ? `changes[${i}].${path}` : `changes[${i}]`);

/** A set's changes that passed the checks that need no store, and the issues of the others. */
interface Plan { planned: Planned[]; issues: Issue[] }

/** Every issue of the changes that the store is not needed for: shape, content, SOA, two changes of one rrset. */
function planChanges(zone: string, changes: ZoneChange[], canonical: boolean): Plan {
  const planned: Planned[] = [];
  const issues: Issue[] = [];
  const first = new Map<string, number>();
  const twice = new Set<number>();
  changes.forEach((c, i) => {
    if (c.op === 'refused') {
      issues.push(...c.issues);
      return;
    }
    try {
      if (c.type === 'SOA') {
        issues.push({ path: at(i, 'type'), message: `${c.name} SOA is managed by the service` });
        return;
      }
      if (c.op === 'put') {
        const given = { name: c.name, type: c.type as RecordType, ttl: c.ttl ?? 3600, records: c.records };
        const rrset = canonical ? given : validateRRset(zone, given);
        planned.push({ index: i, name: rrset.name, type: rrset.type, rrset });
      } else {
        const name = resolveOwner(c.name, zone);
        if (!(RECORD_TYPES as readonly string[]).includes(c.type)) {
          issues.push({ path: at(i, 'type'), message: `type "${c.type}" is not supported; use one of ${RECORD_TYPES.join(', ')}` });
          return;
        }
        planned.push({ index: i, name, type: c.type, rrset: null });
      }
    } catch (e) {
      if (!(e instanceof ZoneValidationError)) throw e;
      issues.push(...e.issues.map((x) => ({ path: at(i, x.path), message: x.message })));
      return;
    }
    const p = planned.at(-1)!;
    const key = keyOf(p.name, p.type);
    const before = first.get(key);
    if (before === undefined) first.set(key, i);
    else {
      if (!twice.has(before)) issues.push({ path: at(before), message: `${key} is changed again by changes[${i}]` });
      issues.push({ path: at(i), message: `${key} is already changed by changes[${before}]` });
      twice.add(before).add(i);
    }
  });
  // Refused here, neither change of an rrset changed twice is judged against the zone.
  return { planned: planned.filter((p) => !twice.has(p.index)), issues };
}

/** A stored rrset as a zone file's import compares it (`recordsJson` the records' JSON text as stored, parsed only
 * where the diff shows it), with the bytes the zone-size quota counts. Columns are read under these names, so that
 * the rows are handed to an import as they come. */
type Row = CurrentRRset & { bytes: number };

const STORED_COLUMNS = 'name, type, ttl, records AS "recordsJson", managed_by AS "managedBy", bytes';

/** Every rrset of a zone as stored, the apex first, then by name and type (getZone's order). */
async function zoneRows(tx: Tx, zone: string): Promise<Row[]> {
  return tx.raw('zoneRowsToChange', `SELECT ${STORED_COLUMNS} FROM rrsets WHERE zone = ? ORDER BY name <> ?, name, type`, [zone, zone]);
}

/** Stored rrsets by name, a few at each: arrays, not a Map per name (a zone file's 40,000 names made as many). */
const byName = (rows: Row[]): Map<string, Row[]> => {
  const out = new Map<string, Row[]>();
  for (const r of rows) {
    const there = out.get(r.name);
    if (there) there.push(r);
    else out.set(r.name, [r]);
  }
  return out;
};

const storedAt = (stored: Map<string, Row[]>, name: string, type: string): Row | undefined => stored.get(name)?.find((r) => r.type === type);

/**
 * The rows of one JSON array parameter (each row an array of its columns) as a table with the columns `value` (the
 * row, whose column N is `value ->> N`) and `key` (its index): a batch of any size is one statement of fixed text.
 * Bound one by one, parameters were most of a large set's write (a 1 MiB zone file's 40,000 rrsets, 500 rows of 8
 * columns a statement); the database reads an array in half that time. One text also keeps PostgreSQL's named
 * statements to one per kind, where batches of varying size would make one per size and connection.
 */
const jsonRows = (s: Store): string => (s.dialect === 'sqlite' ? 'json_each(?)' : 'json_array_elements(CAST(? AS json)) WITH ORDINALITY AS rows (value, key)');

/** Every rrset stored at `names`, by name and type, as the write's transaction reads them, in one statement. Raw: a
 * set of 1,000 names spent most of its time in the query builder's statements and their rows' mapping. */
async function rrsetsAt(s: Store, tx: Tx, zone: string, names: string[]): Promise<Map<string, Row[]>> {
  const wanted = JSON.stringify([...new Set(names)].map((n) => [n]));
  return byName(await tx.raw<Row>('rrsetsAtNames', `SELECT ${STORED_COLUMNS} FROM rrsets WHERE zone = ? AND name IN (SELECT value ->> 0 FROM ${jsonRows(s)})`, [zone, wanted]));
}

/** Writes a change set's rrsets, their removals and their audit events, each kind one statement. SQLite parses
 * `INSERT ... SELECT ... ON CONFLICT` only with a WHERE in the SELECT (its ON could be a join's). */
async function writeRRsets(
  s: Store, tx: Tx, z: ZoneRow, generation: number, p: { actor: string; source?: ZoneChangeSource | undefined }, now: Date, diff: RevisionChange[],
  puts: { rrset: RRset; json: string; bytes: number }[],
): Promise<void> {
  const { actor, source } = p;
  const rows = jsonRows(s);
  if (puts.length > 0) {
    await tx.raw('upsertRRsets', `INSERT INTO rrsets (zone, name, type, ttl, records, managed_by, changed_gen, bytes)
      SELECT CAST(? AS text), value ->> 0, value ->> 1, CAST(value ->> 2 AS integer), value ->> 3, NULL, CAST(? AS integer), CAST(value ->> 4 AS integer) FROM ${rows} WHERE true
      ON CONFLICT (zone, name, type) DO UPDATE SET ttl = excluded.ttl, records = excluded.records, changed_gen = excluded.changed_gen, bytes = excluded.bytes`,
    [z.name, generation, JSON.stringify(puts.map(({ rrset, json, bytes }) => [rrset.name, rrset.type, rrset.ttl, json, bytes]))]);
  }
  const removed = JSON.stringify(diff.filter((x) => x.op === 'remove').map((d) => [d.name, d.type]));
  if (removed !== '[]') {
    await tx.raw('deleteRRsets', `DELETE FROM rrsets WHERE zone = ? AND (name, type) IN (SELECT value ->> 0, value ->> 1 FROM ${rows})`, [z.name, removed]);
    await tx.raw('tombstoneRRsets', `INSERT INTO rrset_tombstones (zone, name, type, gen, at)
      SELECT CAST(? AS text), value ->> 0, value ->> 1, CAST(? AS integer), CAST(? AS text) FROM ${rows} WHERE true
      ON CONFLICT (zone, name, type) DO UPDATE SET gen = excluded.gen, at = excluded.at`,
    [z.name, generation, iso(now), removed]);
  }
  if (source) {
    const count = (op: RevisionChange['op']): number => diff.reduce((n, d) => n + (d.op === op ? 1 : 0), 0);
    await appendAudit(tx, {
      orgId: z.orgId, event: source.event, actor, target: z.name,
      details: { ...source.details, to: generation, added: count('add'), changed: count('change'), removed: count('remove') },
    }, now);
    return;
  }
  // The spec's events per rrset, as putRRset and deleteRRset write them, each naming the generation of its set,
  // in the diff's order.
  await tx.raw('auditRRsets', `INSERT INTO audit (org_id, at, event, actor, target, details)
    SELECT CAST(? AS integer), CAST(? AS text), value ->> 0, CAST(? AS text), value ->> 1, value ->> 2 FROM ${rows} ORDER BY key`,
  [z.orgId, iso(now), actor, JSON.stringify(diff.map((d) => [
    d.op === 'remove' ? 'dns.rrset.delete' : 'dns.rrset.set', `${z.name}/${d.name}/${d.type}`,
    JSON.stringify(d.after ? { ttl: d.after.ttl, records: d.after.records.length, generation } : { generation }),
  ]))]);
}

const contentOf = (r: Row): { ttl: number; records: RRset['records'] } => ({ ttl: r.ttl, records: JSON.parse(r.recordsJson) as RRset['records'] });

/**
 * Applies planned changes to a zone read under its lock: refuses the set with the plan's issues and every planned
 * change the stored rrsets refuse (the service's rrsets, a delete of nothing, a CNAME beside another type once the
 * set is applied), then the plan's quotas on the whole set; writes what differs as one generation (none when
 * nothing does).
 */
async function applyPlanned(
  s: Store, tx: Tx, z: ZoneRow, plan: Plan, p: Omit<ApplyZoneChanges, 'changes'>, now: Date, read?: Map<string, Row[]>,
): Promise<ZoneChangeResult> {
  const { planned } = plan;
  const current = read ?? await rrsetsAt(s, tx, z.name, planned.map((c) => c.name));
  const issues = [...plan.issues];
  // The types at each name once the set is applied: the CNAME rule holds for the result, so a set may swap an A
  // for a CNAME.
  const typesAfter = new Map<string, string[]>();
  for (const c of planned) {
    let types = typesAfter.get(c.name);
    if (!types) typesAfter.set(c.name, types = (current.get(c.name) ?? []).map((r) => r.type));
    const i = types.indexOf(c.type);
    if (c.rrset && i < 0) types.push(c.type);
    else if (!c.rrset && i >= 0) types.splice(i, 1);
  }
  const diff: RevisionChange[] = [];
  let grow = { rrsets: 0, bytes: 0 };
  // The bytes of the rrsets the diff holds, before and after, which its revision stores.
  let held = 0;
  const puts: { rrset: RRset; json: string; bytes: number }[] = [];
  for (const c of planned) {
    const old = storedAt(current, c.name, c.type);
    try {
      if (old) checkOwner(old.managedBy, null, c.name, c.type, c.rrset ? 'edited' : 'deleted');
    } catch (e) {
      issues.push({ path: at(c.index), message: (e as Error).message });
      continue;
    }
    if (!c.rrset) {
      if (!old) {
        issues.push({ path: at(c.index), message: `rrset ${c.name} ${c.type} not found` });
        continue;
      }
      if (c.type === 'NS' && dsWithoutDelegation(typesAfter.get(c.name)!)) {
        issues.push({ path: at(c.index), message: `${c.name} keeps a DS once the changes are applied, which needs its NS: delete the DS too` });
        continue;
      }
      diff.push({ op: 'remove', name: c.name, type: c.type, before: contentOf(old), after: null, managedBy: null });
      grow = { rrsets: grow.rrsets - 1, bytes: grow.bytes - old.bytes };
      held += old.bytes;
      continue;
    }
    const typesThere = typesAfter.get(c.name)!;
    // A name left with this one type breaks no rule but the DS's.
    const types = typesThere.length > 1 || c.type === 'DS' ? typesThere : undefined;
    if (types && checkCnameConflict(types.filter((t) => t !== c.type) as RecordType[], c.type as RecordType)) {
      issues.push({ path: at(c.index, 'type'), message: `a CNAME cannot share the name ${c.name} with another type` });
      continue;
    }
    if (types && c.type === 'DS' && dsWithoutDelegation(types)) {
      issues.push({ path: at(c.index, 'type'), message: `a DS needs an NS rrset at ${c.name} once the changes are applied (a delegation)` });
      continue;
    }
    if (types && ALIAS_SIDE.has(c.type) && aliasConflict(types)) {
      issues.push({ path: at(c.index, 'type'), message: `an ALIAS cannot share the name ${c.name} with an A or AAAA rrset once the changes are applied` });
      continue;
    }
    const after = { ttl: c.rrset.ttl, records: c.rrset.records };
    // Stored records are the JSON text of canonical records, so the same records are the same text.
    const json = JSON.stringify(after.records);
    if (old && old.ttl === after.ttl && old.recordsJson === json) continue;
    const bytes = renderedBytes(z.name, c.rrset);
    diff.push({ op: old ? 'change' : 'add', name: c.name, type: c.type, before: old ? contentOf(old) : null, after, managedBy: null });
    puts.push({ rrset: c.rrset, json, bytes });
    grow = { rrsets: grow.rrsets + (old ? 0 : 1), bytes: grow.bytes + bytes - (old?.bytes ?? 0) };
    held += bytes + (old?.bytes ?? 0);
  }
  if (issues.length > 0) throw refused(issues);
  if (diff.length === 0) return { generation: z.generation, serial: z.serial, diff };
  const aliases = diff.reduce((n, d) => n + (d.type !== 'ALIAS' || d.op === 'change' ? 0 : d.op === 'add' ? 1 : -1), 0);
  if (aliases > 0) await checkAliasCount(tx, z.name, aliases);
  const { quota } = p;
  if (quota) {
    if (grow.rrsets > 0 && z.rrsetCount + grow.rrsets > quota.rrsets) throw quotaExceeded('rrsets_per_zone', quota.rrsets, z.rrsetCount, quota.plan, 'rrsets per zone');
    if (grow.bytes > 0 && z.bytes + grow.bytes > quota.bytes) throw quotaExceeded('zone_bytes', quota.bytes, z.bytes, quota.plan, 'bytes of zone file per zone');
  }
  const summary = p.source === undefined ? summaryOf(diff) : `${p.source.summary}: ${summaryOf(diff)}`;
  const bumped = await bump(s, tx, z, now, { actor: p.actor, summary, diff, bytes: held }, grow);
  const { generation } = bumped;
  await writeRRsets(s, tx, z, generation, p, now, diff, puts);
  handOver(s, tx, z.name, z.uid, generation, diff);
  if (quota) await capZoneRevisions(tx, bumped, REVISION_BYTES_PER_ZONE_BYTES * quota.bytes);
  return { generation, serial: bumped.serial, diff };
}

/** The types an ALIAS excludes at its name, and ALIAS itself: a change of one of them is judged by aliasConflict. */
const ALIAS_SIDE = new Set(['ALIAS', 'A', 'AAAA']);

/** The index of the change an issue names (`changes[3].ttl`). */
const indexOf = (issue: Issue): number => Number(/^changes\[(\d+)\]/.exec(issue.path)![1]);

/** One 400 naming every refused change, in the changes' order (each change's issues in the order found). */
function refused(found: Issue[]) {
  const issues = [...found].sort((a, b) => indexOf(a) - indexOf(b));
  return badRequest(`${issues.length === 1 ? 'a change is' : `${issues.length} issues in the changes are`} refused: ${issues[0]!.path}: ${issues[0]!.message}`, { issues });
}

/**
 * Applies a change set to a customer's zone, all or nothing: every refused change is named in one 400
 * (`details.issues[].path` `changes[i]...`), the plan's quotas hold for the set as a whole (409 `quota_exceeded`),
 * `precondition` is the zone's If-Match (412). What differs from what is stored is written as one generation
 * and one serial with its revision and audit events; changes that change nothing are left out of the diff, and a
 * set that changes nothing writes nothing. With `dryRun` the same checks and the same answer, and nothing kept.
 */
export async function applyZoneChanges(s: Store, p: ApplyZoneChanges): Promise<ZoneChangeResult> {
  const now = s.clock();
  const { changes } = p;
  const canonical = p.canonical ?? false;
  const plan: { make: (current: CurrentRRset[]) => ZoneChange[] } | { given: Plan } =
    typeof changes === 'function' ? { make: changes } : { given: planChanges(p.zone, changes, canonical) };
  return writeOrDryRun(s, p.dryRun ?? false, async (tx) => {
    const z = await zoneToChange(tx, p.orgId, p.zone);
    if ('given' in plan) {
      // A set refused whatever the zone holds is 400 before the precondition is looked at; the changes that
      // passed the plan are still judged against the zone, so that the 400 names every refused change.
      if (plan.given.issues.length === 0) await checkZone(tx, z, p.precondition);
      return applyPlanned(s, tx, z, plan.given, p, now);
    }
    await checkZone(tx, z, p.precondition);
    const rows = await zoneRows(tx, z.name);
    return applyPlanned(s, tx, z, planChanges(p.zone, plan.make(rows), canonical), p, now, byName(rows));
  });
}

/**
 * Brings the customer's rrsets of a zone back to what they were at `generation`, as a new change set (a new
 * generation and serial: a serial never goes back): each rrset changed since is put back as it was then, or
 * deleted if it was not there. The service's rrsets (apex NS, an app's or ACME's records) are left as they are.
 * 404 when that revision is not kept.
 */
export async function restoreZoneRevision(s: Store, p: Omit<ApplyZoneChanges, 'changes' | 'source'> & { generation: number }): Promise<ZoneChangeResult> {
  const now = s.clock();
  return writeOrDryRun(s, p.dryRun ?? false, async (tx) => {
    const z = await zoneToChange(tx, p.orgId, p.zone);
    await checkZone(tx, z, p.precondition);
    const since = await revisionsSince(tx, z.name, p.generation);
    if (!since) throw notFound(`revision ${p.generation} of zone ${z.name}`);
    // The first change of an rrset after the generation holds what it was then.
    const then = new Map<string, RevisionChange>();
    for (const d of since.flat()) if (!then.has(keyOf(d.name, d.type))) then.set(keyOf(d.name, d.type), d);
    const wanted = [...then.values()].filter((d) => d.managedBy === null || d.op === 'add')
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
    const current = await rrsetsAt(s, tx, z.name, wanted.map((d) => d.name));
    const planned: Planned[] = [];
    for (const d of wanted) {
      const stored = storedAt(current, d.name, d.type);
      if (stored?.managedBy) continue;
      if (d.before) planned.push({ index: planned.length, name: d.name, type: d.type, rrset: { name: d.name, type: d.type as RecordType, ...d.before } });
      else if (stored) planned.push({ index: planned.length, name: d.name, type: d.type, rrset: null });
    }
    return applyPlanned(s, tx, z, { planned, issues: [] }, {
      ...p, source: { summary: `restored generation ${p.generation}`, event: 'dns.zone.restore', details: { generation: p.generation } },
    }, now);
  });
}
