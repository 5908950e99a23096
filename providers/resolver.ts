/**
 * The resolver port: how the service looks at public DNS (delegation checks, the parent's DS while DNSSEC goes
 * off, later hostname proofs). Queries go to a recursive resolver: the system's, or `--resolver`.
 */
import { getServers } from 'node:dns';
import type { RecordType } from 'dns-packet';
import { bare, dnsAsk, DnsTimeoutError, type DnsResponse, type DnsServer } from './nameserver/dns-transport';
import { parseHostPort } from './nameserver/knot-config';

/** The DS rrset a parent publishes for a zone, as a resolver sees it. */
export interface ParentDs {
  /** Records in the rrset. */
  count: number;
  /** The rrset's TTL: how long caches may still hold it once the parent removed it. */
  ttl: number;
}

export interface Resolver {
  /** The NS host names public DNS gives for `name` (lower case, no trailing dot); [] when there are none. */
  ns(name: string): Promise<string[]>;
  /** The DS rrset of `name` at its parent; null when the parent has none (NXDOMAIN or no data). Throws when
   * the answer cannot be had (no answer, SERVFAIL): "no DS" must never be guessed. */
  ds?(name: string): Promise<ParentDs | null>;
  /** The A and AAAA records `name` resolves to (through any CNAME chain), with the least TTL of the records the
   * answers took (the chain's too): the addresses of an ALIAS target. Throws ResolverError as RecordLookups do. */
  addressRecords?(name: string): Promise<AddressLookup>;
}

/** What a resolver said of the addresses of a name: its A and AAAA values and their TTL, or that there are none. */
export type AddressLookup = { kind: 'records'; a: string[]; aaaa: string[]; ttl: number } | { kind: 'nxdomain' } | { kind: 'nodata' };

/** What a resolver said of a name and type: the rrset's values, the name does not exist, or it has no such data. */
export type Lookup = { kind: 'records'; values: string[] } | { kind: 'nxdomain' } | { kind: 'nodata' };

/**
 * The record lookups of hostname ownership proofs. Each throws ResolverError when no resolver gave an answer
 * (none answered in time, SERVFAIL, REFUSED): "no such record" is never guessed from a failure.
 */
export interface RecordLookups {
  /** The TXT rrset at `name`, each record's strings joined into one value. */
  txt(name: string): Promise<Lookup>;
  /** The CNAME at `name`: its target, lower case without the trailing dot. */
  cname(name: string): Promise<Lookup>;
  /** The A and AAAA addresses `name` resolves to (through any CNAME chain). */
  addresses(name: string): Promise<Lookup>;
  /** How long one question may take, at most, over all resolvers: callers bound their waits by it. */
  readonly timeoutMs: number;
}

/** No resolver answered a question; the message says in words which and why, for the service's operators. */
export class ResolverError extends Error {
  override name = 'ResolverError';
  /** The same words with no resolver's address, for statuses tenants read: the system's resolvers sit in the
   * service's own network, which is not theirs to learn. */
  readonly unnamed: string;

  constructor(message: string, unnamed = message) {
    super(message);
    this.unnamed = unnamed;
  }
}

const QUERY_TIMEOUT_MS = 2_000;

/** `ip`, `ip:port` or `[ipv6]:port` (port 53 when left out), as `--resolver` and the system list them. */
export function parseResolverAddress(value: string): { host: string; port: number } {
  if (/^[0-9.]+$/.test(value) || /^[0-9a-fA-F:]+$/.test(value)) return { host: value, port: 53 };
  return parseHostPort(value);
}

const at = (t: DnsServer): string => (t.port === 53 ? t.host : `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`);
const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;

/**
 * Resolves through `servers` (each `ip`, `ip:port` or `[ipv6]:port`), or the system's resolvers (those of
 * /etc/resolv.conf) when none are given, asking one after another until one answers, over UDP and TCP when an
 * answer is truncated. `timeoutMs` is per resolver asked.
 */
export function systemResolver(servers: string[] = [], timeoutMs = QUERY_TIMEOUT_MS): Resolver & RecordLookups {
  const targets = (servers.length > 0 ? servers : getServers()).map(parseResolverAddress);
  const ask = async (name: string, type: RecordType): Promise<DnsResponse> => {
    // Each failure twice: naming the resolver for operators, and as "the resolver" for tenants (see ResolverError).
    const failures: { named: string; unnamed: string }[] = [];
    for (const target of targets) {
      const who = `resolver ${at(target)}`;
      try {
        const response = await dnsAsk(target, name, type, timeoutMs, { recursive: true });
        if (response.rcode === 'NOERROR' || response.rcode === 'NXDOMAIN') return response;
        const what = `answered ${response.rcode} for ${name} ${type}`;
        failures.push({ named: `${who} ${what}`, unnamed: `the resolver ${what}` });
      } catch (err) {
        const what = err instanceof DnsTimeoutError ? `did not answer in ${seconds(timeoutMs)}` : 'could not be asked';
        // The socket's error names the address, so only the operators' form carries it.
        failures.push({ named: `${who} ${what}${err instanceof DnsTimeoutError ? '' : ` (${(err as Error).message})`}`, unnamed: `the resolver ${what}` });
      }
    }
    if (failures.length === 0) throw new ResolverError('no resolver is configured');
    throw new ResolverError(failures.map((f) => f.named).join('; '), [...new Set(failures.map((f) => f.unnamed))].join('; '));
  };
  const rrset = (response: DnsResponse, name: string, type: string): { data: unknown; ttl?: number }[] =>
    (response.answers ?? []).filter((a) => a.type === type && bare(a.name) === name.toLowerCase()) as { data: unknown; ttl?: number }[];
  /** An rrset's values, or why there are none. */
  const lookup = async (name: string, type: RecordType, values: (r: DnsResponse) => string[]): Promise<Lookup> => {
    const response = await ask(name, type);
    if (response.rcode === 'NXDOMAIN') return { kind: 'nxdomain' };
    const found = values(response);
    return found.length > 0 ? { kind: 'records', values: found } : { kind: 'nodata' };
  };
  /** Every record of `type` in the answer, at the end of a CNAME chain as at the name itself. */
  const ofType = (r: DnsResponse, type: 'A' | 'AAAA'): string[] =>
    ((r.answers ?? []) as { type: string; data?: unknown }[]).filter((a) => a.type === type).map((a) => String(a.data));
  const text = (data: unknown): string => (Array.isArray(data) ? data : [data]).map((b) => (Buffer.isBuffer(b) ? b.toString('utf8') : String(b))).join('');
  return {
    timeoutMs: timeoutMs * Math.max(1, targets.length),
    async ns(name) {
      const response = await ask(name, 'NS');
      return rrset(response, name, 'NS').map((a) => bare(String(a.data)));
    },
    async ds(name) {
      const response = await ask(name, 'DS');
      const records = rrset(response, name, 'DS');
      if (records.length === 0) return null;
      return { count: records.length, ttl: Math.min(...records.map((r) => r.ttl ?? 0)) };
    },
    txt: (name) => lookup(name, 'TXT', (r) => rrset(r, name, 'TXT').map((a) => text(a.data))),
    cname: (name) => lookup(name, 'CNAME', (r) => rrset(r, name, 'CNAME').map((a) => bare(String(a.data)))),
    async addressRecords(name) {
      const [v4, v6] = await Promise.all([ask(name, 'A'), ask(name, 'AAAA')]);
      const a = ofType(v4, 'A');
      const aaaa = ofType(v6, 'AAAA');
      if (a.length === 0 && aaaa.length === 0) return v4.rcode === 'NXDOMAIN' && v6.rcode === 'NXDOMAIN' ? { kind: 'nxdomain' } : { kind: 'nodata' };
      const taken = [v4, v6].filter((r) => ofType(r, 'A').length + ofType(r, 'AAAA').length > 0).flatMap((r) => (r.answers ?? []) as { ttl?: number }[]);
      return { kind: 'records', a, aaaa, ttl: Math.min(...taken.map((r) => r.ttl ?? 0)) };
    },
    async addresses(name) {
      // A and AAAA apart (a resolver answers one type per question); the name exists if either says so.
      const [v4, v6] = await Promise.all([
        lookup(name, 'A', (r) => ofType(r, 'A')),
        lookup(name, 'AAAA', (r) => ofType(r, 'AAAA')),
      ]);
      const values = [...(v4.kind === 'records' ? v4.values : []), ...(v6.kind === 'records' ? v6.values : [])];
      if (values.length > 0) return { kind: 'records', values };
      return v4.kind === 'nxdomain' && v6.kind === 'nxdomain' ? { kind: 'nxdomain' } : { kind: 'nodata' };
    },
  };
}
