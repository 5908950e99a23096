/**
 * What an incremental change is made of (reconcilers/zones/apply.ts): an rrset's records as absolute lines, the SOA
 * as an absolute line. Applied to the served zone, they must give exactly the zone a whole render gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { absoluteLines, absoluteSoaLine, parseZone, renderZone, rrsetKey, validateRRset, type RRset } from '../../zonefiles';
import { rawRRset, ZONE, zoneSpec } from './arbitraries';

const SOA = { mname: 'ns1.example.net', rname: 'hostmaster.example.com', serial: 7, refresh: 1, retry: 1, expire: 1, minimum: 1, ttl: 60 };

describe('incremental changes', () => {
  it('an rrset\'s absolute lines, set into the served zone in place of its rrset, give what a whole render gives', () => {
    fc.assert(fc.property(zoneSpec, rawRRset, (spec, raw) => {
      const changed = validateRRset(ZONE, raw);
      const model = new Map(spec.rrsets.map((r) => [rrsetKey(r.name, r.type), r]));
      model.set(rrsetKey(changed.name, changed.type), changed);
      const whole = parseZone(renderZone({ ...spec, rrsets: [...model.values()] }));
      // The lines parse back (with the absolute SOA) to the changed rrset alone, as knotd takes them.
      const applied = parseZone(`$ORIGIN ${ZONE}.\n${absoluteSoaLine(ZONE, spec.soa)}\n${absoluteLines(ZONE, changed).join('\n')}\n`);
      expect(applied.rrsets).toEqual([whole.rrsets.find((r) => r.name === changed.name && r.type === changed.type)]);
      expect(applied.soa).toEqual(whole.soa);
    }), { numRuns: 200 });
  });

  it('writes every line with its absolute owner, TTL and type', () => {
    fc.assert(fc.property(rawRRset, (raw) => {
      const rrset = validateRRset(ZONE, raw);
      const lines = absoluteLines(ZONE, rrset);
      expect(lines).toHaveLength(rrset.records.length);
      for (const l of lines) expect(l.startsWith(`${rrset.name}. ${rrset.ttl} IN ${rrset.type} `)).toBe(true);
    }), { numRuns: 200 });
    expect(absoluteSoaLine(ZONE, SOA)).toBe(`${ZONE}. 60 IN SOA ns1.example.net. hostmaster.example.com. 7 1 1 1 1`);
  });

  it('refuses an owner outside the zone; a whole render refuses two rrsets with one name and type', () => {
    expect(() => absoluteLines(ZONE, { name: 'other.test', type: 'A', ttl: 60, records: [{ content: '192.0.2.1' }] })).toThrow(/outside|not in/i);
    const a: RRset = { name: `www.${ZONE}`, type: 'A', ttl: 60, records: [{ content: '192.0.2.1' }] };
    expect(() => renderZone({ name: ZONE, soa: SOA, rrsets: [a, a] })).toThrow(/two rrsets/);
  });
});
