import { ipv4, ipv6 } from './addresses';
import { RecordProblem as Problem, ZoneValidationError, type Issue } from './errors';
import { RECORD_TYPES, type RecordType, type RRset } from './model';
import { checkName, isInZone } from './names';
import { canonicalFields, fieldsSortKey, isFieldType } from './rdata';
import { answerBytes, answerReserveBytes, MAX_MESSAGE_BYTES, MAX_RDATA_BYTES, maxTxtValueBytes, rdataBytes, recordBytes } from './wire';

/** Lowest accepted TTL in seconds: one minute, short enough for ACME challenges and failover. */
export const MIN_TTL = 60;
/** Highest accepted TTL in seconds: one week; longer caching only delays recovery from mistakes. */
export const MAX_TTL = 604_800;
/** Most records in one rrset. */
export const MAX_RECORDS = 1000;
/**
 * Longest TXT value in UTF-8 bytes one record can encode. Each 255-byte piece costs one length octet and
 * the whole RDATA must fit in 65535 octets (RFC 1035 3.2.1): 255 full pieces (65280 octets) plus a 254-byte
 * one. An answer needs room beside it, so the longest value accepted is shorter (see {@link validateRRset}).
 */
export const MAX_TXT_BYTES = 65_279;

const UINT = /^[0-9]{1,10}$/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const CAA = /^(\S+)\s+(\S+)\s+(\S.*)$/s;
const CAA_TAG = /^[a-z0-9]{1,15}$/;
// Inside the quotes of a zone-file string only `"` and `\` would need escaping; refusing them (and
// non-ASCII, which RFC 8659 values never need) keeps CAA values verbatim in every zone-file tool.
const CAA_VALUE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const ISSUER_DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;
const CAA_PARAMETER = /^[a-z0-9]+\s*=\s*[\x21-\x3a\x3c-\x7e]*$/i;
const MAILTO = /^mailto:[^\s@]+@[^\s@]+$/i;

function uint(text: string, max: number, field: string): number {
  const n = UINT.test(text) ? Number(text) : NaN;
  if (!(n <= max)) throw new Problem(`: ${field} "${text}" must be an integer 0-${max}`);
  return n;
}

function hostname(text: string, field: string): string {
  const r = checkName(text, false);
  if (!r.ok) throw new Problem(`: ${field} "${text}" ${r.reason}`);
  return r.name;
}

/** `.` is RFC 7505's null MX and RFC 2782's "service not available" SRV target. */
function hostnameOrRoot(text: string, field: string): string {
  return text === '.' ? '.' : hostname(text, field);
}

function fields(content: string, count: number, shape: string): string[] {
  const f = content.split(/\s+/);
  if (f.length !== count) throw new Problem(` must be "${shape}"`);
  return f;
}

function caaValue(tag: string, value: string): void {
  if (tag === 'issue' || tag === 'issuewild') {
    const semicolon = value.indexOf(';');
    const domain = (semicolon < 0 ? value : value.slice(0, semicolon)).trim();
    if (domain !== '' && !ISSUER_DOMAIN.test(domain)) throw new Problem(`: issuer "${domain}" is not a domain name`);
    const params = semicolon < 0 ? '' : value.slice(semicolon + 1).trim();
    if (params === '') return;
    for (const p of params.split(';')) {
      if (!CAA_PARAMETER.test(p.trim())) throw new Problem(`: parameter "${p.trim()}" must be "<key>=<value>"`);
    }
  } else if (tag === 'iodef') {
    if (MAILTO.test(value)) return;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'https:' || url.hostname === '') {
      throw new Problem(`: iodef value "${value}" must be a mailto: or https: URL`);
    }
  }
}

/** Per-type checks: each returns the canonical content or throws a {@link Problem}. */
const CANONICAL: Record<RecordType, (content: string) => string> = {
  A(c) {
    const a = ipv4(c.trim());
    if (a === undefined) throw new Problem(' must be an IPv4 address in dotted-quad form without leading zeros (e.g. 192.0.2.1)');
    return a;
  },
  AAAA(c) {
    const a = ipv6(c.trim());
    if (a === undefined) throw new Problem(' must be an IPv6 address (e.g. 2001:db8::1)');
    return a;
  },
  CAA(c) {
    const m = CAA.exec(c.trim());
    if (!m) throw new Problem(' must be "<flags> <tag> <value>"');
    const flags = uint(m[1] as string, 255, 'flags');
    // RFC 8659 4.1: tags match case-insensitively, so lower case is canonical.
    const tag = (m[2] as string).toLowerCase();
    if (!CAA_TAG.test(tag)) throw new Problem(`: tag "${m[2]}" must be 1-15 letters or digits`);
    let value = m[3] as string;
    if (value.startsWith('"')) {
      if (value.length < 2 || !value.endsWith('"')) throw new Problem(': value has an opening quote but no closing one');
      value = value.slice(1, -1);
    }
    if (!CAA_VALUE.test(value)) throw new Problem(': value must be printable ASCII without " or \\');
    caaValue(tag, value);
    return `${flags} ${tag} "${value}"`;
  },
  ALIAS: (c) => target(c.trim()),
  CNAME: (c) => target(c.trim()),
  MX(c) {
    const [preference, exchange] = fields(c.trim(), 2, '<preference> <exchange>') as [string, string];
    const pref = uint(preference, 65535, 'preference');
    const host = hostnameOrRoot(exchange, 'exchange');
    if (host === '.' && pref !== 0) throw new Problem(': a null MX (exchange ".") must have preference 0');
    return `${pref} ${host}`;
  },
  NS: (c) => target(c.trim()),
  PTR: (c) => target(c.trim()),
  SRV(c) {
    const [p, w, port, t] = fields(c.trim(), 4, '<priority> <weight> <port> <target>') as [string, string, string, string];
    return `${uint(p, 65535, 'priority')} ${uint(w, 65535, 'weight')} ${uint(port, 65535, 'port')} ${hostnameOrRoot(t, 'target')}`;
  },
  DS: (c) => canonicalFields('DS', c),
  HTTPS: (c) => canonicalFields('HTTPS', c),
  NAPTR: (c) => canonicalFields('NAPTR', c),
  SSHFP: (c) => canonicalFields('SSHFP', c),
  SVCB: (c) => canonicalFields('SVCB', c),
  TLSA: (c) => canonicalFields('TLSA', c),
  TXT(c) {
    // A lone surrogate cannot be encoded as UTF-8; Buffer would silently turn it into U+FFFD.
    if (LONE_SURROGATE.test(c)) throw new Problem(' is not valid Unicode (it has an unpaired surrogate)');
    const bytes = Buffer.byteLength(c, 'utf8');
    if (bytes > MAX_TXT_BYTES) throw new Problem(` is ${bytes} bytes long; a TXT record holds at most ${MAX_TXT_BYTES}`);
    return c;
  },
};

/** Types whose owner starts with two underscore labels (RFC 2782 SRV, RFC 6698 3 TLSA): the form, an example. */
const PREFIXED_OWNER: Partial<Record<RecordType, [string, string]>> = { SRV: ['_service._proto', '_sip._tcp'], TLSA: ['_port._proto', '_443._tcp'] };

function target(c: string): string {
  const r = checkName(c, false);
  if (!r.ok) throw new Problem(` ${r.reason}`);
  return r.name;
}

const KNOWN_TYPES = new Set<string>(RECORD_TYPES);
/** Records of an rrset compared with each other for repeats without a set. */
const FEW_RECORDS = 8;

function quoted(content: string): string {
  return JSON.stringify(content.length > 60 ? `${content.slice(0, 60)}…` : content);
}

/**
 * Validates an rrset of `zone` (normalized) and returns a new rrset with only the model's fields, in
 * canonical form: owner normalized (`@` is the apex), content canonical (host names lower case without
 * trailing dot, IPv6 per RFC 5952, CAA value quoted, MX/SRV numbers without leading zeros), duplicate
 * records dropped, records sorted by {@link compareRecords}. Throws {@link ZoneValidationError} listing
 * every problem at once; record problems have the path `records[i].content` and quote the record.
 *
 * Rules: owner inside the zone; no CNAME and no DS at the apex; a CNAME or ALIAS rrset holds exactly one record, an
 * ALIAS's not its own owner (it would resolve to what it serves itself); an SRV
 * owner starts with `_service._proto`, a TLSA owner with `_port._proto`; ttl an integer {@link MIN_TTL}..{@link MAX_TTL}; 1..{@link MAX_RECORDS}
 * records; a null MX (`0 .`) is the only MX record; TXT at most {@link MAX_TXT_BYTES} UTF-8 bytes.
 *
 * Size: whatever is accepted can be served, signed, in one DNS message, so that the nameserver never
 * refuses the zone and enabling DNSSEC later never fails for size. Each record's RDATA is at most
 * {@link MAX_RDATA_BYTES} octets; the rrset's records together with the room any answer needs beside them
 * (`answerReserveBytes` in wire.ts: header, the longest question, DNSSEC signatures of a larger algorithm
 * during a rollover, one CNAME, a wildcard proof, EDNS) fit {@link MAX_MESSAGE_BYTES}; and so do the records
 * each with its full owner, the form a signer hashes. A record too large by itself is named
 * (`records[i].content`); records too large together are `records`. The answer's limit depends on the
 * zone's name (every RRSIG carries it), the signer's on the owner's.
 */
export function validateRRset(zone: string, rrset: RRset): RRset {
  const checked = checkRRset(zone, rrset);
  if ('issues' in checked) throw new ZoneValidationError(checked.issues);
  return checked;
}

/** {@link validateRRset} answering its problems instead of throwing them: a zone file of thousands of refused rrsets
 * is read without an Error (and its stack) for each. */
export function checkRRset(zone: string, rrset: RRset): RRset | { issues: Issue[] } {
  const issues: Issue[] = [];
  const { type, ttl, records } = rrset;

  let name = zone;
  if (rrset.name !== '@') {
    const r = checkName(rrset.name, true);
    if (!r.ok) issues.push({ path: 'name', message: `name ${quoted(rrset.name)} ${r.reason}` });
    else if (!isInZone(r.name, zone)) issues.push({ path: 'name', message: `name "${r.name}" is not inside zone "${zone}"` });
    name = r.ok ? r.name : rrset.name;
  }

  const known = KNOWN_TYPES.has(type);
  if (!known) issues.push({ path: 'type', message: `type ${quoted(String(type))} is not supported; use one of ${RECORD_TYPES.join(', ')}` });
  if (type === 'CNAME' && name === zone) issues.push({ path: 'type', message: `CNAME is not allowed at the zone apex "${zone}"` });
  // RFC 4035 2.4: a DS belongs to the parent side of a delegation; at the apex it would be the parent's record.
  if (type === 'DS' && name === zone) issues.push({ path: 'type', message: `DS is not allowed at the zone apex "${zone}"; it belongs at a delegation (a name with NS) inside the zone` });
  const prefixed = PREFIXED_OWNER[type];
  if (prefixed) {
    const [service, proto] = name.split('.');
    if (!(service && service.length > 1 && service[0] === '_' && proto && proto.length > 1 && proto[0] === '_')) {
      issues.push({ path: 'name', message: `${type} name "${name}" must begin with "${prefixed[0]}" labels (e.g. ${prefixed[1]}.${zone})` });
    }
  }

  if (!Number.isInteger(ttl) || ttl < MIN_TTL || ttl > MAX_TTL) {
    issues.push({ path: 'ttl', message: `ttl ${String(ttl)} must be an integer from ${MIN_TTL} to ${MAX_TTL} seconds` });
  }

  // The distinct canonical contents, in the order first seen.
  const canonical: string[] = [];
  if (!Array.isArray(records)) {
    issues.push({ path: 'records', message: 'records must be a list' });
  } else if (records.length === 0) {
    issues.push({ path: 'records', message: 'records must not be empty' });
  } else if (records.length > MAX_RECORDS) {
    issues.push({ path: 'records', message: `records has ${records.length} entries; at most ${MAX_RECORDS} are allowed` });
  } else if (known) {
    let distinct = 0;
    let nullMx = -1;
    // A set finds repeats among many records; the few most rrsets hold are compared directly, sparing it.
    const seen = records.length > FEW_RECORDS ? new Set<string>() : undefined;
    for (let i = 0; i < records.length; i++) {
      const content: unknown = records[i]?.content;
      if (typeof content !== 'string') {
        issues.push({ path: `records[${i}].content`, message: `${type} record content must be a string` });
        continue;
      }
      try {
        const c = CANONICAL[type](content);
        if (type === 'ALIAS' && c === name) throw new Problem(' is the ALIAS\'s own name; an ALIAS points at another host name');
        checkSize(zone, type, c);
        if (seen ? !seen.has(c) : !canonical.includes(c)) {
          distinct++;
          canonical.push(c);
          seen?.add(c);
        }
        if (type === 'MX' && c === '0 .') nullMx = i;
      } catch (e) {
        if (!(e instanceof Problem)) throw e;
        distinct++;
        issues.push({ path: `records[${i}].content`, message: `${type} record ${quoted(content)}${e.detail}` });
      }
    }
    if ((type === 'CNAME' || type === 'ALIAS') && distinct > 1) {
      issues.push({ path: 'records', message: `${type === 'ALIAS' ? 'an' : 'a'} ${type} rrset must have exactly one record, got ${distinct}` });
    }
    if (nullMx >= 0 && distinct > 1) {
      issues.push({ path: `records[${nullMx}].content`, message: 'MX record "0 ." is a null MX (RFC 7505) and must be the only MX record' });
    }
  }

  if (issues.length === 0 && canonical.length > 1) {
    const { worstCase, signedData } = answerBytes(zone, { name, type, ttl, records: canonical.map((content) => ({ content })) });
    const n = canonical.length;
    if (worstCase > MAX_MESSAGE_BYTES) {
      issues.push({
        path: 'records',
        message: `the ${n} records need ${worstCase} octets in an answer with room for DNSSEC signatures; one DNS message holds ${MAX_MESSAGE_BYTES}`,
      });
    } else if (signedData > MAX_MESSAGE_BYTES) {
      issues.push({
        path: 'records',
        message: `the ${n} records, each with the name "${name}", take ${signedData} octets in the form DNSSEC signs; a signer takes at most ${MAX_MESSAGE_BYTES}`,
      });
    }
  }

  if (issues.length > 0) return { issues };
  // Most rrsets hold one record, which needs no sort key.
  const sorted = canonical.length < 2 ? canonical : sortRecords(type, canonical);
  return { name, type, ttl, records: sorted.map((content) => ({ content })) };
}

/** Throws a {@link Problem} when one canonical record cannot be encoded, or cannot be answered by itself. */
function checkSize(zone: string, type: RecordType, content: string): void {
  const rdata = rdataBytes(type, content);
  if (rdata > MAX_RDATA_BYTES) throw new Problem(` is ${rdata} octets of record data; a record holds at most ${MAX_RDATA_BYTES}`);
  const answer = answerReserveBytes(zone) + recordBytes(type, content);
  if (answer > MAX_MESSAGE_BYTES) {
    const txt = type === 'TXT' ? ` (a TXT value in this zone has at most ${maxTxtValueBytes(zone)} bytes)` : '';
    throw new Problem(` needs ${answer} octets in an answer with room for DNSSEC signatures; one DNS message holds ${MAX_MESSAGE_BYTES}${txt}`);
  }
}

function pad(digits: string, width: number): string {
  return digits.length >= width ? digits : '0'.repeat(width - digits.length) + digits;
}

function expandIPv6(address: string): string {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : new Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0');
  return [...left, ...zeros, ...right].map((g) => pad(g, 4)).join(':');
}

/**
 * Sort key of a canonical record content: numbers zero-padded and IPv6 fully expanded, so that plain
 * code-unit comparison orders addresses and MX/SRV/CAA numerically (`5 b` before `10 a`); other types
 * sort by their content text.
 */
export function canonicalRecordKey(type: RecordType, content: string): string {
  switch (type) {
    case 'A':
      return content.split('.').map((o) => pad(o, 3)).join('.');
    case 'AAAA':
      return expandIPv6(content);
    case 'MX':
    case 'CAA': {
      const i = content.indexOf(' ');
      return pad(content.slice(0, i), type === 'MX' ? 5 : 3) + content.slice(i);
    }
    case 'SRV': {
      const [p = '', w = '', port = '', ...rest] = content.split(' ');
      return [pad(p, 5), pad(w, 5), pad(port, 5), ...rest].join(' ');
    }
    default:
      return isFieldType(type) ? fieldsSortKey(type, content) : content;
  }
}

const compareKeyed = ([ka, a]: [string, string], [kb, b]: [string, string]): number =>
  ka !== kb ? (ka < kb ? -1 : 1) : a < b ? -1 : a > b ? 1 : 0;

/** Total order on record contents of one type: {@link canonicalRecordKey}, then the content itself. */
export function compareRecords(type: RecordType, a: string, b: string): number {
  return compareKeyed([canonicalRecordKey(type, a), a], [canonicalRecordKey(type, b), b]);
}

/** The contents in {@link compareRecords} order, each key computed once: a key of the types of rdata.ts parses
 * the content, which a comparison sort would otherwise do n log n times. */
export function sortRecords(type: RecordType, contents: Iterable<string>): string[] {
  return [...contents].map((c): [string, string] => [canonicalRecordKey(type, c), c]).sort(compareKeyed).map(([, c]) => c);
}

/**
 * Whether putting an rrset of `newType` at a name that already holds `existingTypesAtName` breaks the
 * CNAME rule (RFC 1034 3.6.2: a CNAME owner has no other data): a CNAME joining other types, or another
 * type joining a CNAME. Replacing a CNAME with a CNAME is not a conflict. The API answers 409 `cname_conflict`.
 */
export function checkCnameConflict(existingTypesAtName: RecordType[], newType: RecordType): boolean {
  if (newType === 'CNAME') return existingTypesAtName.some((t) => t !== 'CNAME');
  return existingTypesAtName.includes('CNAME');
}

/**
 * Whether the types a name holds after a change put an ALIAS beside an A or AAAA: the ALIAS's addresses are served
 * there as the name's A and AAAA, so the name can have no others (an ALIAS beside a CNAME is the CNAME rule's). The
 * API answers 409 `alias_conflict`.
 */
export function aliasConflict(typesAtName: readonly string[]): boolean {
  return typesAtName.includes('ALIAS') && (typesAtName.includes('A') || typesAtName.includes('AAAA'));
}

/**
 * Whether the types a name holds after a change leave a DS without the NS of its delegation: a DS is the parent
 * side of a delegation (RFC 4035 2.4), which resolvers look for only where the zone cuts. Putting a DS where
 * there is no NS, or deleting the NS a DS stands beside, is refused: the API answers 409 `ds_without_delegation`.
 */
export function dsWithoutDelegation(typesAtName: readonly string[]): boolean {
  return typesAtName.includes('DS') && !typesAtName.includes('NS');
}
