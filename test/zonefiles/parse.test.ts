import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseZone, validateRRset, ZoneValidationError, type RRset } from '../../zonefiles';
import { loadFixture } from './fixtures';

describe('parseZone', () => {
  it('reads relative and absolute names, $TTL, comments, an omitted owner and an optional class', () => {
    const spec = parseZone(
      [
        '; hand-written',
        '$ORIGIN Example.COM.',
        '$TTL 900',
        '@ 3600 IN SOA ns1.hostplane.net. hostmaster 1 7200 3600 1209600 300 ; comment',
        'www 300 IN CNAME @',
        'mail A 192.0.2.25',
        '     AAAA 2001:db8::25',
        'api.example.com. IN 60 MX 10 mail',
        'txt 300 TXT "a;b" plain "\\"q\\"" \\065',
      ].join('\n'),
    );
    expect(spec).toEqual({
      name: 'example.com',
      soa: { mname: 'ns1.hostplane.net', rname: 'hostmaster.example.com', serial: 1, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300, ttl: 3600 },
      rrsets: [
        { name: 'www.example.com', type: 'CNAME', ttl: 300, records: [{ content: 'example.com' }] },
        { name: 'mail.example.com', type: 'A', ttl: 900, records: [{ content: '192.0.2.25' }] },
        { name: 'mail.example.com', type: 'AAAA', ttl: 900, records: [{ content: '2001:db8::25' }] },
        { name: 'api.example.com', type: 'MX', ttl: 60, records: [{ content: '10 mail.example.com' }] },
        { name: 'txt.example.com', type: 'TXT', ttl: 300, records: [{ content: 'a;bplain"q"A' }] },
      ],
    });
  });

  it('joins TXT strings as bytes, so a character split by \\DDD escapes comes back whole', () => {
    const spec = parseZone('$ORIGIN example.com.\n@ 1 IN SOA a. b. 1 1 1 1 1\n@ 300 IN TXT "caf\\195" "\\169 \\226\\130" "\\172"\n');
    expect(spec.rrsets[0]?.records).toEqual([{ content: 'café €' }]);
  });

  it('reads unescaped UTF-8 text and escaped delimiters as written', () => {
    const spec = parseZone('$ORIGIN example.com.\n@ 1 IN SOA a. b. 1 1 1 1 1\n@ 300 IN TXT "café 😀" bare\\ space\\;semi\n');
    expect(spec.rrsets[0]?.records).toEqual([{ content: 'café 😀bare space;semi' }]);
  });

  it('groups the records of one name and type into one rrset', () => {
    const spec = parseZone('$ORIGIN example.com.\n@ 1 IN SOA a. b. 1 1 1 1 1\n@ 300 IN A 192.0.2.1\nwww 300 IN A 192.0.2.9\n@ 300 IN A 192.0.2.2\n');
    expect(spec.rrsets).toEqual([
      { name: 'example.com', type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }, { content: '192.0.2.2' }] },
      { name: 'www.example.com', type: 'A', ttl: 300, records: [{ content: '192.0.2.9' }] },
    ]);
  });

  it('reports every bad line by number', () => {
    let error: unknown;
    try {
      parseZone(
        [
          '$ORIGIN example.com.',
          '@ 1 IN SOA a. b. 1 1 1 1 1',
          'a 300 IN TXT "open',
          'b 300 IN HINFO x y',
          'c 300 IN A 192.0.2.1',
          'c 600 IN A 192.0.2.2',
          'd 300 IN MX 10',
          '$INCLUDE other.zone',
          'e 300 IN TXT "\\999"',
        ].join('\n'),
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ZoneValidationError);
    expect((error as ZoneValidationError).issues).toEqual([
      { path: 'line 3', message: 'a quoted string is not closed' },
      { path: 'line 4', message: 'type HINFO is not supported' },
      { path: 'line 6', message: 'TTL 600 differs from 300 of the other c.example.com A records' },
      { path: 'line 7', message: 'MX needs 2 rdata fields, got 1' },
      { path: 'line 8', message: 'directive $INCLUDE is not supported' },
      { path: 'line 9', message: 'escape \\999 is not a byte' },
    ]);
  });

  it('requires $ORIGIN before records and exactly one SOA', () => {
    expect(() => parseZone('www 300 IN A 192.0.2.1\n')).toThrow('line 1: a record comes before $ORIGIN');
    expect(() => parseZone('$ORIGIN example.com.\nwww 300 IN A 192.0.2.1\n')).toThrow('the zone has no SOA record');
    expect(() => parseZone('$ORIGIN example.com.\n@ 1 IN SOA a. b. 1 1 1 1 1\n@ 1 IN SOA a. b. 2 1 1 1 1\n')).toThrow('line 3: a second SOA record');
  });
});

describe('parseZone with the record types beyond the spec', () => {
  it('reads them as BIND writes them (quoted SvcParam values, hex split by blanks) into the canonical rrsets', () => {
    const text = readFileSync(fileURLToPath(new URL('../fixtures/zones/foreign/modern-types.named-compilezone.zone', import.meta.url)), 'utf8');
    const parsed = parseZone(text);
    const key = (r: RRset) => `${r.name} ${r.type}`;
    const byKey = (rrsets: RRset[]) => [...rrsets].sort((a, b) => (key(a) < key(b) ? -1 : 1));
    expect(byKey(parsed.rrsets.map((r) => validateRRset(parsed.name, r)))).toEqual(byKey(loadFixture('modern-types').rrsets));
  });
});
