/**
 * The zone reconciler: makes the nameserver serve exactly the stored zone. Renders the zone from the store,
 * hands it to the nameserver (which writes the file atomically and reloads only that zone), reads back the
 * served serial and the signer's DS values, and records them with the generation it converged.
 */
import type { Logger } from '../core/log';
import { StaleSerialError, type Nameserver } from '../core/nameserver/port';
import type { Resolver } from '../core/resolver';
import { iso, type Store } from '../store/db';
import {
  allZoneNames, dropZoneStatus, raiseSerial, recordDelegation, recordZoneStatus, zoneByName, zoneRRsets, zoneStatusOf,
} from '../store/zones';
import { renderZone } from '../zonefiles';
import { soaFor } from '../zonefiles/soa';
import type { Reconciler, Result } from './types';

export interface ZoneReconcilerDeps {
  store: Store;
  nameserver: Nameserver;
  resolver: Resolver;
  /** The public nameservers: the zone's NS and SOA MNAME, and what a delegation must point to. */
  nameservers: string[];
  log: Logger;
  /** How long a delegation answer is trusted before it is looked up again. */
  delegationTtlMs?: number;
}

/** Periodic drift check for a converged zone. */
const RESYNC_MS = 10 * 60_000;
/** A freshly signed zone has no keys for a moment; look for its DS values again soon. */
const DS_POLL_MS = 2_000;

export function zoneReconciler(d: ZoneReconcilerDeps): Reconciler {
  /** What this process last made the nameserver serve, per zone, as `generation:serial`: a zone deleted and
   * created again restarts its generation, never its serial together with the same generation and content. */
  const applied = new Map<string, string>();
  const checkedAt = new Map<string, number>();

  /** Delegation is a slow public-DNS lookup: it runs beside the apply path and records its fact when done. */
  const refreshDelegation = (zone: string): void => {
    const at = checkedAt.get(zone);
    if (at !== undefined && Date.now() - at < (d.delegationTtlMs ?? RESYNC_MS)) return;
    checkedAt.set(zone, Date.now());
    const ours = new Set(d.nameservers);
    d.resolver.ns(zone)
      .then((ns) => recordDelegation(d.store, zone, ns.length > 0 && ns.every((h) => ours.has(h))))
      .catch((e: Error) => d.log.debug({ zone, err: e.message }, 'delegation lookup failed'));
  };

  const notRunning = (why: string | null): string => `nameserver not running: ${why ?? 'not started'}`;

  return {
    kind: 'zone',
    keys: () => allZoneNames(d.store),
    async reconcile(name): Promise<Result> {
      const z = await zoneByName(d.store, name);
      if (!z) {
        await d.nameserver.removeZone(name);
        applied.delete(name);
        checkedAt.delete(name);
        await dropZoneStatus(d.store, name);
        return {};
      }
      const prev = await zoneStatusOf(d.store, name);
      const version = `${z.generation}:${z.serial}`;
      if (applied.get(name) !== version) {
        try {
          const text = renderZone({ name, soa: soaFor(name, z.serial, d.nameservers), rrsets: await zoneRRsets(d.store, name) });
          await d.nameserver.applyZone(name, text, { dnssec: z.dnssec !== 'off' });
        } catch (e) {
          if (e instanceof StaleSerialError) {
            // The signer moved the served serial past ours; ours must rise above it, never go back.
            await raiseSerial(d.store, name, e.served);
            return { requeueAfterMs: 0 };
          }
          const health = d.nameserver.health();
          await recordZoneStatus(d.store, name, {
            observedGeneration: prev?.observedGeneration ?? 0,
            servedSerial: prev?.servedSerial ?? null,
            dsObserved: prev?.dsObserved ?? null,
            delegated: prev?.delegated ?? null,
            lastError: health.running ? (e as Error).message : notRunning(health.lastError),
            reconciledAt: iso(d.store.clock()),
          });
          throw e;
        }
        applied.set(name, version);
      }
      const signed = z.dnssec !== 'off';
      const [servedSerial, ds] = await Promise.all([d.nameserver.servedSerial(name), signed ? d.nameserver.ds(name) : []]);
      const health = d.nameserver.health();
      await recordZoneStatus(d.store, name, {
        observedGeneration: z.generation,
        servedSerial,
        lastError: health.running ? null : notRunning(health.lastError),
        reconciledAt: iso(d.store.clock()),
        dsObserved: ds,
        delegated: prev?.delegated ?? null,
      });
      refreshDelegation(name);
      return { requeueAfterMs: signed && ds.length === 0 ? DS_POLL_MS : RESYNC_MS };
    },
  };
}
