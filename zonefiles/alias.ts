/**
 * ALIAS rrsets: a name whose A and AAAA are those of another host name, at the apex too, where a CNAME cannot be
 * (PowerDNS's ALIAS, Cloudflare's CNAME flattening). The nameserver knows no ALIAS, so it is given the target's
 * addresses as plain A and AAAA rrsets at the ALIAS's name, which it signs as any other. Who resolves the target
 * and when is the zone reconciler's (reconcilers/zones/aliases.ts); here is only what an answer becomes.
 */
import { BlockList } from 'node:net';
import { ipv4, ipv6 } from './addresses';
import type { RecordType, RRset } from './model';
import { sortRecords } from './validate';

/** PowerDNS's type code for ALIAS, from the private-use range (RFC 6895): a zone file writes an ALIAS in RFC 3597's
 * generic form under it (`TYPE65401 \# <length> <hex>`), which every checker and nameserver takes as an unknown type
 * where `ALIAS` is refused. */
export const ALIAS_TYPE_CODE = 65401;

/** The longest TTL the addresses are served with, and so the longest they may be out of date by (five minutes). */
export const ALIAS_MAX_TTL = 300;
/** The shortest: a target answering with TTL 0 would otherwise have its zone re-resolved and re-served constantly. */
export const ALIAS_MIN_TTL = 30;
/**
 * A zone's ALIAS answers make a new generation at most once per this many seconds (five minutes, as the served TTL's
 * cap): a target whose addresses rotate at every query (TTL 1, a new set each time) otherwise made a generation, a
 * serial, a revision kept for 90 days, a nameserver transaction and a NOTIFY at every look, every 22.5 s per ALIAS.
 */
export const ALIAS_MIN_CHANGE = 300;
/** Addresses of each family served at most: a target answering with hundreds must not fill the zone. */
export const MAX_ALIAS_ADDRESSES = 16;
/** ALIAS rrsets in one zone at most: each costs two questions to the resolver every few minutes, for good. */
export const MAX_ALIASES_PER_ZONE = 25;

/** A target's addresses as served: canonical, sorted, at most {@link MAX_ALIAS_ADDRESSES} a family; `ttl` the
 * served TTL. */
export interface AliasAnswer { a: string[]; aaaa: string[]; ttl: number }

/** The served TTL of an answer whose records had `targetTtl` (the least of them). */
export const aliasTtl = (targetTtl: number): number => Math.min(ALIAS_MAX_TTL, Math.max(ALIAS_MIN_TTL, Math.floor(targetTtl)));

/**
 * Addresses never served for an ALIAS, as CNAME-flattening providers refuse them: the resolver may be the system's,
 * which knows the service's own network, and an ALIAS to `db.corp.internal.` or `localhost.` must not publish what
 * it finds there. The documentation ranges stay allowed: nothing routes them, and they are what examples use.
 */
const NOT_PUBLIC = (() => {
  const list = new BlockList();
  for (const [net, bits] of [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ] as const) list.addSubnet(net, bits, 'ipv4');
  // IPv4 rules cover the IPv4-mapped forms (::ffff:10.0.0.1) too: BlockList checks those against them; the other
  // forms that carry an IPv4 address are judged by it (embeddedIpv4). NAT64's prefixes go whole, whatever address
  // they carry: a DNS64 resolver makes 64:ff9b::10.0.0.5 of an internal name's A, and such an address means
  // something only inside a NAT64 network anyway.
  for (const [net, bits] of [
    ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
    // Teredo carries its IPv4 addresses obfuscated (and is gone from use); benchmarking, ORCHID (both versions) and
    // SRv6 segment identifiers route nowhere on the Internet.
    ['2001::', 32], ['2001:2::', 48], ['2001:10::', 28], ['2001:20::', 28], ['5f00::', 16],
  ] as const) {
    list.addSubnet(net, bits, 'ipv6');
  }
  return list;
})();

/** The eight 16-bit groups of a canonical IPv6 address (RFC 5952: hexadecimal groups, one `::` at most). */
function groupsOf(v6: string): number[] {
  const [head, tail] = v6.split('::') as [string, string | undefined];
  const part = (text: string | undefined): number[] => (text ? text.split(':').map((g) => parseInt(g, 16)) : []);
  const before = part(head);
  const after = part(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/**
 * The IPv4 address an IPv6 one carries where a host reaching it ends up at that IPv4 address, or undefined: the
 * IPv4-compatible form (::/96, ::a9fe:a9fe), the IPv4-translated one (::ffff:0:0:0/96, RFC 2765) and 6to4
 * (2002::/16, the address in the next 32 bits). An internal A record must not come back through one of them.
 */
function embeddedIpv4(v6: string): string | undefined {
  const g = groupsOf(v6);
  const quad = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (g[0] === 0x2002) return quad(g[1]!, g[2]!);
  const zeros = g.slice(0, 4).every((x) => x === 0);
  if (zeros && ((g[4] === 0 && g[5] === 0) || (g[4] === 0xffff && g[5] === 0))) return quad(g[6]!, g[7]!);
  return undefined;
}

/** Whether `address` (canonical, of `type` A or AAAA) may be served as an ALIAS's: globally routable, or a
 * documentation address; an IPv6 address carrying an IPv4 one, only if that one may be too. */
function publicAddress(address: string, type: 'A' | 'AAAA'): boolean {
  if (type === 'A') return !NOT_PUBLIC.check(address, 'ipv4');
  const inside = embeddedIpv4(address);
  return !NOT_PUBLIC.check(address, 'ipv6') && (inside === undefined || !NOT_PUBLIC.check(inside, 'ipv4'));
}

/** Whether `text`, an IPv4 or IPv6 address in any spelling, is public as an ALIAS's addresses must be (above);
 * what is no address is not. What tenants read of a custom hostname echoes only such addresses. */
export function isPublicAddress(text: string): boolean {
  const v4 = ipv4(text);
  if (v4 !== undefined) return publicAddress(v4, 'A');
  const v6 = ipv6(text);
  return v6 !== undefined && publicAddress(v6, 'AAAA');
}

function family(values: readonly string[], canonical: (v: string) => string | undefined, type: 'A' | 'AAAA'): string[] {
  const valid = new Set(values.flatMap((v) => canonical(v) ?? []).filter((v) => publicAddress(v, type)));
  return sortRecords(type, valid).slice(0, MAX_ALIAS_ADDRESSES);
}

/** What a resolver's A and AAAA values become once served: what is not a public address dropped, duplicates merged, the
 * first {@link MAX_ALIAS_ADDRESSES} of each family in address order kept (so a large rrset is cut the same way on
 * every look, and its order alone never makes a new zone generation). */
export function aliasAnswer(a: readonly string[], aaaa: readonly string[], targetTtl: number): AliasAnswer {
  return { a: family(a, ipv4, 'A'), aaaa: family(aaaa, ipv6, 'AAAA'), ttl: aliasTtl(targetTtl) };
}

const sameSet = (x: readonly string[], y: readonly string[]): boolean => x.length === y.length && x.every((v) => y.includes(v));

/** Whether two answers serve the same: the same TTL and address sets, in whatever order. */
export const sameAnswer = (x: AliasAnswer, y: AliasAnswer): boolean => x.ttl === y.ttl && sameSet(x.a, y.a) && sameSet(x.aaaa, y.aaaa);

/** The types an rrset is served as: an ALIAS as its name's A and AAAA, any other as itself. */
export const servedTypes = (type: RecordType): RecordType[] => (type === 'ALIAS' ? ['A', 'AAAA'] : [type]);

/**
 * The rrsets as the nameserver is given them: each ALIAS replaced by an A and an AAAA rrset of its target's last
 * answer (`answerOf` its name), the family the answer has none of left out, and nothing at all at a name whose
 * target has not been resolved yet. Other rrsets pass unchanged and in order.
 */
export function servedRRsets(rrsets: Iterable<RRset>, answerOf: (name: string) => AliasAnswer | undefined): RRset[] {
  const out: RRset[] = [];
  for (const r of rrsets) {
    if (r.type !== 'ALIAS') {
      out.push(r);
      continue;
    }
    const answer = answerOf(r.name);
    if (!answer) continue;
    if (answer.a.length > 0) out.push({ name: r.name, type: 'A', ttl: answer.ttl, records: answer.a.map((content) => ({ content })) });
    if (answer.aaaa.length > 0) out.push({ name: r.name, type: 'AAAA', ttl: answer.ttl, records: answer.aaaa.map((content) => ({ content })) });
  }
  return out;
}
