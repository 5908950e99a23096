import { ZoneValidationError, type Issue } from './errors';
import type { RecordData, RecordType, RRset } from './model';
import type { ZoneFile } from './parse';
import { rrsetKey } from './render';
import { aliasConflict, checkCnameConflict } from './validate';

/** One change of a change set, in the form `POST .../zones/{zone}/changes` takes. */
export type ZoneChange =
  | { op: 'put'; name: string; type: RecordType; ttl: number; records: RecordData[] }
  | { op: 'delete'; name: string; type: RecordType };

/** A stored rrset: `managedBy` is null for the customer's own, else who in the service writes it. */
export interface CurrentRRset extends RRset { managedBy: string | null }

export type ImportMode = 'merge' | 'replace';

const sameContent = (a: RRset, b: RRset): boolean => a.ttl === b.ttl && JSON.stringify(a.records) === JSON.stringify(b.records);

/**
 * The change set that makes a zone hold what a file holds. `merge` puts every rrset of the file that differs
 * from the stored one (or is not stored); `replace` also deletes the customer's rrsets the file does not hold.
 * Deletes come first, so that a CNAME the file puts where the zone held other types is not refused against
 * rrsets the same change set removes.
 *
 * The service's records are never changed: the file's SOA is ignored (the service writes the SOA), as is its
 * apex NS (the zone's nameservers are the service's; an exported file carries them and a file from elsewhere
 * carries the old provider's), and `replace` keeps every rrset the service manages (apex NS, a hostname's
 * records, an ACME challenge). A file rrset that differs from one the service manages is refused at its line,
 * since a change set would refuse it later without saying where; so is an rrset that breaks the CNAME rule
 * (RFC 1034 3.6.2) or puts an ALIAS beside an A or AAAA in the zone as it would be after the change set. Throws {@link ZoneValidationError}.
 *
 * `current` is every stored rrset of the zone (records canonical and sorted, as stored); `file` is
 * {@link parseZoneFile}'s answer for the zone, so its rrsets are canonical too and compare as stored ones do.
 */
export function importChanges(zone: string, current: CurrentRRset[], file: ZoneFile, mode: ImportMode): ZoneChange[] {
  const stored = new Map(current.map((r) => [rrsetKey(r.name, r.type), r]));
  const taken = file.rrsets.flatMap((rrset, i) => (rrset.name === zone && rrset.type === 'NS' ? [] : [{ rrset, line: file.lines[i] as number }]));
  const inFile = new Set(taken.map(({ rrset }) => rrsetKey(rrset.name, rrset.type)));
  const kept = current.filter((r) => mode === 'merge' || r.managedBy !== null || inFile.has(rrsetKey(r.name, r.type)));

  // The zone's types per name once the change set is applied: the file's rrsets and the stored ones kept.
  const typesAt = new Map<string, Set<RecordType>>();
  for (const r of [...kept, ...taken.map((t) => t.rrset)]) typesAt.set(r.name, (typesAt.get(r.name) ?? new Set()).add(r.type));

  const issues: Issue[] = [];
  const puts: ZoneChange[] = [];
  for (const { rrset, line } of taken) {
    const others = [...(typesAt.get(rrset.name) as Set<RecordType>)].filter((t) => t !== rrset.type);
    if (checkCnameConflict(others, rrset.type)) {
      issues.push({ path: `line ${line}`, message: `${rrset.name} ${rrset.type}: a CNAME cannot share its name with other types (here ${[...others, rrset.type].sort().join(', ')})` });
      continue;
    }
    if (aliasConflict([...others, rrset.type])) {
      issues.push({ path: `line ${line}`, message: `${rrset.name} ${rrset.type}: an ALIAS cannot share its name with an A or AAAA (its addresses are served there)` });
      continue;
    }
    const old = stored.get(rrsetKey(rrset.name, rrset.type));
    if (old && sameContent(old, rrset)) continue;
    if (old && old.managedBy !== null) {
      issues.push({ path: `line ${line}`, message: `${rrset.name} ${rrset.type} is managed by the service (${old.managedBy}); a file cannot change it` });
      continue;
    }
    puts.push({ op: 'put', ...rrset });
  }
  if (issues.length > 0) throw new ZoneValidationError(issues);

  const keptKeys = new Set(kept.map((r) => rrsetKey(r.name, r.type)));
  const deletes = current.filter((r) => !keptKeys.has(rrsetKey(r.name, r.type))).map((r): ZoneChange => ({ op: 'delete', name: r.name, type: r.type }));
  return [...deletes, ...puts];
}
