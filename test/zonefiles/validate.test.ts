import { describe, expect, it } from 'vitest';
import {
  answerReserveBytes, checkCnameConflict, MAX_MESSAGE_BYTES, MAX_RECORDS, MAX_TXT_BYTES, maxTxtValueBytes, validateRRset, ZoneValidationError,
  type RecordType, type RRset,
} from '../../zonefiles';

const ZONE = 'example.com';
const rrset = (type: string, contents: string[], name = `host.${ZONE}`, ttl = 300): RRset =>
  ({ name, type, ttl, records: contents.map((content) => ({ content })) }) as RRset;

function issuesOf(r: RRset): ZoneValidationError['issues'] {
  try {
    validateRRset(ZONE, r);
  } catch (e) {
    expect(e).toBeInstanceOf(ZoneValidationError);
    return (e as ZoneValidationError).issues;
  }
  throw new Error('expected a ZoneValidationError');
}

describe('validateRRset rejects', () => {
  const record = (type: string, content: string, message: string, name?: string) =>
    [`${type} ${JSON.stringify(content)}`, rrset(type, [content], name), 'records[0].content', message] as const;

  it.each([
    record('A', '192.0.2', 'A record "192.0.2" must be an IPv4 address in dotted-quad form without leading zeros (e.g. 192.0.2.1)'),
    record('A', '192.0.2.256', 'A record "192.0.2.256" must be an IPv4 address'),
    record('A', '192.0.02.1', 'A record "192.0.02.1" must be an IPv4 address'),
    record('A', '192.0.2.1.5', 'A record "192.0.2.1.5" must be an IPv4 address'),
    record('A', '2001:db8::1', 'A record "2001:db8::1" must be an IPv4 address'),
    record('A', '', 'A record "" must be an IPv4 address'),
    record('AAAA', '192.0.2.1', 'AAAA record "192.0.2.1" must be an IPv6 address (e.g. 2001:db8::1)'),
    record('AAAA', '2001:db8:::1', 'AAAA record "2001:db8:::1" must be an IPv6 address'),
    record('AAAA', '2001:db8::g', 'AAAA record "2001:db8::g" must be an IPv6 address'),
    record('AAAA', '1:2:3:4:5:6:7:8:9', 'AAAA record "1:2:3:4:5:6:7:8:9" must be an IPv6 address'),
    record('AAAA', 'fe80::1%eth0', 'AAAA record "fe80::1%eth0" must be an IPv6 address'),
    record('MX', 'x 10', 'MX record "x 10": preference "x" must be an integer 0-65535'),
    record('MX', 'mail.example.com', 'MX record "mail.example.com" must be "<preference> <exchange>"'),
    record('MX', '10 mail.example.com extra', 'MX record "10 mail.example.com extra" must be "<preference> <exchange>"'),
    record('MX', '65536 mail.example.com', 'MX record "65536 mail.example.com": preference "65536" must be an integer 0-65535'),
    record('MX', '-1 mail.example.com', 'MX record "-1 mail.example.com": preference "-1" must be an integer 0-65535'),
    record('MX', '10 mail..example.com', 'MX record "10 mail..example.com": exchange "mail..example.com" has an empty label'),
    record('MX', '10 .', 'MX record "10 .": a null MX (exchange ".") must have preference 0'),
    record('SRV', '10 5 sip.example.com', 'SRV record "10 5 sip.example.com" must be "<priority> <weight> <port> <target>"', `_sip._tcp.${ZONE}`),
    record('SRV', '10 5 70000 sip.example.com', 'SRV record "10 5 70000 sip.example.com": port "70000" must be an integer 0-65535', `_sip._tcp.${ZONE}`),
    record('SRV', '1.5 5 5060 sip.example.com', 'SRV record "1.5 5 5060 sip.example.com": priority "1.5" must be an integer 0-65535', `_sip._tcp.${ZONE}`),
    record('SRV', '10 x 5060 sip.example.com', 'SRV record "10 x 5060 sip.example.com": weight "x" must be an integer 0-65535', `_sip._tcp.${ZONE}`),
    record('SRV', '10 5 5060 sip_@.example.com', 'SRV record "10 5 5060 sip_@.example.com": target "sip_@.example.com" contains "@"', `_sip._tcp.${ZONE}`),
    record('CAA', '0 issue', 'CAA record "0 issue" must be "<flags> <tag> <value>"'),
    record('CAA', '256 issue "letsencrypt.org"', 'CAA record "256 issue \\"letsencrypt.org\\"": flags "256" must be an integer 0-255'),
    record('CAA', '0 is-sue "letsencrypt.org"', 'CAA record "0 is-sue \\"letsencrypt.org\\"": tag "is-sue" must be 1-15 letters or digits'),
    record('CAA', '0 abcdefghijklmnop "x"', 'tag "abcdefghijklmnop" must be 1-15 letters or digits'),
    record('CAA', '0 issue "letsencrypt.org', 'CAA record "0 issue \\"letsencrypt.org": value has an opening quote but no closing one'),
    record('CAA', '0 issue "lets"encrypt.org"', 'value must be printable ASCII without " or \\'),
    record('CAA', '0 issue "lets_encrypt.org"', 'CAA record "0 issue \\"lets_encrypt.org\\"": issuer "lets_encrypt.org" is not a domain name'),
    record('CAA', '0 issue "ca.example; account"', 'CAA record "0 issue \\"ca.example; account\\"": parameter "account" must be "<key>=<value>"'),
    record('CAA', '0 issuewild "-ca.example"', 'issuer "-ca.example" is not a domain name'),
    record('CAA', '0 iodef "http://example.com/report"', 'CAA record "0 iodef \\"http://example.com/report\\"": iodef value "http://example.com/report" must be a mailto: or https: URL'),
    record('CAA', '0 iodef "security@example.com"', 'iodef value "security@example.com" must be a mailto: or https: URL'),
    record('CNAME', 'target..example.net', 'CNAME record "target..example.net" has an empty label'),
    record('CNAME', '*.example.net', 'CNAME record "*.example.net" is a host name and must not contain the wildcard "*"'),
    record('CNAME', 'exa mple.net', 'CNAME record "exa mple.net" contains " "; only letters, digits, "-" and "_" are allowed'),
    record('NS', 'ns1.example.net..', 'NS record "ns1.example.net.." has an empty label'),
    record('NS', `${'a'.repeat(64)}.example.net`, `has the label "${'a'.repeat(64)}" of 64 bytes; at most 63 are allowed`),
    record('PTR', '', 'PTR record "" is empty'),
    record('TXT', '\ud800', 'TXT record "\\ud800" is not valid Unicode (it has an unpaired surrogate)'),
    record('TXT', 'x'.repeat(MAX_TXT_BYTES + 1), `is ${MAX_TXT_BYTES + 1} bytes long; a TXT record holds at most ${MAX_TXT_BYTES}`),
    record('TXT', '€'.repeat(Math.ceil((MAX_TXT_BYTES + 1) / 3)), `bytes long; a TXT record holds at most ${MAX_TXT_BYTES}`),
    ['content that is not a string', { name: `host.${ZONE}`, type: 'A', ttl: 300, records: [{ content: 7 }] } as unknown as RRset, 'records[0].content', 'A record content must be a string'],
    ['an owner outside the zone', rrset('A', ['192.0.2.1'], 'www.example.org'), 'name', 'name "www.example.org" is not inside zone "example.com"'],
    ['an owner that only ends like the zone', rrset('A', ['192.0.2.1'], 'notexample.com'), 'name', 'name "notexample.com" is not inside zone "example.com"'],
    ['an owner with an empty label', rrset('A', ['192.0.2.1'], `a..${ZONE}`), 'name', 'name "a..example.com" has an empty label'],
    ['an owner with a wildcard below the leftmost label', rrset('A', ['192.0.2.1'], `a.*.${ZONE}`), 'name', 'name "a.*.example.com" has "*" as a label other than the leftmost one'],
    ['an owner with a forbidden character', rrset('A', ['192.0.2.1'], `a+b.${ZONE}`), 'name', 'contains "+"'],
    ['an owner longer than 253 characters', rrset('A', ['192.0.2.1'], `${'a.'.repeat(125)}${ZONE}`), 'name', 'is 261 characters long; at most 253 are allowed'],
    ['a CNAME at the apex', rrset('CNAME', ['target.example.net'], ZONE), 'type', 'CNAME is not allowed at the zone apex "example.com"'],
    ['a CNAME given as "@"', rrset('CNAME', ['target.example.net'], '@'), 'type', 'CNAME is not allowed at the zone apex'],
    ['a CNAME rrset with two records', rrset('CNAME', ['a.example.net', 'b.example.net']), 'records', 'a CNAME rrset must have exactly one record, got 2'],
    ['an SRV owner without _service._proto', rrset('SRV', ['10 5 5060 sip.example.com'], `sip.${ZONE}`), 'name', 'SRV name "sip.example.com" must begin with "_service._proto" labels'],
    ['an SRV owner with only _service', rrset('SRV', ['10 5 5060 sip.example.com'], `_sip.${ZONE}`), 'name', 'must begin with "_service._proto"'],
    ['a null MX next to another MX', rrset('MX', ['0 .', '10 mail.example.com']), 'records[0].content', 'MX record "0 ." is a null MX (RFC 7505) and must be the only MX record'],
    ['an unsupported type', rrset('SPF', ['v=spf1 -all']), 'type', 'type "SPF" is not supported; use one of A, AAAA, ALIAS, CAA, CNAME, DS, HTTPS, MX, NAPTR, NS, PTR, SRV, SSHFP, SVCB, TLSA, TXT'],
    ['a ttl below 60', rrset('A', ['192.0.2.1'], undefined, 59), 'ttl', 'ttl 59 must be an integer from 60 to 604800 seconds'],
    ['a ttl above one week', rrset('A', ['192.0.2.1'], undefined, 604801), 'ttl', 'ttl 604801 must be an integer from 60 to 604800 seconds'],
    ['a fractional ttl', rrset('A', ['192.0.2.1'], undefined, 300.5), 'ttl', 'ttl 300.5 must be an integer'],
    ['no records', rrset('A', []), 'records', 'records must not be empty'],
    ['too many records', rrset('TXT', Array.from({ length: MAX_RECORDS + 1 }, (_, i) => `r${i}`)), 'records', `records has ${MAX_RECORDS + 1} entries; at most ${MAX_RECORDS} are allowed`],
  ] as const)('%s', (_, input, path, message) => {
    expect(issuesOf(input)).toContainEqual({ path, message: expect.stringContaining(message) });
  });

  it('names the offending record by index', () => {
    const issues = issuesOf(rrset('A', ['192.0.2.1', '192.0.2.2', '192.0.2.x']));
    expect(issues).toEqual([{ path: 'records[2].content', message: expect.stringContaining('A record "192.0.2.x"') }]);
  });

  it('collects every problem before throwing', () => {
    const issues = issuesOf(rrset('MX', ['x 10', '10 mail.example.com', '10 a..b'], 'www.example.org', 1));
    expect(issues.map((i) => i.path)).toEqual(['name', 'ttl', 'records[0].content', 'records[2].content']);
  });

  it('puts every issue into the error message', () => {
    expect(() => validateRRset(ZONE, rrset('A', ['x'], undefined, 1))).toThrow(
      'ttl: ttl 1 must be an integer from 60 to 604800 seconds; records[0].content: A record "x" must be an IPv4 address',
    );
  });

  it('shortens a long record in the message', () => {
    const [issue] = issuesOf(rrset('TXT', ['y'.repeat(MAX_TXT_BYTES + 1)]));
    expect(issue?.message).toBe(`TXT record "${'y'.repeat(60)}…" is ${MAX_TXT_BYTES + 1} bytes long; a TXT record holds at most ${MAX_TXT_BYTES}`);
  });
});

describe('validateRRset canonicalizes', () => {
  it.each([
    ['A', ' 192.0.2.1 ', '192.0.2.1'],
    ['AAAA', '2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['AAAA', '2001:0db8:0000:0001:0000:0000:0000:0001', '2001:db8:0:1::1'],
    ['AAAA', '2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['AAAA', '::ffff:192.0.2.1', '::ffff:c000:201'],
    ['CNAME', 'Target.Example.NET.', 'target.example.net'],
    ['CNAME', 'bücher.example', 'xn--bcher-kva.example'],
    ['NS', 'NS1.example.net.', 'ns1.example.net'],
    ['PTR', 'host.example.net.', 'host.example.net'],
    ['MX', '010   Mail.Example.com.', '10 mail.example.com'],
    ['MX', '0 .', '0 .'],
    ['SRV', '10 5 5060 SIP.example.com.', '10 5 5060 sip.example.com'],
    ['SRV', '0 0 0 .', '0 0 0 .'],
    ['CAA', '0 ISSUE letsencrypt.org', '0 issue "letsencrypt.org"'],
    ['CAA', '128 issue "letsencrypt.org; validationmethods=dns-01"', '128 issue "letsencrypt.org; validationmethods=dns-01"'],
    ['CAA', '0 issue ";"', '0 issue ";"'],
    ['CAA', '0 issue ""', '0 issue ""'],
    ['CAA', '0 iodef mailto:security@example.com', '0 iodef "mailto:security@example.com"'],
    ['CAA', '0 iodef "https://example.com/caa"', '0 iodef "https://example.com/caa"'],
    ['CAA', '0 contactemail "x@example.com"', '0 contactemail "x@example.com"'],
    ['TXT', '  spaces kept  ', '  spaces kept  '],
    ['TXT', '', ''],
  ] as const)('%s %j to %j', (type, content, canonical) => {
    const name = type === 'SRV' ? `_sip._tcp.${ZONE}` : `host.${ZONE}`;
    expect(validateRRset(ZONE, rrset(type, [content], name)).records).toEqual([{ content: canonical }]);
  });

  it('resolves "@" and normalizes the owner to lower-case punycode', () => {
    expect(validateRRset(ZONE, rrset('A', ['192.0.2.1'], '@')).name).toBe(ZONE);
    expect(validateRRset(ZONE, rrset('A', ['192.0.2.1'], 'Café.Example.COM.')).name).toBe('xn--caf-dma.example.com');
  });

  it('accepts wildcard and underscore owners', () => {
    expect(validateRRset(ZONE, rrset('TXT', ['x'], `*.${ZONE}`)).name).toBe(`*.${ZONE}`);
    expect(validateRRset(ZONE, rrset('TXT', ['x'], `_acme-challenge.www.${ZONE}`)).name).toBe(`_acme-challenge.www.${ZONE}`);
  });

  it('drops duplicate records, also those equal only after canonicalization', () => {
    expect(validateRRset(ZONE, rrset('CNAME', ['a.example.net', 'A.example.net.'])).records).toEqual([{ content: 'a.example.net' }]);
    expect(validateRRset(ZONE, rrset('AAAA', ['2001:db8::1', '2001:DB8:0::1'])).records).toEqual([{ content: '2001:db8::1' }]);
  });

  it('finds repeats among many records as among a few: a CNAME, an ALIAS and a null MX repeated are one record', () => {
    const many = (content: string[]) => [...content, ...Array.from({ length: 11 }, () => content[0] as string)];
    for (const repeat of [(c: string[]) => [...c, c[0] as string], many]) {
      expect(validateRRset(ZONE, rrset('CNAME', repeat(['a.example.net', 'A.example.net.']))).records).toEqual([{ content: 'a.example.net' }]);
      expect(validateRRset(ZONE, rrset('ALIAS', repeat(['a.example.net']))).records).toEqual([{ content: 'a.example.net' }]);
      expect(validateRRset(ZONE, rrset('MX', repeat(['0 .']))).records).toEqual([{ content: '0 .' }]);
      expect(() => validateRRset(ZONE, rrset('CNAME', repeat(['a.example.net', 'b.example.net'])))).toThrow('a CNAME rrset must have exactly one record, got 2');
    }
    const addresses = Array.from({ length: 12 }, (_, i) => `2001:db8::${i % 5}`);
    expect(validateRRset(ZONE, rrset('AAAA', [...addresses, '2001:DB8:0::3'])).records.map((r) => r.content)).toEqual(['2001:db8::', '2001:db8::1', '2001:db8::2', '2001:db8::3', '2001:db8::4']);
  });

  it('sorts records numerically where the content is numeric', () => {
    expect(validateRRset(ZONE, rrset('A', ['192.0.2.10', '192.0.2.9', '10.1.1.1'])).records.map((r) => r.content)).toEqual([
      '10.1.1.1',
      '192.0.2.9',
      '192.0.2.10',
    ]);
    expect(validateRRset(ZONE, rrset('MX', ['20 b.example.net', '5 c.example.net', '10 a.example.net'])).records.map((r) => r.content)).toEqual([
      '5 c.example.net',
      '10 a.example.net',
      '20 b.example.net',
    ]);
  });

  it('returns only name, type, ttl and records', () => {
    const input = { ...rrset('A', ['192.0.2.1']), managedBy: 'system' } as RRset;
    expect(Object.keys(validateRRset(ZONE, input))).toEqual(['name', 'type', 'ttl', 'records']);
  });
});

describe('checkCnameConflict', () => {
  it.each([
    [[], 'CNAME', false],
    [[], 'A', false],
    [['CNAME'], 'CNAME', false],
    [['A'], 'A', false],
    [['A', 'TXT'], 'MX', false],
    [['CNAME'], 'A', true],
    [['CNAME'], 'TXT', true],
    [['A'], 'CNAME', true],
    [['TXT', 'MX'], 'CNAME', true],
  ] as [RecordType[], RecordType, boolean][])('existing %j, putting %s: %s', (existing, type, conflict) => {
    expect(checkCnameConflict(existing, type)).toBe(conflict);
  });
});

describe('validateRRset refuses what one DNS message cannot carry with its signatures', () => {
  const maxTxt = maxTxtValueBytes(ZONE);
  // RR fixed part (12), flags and tag length (2), tag "tbs" (3).
  const maxCaa = MAX_MESSAGE_BYTES - answerReserveBytes(ZONE) - 12 - 2 - 3;
  const accepts = (r: RRset) => expect(() => validateRRset(ZONE, r)).not.toThrow();

  it('takes a TXT value of the longest length, in any script, and refuses one byte more, naming the record', () => {
    expect(maxTxt).toBe(60_307);
    accepts(rrset('TXT', ['x'.repeat(maxTxt)]));
    accepts(rrset('TXT', [`${'x'.repeat(maxTxt % 3)}${'€'.repeat(Math.floor(maxTxt / 3))}`]));
    const issues = issuesOf(rrset('TXT', ['a', 'x'.repeat(maxTxt + 1)]));
    expect(issues).toEqual([{
      path: 'records[1].content',
      message: `TXT record "${'x'.repeat(60)}…" needs 65536 octets in an answer with room for DNSSEC signatures; one DNS message holds 65535 (a TXT value in this zone has at most ${maxTxt} bytes)`,
    }]);
  });

  it('takes a CAA value of the longest length and refuses one byte more; a value past 65531 bytes cannot even be a record', () => {
    accepts(rrset('CAA', [`0 tbs "${'v'.repeat(maxCaa)}"`]));
    expect(issuesOf(rrset('CAA', [`0 tbs "${'v'.repeat(maxCaa + 1)}"`]))).toEqual([
      { path: 'records[0].content', message: expect.stringContaining('needs 65536 octets in an answer with room for DNSSEC signatures; one DNS message holds 65535') },
    ]);
    expect(issuesOf(rrset('CAA', [`0 issue "${'a'.repeat(65_527)}.com"`]))).toEqual([
      { path: 'records[0].content', message: expect.stringContaining('is 65538 octets of record data; a record holds at most 65535') },
    ]);
  });

  it('refuses records that fit one by one but not together, naming the rrset', () => {
    const contents = (n: number) => Array.from({ length: n }, (_, i) => `${String(i).padStart(4, '0')}${'t'.repeat(196)}`);
    // Each record: 12 octets of RR, 201 of RDATA.
    const fit = Math.floor((MAX_MESSAGE_BYTES - answerReserveBytes(ZONE)) / 213);
    accepts(rrset('TXT', contents(fit)));
    expect(issuesOf(rrset('TXT', contents(fit + 1)))).toEqual([{
      path: 'records',
      message: `the ${fit + 1} records need ${answerReserveBytes(ZONE) + (fit + 1) * 213} octets in an answer with room for DNSSEC signatures; one DNS message holds 65535`,
    }]);
    const longHosts = Array.from({ length: MAX_RECORDS }, (_, i) => `ns${String(i).padStart(4, '0')}.${'n'.repeat(63)}.${'n'.repeat(63)}.${'n'.repeat(63)}.example.net`);
    expect(issuesOf(rrset('NS', longHosts))).toEqual([{ path: 'records', message: expect.stringContaining(`the ${MAX_RECORDS} records need`) }]);
  });

  it('refuses more records at a long name than a signer can hash, naming the rrset', () => {
    // 253 characters: 255 octets, which each record repeats in the form DNSSEC signs (with 10 + 4 more).
    const owner = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(49)}.${ZONE}`;
    const a = (n: number) => Array.from({ length: n }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    expect(owner).toHaveLength(253);
    accepts(rrset('A', a(243), owner));
    expect(issuesOf(rrset('A', a(244), owner))).toEqual([{
      path: 'records',
      message: `the 244 records, each with the name "${owner}", take ${244 * 269} octets in the form DNSSEC signs; a signer takes at most 65535`,
    }]);
    accepts(rrset('A', a(MAX_RECORDS), `host.${ZONE}`));
  });

  it('counts duplicate records once, as they are stored', () => {
    accepts(rrset('TXT', ['x'.repeat(maxTxt), 'x'.repeat(maxTxt)]));
  });

  it('leaves less room in a zone with a longer name, whose name every signature carries', () => {
    const zone = `${'z'.repeat(63)}.${'z'.repeat(63)}.example.com`;
    expect(maxTxtValueBytes(zone)).toBeLessThan(maxTxt);
    expect(() => validateRRset(zone, rrset('TXT', ['x'.repeat(maxTxt)], `host.${zone}`))).toThrow(ZoneValidationError);
  });
});

describe('record types beyond the spec: DS, HTTPS, NAPTR, SSHFP, SVCB, TLSA', () => {
  const H32 = 'ab'.repeat(32);
  const H20 = 'cd'.repeat(20);
  const nameFor = (type: string) => (type === 'TLSA' ? `_443._tcp.${ZONE}` : type === 'DS' ? `child.${ZONE}` : `host.${ZONE}`);
  const canonical = (type: string, content: string) => validateRRset(ZONE, rrset(type, [content], nameFor(type))).records[0]?.content;

  it.each([
    ['DS', `60485 13 2 ${H32}`, `60485 13 2 ${H32.toUpperCase()}`],
    ['DS', `00007 8 1 ${H20.slice(0, 20)} ${H20.slice(20)}`, `7 8 1 ${H20.toUpperCase()}`],
    ['DS', `1 14 4 ${'ef'.repeat(48)}`, `1 14 4 ${'EF'.repeat(48)}`],
    ['TLSA', `3 1 1 ${H32}`, `3 1 1 ${H32.toUpperCase()}`],
    ['TLSA', `2 0 2 ${'01'.repeat(64)}`, `2 0 2 ${'01'.repeat(64)}`],
    ['TLSA', '0 0 0 3082', '0 0 0 3082'],
    ['SSHFP', `4 2 ${H32}`, `4 2 ${H32.toUpperCase()}`],
    ['SSHFP', `1 1 ${H20}`, `1 1 ${H20.toUpperCase()}`],
    ['SSHFP', `6 2 ${H32}`, `6 2 ${H32.toUpperCase()}`],
    ['NAPTR', '100 10 "s" "SIP+D2U" "" _sip._udp.Example.com.', '100 10 "S" "SIP+D2U" "" _sip._udp.example.com'],
    ['NAPTR', '100 10 U E2U+sip "!^\\\\+1(.*)$!sip:\\\\1@example.com!" .', '100 10 "U" "E2U+sip" "!^\\\\+1(.*)$!sip:\\\\1@example.com!" .'],
    ['NAPTR', '0 0 "" "" "a\\"b" .', '0 0 "" "" "a\\"b" .'],
    ['HTTPS', '1 . alpn=h3,h2', '1 . alpn=h3,h2'],
    // RFC 9460 appendix A.1: the list is split once the field's escapes are gone, so `\,` separates two ids, as Knot and
    // BIND read it (knotd serves this one as the ids h2 and x).
    ['HTTPS', '1 . alpn=h2\\,x', '1 . alpn=h2,x'],
    ['HTTPS', '0 CDN.Example.net.', '0 cdn.example.net'],
    ['HTTPS', '1 . port=0443 alpn="h2" ipv4hint=192.0.2.1,192.0.2.2', '1 . alpn=h2 port=443 ipv4hint=192.0.2.1,192.0.2.2'],
    ['HTTPS', '2 svc.example.net ipv6hint=2001:DB8::0:1 ech=AEX+/w== no-default-alpn alpn=h2 mandatory=port,alpn port=8443',
      '2 svc.example.net mandatory=alpn,port alpn=h2 no-default-alpn port=8443 ech=AEX+/w== ipv6hint=2001:db8::1'],
    ['SVCB', '1 dns.example.net alpn=dot port=853', '1 dns.example.net alpn=dot port=853'],
    ['SVCB', '0 .', '0 .'],
  ] as const)('%s %j to %j', (type, content, expected) => {
    expect(canonical(type, content)).toBe(expected);
  });

  const refused = (type: string, content: string, message: string, name = nameFor(type)) =>
    [`${type} ${JSON.stringify(content)}`, rrset(type, [content], name), 'records[0].content', message] as const;
  it.each([
    refused('DS', '60485 13 2', 'DS record "60485 13 2" must be "<key tag> <algorithm> <digest type> <digest>"'),
    refused('DS', `65536 13 2 ${H32}`, 'key tag "65536" must be an integer 0-65535'),
    refused('DS', `1 256 2 ${H32}`, 'algorithm "256" must be an integer 0-255'),
    refused('DS', `1 0 2 ${H32}`, 'algorithm 0 is reserved'),
    refused('DS', `1 13 3 ${H32}`, 'digest type "3" must be one of 1, 2, 4'),
    refused('DS', `1 13 2 ${H20}`, 'digest is 20 bytes; digest type 2 (SHA-256) needs 32'),
    refused('DS', `1 13 1 ${H32}`, 'digest is 32 bytes; digest type 1 (SHA-1) needs 20'),
    refused('DS', `1 13 4 ${H32}`, 'digest type 4 (SHA-384) needs 48'),
    refused('DS', `1 13 2 ${H32.slice(1)}`, 'digest must be hexadecimal digits, two per byte'),
    refused('DS', `1 13 2 ${'zz'.repeat(32)}`, 'digest must be hexadecimal digits'),
    refused('TLSA', `4 1 1 ${H32}`, 'usage "4" must be one of 0, 1, 2, 3'),
    refused('TLSA', `3 2 1 ${H32}`, 'selector "2" must be one of 0, 1'),
    refused('TLSA', `3 1 3 ${H32}`, 'matching type "3" must be one of 0, 1, 2'),
    refused('TLSA', `3 1 1 ${H20}`, 'data is 20 bytes; matching type 1 (SHA-256) needs 32'),
    refused('TLSA', `3 1 2 ${H32}`, 'data is 32 bytes; matching type 2 (SHA-512) needs 64'),
    refused('TLSA', '3 1 1', 'must be "<usage> <selector> <matching type> <data>"'),
    refused('SSHFP', `5 2 ${H32}`, 'algorithm "5" must be one of 1, 2, 3, 4, 6'),
    refused('SSHFP', `4 3 ${H32}`, 'fingerprint type "3" must be one of 1, 2'),
    refused('SSHFP', `4 1 ${H32}`, 'fingerprint is 32 bytes; fingerprint type 1 (SHA-1) needs 20'),
    refused('SSHFP', `4 2 ${H20}`, 'fingerprint type 2 (SHA-256) needs 32'),
    refused('NAPTR', '100 10 "S" "SIP+D2U" _sip._udp.example.com', 'must be "<order> <preference> <flags> <services> <regexp> <replacement>"'),
    refused('NAPTR', '100 10 "S" "SIP+D2U" "" _sip._udp.example.com extra', 'must be "<order> <preference>'),
    refused('NAPTR', '100 70000 "S" "" "" .', 'preference "70000" must be an integer 0-65535'),
    refused('NAPTR', '100 10 "S!" "" "" .', 'flags "S!" must be letters or digits'),
    refused('NAPTR', '100 10 "U" "E2U+sip" "!^.*$!sip:a@example.com!" sip.example.com', 'regexp and replacement exclude each other'),
    refused('NAPTR', '100 10 "S" "é" "" .', 'services must be at most 255 characters of printable ASCII'),
    refused('NAPTR', `100 10 "S" "${'x'.repeat(256)}" "" .`, 'services must be at most 255 characters'),
    refused('NAPTR', '100 10 "S "" "" .', 'has an opening quote but no closing one'),
    refused('NAPTR', '100 10 "S" "" "" bad..name', 'replacement "bad..name" has an empty label'),
    refused('HTTPS', '1', 'must be "<priority> <target> [<key>=<value> ...]"'),
    refused('HTTPS', '0 . alpn=h2', 'priority 0 is AliasMode (RFC 9460 2.4.2), which takes no SvcParams'),
    refused('HTTPS', '1 bad..target alpn=h2', 'target "bad..target" has an empty label'),
    refused('HTTPS', '70000 . alpn=h2', 'priority "70000" must be an integer 0-65535'),
    refused('HTTPS', '1 . alpn=h2 alpn=h3', 'a SvcParam key appears twice'),
    refused('HTTPS', '1 . foo=bar', 'SvcParam key "foo" is not one of mandatory, alpn, no-default-alpn, port, ipv4hint, ech, ipv6hint'),
    refused('HTTPS', '1 . alpn=', 'alpn needs a value'),
    refused('HTTPS', '1 . alpn=h2,,h3', 'alpn value "" is not a protocol id'),
    refused('HTTPS', '1 . alpn="h 2"', 'alpn value "h 2" is not a protocol id'),
    refused('HTTPS', '1 . alpn=h2\\\\,x', 'alpn value "h2\\,x" escapes a comma or backslash inside one item (RFC 9460 appendix A.1), which no alpn value here holds'),
    refused('HTTPS', '1 . alpn="h2\\\\,x,h3"', 'alpn value "h2\\,x,h3" escapes a comma or backslash inside one item'),
    refused('HTTPS', '1 . no-default-alpn', 'no-default-alpn needs alpn (RFC 9460 7.1.1)'),
    refused('HTTPS', '1 . alpn=h2 no-default-alpn=1', 'no-default-alpn takes no value'),
    refused('HTTPS', '1 . port=65536', 'port "65536" must be an integer 0-65535'),
    refused('HTTPS', '1 . ipv4hint=192.0.2.1,2001:db8::1', 'ipv4hint value "2001:db8::1" is not an IPv4 address'),
    refused('HTTPS', '1 . ipv6hint=192.0.2.1', 'ipv6hint value "192.0.2.1" is not an IPv6 address'),
    refused('HTTPS', '1 . ech=not*base64', 'ech value "not*base64" is not base64'),
    refused('HTTPS', '1 . ech=AAA', 'ech value "AAA" is not base64'),
    refused('HTTPS', '1 . mandatory=alpn', 'mandatory lists alpn, which the record does not have'),
    refused('HTTPS', '1 . mandatory=mandatory', 'is not a key other than mandatory'),
    refused('HTTPS', '1 . alpn=h2 mandatory=alpn,alpn', 'mandatory lists a key twice'),
    refused('HTTPS', '1 . mandatory=foo', 'mandatory value "foo" is not a key other than mandatory'),
    refused('SVCB', '1 . port=x', 'port "x" must be an integer 0-65535'),
    ['a DS at the apex', rrset('DS', [`1 13 2 ${H32}`], ZONE), 'type', 'DS is not allowed at the zone apex "example.com"; it belongs at a delegation (a name with NS) inside the zone'],
    ['a TLSA owner without _port._proto', rrset('TLSA', [`3 1 1 ${H32}`], `www.${ZONE}`), 'name', 'TLSA name "www.example.com" must begin with "_port._proto" labels (e.g. _443._tcp.example.com)'],
  ] as const)('refuses %s', (_, input, path, message) => {
    expect(issuesOf(input)).toContainEqual({ path, message: expect.stringContaining(message) });
  });

  it('names the record in the message as the other types do', () => {
    expect(issuesOf(rrset('SSHFP', [`4 2 ${H32}`, `9 2 ${H32}`]))).toEqual([
      { path: 'records[1].content', message: `SSHFP record "9 2 ${H32.slice(0, 56)}…": algorithm "9" must be one of 1, 2, 3, 4, 6` },
    ]);
  });

  it('drops records equal after canonicalization and sorts them numerically', () => {
    const r = validateRRset(ZONE, rrset('HTTPS', ['10 . alpn=h2', '2 . port=443', '10 . alpn="h2"']));
    expect(r.records.map((x) => x.content)).toEqual(['2 . port=443', '10 . alpn=h2']);
  });
});
