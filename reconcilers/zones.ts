/**
 * The zone reconciler: makes the nameserver serve exactly the stored zone. It keeps each zone rendered in
 * memory (a ZoneImage) together with the generation it reflects. A large zone whose image is current but for
 * a few rrsets gets only those re-read, re-rendered and sent as one incremental transaction; any other case
 * (first sight, a small zone, signing toggled, the fast path refused) renders the whole zone from the store
 * and has the nameserver load it. Then it reads back the served serial and the signer's DS values and records
 * them with the generation it converged.
 */
import type { Logger } from '../core/log';
import { StaleSerialError, type Nameserver, type ZoneChanges } from '../core/nameserver/port';
import type { Resolver } from '../core/resolver';
import { iso, type Store } from '../store/db';
import {
  allZoneNames, dropZoneStatus, raiseSerial, recordDelegation, recordZoneStatus, zoneByName, zoneChangesSince, zoneSnapshot,
  zoneStatusOf, type ZoneRow,
} from '../store/zones';
import { ZoneImage } from '../zonefiles';
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
  /** Zones with at least this many rrsets take the incremental path: below it a whole reload is faster
   * than the nameserver's transaction (measured with Knot: 13 ms against 35 ms at 1,000 rrsets). */
  incrementalFrom?: number;
  /** More changed rrsets than this at once load the whole zone instead. */
  maxIncremental?: number;
}

/** Periodic drift check for a converged zone. */
const RESYNC_MS = 10 * 60_000;
/** A freshly signed zone has no keys for a moment; look for its DS values again soon. */
const DS_POLL_MS = 2_000;

interface Served {
  image: ZoneImage;
  /** Identifies one life of the zone: a zone deleted and created again starts over. */
  createdAt: string;
  generation: number;
  serial: number;
  dnssec: boolean;
}

export function zoneReconciler(d: ZoneReconcilerDeps): Reconciler {
  const served = new Map<string, Served>();
  const checkedAt = new Map<string, number>();
  const incrementalFrom = d.incrementalFrom ?? 5_000;
  const maxIncremental = d.maxIncremental ?? 40;

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

  const remember = (z: ZoneRow, image: ZoneImage): void => {
    served.set(z.name, { image, createdAt: z.createdAt, generation: z.generation, serial: z.serial, dnssec: z.dnssec !== 'off' });
  };

  /** The whole zone from the store, loaded by the nameserver. */
  const applyWhole = async (name: string): Promise<ZoneRow | undefined> => {
    const snap = await zoneSnapshot(d.store, name);
    if (!snap) return undefined;
    const image = new ZoneImage(name, snap.rrsets);
    await d.nameserver.applyZone(name, image.text(soaFor(name, snap.zone.serial, d.nameservers)), { dnssec: snap.zone.dnssec !== 'off' });
    remember(snap.zone, image);
    return snap.zone;
  };

  /** Only what changed since the served generation, as one nameserver transaction. Undefined when the fast
   * path does not apply; the caller then loads the whole zone. */
  const applyIncrement = async (name: string, prev: Served): Promise<ZoneRow | undefined> => {
    const apply = d.nameserver.applyChanges?.bind(d.nameserver);
    // A signer serves its own serial above ours, which an incremental change must exceed: signed zones load whole.
    if (!apply || prev.dnssec || prev.image.size < incrementalFrom) return undefined;
    const delta = await zoneChangesSince(d.store, name, prev.generation);
    if (!delta || delta.zone.createdAt !== prev.createdAt || (delta.zone.dnssec !== 'off') !== prev.dnssec) return undefined;
    // Each changed rrset costs the nameserver a few milliseconds in a transaction; past a few dozen a whole
    // reload of even a large zone is faster (Knot: ~4 ms per command against ~150 ms for 100,000 rrsets).
    if (delta.changed.length + delta.removed.length > maxIncremental) return undefined;
    const image = prev.image;
    const changes: ZoneChanges = { remove: [], add: [] };
    for (const r of [...delta.removed, ...delta.changed]) {
      if (image.has(r.name, r.type)) changes.remove.push(`${r.name}. ${r.type}`);
    }
    for (const r of delta.removed) image.delete(r.name, r.type);
    for (const r of delta.changed) {
      image.set(r);
      changes.add.push(...image.absoluteLines(r.name, r.type));
    }
    const soa = soaFor(name, delta.zone.serial, d.nameservers);
    changes.add.push(ZoneImage.soaLine(name, soa));
    try {
      await apply(name, changes, image.text(soa));
    } catch (e) {
      // The image already holds the new rrsets; it no longer matches what is served.
      served.delete(name);
      if (e instanceof StaleSerialError) throw e;
      d.log.warn({ zone: name, err: (e as Error).message }, 'incremental change refused; loading the whole zone');
      return undefined;
    }
    remember(delta.zone, image);
    return delta.zone;
  };

  const notRunning = (why: string | null): string => `nameserver not running: ${why ?? 'not started'}`;

  return {
    kind: 'zone',
    keys: () => allZoneNames(d.store),
    async reconcile(name): Promise<Result> {
      let z = await zoneByName(d.store, name);
      if (!z) {
        await d.nameserver.removeZone(name);
        served.delete(name);
        checkedAt.delete(name);
        await dropZoneStatus(d.store, name);
        return {};
      }
      const prevStatus = await zoneStatusOf(d.store, name);
      const prev = served.get(name);
      if (!prev || prev.generation !== z.generation || prev.serial !== z.serial || prev.createdAt !== z.createdAt) {
        try {
          const applied = (prev && (await applyIncrement(name, prev))) || (await applyWhole(name));
          if (!applied) return this.reconcile(name, new AbortController().signal);
          z = applied;
        } catch (e) {
          if (e instanceof StaleSerialError) {
            // The signer moved the served serial past ours; ours must rise above it, never go back.
            await raiseSerial(d.store, name, e.served);
            return { requeueAfterMs: 0 };
          }
          const health = d.nameserver.health();
          await recordZoneStatus(d.store, name, {
            observedGeneration: prevStatus?.observedGeneration ?? 0,
            servedSerial: prevStatus?.servedSerial ?? null,
            dsObserved: prevStatus?.dsObserved ?? null,
            delegated: prevStatus?.delegated ?? null,
            lastError: health.running ? (e as Error).message : notRunning(health.lastError),
            reconciledAt: iso(d.store.clock()),
          });
          throw e;
        }
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
        delegated: prevStatus?.delegated ?? null,
      });
      refreshDelegation(name);
      return { requeueAfterMs: signed && ds.length === 0 ? DS_POLL_MS : RESYNC_MS };
    },
  };
}
