/**
 * The zone model shared by the store, the API and the renderer. Names are absolute, lower case,
 * in punycode (A-labels), written without the trailing dot (`www.example.com`); the apex is the zone name.
 */
export const RECORD_TYPES = ['A', 'AAAA', 'ALIAS', 'CAA', 'CNAME', 'DS', 'HTTPS', 'MX', 'NAPTR', 'NS', 'PTR', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/**
 * One record's content in the API's form, as Cloudflare users know it:
 * - A / AAAA: the address (`192.0.2.1`, `2001:db8::1`).
 * - CNAME / NS / PTR: a host name, absolute, with or without the trailing dot.
 * - ALIAS (PowerDNS's, Cloudflare's CNAME flattening): one host name whose A and AAAA the service resolves and
 *   serves at the owner, which may be the apex (zonefiles/alias.ts). Never served as itself.
 * - MX: `<preference> <exchange>` (`10 mail.example.com`).
 * - SRV: `<priority> <weight> <port> <target>` (`10 5 5060 sip.example.com`).
 * - CAA: `<flags> <tag> "<value>"` or `<flags> <tag> <value>` (`0 issue "letsencrypt.org"`).
 * - TXT: the raw text itself, unquoted, any UTF-8; the renderer quotes, escapes and splits it.
 * - DS (only at a delegation: a name with NS, not the apex): `<key tag> <algorithm> <digest type> <digest hex>`.
 * - TLSA: `<usage> <selector> <matching type> <data hex>`; SSHFP: `<algorithm> <fingerprint type> <fingerprint hex>`.
 * - NAPTR: `<order> <preference> "<flags>" "<services>" "<regexp>" <replacement>`.
 * - HTTPS / SVCB: `<priority> <target> [<key>=<value> ...]` (RFC 9460 presentation form, e.g. `1 . alpn=h2,h3`).
 */
export interface RecordData { content: string }

export interface RRset {
  name: string;
  type: RecordType;
  ttl: number;
  records: RecordData[];
}

export interface Soa {
  /** Primary nameserver host (absolute, no trailing dot). */
  mname: string;
  /** Responsible mailbox in DNS form (`hostmaster.example.com`). */
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
  ttl: number;
}

export interface ZoneSpec {
  name: string;
  soa: Soa;
  rrsets: RRset[];
}
