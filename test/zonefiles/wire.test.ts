import dnsPacket, { type Answer } from 'dns-packet';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  answerBytes, answerReserveBytes, MAX_MESSAGE_BYTES, maxTxtValueBytes, nameBytes, rdataBytes, recordBytes, validateRRset,
  ZoneValidationError, type RecordType, type RRset,
} from '../../zonefiles';
import { hostileRRset, rawRRset, ZONE } from './arbitraries';

const SVC_KEYS = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint'];
const u16 = (n: number) => Buffer.from([n >> 8, n & 255]);

/** SVCB RDATA laid out as RFC 9460 2.2 says, which dns-packet 5 cannot encode; addresses as zeros (sizes are
 * what is compared). */
function svcbRdata(content: string): Buffer {
  const [priority, target, ...params] = content.split(' ') as [string, string, ...string[]];
  const parts = [u16(Number(priority)), Buffer.concat([...(target === '.' ? [] : target.split('.')).map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0])])];
  for (const p of params) {
    const [key, value = ''] = p.split('=') as [string, string?];
    const list = value === '' ? [] : value.split(',');
    const data = {
      mandatory: () => Buffer.concat(list.map((k) => u16(SVC_KEYS.indexOf(k)))),
      alpn: () => Buffer.concat(list.map((id) => Buffer.concat([Buffer.from([id.length]), Buffer.from(id)]))),
      'no-default-alpn': () => Buffer.alloc(0),
      port: () => u16(Number(value)),
      ipv4hint: () => Buffer.concat(list.map((a) => Buffer.from(a.split('.').map(Number)))),
      ech: () => Buffer.from(value, 'base64'),
      ipv6hint: () => Buffer.alloc(16 * list.length),
    }[key]!();
    parts.push(u16(SVC_KEYS.indexOf(key)), u16(data.length), data);
  }
  return Buffer.concat(parts);
}

/** The quoted character-strings of a canonical content, unescaped. */
const strings = (content: string): string[] => [...content.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1'));

/** The record as dns-packet takes it, from canonical content; TXT split in 255-byte strings as render.ts does. */
function packetAnswer(owner: string, type: RecordType, content: string): Answer {
  const base = { name: owner, ttl: 300, class: 'IN' as const };
  const last = content.slice(content.lastIndexOf(' ') + 1);
  const nums = content.split(' ').map(Number);
  switch (type) {
    // An ALIAS is never served as itself; its RDATA, one name, is counted as a CNAME's.
    case 'ALIAS':
      return { ...base, type: 'CNAME', data: content };
    case 'A':
    case 'AAAA':
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return { ...base, type, data: content };
    case 'MX':
      return { ...base, type, data: { preference: nums[0]!, exchange: last } };
    case 'SRV':
      return { ...base, type, data: { priority: nums[0]!, weight: nums[1]!, port: nums[2]!, target: last } };
    case 'TXT': {
      const bytes = Buffer.from(content, 'utf8');
      const strings: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += 255) strings.push(bytes.subarray(i, i + 255));
      return { ...base, type, data: strings.length > 0 ? strings : [Buffer.alloc(0)] };
    }
    case 'CAA': {
      const m = /^(\d+) (\S+) "(.*)"$/s.exec(content)!;
      return { ...base, type, data: { flags: Number(m[1]), tag: m[2]! as 'issue', value: m[3]! } };
    }
    case 'DS':
      return { ...base, type, data: { keyTag: nums[0]!, algorithm: nums[1]!, digestType: nums[2]!, digest: Buffer.from(last, 'hex') } };
    case 'TLSA':
      return { ...base, type, data: { usage: nums[0]!, selector: nums[1]!, matchingType: nums[2]!, certificate: Buffer.from(last, 'hex') } };
    case 'SSHFP':
      return { ...base, type, data: { algorithm: nums[0]!, hash: nums[1]!, fingerprint: last } };
    case 'NAPTR': {
      const [flags, services, regexp] = strings(content) as [string, string, string];
      return { ...base, type, data: { order: nums[0]!, preference: nums[1]!, flags, services, regexp, replacement: last } };
    }
    case 'SVCB':
    case 'HTTPS':
      return { ...base, type: type === 'SVCB' ? 'UNKNOWN_64' : 'UNKNOWN_65', data: svcbRdata(content) } as unknown as Answer;
  }
}

/** Canonical rrsets of {@link ZONE}: ordinary ones, and the hostile ones validation lets through. */
const canonical: fc.Arbitrary<RRset> = fc.oneof(
  rawRRset,
  hostileRRset(ZONE).map((h) => ({
    name: [h.wildcard ? '*' : '', h.prefix, `c.${ZONE}`].filter(Boolean).join('.'),
    type: h.type,
    ttl: 300,
    records: h.records,
  })),
).chain((raw) => {
  try {
    return fc.constant(validateRRset(ZONE, raw));
  } catch (e) {
    if (!(e instanceof ZoneValidationError)) throw e;
    return fc.constant(null);
  }
}).filter((r): r is RRset => r !== null);

describe('wire sizes', () => {
  it('measures names and the RDATA of each type', () => {
    expect(nameBytes('.')).toBe(1);
    expect(nameBytes('example.com')).toBe(13);
    expect(nameBytes(`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`)).toBe(255);
    expect(rdataBytes('A', '192.0.2.1')).toBe(4);
    expect(rdataBytes('AAAA', '2001:db8::1')).toBe(16);
    expect(rdataBytes('CNAME', 'www.example.com')).toBe(17);
    expect(rdataBytes('MX', '0 .')).toBe(3);
    expect(rdataBytes('MX', '10 mail.example.com')).toBe(20);
    expect(rdataBytes('SRV', '0 0 0 .')).toBe(7);
    expect(rdataBytes('SRV', '10 5 5060 sip.example.com')).toBe(23);
    expect(rdataBytes('TXT', '')).toBe(1);
    expect(rdataBytes('TXT', 'a'.repeat(255))).toBe(256);
    expect(rdataBytes('TXT', 'a'.repeat(256))).toBe(258);
    expect(rdataBytes('TXT', 'é'.repeat(128))).toBe(258);
    expect(rdataBytes('TXT', 'a'.repeat(65_279))).toBe(65_535);
    expect(rdataBytes('CAA', '0 issue "letsencrypt.org"')).toBe(22);
    expect(rdataBytes('CAA', '128 tbs ""')).toBe(5);
    expect(recordBytes('A', '192.0.2.1')).toBe(16);
  });

  it('reserves room for the worst answer: 4979 octets in example.com, a TXT value of 60307 bytes at most', () => {
    // header 12, question 259, RRSIGs 2 × (2 + 10 + 18 + 13 + 512), one CNAME 267 with its RRSIGs, one NSEC
    // 588 with its RRSIGs, OPT 11 with 512 of options.
    expect(answerReserveBytes('example.com')).toBe(12 + 259 + 1110 + 267 + 1110 + 588 + 1110 + 523);
    expect(maxTxtValueBytes('example.com')).toBe(60_307);
    // The signer's name is in every RRSIG: a longer zone name leaves less room.
    expect(answerReserveBytes('a.longer-zone-name.example.com')).toBe(answerReserveBytes('example.com') + 6 * 19);
  });

  it('gives the longest TXT value whose record fits, for any zone name', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{1,63}$/), { minLength: 1, maxLength: 3 }), (labels) => {
        const zone = [...labels, 'test'].join('.');
        const max = maxTxtValueBytes(zone);
        const fits = (n: number) => answerReserveBytes(zone) + recordBytes('TXT', 'x'.repeat(n)) <= MAX_MESSAGE_BYTES;
        expect(fits(max)).toBe(true);
        expect(fits(max + 1)).toBe(false);
      }),
      { numRuns: 50 },
    );
  });

  it('agrees with dns-packet on every record and on the whole unsigned answer', () => {
    fc.assert(
      fc.property(canonical, (rrset) => {
        const answers = rrset.records.map((r) => packetAnswer(rrset.name, rrset.type, r.content));
        for (const [i, a] of answers.entries()) {
          const content = rrset.records[i]!.content;
          const alone = dnsPacket.encode({ type: 'response', id: 1, answers: [a] }).length - 12;
          expect(alone, `${rrset.type} ${content.slice(0, 80)}`).toBe(nameBytes(rrset.name) + 10 + rdataBytes(rrset.type, content));
        }
        // dns-packet writes every owner in full, where a server points back to the question (2 octets); the
        // records so written are the form DNSSEC signs.
        const sizes = answerBytes(ZONE, rrset);
        const response = dnsPacket.encode({ type: 'response', id: 1, questions: [{ name: rrset.name, type: answers[0]!.type }], answers });
        expect(response.length).toBe(sizes.unsigned + answers.length * (nameBytes(rrset.name) - 2));
        expect(dnsPacket.encode({ type: 'response', id: 1, answers }).length - 12).toBe(sizes.signedData);
      }),
      { numRuns: 300 },
    );
  });
});
