/**
 * The zone reconciler: makes the nameserver serve exactly the stored zone, and says so only once it has
 * checked. Per zone name, one pass:
 * 1. Finalize: a deleted lifetime of the zone (a finalizer row) is purged from the nameserver (data, journal,
 *    DNSSEC keys) before anything else, so a zone created again, by anyone, never gets the old owner's records
 *    or keys; a zone the nameserver holds that the store does not have is removed the same way.
 * 2. Apply: of each served zone only which rrsets it serves is kept (4 bytes an rrset). A change of a few
 *    rrsets reaches the nameserver as one incremental transaction of those rrsets, rendered from the change
 *    alone, served as soon as it commits; the zone file follows (at once for a small zone, within seconds for
 *    a large one). Anything else loads the whole zone, read and rendered from the store.
 * 3. Check: the served serial is read back and compared with the one applied; only then is the zone Ready.
 *    Drift forgets what is served and applies again.
 * The zone's own serial is the customer's desired state and is never rewritten here: when a signer has
 * served a serial past it, the zone text carries one above the served serial (kept in status facts).
 *
 * DNSSEC goes off in stages, so that a delegated zone never fails validation on the way: the zone stays signed
 * and publishes CDS/CDNSKEY DELETE (RFC 8078) while the parent's DS is seen through the resolver, and for the
 * DS's TTL after it is gone (caches may hold it that long); only then are the signatures removed. A DS the
 * customer records (setZoneDS) that matches the signer's KSK is confirmed to the signer, so its key rollovers
 * can proceed. Each configured secondary's serial is looked at after a change: one behind gets NOTIFY again
 * until it catches up, and the zone's SecondariesInSync condition says which.
 */
import type { Logger } from '../lib/log';
import { setCondition, type Condition } from '../lib/conditions';
import { StaleSerialError, UnservableZoneError, type Nameserver, type ZoneChanges } from '../providers/nameserver/port';
import type { ParentDs, Resolver } from '../providers/resolver';
import { iso, type Store } from '../store/db';
import { dropStatus, recordFact, recordStatus } from '../store/status';
import {
  allZoneNames, finishZoneFinalizers, zoneByName, zoneChangesSince, zoneFinalizersOf, zoneSnapshot, zoneStatusOf,
  type ZoneFacts, type ZoneRow, type ZoneStatus,
} from '../store/zones';
import { absoluteLines, absoluteSoaLine, isZoneName, nextSerial, renderZone, rrsetKey, serialGreater } from '../zonefiles';
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
  /** Zones with at least this many rrsets have their file written apart from their changes (`--defer-file-from`):
   * a smaller zone is read and rendered whole in about a millisecond, a zone of 100,000 rrsets in a tenth of a
   * second and megabytes of garbage. */
  deferFileFrom?: number;
  /** More changed rrsets than this at once load the whole zone instead. */
  maxIncremental?: number;
  /** While DNSSEC goes off, how often the parent's DS is looked at again. */
  dsWatchMs?: number;
  /** After a change is served, when the secondaries' serials are looked at; and again this long after, while
   * one is behind. */
  secondaryCheckMs?: number;
  secondaryRetryMs?: number;
  /** How long a large zone's file may lag behind the changes served. */
  fileSaveMs?: number;
  /** How far apart a zone's passes start at least (reconcilers/queue.ts `spacingMs`). */
  passSpacingMs?: number;
}

/** How the nameserver is to sign a zone now, on the way to what the zone asks for. */
interface SigningPlan {
  signing: 'off' | 'on' | 'delete-ds';
  /** Set when the parent's DS was looked at: seen (its TTL, now) or gone (null). */
  parentDs?: ZoneFacts['parentDs'];
  /** While on the way to off: why not off yet, and when to look again. */
  pending?: { reason: string; message: string; lastError: string | null; afterMs: number };
}

/** Periodic drift check for a converged zone. */
const RESYNC_MS = 10 * 60_000;
/** A freshly signed zone has no keys for a moment; look for its DS values again soon. */
const DS_POLL_MS = 2_000;
/** While the nameserver is down, how often a zone looks whether it is served again. */
const DOWN_POLL_MS = 5_000;
const DS_WATCH_MS = 60_000;
const SECONDARY_CHECK_MS = 2_000;
/** A secondary that was down gets NOTIFY this often once behind: it catches up within a minute of returning. */
const SECONDARY_RETRY_MS = 30_000;
/** How long a large zone's file may lag behind the changes served (the nameserver's journal has them). */
const FILE_SAVE_MS = 5_000;
/** Zones from this many rrsets have their file written apart from their changes. */
const DEFER_FILE_RRSETS = 5_000;
/**
 * A zone's passes start at least this far apart. A pass costs about the same for one change as for fifty (a
 * read, a render, one nameserver transaction, a new serial, a status write): a client writing records in a
 * loop got a pass and a serial for every write or two, which took a quarter of serve's time from the writes
 * themselves and sent a NOTIFY each to the secondaries. A change after a quiet spell is served at once.
 */
const PASS_SPACING_MS = 20;

interface Served {
  /** Which rrsets are served: whether a change replaces an rrset or adds it, which an incremental change must
   * say. */
  keys: KeyHashes;
  /** The lifetime the zone's served state belongs to. */
  uid: string;
  generation: number;
  /** The serial of the zone text applied. */
  serial: number;
  dnssec: boolean;
  deleteDs?: boolean;
  /** Since when (ms) the zone file lags behind what is served (applyChanges without a text). */
  unsavedSince?: number;
}

type Failure = { lastError: string | null; reason: string; message: string };

/**
 * A zone's rrsets (`rrsetKey`) as sorted 32-bit hashes: 4 bytes each, where a Set of the keys took about
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

const hasKey = (hashes: KeyHashes, key: string): boolean => hasHash(hashes, fnv1a(key));

const hasHash = (hashes: KeyHashes, h: number): boolean => {
  let lo = 0;
  let hi = hashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (hashes[mid]! < h) lo = mid + 1;
    else hi = mid;
  }
  return hashes[lo] === h;
};

/** The keys with `added` in. Removed rrsets stay in: their hash may be another served rrset's too, and a hash
 * of an rrset no longer served only costs a refused removal and a whole load, never a wrong answer. */
const withKeys = (hashes: KeyHashes, added: string[]): KeyHashes => {
  const fresh = [...new Set(added.map(fnv1a))].filter((h) => !hasHash(hashes, h));
  if (fresh.length === 0) return hashes;
  const out = new Uint32Array(hashes.length + fresh.length);
  out.set(hashes);
  out.set(fresh, hashes.length);
  return out.sort();
};

/** How the nameserver signs a zone (its applyZone options). */
interface Signing { dnssec: boolean; deleteDs: boolean }

/** The served serial shows the applied text: equal, or later when a signer adds its own increments. */
const serves = (served: number | null, applied: number, signed: boolean): boolean =>
  served !== null && (served === applied || (signed && serialGreater(served, applied)));

export function zoneReconciler(d: ZoneReconcilerDeps): Reconciler {
  const served = new Map<string, Served>();
  const checkedAt = new Map<string, number>();
  const maxIncremental = d.maxIncremental ?? 40;
  const deferFileFrom = d.deferFileFrom ?? DEFER_FILE_RRSETS;

  /** Delegation is a slow public-DNS lookup: it runs beside the apply path and records its fact when done. */
  const refreshDelegation = (z: ZoneRow): void => {
    const at = checkedAt.get(z.name);
    if (at !== undefined && Date.now() - at < (d.delegationTtlMs ?? RESYNC_MS)) return;
    checkedAt.set(z.name, Date.now());
    const ours = new Set(d.nameservers);
    d.resolver.ns(z.name)
      .then((ns) => recordFact(d.store, 'zone', z.name, z.uid, 'delegated', ns.length > 0 && ns.every((h) => ours.has(h))))
      .catch((e: Error) => d.log.debug({ zone: z.name, err: e.message }, 'delegation lookup failed'));
    // A signed zone's DS at the parent, so that turning DNSSEC off knows how long caches may hold it.
    if (z.dnssec !== 'off' && d.resolver.ds) {
      d.resolver.ds(z.name)
        .then(async (ds) => {
          const seen = (await zoneStatusOf(d.store, z))?.facts.parentDs;
          await recordFact(d.store, 'zone', z.name, z.uid, 'parentDs', ds && { ttl: Math.max(ds.ttl, seen?.ttl ?? 0), seenAt: iso(d.store.clock()) });
        })
        .catch((e: Error) => d.log.debug({ zone: z.name, err: e.message }, 'DS lookup failed'));
    }
  };

  /**
   * The signing to apply now. A zone that asks for DNSSEC is signed. One that asks for none but was signed
   * stays signed, asking the parent to delete its DS, while the parent's DS is seen and until its TTL has
   * passed since it was last seen; a DS that cannot be looked up keeps the signatures too.
   */
  const signingPlan = async (z: ZoneRow, st: ZoneStatus | undefined): Promise<SigningPlan> => {
    if (z.dnssec !== 'off') return { signing: 'on' };
    const was = st?.facts.signing ?? (served.get(z.name)?.dnssec ? 'on' : 'off');
    if (was === 'off') return { signing: 'off' };
    const watch = d.dsWatchMs ?? DS_WATCH_MS;
    let ds: ParentDs | null;
    try {
      ds = d.resolver.ds ? await d.resolver.ds(z.name) : null;
    } catch (e) {
      return {
        signing: 'delete-ds',
        pending: {
          reason: 'ParentDsUnknown', lastError: `DS lookup: ${(e as Error).message}`, afterMs: watch,
          message: 'DNSSEC is turning off: the parent\'s DS could not be looked up, so the zone stays signed until it can',
        },
      };
    }
    const now = d.store.clock().getTime();
    if (ds) {
      // Through a caching resolver the TTL has counted down: the largest one seen is nearest the parent's own.
      const ttl = Math.max(ds.ttl, st?.facts.parentDs?.ttl ?? 0);
      return {
        signing: 'delete-ds',
        parentDs: { ttl, seenAt: iso(new Date(now)) },
        pending: {
          // A resolver answers from its cache for the DS's TTL: looking sooner than that learns nothing new.
          reason: 'WaitingForParent', lastError: null, afterMs: Math.min(watch, Math.max(1_000, ds.ttl * 1000)),
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
  };

  /** Tells the signer that the parent publishes a DS for its KSK, once per key, when the customer recorded it. */
  const confirmDs = async (z: ZoneRow, st: ZoneStatus | undefined, signerDs: ZoneFacts['signerDs']): Promise<Partial<ZoneFacts>> => {
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
  };

  const secondaryTimers = new Map<string, NodeJS.Timeout>();
  /** Set once the nameserver said it has no secondaries: nothing to look at, ever. */
  let noSecondaries = !d.nameserver.secondarySerials;
  /** Looks at the secondaries `afterMs` from now (one look per zone pending; a later call replaces it). */
  const watchSecondaries = (name: string, uid: string, afterMs: number): void => {
    if (noSecondaries) return;
    clearTimeout(secondaryTimers.get(name));
    const timer = setTimeout(() => {
      secondaryTimers.delete(name);
      checkSecondaries(name, uid).catch((e: Error) => d.log.debug({ zone: name, err: e.message }, 'secondary check failed'));
    }, afterMs);
    timer.unref();
    secondaryTimers.set(name, timer);
  };
  /** Records what each secondary serves against the served serial; one behind gets NOTIFY again. */
  const checkSecondaries = async (name: string, uid: string): Promise<void> => {
    const st = await zoneStatusOf(d.store, { name, uid });
    const want = st?.facts.servedSerial;
    if (!st || want == null) return;
    const serials = await d.nameserver.secondarySerials!(name);
    if (serials.length === 0) {
      noSecondaries = true;
      return;
    }
    const behind = serials.filter((s) => s.serial === null || (s.serial !== want && !serialGreater(s.serial, want)));
    const now = iso(d.store.clock());
    // Read again: a pass may have recorded a change while the secondaries were asked.
    const latest = await zoneStatusOf(d.store, { name, uid });
    if (!latest || latest.facts.servedSerial !== want) return;
    const conditions = setCondition(latest.conditions, behind.length === 0
      ? { type: 'SecondariesInSync', status: 'True', reason: 'InSync', message: `every secondary serves serial ${want}`, observedGeneration: latest.observedGeneration }
      : {
        type: 'SecondariesInSync', status: 'False', reason: 'SecondaryBehind', observedGeneration: latest.observedGeneration,
        message: `${behind.map((b) => `${b.address} serves ${b.serial ?? 'nothing'}`).join(', ')}, not serial ${want}; NOTIFY is sent again`,
      }, now);
    await recordStatus<ZoneFacts>(d.store, 'zone', name, { ...latest, conditions, facts: { ...latest.facts, secondaries: serials } });
    if (behind.length === 0) return;
    await d.nameserver.notifySecondaries?.(name).catch((e: Error) => d.log.debug({ zone: name, err: e.message }, 'NOTIFY failed'));
    watchSecondaries(name, uid, d.secondaryRetryMs ?? SECONDARY_RETRY_MS);
  };

  /**
   * The serial of the zone text for generation `z.generation`: the zone's own, unless a signer has served
   * a serial at or past it, then one above the served one. Stable while the generation is: a second pass
   * renders the same text.
   */
  const textSerial = (z: ZoneRow, st: ZoneStatus | undefined, signed: boolean): number => {
    const facts = st?.facts;
    const floor = facts?.servedSerial ?? null;
    const rendered = facts?.renderedSerial ?? null;
    // The text rendered for this generation, unless what is served now rules it out: signed, a text serial may
    // equal the served one; unsigned, it must be above it, or equal only where the zone was served unsigned
    // (turning signing off at one generation needs a serial above the signer's).
    const fits = rendered !== null && (floor === null || (signed
      ? !serialGreater(floor, rendered)
      : serialGreater(rendered, floor) || (rendered === floor && (facts?.signing ?? 'off') === 'off')));
    if (st && st.observedGeneration === z.generation && fits) return rendered!;
    return floor === null || serialGreater(z.serial, floor) ? z.serial : nextSerial(floor, d.store.clock());
  };

  /** The whole zone from the store, loaded by the nameserver: the first time (every zone at start), or when
   * the served state is not known. */
  const applyWhole = async (
    name: string, serialOf: (z: ZoneRow) => number, signing: Signing, servedBefore: (z: ZoneRow, serial: number) => boolean,
  ): Promise<Served | undefined> => {
    const snap = await zoneSnapshot(d.store, name);
    if (!snap) return undefined;
    const serial = serialOf(snap.zone);
    const text = renderZone({ name, soa: soaFor(name, serial, d.nameservers), rrsets: snap.rrsets });
    await d.nameserver.applyZone(name, text, { ...signing, asServed: servedBefore(snap.zone, serial) });
    const keys = keyHashes(snap.rrsets.map((r) => rrsetKey(r.name, r.type)));
    return { keys, uid: snap.zone.uid, generation: snap.zone.generation, serial, ...signing };
  };

  /**
   * What changed since the served generation, as one incremental transaction: the changed rrsets rendered from
   * the change alone, and the served rrsets' keys saying which of them replace served ones. The zone file
   * comes with it, rendered whole from a fresh read, except for a zone of deferFileFrom rrsets or more: its
   * file follows later (saveFile), at most every FILE_SAVE_MS, while the nameserver's journal holds the
   * changes, so that a change of a large zone costs neither a read nor a render nor a write of the whole zone.
   * (The price: should serve die in between, the zone's status may not yet say the change was served, and the
   * restart then takes a serial above the served one rather than trust a file that lags: applyZone's asServed.)
   * Undefined when the zone must be loaded whole instead: another lifetime, a change of signing (the
   * nameserver signs or unsigns it all), more changed rrsets than maxIncremental (past a few dozen commands a
   * whole reload is as fast), a write between two reads, or a change the nameserver refused.
   */
  const applyDelta = async (name: string, prev: Served, serialOf: (z: ZoneRow) => number, signing: Signing): Promise<Served | undefined> => {
    const apply = d.nameserver.applyChanges?.bind(d.nameserver);
    const sameSigning = signing.dnssec === prev.dnssec && signing.deleteDs === !!prev.deleteDs;
    if (!apply || !sameSigning) return undefined;
    const delta = await zoneChangesSince(d.store, name, prev.generation);
    if (!delta || delta.zone.uid !== prev.uid || delta.changed.length + delta.removed.length > maxIncremental) return undefined;
    const changes: ZoneChanges = { remove: [], add: [] };
    for (const r of [...delta.removed, ...delta.changed]) {
      if (hasKey(prev.keys, rrsetKey(r.name, r.type))) changes.remove.push(`${r.name}. ${r.type}`);
    }
    for (const r of delta.changed) changes.add.push(...absoluteLines(name, r));
    const serial = serialOf(delta.zone);
    const soa = soaFor(name, serial, d.nameservers);
    changes.add.push(absoluteSoaLine(name, soa));
    const deferFile = delta.zone.rrsetCount >= deferFileFrom && !!d.nameserver.saveZoneFile;
    let text: string | null = null;
    if (!deferFile) {
      const snap = await zoneSnapshot(d.store, name);
      if (!snap || snap.zone.generation !== delta.zone.generation) return undefined;
      text = renderZone({ name, soa, rrsets: snap.rrsets });
    }
    // Until the nameserver took it, what it serves is not known for sure.
    served.delete(name);
    try {
      await apply(name, changes, text);
    } catch (e) {
      if (e instanceof StaleSerialError) throw e;
      d.log.warn({ zone: name, err: (e as Error).message }, 'incremental change refused; loading the whole zone');
      return undefined;
    }
    const keys = withKeys(prev.keys, delta.changed.map((r) => rrsetKey(r.name, r.type)));
    return {
      keys, uid: delta.zone.uid, generation: delta.zone.generation, serial, ...signing,
      ...(deferFile && { unsavedSince: prev.unsavedSince ?? Date.now() }),
    };
  };

  /** Writes the zone file of a zone whose changes went to the nameserver without it, from the applied state. */
  const saveFile = async (name: string, s: Served): Promise<void> => {
    const snap = await zoneSnapshot(d.store, name);
    // Changed since: the next pass applies that and saves then.
    if (!snap || snap.zone.uid !== s.uid || snap.zone.generation !== s.generation) return;
    const text = renderZone({ name, soa: soaFor(name, s.serial, d.nameservers), rrsets: snap.rrsets });
    if (await d.nameserver.saveZoneFile!(name, text)) delete s.unsavedSince;
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
    const signing = p.facts.signing ?? prev?.facts.signing;
    if (z.dnssec === 'off' && signing === 'delete-ds') {
      conditions = setCondition(conditions, { type: 'Signed', status: 'True', reason: 'DeletingDs', message: 'DNSSEC is turning off: still signed, publishing CDS/CDNSKEY DELETE for the parent', observedGeneration: p.observedGeneration }, now);
    } else if (z.dnssec === 'off') conditions = conditions.filter((c) => c.type !== 'Signed');
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
        ...(prev?.facts.signing && { signing: prev.facts.signing }),
        ...(prev?.facts.parentDs !== undefined && { parentDs: prev.facts.parentDs }),
        ...(prev?.facts.dsConfirmedKeyTag != null && { dsConfirmedKeyTag: prev.facts.dsConfirmedKeyTag }),
        ...(prev?.facts.secondaries && { secondaries: prev.facts.secondaries }),
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
    served.delete(name);
    checkedAt.delete(name);
    clearTimeout(secondaryTimers.get(name));
    secondaryTimers.delete(name);
  };

  return {
    kind: 'zone',
    watches: [identityWatch('zone')],
    spacingMs: d.passSpacingMs ?? PASS_SPACING_MS,
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
      const plan = await signingPlan(z, st);
      const signing: Signing = { dnssec: plan.signing !== 'off', deleteDs: plan.signing === 'delete-ds' };
      const known = served.get(name);
      const serialOf = (row: ZoneRow): number => textSerial(row, row.uid === z!.uid ? st : undefined, signing.dnssec);
      // This text was applied and checked served before (a restart since: what is served is known, not its file).
      const servedBefore = (row: ZoneRow, serial: number): boolean => row.uid === z!.uid && !!st && st.observedGeneration === row.generation
        && st.facts.renderedSerial === serial && st.conditions.some((c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === row.generation);
      let applied: Served;
      if (known && known.generation === z.generation && known.dnssec === signing.dnssec && !!known.deleteDs === signing.deleteDs) applied = known;
      else {
        try {
          const taken = (known && (await applyDelta(name, known, serialOf, signing))) || (await applyWhole(name, serialOf, signing, servedBefore));
          // Deleted meanwhile: the next pass finalizes it.
          if (!taken) return { requeueAfterMs: 0 };
          applied = taken;
          z = (await zoneByName(d.store, name)) ?? z;
        } catch (e) {
          const f = failure(e, st);
          // The signer served a serial past the text's: recorded as the floor the next text goes above.
          const facts = { ...(e instanceof StaleSerialError && { servedSerial: e.served }), ...(plan.parentDs !== undefined && { parentDs: plan.parentDs }) };
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
      served.set(name, applied);
      if (!serves(servedSerial, applied.serial, signed)) {
        // A nameserver that is down serves the applied files once it runs again: look again later. One that
        // runs but serves something else (it lost the zone, or restarted on an older file) drifted: apply again.
        const down = !d.nameserver.health().running;
        if (!down) served.delete(name);
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
      const confirmed = await confirmDs(z, st, signerDs);
      const facts: Partial<ZoneFacts> = {
        servedSerial, renderedSerial: applied.serial, signerDs, signing: plan.signing, ...confirmed,
        ...(plan.parentDs !== undefined && { parentDs: plan.parentDs }),
      };
      const { pending } = plan;
      await record(z, st, {
        observedGeneration: applied.generation,
        facts,
        ready: pending
          ? { status: 'False', reason: pending.reason, message: pending.message, observedGeneration: z.generation }
          : { status: 'True', reason: 'Served', message: `the nameserver serves generation ${applied.generation} (serial ${servedSerial})`, observedGeneration: applied.generation },
        lastError: pending?.lastError ?? null,
      });
      refreshDelegation(z);
      if (servedSerial !== st?.facts.servedSerial || !st?.conditions.some((c) => c.type === 'SecondariesInSync')) {
        watchSecondaries(name, z.uid, d.secondaryCheckMs ?? SECONDARY_CHECK_MS);
      }
      let requeueAfterMs = pending?.afterMs ?? (signed && signerDs.length === 0 ? DS_POLL_MS : RESYNC_MS);
      if (applied.unsavedSince !== undefined) {
        const due = applied.unsavedSince + (d.fileSaveMs ?? FILE_SAVE_MS) - Date.now();
        if (due <= 0) {
          await saveFile(name, applied).catch((e: Error) => d.log.warn({ zone: name, err: e.message }, 'could not write the zone file; trying again'));
        }
        if (applied.unsavedSince !== undefined) requeueAfterMs = Math.min(requeueAfterMs, Math.max(due, 1_000));
      }
      return { requeueAfterMs };
    },
  };
}
