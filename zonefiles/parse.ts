import { ZoneValidationError, type Issue } from './errors';
import { RECORD_TYPES, type RecordType, type RRset, type Soa, type ZoneSpec } from './model';
import { checkName } from './names';
import { zoneFileFields } from './rdata';

/** A line that cannot be read; caught per line so that every bad line is reported. */
class LineProblem {
  constructor(readonly message: string) {}
}

const SPACE = /[ \t]/;
const DDD = /^[0-9]{3}$/;
const HIGH_BYTE = /[\x80-\xff]/;

function isDelimiter(c: string, quoted: boolean): boolean {
  return quoted ? c === '"' : c === ' ' || c === '\t' || c === ';' || c === '"';
}

/**
 * Splits one line into tokens (RFC 1035 5.1): quoted or bare, `;` starts a comment. A token is a byte
 * string, one char per byte (latin1), after unescaping: `\DDD` is one byte, `\X` is X, and a non-ASCII
 * character is its UTF-8 bytes. Runs of plain characters are copied as slices, which keeps large files fast.
 */
function tokenize(line: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i] as string;
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    if (c === ';') break;
    const quoted = c === '"';
    if (quoted) i++;
    let token = '';
    let run = i;
    for (;;) {
      if (i >= line.length) {
        if (quoted) throw new LineProblem('a quoted string is not closed');
        break;
      }
      const d = line[i] as string;
      if (isDelimiter(d, quoted)) break;
      if (d === '\\') {
        token += line.slice(run, i);
        const digits = line.slice(i + 1, i + 4);
        if (DDD.test(digits)) {
          const value = Number(digits);
          if (value > 255) throw new LineProblem(`escape \\${digits} is not a byte`);
          token += String.fromCharCode(value);
          i += 4;
          run = i;
          continue;
        }
        i++;
        if (i >= line.length) throw new LineProblem('the line ends with a lone backslash');
        run = i;
      }
      if (line.charCodeAt(i) > 0x7f) {
        token += line.slice(run, i);
        const char = String.fromCodePoint(line.codePointAt(i) as number);
        token += Buffer.from(char, 'utf8').toString('latin1');
        i += char.length;
        run = i;
        continue;
      }
      i++;
    }
    token += line.slice(run, i);
    if (quoted) i++;
    tokens.push(token);
  }
  return tokens;
}

/** A token's text: its bytes read as UTF-8. */
function text(token: string | undefined): string {
  if (token === undefined) throw new LineProblem('the record has too few fields');
  return HIGH_BYTE.test(token) ? Buffer.from(token, 'latin1').toString('utf8') : token;
}

function integer(token: string | undefined, field: string): number {
  const t = text(token);
  if (!/^[0-9]+$/.test(t)) throw new LineProblem(`${field} "${t}" is not a number`);
  return Number(t);
}

/** Absolute name without trailing dot: `@` is the origin, a name without a trailing dot is relative to it. */
function absoluteName(written: string, origin: string, wildcard: boolean): string {
  if (written === '.') return '.';
  const full = written === '@' ? origin : written.endsWith('.') ? written : `${written}.${origin}`;
  const r = checkName(full, wildcard);
  if (!r.ok) throw new LineProblem(`name "${written}" ${r.reason}`);
  return r.name;
}

function recordContent(type: RecordType, rdata: string[], origin: string): string {
  const host = (token: string | undefined) => absoluteName(text(token), origin, false);
  const arity = (n: number) => {
    if (rdata.length !== n) throw new LineProblem(`${type} needs ${n} rdata fields, got ${rdata.length}`);
  };
  switch (type) {
    case 'A':
    case 'AAAA':
      arity(1);
      return text(rdata[0]);
    case 'CNAME':
    case 'NS':
    case 'PTR':
      arity(1);
      return host(rdata[0]);
    case 'MX':
      arity(2);
      return `${text(rdata[0])} ${host(rdata[1])}`;
    case 'SRV':
      arity(4);
      return `${text(rdata[0])} ${text(rdata[1])} ${text(rdata[2])} ${host(rdata[3])}`;
    case 'CAA':
      arity(3);
      return `${text(rdata[0])} ${text(rdata[1]).toLowerCase()} "${text(rdata[2])}"`;
    case 'TXT':
      if (rdata.length === 0) throw new LineProblem('TXT needs at least one string');
      // Pieces are joined as bytes: a UTF-8 character may straddle two of them.
      return text(rdata.join(''));
    default:
      return zoneFileFields(type, rdata.map(text), (t) => absoluteName(t, origin, false));
  }
}

/**
 * Reads a zone file in the form {@link renderZone} writes, back into a ZoneSpec (rrsets in file order).
 * Understands `$ORIGIN`, `$TTL`, comments, `@`, relative and absolute names, an omitted owner (leading
 * blank: the previous owner), an optional `IN`, multi-string TXT with `\DDD` escapes. Parentheses and
 * `$INCLUDE` are not supported: one record per line. Content is not validated (see {@link validateRRset}).
 * Throws {@link ZoneValidationError} with one issue per bad line (path `line N`).
 */
export function parseZone(zoneText: string): ZoneSpec {
  const issues: Issue[] = [];
  const rrsets = new Map<string, RRset>();
  let origin: string | undefined;
  let defaultTtl: number | undefined;
  let soa: Soa | undefined;
  let previousOwner: string | undefined;

  zoneText.split(/\r?\n/).forEach((line, index) => {
    try {
      const tokens = tokenize(line);
      if (tokens.length === 0) return;
      const first = text(tokens[0]);
      if (first === '$ORIGIN') {
        origin = absoluteName(text(tokens[1]), '', false);
        return;
      }
      if (first === '$TTL') {
        defaultTtl = integer(tokens[1], 'TTL');
        return;
      }
      if (first.startsWith('$')) throw new LineProblem(`directive ${first} is not supported`);
      if (origin === undefined) throw new LineProblem('a record comes before $ORIGIN');

      let rest = tokens;
      let owner = previousOwner;
      if (!SPACE.test(line[0] as string)) {
        owner = absoluteName(first, origin, true);
        rest = tokens.slice(1);
      }
      if (owner === undefined) throw new LineProblem('the first record has no owner');
      previousOwner = owner;

      let ttl = defaultTtl;
      let field = 0;
      for (; field < 2 && field < rest.length; field++) {
        const t = text(rest[field]);
        if (/^[0-9]+$/.test(t)) ttl = Number(t);
        else if (t.toUpperCase() !== 'IN') break;
      }
      const type = text(rest[field]).toUpperCase();
      const rdata = rest.slice(field + 1);
      if (ttl === undefined) throw new LineProblem('the record has no TTL and there is no $TTL');

      if (type === 'SOA') {
        if (soa) throw new LineProblem('a second SOA record');
        if (rdata.length !== 7) throw new LineProblem(`SOA needs 7 rdata fields, got ${rdata.length}`);
        soa = {
          mname: absoluteName(text(rdata[0]), origin, false),
          rname: absoluteName(text(rdata[1]), origin, false),
          serial: integer(rdata[2], 'serial'),
          refresh: integer(rdata[3], 'refresh'),
          retry: integer(rdata[4], 'retry'),
          expire: integer(rdata[5], 'expire'),
          minimum: integer(rdata[6], 'minimum'),
          ttl,
        };
        return;
      }
      if (!(RECORD_TYPES as readonly string[]).includes(type)) throw new LineProblem(`type ${type} is not supported`);
      const recordType = type as RecordType;
      const content = recordContent(recordType, rdata, origin);
      const key = `${owner} ${recordType}`;
      const rrset = rrsets.get(key);
      if (!rrset) {
        rrsets.set(key, { name: owner, type: recordType, ttl, records: [{ content }] });
      } else if (rrset.ttl !== ttl) {
        throw new LineProblem(`TTL ${ttl} differs from ${rrset.ttl} of the other ${owner} ${recordType} records`);
      } else {
        rrset.records.push({ content });
      }
    } catch (e) {
      if (!(e instanceof LineProblem)) throw e;
      issues.push({ path: `line ${index + 1}`, message: e.message });
    }
  });

  if (origin === undefined) issues.push({ path: '', message: 'the zone has no $ORIGIN' });
  if (soa === undefined) issues.push({ path: '', message: 'the zone has no SOA record' });
  if (issues.length > 0 || origin === undefined || soa === undefined) throw new ZoneValidationError(issues);
  return { name: origin, soa, rrsets: [...rrsets.values()] };
}
