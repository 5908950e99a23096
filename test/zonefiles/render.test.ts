import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseZone, renderRecordData, renderZone, validateRRset, ZoneValidationError, type ZoneSpec } from '../../zonefiles';
import { shuffled, zoneSpec } from './arbitraries';
import { fixtureNames, loadFixture, testSoa } from './fixtures';

/** Order-free view of a zone for deep comparison. */
function sortedSpec(spec: ZoneSpec): ZoneSpec {
  const key = (r: { name: string; type: string }) => `${r.name} ${r.type}`;
  return {
    ...spec,
    rrsets: [...spec.rrsets]
      .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
      .map((r) => ({ ...r, records: [...r.records].sort((a, b) => (a.content < b.content ? -1 : a.content > b.content ? 1 : 0)) })),
  };
}

describe.each(fixtureNames)('fixture %s', (name) => {
  const spec = loadFixture(name);

  it('renders its golden zone file', async () => {
    await expect(renderZone(spec)).toMatchFileSnapshot(`../fixtures/zones/golden/${name}.zone`);
  });

  it('is canonical: validating its rrsets changes nothing', () => {
    expect(sortedSpec({ ...spec, rrsets: spec.rrsets.map((r) => validateRRset(spec.name, r)) })).toEqual(sortedSpec(spec));
  });

  it('renders the same bytes for any order of rrsets and records', () => {
    const expected = renderZone(spec);
    fc.assert(fc.property(shuffled(spec), (s) => renderZone(s) === expected), { numRuns: 50 });
  });

  it('parses back to the same zone, which renders to the same bytes', () => {
    const text = renderZone(spec);
    const parsed = parseZone(text);
    expect(sortedSpec(parsed)).toEqual(sortedSpec(spec));
    expect(renderZone(parsed)).toBe(text);
  });
});

describe('generated zones', () => {
  it('render the same bytes for any order of rrsets and records', () => {
    fc.assert(fc.property(zoneSpec.chain((spec) => fc.tuple(fc.constant(spec), shuffled(spec))), ([spec, s]) => renderZone(s) === renderZone(spec)));
  });

  it('parse back to the same zone', () => {
    fc.assert(
      fc.property(zoneSpec, (spec) => {
        expect(sortedSpec(parseZone(renderZone(spec)))).toEqual(sortedSpec(spec));
      }),
    );
  });
});

describe('renderZone', () => {
  const rrset = (name: string, content = '192.0.2.1') => ({ name, type: 'A' as const, ttl: 300, records: [{ content }] });

  it('writes $ORIGIN and the SOA before any record, with absolute SOA names', () => {
    const lines = renderZone({ name: 'example.com', soa: testSoa, rrsets: [rrset('www.example.com')] }).split('\n');
    expect(lines.slice(0, 2)).toEqual([
      '$ORIGIN example.com.',
      '@ 3600 IN SOA ns1.hostplane.net. hostmaster.hostplane.net. 2024010100 7200 3600 1209600 300',
    ]);
  });

  it('ends with exactly one newline', () => {
    expect(renderZone({ name: 'example.com', soa: testSoa, rrsets: [] })).toMatch(/[^\n]\n$/);
  });

  it('rejects an owner outside the zone, naming the rrset', () => {
    const render = () => renderZone({ name: 'example.com', soa: testSoa, rrsets: [rrset('www.example.com'), rrset('www.example.org')] });
    expect(render).toThrow(ZoneValidationError);
    expect(render).toThrow('rrsets[1].name: name "www.example.org" is not inside zone "example.com"');
  });

  it('rejects two rrsets with the same name and type', () => {
    expect(() => renderZone({ name: 'example.com', soa: testSoa, rrsets: [rrset('a.example.com'), rrset('a.example.com', '192.0.2.2')] })).toThrow(
      'two rrsets for a.example.com A',
    );
  });
});

describe('renderRecordData', () => {
  it.each([
    ['A', '192.0.2.1', '192.0.2.1'],
    ['AAAA', '2001:db8::1', '2001:db8::1'],
    ['CNAME', 'target.example.net', 'target.example.net.'],
    ['NS', 'ns1.example.net', 'ns1.example.net.'],
    ['PTR', 'host.example.net', 'host.example.net.'],
    ['MX', '10 mail.example.net', '10 mail.example.net.'],
    ['MX', '0 .', '0 .'],
    ['SRV', '10 5 5060 sip.example.net', '10 5 5060 sip.example.net.'],
    ['SRV', '0 0 0 .', '0 0 0 .'],
    ['CAA', '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'],
    ['TXT', 'v=spf1 -all', '"v=spf1 -all"'],
    ['TXT', '', '""'],
  ] as const)('writes %s %j as %s', (type, content, rdata) => {
    expect(renderRecordData(type, content)).toBe(rdata);
  });
});
