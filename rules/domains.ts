/** Which names a tenant may not take as a zone: the platform's own domains and public suffixes. */
import { domainToASCII } from 'node:url';
import { getDomain, getPublicSuffix } from 'tldts';
import { isInZone } from '../zonefiles';

/** How far ahead registries let a registration run (ICANN's 10 years): a renewal past it is refused. */
export const MAX_TERM_YEARS = 10;

// The Public Suffix List's private section too: `github.io` is as much a shared suffix as `co.uk`.
const PSL = { allowPrivateDomains: true } as const;

export interface PlatformDomains {
  /** Default hostnames live under it (`<project>.<appDomain>`). */
  appDomain: string;
  /** The public nameservers; their registrable domain is the platform's. */
  nameservers: string[];
  /** Further domains the service itself uses (`--service-domains`). */
  serviceDomains: string[];
}

/** The domains at or under which only the operator creates zones (normalized, deduplicated). */
export function reservedDomains(p: PlatformDomains): string[] {
  const ns = p.nameservers.map((h) => getDomain(h, PSL) ?? h);
  // In the form zone names are stored in (punycode, lower case), however the operator wrote them.
  return [...new Set([p.appDomain, ...ns, ...p.serviceDomains].map((d) => domainToASCII(d.replace(/\.$/, '')) || d.toLowerCase()))];
}

/** Why a tenant cannot create the zone `name` (normalized by `normalizeZoneName`), or null when it can. */
export function zoneNameRefusal(name: string, p: PlatformDomains): string | null {
  const domains = reservedDomains(p);
  const reserved = domains.find((d) => isInZone(name, d));
  if (reserved) {
    const where = name === reserved ? `${name} is` : `${name} is under ${reserved},`;
    return `${where} a domain this service uses itself; create a zone for a domain you own`;
  }
  // A zone above one would answer for it (its records, or a delegation away), and the operator's zone there
  // could not be created any more.
  const below = domains.find((d) => isInZone(d, name));
  if (below) return `${name} holds ${below}, a domain this service uses itself; create a zone for a domain you own`;
  if (getPublicSuffix(name, PSL) === name) return `${name} is a public suffix; create a zone for a domain registered under it`;
  return null;
}
