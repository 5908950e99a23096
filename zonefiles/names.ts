import { domainToASCII, domainToUnicode } from 'node:url';
import { ZoneValidationError } from './errors';

/** Text form without the trailing dot: 253 characters is the 255-octet wire limit (RFC 1035 2.3.4). */
const MAX_NAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
// Underscore is not a host-name character (RFC 952) but owners like `_dmarc` and `_sip._tcp` need it.
const LABEL = /^[a-z0-9_-]+$/;
const BAD_LABEL_CHAR = /[^a-z0-9_-]/;
const ASCII = /^[\x00-\x7f]*$/;
const DOT = 0x2e;

/**
 * Whether `name` (without the trailing dot) is a name in the model's form already: lower-case labels of letters,
 * digits, `-` and `_`, none empty nor longer than 63, at most 253 characters. Most names read are (a zone file
 * of 40,000 owners), and for them {@link checkName} answers the name without mapping or splitting it; any other
 * name takes the full path, which also says what is wrong with it.
 */
function isModelName(name: string): boolean {
  if (name.length > MAX_NAME_LENGTH) return false;
  let label = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === DOT) {
      if (label === 0) return false;
      label = 0;
    } else if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f) {
      if (++label > MAX_LABEL_LENGTH) return false;
    } else {
      return false;
    }
  }
  return label > 0;
}

/** Result of {@link checkName}: the normalized name, or why the input is not a name. */
export type NameCheck = { ok: true; name: string } | { ok: false; reason: string };

/**
 * Non-throwing core of {@link normalizeName} for callers that collect several issues.
 * `wildcard` allows `*` as the leftmost label (owner names); host names (targets, zone names) never take it.
 * `reason` reads after the name: `name "a..b" ${reason}`.
 */
export function checkName(input: string, wildcard: boolean): NameCheck {
  let name = input.endsWith('.') ? input.slice(0, -1) : input;
  if (name === '') return { ok: false, reason: 'is empty' };
  if (isModelName(name)) return { ok: true, name };
  if (ASCII.test(name)) {
    name = name.toLowerCase();
  } else {
    // UTS 46 mapping also folds case and odd dots ("。"), which a plain toLowerCase would miss.
    name = domainToASCII(name);
    if (name === '') return { ok: false, reason: 'is not a valid internationalized domain name' };
  }
  if (name.length > MAX_NAME_LENGTH) {
    return { ok: false, reason: `is ${name.length} characters long; at most ${MAX_NAME_LENGTH} are allowed` };
  }
  const labels = name.split('.');
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as string;
    if (label === '') return { ok: false, reason: 'has an empty label' };
    if (label === '*') {
      if (!wildcard) return { ok: false, reason: 'is a host name and must not contain the wildcard "*"' };
      if (i > 0) return { ok: false, reason: 'has "*" as a label other than the leftmost one' };
      continue;
    }
    if (label.length > MAX_LABEL_LENGTH) {
      return { ok: false, reason: `has the label "${label}" of ${label.length} bytes; at most ${MAX_LABEL_LENGTH} are allowed` };
    }
    if (!LABEL.test(label)) {
      const bad = BAD_LABEL_CHAR.exec(label)?.[0];
      return { ok: false, reason: `contains ${JSON.stringify(bad)}; only letters, digits, "-" and "_" are allowed` };
    }
  }
  return { ok: true, name };
}

// A host-name label (RFC 952/1123): letters, digits and inner hyphens.
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
// A service label (RFC 8552) such as `_domainkey`: an underscore, then an LDH label.
const UNDERSCORE_LABEL = /^_[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** What a name of two labels or more is, besides a host name: the zone names here, custom hostnames in rules/hostnames.ts. */
export interface LabelledNameRule {
  maxLength: number;
  /** The reason for a name of `length` characters, more than `maxLength`. */
  tooLong: (length: number) => string;
  /** The reason for a name of one label. */
  oneLabel: string;
  /** Whether a label other than the last may be an underscore label (RFC 8552), like `_domainkey`. */
  underscore: boolean;
  /** What labels are, in the reason for one that is not LDH. */
  labels: string;
}

/** Why `label` cannot be a label of a name of `rule`, or null. `last`: the top-level label. */
function labelProblem(label: string, last: boolean, rule: LabelledNameRule): string | null {
  if (rule.underscore && UNDERSCORE_LABEL.test(label)) return last ? `ends in the label "${label}"; a top-level label has no underscore` : null;
  if (!LDH_LABEL.test(label)) return `has the label "${label}"; ${rule.labels}`;
  // RFC 5891 4.2.3.1: hyphens in the third and fourth position are reserved for A-labels ("xn--"), and an
  // A-label must be the exact punycode of a valid IDNA name, or resolvers and browsers disagree on the name.
  if (label.slice(2, 4) === '--') {
    const unicode = label.startsWith('xn--') ? domainToUnicode(label) : '';
    if (unicode === '' || unicode === label || domainToASCII(unicode) !== label) {
      return `has the label "${label}", which is not a valid internationalized (punycode "xn--") label`;
    }
  }
  if (last && /^[0-9]+$/.test(label)) return `ends in the all-numeric label "${label}"; top-level labels are never numeric`;
  return null;
}

/**
 * A host name (by {@link checkName}, normalized alike) of at least two labels and at most `rule.maxLength`
 * characters, each label LDH (or an underscore label other than the last, when the rule allows them), A-labels
 * valid punycode, the last label not numeric.
 */
export function checkLabelledName(input: string, rule: LabelledNameRule): NameCheck {
  const r = checkName(input, false);
  if (!r.ok) return r;
  if (r.name.length > rule.maxLength) return { ok: false, reason: rule.tooLong(r.name.length) };
  const labels = r.name.split('.');
  if (labels.length < 2) return { ok: false, reason: rule.oneLabel };
  for (let i = 0; i < labels.length; i++) {
    const problem = labelProblem(labels[i] as string, i === labels.length - 1, rule);
    if (problem) return { ok: false, reason: problem };
  }
  return r;
}

/**
 * Longest zone name: the SOA's RNAME `hostmaster.<zone>` must fit the 253 characters of a name, and the zone
 * file `<zone>.zone`, with the prefix and suffix of its temporary name while it is written, the 255 bytes of a
 * file name.
 */
export const MAX_ZONE_NAME_LENGTH = 232;

const ZONE_NAME: LabelledNameRule = {
  maxLength: MAX_ZONE_NAME_LENGTH,
  tooLong: (length) => `is ${length} characters long; a zone name has at most ${MAX_ZONE_NAME_LENGTH}`,
  oneLabel: 'has one label; a zone name needs at least two (example.com)',
  underscore: true,
  labels: 'a zone name\'s labels are letters, digits and inner hyphens (or "_" then those, like "_domainkey")',
};

/**
 * The rule every zone name meets, at the API and in the nameserver's configuration alike, so that any zone
 * the API accepts is one knotd serves: a host name of at least two labels and at most
 * {@link MAX_ZONE_NAME_LENGTH} characters, each label LDH or an underscore label (not the last), A-labels valid
 * punycode, the last label not numeric. Normalized like {@link normalizeHostname}.
 */
export function checkZoneName(input: string): NameCheck {
  return checkLabelledName(input, ZONE_NAME);
}

/** Whether `name` is a zone name in normalized form: what the nameserver's configuration may hold. */
export function isZoneName(name: string): boolean {
  const r = checkZoneName(name);
  return r.ok && r.name === name;
}

function normalized(input: string, wildcard: boolean): string {
  const r = checkName(input, wildcard);
  if (!r.ok) throw new ZoneValidationError([{ path: 'name', message: `name ${JSON.stringify(input)} ${r.reason}` }]);
  return r.name;
}

/**
 * Normalizes an owner name to the model's form: lower case, A-labels (punycode), no trailing dot.
 * Accepts `*` as the leftmost label. Throws {@link ZoneValidationError} (path `name`) when the input
 * has an empty label, a label over 63 bytes, more than 253 characters, or a character other than
 * letters, digits, `-` and `_`.
 */
export function normalizeName(input: string): string {
  return normalized(input, true);
}

/** Like {@link normalizeName} for host names (record targets, existing zones' names): the wildcard label is rejected. */
export function normalizeHostname(input: string): string {
  return normalized(input, false);
}

/** Whether the normalized `name` is the normalized `zone` itself or below it. */
export function isInZone(name: string, zone: string): boolean {
  return name === zone || (name.length > zone.length && name.endsWith(zone) && name[name.length - zone.length - 1] === '.');
}

/**
 * `name` relative to `zone` as written in a zone file: `@` for the apex, `www` for `www.example.com`.
 * Throws {@link ZoneValidationError} when the name is outside the zone.
 */
export function relativeName(name: string, zone: string): string {
  if (name === zone) return '@';
  if (!isInZone(name, zone)) throw outsideZone(name, zone);
  return name.slice(0, name.length - zone.length - 1);
}

/**
 * Resolves the `{name}` path parameter of an rrset route: `@` is the apex, anything else is an absolute
 * name normalized by {@link normalizeName}. `zone` must already be normalized. Throws
 * {@link ZoneValidationError} (path `name`) for an invalid name or one outside the zone.
 */
export function resolveOwner(pathName: string, zone: string): string {
  if (pathName === '@') return zone;
  const name = normalizeName(pathName);
  if (!isInZone(name, zone)) throw outsideZone(name, zone);
  return name;
}

function outsideZone(name: string, zone: string): ZoneValidationError {
  return new ZoneValidationError([{ path: 'name', message: `name "${name}" is not inside zone "${zone}"` }]);
}

/** Normalizes a new zone's name by {@link checkZoneName}; throws {@link ZoneValidationError} (path `name`). */
export function normalizeZoneName(input: string): string {
  const r = checkZoneName(input);
  if (!r.ok) throw new ZoneValidationError([{ path: 'name', message: `zone name ${JSON.stringify(input)} ${r.reason}` }]);
  return r.name;
}
