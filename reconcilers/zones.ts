/**
 * The zone reconciler: makes the nameserver serve exactly the stored zone, and says so only once it has
 * checked. Per zone name, one pass:
 * 1. Finalize: a deleted lifetime of the zone (a finalizer row) is purged from the nameserver (data, journal,
 *    DNSSEC keys) before anything else, so a zone created again, by anyone, never gets the old owner's records
 *    or keys; a zone the nameserver holds that the store does not have is removed the same way.
 * 2. Apply: a large zone that changes is kept rendered in memory (a ZoneImage) per lifetime, and a change
 *    re-reads and re-renders only the rrsets written or deleted since; any other zone is read and rendered
 *    whole, and only which rrsets it serves is kept. An unsigned zone with a few changes gets them as one
 *    incremental transaction, served as soon as it commits; otherwise the nameserver loads the whole text.
 * 3. Check: the served serial is read back and compared with the one applied; only then is the zone Ready.
 *    Drift drops the image and applies again.
 * The zone's own serial is the customer's desired state and is never rewritten here: when a signer has
 * served a serial past it, the zone text carries one above the served serial (kept in status facts).
 */
import type { Logger } from '../lib/log';
import { setCondition, type Condition } from '../lib/conditions';
import { StaleSerialError, UnservableZoneError, type Nameserver, type ZoneChanges } from '../providers/nameserver/port';
import type { Resolver } from '../providers/resolver';
import { iso, type Store } from '../store/db';
import { dropStatus, recordFact, recordStatus } from '../store/status';
import {
  allZoneNames, finishZoneFinalizers, zoneByName, zoneChangesSince, zoneFinalizersOf, zoneSnapshot, zoneStatusOf,
  type ZoneFacts, type ZoneRow, type ZoneStatus,
} from '../store/zones';
import { isZoneName, nextSerial, renderZone, serialGreater, ZoneImage } from '../zonefiles';
import { soaFor } from '../zonefiles/soa';
import { identityWatch, TerminalError, type Reconciler, type Result } from './types';

export interface ZoneReconcilerDeps {
  store: Store;
  nameserver: Nameserver;
  resolver: Resolver;
  /** The public nameservers: the zone's NS and SOA MNAME, and what a delegation must point to. */
  nameservers: string[];
  log: Logger;
  /** How long a delegation answer is trusted before it is looked up again. */
  delegationTtlMs?: number;
  /** Zones with at least this many rrsets keep their image once they change (within imageBudgetBytes): a
   * change then costs a read and render of what changed only. Smaller zones are read and rendered whole on
   * every change, which at 100 rrsets takes well under a millisecond; either way the change reaches the
   * nameserver incrementally. */
  incrementalFrom?: number;
  /** More changed rrsets than this at once load the whole zone instead. */
  maxIncremental?: number;
  /** Memory the kept zone images may take together; the least recently used are dropped beyond it. */
  imageBudgetBytes?: number;
}

/** Periodic drift check for a converged zone. */
const RESYNC_MS = 10 * 60_000;
/** A freshly signed zone has no keys for a moment; look for its DS values again soon. */
const DS_POLL_MS = 2_000;
/** While the nameserver is down, how often a zone looks whether it is served again. */
const DOWN_POLL_MS = 5_000;

interface Served {
  /** Kept for large zones that change only, within the byte budget: a small zone is read and rendered whole in
   * about a millisecond, and a thousand of them would hold the process's memory for nothing; nor does a large
   * zone that is only loaded (every zone at start) get one before a change needs it. */
  image?: ZoneImage;
  /** Which rrsets are served, where the image is not kept: whether a change replaces an rrset or adds it,
   * which an incremental change must say. */
  keys?: KeyHashes;
  /** The lifetime the zone's served state belongs to. */
  uid: string;
  generation: number;
  /** The serial of the zone text applied. */
  serial: number;
  dnssec: boolean;
}

type Failure = { lastError: string | null; reason: string; message: string };

/**
 * A zone's rrsets (`ZoneImage.key`) as sorted 32-bit hashes: 4 bytes each, where a Set of the keys took about
 * 150 (15 MB for a thousand zones of 100 rrsets). A hash two keys share makes an absent rrset look served, never
 * the reverse: knotd then refuses to remove what it does not have, and the change loads the zone whole.
 */
type KeyHashes = Uint32Array;

const fnv1a = (key: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

const keyHashes = (keys: Iterable<string>): KeyHashes => Uint32Array.from(keys, fnv1a).sort();

const hasKey = (hashes: KeyHashes, key: string): boolean => {
  const h = fnv1a(key);
  let lo = 0;
  let hi = hashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (hashes[mid]! < h) lo = mid + 1;
    else hi = mid;
  }
  return hashes[lo] === h;
};

/** The served serial shows the applied text: equal, or later when a signer adds its own increments. */
const serves = (served: number | null, applied: number, signed: boolean): boolean =>
  served !== null && (served === applied || (signed && serialGreater(served, applied)));

export function zoneReconciler(d: ZoneReconcilerDeps): Reconciler {
  const served = new Map<string, Served>();
  const imageBudget = d.imageBudgetBytes ?? 128 * 1024 * 1024;
  /** Zones whose image is kept, least recently used first, with the bytes each took when kept. */
  const kept = new Map<string, number>();
  let keptBytes = 0;
  const unkeep = (name: string): void => {
    keptBytes -= kept.get(name) ?? 0;
    kept.delete(name);
  };
  const forget = (name: string): void => {
    unkeep(name);
    served.delete(name);
  };
  const forgetImage = (name: string): void => {
    unkeep(name);
    const s = served.get(name);
    if (s) dropImage(s);
  };
  const dropImage = (s: Served): void => {
    if (s.image) s.keys = keyHashes(s.image.keys());
    delete s.image;
  };
  /** Records what the nameserver now serves; keeps its image when that pays and fits. */
  const remember = (name: string, s: Served): void => {
    unkeep(name);
    served.set(name, s);
    if (!s.image || s.image.size < incrementalFrom || s.image.bytes > imageBudget) {
      dropImage(s);
      return;
    }
    delete s.keys;
    kept.set(name, s.image.bytes);
    keptBytes += s.image.bytes;
    for (const [lru] of kept) {
      if (keptBytes <= imageBudget) break;
      forgetImage(lru);
    }
  };
  const checkedAt = new Map<string, number>();
  const incrementalFrom = d.incrementalFrom ?? 5_000;
  const maxIncremental = d.maxIncremental ?? 40;

  /** Delegation is a slow public-DNS lookup: it runs beside the apply path and records its fact when done. */
  const refreshDelegation = (z: ZoneRow): void => {
    const at = checkedAt.get(z.name);
    if (at !== undefined && Date.now() - at < (d.delegationTtlMs ?? RESYNC_MS)) return;
    checkedAt.set(z.name, Date.now());
    const ours = new Set(d.nameservers);
    d.resolver.ns(z.name)
      .then((ns) => recordFact(d.store, 'zone', z.name, z.uid, 'delegated', ns.length > 0 && ns.every((h) => ours.has(h))))
      .catch((e: Error) => d.log.debug({ zone: z.name, err: e.message }, 'delegation lookup failed'));
  };

  /**
   * The serial of the zone text for generation `z.generation`: the zone's own, unless a signer has served
   * a serial at or past it, then one above the served one. Stable while the generation is: a second pass
   * renders the same text.
   */
  const textSerial = (z: ZoneRow, st: ZoneStatus | undefined): number => {
    const facts = st?.facts;
    if (st && st.observedGeneration === z.generation && facts?.renderedSerial != null) return facts.renderedSerial;
    const floor = facts?.servedSerial ?? null;
    return floor === null || serialGreater(z.serial, floor) ? z.serial : nextSerial(floor, d.store.clock());
  };

  /** The whole zone from the store, loaded by the nameserver: the first time (every zone at start), or when
   * the served state is not known. Rendered once, without an image. */
  const applyWhole = async (name: string, serialOf: (z: ZoneRow) => number): Promise<Served | undefined> => {
    const snap = await zoneSnapshot(d.store, name);
    if (!snap) return undefined;
    const serial = serialOf(snap.zone);
    const dnssec = snap.zone.dnssec !== 'off';
    await d.nameserver.applyZone(name, renderZone({ name, soa: soaFor(name, serial, d.nameservers), rrsets: snap.rrsets }), { dnssec });
    const keys = keyHashes(snap.rrsets.map((r) => ZoneImage.key(r.name, r.type)));
    return { keys, uid: snap.zone.uid, generation: snap.zone.generation, serial, dnssec };
  };

  /**
   * The zone's new state from what changed since the served generation, which the nameserver takes as one
   * incremental transaction when it can, else as a whole reload. A kept image is brought up to date (no full
   * re-read); without one, the zone is read and rendered whole, and the served rrsets' keys say what the
   * change replaces. Undefined when the zone must be loaded whole from a fresh read: another lifetime, or no
   * image and no incremental change, or a write between the two reads.
   */
  const applyDelta = async (name: string, prev: Served, serialOf: (z: ZoneRow) => number): Promise<Served | undefined> => {
    const delta = await zoneChangesSince(d.store, name, prev.generation);
    if (!delta || delta.zone.uid !== prev.uid) return undefined;
    const dnssec = delta.zone.dnssec !== 'off';
    const apply = d.nameserver.applyChanges?.bind(d.nameserver);
    // A signer serves its own serial above ours, which an incremental change must exceed: signed zones load
    // whole. Each changed rrset costs the nameserver a command or two in the transaction (well under a
    // millisecond each); past a few dozen a whole reload is as fast.
    const incremental = apply && !dnssec && !prev.dnssec && delta.changed.length + delta.removed.length <= maxIncremental;
    const changes: ZoneChanges = { remove: [], add: [] };
    let { image } = prev;
    if (image) {
      for (const r of [...delta.removed, ...delta.changed]) {
        if (image.has(r.name, r.type)) changes.remove.push(`${r.name}. ${r.type}`);
      }
      for (const r of delta.removed) image.delete(r.name, r.type);
      for (const r of delta.changed) image.set(r);
    } else {
      const { keys } = prev;
      if (!incremental || !keys) return undefined;
      const snap = await zoneSnapshot(d.store, name);
      if (!snap || snap.zone.generation !== delta.zone.generation) return undefined;
      image = new ZoneImage(name, snap.rrsets);
      for (const r of [...delta.removed, ...delta.changed]) {
        if (hasKey(keys, ZoneImage.key(r.name, r.type))) changes.remove.push(`${r.name}. ${r.type}`);
      }
    }
    if (incremental) for (const r of delta.changed) changes.add.push(...image.absoluteLines(r.name, r.type));
    // From here the image holds the new state, not what is served: forget it unless the nameserver takes it.
    forget(name);
    const serial = serialOf(delta.zone);
    const soa = soaFor(name, serial, d.nameservers);
    const text = image.text(soa);
    const next: Served = { image, uid: delta.zone.uid, generation: delta.zone.generation, serial, dnssec };
    if (incremental) {
      changes.add.push(ZoneImage.soaLine(name, soa));
      try {
        await apply(name, changes, text);
        return next;
      } catch (e) {
        if (e instanceof StaleSerialError) throw e;
        d.log.warn({ zone: name, err: (e as Error).message }, 'incremental change refused; loading the whole zone');
      }
    }
    await d.nameserver.applyZone(name, text, { dnssec });
    return next;
  };

  /** What went wrong, for the tenant (a reason and a message without server paths or the nameserver's own
   * words) and for operators (`lastError`, the whole failure). */
  const failure = (e: unknown, st?: ZoneStatus): Failure => {
    const health = d.nameserver.health();
    if (e instanceof UnservableZoneError) {
      return { lastError: e.message, reason: 'InvalidZoneName', message: 'this zone name breaks the zone name rule and is not served; delete the zone' };
    }
    if (!health.running) {
      return {
        lastError: `nameserver not running: ${health.lastError ?? 'not started'}${e ? `; ${(e as Error).message}` : ''}`,
        reason: 'NameserverDown',
        message: 'the nameserver is not running; the zone is served once it runs',
      };
    }
    return {
      lastError: (e as Error).message,
      reason: 'ApplyFailed',
      message: st?.facts.servedSerial != null
        ? 'the nameserver did not take this version of the zone and serves the last one it took; retrying'
        : 'the nameserver did not take the zone, which is not served yet; retrying',
    };
  };

  const record = async (z: ZoneRow, prev: ZoneStatus | undefined, p: {
    observedGeneration: number; facts: Partial<ZoneFacts>; ready: Omit<Condition, 'lastTransitionTime' | 'type'>; lastError: string | null;
  }): Promise<void> => {
    const now = iso(d.store.clock());
    let conditions = setCondition(prev?.conditions ?? [], { type: 'Ready', ...p.ready }, now);
    const ds = p.facts.signerDs ?? prev?.facts.signerDs ?? [];
    if (z.dnssec === 'off') conditions = conditions.filter((c) => c.type !== 'Signed');
    else {
      conditions = setCondition(conditions, ds.length > 0
        ? { type: 'Signed', status: 'True', reason: 'KeysPublished', message: 'the zone is signed; signerDs holds the DS values for the parent', observedGeneration: p.observedGeneration }
        : { type: 'Signed', status: 'False', reason: 'KeysPending', message: 'the signer has no keys for the zone yet', observedGeneration: p.observedGeneration }, now);
    }
    const next: ZoneStatus = {
      uid: z.uid,
      observedGeneration: p.observedGeneration,
      conditions,
      facts: {
        servedSerial: prev?.facts.servedSerial ?? null,
        renderedSerial: prev?.facts.renderedSerial ?? null,
        signerDs: prev?.facts.signerDs ?? [],
        delegated: prev?.facts.delegated ?? null,
        ...p.facts,
      },
      lastError: p.lastError,
      reconciledAt: now,
    };
    // A pass that observed nothing new writes nothing: resyncs of thousands of zones cost no commits.
    if (prev && JSON.stringify({ ...prev, reconciledAt: '' }) === JSON.stringify({ ...next, reconciledAt: '' })) return;
    await recordStatus<ZoneFacts>(d.store, 'zone', z.name, next);
  };

  /** Purges whatever the nameserver holds under `name` (data, journal, keys). A name that breaks the rule
   * never reached it. */
  const purge = async (name: string): Promise<void> => {
    if (isZoneName(name)) await d.nameserver.removeZone(name);
    forget(name);
    checkedAt.delete(name);
  };

  return {
    kind: 'zone',
    watches: [identityWatch('zone')],
    async keys() {
      // The nameserver's own zones too: one the store never had (or lost track of) is removed.
      const held = await d.nameserver.zones().catch(() => []);
      return [...new Set([...(await allZoneNames(d.store)), ...held])].sort();
    },
    async reconcile(name): Promise<Result> {
      const finalizers = await zoneFinalizersOf(d.store, name);
      let z = await zoneByName(d.store, name);
      const prev = served.get(name);
      if (finalizers.length > 0 || !z || (prev && prev.uid !== z.uid)) {
        await purge(name);
        await finishZoneFinalizers(d.store, finalizers.map((f) => f.uid));
        if (!z) {
          await dropStatus(d.store, 'zone', name);
          return {};
        }
      }
      const st = await zoneStatusOf(d.store, z);
      const image = served.get(name);
      const serialOf = (row: ZoneRow): number => textSerial(row, row.uid === z!.uid ? st : undefined);
      let applied: Served;
      if (image && image.generation === z.generation && image.dnssec === (z.dnssec !== 'off')) applied = image;
      else {
        try {
          const taken = (image && (await applyDelta(name, image, serialOf))) || (await applyWhole(name, serialOf));
          // Deleted meanwhile: the next pass finalizes it.
          if (!taken) return { requeueAfterMs: 0 };
          applied = taken;
          z = (await zoneByName(d.store, name)) ?? z;
        } catch (e) {
          const f = failure(e, st);
          // The signer served a serial past the text's: recorded as the floor the next text goes above.
          const facts = e instanceof StaleSerialError ? { servedSerial: e.served } : {};
          await record(z, st, {
            observedGeneration: st?.observedGeneration ?? 0,
            facts,
            ready: { status: 'False', reason: f.reason, message: f.message, observedGeneration: z.generation },
            lastError: f.lastError,
          });
          if (e instanceof StaleSerialError) return { requeueAfterMs: 0 };
          throw e instanceof UnservableZoneError ? new TerminalError(e.message) : e;
        }
      }
      const signed = applied.dnssec;
      const [servedSerial, signerDs] = await Promise.all([
        d.nameserver.servedSerial(name).catch(() => null),
        signed ? d.nameserver.ds(name) : [],
      ]);
      remember(name, applied);
      if (!serves(servedSerial, applied.serial, signed)) {
        // A nameserver that is down serves the applied files once it runs again: look again later. One that
        // runs but serves something else (it lost the zone, or restarted on an older file) drifted: apply again.
        const down = !d.nameserver.health().running;
        if (!down) forget(name);
        const f = down ? failure(null) : { lastError: `served serial ${servedSerial} is not the applied ${applied.serial}`, reason: 'NotServed', message: 'the nameserver does not serve this version of the zone; applying it again' };
        await record(z, st, {
          observedGeneration: st?.observedGeneration ?? 0,
          facts: { servedSerial },
          ready: { status: 'False', reason: f.reason, message: f.message, observedGeneration: z.generation },
          lastError: f.lastError,
        });
        if (down) return { requeueAfterMs: DOWN_POLL_MS };
        throw new Error(`zone ${name}: ${f.lastError}`);
      }
      await record(z, st, {
        observedGeneration: applied.generation,
        facts: { servedSerial, renderedSerial: applied.serial, signerDs },
        ready: { status: 'True', reason: 'Served', message: `the nameserver serves generation ${applied.generation} (serial ${servedSerial})`, observedGeneration: applied.generation },
        lastError: null,
      });
      refreshDelegation(z);
      return { requeueAfterMs: signed && signerDs.length === 0 ? DS_POLL_MS : RESYNC_MS };
    },
  };
}
