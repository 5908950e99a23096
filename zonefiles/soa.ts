import type { Soa } from './model';

/** Timers of every zone's SOA (RFC 1912 ranges); the negative-caching TTL stays short so new names appear fast. */
export const SOA_TIMERS = { refresh: 10_800, retry: 3_600, expire: 1_209_600, minimum: 300, ttl: 3_600 } as const;

/** The service-generated SOA of a zone: the first public nameserver as MNAME, `hostmaster.<zone>` as RNAME. */
export function soaFor(zone: string, serial: number, nameservers: string[]): Soa {
  return { mname: nameservers[0] ?? `ns.${zone}`, rname: `hostmaster.${zone}`, serial, ...SOA_TIMERS };
}

/** The SOA as one record content in presentation order, for API answers. */
export const soaContent = (s: Soa): string => `${s.mname} ${s.rname} ${s.serial} ${s.refresh} ${s.retry} ${s.expire} ${s.minimum}`;
