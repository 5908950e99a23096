/**
 * How a zone is signed on the way to what it asks for. DNSSEC goes off in stages, so that a delegated zone never
 * fails validation on the way: the zone stays signed and publishes CDS/CDNSKEY DELETE (RFC 8078) while the
 * parent's DS is seen through the resolver, and for the DS's TTL after it is gone (caches may hold it that long);
 * only then are the signatures removed. A DS the customer records (setZoneDS) that matches the signer's KSK is
 * confirmed to the signer, so its key rollovers can proceed.
 */
import type { Logger } from '../../lib/log';
import type { Nameserver } from '../../providers/nameserver/port';
import { ResolverError, type ParentDs, type Resolver } from '../../providers/resolver';
import { iso } from '../../store/db';
import type { Judged } from '../../store/status';
import type { ZoneFacts, ZoneRow, ZoneStatus } from '../../store/zones';

/** How the nameserver is to sign a zone now, on the way to what the zone asks for. */
export interface SigningPlan {
  signing: 'off' | 'on' | 'delete-ds';
  /** Set when a look at the parent's DS found it: seen (its TTL, when) or gone (null). */
  parentDs?: ZoneFacts['parentDs'];
  /** While on the way to off: why not off yet, and when (on the store's clock, ms) the parent's DS is to be looked
   * at again; at or before now: a look is due. */
  pending?: { reason: string; message: string; lastError: string | null; lookAt: number };
}

/** What a look at the parent's DS found, asked at `at`: the DS (null: none), or why it could not be looked up. */
export type DsLook = { at: number } & ({ ds: ParentDs | null } | { error: string });

/** Asks the resolver for the parent's DS of `zone`; `at` is when it was asked. */
export async function lookAtDs(resolver: Resolver, zone: string, at: number): Promise<DsLook> {
  try {
    return { at, ds: resolver.ds ? await resolver.ds(zone) : null };
  } catch (e) {
    // The tenant reads it (lastError): not the address of the service's own resolver.
    return { at, error: e instanceof ResolverError ? e.unnamed : (e as Error).message };
  }
}

/** The parent's DS as seen now: through a caching resolver the TTL has counted down, so the largest one seen is
 * nearest the parent's own. */
export const parentDsSeen = (ds: ParentDs, before: ZoneFacts['parentDs'] | undefined, now: Date): NonNullable<ZoneFacts['parentDs']> =>
  ({ ttl: Math.max(ds.ttl, before?.ttl ?? 0), seenAt: iso(now) });

/**
 * The signing to apply now. A zone that asks for DNSSEC is signed. One that asks for none but was signed
 * (by its status, else `appliedSigned`: by what this process applied) stays signed, asking the parent to delete its DS,
 * while the parent's DS is seen and until its TTL has passed since it was last seen; a DS that cannot be looked
 * up, or whose look has not answered yet (`found`: the last look since DNSSEC went off), keeps the signatures too,
 * and unsigning takes a look that found the DS gone once those caches may have dropped it. `watchMs`: how often
 * the parent's DS is looked at again meanwhile.
 */
export function signingPlan(
  d: { now: Date; watchMs: number }, z: ZoneRow, st: ZoneStatus | undefined, appliedSigned: boolean, found: DsLook | undefined,
): SigningPlan {
  if (z.dnssec !== 'off') return { signing: 'on' };
  const was = st?.facts.signing ?? (appliedSigned ? 'on' : 'off');
  if (was === 'off') return { signing: 'off' };
  const now = d.now.getTime();
  if (!found) {
    return {
      signing: 'delete-ds',
      pending: {
        reason: 'ParentDsUnknown', lastError: null, lookAt: now,
        message: 'DNSSEC is turning off: the parent\'s DS is being looked up, and the zone stays signed until it is known',
      },
    };
  }
  if ('error' in found) {
    return {
      signing: 'delete-ds',
      pending: {
        reason: 'ParentDsUnknown', lastError: `DS lookup: ${found.error}`, lookAt: found.at + d.watchMs,
        message: 'DNSSEC is turning off: the parent\'s DS could not be looked up, so the zone stays signed until it can',
      },
    };
  }
  if (found.ds) {
    return {
      signing: 'delete-ds',
      parentDs: parentDsSeen(found.ds, st?.facts.parentDs, new Date(found.at)),
      pending: {
        // A resolver answers from its cache for the DS's TTL: looking sooner than that learns nothing new.
        reason: 'WaitingForParent', lastError: null, lookAt: found.at + Math.min(d.watchMs, Math.max(1_000, found.ds.ttl * 1000)),
        message: 'DNSSEC is turning off: the parent still publishes a DS, so the zone stays signed and asks the parent to remove it (CDS/CDNSKEY DELETE)',
      },
    };
  }
  const seen = st?.facts.parentDs;
  const until = seen ? Date.parse(seen.seenAt) + seen.ttl * 1000 : 0;
  // Gone is trusted only as seen once caches may have dropped it: a look from before then asks again.
  if (until > found.at) {
    return {
      signing: 'delete-ds',
      pending: {
        reason: 'WaitingForCaches', lastError: null, lookAt: until,
        message: `DNSSEC is turning off: the parent's DS is gone, and the zone stays signed until caches drop it (TTL ${seen!.ttl} s, until ${iso(new Date(until))})`,
      },
    };
  }
  return { signing: 'off', parentDs: null };
}

/** The Signed condition of a zone served at `signing` whose signer reports `signerDs`; null when DNSSEC is off
 * and done (the condition is dropped). */
export function signedCondition(z: ZoneRow, signing: SigningPlan['signing'], signerDs: ZoneFacts['signerDs']): Judged | null {
  if (z.dnssec === 'off') {
    return signing === 'delete-ds'
      ? { type: 'Signed', status: 'True', reason: 'DeletingDs', message: 'DNSSEC is turning off: still signed, publishing CDS/CDNSKEY DELETE for the parent' }
      : null;
  }
  return signerDs.length > 0
    ? { type: 'Signed', status: 'True', reason: 'KeysPublished', message: 'the zone is signed; signerDs holds the DS values for the parent' }
    : { type: 'Signed', status: 'False', reason: 'KeysPending', message: 'the signer has no keys for the zone yet' };
}

/** Tells the signer that the parent publishes a DS for its KSK, once per key, when the customer recorded it.
 * Answers the fact to record; a refusal is tried again on the next pass. */
export async function confirmDs(
  d: { nameserver: Nameserver; log: Logger }, z: ZoneRow, st: ZoneStatus | undefined, signerDs: ZoneFacts['signerDs'],
): Promise<Partial<ZoneFacts>> {
  if (z.dnssec !== 'ds_pending' || !d.nameserver.confirmDs) return {};
  const same = (a: ZoneFacts['signerDs'][number], b: ZoneFacts['signerDs'][number]): boolean =>
    a.keyTag === b.keyTag && a.algorithm === b.algorithm && a.digestType === b.digestType && a.digest.toUpperCase() === b.digest.toUpperCase();
  const match = signerDs.find((s) => z.ds.some((r) => same(r, s)));
  if (!match || st?.facts.dsConfirmedKeyTag === match.keyTag) return {};
  try {
    await d.nameserver.confirmDs(z.name);
    return { dsConfirmedKeyTag: match.keyTag };
  } catch (e) {
    d.log.warn({ zone: z.name, err: (e as Error).message }, 'could not confirm the DS to the signer; trying again on the next pass');
    return {};
  }
}
