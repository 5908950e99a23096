/** importChanges: a parsed zone file against what the zone holds → the change set of an import (merge, replace). */
import { describe, expect, it } from 'vitest';
import { importChanges, parseZoneFile, type CurrentRRset } from '../../zonefiles';
import { issuesOf } from '../helpers/zone-issues';

const ZONE = 'example.com';
const rr = (name: string, type: CurrentRRset['type'], contents: string[], ttl = 300, managedBy: string | null = null): CurrentRRset => ({
  name, type, ttl, recordsJson: JSON.stringify(contents.map((content) => ({ content }))), managedBy,
});
const CURRENT: CurrentRRset[] = [
  rr(ZONE, 'NS', ['ns1.hostplane.test', 'ns2.hostplane.test'], 86_400, 'system'),
  rr(ZONE, 'A', ['192.0.2.1']),
  rr(`www.${ZONE}`, 'A', ['192.0.2.2']),
  rr(`old.${ZONE}`, 'TXT', ['bye']),
  rr(`app.${ZONE}`, 'CNAME', ['edge.hostplane.test'], 300, 'app'),
];
const file = (text: string) => parseZoneFile(`$TTL 300\n${text}`, ZONE);

describe('importChanges', () => {
  it('merge puts only what differs: a changed rrset, a new one; identical ones and the rest of the zone stay', () => {
    const f = file('@ A 192.0.2.1\nwww 600 A 192.0.2.2\nnew TXT "hello"\n');
    expect(importChanges(ZONE, CURRENT, f, 'merge')).toEqual([
      { op: 'put', name: `www.${ZONE}`, type: 'A', ttl: 600, records: [{ content: '192.0.2.2' }] },
      { op: 'put', name: `new.${ZONE}`, type: 'TXT', ttl: 300, records: [{ content: 'hello' }] },
    ]);
  });

  it('replace also deletes the customer\'s rrsets the file lacks, deletes first; never the service\'s', () => {
    expect(importChanges(ZONE, CURRENT, file('@ A 192.0.2.9\n'), 'replace')).toEqual([
      { op: 'delete', name: `www.${ZONE}`, type: 'A' },
      { op: 'delete', name: `old.${ZONE}`, type: 'TXT' },
      { op: 'put', name: ZONE, type: 'A', ttl: 300, records: [{ content: '192.0.2.9' }] },
    ]);
  });

  it('ignores the file\'s SOA and apex NS, whatever they say', () => {
    const f = file('@ 3600 SOA ns.other.example. admin 99 1 1 1 1\n@ NS ns1.other-provider.example.\n@ NS ns2.other-provider.example.\n@ A 192.0.2.1\n');
    for (const mode of ['merge', 'replace'] as const) {
      expect(importChanges(ZONE, CURRENT.filter((r) => r.type !== 'TXT' && r.name !== `www.${ZONE}`), f, mode)).toEqual([]);
    }
  });

  it('an NS below the apex is a delegation, imported as any rrset', () => {
    expect(importChanges(ZONE, CURRENT, file('sub NS ns1.elsewhere.example.\n'), 'merge'))
      .toEqual([{ op: 'put', name: `sub.${ZONE}`, type: 'NS', ttl: 300, records: [{ content: 'ns1.elsewhere.example' }] }]);
  });

  it('refuses at its line a change to an rrset the service manages; the same content is no change', () => {
    expect(issuesOf(() => importChanges(ZONE, CURRENT, file('\napp CNAME other.example.\n'), 'merge'))).toEqual([
      { path: 'line 3', message: `app.${ZONE} CNAME is managed by the service (app); a file cannot change it` },
    ]);
    expect(importChanges(ZONE, CURRENT, file('app CNAME edge.hostplane.test.\n'), 'merge')).toEqual([]);
  });

  it('refuses at its line an rrset that breaks the CNAME rule in the zone as it would be', () => {
    // Merge keeps www A, so a CNAME there conflicts; replace removes it first, so the same file is fine.
    expect(issuesOf(() => importChanges(ZONE, CURRENT, file('www CNAME target.example.\n'), 'merge'))).toEqual([
      { path: 'line 2', message: `www.${ZONE} CNAME: a CNAME cannot share its name with other types (here A, CNAME)` },
    ]);
    expect(importChanges(ZONE, CURRENT, file('www CNAME target.example.\n'), 'replace')).toContainEqual({ op: 'delete', name: `www.${ZONE}`, type: 'A' });
    // Both in the file: each is named.
    expect(issuesOf(() => importChanges(ZONE, [], file('x CNAME t.example.\nx TXT "t"\n'), 'replace'))).toEqual([
      { path: 'line 2', message: `x.${ZONE} CNAME: a CNAME cannot share its name with other types (here CNAME, TXT)` },
      { path: 'line 3', message: `x.${ZONE} TXT: a CNAME cannot share its name with other types (here CNAME, TXT)` },
    ]);
  });

  it('refuses at its line a DS without an NS at its name in the zone as it would be (RFC 4035 2.4)', () => {
    const ds = `sec DS 12345 13 2 ${'ab'.repeat(32)}\n`;
    expect(issuesOf(() => importChanges(ZONE, CURRENT, file(ds), 'merge'))).toEqual([
      { path: 'line 2', message: `sec.${ZONE} DS: a DS needs an NS rrset at its name (a delegation) in the zone as it would be` },
    ]);
    expect(importChanges(ZONE, CURRENT, file(`${ds}sec NS ns1.elsewhere.example.\n`), 'replace').map((c) => c.type)).toEqual(['A', 'A', 'TXT', 'DS', 'NS']);
    // The stored NS: merge keeps it, replace removes it unless the file holds it.
    const delegated = [...CURRENT, rr(`sec.${ZONE}`, 'NS', ['ns1.elsewhere.example'])];
    expect(importChanges(ZONE, delegated, file(ds), 'merge').map((c) => c.type)).toEqual(['DS']);
    expect(issuesOf(() => importChanges(ZONE, delegated, file(ds), 'replace')).map((i) => i.path)).toEqual(['line 2']);
    // A DS stored without its NS before the rule held, imported as it is: no change, not a refusal.
    const [stored] = file(ds).rrsets;
    const legacy = [...CURRENT, rr(stored!.name, 'DS', stored!.records.map((r) => r.content))];
    expect(importChanges(ZONE, legacy, file(ds), 'merge')).toEqual([]);
  });

  it('lists at most 100 refused lines, in line order, and how many more there are', () => {
    const clashes = Array.from({ length: 80 }, (_, i) => `n${i} CNAME t.example.\nn${i} TXT "t"\n`).join('');
    const issues = issuesOf(() => importChanges(ZONE, [], file(clashes), 'replace'));
    expect(issues).toHaveLength(101);
    expect(issues.slice(0, 3).map((i) => i.path)).toEqual(['line 2', 'line 3', 'line 4']);
    expect(issues[100]).toEqual({ path: '', message: '60 more problems not listed' });
  });

  it('a record order other than the stored one is no change (both canonical)', () => {
    const current = [rr(`m.${ZONE}`, 'MX', ['10 a.example.com', '20 b.example.com'])];
    expect(importChanges(ZONE, current, file('m MX 20 b\nm MX 10 a\n'), 'replace')).toEqual([]);
  });
});
