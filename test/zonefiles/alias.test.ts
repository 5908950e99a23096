/** ALIAS rrsets: validation, the coexistence rule, export and re-import, and what an answer is served as. */
import { describe, expect, it } from 'vitest';
import {
  aliasAnswer, aliasConflict, exportZoneFile, importChanges, isPublicAddress, parseZoneFile, servedRRsets, validateRRset,
  ALIAS_MAX_TTL, ALIAS_MIN_TTL, MAX_ALIAS_ADDRESSES, type CurrentRRset, type RRset,
} from '../../zonefiles';
import { asStored, testSoa } from './fixtures';
import { issuesOf } from '../helpers/zone-issues';

const ZONE = 'example.com';
const alias = (name: string, ...targets: string[]): RRset => ({ name, type: 'ALIAS', ttl: 300, records: targets.map((content) => ({ content })) });

describe('ALIAS validation', () => {
  it('takes one host name at any name, the apex too, and writes it canonical', () => {
    expect(validateRRset(ZONE, alias('@', 'CDN.Example.NET.'))).toEqual(alias(ZONE, 'cdn.example.net'));
    expect(validateRRset(ZONE, alias(`www.${ZONE}`, 'lb.example.org'))).toEqual(alias(`www.${ZONE}`, 'lb.example.org'));
  });

  it.each([
    ['two targets', alias(ZONE, 'a.example.net', 'b.example.net'), 'records', 'exactly one record'],
    ['a wildcard target', alias(ZONE, '*.example.net'), 'records[0].content', 'wildcard'],
    ['an address', alias(ZONE, '192.0.2.1 x'), 'records[0].content', 'contains " "'],
    ['an empty label', alias(ZONE, 'a..example.net'), 'records[0].content', 'empty label'],
    ['its own name', alias(`www.${ZONE}`, `WWW.${ZONE}.`), 'records[0].content', 'own name'],
  ])('refuses %s', (_what, rrset, path, words) => {
    const issues = issuesOf(() => validateRRset(ZONE, rrset));
    expect(issues).toEqual([expect.objectContaining({ path })]);
    expect(issues[0]!.message).toContain(words);
  });

  it('judges coexistence on the types a name holds after a change: never beside A or AAAA; beside SOA, NS, MX, TXT it may', () => {
    expect(aliasConflict(['ALIAS', 'A'])).toBe(true);
    expect(aliasConflict(['AAAA', 'ALIAS'])).toBe(true);
    expect(aliasConflict(['ALIAS', 'NS', 'MX', 'TXT', 'CAA'])).toBe(false);
    expect(aliasConflict(['A', 'AAAA'])).toBe(false);
  });
});

describe('ALIAS in zone files', () => {
  const rrsets: RRset[] = [
    { name: ZONE, type: 'NS', ttl: 86_400, records: [{ content: 'ns1.hostplane.test' }] },
    alias(ZONE, 'cdn.example.net'),
    { name: ZONE, type: 'MX', ttl: 300, records: [{ content: '10 mail.example.com' }] },
  ];

  it('exports in RFC 3597\'s generic form under PowerDNS\'s type code, after a comment naming it, and re-imports as a no-op', () => {
    const file = exportZoneFile(ZONE, testSoa, rrsets);
    expect(file).toContain('\n; ALIAS cdn.example.net.\nexample.com. 300 IN TYPE65401 \\# 17 0363646e076578616d706c65036e657400\n');
    expect(file).not.toMatch(/ IN ALIAS /);
    const current: CurrentRRset[] = rrsets.map((r) => ({ ...asStored(r), managedBy: r.type === 'NS' ? 'system' : null }));
    expect(importChanges(ZONE, current, parseZoneFile(file, ZONE), 'replace')).toEqual([]);
  });

  it('reads a relative target against $ORIGIN', () => {
    expect(parseZoneFile('$ORIGIN example.com.\n$TTL 300\nwww IN ALIAS lb\n', ZONE).rrsets).toEqual([alias(`www.${ZONE}`, 'lb.example.com')]);
  });

  it('reads TYPE65401 in generic form as the ALIAS, as `ALIAS target.` is read: the hex in any case, split by blanks', () => {
    const file = '$TTL 300\n@ TYPE65401 \\# 17 ( 0363646E076578616D706C65\n 036e657400 )\nwww IN ALIAS cdn.example.net.\n';
    expect(parseZoneFile(file, ZONE).rrsets).toEqual([alias(ZONE, 'cdn.example.net'), alias(`www.${ZONE}`, 'cdn.example.net')]);
  });

  it.each([
    ['not in generic form', 'cdn.example.net.', 'TYPE65401 needs RFC 3597\'s generic form "\\# <length> <hex>"'],
    ['a length that is not the data\'s', '\\# 4 0161016200', 'TYPE65401: the length is 4 but 5 bytes follow'],
    ['no root label', '\\# 4 01610162', 'TYPE65401: the name does not end with the root label (00)'],
    ['a label past the end', '\\# 4 05616200', 'TYPE65401: the name does not end with the root label (00)'],
    ['a compression pointer', '\\# 2 c00c', 'TYPE65401: a label of 192 bytes (at most 63; a compressed name is not taken)'],
    ['a dot inside a label', '\\# 5 03612e6200', 'TYPE65401: the target\'s label "a.b" is not letters, digits, "-" and "_"'],
    ['bytes after the name', '\\# 4 01610000', 'TYPE65401: 1 bytes follow the target\'s name'],
  ])('refuses TYPE65401 with %s, at its line', (_what, rdata, message) => {
    expect(issuesOf(() => parseZoneFile(`$TTL 300\n\n@ TYPE65401 ${rdata}\n`, ZONE))).toEqual([{ path: 'line 3', message }]);
  });

  it('refuses at its line a file that puts an ALIAS beside an A', () => {
    const issues = issuesOf(() => importChanges(ZONE, [], parseZoneFile('$TTL 300\n@ IN ALIAS cdn.example.net.\n@ IN A 192.0.2.1\n', ZONE), 'merge'));
    expect(issues.map((i) => i.path)).toEqual(['line 2', 'line 3']);
    expect(issues[0]!.message).toContain('ALIAS cannot share its name with an A or AAAA');
  });
});

describe('ALIAS answers as served', () => {
  it('caps the TTL at five minutes and keeps it at least 30 s', () => {
    expect(aliasAnswer(['192.0.2.1'], [], 3600).ttl).toBe(ALIAS_MAX_TTL);
    expect(aliasAnswer(['192.0.2.1'], [], 120).ttl).toBe(120);
    expect(aliasAnswer(['192.0.2.1'], [], 0).ttl).toBe(ALIAS_MIN_TTL);
  });

  it('keeps addresses only, canonical, sorted, without duplicates, at most 16 of each family', () => {
    const many = Array.from({ length: 40 }, (_, i) => `198.51.100.${40 - i}`);
    const answer = aliasAnswer([...many, 'not-an-address', '198.51.100.1'], ['2001:DB8:0::1', '2001:db8::1'], 60);
    expect(answer.a).toHaveLength(MAX_ALIAS_ADDRESSES);
    expect(answer.a.slice(0, 3)).toEqual(['198.51.100.1', '198.51.100.2', '198.51.100.3']);
    expect(answer.aaaa).toEqual(['2001:db8::1']);
  });

  it('serves only public addresses: private, loopback, CGNAT, link-local, multicast, ULA and their IPv4-mapped forms are dropped', () => {
    const a = ['10.1.2.3', '172.16.0.1', '192.168.1.1', '127.0.0.1', '100.64.0.1', '169.254.169.254', '0.0.0.0', '224.0.0.1', '255.255.255.255'];
    const aaaa = ['::1', '::', 'fd00::1', 'fc00::1', 'fe80::1', 'ff02::1', '::ffff:10.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '64:ff9b::a00:5', '64:ff9b:1::1'];
    expect(aliasAnswer(a, aaaa, 60)).toEqual({ a: [], aaaa: [], ttl: 60 });
    const mixed = aliasAnswer(['10.0.0.1', '8.8.8.8', '192.0.2.1', '198.51.100.1', '203.0.113.1'], ['fd00::1', '2606:4700::1', '2001:db8::1'], 60);
    expect(mixed.a).toEqual(['8.8.8.8', '192.0.2.1', '198.51.100.1', '203.0.113.1']);
    expect(mixed.aaaa).toEqual(['2001:db8::1', '2606:4700::1']);
  });

  it.each([
    ['IPv4-compatible, link-local inside', '::a9fe:a9fe', false],
    ['IPv4-compatible, private inside', '::10.0.0.1', false],
    ['IPv4-translated, link-local inside', '::ffff:0:a9fe:a9fe', false],
    ['IPv4-translated, loopback inside', '::ffff:0:127.0.0.1', false],
    ['6to4, link-local inside', '2002:a9fe:a9fe::1', false],
    ['6to4, private inside', '2002:c0a8:101::1', false],
    ['6to4, CGNAT inside', '2002:6440:1::', false],
    ['NAT64, private inside', '64:ff9b::10.1.2.3', false],
    ['NAT64, link-local inside', '64:ff9b::a9fe:a9fe', false],
    ['NAT64, public inside: the prefix goes whole', '64:ff9b::8.8.8.8', false],
    ['IPv4-mapped, private inside', '::ffff:192.168.0.1', false],
    ['Teredo, its IPv4 obfuscated: the prefix goes whole', '2001:0:4136:e378:8000:63bf:3fff:fdd2', false],
    ['Teredo, private server inside', '2001:0:a00:1::1', false],
    ['benchmarking', '2001:2::1', false],
    ['ORCHID', '2001:10::1', false],
    ['ORCHIDv2', '2001:2f::1', false],
    ['SRv6 segment identifier', '5f00:1::1', false],
    ['global unicast beside Teredo', '2001:4860::8888', true],
    ['6to4, public inside', '2002:808:808::1', true],
    ['IPv4-compatible, documentation inside', '::192.0.2.1', true],
    ['IPv4-translated, public inside', '::ffff:0:8.8.8.8', true],
    ['global unicast whose groups merely look like an IPv4 address', '2606:4700::a9fe:a9fe', true],
  ])('judges an IPv6 address carrying an IPv4 one by that one: %s (%s)', (_what, address, served) => {
    expect(aliasAnswer([], [address], 60).aaaa.length).toBe(served ? 1 : 0);
    expect(isPublicAddress(address)).toBe(served);
  });

  it('isPublicAddress judges any spelling of an address as an ALIAS answer is judged, and what is no address as not public', () => {
    expect(['8.8.8.8', '198.51.100.7', '2001:DB8:0:0::7', '2606:4700::1'].map(isPublicAddress)).toEqual([true, true, true, true]);
    expect(['10.0.0.5', '127.0.0.1', '169.254.169.254', 'FD00::1', '::ffff:10.0.0.1', 'db.corp.internal', ''].map(isPublicAddress))
      .toEqual([false, false, false, false, false, false, false]);
  });

  it('serves an ALIAS as A and AAAA rrsets of its answer, nothing of a family it lacks, and nothing before a first answer', () => {
    const other: RRset = { name: ZONE, type: 'MX', ttl: 300, records: [{ content: '10 mail.example.com' }] };
    const answers = new Map([[ZONE, aliasAnswer(['192.0.2.7'], ['2001:db8::7'], 100)], [`v4.${ZONE}`, aliasAnswer(['192.0.2.8'], [], 100)]]);
    const served = servedRRsets([alias(ZONE, 'a.example.net'), other, alias(`v4.${ZONE}`, 'b.example.net'), alias(`new.${ZONE}`, 'c.example.net')], (n) => answers.get(n));
    expect(served).toEqual([
      { name: ZONE, type: 'A', ttl: 100, records: [{ content: '192.0.2.7' }] },
      { name: ZONE, type: 'AAAA', ttl: 100, records: [{ content: '2001:db8::7' }] },
      other,
      { name: `v4.${ZONE}`, type: 'A', ttl: 100, records: [{ content: '192.0.2.8' }] },
    ]);
  });
});
