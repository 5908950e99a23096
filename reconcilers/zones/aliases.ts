/**
 * The look at ALIAS targets: each target is asked for its A and AAAA through the resolver port (`--resolver`, or
 * the system's, which may know names only the service's own network has: so only public addresses are served, and
 * what tenants read of a failure never names a resolver) once
 * three quarters of its served TTL have passed, so its addresses are asked for again before they expire in caches;
 * a target that did not answer is asked again every {@link RETRY_MS}. A new answer is a new zone generation
 * (store/aliases.ts); a failed look keeps the last one served. The zone pass schedules the looks (`dueIn`), so
 * nothing of it runs on a timer; it starts them and never waits for them (aliasLooks): a target that never answers
 * holds a look for seconds, and the zone queue runs only a few passes at once, so one tenant's silent targets held
 * every other tenant's changes behind them.
 */
import PQueue from 'p-queue';
import type { Logger } from '../../lib/log';
import { ResolverError, type Resolver } from '../../providers/resolver';
import { recordAliasLooks, type AliasLook, type ZoneAlias } from '../../store/aliases';
import type { Store } from '../../store/db';
import type { Judged } from '../../store/status';
import { aliasAnswer } from '../../zonefiles';

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
    if (found.kind === 'nxdomain') return { error: `${target} does not exist (NXDOMAIN)` };
    if (found.kind !== 'records' || found.a.length + found.aaaa.length === 0) return { error: `${target} has no A or AAAA records` };
    const answer = aliasAnswer(found.a, found.aaaa, found.ttl);
    // Which addresses they were is left unsaid: telling them would leak what filtering them keeps in.
    if (answer.a.length + answer.aaaa.length === 0) return { error: `${target} resolves only to addresses that are not public (private, loopback, link-local and the like), which are never served` };
    return { answer };
  } catch (e) {
    if (e instanceof ResolverError) return { error: e.unnamed, detail: e.message };
    throw e;
  }
}

/** Targets asked at once, over all zones: what a tenant whose targets never answer can hold of the resolver. */
export const LOOKUPS_AT_ONCE = 16;

/**
 * The looks at ALIAS targets, beside the zone passes: at most one under way per zone, at most
 * {@link LOOKUPS_AT_ONCE} targets asked at once. What a look finds reaches the zone as a pass would have
 * recorded it (a new answer is a new generation, whose change wakes the pass), and its end asks for a pass of the
 * zone (`attach`), which says a failure in AliasResolved and schedules the next look.
 */
export function aliasLooks(d: { store: Store; resolver: Resolver; log: Logger }) {
  const lookups = new PQueue({ concurrency: LOOKUPS_AT_ONCE });
  const underWay = new Map<string, Promise<void>>();
  let pass: (zone: string) => void = () => {};
  let stopped = false;
  const lookAt = async (zone: string, a: ZoneAlias): Promise<AliasLook | undefined> => {
    if (stopped) return undefined;
    const { detail, ...look } = await lookUp(d.resolver, a.target);
    if ('error' in look) d.log.debug({ zone, name: a.name, target: a.target, err: detail ?? look.error }, 'ALIAS target did not resolve');
    return look;
  };
  /** The zone's due targets asked, what they said recorded together (store/aliases.ts recordAliasLooks). */
  const lookAll = async (zone: string, due: ZoneAlias[]): Promise<void> => {
    const found = await Promise.all(due.map((a) => lookups.add(() => lookAt(zone, a))));
    const looks = due.flatMap((a, i) => (found[i] ? [{ name: a.name, target: a.target, look: found[i] }] : []));
    if (looks.length > 0 && !stopped) await recordAliasLooks(d.store, { zone, looks, actor: ALIAS_ACTOR });
  };
  return {
    /** Starts a look at the targets of `due` in `zone`, unless one is under way there (its end passes the zone). */
    start(zone: string, due: ZoneAlias[]): void {
      if (stopped || due.length === 0 || underWay.has(zone)) return;
      const look = lookAll(zone, due).catch((e: unknown) => {
        // The store could not take it (down, or this process no longer leads): the pass finds the look still due.
        d.log.warn({ zone, err: (e as Error).message }, 'recording an ALIAS look failed');
      }).finally(() => {
        underWay.delete(zone);
        if (!stopped) pass(zone);
      });
      underWay.set(zone, look);
    },
    underWay: (zone: string): boolean => underWay.has(zone),
    /** `passOf(zone)` queues a pass of the zone, as a change of it does. */
    attach(passOf: (zone: string) => void): void {
      pass = passOf;
    },
    busy: (): boolean => underWay.size > 0,
    async onIdle(): Promise<void> {
      while (underWay.size > 0) await Promise.all(underWay.values());
    },
    /** Starts nothing more (what waits for its turn ends at once) and waits for what is asking the resolver. */
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all(underWay.values());
    },
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
