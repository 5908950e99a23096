/**
 * Applying a zone to the nameserver: of each served zone only which rrsets it serves is kept (4 bytes an rrset).
 * A change of a few rrsets reaches the nameserver as one incremental transaction of those rrsets, rendered from
 * the change alone, served as soon as it commits; the zone file follows (at once for a small zone, within
 * seconds for a large one). Anything else loads the whole zone, read and rendered from the store.
 * The zone's own serial is the customer's desired state and is never rewritten here: when a signer has served a
 * serial past it, the zone text carries one above the served serial (kept in status facts).
 */
import type { Logger } from '../../lib/log';
import { StaleSerialError, ZoneFileNotWrittenError, type CommittedSerial, type Nameserver, type ZoneChanges } from '../../providers/nameserver/port';
import type { Store } from '../../store/db';
import { raiseServedSerial, servedSerialFloor } from '../../store/dnssec-keys';
import { zoneAliasesOf } from '../../store/aliases';
import { acceptHandovers } from '../../store/zone-handover';
import { zoneByName, zoneChangesHandedOver, zoneChangesSince, zoneSnapshot, type ZoneRow, type ZoneStatus } from '../../store/zones';
import { absoluteLines, absoluteSoaLine, nextSerial, renderZone, rrsetKey, serialGreater, servedRRsets, servedTypes, type RRset } from '../../zonefiles';
import { soaFor } from '../../zonefiles/soa';

export interface ApplyDeps {
  store: Store;
  nameserver: Nameserver;
  /** The public nameservers: the zone's NS and SOA MNAME. */
  nameservers: string[];
  log: Logger;
  /** Zones with at least this many rrsets have their file written apart from their changes (`--defer-file-from`):
   * a zone of a few hundred rrsets is read and rendered whole in a fraction of a millisecond, a zone of 100,000
   * rrsets in a tenth of a second and megabytes of garbage. */
  deferFileFrom?: number;
  /** More changed rrsets than this at once, and than a quarter of the zone's, load the whole zone instead. */
  maxIncremental?: number;
  /** How long a zone's file may lag behind the changes served: a large zone's always, any zone's whose file could
   * not be written with its change (ZoneFileNotWrittenError). */
  fileSaveMs?: number;
  /** The nameserver took over from another process's (lead() after standing by): each zone's first serial goes above
   * every one served before, even where the same text at the same serial would do. */
  tookOver?: boolean;
  /** No other process can ever lead (store/leader.ts `soleCandidate`), so no other process's nameserver serves the
   * zone: see {@link floorNeeded}. */
  soleLeader?: boolean;
}

/** How long a zone's file may lag behind the changes served (the nameserver's journal has them): a large zone's, and
 * one whose file could not be written with its change. */
const FILE_SAVE_MS = 5_000;
/**
 * Zones from this many rrsets have their file written apart from their changes. Each pass of a smaller zone reads
 * and renders it whole (about 5 µs an rrset) in one turn of the event loop, which every API request then waits
 * behind, and before its change goes to the nameserver: at 5,000 a zone growing under concurrent writes (1,500
 * rrsets) held the loop for tens of milliseconds per pass on a loaded machine, the writes' p99; a zone of 100
 * rrsets spent half a millisecond of CPU of each change's way to being served on a file knotd's journal holds
 * anyway.
 */
export const DEFER_FILE_RRSETS = 50;
/** A file that could not be written is tried again no sooner than this. */
const FILE_RETRY_MS = 1_000;

/** Lets pending I/O run between a whole load's long synchronous steps (a read of every rrset, the render): the
 * pass runs in the API's process, where a large write's answer is still being sent as its commit wakes the pass. */
const ioTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** How the nameserver signs a zone (its applyZone options). */
export interface Signing { dnssec: boolean; deleteDs: boolean }

export interface Served extends Signing {
  /** Which rrsets are served: whether a change replaces an rrset or adds it, which an incremental change must
   * say. */
  keys: KeyHashes;
  /** The lifetime the zone's served state belongs to. */
  uid: string;
  generation: number;
  /** The serial of the zone text applied. */
  serial: number;
  /** Since when (the store's clock, ms) the zone file lags behind what is served (applyChanges without a text, or a
   * text that could not be written: ZoneFileNotWrittenError). */
  unsavedSince?: number;
}

/**
 * A zone's rrsets (`rrsetKey`) as sorted 32-bit hashes: 4 bytes each, where a Set of the keys took about
 * 150 (15 MB for a thousand zones of 100 rrsets). A hash two keys share makes an absent rrset look served, never
 * the reverse: knotd then refuses to remove what it does not have, and the change loads the zone whole.
 */
export type KeyHashes = Uint32Array;

const fnv1a = (key: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

export const keyHashes = (keys: Iterable<string>): KeyHashes => Uint32Array.from(keys, fnv1a).sort();

export const hasKey = (hashes: KeyHashes, key: string): boolean => hasHash(hashes, fnv1a(key));

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

/**
 * The keys once the nameserver took a change that removed `removed` and added `added`. Each hash is counted once
 * per served rrset, so a hash two rrsets share stays while either is served. A removed key was served: knotd
 * refuses to remove what it does not have, and the change then loads the zone whole (a key that only looked
 * served, by another's hash, never gets here). So a deleted rrset put again is a change, not a refused removal.
 */
export const changedKeys = (hashes: KeyHashes, removed: string[], added: string[]): KeyHashes => {
  const gone = new Map<number, number>();
  for (const h of removed.map(fnv1a)) gone.set(h, (gone.get(h) ?? 0) + 1);
  const kept = gone.size === 0 ? hashes : hashes.filter((h) => {
    const n = gone.get(h);
    if (!n) return true;
    gone.set(h, n - 1);
    return false;
  });
  if (added.length === 0) return kept;
  const out = new Uint32Array(kept.length + added.length);
  out.set(kept);
  out.set(added.map(fnv1a), kept.length);
  return out.sort();
};

/** Whether `row`, read for a pass's text, turned DNSSEC on or off since `planned`, the row the pass planned its
 * signing from: served with that signing, the text would have its generation claimed served as it is not. */
const signingMoved = (planned: ZoneRow, row: ZoneRow): boolean => (planned.dnssec === 'off') !== (row.dnssec === 'off');

/** The served serial shows the applied text: equal, or later when a signer adds its own increments. */
export const serves = (served: number | null, applied: number, signed: boolean): boolean =>
  served !== null && (served === applied || (signed && serialGreater(served, applied)));

/** What each zone serves, as far as this process applied and checked it, and the way to change it. */
export function zoneApplier(d: ApplyDeps) {
  const served = new Map<string, Served>();
  // A change goes to the nameserver incrementally only: without that, no pass would take what the writes hand over.
  if (d.nameserver.openChanges) acceptHandovers(d.store);
  const maxIncremental = d.maxIncremental ?? 40;
  const deferFileFrom = d.deferFileFrom ?? DEFER_FILE_RRSETS;
  const fileSaveMs = d.fileSaveMs ?? FILE_SAVE_MS;
  const now = (): number => d.store.clock().getTime();
  /** The floor this process last recorded of each zone: a serial not above it costs no write. */
  const raised = new Map<string, number>();

  /** Records `serial` as the zone's floor in the store, before the nameserver may serve it (a leader that dies right
   * after must not leave its successor below it); a signer serves the text's serial plus one. */
  const recordFloor = async (name: string, serial: number, opts: { committed?: () => void; durable?: boolean } = {}): Promise<void> => {
    const before = raised.get(name);
    if (before !== undefined && !serialGreater(serial, before)) {
      opts.committed?.();
      return;
    }
    await raiseServedSerial(d.store, name, serial, opts);
    raised.set(name, serial);
  };

  /**
   * Whether the floor must be written before the nameserver may serve `serial` of `row` with `signing`. Not for an
   * unsigned text at the row's own serial when no other process can lead: the row's serial, made durable with its
   * change (synced() comes first), is then a floor already, and the serial names one generation's rrsets, which the
   * same process restarted serves at it again (floorToPass; an ALIAS's answer may be a newer one, as it may in any
   * text). A signed text (the signer serves more than it), a serial the text took above a served one (textSerial),
   * or a pass another leader could depose, whose refused floor write is its fence, write it first.
   */
  const floorNeeded = (row: ZoneRow, serial: number, signing: Signing): boolean => !d.soleLeader || signing.dnssec || serial !== row.serial;

  /**
   * Makes sure the nameserver may serve `serial` of `row`: the floor recorded where it must be (floorNeeded), and
   * everything the pass read on disk. Resolves once the commands may be sent (the floor's write committed, or none
   * was needed), with `durable`, which the nameserver's commit must wait for (the sync): so the commands travel while
   * the disk syncs. Rejects when the floor's write was refused (fenced) or failed before it committed: nothing is
   * sent.
   */
  const readyToServe = async (name: string, row: ZoneRow, serial: number, signing: Signing): Promise<{ durable: Promise<void> }> => {
    if (!floorNeeded(row, serial, signing)) return { durable: d.store.synced() };
    let committed!: () => void;
    const floorCommitted = new Promise<void>((resolve) => {
      committed = resolve;
    });
    const floor = recordFloor(name, signing.dnssec ? (serial + 1) % 2 ** 32 || 1 : serial, { committed });
    await Promise.race([floorCommitted, floor]);
    return { durable: floor.then(() => d.store.synced()) };
  };

  /**
   * The serial a zone this process has not applied yet must go above, when its nameserver does not serve it: another
   * nameserver (a previous leader's) may have served a serial the zone's status does not know (its leader died between
   * serving and recording), or, after a takeover, the same serial with other signatures. A zone the nameserver serves
   * is this process's own, whose serials the nameserver keeps from going back (StaleSerialError).
   */
  const floorToPass = async (z: ZoneRow, st: ZoneStatus | undefined, signed: boolean): Promise<number | undefined> => {
    const stored = await servedSerialFloor(d.store, z.name);
    if (stored === null || (await d.nameserver.servedSerial(z.name).catch(() => null)) !== null) return undefined;
    // Unsigned at the zone's own serial, the text is the generation's, whoever rendered it: serving it again at that
    // serial serves nothing new (a machine crash took this knotd's state right after it served it).
    if (!d.tookOver && !signed && stored === z.serial) return undefined;
    const seen = st?.facts.servedSerial ?? null;
    if (seen !== null && !serialGreater(stored, seen)) return d.tookOver ? seen : undefined;
    return stored;
  };

  /**
   * The serial of the zone text for generation `z.generation`: the zone's own, unless a signer has served
   * a serial at or past it, then one above the served one. Stable while the generation is: a second pass
   * renders the same text. `above`: a serial the text must go above (floorToPass).
   */
  const textSerial = (z: ZoneRow, st: ZoneStatus | undefined, signed: boolean, above?: number): number => {
    const facts = st?.facts;
    const floor = above ?? facts?.servedSerial ?? null;
    const rendered = facts?.renderedSerial ?? null;
    // The text rendered for this generation, unless what is served now rules it out: signed, a text serial may
    // equal the served one; unsigned, it must be above it, or equal only where the zone was served unsigned
    // (turning signing off at one generation needs a serial above the signer's).
    const fits = rendered !== null && (floor === null || (signed
      ? !serialGreater(floor, rendered)
      : serialGreater(rendered, floor) || (rendered === floor && (facts?.signing ?? 'off') === 'off')));
    if (above === undefined && st && st.observedGeneration === z.generation && fits) return rendered!;
    return floor === null || serialGreater(z.serial, floor) ? z.serial : nextSerial(floor, d.store.clock());
  };

  /**
   * The rrsets as the nameserver serves them: each ALIAS as the A and AAAA its target last resolved to
   * (zonefiles/alias.ts). The answers are read after the rrsets, so a text may carry an answer one generation newer
   * than its rrsets; the pass of that generation then serves the same again. A zone without ALIAS reads nothing more.
   */
  const servedOf = async (name: string, rrsets: RRset[]): Promise<RRset[]> => {
    if (!rrsets.some((r) => r.type === 'ALIAS')) return rrsets;
    const answers = new Map((await zoneAliasesOf(d.store, name)).aliases.flatMap((a) => (a.answer ? [[a.name, a.answer] as const] : [])));
    return servedRRsets(rrsets, (n) => answers.get(n));
  };

  /** Zones whose file the nameserver could not write the last time it tried: said once in the log, not at every
   * change and every retry (a full disk would fill the log with it), and once more when it is written again. */
  const unwritable = new Set<string>();
  const cannotWrite = (name: string, err: Error, message: string): void => {
    if (unwritable.has(name)) return;
    unwritable.add(name);
    d.log.warn({ zone: name, err: err.message }, message);
  };
  const written = (name: string): void => {
    if (unwritable.delete(name)) d.log.info({ zone: name }, 'the zone file is written again');
  };
  /** Whether `e` says the zone is served with its file lagging (the nameserver could not write it): said in the log,
   * and the file is written once due (flush). */
  const fileNotWritten = (name: string, e: unknown): e is ZoneFileNotWrittenError => {
    if (!(e instanceof ZoneFileNotWrittenError)) return false;
    cannotWrite(name, e, 'the zone is served; its zone file is written later');
    return true;
  };

  /** The whole zone from the store, loaded by the nameserver: the first time (every zone at start), or when
   * the served state is not known. Undefined when the zone was deleted, or its signing moved, since `z`. */
  const applyWhole = async (
    z: ZoneRow, serialOf: (z: ZoneRow) => number, signing: Signing, servedBefore: (z: ZoneRow, serial: number) => boolean,
  ): Promise<Served | undefined> => {
    const { name } = z;
    // The write that woke this pass is answered first: its commit's sync, then the answer's own turn, then the read.
    await d.store.synced();
    await ioTurn();
    const snap = await zoneSnapshot(d.store, name);
    if (!snap || signingMoved(z, snap.zone)) return undefined;
    await ioTurn();
    const serial = serialOf(snap.zone);
    const rrsets = await servedOf(name, snap.rrsets);
    const text = renderZone({ name, soa: soaFor(name, serial, d.nameservers), rrsets });
    await ioTurn();
    await (await readyToServe(name, snap.zone, serial, signing)).durable;
    let fileLags = false;
    try {
      await d.nameserver.applyZone(name, text, { ...signing, asServed: servedBefore(snap.zone, serial) });
    } catch (e) {
      // Served before this process started, from the nameserver's journal: no refusal, and the zone's next changes
      // may go incrementally while its file lags, as after a change whose file could not be written.
      if (!fileNotWritten(name, e)) throw e;
      fileLags = true;
    }
    const keys = keyHashes(rrsets.map((r) => rrsetKey(r.name, r.type)));
    return { keys, uid: snap.zone.uid, generation: snap.zone.generation, serial, ...signing, ...(fileLags && { unsavedSince: now() }) };
  };

  /**
   * What changed since the served generation, as one incremental transaction: the changed rrsets rendered from
   * the change alone, and the served rrsets' keys saying which of them replace served ones. The zone file
   * comes with it, rendered whole from a fresh read, except for a zone of deferFileFrom rrsets or more: its
   * file follows later (flush), at most every fileSaveMs, while the nameserver's journal holds the
   * changes, so that a change of a large zone costs neither a read nor a render nor a write of the whole zone.
   * (The price: should serve die in between, the zone's status may not yet say the change was served, and the
   * restart then takes a serial above the served one rather than trust a file that lags: applyZone's asServed.)
   * Undefined when the zone must be loaded whole instead: another lifetime, a change of signing (the
   * nameserver signs or unsigns it all), more changed rrsets than both maxIncremental and a quarter of the
   * zone's (past that a whole reload is as fast; below it a zone of thousands of rrsets under a stream of writes
   * would be read and rendered whole by every pass, holding the event loop), deletions since whose tombstones were
   * pruned (store/rrset-tombstones.ts: this process served the zone before another's passes went past it), a write
   * between two reads, a change of signing since `z` (then the whole load finds it too), or a change the nameserver
   * refused. With it, what the nameserver's commit answer says it serves.
   */
  const applyDelta = async (
    z: ZoneRow, prev: Served, serialOf: (z: ZoneRow) => number, signing: Signing,
  ): Promise<{ served: Served; committed: CommittedSerial } | undefined> => {
    const { name } = z;
    const open = d.nameserver.openChanges?.bind(d.nameserver);
    const sameSigning = signing.dnssec === prev.dnssec && signing.deleteDs === !!prev.deleteDs;
    if (!open || !sameSigning) return undefined;
    // Where no floor is likely to be written first (floorNeeded), the nameserver's transaction is begun while the
    // change is read: knotd's answer to its begin then travels during the reads instead of after them. Elsewhere it
    // is begun once the floor's write committed, since knotd takes one control connection at a time, for all zones,
    // and drops one idle past its control timeout.
    let txn = d.soleLeader && !signing.dnssec ? open(name) : undefined;
    let applying: Promise<CommittedSerial> | undefined;
    try {
      // The zone as the pass saw it sizes the bound; a write since that grows it past this pass's bound only costs a
      // whole load. What this process's writes handed over spares reading back what they just wrote; it goes to the
      // generation the pass began with, and a write since wakes another pass.
      const atMost = Math.max(maxIncremental, Math.floor(z.rrsetCount / 4));
      const delta = zoneChangesHandedOver(d.store, z, prev.generation, atMost) ?? await zoneChangesSince(d.store, name, prev.generation, atMost);
      if (!delta || 'more' in delta || delta.zone.uid !== prev.uid || signingMoved(z, delta.zone)) return undefined;
      /** The served rrsets' keys the change removes, and the line that removes each. */
      const removed = new Map<string, string>();
      for (const r of [...delta.removed, ...delta.changed]) {
        for (const type of servedTypes(r.type)) {
          const key = rrsetKey(r.name, type);
          if (hasKey(prev.keys, key)) removed.set(key, `${r.name}. ${type}`);
        }
      }
      const changes: ZoneChanges = { remove: [...removed.values()], add: [] };
      const added = await servedOf(name, delta.changed);
      for (const r of added) changes.add.push(...absoluteLines(name, r));
      const serial = serialOf(delta.zone);
      const soa = soaFor(name, serial, d.nameservers);
      changes.add.push(absoluteSoaLine(name, soa));
      const deferFile = delta.zone.rrsetCount >= deferFileFrom && !!d.nameserver.saveZoneFile;
      let text: string | null = null;
      if (!deferFile) {
        const snap = await zoneSnapshot(d.store, name);
        if (!snap || snap.zone.generation !== delta.zone.generation) return undefined;
        text = renderZone({ name, soa, rrsets: await servedOf(name, snap.rrsets) });
      }
      // The floor's write may wait behind the store's queue: not while knotd's control is held.
      if (txn && floorNeeded(delta.zone, serial, signing)) {
        txn.abandon();
        txn = undefined;
      }
      const { durable: notBefore } = await readyToServe(name, delta.zone, serial, signing);
      // The nameserver awaits it only once it took the commands; a failed sync is the catch's below.
      notBefore.catch(() => undefined);
      txn ??= open(name);
      let committed: CommittedSerial;
      /** The change is served and its file lags behind it, as a large zone's does: flush writes it. */
      let fileLags = deferFile;
      try {
        applying = txn.apply(changes, text, { notBefore });
        committed = await applying;
      } catch (e) {
        // What could not be made durable is the pass's failure (the store's), not the nameserver's.
        await notBefore;
        if (e instanceof StaleSerialError) throw e;
        if (!fileNotWritten(name, e)) {
          d.log.warn({ zone: name, err: (e as Error).message }, 'incremental change refused; loading the whole zone');
          return undefined;
        }
        committed = e.committed;
        fileLags = true;
      }
      const keys = changedKeys(prev.keys, [...removed.keys()], added.map((r) => rrsetKey(r.name, r.type)));
      return {
        served: {
          keys, uid: delta.zone.uid, generation: delta.zone.generation, serial, ...signing,
          ...(fileLags && { unsavedSince: prev.unsavedSince ?? now() }),
        },
        committed,
      };
    } finally {
      // Not applied (the zone loads whole instead, or the pass failed): the zone's other operations wait for its end.
      if (txn && !applying) txn.abandon();
    }
  };

  /** Writes the zone file of a zone whose changes went to the nameserver without it, from the applied state. */
  const saveFile = async (name: string, s: Served): Promise<void> => {
    // Changed since: the next pass applies that and saves then. Under a stream of writes that is most passes, and
    // the zone row tells without a read of every rrset.
    const moved = (z: ZoneRow | undefined): boolean => !z || z.uid !== s.uid || z.generation !== s.generation;
    if (moved(await zoneByName(d.store, name))) return;
    const snap = await zoneSnapshot(d.store, name);
    if (!snap || moved(snap.zone)) return;
    const text = renderZone({ name, soa: soaFor(name, s.serial, d.nameservers), rrsets: await servedOf(name, snap.rrsets) });
    if (await d.nameserver.saveZoneFile!(name, text)) delete s.unsavedSince;
  };

  return {
    /** What this process applied of `name` and has not seen drift from since. */
    served: (name: string): Served | undefined => served.get(name),
    /** What `name` serves is not known any more (purged, or it drifted): the next apply loads it whole. */
    forget: (name: string): void => {
      served.delete(name);
      unwritable.delete(name);
    },
    /**
     * Brings the nameserver to `z` at `signing`: nothing when it serves that already, else the change since the
     * served generation or the whole zone. Answers what is served now, whether this call applied it, and the serial
     * the nameserver's commit answer said it serves (an incremental change to an unsigned zone; null otherwise:
     * only a query tells); undefined when the zone was deleted, or DNSSEC turned on or off, meanwhile.
     */
    async apply(z: ZoneRow, st: ZoneStatus | undefined, signing: Signing): Promise<{ served: Served; acted: boolean; committed: CommittedSerial } | undefined> {
      const known = served.get(z.name);
      if (known && known.generation === z.generation && known.dnssec === signing.dnssec && !!known.deleteDs === signing.deleteDs) {
        return { served: known, acted: false, committed: null };
      }
      const above = known ? undefined : await floorToPass(z, st, signing.dnssec);
      const serialOf = (row: ZoneRow): number => textSerial(row, row.uid === z.uid ? st : undefined, signing.dnssec, above);
      // This text was applied and checked served before (a restart since: what is served is known, not its file).
      const servedBefore = (row: ZoneRow, serial: number): boolean => row.uid === z.uid && !!st && st.observedGeneration === row.generation
        && st.facts.renderedSerial === serial && st.conditions.some((c) => c.type === 'Ready' && c.status === 'True' && c.observedGeneration === row.generation);
      // Until the nameserver took it, what it serves is not known for sure.
      served.delete(z.name);
      const delta = known && (await applyDelta(z, known, serialOf, signing));
      const taken = delta ? delta.served : await applyWhole(z, serialOf, signing, servedBefore);
      if (!taken) return undefined;
      served.set(z.name, taken);
      if (taken.unsavedSince === undefined) written(z.name);
      return { served: taken, acted: true, committed: delta ? delta.committed : null };
    },
    /** The nameserver was seen serving `serial` of `row` with `signing`: the store's floor goes up to it (a signer's own
     * increments), as a write that need not wait for the disk where the row's own serial is that floor already. */
    recordServed: (name: string, row: ZoneRow, signing: Signing, serial: number): Promise<void> =>
      recordFloor(name, serial, { durable: floorNeeded(row, serial, signing) }),
    /** Writes the file of `s` once it is due. Answers in how long to look again, undefined when no file lags. */
    async flush(name: string, s: Served): Promise<number | undefined> {
      if (s.unsavedSince === undefined) return undefined;
      const due = s.unsavedSince + fileSaveMs - now();
      if (due <= 0) await saveFile(name, s).catch((e: Error) => cannotWrite(name, e, 'could not write the zone file; trying again every second'));
      if (s.unsavedSince !== undefined) return Math.max(due, FILE_RETRY_MS);
      written(name);
      return undefined;
    },
  };
}

export type ZoneApplier = ReturnType<typeof zoneApplier>;
