import { ALIAS_TYPE_CODE } from './alias';
import { ZoneValidationError } from './errors';
import type { RecordData, RecordType, RRset, Soa, ZoneSpec } from './model';
import { relativeName } from './names';
import { isFieldType, renderFields } from './rdata';
import { sortRecords } from './validate';

/** Longest character-string in RDATA (RFC 1035 3.3): one length octet. */
const MAX_STRING_BYTES = 255;

const LINES_PER_BATCH = 512;

/** Rrsets of one owner are written in the order of their IANA type codes (NS before MX before TXT). */
const TYPE_CODE: Record<RecordType, number> = {
  A: 1, NS: 2, CNAME: 5, PTR: 12, MX: 15, TXT: 16, AAAA: 28, SRV: 33, NAPTR: 35, DS: 43, SSHFP: 44, TLSA: 52, SVCB: 64, HTTPS: 65, CAA: 257,
  // Not an IANA type: PowerDNS's private code for it, which only orders export lines (Knot never sees ALIAS).
  ALIAS: ALIAS_TYPE_CODE,
};

// Byte -> presentation text inside a quoted string. Only `"` and `\` need a backslash (RFC 1035 5.1);
// control bytes and everything >= 0x7f become \DDD so the file is pure printable ASCII and a multi-byte
// UTF-8 character split between two strings stays exact.
const ESCAPED: string[] = Array.from({ length: 256 }, (_, b) =>
  b === 0x22 || b === 0x5c ? `\\${String.fromCharCode(b)}` : b < 0x20 || b >= 0x7f ? `\\${String(b).padStart(3, '0')}` : String.fromCharCode(b),
);
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * TXT value as one or more quoted character-strings of at most 255 bytes each, split on byte boundaries
 * of the UTF-8 encoding. The empty value is one empty string (`""`).
 */
function renderTxt(text: string): string {
  if (text.length <= MAX_STRING_BYTES && PLAIN.test(text)) return `"${text}"`;
  const bytes = Buffer.from(text, 'utf8');
  const strings: string[] = [];
  for (let start = 0; start < bytes.length; start += MAX_STRING_BYTES) {
    const end = Math.min(start + MAX_STRING_BYTES, bytes.length);
    let s = '"';
    for (let i = start; i < end; i++) s += ESCAPED[bytes[i] as number];
    strings.push(`${s}"`);
  }
  return strings.join(' ');
}

function absolute(host: string): string {
  return host.endsWith('.') ? host : `${host}.`;
}

/** Replaces the last space-separated field (the target host) with its absolute form. */
function absoluteLast(content: string): string {
  const i = content.lastIndexOf(' ');
  return content.slice(0, i + 1) + absolute(content.slice(i + 1));
}

/**
 * RDATA of one record in zone-file presentation form, for a whole-zone file or `knotc zone-set <owner>
 * <ttl> <type> <rdata>`. `content` is canonical (as {@link validateRRset} returns it): host names become
 * absolute with a trailing dot, TXT is quoted, escaped and split into 255-byte strings; A, AAAA and CAA
 * (whose canonical value is already quoted) are written as they are; the types of rdata.ts by their layout.
 */
export function renderRecordData(type: RecordType, content: string): string {
  switch (type) {
    case 'TXT':
      return renderTxt(content);
    case 'ALIAS':
    case 'CNAME':
    case 'NS':
    case 'PTR':
      return absolute(content);
    case 'MX':
    case 'SRV':
      return absoluteLast(content);
    default:
      return isFieldType(type) ? renderFields(type, content) : content;
  }
}

interface Entry {
  owner: string;
  /** Relative labels right to left, joined by NUL which sorts below every label character. */
  key: string;
  code: number;
  rrset: RRset;
}

function compareEntries(a: Entry, b: Entry): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : a.code - b.code;
}

/** Sort key of a relative owner; most owners are one label, which is its own key. */
function nameKey(owner: string): string {
  if (owner === '@') return '';
  return owner.includes('.') ? owner.split('.').reverse().join('\0') : owner;
}

function pushLines(out: string[], owner: string, rrset: RRset): void {
  const { type, records } = rrset;
  const prefix = `${owner} ${rrset.ttl} IN ${type} `;
  if (records.length === 1) {
    out.push(prefix + renderRecordData(type, (records[0] as RecordData).content));
    return;
  }
  for (const c of sortRecords(type, records.map((r) => r.content))) out.push(prefix + renderRecordData(type, c));
}

/** The rrset's record lines with the owner written absolute, as `knotc zone-set` takes them. Throws
 * {@link ZoneValidationError} for an owner outside the zone. */
export function absoluteLines(zone: string, rrset: RRset): string[] {
  const { owner } = entryOf(zone, rrset, '');
  const lines: string[] = [];
  pushLines(lines, owner, rrset);
  return lines.map((l) => `${rrset.name}.${l.slice(owner.length)}`);
}

/** Bytes the rrset's lines take in the zone file (each with its newline): what the plan's zone-size quota counts. */
export function renderedBytes(zone: string, rrset: RRset): number {
  const lines: string[] = [];
  pushLines(lines, relativeName(rrset.name, zone), rrset);
  // Lines are printable ASCII (everything else is escaped), so characters are bytes.
  return lines.reduce((n, l) => n + l.length + 1, 0);
}

const soaLine = (soa: Soa): string =>
  `@ ${soa.ttl} IN SOA ${absolute(soa.mname)} ${absolute(soa.rname)} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;

/** `head`, then the lines `linesOf` pushes for each item in order, joined in batches to keep garbage low on large
 * zones; ends with a newline. */
function emit<T>(head: string[], items: Iterable<T>, linesOf: (out: string[], item: T) => void): string {
  const chunks = [...head];
  let lines: string[] = [];
  for (const item of items) {
    linesOf(lines, item);
    if (lines.length >= LINES_PER_BATCH) {
      chunks.push(lines.join('\n'));
      lines = [];
    }
  }
  if (lines.length > 0) chunks.push(lines.join('\n'));
  chunks.push('');
  return chunks.join('\n');
}

/** The entry of one rrset; throws {@link ZoneValidationError} (at `path`) for an owner outside the zone. */
function entryOf(zone: string, rrset: RRset, path: string): Entry {
  let owner: string;
  try {
    owner = relativeName(rrset.name, zone);
  } catch (e) {
    if (!(e instanceof ZoneValidationError)) throw e;
    throw new ZoneValidationError(e.issues.map((issue) => ({ ...issue, path: `${path}${issue.path}` })));
  }
  return { rrset, owner, key: nameKey(owner), code: TYPE_CODE[rrset.type] };
}

const twoRRsets = (rrset: RRset): ZoneValidationError =>
  new ZoneValidationError([{ path: 'rrsets', message: `two rrsets for ${rrset.name} ${rrset.type}` }]);

/** How an rrset is named among a zone's rrsets (name + type): what tells a change that replaces one from one
 * that adds one. */
export const rrsetKey = (name: string, type: RecordType): string => `${name} ${type}`;

/** The SOA as an absolute record line, for an incremental change. */
export const absoluteSoaLine = (zone: string, soa: Soa): string => `${zone}.${soaLine(soa).slice(1)}`;

/**
 * The zone in RFC 1035 presentation format, byte-identical for the same rrsets in any input order.
 *
 * Layout: `$ORIGIN <zone>.`, the SOA, then one line per record: `<owner> <ttl> IN <type> <rdata>`.
 * Every line carries its TTL, so there is no `$TTL`. Owners are relative (`@` for the apex); targets are
 * absolute. Order: owners in DNS canonical order (RFC 4034 6.1, so the apex first and a parent before
 * its children), then type code, then records by compareRecords (validate.ts).
 *
 * Input is trusted to be canonical (each rrset as {@link validateRRset} returns it). Throws
 * {@link ZoneValidationError} for an owner outside the zone or two rrsets with the same name and type,
 * since either would make the output depend on the input rather than on the zone.
 */
export function renderZone(spec: ZoneSpec): string {
  const entries = spec.rrsets.map((rrset, i) => entryOf(spec.name, rrset, `rrsets[${i}].`));
  entries.sort(compareEntries);
  for (let i = 1; i < entries.length; i++) {
    if (compareEntries(entries[i - 1] as Entry, entries[i] as Entry) === 0) throw twoRRsets((entries[i] as Entry).rrset);
  }
  return emit([`$ORIGIN ${spec.name}.`, soaLine(spec.soa)], entries, (out, e) => pushLines(out, e.owner, e.rrset));
}

/**
 * The zone as an RFC 1035 master file for export: `$ORIGIN <zone>.`, the SOA, then every record of `rrsets` in
 * the order given (the API's), each line `<owner>. <ttl> IN <type> <rdata>` with the owner absolute, so that the
 * file means the same wherever it is included; records as the nameserver is given them ({@link absoluteLines}:
 * TXT split into 255-byte strings as served), an ALIAS in RFC 3597's generic form after a comment naming it. {@link
 * parseZoneFile} reads it back to the same rrsets.
 */
export function exportZoneFile(zone: string, soa: Soa, rrsets: Iterable<RRset>): string {
  return exportHead(zone, soa) + exportLines(zone, rrsets);
}

/** The lines of an export before its rrsets': `$ORIGIN` and the SOA, each with its newline. */
export const exportHead = (zone: string, soa: Soa): string => emit([`$ORIGIN ${zone}.`, absoluteSoaLine(zone, soa)], [], () => undefined);

/** RFC 3597's generic RDATA of a host name (absolute, without the trailing dot): `\# <length> <hex>` of its wire form,
 * uncompressed, labels as stored (lower case). */
function genericNameRdata(host: string): string {
  let hex = '';
  if (host !== '.') {
    for (const label of host.split('.')) hex += label.length.toString(16).padStart(2, '0') + Buffer.from(label, 'ascii').toString('hex');
  }
  hex += '00';
  return `\\# ${hex.length / 2} ${hex}`;
}

/**
 * An ALIAS's lines in an export: a comment naming its target, then the record in RFC 3597's generic form under
 * PowerDNS's type code ({@link ALIAS_TYPE_CODE}), since kzonecheck, BIND and Knot refuse a file with `ALIAS` in it;
 * parseZoneFile reads that form back as the ALIAS.
 */
function pushAliasLines(out: string[], zone: string, rrset: RRset): void {
  entryOf(zone, rrset, '');
  for (const { content } of rrset.records) {
    out.push(`; ALIAS ${absolute(content)}`, `${rrset.name}. ${rrset.ttl} IN TYPE${ALIAS_TYPE_CODE} ${genericNameRdata(content)}`);
  }
}

/** The lines of `rrsets` in an export, each with its newline ('' for none): an export streamed a page of rrsets at a
 * time is {@link exportHead} followed by the lines of each page, byte for byte {@link exportZoneFile}'s. */
export const exportLines = (zone: string, rrsets: Iterable<RRset>): string =>
  emit([], rrsets, (out, rrset) => (rrset.type === 'ALIAS' ? pushAliasLines(out, zone, rrset) : out.push(...absoluteLines(zone, rrset))));
