/**
 * What public DNS says of a zone at its parent: whether it is delegated to the service's nameservers (the
 * `delegated` fact), and, for a signed zone, the DS the parent publishes (`parentDs`), so that turning DNSSEC off
 * later knows how long caches may hold it. Slow public-DNS lookups: a pass that applied nothing starts them beside
 * the passes (./looks.ts) and the next pass records what they found, so a parent that never answers holds no pass.
 */
import type { Logger } from '../../lib/log';
import type { Resolver } from '../../providers/resolver';
import type { ZoneFacts, ZoneRow, ZoneStatus } from '../../store/zones';
import { parentDsSeen } from './signing';

/** The facts the parent's answers give; a lookup that fails leaves its fact as it was. */
export async function lookAtParent(
  d: { resolver: Resolver; nameservers: string[]; log: Logger; now: Date }, z: ZoneRow, st: ZoneStatus | undefined,
): Promise<Partial<ZoneFacts>> {
  const ours = new Set(d.nameservers);
  const [ns, ds] = await Promise.allSettled([
    d.resolver.ns(z.name),
    z.dnssec !== 'off' && d.resolver.ds ? d.resolver.ds(z.name) : Promise.resolve(undefined),
  ]);
  const facts: Partial<ZoneFacts> = {};
  if (ns.status === 'fulfilled') facts.delegated = ns.value.length > 0 && ns.value.every((h) => ours.has(h));
  else d.log.debug({ zone: z.name, err: (ns.reason as Error).message }, 'delegation lookup failed');
  if (ds.status === 'rejected') d.log.debug({ zone: z.name, err: (ds.reason as Error).message }, 'DS lookup failed');
  else if (ds.value !== undefined) facts.parentDs = ds.value && parentDsSeen(ds.value, st?.facts.parentDs, d.now);
  return facts;
}
