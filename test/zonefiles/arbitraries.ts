import fc from 'fast-check';
import { MAX_TTL, MIN_TTL, validateRRset, type RecordType, type RRset, type ZoneSpec } from '../../zonefiles';
import { testSoa } from './fixtures';

/** Zone of the generated specs. */
export const ZONE = 'example.com';

const label = fc.stringMatching(/^[a-z0-9_-]{1,12}$/);
const below = fc.array(label, { minLength: 1, maxLength: 3 }).map((ls) => `${ls.join('.')}.${ZONE}`);
const owner = fc.oneof(fc.constant(ZONE), below, below.map((n) => `*.${n}`));
const host = fc.array(label, { minLength: 1, maxLength: 3 }).map((ls) => `${ls.join('.')}.example.net`);
const u16 = fc.integer({ min: 0, max: 65535 });

function rrsetOf(type: RecordType, name: fc.Arbitrary<string>, content: fc.Arbitrary<string>, maxRecords = 4): fc.Arbitrary<RRset> {
  return fc.record({
    name,
    type: fc.constant(type),
    ttl: fc.integer({ min: MIN_TTL, max: MAX_TTL }),
    records: fc.array(content.map((c) => ({ content: c })), { minLength: 1, maxLength: maxRecords }),
  });
}

/** Any valid rrset of {@link ZONE}, in raw API form (not yet canonical). */
export const rawRRset: fc.Arbitrary<RRset> = fc.oneof(
  rrsetOf('A', owner, fc.ipV4()),
  rrsetOf('AAAA', owner, fc.ipV6()),
  rrsetOf('CAA', owner, fc.tuple(fc.integer({ min: 0, max: 255 }), fc.constantFrom('issue "letsencrypt.org"', 'issuewild ;', 'iodef "mailto:a@example.com"', 'tbs "x y"')).map(([f, rest]) => `${f} ${rest}`)),
  rrsetOf('CNAME', below, host, 1),
  rrsetOf('MX', owner, fc.tuple(u16, host).map(([p, h]) => `${p} ${h}`)),
  rrsetOf('NS', owner, host),
  rrsetOf('PTR', owner, host),
  rrsetOf('SRV', fc.tuple(label, label, fc.oneof(fc.constant(ZONE), below)).map(([s, p, o]) => `_${s}._${p}.${o}`), fc.tuple(u16, u16, u16, host).map((f) => f.join(' '))),
  rrsetOf('TXT', owner, fc.string({ unit: 'binary', maxLength: 700 })),
);

/** A zone of canonical rrsets, at most one per name and type; no apex NS unless generated. */
export const zoneSpec: fc.Arbitrary<ZoneSpec> = fc
  .uniqueArray(rawRRset, { selector: (r) => `${r.name} ${r.type}`, maxLength: 25 })
  .map((rrsets) => ({ name: ZONE, soa: testSoa, rrsets: rrsets.map((r) => validateRRset(ZONE, r)) }));

/** The same zone with rrsets and the records of each rrset in a random order. */
export function shuffled(spec: ZoneSpec): fc.Arbitrary<ZoneSpec> {
  const all = <T>(xs: T[]) => fc.shuffledSubarray(xs, { minLength: xs.length, maxLength: xs.length });
  return all(spec.rrsets)
    .chain((rrsets) => fc.tuple(...rrsets.map((r) => all(r.records).map((records) => ({ ...r, records })))))
    .map((rrsets) => ({ ...spec, rrsets }));
}
