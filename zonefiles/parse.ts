import { ALIAS_TYPE_CODE } from './alias';
import { fileRefused, MAX_LISTED, ZoneValidationError, type Issue } from './errors';
import { RECORD_TYPES, type RecordType, type RRset, type Soa, type ZoneSpec } from './model';
import { checkName, isInZone } from './names';
import { checkRRset } from './validate';

/** U+FEFF, which some editors write at the start of a UTF-8 file: no part of the file. */
const BOM = 0xfeff;

/** The largest zone file read: 1 MiB, the API's body limit (Cloudflare takes 256 KiB). */
export const MAX_ZONE_FILE_BYTES = 1024 * 1024;

/** A record or directive that cannot be taken; caught per entry so that every bad entry is reported. */
class LineProblem {
  constructor(readonly message: string) {}
}

/**
 * One field of an entry. A field written in ASCII without quotes or escapes is its string, its text and its raw form
 * at once, with no byte above 0x7f: most fields of a file, which need no object and no look inside. Any other is a
 * {@link Written}.
 */
type Token = string | Written;

/**
 * A field with quotes, escapes or non-ASCII characters. `text` is its bytes after unescaping, one char per byte
 * (latin1): `\DDD` is one byte, `\X` is X, a non-ASCII character its UTF-8 bytes. `raw` is the field as written
 * (quotes and escapes kept), the presentation form record validation reads.
 */
interface Written { text: string; raw: string }

const rawOf = (token: Token): string => (typeof token === 'string' ? token : token.raw);
const bytesOf = (token: Token): string => (typeof token === 'string' ? token : token.text);

/** A record or directive: its fields, from the line it starts on (parentheses may carry it over several lines). */
interface Entry { line: number; blankOwner: boolean; tokens: Token[] }

const DDD = /^[0-9]{3}$/;
const HIGH_BYTE = /[\x80-\xff]/;
/** What ends an unquoted field (RFC 1035 5.1). A `"` inside one (`alpn="h2,h3"`, RFC 9460) opens a quoted part of it. */
const BARE_END = new Set([' ', '\t', '\r', '\n', ';', '(', ')']);
/** Characters that need no look inside a field: not a delimiter, quote, backslash or non-ASCII. */
const PLAIN_BARE = /[^ \t\r\n;()"\\\x80-\uffff]*/y;
const PLAIN_QUOTED = /[^"\\\n\x80-\uffff]*/y;

const NEWLINE = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const SEMICOLON = 0x3b;
const OPEN = 0x28;
const CLOSE = 0x29;
const DOLLAR = 0x24;
const BRACKET = 0x5b;
/** By ASCII code: `END` ends a bare field (the characters of {@link BARE_END}), `LOOK` needs a look inside the field
 * (a quote or a backslash), 0 is a plain character. Above 0x7f a character needs a look too. */
const END = 1;
const LOOK = 2;
const ASCII_CLASS = new Uint8Array(0x80);
for (const c of BARE_END) ASCII_CLASS[c.charCodeAt(0)] = END;
ASCII_CLASS['"'.charCodeAt(0)] = LOOK;
ASCII_CLASS['\\'.charCodeAt(0)] = LOOK;

/**
 * Splits a master file into entries (RFC 1035 5.1), each handed to `take` as it ends: `;` comments to the end of
 * the line outside quotes, parentheses join lines, a line starting with a blank has no owner (the previous one's).
 * A problem inside an entry is reported at its line and the entry dropped; reading goes on with the next line.
 * Reading stops at the end of an entry once `enough` answers true: answered is the last line read, undefined when
 * the whole file was.
 */
function entries(file: string, problem: (line: number, message: string) => void, take: (entry: Entry) => void, enough: () => boolean): number | undefined {
  let line = 1;
  let depth = 0;
  let openedAt = 0;
  // The entry being read: from its line, with `count` fields in `fields`, which is reused for every entry and copied
  // to its exact size at the end (an array pushed to from empty reserves room for 17 fields, for every line).
  let open = false;
  let entryLine = 0;
  let blankOwner = false;
  const fields: Token[] = [];
  let count = 0;
  let broken = false;
  let lineStart = true;
  let blank = false;
  const end = (): void => {
    if (open && !broken) take({ line: entryLine, blankOwner, tokens: fields.slice(0, count) });
    open = false;
    count = 0;
    broken = false;
  };
  const toLineEnd = (from: number): number => {
    const nl = file.indexOf('\n', from);
    return nl < 0 ? file.length : nl;
  };
  let i = 0;
  while (i < file.length) {
    const c = file.charCodeAt(i);
    if (lineStart && depth === 0) blank = c === SPACE || c === TAB;
    lineStart = false;
    if (c === NEWLINE) {
      if (depth === 0) {
        end();
        if (enough() && i + 1 < file.length) return line;
      }
      line++;
      i++;
      lineStart = true;
      continue;
    }
    if (c === SPACE || c === TAB || c === CR) {
      i++;
      continue;
    }
    if (c === SEMICOLON) {
      i = toLineEnd(i);
      continue;
    }
    if (c === OPEN) {
      if (depth === 0) openedAt = line;
      depth++;
      i++;
      continue;
    }
    if (c === CLOSE) {
      i++;
      if (depth === 0) {
        if (!broken) problem(line, 'a ")" closes no "("');
        broken = true;
        continue;
      }
      depth--;
      continue;
    }
    try {
      const token = readToken(file, i);
      if (!open) {
        open = true;
        entryLine = line;
        blankOwner = blank;
      }
      fields[count++] = token;
      i += rawOf(token).length;
    } catch (e) {
      if (!(e instanceof LineProblem)) throw e;
      if (!broken) problem(line, e.message);
      broken = true;
      i = toLineEnd(i);
    }
  }
  if (depth > 0) {
    problem(openedAt, 'a "(" is never closed');
    broken = true;
  }
  end();
  return undefined;
}

/** One field from `start`: bare, quoted, or bare with quoted parts; ends at a delimiter or the line's end. Its raw
 * form is `file` from `start` on. */
function readToken(file: string, start: number): Token {
  // Most fields are plain ASCII ending at a delimiter: one scan finds that, without building the text.
  let i = start;
  let c = 0;
  while (i < file.length && (c = file.charCodeAt(i)) < 0x80 && ASCII_CLASS[c] === 0) i++;
  if (i === file.length || (c < 0x80 && ASCII_CLASS[c] === END)) return file.slice(start, i);
  return readWritten(file, start);
}

/** {@link readToken} of a field with quotes, escapes or non-ASCII characters. */
function readWritten(file: string, start: number): Written {
  let i = start;
  let text = '';
  let quoted = false;
  let run = i;
  for (;;) {
    // Runs of plain characters are skipped by one sticky match, which keeps a long quoted string fast.
    const plain = quoted ? PLAIN_QUOTED : PLAIN_BARE;
    plain.lastIndex = i;
    plain.test(file);
    i = plain.lastIndex;
    const c = file[i];
    if (c === undefined || (!quoted && BARE_END.has(c))) break;
    if (c === '\n') throw new LineProblem('a quoted string is not closed');
    if (c === '"') {
      text += file.slice(run, i);
      quoted = !quoted;
      i++;
      run = i;
      continue;
    }
    if (c === '\\') {
      text += file.slice(run, i);
      const digits = file.slice(i + 1, i + 4);
      if (DDD.test(digits)) {
        const value = Number(digits);
        if (value > 255) throw new LineProblem(`escape \\${digits} is not a byte`);
        text += String.fromCharCode(value);
        i += 4;
        run = i;
        continue;
      }
      i++;
      if (i >= file.length || file[i] === '\n') throw new LineProblem('the line ends with a lone backslash');
      run = i;
    }
    if (file.charCodeAt(i) > 0x7f) {
      text += file.slice(run, i);
      const char = String.fromCodePoint(file.codePointAt(i) as number);
      text += Buffer.from(char, 'utf8').toString('latin1');
      i += char.length;
      run = i;
      continue;
    }
    i++;
  }
  if (quoted) throw new LineProblem('a quoted string is not closed');
  text += file.slice(run, i);
  return { text, raw: file.slice(start, i) };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A field's text: its bytes read as UTF-8. */
function text(token: Token | undefined): string {
  if (token === undefined) throw new LineProblem('the record has too few fields');
  if (typeof token === 'string') return token;
  if (!HIGH_BYTE.test(token.text)) return token.text;
  try {
    return utf8.decode(Buffer.from(token.text, 'latin1'));
  } catch {
    throw new LineProblem(`the text ${token.raw} is not valid UTF-8`);
  }
}

/** `field` in upper case. Types and classes are mostly written so already: they are answered as they are, which
 * spares a new string for each. */
function upperCase(field: string): string {
  for (let i = 0; i < field.length; i++) {
    const c = field.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || c > 0x7f) return field.toUpperCase();
  }
  return field;
}

const TTL_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
const TTL_FORM = /^(?:[0-9]+|(?:[0-9]+[smhdw])+)$/i;

/** A TTL in seconds, plain or with BIND's units (`1h30m`); undefined for a field that is not one. */
function ttlOf(field: string): number | undefined {
  // Every TTL starts with a digit; most fields tried as one (the class, the type) do not.
  const first = field.charCodeAt(0);
  if (!(first >= 0x30 && first <= 0x39) || !TTL_FORM.test(field)) return undefined;
  if (/^[0-9]+$/.test(field)) return Number(field);
  let seconds = 0;
  for (const [, n, unit] of field.matchAll(/([0-9]+)([smhdw])/gi)) seconds += Number(n) * (TTL_UNITS[(unit as string).toLowerCase()] as number);
  return seconds;
}

function timer(token: Token | undefined, field: string): number {
  const t = text(token);
  const n = ttlOf(t);
  if (n === undefined || n > 0xffff_ffff) throw new LineProblem(`SOA ${field} "${t}" is not a number of seconds`);
  return n;
}

/** Absolute name without trailing dot: `@` is the origin, a name without a trailing dot is relative to it. */
function nameOf(written: string, origin: string, wildcard: boolean): string {
  if (written === '.') return '.';
  // Under the root origin (`$ORIGIN .`, as BIND writes before a zone's apex) a relative name is absolute.
  const full = written === '@' ? origin : written.endsWith('.') ? written : origin === '.' ? `${written}.` : `${written}.${origin}`;
  const r = checkName(full, wildcard);
  if (!r.ok) throw new LineProblem(`name "${written}" ${r.reason}`);
  return r.name;
}

/** {@link nameOf} of a field, which must be written without escapes: an escaped dot or byte is no host name. */
function absoluteName(token: Token | undefined, origin: string, wildcard: boolean): string {
  const written = text(token);
  if (typeof token !== 'string' && (token as Written).raw.includes('\\')) throw new LineProblem(`name "${written}" has an escaped character; names here are letters, digits, "-" and "_"`);
  return nameOf(written, origin, wildcard);
}

/**
 * Which RDATA field (from 0) of a type is a domain name, written relative to `$ORIGIN` or absolute; the record
 * content the API takes has it absolute. Keyed by type name, so that the types record validation is learning
 * (RFC 9460 HTTPS and SVCB: the target; RFC 3403 NAPTR: the replacement) are read right once it knows them;
 * a type without an entry is taken as written.
 */
const NAME_FIELD: Readonly<Record<string, number>> = { ALIAS: 0, CNAME: 0, NS: 0, PTR: 0, MX: 1, SRV: 3, HTTPS: 1, SVCB: 1, NAPTR: 5 };

/**
 * A record's content in the API's form, before validation: TXT is its strings joined as bytes (a UTF-8
 * character may straddle two), every other type its fields as written, the name field made absolute.
 */
function recordContent(type: RecordType, rdata: Token[], origin: string): string {
  if (type === 'TXT') {
    if (rdata.length === 0) throw new LineProblem('TXT needs at least one string');
    return text({ text: rdata.map(bytesOf).join(''), raw: rdata.map(rawOf).join(' ') });
  }
  const at = NAME_FIELD[type];
  let content = '';
  for (let i = 0; i < rdata.length; i++) {
    const t = rdata[i] as Token;
    const field = i === at ? absoluteName(t, origin, false) : rawOf(t);
    content = i === 0 ? field : `${content} ${field}`;
  }
  return content;
}

/** How an export writes an ALIAS: RFC 3597's generic form under PowerDNS's code (render.ts). */
const GENERIC_ALIAS = `TYPE${ALIAS_TYPE_CODE}`;
const LDH_LABEL = /^[A-Za-z0-9_-]+$/;

/**
 * The target of an ALIAS written as {@link GENERIC_ALIAS} `\# <length> <hex>` (RFC 3597): the host name in wire
 * form, uncompressed, as exports write it, with a trailing dot. A label with any byte but a letter, digit, `-` or
 * `_` is refused here, since joined with dots it would read as other labels.
 */
function genericAliasTarget(rdata: Token[]): string {
  const form = `${GENERIC_ALIAS} needs RFC 3597's generic form "\\# <length> <hex>"`;
  if (rdata.length < 2 || rawOf(rdata[0] as Token) !== '\\#') throw new LineProblem(form);
  const length = rawOf(rdata[1] as Token);
  const hex = rdata.slice(2).map(rawOf).join('');
  if (!/^[0-9]+$/.test(length) || !/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new LineProblem(form);
  if (hex.length / 2 !== Number(length)) throw new LineProblem(`${GENERIC_ALIAS}: the length is ${length} but ${hex.length / 2} bytes follow`);
  const bytes = Buffer.from(hex, 'hex');
  const labels: string[] = [];
  let i = 0;
  for (let size = bytes[i]; size !== 0; size = bytes[i]) {
    if (size === undefined) throw new LineProblem(`${GENERIC_ALIAS}: the name does not end with the root label (00)`);
    if (size > 63) throw new LineProblem(`${GENERIC_ALIAS}: a label of ${size} bytes (at most 63; a compressed name is not taken)`);
    const label = bytes.subarray(i + 1, i + 1 + size).toString('latin1');
    if (label.length !== size) throw new LineProblem(`${GENERIC_ALIAS}: the name does not end with the root label (00)`);
    if (!LDH_LABEL.test(label)) throw new LineProblem(`${GENERIC_ALIAS}: the target's label ${JSON.stringify(label)} is not letters, digits, "-" and "_"`);
    labels.push(label);
    i += 1 + size;
  }
  if (i !== bytes.length - 1) throw new LineProblem(`${GENERIC_ALIAS}: ${bytes.length - 1 - i} bytes follow the target's name`);
  return labels.length === 0 ? '.' : `${labels.join('.')}.`;
}

/**
 * Types of DNSSEC, which the service signs zones with itself (a zone's own setting): a signed zone's file (Knot's
 * `zone-read`, BIND's dump) holds them, and an import ignores them as it ignores the file's SOA. A DS is not among
 * them: at a delegation it is the customer's.
 */
const DNSSEC_TYPES = new Set(['RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'DNSKEY', 'CDS', 'CDNSKEY']);

/** A type's name as written (upper case) to its constant: the rrset carries the constant, so that every later look-up
 * by type (NAME_FIELD, validation's tables) finds an interned string rather than hashing the file's copy anew. */
const KNOWN_TYPES = new Map<string, RecordType>(RECORD_TYPES.map((t) => [t, t]));
const CLASSES = new Set(['IN', 'CH', 'CS', 'HS']);

/**
 * An rrset a file holds, before validation: each record with its line; `sameOwner` links the other rrsets of its
 * name. validateRRset reads only the rrset's fields and answers a new one, so it is given this as it is.
 */
interface Gathered { name: string; type: RecordType; ttl: number; records: { content: string; line: number }[]; sameOwner: Gathered | undefined }

const lineOf = (g: Gathered, record: number): number => (g.records[record] as { line: number }).line;

/** A master file read: its rrsets validated (canonical content, as the API stores it), each with the line it starts on. */
export interface ZoneFile {
  /** The zone: the one given, else the first `$ORIGIN`. */
  origin: string;
  /** The file's SOA, if it has one. */
  soa: Soa | undefined;
  rrsets: RRset[];
  /** `lines[i]`: the line of `rrsets[i]`'s first record. */
  lines: number[];
}

/**
 * Reads an RFC 1035 master file: `$ORIGIN`, `$TTL`, `@`, relative and absolute names, an omitted owner (a
 * leading blank: the previous record's), parentheses across lines, `;` comments, quoted strings with `\"` and
 * `\DDD` escapes, TTLs with units (`1h30m`), class `IN` optional and before or after the TTL. A record without a
 * TTL takes `$TTL`, else the last TTL written (RFC 1035 5.1). `$INCLUDE` and `$GENERATE` are refused: a file
 * is read alone. Records of one name and type make one rrset whose TTL is its first record's, as BIND does
 * ("TTL set to prior TTL"). Any type record validation knows ({@link RECORD_TYPES}) is read, and each rrset is
 * validated as the API validates a write ({@link validateRRset}); rules between rrsets (CNAME) depend on what
 * the zone holds besides ({@link importChanges}). An ALIAS is also read in the generic form exports write
 * (`TYPE65401 \# ...`); a signed zone's DNSSEC records are skipped ({@link DNSSEC_TYPES}); an SOA is taken at the
 * apex only; `knotc zone-read`'s `[zone.]` line prefix is read when it names the zone.
 *
 * `zone` is the zone the file is for (its names must be in it) and the first origin; without it the file must
 * set `$ORIGIN` before any record, and the first one is the zone. At most {@link MAX_ZONE_FILE_BYTES} bytes.
 * Throws {@link ZoneValidationError} with one issue per refused entry, its path `line N` (the line the entry
 * starts on), at most 100 of them: checking stops once the first 100 are known, a refused file costing no more
 * than a good one, and the refusal says from which line the file was not checked. A leading byte order mark is
 * skipped.
 */
export function parseZoneFile(file: string, zone?: string): ZoneFile {
  const bytes = Buffer.byteLength(file, 'utf8');
  if (bytes > MAX_ZONE_FILE_BYTES) throw new ZoneValidationError([{ path: '', message: `the zone file is ${bytes} bytes; at most ${MAX_ZONE_FILE_BYTES} are read` }]);
  if (file.charCodeAt(0) === BOM) file = file.slice(1);
  const issues: Issue[] = [];
  // `issueLines[i]`: the line of `issues[i]`.
  const issueLines: number[] = [];
  const refuse = (line: number, message: string): void => {
    issues.push({ path: `line ${line}`, message });
    issueLines.push(line);
  };
  // The rrsets in the order of their first record, and by owner: keyed by the owner alone, no second string (`name
  // type`) is built and hashed per record.
  const gathered: Gathered[] = [];
  const byOwner = new Map<string, Gathered>();
  let apex = zone;
  let origin = zone;
  let defaultTtl: number | undefined;
  let lastTtl: number | undefined;
  let soa: Soa | undefined;
  let previousOwner: string | undefined;

  // The last line checked, when checking stopped before the end of the file.
  let checkedTo = entries(file, refuse, (entry) => {
    try {
      const { tokens } = entry;
      const first = text(tokens[0]);
      if (first.charCodeAt(0) === DOLLAR) {
        const directive = first.toUpperCase();
        if (directive === '$ORIGIN') {
          origin = absoluteName(tokens[1], '', false);
          apex ??= origin;
          return;
        }
        if (directive === '$TTL') {
          defaultTtl = ttlOf(text(tokens[1]));
          if (defaultTtl === undefined) throw new LineProblem(`$TTL "${text(tokens[1])}" is not a number of seconds`);
          return;
        }
        if (directive === '$INCLUDE') throw new LineProblem('$INCLUDE is not supported: put the included records in the file itself');
        if (directive === '$GENERATE') throw new LineProblem('$GENERATE is not supported: write out the records it would make');
        throw new LineProblem(`directive ${first} is not supported`);
      }
      if (origin === undefined) throw new LineProblem('a record comes before $ORIGIN');

      let owner = previousOwner;
      let field = 0;
      if (!entry.blankOwner) {
        // `knotc zone-read` starts each line with its zone in brackets: `[example.com.] www.example.com. 300 A ...`.
        if (first.charCodeAt(0) === BRACKET) {
          if (!first.endsWith(']')) throw new LineProblem(`"${first}" is neither a name nor knotc's "[zone.]" prefix`);
          const zoneOfLine = nameOf(first.slice(1, -1), '.', false);
          if (zoneOfLine !== apex) throw new LineProblem(`the line is of zone ${zoneOfLine} (its "${first}" prefix), not of ${apex}`);
          field = 1;
        }
        owner = absoluteName(tokens[field], origin, true);
        field++;
      }
      if (owner === undefined) throw new LineProblem('the first record has no owner');
      previousOwner = owner;

      // The TTL and the class, each optional, in either order.
      let ttl: number | undefined;
      for (const last = field + 2; field < last && field < tokens.length; field++) {
        const t = text(tokens[field]);
        const asTtl = ttl === undefined ? ttlOf(t) : undefined;
        if (asTtl !== undefined) {
          ttl = asTtl;
          continue;
        }
        const upper = upperCase(t);
        // IN before the set: a field read from the file is a new string, which a set look-up would hash.
        if (upper === 'IN') continue;
        if (!CLASSES.has(upper)) break;
        throw new LineProblem(`class ${upper} is not supported; the zone is of class IN`);
      }
      if (ttl !== undefined) lastTtl = ttl;
      ttl ??= defaultTtl ?? lastTtl;
      const type = upperCase(text(tokens[field]));
      const rdata = tokens.slice(field + 1);
      if (ttl === undefined) throw new LineProblem('the record has no TTL and there is no $TTL before it');

      if (type === 'SOA') {
        if (owner !== apex) throw new LineProblem(`an SOA is at the zone's apex (${apex}) only; this one is at ${owner}`);
        if (soa) throw new LineProblem('a second SOA record');
        if (rdata.length !== 7) throw new LineProblem(`SOA needs 7 fields, got ${rdata.length}`);
        const serial = text(rdata[2]);
        if (!/^[0-9]{1,10}$/.test(serial) || Number(serial) > 0xffff_ffff) throw new LineProblem(`SOA serial "${serial}" is not a 32-bit number`);
        soa = {
          mname: absoluteName(rdata[0], origin, false),
          rname: absoluteName(rdata[1], origin, false),
          serial: Number(serial),
          refresh: timer(rdata[3], 'refresh'),
          retry: timer(rdata[4], 'retry'),
          expire: timer(rdata[5], 'expire'),
          minimum: timer(rdata[6], 'minimum'),
          ttl,
        };
        return;
      }
      let recordType = KNOWN_TYPES.get(type);
      let content: string;
      if (recordType !== undefined) {
        content = recordContent(recordType, rdata, origin);
      } else if (type === GENERIC_ALIAS) {
        recordType = 'ALIAS';
        content = nameOf(genericAliasTarget(rdata), origin, false);
      } else if (DNSSEC_TYPES.has(type)) {
        if (!isInZone(owner, apex as string)) throw new LineProblem(`${owner} ${type}: name "${owner}" is not inside zone "${apex}"`);
        return;
      } else {
        throw new LineProblem(`type ${type} is not supported; the types are ${RECORD_TYPES.join(', ')} (ALIAS also as ${GENERIC_ALIAS}; SOA and DNSSEC's are ignored, the service writes them)`);
      }
      const named = byOwner.get(owner);
      let rrset = named;
      while (rrset && rrset.type !== recordType) rrset = rrset.sameOwner;
      if (rrset) {
        rrset.records.push({ content, line: entry.line });
      } else {
        const g: Gathered = { name: owner, type: recordType, ttl, records: [{ content, line: entry.line }], sameOwner: named };
        gathered.push(g);
        byOwner.set(owner, g);
      }
    } catch (e) {
      if (!(e instanceof LineProblem)) throw e;
      refuse(entry.line, e.message);
    }
  }, () => issues.length >= MAX_LISTED);

  const rrsets: RRset[] = [];
  const lines: number[] = [];
  if (apex !== undefined) {
    // An index, not for-of: this loop runs once per call, mostly before it is optimized, where an iterator costs an
    // object per rrset.
    for (let i = 0; i < gathered.length; i++) {
      const g = gathered[i] as Gathered;
      const first = lineOf(g, 0);
      // The rrsets are in the order of their first lines: every problem before this one's is known, and once those
      // are enough the rest is not checked.
      if (issues.length >= MAX_LISTED && issueLines.filter((l) => l < first).length >= MAX_LISTED) {
        checkedTo = first - 1;
        break;
      }
      const checked = checkRRset(apex, g);
      if ('issues' in checked) {
        for (const issue of checked.issues) {
          const record = /^records\[([0-9]+)\]/.exec(issue.path);
          refuse(lineOf(g, record ? Number(record[1]) : 0), `${g.name} ${g.type}: ${issue.message}`);
        }
      } else {
        rrsets.push(checked);
        lines.push(first);
      }
    }
  }

  if (issues.length > 0 || apex === undefined) {
    if (apex === undefined && issues.length === 0) issues.push({ path: '', message: 'the file has no $ORIGIN and no records' });
    if (checkedTo === undefined) throw fileRefused(issues);
    const last = checkedTo;
    throw fileRefused(issues.filter((_, i) => (issueLines[i] as number) <= last), last + 1);
  }
  return { origin: apex, soa, rrsets, lines };
}

/**
 * Reads a whole zone in the form {@link renderZone} writes (or any master file of one zone): `$ORIGIN` first,
 * exactly one SOA. See {@link parseZoneFile}.
 */
export function parseZone(file: string): ZoneSpec {
  const read = parseZoneFile(file);
  if (read.soa === undefined) throw new ZoneValidationError([{ path: '', message: 'the zone has no SOA record' }]);
  return { name: read.origin, soa: read.soa, rrsets: read.rrsets };
}
