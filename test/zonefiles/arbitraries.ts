import fc from 'fast-check';
import {
  answerReserveBytes, MAX_MESSAGE_BYTES, MAX_RECORDS, MAX_TTL, maxTxtValueBytes, MIN_TTL, validateRRset, type RecordType, type RRset, type ZoneSpec,
} from '../../zonefiles';
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

/** `[type, hex]`: a type of `lengths` and hex data of its length in bytes (0: any length). */
function hexOf(lengths: Record<number, number>): fc.Arbitrary<[number, string]> {
  return fc.constantFrom(...Object.entries(lengths)).chain(([type, n]) =>
    fc.uint8Array({ minLength: n || 1, maxLength: n || 80 }).map((b): [number, string] => [Number(type), Buffer.from(b).toString('hex')]));
}

/** SVCB/HTTPS content: AliasMode, or ServiceMode with any valid combination of SvcParams in any order. */
const svcb: fc.Arbitrary<string> = fc.oneof(
  host.map((h) => `0 ${h}`),
  fc.tuple(fc.integer({ min: 1, max: 65535 }), fc.oneof(host, fc.constant('.')), fc.record({
    alpn: fc.option(fc.subarray(['h2', 'h3', 'http/1.1'], { minLength: 1 }).map((ids) => `alpn="${ids.join(',')}"`)),
    port: fc.option(u16.map((p) => `port=${p}`)),
    ipv4hint: fc.option(fc.array(fc.ipV4(), { minLength: 1, maxLength: 3 }).map((a) => `ipv4hint=${a.join(',')}`)),
    ipv6hint: fc.option(fc.array(fc.ipV6(), { minLength: 1, maxLength: 3 }).map((a) => `ipv6hint=${a.join(',')}`)),
    ech: fc.option(fc.uint8Array({ minLength: 1, maxLength: 60 }).map((b) => `ech=${Buffer.from(b).toString('base64')}`)),
  }), fc.boolean(), fc.boolean()).chain(([priority, target, params, noDefault, mandatory]) => {
    const present = Object.entries(params).filter(([, v]) => v !== null) as [string, string][];
    const extra = [
      ...(noDefault && params.alpn ? ['no-default-alpn'] : []),
      ...(mandatory && present.length > 0 ? [`mandatory=${present.map(([k]) => k).reverse().join(',')}`] : []),
    ];
    return fc.shuffledSubarray([...present.map(([, v]) => v), ...extra], { minLength: present.length + extra.length })
      .map((ps) => [priority, target, ...ps].join(' '));
  }),
);

/** Any valid rrset of {@link ZONE}, in raw API form (not yet canonical); DS away from the apex. */
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
  rrsetOf('DS', below, fc.tuple(u16, fc.constantFrom(8, 13, 14, 15), hexOf({ 1: 20, 2: 32, 4: 48 })).map(([tag, alg, [type, hex]]) => `${tag} ${alg} ${type} ${hex}`)),
  rrsetOf('TLSA', fc.tuple(u16, fc.oneof(fc.constant(ZONE), below)).map(([port, o]) => `_${port}._tcp.${o}`),
    fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 1 }), hexOf({ 0: 0, 1: 32, 2: 64 })).map(([u, s, [m, hex]]) => `${u} ${s} ${m} ${hex}`)),
  rrsetOf('SSHFP', owner, fc.tuple(fc.constantFrom(1, 2, 3, 4, 6), hexOf({ 1: 20, 2: 32 })).map(([alg, [type, hex]]) => `${alg} ${type} ${hex}`)),
  rrsetOf('NAPTR', owner, fc.tuple(u16, u16, fc.constantFrom('"S"', '"a"', '""', 'U'), fc.constantFrom('"SIP+D2U"', '"E2U+sip"', '""'), fc.oneof(
    host.map((h) => `"" ${h}`),
    fc.constantFrom('"!^.*$!sip:info@example.com!" .', '"!^\\\\+1(.*)$!sip:\\\\1@example.com!" .', '"!a\\"b!c!" .'),
  )).map((f) => f.join(' '))),
  rrsetOf('SVCB', owner, svcb),
  rrsetOf('HTTPS', owner, svcb),
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

/** An rrset in raw API form whose owner the caller completes: `prefix` is the owner's labels above the
 * caller's part ('' for none), `wildcard` asks for a `*` label in front. */
export interface HostileRRset {
  prefix: string;
  wildcard: boolean;
  type: RecordType;
  ttl: number;
  records: { content: string }[];
}

const longLabel = fc.stringMatching(/^[a-z0-9]{40,63}$/);
/** Absolute host names, some long enough (up to 4 × 64 octets) to pass 253 characters. */
const anyHost = fc.oneof(
  { weight: 3, arbitrary: host },
  { weight: 1, arbitrary: fc.array(longLabel, { minLength: 1, maxLength: 4 }).map((ls) => `${ls.join('.')}.example.net`) },
);
/** `count` distinct host names of exactly `length` characters (≤ 253), in labels of at most 63. */
function distinctHosts(count: number, length: number): string[] {
  const tail = '.example.net';
  let middle = '';
  for (let rest = length - 5 - tail.length; rest > 0;) {
    let label = Math.min(63, rest - 1);
    if (rest - label - 1 === 1) label--;
    middle += `.${'n'.repeat(label)}`;
    rest -= label + 1;
  }
  return Array.from({ length: count }, (_, i) => `h${String(i).padStart(4, '0')}${middle}${tail}`);
}

/** A value of exactly `bytes` UTF-8 bytes, mostly of `char`. */
function ofBytes(bytes: number, char: string): string {
  const w = Buffer.byteLength(char);
  return 'x'.repeat(bytes % w) + char.repeat(Math.floor(bytes / w));
}

/** An integer within `spread` of one of `limits`: where off-by-one mistakes live. */
const near = (limits: number[], spread: number): fc.Arbitrary<number> =>
  fc.tuple(fc.constantFrom(...limits), fc.integer({ min: -spread, max: spread })).map(([l, d]) => Math.max(0, l + d));

const TXT_CHARS = ['"', '\\', ';', '(', ')', '$', '@', '\n', '\t', '\0', '\x7f', ' ', 'a', 'é', '€', '😀', '\u{10ffff}'];

/**
 * Hostile rrsets for `zone`: record contents aimed at what a nameserver cannot take (sizes around the limits
 * of one record and of one answer in this zone, multibyte text, zone-file metacharacters, names near 255
 * octets, many records, CAA edge cases) beside ordinary ones. Many are invalid on purpose.
 */
export function hostileRRset(zone: string): fc.Arbitrary<HostileRRset> {
  const reserve = answerReserveBytes(zone);
  const budget = MAX_MESSAGE_BYTES - reserve;
  const maxTxt = maxTxtValueBytes(zone);
  // The longest CAA value of tag `tbs` one record of this zone takes: RR fixed part, flags, tag length, tag.
  const maxCaa = budget - 12 - 2 - 3;

  const txt = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 600 }),
    fc.string({ unit: fc.constantFrom(...TXT_CHARS), maxLength: 600 }),
    fc.tuple(near([maxTxt, 65_279, 255, 256], 3), fc.constantFrom('x', 'é', '€', '😀')).map(([n, c]) => ofBytes(n, c)),
    fc.constantFrom('', '\ud800 lone surrogate', '"quoted"', 'back\\slash', '$ORIGIN evil.example.', 'a;comment', '\\065'),
  );
  const caa = fc.oneof(
    fc.tuple(fc.integer({ min: 0, max: 255 }), fc.constantFrom('issue "letsencrypt.org"', 'issuewild ;', 'Issue "ca.example; account=1"',
      'iodef "mailto:a@example.com"', 'iodef "https://example.com/r"', 'tbs ""', 'x23456789012345 "v"')).map(([f, rest]) => `${f} ${rest}`),
    near([maxCaa, 65_531 - 3], 2).map((n) => `0 tbs "${'v'.repeat(n)}"`),
    fc.constantFrom('0 issue "a"b"', '0 issue "\\"', '256 issue "x"', '0 abcdefghijklmnop "x"', '0 tbs "é"', '0 issue', '128 tbs unquoted'),
  );

  type Parts = Pick<HostileRRset, 'type' | 'records'>;
  const one = (type: RecordType, content: fc.Arbitrary<string>): fc.Arbitrary<Parts> =>
    fc.array(content, { minLength: 1, maxLength: 4 }).map((cs) => ({ type, records: cs.map((c) => ({ content: c })) }));
  const many = (type: RecordType, contents: (count: number) => string[], perRecord: number): fc.Arbitrary<Parts> =>
    near([Math.floor(budget / perRecord)], 2).map((count) => ({ type, records: contents(Math.max(1, count)).map((c) => ({ content: c })) }));
  const txtRecords = (size: number) => (count: number): string[] =>
    Array.from({ length: count }, (_, i) => `${String(i).padStart(4, '0')}${'t'.repeat(size - 4)}`);

  const parts: fc.Arbitrary<Parts> = fc.oneof(
    one('A', fc.oneof(fc.ipV4(), fc.constantFrom('256.1.1.1', '01.2.3.4', ' 192.0.2.1 ', ''))),
    one('AAAA', fc.oneof(fc.ipV6(), fc.constantFrom('fe80::1%eth0', '::ffff:192.0.2.1', '2001:DB8::1'))),
    fc.integer({ min: MAX_RECORDS - 2, max: MAX_RECORDS + 1 }).map((n): Parts =>
      ({ type: 'A', records: Array.from({ length: n }, (_, i) => ({ content: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}` })) })),
    one('CAA', caa),
    one('CNAME', anyHost).map((p) => ({ ...p, records: p.records.slice(0, 1) })),
    one('MX', fc.oneof(fc.tuple(u16, anyHost).map(([p, h]) => `${p} ${h}`), fc.constant('0 .'))),
    many('MX', (n) => distinctHosts(n, 253).map((h, i) => `${i} ${h}`), 12 + 2 + 255),
    one('NS', anyHost),
    many('NS', (n) => distinctHosts(n, 253), 12 + 255),
    one('PTR', anyHost),
    one('SRV', fc.tuple(u16, u16, u16, fc.oneof(anyHost, fc.constant('.'))).map((f) => f.join(' '))),
    one('TXT', txt),
    fc.integer({ min: 20, max: 400 }).chain((size) => many('TXT', txtRecords(size), 12 + size + Math.ceil(size / 255))),
  );
  const prefix = fc.oneof(
    { weight: 3, arbitrary: fc.array(label, { maxLength: 2 }) },
    { weight: 1, arbitrary: fc.array(longLabel, { minLength: 1, maxLength: 4 }) },
  ).map((ls) => ls.join('.'));
  const ttl = fc.oneof({ weight: 9, arbitrary: fc.constant(300) }, { weight: 1, arbitrary: fc.constantFrom(59, 604_801, 300.5, 604_800, 60) });
  return fc.record({ prefix, wildcard: fc.boolean(), ttl, parts }).map(({ prefix: p, wildcard, ttl: t, parts: x }) => ({
    prefix: x.type === 'SRV' ? ['_sip._tcp', p].filter(Boolean).join('.') : p,
    wildcard: wildcard && x.type !== 'SRV',
    type: x.type,
    ttl: t,
    records: x.records,
  }));
}
