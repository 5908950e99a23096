import { fileRefused, type Issue } from './errors';
import type { RecordData, RecordType, RRset } from './model';
import type { ZoneFile } from './parse';
import { aliasConflict, checkCnameConflict, dsWithoutDelegation } from './validate';

/** One change of a change set, in the form `POST .../zones/{zone}/changes` takes. */
export type ZoneChange =
  | { op: 'put'; name: string; type: RecordType; ttl: number; records: RecordData[] }
  | { op: 'delete'; name: string; type: RecordType };

/** A stored rrset: `recordsJson` is the JSON text of its records as stored (canonical and sorted, so the same
 * records are the same text: a zone of 40,000 rrsets is compared without parsing them); `managedBy` is null for
 * the customer's own, else who in the service writes it. */
export interface CurrentRRset { name: string; type: RecordType; ttl: number; recordsJson: string; managedBy: string | null }

export type ImportMode = 'merge' | 'replace';

const sameContent = (stored: CurrentRRset, rrset: RRset): boolean => stored.ttl === rrset.ttl && stored.recordsJson === JSON.stringify(rrset.records);

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
 * (RFC 1034 3.6.2), puts an ALIAS beside an A or AAAA, or a DS where no NS is (RFC 4035 2.4) in the zone as it would be
 * after the change set. Throws {@link ZoneValidationError}, its issues capped as the parser's.
 *
 * `current` is every stored rrset of the zone (records canonical and sorted, as stored); `file` is
 * {@link parseZoneFile}'s answer for the zone, so its rrsets are canonical too and compare as stored ones do.
 */
export function importChanges(zone: string, current: CurrentRRset[], file: ZoneFile, mode: ImportMode): ZoneChange[] {
  // Per name of the file: its types there, the stored rrsets it keeps, and the types it holds once the change set
  // is applied (the file's and the stored ones kept). Keyed by name, then by type in arrays of a few: a name string
  // keeps its hash, where a key of name and type was a new string to hash at every lookup, and a 1 MiB file is
  // 40,000 rrsets against as many stored.
  const names = new Map<string, { inFile: RecordType[]; kept: CurrentRRset[]; types: RecordType[] }>();
  const taken: { rrset: RRset; line: number }[] = [];
  file.rrsets.forEach((rrset, i) => {
    if (rrset.name === zone && rrset.type === 'NS') return;
    taken.push({ rrset, line: file.lines[i] as number });
    const at = names.get(rrset.name);
    if (at) {
      at.inFile.push(rrset.type);
      at.types.push(rrset.type);
    } else names.set(rrset.name, { inFile: [rrset.type], kept: [], types: [rrset.type] });
  });
  const deletes: ZoneChange[] = [];
  for (const r of current) {
    const at = names.get(r.name);
    const inFile = at !== undefined && at.inFile.includes(r.type);
    if (mode === 'replace' && r.managedBy === null && !inFile) deletes.push({ op: 'delete', name: r.name, type: r.type });
    else if (at) {
      at.kept.push(r);
      if (!inFile) at.types.push(r.type);
    }
  }

  const issues: Issue[] = [];
  const puts: ZoneChange[] = [];
  for (const { rrset, line } of taken) {
    const { types, kept } = names.get(rrset.name)!;
    // A name of one type breaks neither rule.
    if (types.length > 1) {
      const others = types.filter((t) => t !== rrset.type);
      if (checkCnameConflict(others, rrset.type)) {
        issues.push({ path: `line ${line}`, message: `${rrset.name} ${rrset.type}: a CNAME cannot share its name with other types (here ${[...others, rrset.type].sort().join(', ')})` });
        continue;
      }
      if (aliasConflict(types)) {
        issues.push({ path: `line ${line}`, message: `${rrset.name} ${rrset.type}: an ALIAS cannot share its name with an A or AAAA (its addresses are served there)` });
        continue;
      }
    }
    const old = kept.find((r) => r.type === rrset.type);
    if (old && sameContent(old, rrset)) continue;
    // After the sameness check: a DS stored without its NS before the rule held is left as it is, not refused.
    if (rrset.type === 'DS' && dsWithoutDelegation(types)) {
      issues.push({ path: `line ${line}`, message: `${rrset.name} DS: a DS needs an NS rrset at its name (a delegation) in the zone as it would be` });
      continue;
    }
    if (old && old.managedBy !== null) {
      issues.push({ path: `line ${line}`, message: `${rrset.name} ${rrset.type} is managed by the service (${old.managedBy}); a file cannot change it` });
      continue;
    }
    puts.push({ op: 'put', name: rrset.name, type: rrset.type, ttl: rrset.ttl, records: rrset.records });
  }
  if (issues.length > 0) throw fileRefused(issues);
  return [...deletes, ...puts];
}
