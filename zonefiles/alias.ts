/**
 * ALIAS rrsets: a name whose A and AAAA are those of another host name, at the apex too, where a CNAME cannot be
 * (PowerDNS's ALIAS, Cloudflare's CNAME flattening). The nameserver knows no ALIAS, so it is given the target's
 * addresses as plain A and AAAA rrsets at the ALIAS's name, which it signs as any other. Who resolves the target
 * and when is the zone reconciler's (reconcilers/zones/aliases.ts); here is only what an answer becomes.
 */
import { ipv4, ipv6 } from './addresses';
import type { RecordType, RRset } from './model';
import { sortRecords } from './validate';

/** The longest TTL the addresses are served with, and so the longest they may be out of date by (five minutes). */
export const ALIAS_MAX_TTL = 300;
/** The shortest: a target answering with TTL 0 would otherwise have its zone re-resolved and re-served constantly. */
export const ALIAS_MIN_TTL = 30;
/** Addresses of each family served at most: a target answering with hundreds must not fill the zone. */
export const MAX_ALIAS_ADDRESSES = 16;
/** ALIAS rrsets in one zone at most: each costs two questions to the resolver every few minutes, for good. */
export const MAX_ALIASES_PER_ZONE = 25;

/** A target's addresses as served: canonical, sorted, at most {@link MAX_ALIAS_ADDRESSES} a family; `ttl` the
 * served TTL. */
export interface AliasAnswer { a: string[]; aaaa: string[]; ttl: number }

/** The served TTL of an answer whose records had `targetTtl` (the least of them). */
export const aliasTtl = (targetTtl: number): number => Math.min(ALIAS_MAX_TTL, Math.max(ALIAS_MIN_TTL, Math.floor(targetTtl)));

function family(values: readonly string[], canonical: (v: string) => string | undefined, type: RecordType): string[] {
  const valid = new Set(values.flatMap((v) => canonical(v) ?? []));
  return sortRecords(type, valid).slice(0, MAX_ALIAS_ADDRESSES);
}

/** What a resolver's A and AAAA values become once served: what is not an address dropped, duplicates merged, the
 * first {@link MAX_ALIAS_ADDRESSES} of each family in address order kept (so a large rrset is cut the same way on
 * every look, and its order alone never makes a new zone generation). */
export function aliasAnswer(a: readonly string[], aaaa: readonly string[], targetTtl: number): AliasAnswer {
  return { a: family(a, ipv4, 'A'), aaaa: family(aaaa, ipv6, 'AAAA'), ttl: aliasTtl(targetTtl) };
}

export const sameAnswer = (x: AliasAnswer, y: AliasAnswer): boolean =>
  x.ttl === y.ttl && x.a.join() === y.a.join() && x.aaaa.join() === y.aaaa.join();

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
