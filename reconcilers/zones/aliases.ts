/**
 * The look at ALIAS targets: each target is asked for its A and AAAA through the resolver port (`--resolver`, or
 * the system's, which may know names only the service's own network has: so only public addresses are served, and
 * what tenants read of a failure never names a resolver) once
 * three quarters of its served TTL have passed, so its addresses are asked for again before they expire in caches;
 * a target that did not answer is asked again every {@link RETRY_MS}. A new answer is a new zone generation
 * (store/aliases.ts); a failed look keeps the last one served. The zone pass schedules the looks (`dueIn`), so
 * nothing of it runs on a timer; it starts them and never waits for them (./looks.ts).
 */
import type { Logger } from '../../lib/log';
import { ResolverError, type Resolver } from '../../providers/resolver';
import { recordAliasLooks, type AliasLook, type ZoneAlias } from '../../store/aliases';
import type { Store } from '../../store/db';
import type { Judged } from '../../store/status';
import { aliasAnswer } from '../../zonefiles';
import type { Looks } from './looks';

/** A target that did not answer is asked again this often. */
export const RETRY_MS = 30_000;

/** Who writes the generation a new answer makes, in the zone's revisions. */
export const ALIAS_ACTOR = 'system:alias';

/** Milliseconds until the look at `a` is due (0 or less: due) on the store's clock `now`. */
export function dueIn(a: ZoneAlias, now: number): number {
  if (a.checkedAt === null) return 0;
  const every = a.error === null && a.answer ? a.answer.ttl * 750 : RETRY_MS;
  return Date.parse(a.checkedAt) + every - now;
}

/** What the resolver says of `target`: its addresses, or in words why there are none; `detail` is the operators'
 * words, naming the resolver, when they differ. */
export async function lookUp(resolver: Resolver, target: string): Promise<AliasLook & { detail?: string }> {
  if (!resolver.addressRecords) return { error: 'the resolver cannot be asked for addresses' };
  try {
    const found = await resolver.addressRecords(target);
    const answer = found.kind === 'records' ? aliasAnswer(found.a, found.aaaa, found.ttl) : undefined;
    // One answer for a name that does not exist, has no addresses, or only ones never served: telling them apart
    // would tell a tenant which names the resolver knows inside the service's network, and which addresses
    // filtering keeps in.
    if (!answer || answer.a.length + answer.aaaa.length === 0) {
      const seen = found.kind === 'records' ? 'only addresses that are not public' : found.kind === 'nxdomain' ? 'NXDOMAIN' : 'no A or AAAA records';
      return { error: `${target} has no public A or AAAA records (it does not exist, has none, or only private, loopback, link-local and the like, which are never served)`, detail: `${target}: ${seen}` };
    }
    return { answer };
  } catch (e) {
    if (e instanceof ResolverError) return { error: e.unnamed, detail: e.message };
    throw e;
  }
}

/**
 * The looks at ALIAS targets, in the zone's looks (./looks.ts): at most one under way per zone. What a look finds
 * reaches the zone as a pass would have recorded it (a new answer is a new generation, whose change wakes the
 * pass), and its end asks for a pass of the zone, which says a failure in AliasResolved and schedules the next look.
 */
export function aliasLooks(d: { store: Store; resolver: Resolver; log: Logger; looks: Looks }) {
  const lookAt = async (zone: string, a: ZoneAlias): Promise<AliasLook> => {
    const { detail, ...look } = await lookUp(d.resolver, a.target);
    if ('error' in look) d.log.debug({ zone, name: a.name, target: a.target, err: detail ?? look.error }, 'ALIAS target did not resolve');
    return look;
  };
  return {
    /** Starts a look at the targets of `due` in zone `z`, unless one is under way there; what they said is recorded
     * together (store/aliases.ts recordAliasLooks). */
    start(z: { name: string; orgId: number }, due: ZoneAlias[]): void {
      if (due.length === 0) return;
      const zone = z.name;
      d.looks.start('alias', z, async (ask) => {
        const found = await Promise.all(due.map((a) => ask(() => lookAt(zone, a))));
        const looks = due.flatMap((a, i) => (found[i] ? [{ name: a.name, target: a.target, look: found[i] }] : []));
        if (looks.length > 0 && !d.looks.stopped()) await recordAliasLooks(d.store, { zone, looks, actor: ALIAS_ACTOR });
      });
    },
    underWay: (zone: string): boolean => d.looks.underWay('alias', zone),
  };
}

/** The zone's AliasResolved condition; null when it has no ALIAS. */
export function aliasCondition(aliases: ZoneAlias[]): Judged | null {
  if (aliases.length === 0) return null;
  const failing = aliases.filter((a) => a.error !== null);
  const waiting = aliases.filter((a) => a.error === null && !a.answer);
  if (failing.length === 0 && waiting.length === 0) {
    return { type: 'AliasResolved', status: 'True', reason: 'Resolved', message: `every ALIAS target resolved (${aliases.map((a) => `${a.name} → ${a.target}`).join(', ')})` };
  }
  const said = [
    ...failing.map((a) => `ALIAS ${a.name} → ${a.target}: ${a.error}; ${a.answer ? `the addresses found at ${a.resolvedAt} are still served` : 'nothing is served at the name'}`),
    ...waiting.map((a) => `ALIAS ${a.name} → ${a.target} is not resolved yet; nothing is served at the name until it is`),
  ];
  return { type: 'AliasResolved', status: 'False', reason: failing.length > 0 ? 'TargetNotResolving' : 'NotResolvedYet', message: said.join('; ') };
}
