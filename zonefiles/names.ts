import { domainToASCII } from 'node:url';
import { ZoneValidationError } from './errors';

/** Text form without the trailing dot: 253 characters is the 255-octet wire limit (RFC 1035 2.3.4). */
const MAX_NAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
// Underscore is not a host-name character (RFC 952) but owners like `_dmarc` and `_sip._tcp` need it.
const LABEL = /^[a-z0-9_-]+$/;
const BAD_LABEL_CHAR = /[^a-z0-9_-]/;
const ASCII = /^[\x00-\x7f]*$/;

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

/** Like {@link normalizeName} for host names (record targets, zone names): the wildcard label is rejected. */
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
