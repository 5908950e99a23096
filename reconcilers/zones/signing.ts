/**
 * How a zone is signed on the way to what it asks for. DNSSEC goes off in stages, so that a delegated zone never
 * fails validation on the way: the zone stays signed and publishes CDS/CDNSKEY DELETE (RFC 8078) while the
 * parent's DS is seen through the resolver, and for the DS's TTL after it is gone (caches may hold it that long);
 * only then are the signatures removed. A DS the customer records (setZoneDS) that matches the signer's KSK is
 * confirmed to the signer, so its key rollovers can proceed.
 */
import type { Logger } from '../../lib/log';
import type { Nameserver } from '../../providers/nameserver/port';
import type { ParentDs, Resolver } from '../../providers/resolver';
import { iso } from '../../store/db';
import type { Judged } from '../../store/status';
import type { ZoneFacts, ZoneRow, ZoneStatus } from '../../store/zones';

/** How the nameserver is to sign a zone now, on the way to what the zone asks for. */
export interface SigningPlan {
  signing: 'off' | 'on' | 'delete-ds';
  /** Set when the parent's DS was looked at: seen (its TTL, now) or gone (null). */
  parentDs?: ZoneFacts['parentDs'];
  /** While on the way to off: why not off yet, and when to look again. */
  pending?: { reason: string; message: string; lastError: string | null; afterMs: number };
}

/** The parent's DS as seen now: through a caching resolver the TTL has counted down, so the largest one seen is
 * nearest the parent's own. */
export const parentDsSeen = (ds: ParentDs, before: ZoneFacts['parentDs'] | undefined, now: Date): NonNullable<ZoneFacts['parentDs']> =>
  ({ ttl: Math.max(ds.ttl, before?.ttl ?? 0), seenAt: iso(now) });

/**
 * The signing to apply now. A zone that asks for DNSSEC is signed. One that asks for none but was signed
 * (by its status, else `appliedSigned`: by what this process applied) stays signed, asking the parent to delete its DS,
 * while the parent's DS is seen and until its TTL has passed since it was last seen; a DS that cannot be looked
 * up keeps the signatures too. `watchMs`: how often the parent's DS is looked at again meanwhile.
 */
export async function signingPlan(
  d: { resolver: Resolver; now: Date; watchMs: number }, z: ZoneRow, st: ZoneStatus | undefined, appliedSigned: boolean,
): Promise<SigningPlan> {
  if (z.dnssec !== 'off') return { signing: 'on' };
  const was = st?.facts.signing ?? (appliedSigned ? 'on' : 'off');
  if (was === 'off') return { signing: 'off' };
  let ds: ParentDs | null;
  try {
    ds = d.resolver.ds ? await d.resolver.ds(z.name) : null;
  } catch (e) {
    return {
      signing: 'delete-ds',
      pending: {
        reason: 'ParentDsUnknown', lastError: `DS lookup: ${(e as Error).message}`, afterMs: d.watchMs,
        message: 'DNSSEC is turning off: the parent\'s DS could not be looked up, so the zone stays signed until it can',
      },
    };
  }
  const now = d.now.getTime();
  if (ds) {
    return {
      signing: 'delete-ds',
      parentDs: parentDsSeen(ds, st?.facts.parentDs, d.now),
      pending: {
        // A resolver answers from its cache for the DS's TTL: looking sooner than that learns nothing new.
        reason: 'WaitingForParent', lastError: null, afterMs: Math.min(d.watchMs, Math.max(1_000, ds.ttl * 1000)),
        message: 'DNSSEC is turning off: the parent still publishes a DS, so the zone stays signed and asks the parent to remove it (CDS/CDNSKEY DELETE)',
      },
    };
  }
  const seen = st?.facts.parentDs;
  const until = seen ? Date.parse(seen.seenAt) + seen.ttl * 1000 : 0;
  if (until > now) {
    return {
      signing: 'delete-ds',
      pending: {
        reason: 'WaitingForCaches', lastError: null, afterMs: until - now,
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
