import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseZone, renderZone, validateRRset, ZoneImage, type RRset } from '../../zonefiles';
import { rawRRset, ZONE, zoneSpec } from './arbitraries';

type Step = { op: 'set'; rrset: RRset } | { op: 'delete'; index: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  rawRRset.map((r) => ({ op: 'set' as const, rrset: validateRRset(ZONE, r) })),
  fc.nat().map((index) => ({ op: 'delete' as const, index })),
);

describe('ZoneImage', () => {
  it('after any sequence of sets and deletes renders exactly what renderZone renders from scratch', () => {
    fc.assert(fc.property(zoneSpec, fc.array(step, { maxLength: 30 }), (spec, steps) => {
      const image = new ZoneImage(ZONE, spec.rrsets);
      const model = new Map(spec.rrsets.map((r) => [`${r.name} ${r.type}`, r]));
      for (const s of steps) {
        if (s.op === 'set') {
          image.set(s.rrset);
          model.set(`${s.rrset.name} ${s.rrset.type}`, s.rrset);
        } else {
          const victim = [...model.values()][s.index % Math.max(1, model.size)];
          if (!victim) continue;
          image.delete(victim.name, victim.type);
          model.delete(`${victim.name} ${victim.type}`);
        }
      }
      expect(image.size).toBe(model.size);
      expect(image.text(spec.soa)).toBe(renderZone({ ...spec, rrsets: [...model.values()] }));
    }), { numRuns: 200 });
  });

  it('gives an rrset\'s records as absolute lines that parse back to the same rrset', () => {
    fc.assert(fc.property(rawRRset, (raw) => {
      const rrset = validateRRset(ZONE, raw);
      const image = new ZoneImage(ZONE, [rrset]);
      const lines = image.absoluteLines(rrset.name, rrset.type);
      expect(lines).toHaveLength(rrset.records.length);
      for (const l of lines) expect(l.startsWith(`${rrset.name}. ${rrset.ttl} IN ${rrset.type} `)).toBe(true);
      const soa = { mname: 'ns1.example.net', rname: 'hostmaster.example.com', serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 1, ttl: 60 };
      const parsed = parseZone(`$ORIGIN ${ZONE}.\n${ZoneImage.soaLine(ZONE, soa)}\n${lines.join('\n')}\n`);
      expect(parsed.rrsets).toHaveLength(1);
      expect(parsed.soa.serial).toBe(1);
    }), { numRuns: 200 });
  });

  it('refuses an owner outside the zone and two rrsets with one name and type', () => {
    expect(() => new ZoneImage(ZONE, [{ name: 'other.test', type: 'A', ttl: 60, records: [{ content: '192.0.2.1' }] }])).toThrow(/outside|not in/i);
    const a: RRset = { name: `www.${ZONE}`, type: 'A', ttl: 60, records: [{ content: '192.0.2.1' }] };
    expect(() => new ZoneImage(ZONE, [a, a])).toThrow(/two rrsets/);
  });
});
