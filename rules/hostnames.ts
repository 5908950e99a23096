/**
 * Custom hostname rules (spec 4.5 rule 2): which names a project may attach, in the one form they are stored in
 * (lower case, A-labels), and where their proofs and guidance live.
 */
import { hash } from 'node:crypto';
import { isIP } from 'node:net';
import { getDomain, getPublicSuffix, parse } from 'tldts';
import { badRequest, type AppError } from '../lib/errors';
import { reservedDomains, type PlatformDomains } from './domains';
import { isInZone } from '../zonefiles';
import { checkLabelledName, type LabelledNameRule } from '../zonefiles/names';

const PSL = { allowPrivateDomains: true } as const;

/** The owner of the TXT proof: `_service-verify.<host>` (docs/api.md). */
export const VERIFY_LABEL = '_service-verify';
export const verifyName = (host: string): string => `${VERIFY_LABEL}.${host}`;

/**
 * Whether `name` is in public DNS's namespace: under a public suffix of the ICANN section of the list, and not under
 * `.arpa` (home.arpa is a home network's; the reverse names carry addresses). Only a private view answers for any
 * other name (`.internal`, `.corp`, `.local`, `.test`, `.example`), so what a resolver says of one, or points it
 * to, is never shown to a tenant: the resolver may be the system's, which knows the service's own network.
 */
export function inPublicDns(name: string): boolean {
  const bare = name.toLowerCase().replace(/\.$/, '');
  return parse(bare).isIcann === true && bare !== 'arpa' && !bare.endsWith('.arpa');
}

/** Longest hostname: `_service-verify.<host>` must still be a name of 253 characters at most. */
export const MAX_HOSTNAME_LENGTH = 253 - VERIFY_LABEL.length - 1;

/** A hostname in normalized form, or why the input is none. */
export type HostnameCheck = { ok: true; name: string } | { ok: false; reason: string };

const HOSTNAME: LabelledNameRule = {
  maxLength: MAX_HOSTNAME_LENGTH,
  tooLong: (length) => `is ${length} characters long; at most ${MAX_HOSTNAME_LENGTH}, so that ${VERIFY_LABEL}.<name> is a name`,
  oneLabel: 'has one label; a hostname has at least two (www.example.com)',
  underscore: false,
  labels: 'a hostname\'s labels are letters, digits and inner hyphens',
};

/**
 * The stored form of a hostname: lower case, Unicode labels as A-labels (`Bücher.Example.COM` →
 * `xn--bcher-kva.example.com`), no trailing dot; at least two labels of letters, digits and inner hyphens. A URL,
 * an IP literal, spaces and wildcards are no hostnames.
 */
export function checkHostname(input: string): HostnameCheck {
  const raw = input.trim() === input ? input : '';
  if (raw === '') return { ok: false, reason: input === '' ? 'is empty' : 'has spaces around it' };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) || raw.includes('/')) return { ok: false, reason: 'is a URL; give the hostname alone (www.example.com)' };
  const bare = raw.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) !== 0) return { ok: false, reason: 'is an IP address; custom hostnames are names' };
  if (raw.split('.')[0] === '*') return { ok: false, reason: 'is a wildcard; add each hostname on its own' };
  return checkLabelledName(raw, HOSTNAME);
}

/** The normalized hostname, or 400 `bad_request` saying why. */
export function normalizeCustomHostname(input: string): string {
  const r = checkHostname(input);
  if (!r.ok) throw badRequest(`hostname ${JSON.stringify(input)} ${r.reason}`);
  return r.name;
}

/**
 * Why a project cannot attach `name` (normalized), or null: a public suffix would claim every name under it;
 * the service's own domains (the app domain and below, service domains, the fallback origin's domain) are the
 * service's to route.
 */
export function hostnameRefusal(name: string, p: PlatformDomains): AppError | null {
  const reserved = reservedDomains(p).find((d) => isInZone(name, d));
  if (reserved) {
    return badRequest(`${name} ${name === reserved ? 'is' : `is under ${reserved}, which is`} a domain of this service; add a hostname of a domain you own`);
  }
  if (getPublicSuffix(name, PSL) === name) return badRequest(`${name} is a public suffix; add a hostname of a domain registered under it`);
  return null;
}

/** The default fallback origin: `edge.` + the registrable domain of the first nameserver (`ns1.hostplane.net` →
 * `edge.hostplane.net`). */
export function defaultFallbackOrigin(nameservers: string[]): string {
  const first = nameservers[0] ?? 'hostplane.net';
  return `edge.${getDomain(first, PSL) ?? first}`;
}

/**
 * The CNAME target that proves a name for one organization: a label of its own under the fallback origin
 * (`o-<16 hex>.edge.hostplane.net`), whose zone serves a wildcard to the edge. A CNAME to the origin all tenants
 * share proves only that someone pointed the name at the service, not which organization; and the service's own
 * managed CNAMEs (to the shared origin, in its zones and in resolvers' caches after a release) would prove names
 * for anyone.
 */
export const orgOrigin = (fallbackOrigin: string, orgId: number): string =>
  `o-${hash('sha256', `hostname-origin/${orgId}`, 'hex').slice(0, 16)}.${fallbackOrigin}`;
