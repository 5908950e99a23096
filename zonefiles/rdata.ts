/**
 * The record types described field by field (DS, HTTPS, NAPTR, SSHFP, SVCB, TLSA): one layout per type drives
 * their validation, canonical form, zone-file text, wire size and sort key, so that a type is added by
 * describing it once. Content is the zone-file presentation form (RFC 1035 5.1, RFC 9460 2.1) with names
 * written like every other type's: absolute, lower case, without the trailing dot.
 */
import { ipv4, ipv6 } from './addresses';
import { RecordProblem } from './errors';
import type { RecordType } from './model';
import { checkName } from './names';

export type FieldType = Extract<RecordType, 'DS' | 'HTTPS' | 'NAPTR' | 'SSHFP' | 'SVCB' | 'TLSA'>;

type Field =
  | { kind: 'int'; name: string; max: 255 | 65535; allowed?: readonly number[] }
  /** A character-string (RFC 1035 3.3), written quoted; `upper` when it compares case-insensitively. */
  | { kind: 'string'; name: string; upper?: true }
  /** A host name, or `.`. */
  | { kind: 'name'; name: string }
  /** Hexadecimal data: the rest of the fields, which may split it with blanks. */
  | { kind: 'hex'; name: string }
  /** RFC 9460 SvcParams: the rest of the fields. */
  | { kind: 'params' };

/** SvcParamKeys (RFC 9460 14.3.2), index = key number; the canonical form lists params in this order. */
const SVC_KEYS = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint'] as const;
type SvcKey = (typeof SVC_KEYS)[number];
interface SvcParam { key: SvcKey; values: string[] }

type Value = number | string | SvcParam[];

interface Layout {
  fields: Field[];
  /** Rules between fields, on the values in field order. */
  check?: (values: Value[]) => void;
}

const hexBytes = (hex: Value | undefined): number => (hex as string).length / 2;

/** Hex data that must be `lengths[selector]` bytes when that selector has a fixed length. */
function digestLength(what: string, selector: number, lengths: Record<number, [string, number]>, hex: Value | undefined): void {
  const fixed = lengths[selector];
  if (fixed && hexBytes(hex) !== fixed[1]) throw new RecordProblem(`: ${what} is ${hexBytes(hex)} bytes; ${fixed[0]} needs ${fixed[1]}`);
}

const svcb: Layout = {
  fields: [{ kind: 'int', name: 'priority', max: 65535 }, { kind: 'name', name: 'target' }, { kind: 'params' }],
  check([priority, , params]) {
    if (priority === 0 && (params as SvcParam[]).length > 0) throw new RecordProblem(': priority 0 is AliasMode (RFC 9460 2.4.2), which takes no SvcParams');
  },
};

const LAYOUTS: Record<FieldType, Layout> = {
  DS: {
    fields: [
      { kind: 'int', name: 'key tag', max: 65535 },
      { kind: 'int', name: 'algorithm', max: 255 },
      { kind: 'int', name: 'digest type', max: 255, allowed: [1, 2, 4] },
      { kind: 'hex', name: 'digest' },
    ],
    check: ([, algorithm, type, digest]) => {
      if (algorithm === 0) throw new RecordProblem(': algorithm 0 is reserved');
      digestLength('digest', type as number, { 1: ['digest type 1 (SHA-1)', 20], 2: ['digest type 2 (SHA-256)', 32], 4: ['digest type 4 (SHA-384)', 48] }, digest);
    },
  },
  HTTPS: svcb,
  NAPTR: {
    fields: [
      { kind: 'int', name: 'order', max: 65535 },
      { kind: 'int', name: 'preference', max: 65535 },
      { kind: 'string', name: 'flags', upper: true },
      { kind: 'string', name: 'services' },
      { kind: 'string', name: 'regexp' },
      { kind: 'name', name: 'replacement' },
    ],
    check: ([, , flags, , regexp, replacement]) => {
      if (!/^[A-Z0-9]*$/.test(flags as string)) throw new RecordProblem(`: flags "${flags as string}" must be letters or digits (RFC 3403 4.1)`);
      if (regexp !== '' && replacement !== '.') throw new RecordProblem(': regexp and replacement exclude each other (RFC 3403 4.1): one must be "" or "."');
    },
  },
  SSHFP: {
    fields: [
      { kind: 'int', name: 'algorithm', max: 255, allowed: [1, 2, 3, 4, 6] },
      { kind: 'int', name: 'fingerprint type', max: 255, allowed: [1, 2] },
      { kind: 'hex', name: 'fingerprint' },
    ],
    check: ([, type, fingerprint]) =>
      digestLength('fingerprint', type as number, { 1: ['fingerprint type 1 (SHA-1)', 20], 2: ['fingerprint type 2 (SHA-256)', 32] }, fingerprint),
  },
  SVCB: svcb,
  TLSA: {
    fields: [
      { kind: 'int', name: 'usage', max: 255, allowed: [0, 1, 2, 3] },
      { kind: 'int', name: 'selector', max: 255, allowed: [0, 1] },
      { kind: 'int', name: 'matching type', max: 255, allowed: [0, 1, 2] },
      { kind: 'hex', name: 'data' },
    ],
    check: ([, , type, data]) =>
      digestLength('data', type as number, { 1: ['matching type 1 (SHA-256)', 32], 2: ['matching type 2 (SHA-512)', 64] }, data),
  },
};

export const isFieldType = (type: RecordType): type is FieldType => Object.hasOwn(LAYOUTS, type);

const shape = (type: FieldType): string =>
  LAYOUTS[type].fields.map((f) => (f.kind === 'params' ? '[<key>=<value> ...]' : `<${f.name}>`)).join(' ');

/**
 * Splits content into fields at blanks outside double quotes. Quotes may open anywhere in a field
 * (`alpn="h2,h3"`) and are removed; `\X` is X and `\DDD` the byte DDD, as in a zone file.
 */
function splitFields(content: string): string[] {
  // Most contents quote and escape nothing; render, size and sort parse every record again.
  if (!/["\\]/.test(content)) return content.split(/\s+/).filter((f) => f !== '');
  const out: string[] = [];
  let i = 0;
  while (i < content.length) {
    if (/\s/.test(content[i] as string)) {
      i++;
      continue;
    }
    let text = '';
    let inQuotes = false;
    for (; i < content.length && (inQuotes || !/\s/.test(content[i] as string)); i++) {
      const c = content[i] as string;
      if (c === '"') {
        inQuotes = !inQuotes;
      } else if (c === '\\') {
        const ddd = /^[0-9]{3}/.exec(content.slice(i + 1, i + 4))?.[0];
        if (ddd !== undefined && Number(ddd) <= 255) {
          text += String.fromCharCode(Number(ddd));
          i += 3;
        } else if (i + 1 < content.length) {
          text += content[++i];
        } else {
          throw new RecordProblem(' ends with a lone backslash');
        }
      } else {
        text += c;
      }
    }
    if (inQuotes) throw new RecordProblem(' has an opening quote but no closing one');
    out.push(text);
  }
  return out;
}

function integer(text: string, f: Extract<Field, { kind: 'int' }>): number {
  const n = /^[0-9]{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(n <= f.max)) throw new RecordProblem(`: ${f.name} "${text}" must be an integer 0-${f.max}`);
  if (f.allowed && !f.allowed.includes(n)) throw new RecordProblem(`: ${f.name} "${text}" must be one of ${f.allowed.join(', ')}`);
  return n;
}

function hostOrRoot(text: string, field: string): string {
  if (text === '.') return '.';
  const r = checkName(text, false);
  if (!r.ok) throw new RecordProblem(`: ${field} "${text}" ${r.reason}`);
  return r.name;
}

/** A protocol id (RFC 7301) as registered: kept to characters every zone-file reader takes unquoted. */
const ALPN_ID = /^[A-Za-z0-9._/+-]{1,255}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function svcValues(key: SvcKey, value: string | undefined): string[] {
  if (key === 'no-default-alpn') {
    if (value !== undefined) throw new RecordProblem(': no-default-alpn takes no value');
    return [];
  }
  if (value === undefined || value === '') throw new RecordProblem(`: ${key} needs a value`);
  // A value list is split at its commas once the field's own escapes are gone (RFC 9460 appendix A.1, as Knot and BIND
  // read it): `alpn=h2\,x` is the two ids h2 and x. A backslash left is an item's own escape, `alpn=h2\\,x` the one
  // id "h2,x", which no value here can hold: refused by name rather than split into a broken item.
  if (value.includes('\\')) {
    throw new RecordProblem(`: ${key} value "${value}" escapes a comma or backslash inside one item (RFC 9460 appendix A.1), which no ${key} value here holds; items are separated by bare commas`);
  }
  const list = value.split(',');
  const each = (valid: (v: string) => string | undefined, what: string) =>
    list.map((v) => {
      const c = valid(v);
      if (c === undefined) throw new RecordProblem(`: ${key} value "${v}" is not ${what}`);
      return c;
    });
  switch (key) {
    case 'mandatory': {
      const keys = each((v) => ((SVC_KEYS as readonly string[]).includes(v) && v !== 'mandatory' ? v : undefined), `a key other than mandatory (${SVC_KEYS.slice(1).join(', ')})`);
      if (new Set(keys).size !== keys.length) throw new RecordProblem(': mandatory lists a key twice');
      return keys.sort((a, b) => SVC_KEYS.indexOf(a as SvcKey) - SVC_KEYS.indexOf(b as SvcKey));
    }
    case 'alpn':
      return each((v) => (ALPN_ID.test(v) ? v : undefined), 'a protocol id (letters, digits and . _ / + -)');
    case 'port':
      return [String(integer(value, { kind: 'int', name: 'port', max: 65535 }))];
    case 'ipv4hint':
      return each(ipv4, 'an IPv4 address');
    case 'ipv6hint':
      return each(ipv6, 'an IPv6 address');
    case 'ech':
      if (!BASE64.test(value)) throw new RecordProblem(`: ech value "${value}" is not base64`);
      return [value];
  }
}

function svcParams(texts: string[]): SvcParam[] {
  const params = texts.map((text): SvcParam => {
    const eq = text.indexOf('=');
    const key = (eq < 0 ? text : text.slice(0, eq)).toLowerCase();
    if (!(SVC_KEYS as readonly string[]).includes(key)) throw new RecordProblem(`: SvcParam key "${key}" is not one of ${SVC_KEYS.join(', ')}`);
    return { key: key as SvcKey, values: svcValues(key as SvcKey, eq < 0 ? undefined : text.slice(eq + 1)) };
  });
  const keys = new Set(params.map((p) => p.key));
  if (keys.size !== params.length) throw new RecordProblem(': a SvcParam key appears twice');
  for (const k of params.find((p) => p.key === 'mandatory')?.values ?? []) {
    if (!keys.has(k as SvcKey)) throw new RecordProblem(`: mandatory lists ${k}, which the record does not have`);
  }
  if (keys.has('no-default-alpn') && !keys.has('alpn')) throw new RecordProblem(': no-default-alpn needs alpn (RFC 9460 7.1.1)');
  return params.sort((a, b) => SVC_KEYS.indexOf(a.key) - SVC_KEYS.indexOf(b.key));
}

/** The values of a content of `type`, in field order; throws a {@link RecordProblem}. */
function parse(type: FieldType, content: string): Value[] {
  const { fields, check } = LAYOUTS[type];
  const texts = splitFields(content);
  const rest = fields[fields.length - 1]?.kind;
  const fixed = rest === 'hex' || rest === 'params' ? fields.length - 1 : fields.length;
  if (texts.length < (rest === 'hex' ? fixed + 1 : fixed) || (fixed === fields.length && texts.length !== fixed)) {
    throw new RecordProblem(` must be "${shape(type)}"`);
  }
  const values = fields.map((f, i): Value => {
    const text = texts[i] as string;
    switch (f.kind) {
      case 'int':
        return integer(text, f);
      case 'string':
        if (!/^[\x20-\x7e]{0,255}$/.test(text)) throw new RecordProblem(`: ${f.name} must be at most 255 characters of printable ASCII`);
        return f.upper ? text.toUpperCase() : text;
      case 'name':
        return hostOrRoot(text, f.name);
      case 'hex': {
        const hex = texts.slice(i).join('');
        if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) throw new RecordProblem(`: ${f.name} must be hexadecimal digits, two per byte`);
        return hex.toUpperCase();
      }
      case 'params':
        return svcParams(texts.slice(i));
    }
  });
  check?.(values);
  return values;
}

const quote = (text: string): string => `"${text.replace(/["\\]/g, '\\$&')}"`;

function format(type: FieldType, values: Value[], f: { absolute?: boolean; padded?: boolean }): string {
  return LAYOUTS[type].fields.map((field, i) => {
    const v = values[i] as Value;
    switch (field.kind) {
      case 'int':
        return f.padded ? String(v).padStart(5, '0') : String(v);
      case 'string':
        return quote(v as string);
      case 'name':
        return f.absolute && v !== '.' ? `${v as string}.` : (v as string);
      case 'hex':
        return v as string;
      case 'params':
        return (v as SvcParam[]).map((p) => (p.key === 'no-default-alpn' ? p.key : `${p.key}=${p.values.join(',')}`)).join(' ');
    }
  }).filter((t) => t !== '').join(' ');
}

/** The canonical content (numbers without leading zeros, names normalized, hex upper case, SvcParams and the
 * mandatory list in key order, strings quoted); throws a {@link RecordProblem}. */
export const canonicalFields = (type: FieldType, content: string): string => format(type, parse(type, content), {});

/** Zone-file RDATA of a canonical content: names absolute. */
export const renderFields = (type: FieldType, content: string): string => format(type, parse(type, content), { absolute: true });

/** Sort key of a canonical content: numbers zero-padded, so that code-unit order is numeric. */
export const fieldsSortKey = (type: FieldType, content: string): string => format(type, parse(type, content), { padded: true });

const SVC_VALUE_BYTES: Record<SvcKey, (values: string[]) => number> = {
  mandatory: (v) => 2 * v.length,
  alpn: (v) => v.reduce((n, id) => n + 1 + id.length, 0),
  'no-default-alpn': () => 0,
  port: () => 2,
  ipv4hint: (v) => 4 * v.length,
  ech: (v) => Buffer.from(v[0] as string, 'base64').length,
  ipv6hint: (v) => 16 * v.length,
};

/** RDLENGTH of a canonical content, names uncompressed. */
export function fieldsRdataBytes(type: FieldType, content: string): number {
  const values = parse(type, content);
  return LAYOUTS[type].fields.reduce((n, f, i) => {
    const v = values[i] as Value;
    switch (f.kind) {
      case 'int':
        return n + (f.max === 255 ? 1 : 2);
      case 'string':
        return n + 1 + (v as string).length;
      case 'name':
        return n + (v === '.' ? 1 : (v as string).length + 2);
      case 'hex':
        return n + hexBytes(v);
      case 'params':
        return n + (v as SvcParam[]).reduce((m, p) => m + 4 + SVC_VALUE_BYTES[p.key](p.values), 0);
    }
  }, 0);
}
