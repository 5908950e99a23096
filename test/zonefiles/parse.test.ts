import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_PROBLEM_CHARS, MAX_ZONE_FILE_BYTES, parseZone, parseZoneFile, RECORD_TYPES, validateRRset, ZoneValidationError, type RRset } from '../../zonefiles';
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
      { path: 'line 4', message: expect.stringMatching(/^type HINFO is not supported; the types are A, AAAA, /) },
      { path: 'line 7', message: 'd.example.com MX: MX record "10" must be "<preference> <exchange>"' },
      { path: 'line 8', message: '$INCLUDE is not supported: put the included records in the file itself' },
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

describe('parseZoneFile (a master file imported into a zone)', () => {
  const ZONE = 'example.com';
  const issuesOf = (file: string, zone: string | undefined = ZONE): { path: string; message: string }[] => {
    try {
      parseZoneFile(file, zone);
    } catch (e) {
      if (e instanceof ZoneValidationError) return e.issues;
      throw e;
    }
    return [];
  };

  it('starts at the zone as origin: no $ORIGIN needed, no SOA needed, relative names and @ under it', () => {
    const read = parseZoneFile('$TTL 300\n@ A 192.0.2.1\nwww CNAME @\n', ZONE);
    expect(read).toEqual({
      origin: ZONE,
      soa: undefined,
      rrsets: [
        { name: ZONE, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] },
        { name: `www.${ZONE}`, type: 'CNAME', ttl: 300, records: [{ content: ZONE }] },
      ],
      lines: [2, 3],
    });
  });

  it('reads parentheses across lines with comments inside, as BIND writes an SOA and long records', () => {
    const read = parseZoneFile([
      '$ORIGIN example.com.',
      '@ 3600 IN SOA ns1.example.net. hostmaster ( ; opened',
      '      2024010101 ; serial',
      '      7200 3600',
      '      1209600 300 )',
      'txt 300 IN TXT ( "first;" ; a comment with "quotes" and ( parens',
      '                 "second" )',
      'after 300 IN A 192.0.2.7',
    ].join('\n'), ZONE);
    expect(read.soa).toEqual({ mname: 'ns1.example.net', rname: 'hostmaster.example.com', serial: 2024010101, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300, ttl: 3600 });
    expect(read.rrsets).toEqual([
      { name: `txt.${ZONE}`, type: 'TXT', ttl: 300, records: [{ content: 'first;second' }] },
      { name: `after.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.7' }] },
    ]);
    expect(read.lines).toEqual([6, 8]);
  });

  it('takes an omitted owner as the previous one, also after a multi-line record', () => {
    const read = parseZoneFile('$TTL 300\nmail ( MX\n 10 mx1 )\n\tMX 20 mx2.example.net.\n A 192.0.2.25\n', ZONE);
    expect(read.rrsets).toEqual([
      { name: `mail.${ZONE}`, type: 'MX', ttl: 300, records: [{ content: `10 mx1.${ZONE}` }, { content: '20 mx2.example.net' }] },
      { name: `mail.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.25' }] },
    ]);
  });

  it('takes class IN or none, before or after the TTL, and TTLs with units', () => {
    const read = parseZoneFile('a 1h30m IN A 192.0.2.1\nb IN 2D A 192.0.2.2\nc 1w A 192.0.2.3\nd in 90S a 192.0.2.4\n', ZONE);
    expect(read.rrsets.map((r) => [r.name, r.ttl])).toEqual([[`a.${ZONE}`, 5400], [`b.${ZONE}`, 172_800], [`c.${ZONE}`, 604_800], [`d.${ZONE}`, 90]]);
    expect(issuesOf('e 300 CH A 192.0.2.1\n')).toEqual([{ path: 'line 1', message: 'class CH is not supported; the zone is of class IN' }]);
  });

  it('without $TTL a record takes the last TTL written (RFC 1035 5.1); $TTL takes over once given', () => {
    const read = parseZoneFile('a 600 A 192.0.2.1\nb A 192.0.2.2\n$TTL 120\nc A 192.0.2.3\n', ZONE);
    expect(read.rrsets.map((r) => r.ttl)).toEqual([600, 600, 120]);
    expect(issuesOf('a A 192.0.2.1\n')).toEqual([{ path: 'line 1', message: 'the record has no TTL and there is no $TTL before it' }]);
  });

  it('gives an rrset the TTL of its first record, as BIND does ("TTL set to prior TTL")', () => {
    const read = parseZoneFile('c 600 A 192.0.2.1\nc 300 A 192.0.2.2\nc 900 A 192.0.2.3\n', ZONE);
    expect(read.rrsets).toEqual([{ name: `c.${ZONE}`, type: 'A', ttl: 600, records: [{ content: '192.0.2.1' }, { content: '192.0.2.2' }, { content: '192.0.2.3' }] }]);
  });

  it('follows $ORIGIN changes for relative names in owners and targets', () => {
    const read = parseZoneFile('$TTL 300\n$ORIGIN sub.example.com.\nwww CNAME target\n@ MX 10 mail\n', ZONE);
    expect(read.rrsets).toEqual([
      { name: `www.sub.${ZONE}`, type: 'CNAME', ttl: 300, records: [{ content: `target.sub.${ZONE}` }] },
      { name: `sub.${ZONE}`, type: 'MX', ttl: 300, records: [{ content: `10 mail.sub.${ZONE}` }] },
    ]);
  });

  it('reads names under the root origin as absolute, as BIND writes `$ORIGIN .` before the apex', () => {
    const read = parseZoneFile('$ORIGIN .\n$TTL 300\nexample.com A 192.0.2.1\n\tMX 10 mail.example.com\n', ZONE);
    expect(read.rrsets).toEqual([
      { name: ZONE, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] },
      { name: ZONE, type: 'MX', ttl: 300, records: [{ content: '10 mail.example.com' }] },
    ]);
  });

  it('unescapes quoted strings: \\" and \\DDD, and a ; inside quotes is text', () => {
    const read = parseZoneFile('$TTL 300\nt TXT "say \\"hi\\"; \\065\\066" "caf\\195\\169"\n', ZONE);
    expect(read.rrsets[0]?.records).toEqual([{ content: 'say "hi"; ABcafé' }]);
  });

  it('gives each record the canonical content the API stores (validateRRset): case, IPv6 form, CAA quoting, duplicates', () => {
    const read = parseZoneFile([
      '$TTL 300',
      'v6 AAAA 2001:DB8:0:0:0:0:0:1',
      'v6 AAAA 2001:db8::1',
      'caa CAA 0 ISSUE letsencrypt.org',
      'mx MX 010 MAIL.Example.COM.',
      '_sip._tcp SRV 10 5 5060 Sip',
    ].join('\n'), ZONE);
    expect(read.rrsets.map((r) => r.records)).toEqual([
      [{ content: '2001:db8::1' }],
      [{ content: '0 issue "letsencrypt.org"' }],
      [{ content: '10 mail.example.com' }],
      [{ content: '10 5 5060 sip.example.com' }],
    ]);
  });

  it('refuses each bad line by number, with the validation\'s words for a bad record and its rrset', () => {
    expect(issuesOf([
      '$TTL 300',
      'ok A 192.0.2.1',
      'bad A 192.0.2.300',
      'mx MX 10',
      'low 30 A 192.0.2.1',
      'outside.example.org. A 192.0.2.1',
      '@ CNAME other.example.net.',
      '$GENERATE 1-10 host$ A 192.0.2.$',
      'x TYPE65534 \\# 0',
    ].join('\n'))).toEqual([
      { path: 'line 3', message: 'bad.example.com A: A record "192.0.2.300" must be an IPv4 address in dotted-quad form without leading zeros (e.g. 192.0.2.1)' },
      { path: 'line 4', message: 'mx.example.com MX: MX record "10" must be "<preference> <exchange>"' },
      { path: 'line 5', message: 'low.example.com A: ttl 30 must be an integer from 60 to 604800 seconds' },
      { path: 'line 6', message: 'outside.example.org A: name "outside.example.org" is not inside zone "example.com"' },
      { path: 'line 7', message: 'example.com CNAME: CNAME is not allowed at the zone apex "example.com"' },
      { path: 'line 8', message: '$GENERATE is not supported: write out the records it would make' },
      { path: 'line 9', message: expect.stringMatching(/^type TYPE65534 is not supported/) },
    ]);
  });

  it('names the line of the bad record inside a good rrset, and the opening line of a bad multi-line entry', () => {
    expect(issuesOf('$TTL 300\nw A 192.0.2.1\nw A 192.0.2.2\nw A nope\n')).toEqual([
      { path: 'line 4', message: expect.stringContaining('A record "nope"') },
    ]);
    expect(issuesOf('$TTL 300\nw ( A\n  192.0.2.1\n  extra )\n')).toEqual([{ path: 'line 2', message: expect.stringContaining('w.example.com A') }]);
    expect(issuesOf('$TTL 300\nw ( A\n  192.0.2.1\n')).toEqual([{ path: 'line 2', message: 'a "(" is never closed' }]);
    expect(issuesOf('$TTL 300\nw A 192.0.2.1 )\n')).toEqual([{ path: 'line 2', message: 'a ")" closes no "("' }]);
  });

  it('refuses $INCLUDE naming its line, and an escaped character in a name', () => {
    expect(issuesOf('$TTL 300\n\n$INCLUDE /etc/passwd\n')).toEqual([{ path: 'line 3', message: '$INCLUDE is not supported: put the included records in the file itself' }]);
    expect(issuesOf('$TTL 300\na\\.b A 192.0.2.1\n')).toEqual([{ path: 'line 2', message: expect.stringContaining('has an escaped character') }]);
  });

  it('refuses a TXT string that is not UTF-8 rather than changing it', () => {
    expect(issuesOf('$TTL 300\nt TXT "\\255"\n')).toEqual([{ path: 'line 2', message: 'the text "\\255" is not valid UTF-8' }]);
  });

  it('cuts a problem that quotes its field to MAX_PROBLEM_CHARS: a line of a megabyte is not answered whole', () => {
    const [issue, ...rest] = issuesOf(`$TTL 300\nt TXT "${'\\255'.repeat(200_000)}"\n`);
    expect(rest).toEqual([]);
    expect(issue!.message).toHaveLength(MAX_PROBLEM_CHARS);
    expect(issue!.message).toMatch(/^the text "(\\255)+.*…$/);
  });

  it('refuses a file over 1 MiB, and lists at most 100 problems, checking no further than the 100th', () => {
    const big = `$TTL 300\n${'x'.repeat(MAX_ZONE_FILE_BYTES)}\n`;
    expect(issuesOf(big)).toEqual([{ path: '', message: `the zone file is ${MAX_ZONE_FILE_BYTES + 10} bytes; at most ${MAX_ZONE_FILE_BYTES} are read` }]);
    const issues = issuesOf('bad A 192.0.2.300\n'.repeat(150));
    expect(issues).toHaveLength(101);
    expect(issues[0]?.path).toBe('line 1');
    expect(issues[99]?.path).toBe('line 100');
    expect(issues[100]).toEqual({ path: '', message: 'checking stopped at 100 problems: the file from line 101 on was not checked' });
  });

  it('names the first 100 problems by line, whether found reading the lines or validating their rrsets, and where checking stopped', () => {
    // Even lines are rrsets validation refuses, odd ones lines the reader refuses: reading stops at the 100th of
    // those (line 201), and the first 100 by line are lines 2 to 101.
    const file = `$TTL 300\n${Array.from({ length: 150 }, (_, i) => `a${i} A x\nb${i} FOO 1\n`).join('')}`;
    const issues = issuesOf(file);
    expect(issues.slice(0, 100).map((i) => i.path)).toEqual(Array.from({ length: 100 }, (_, i) => `line ${i + 2}`));
    expect(issues[0]?.message).toMatch(/^a0\.example\.com A: A record "x" must be an IPv4 address/);
    expect(issues[1]?.message).toMatch(/^type FOO is not supported/);
    expect(issues.slice(100)).toEqual([{ path: '', message: 'checking stopped at 100 problems: the file from line 102 on was not checked' }]);
    // A single rrset of more refused records than that: its problems are known at once, and the rest not read.
    const oneSet = `$TTL 300\n${'h A x\n'.repeat(150)}g A y\n`;
    const many = issuesOf(oneSet);
    expect(many.slice(100)).toEqual([
      { path: '', message: '50 more problems not listed' },
      { path: '', message: 'checking stopped at 100 problems: the file from line 152 on was not checked' },
    ]);
  });

  it('skips a byte order mark at the start of the file', () => {
    const read = parseZoneFile('\ufeff$TTL 300\nwww A 192.0.2.1\n', ZONE);
    expect(read.rrsets).toEqual([{ name: `www.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] }]);
    expect(read.lines).toEqual([2]);
  });

  it('reads every type record validation knows, from its table', () => {
    const known = ['A', 'AAAA', 'CAA', 'CNAME', 'MX', 'NS', 'PTR', 'SRV', 'TXT'];
    expect([...RECORD_TYPES].sort()).toEqual(expect.arrayContaining(known));
    for (const type of RECORD_TYPES) {
      expect(issuesOf(`$TTL 300\nx ${type}\n`).map((i) => i.message).join()).not.toMatch(/is not supported/);
    }
  });

  it('reads CRLF line ends, a last line without a newline, and delimiters right against a field', () => {
    const read = parseZoneFile('$TTL 300\r\na A 192.0.2.1;comment\r\nm (MX\r\n 10 mx1)\r\nt TXT ("x";c\r\n"y")\nz A 192.0.2.9', ZONE);
    expect(read.rrsets).toEqual([
      { name: `a.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] },
      { name: `m.${ZONE}`, type: 'MX', ttl: 300, records: [{ content: `10 mx1.${ZONE}` }] },
      { name: `t.${ZONE}`, type: 'TXT', ttl: 300, records: [{ content: 'xy' }] },
      { name: `z.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.9' }] },
    ]);
    expect(read.lines).toEqual([2, 3, 5, 7]);
  });

  it('reads unquoted non-ASCII fields: an internationalized owner in punycode, text as its UTF-8', () => {
    const read = parseZoneFile('$TTL 300\nCafé TXT naïve\nxn--caf-dma A 192.0.2.1\n', ZONE);
    expect(read.rrsets).toEqual([
      { name: `xn--caf-dma.${ZONE}`, type: 'TXT', ttl: 300, records: [{ content: 'naïve' }] },
      { name: `xn--caf-dma.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] },
    ]);
  });

  it('gathers an rrset across spellings of its owner and other types between its records, in the order first seen', () => {
    const read = parseZoneFile([
      '$ttl 300',
      'www A 192.0.2.1',
      'WWW.example.com. AAAA 2001:db8::1',
      'other A 192.0.2.3',
      'Www.Example.Com. a 192.0.2.2',
      '$origin example.com.',
      'www TXT x',
      '@ A 192.0.2.4',
    ].join('\n'), ZONE);
    expect(read.rrsets.map((r) => [r.name, r.type, r.records.map((c) => c.content)])).toEqual([
      [`www.${ZONE}`, 'A', ['192.0.2.1', '192.0.2.2']],
      [`www.${ZONE}`, 'AAAA', ['2001:db8::1']],
      [`other.${ZONE}`, 'A', ['192.0.2.3']],
      [`www.${ZONE}`, 'TXT', ['x']],
      [ZONE, 'A', ['192.0.2.4']],
    ]);
    expect(read.lines).toEqual([2, 3, 4, 7, 8]);
  });

  it('refuses a backslash that ends a line or the file', () => {
    expect(issuesOf('$TTL 300\nt TXT a\\\nu TXT b\\')).toEqual([
      { path: 'line 2', message: 'the line ends with a lone backslash' },
      { path: 'line 3', message: 'the line ends with a lone backslash' },
    ]);
  });

  it('reads knotc zone-read\'s "[zone.]" line prefix of the zone imported, and refuses another zone\'s at its line', () => {
    const read = parseZoneFile('[example.com.] www.example.com. 300 A 192.0.2.1\n[Example.COM.] example.com. 300 MX 10 mail.example.com.\n', ZONE);
    expect(read.rrsets).toEqual([
      { name: `www.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] },
      { name: ZONE, type: 'MX', ttl: 300, records: [{ content: `10 mail.${ZONE}` }] },
    ]);
    expect(issuesOf('[example.com.] a.example.com. 300 A 192.0.2.1\n[example.org.] b.example.org. 300 A 192.0.2.2\n[sub.example.com.] c.sub.example.com. 300 A 192.0.2.3\n[example.com. x 300 A 192.0.2.4\n')).toEqual([
      { path: 'line 2', message: 'the line is of zone example.org (its "[example.org.]" prefix), not of example.com' },
      { path: 'line 3', message: 'the line is of zone sub.example.com (its "[sub.example.com.]" prefix), not of example.com' },
      { path: 'line 4', message: '"[example.com." is neither a name nor knotc\'s "[zone.]" prefix' },
    ]);
  });

  it('ignores the DNSSEC records of a signed zone\'s file, as it does its SOA; a DS at a delegation is read', () => {
    const read = parseZoneFile([
      '$TTL 300',
      '@ DNSKEY 257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==',
      '@ RRSIG DNSKEY 13 2 300 20261230000000 20261129000000 12345 example.com. AAAA',
      '@ NSEC3PARAM 1 0 0 -',
      '@ CDS 0 0 0 00',
      '@ CDNSKEY 0 3 0 AA==',
      'www NSEC example.com. A RRSIG NSEC',
      '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom NSEC3 1 0 0 - 2T7B4G4VSA5SMI47K61MV5BV1A22BOJR A RRSIG',
      'www A 192.0.2.1',
      'child NS ns1.elsewhere.example.',
      'child DS 12345 13 2 0000000000000000000000000000000000000000000000000000000000000000',
    ].join('\n'), ZONE);
    expect(read.rrsets.map((r) => `${r.name} ${r.type}`)).toEqual([`www.${ZONE} A`, `child.${ZONE} NS`, `child.${ZONE} DS`]);
    expect(read.lines).toEqual([9, 10, 11]);
    expect(issuesOf('$TTL 300\nexample.org. RRSIG A 13 2 300 20261230000000 20261129000000 1 example.org. AAAA\n')).toEqual([
      { path: 'line 2', message: 'example.org RRSIG: name "example.org" is not inside zone "example.com"' },
    ]);
  });

  it('refuses an SOA at a name other than the apex, at its line: only the apex SOA is the service\'s to ignore', () => {
    expect(parseZoneFile('@ 3600 SOA ns.example.net. admin 1 1 1 1 1\n', ZONE).soa?.serial).toBe(1);
    expect(issuesOf('$TTL 300\nsub SOA ns.example.net. admin 1 1 1 1 1\nsub.example.com. SOA ns.example.net. admin 2 1 1 1 1\n')).toEqual([
      { path: 'line 2', message: 'an SOA is at the zone\'s apex (example.com) only; this one is at sub.example.com' },
      { path: 'line 3', message: 'an SOA is at the zone\'s apex (example.com) only; this one is at sub.example.com' },
    ]);
  });

  it('keeps a value SVCB/HTTPS writes as key="value" in one field', () => {
    // The tokenizer's part: a quoted part inside a field stays in it, as written.
    const issues = issuesOf('$TTL 300\nt TXT a"b c"d\n');
    expect(issues).toEqual([]);
    expect(parseZoneFile('$TTL 300\nt TXT a"b c"d\n', ZONE).rrsets[0]?.records).toEqual([{ content: 'ab cd' }]);
  });
});
