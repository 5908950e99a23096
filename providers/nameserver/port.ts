/**
 * The nameserver port: what the zone reconciler needs from the hidden primary that serves rendered zone
 * files (Knot DNS in `serve`, see `knot.ts`). Zone names are absolute, lower case A-labels written without
 * the trailing dot (`example.com`), as in `zonefiles/model.ts`.
 */

/** A DS record for the parent zone, as the signer computed it from its KSK. */
export interface DsRecord {
  keyTag: number;
  /** 13 = ECDSAP256SHA256. */
  algorithm: number;
  /** 2 = SHA-256, 4 = SHA-384. */
  digestType: number;
  /** Upper-case hex. */
  digest: string;
}

/** The nameserver process as the supervisor sees it. */
export interface NameserverHealth {
  /** True while the server process is up and was seen answering. */
  running: boolean;
  /** Why the process last exited unexpectedly or failed to start; kept after a successful restart. */
  lastError: string | null;
  pid: number | null;
  /** Unexpected exits recovered from since start(). */
  restarts: number;
}

/** A DNSSEC key as the signer holds it: its id, what the signer says of it (role, algorithm, timers) and its
 * private key (PEM). */
export interface DnssecKey {
  keyId: string;
  attrs: Record<string, unknown>;
  pem: string;
}

/** The same keys in the same state: ids and everything the signer says of them. */
export const sameKeys = (a: Pick<DnssecKey, 'keyId' | 'attrs'>[], b: Pick<DnssecKey, 'keyId' | 'attrs'>[]): boolean => {
  const text = (ks: Pick<DnssecKey, 'keyId' | 'attrs'>[]): string => JSON.stringify([...ks].sort((x, y) => (x.keyId < y.keyId ? -1 : x.keyId > y.keyId ? 1 : 0)).map((k) => [k.keyId, k.attrs]));
  return text(a) === text(b);
};

/** A zone the server is configured with. */
export interface ZoneConfig {
  name: string;
  dnssec: boolean;
  /** Signed, and asking the parent to remove its DS (CDS/CDNSKEY DELETE, RFC 8078): the step before signing
   * goes off for a zone whose parent may still publish a DS, so that validation never breaks on the way. */
  deleteDs?: boolean;
}

/** What a secondary serves of a zone: its SOA serial, null when it does not serve the zone or did not answer. */
export interface SecondarySerial {
  /** `ip:port`, as configured. */
  address: string;
  serial: number | null;
}

/**
 * An incremental change to a served zone, one resource record per line in zone-file presentation format
 * (rdata as the zone file has it, e.g. from `renderRecordData`), owners absolute (trailing dot optional)
 * or `@`:
 * - `remove`: `owner type` drops the whole rrset, `owner [ttl] type rdata` one record (ttl ignored).
 *   SOA lines are ignored: the SOA in `add` replaces the served one.
 * - `add`: `owner ttl type rdata`. Must hold the new apex SOA, with the serial of the zone text that comes
 *   with the change.
 * A change that does not fit the served zone (removing what is not there, adding what is) is refused as a
 * whole: the caller's idea of the served zone is wrong, and only a full applyZone is safe then.
 */
export interface ZoneChanges {
  remove: string[];
  add: string[];
}

/**
 * The zone text's serial cannot be served: secondaries follow by serial, so serving it would leave them
 * on old data (or, for a serial below the served one, break their IXFR history). Re-render the zone with
 * a serial above `served` and apply again.
 */
export class StaleSerialError extends Error {
  override name = 'StaleSerialError';
  constructor(
    readonly zone: string,
    readonly serial: number,
    readonly served: number,
  ) {
    super(`zone ${zone}: serial ${serial} is not above the served serial ${served}`);
  }
}

/**
 * applyChanges committed the change, which is served, but could not write the zone text it was given (or applyZone
 * `asServed` could not write the text it serves already): the zone file lags behind what is served, as after
 * applyChanges without a text, until saveZoneFile writes it. Not a refusal: the change is not to be sent again, nor the
 * zone loaded whole (its serial is served already). Only a nameserver with saveZoneFile throws it.
 */
export class ZoneFileNotWrittenError extends Error {
  override name = 'ZoneFileNotWrittenError';
  constructor(
    readonly zone: string,
    readonly committed: CommittedSerial,
    cause: unknown,
  ) {
    super(`zone ${zone} is served, but its zone file could not be written (${(cause as Error)?.message ?? String(cause)})`, { cause });
  }
}

/** The zone's name is not one the nameserver can be configured with (a zone stored before the name rule
 * was strict): nothing about it reaches the server, and other zones are served as usual. Permanent. */
export class UnservableZoneError extends Error {
  override name = 'UnservableZoneError';
  constructor(readonly zone: string) {
    super(`zone name ${JSON.stringify(zone)} cannot be served: it breaks the zone name rule`);
  }
}

/**
 * The serial a zone serves once the server answered its change's commit: the change's own SOA where the server serves
 * what it was given (an unsigned zone), so that nobody need ask it over DNS; null where it serves a serial of its own
 * making (a signer's increments), which only servedSerial tells.
 */
export type CommittedSerial = number | null;

/** A change transaction opened ahead of its change (Nameserver.openChanges). */
export interface ChangeTransaction {
  apply(changes: ZoneChanges, zoneText: string | null, opts?: { notBefore?: Promise<void> }): Promise<CommittedSerial>;
  /** Ends it unapplied. */
  abandon(): void;
}

/**
 * The hidden primary. Every operation is idempotent; concurrent calls for one zone run one after another.
 * applyZone, applyChanges, removeZone and servedSerial throw while the server process is down (the
 * supervisor restarts it; retry later).
 */
export interface Nameserver {
  /** Configures exactly these zones (their files are served as they are on disk), starts the server and
   * resolves once it answers queries. When that fails it rejects, and keeps trying in the background (with
   * backoff, reported by health()) until stop(). */
  start(zones: ZoneConfig[]): Promise<void>;
  /** Stops the server and waits until its process has exited. */
  stop(): Promise<void>;
  /**
   * Makes the server serve `zoneText` (a complete zone file with its SOA) for `name`, signed or not. When it
   * resolves, the new data is served and the file and configuration on disk bring it back after a restart.
   * Applying what is already served does nothing. A zone text the server rejects throws and leaves the
   * previous data served.
   *
   * Serials: unsigned, the text's serial must be above the served one; signed, at least the served one
   * (the signer serves text serial + 1 or more: read it back with servedSerial). Otherwise StaleSerialError.
   * Turning DNSSEC off removes keys and signatures from the answers; its zone text must therefore carry a
   * serial above the served (signed) one.
   *
   * `asServed`: the caller applied exactly this text's content at this serial before and saw it served (its file
   * deferred, see saveZoneFile): an unsigned zone served at the text's serial then only gets its file written, and
   * when that write fails it stays served, its file lagging: ZoneFileNotWrittenError. Without it a different text at
   * the served serial is StaleSerialError, since secondaries follow by serial.
   */
  applyZone(name: string, zoneText: string, opts: { dnssec: boolean; deleteDs?: boolean; asServed?: boolean }): Promise<void>;
  /**
   * Optional fast path for a small change to a large served zone: applies `changes` (the difference between
   * the served zone and `zoneText`) as one atomic transaction without re-reading the zone file, then stores
   * `zoneText` as the zone file (null: not now, see saveZoneFile; the serial is then the added SOA's). The
   * text's serial must be above the served one, signed or not (StaleSerialError otherwise); fall back to
   * applyZone when this throws, but for ZoneFileNotWrittenError (committed and served, its file lagging).
   * `notBefore`: the transaction is sent at once and commits (is served, and notified to secondaries) only once this
   * resolves. Resolves with what the server's commit answer says it serves
   * ({@link CommittedSerial}).
   */
  applyChanges?(name: string, changes: ZoneChanges, zoneText: string | null, opts?: { notBefore?: Promise<void> }): Promise<CommittedSerial>;
  /**
   * applyChanges begun before its change is known (present wherever applyChanges is): the transaction is opened, and
   * what is served read in it, while the caller still reads its change, so that only the change and the commit
   * remain once it has. Exactly one of the transaction's `apply` (applyChanges' arguments and promise) or `abandon`
   * must follow; until then the zone's other operations wait.
   */
  openChanges?(name: string): ChangeTransaction;
  /**
   * With applyChanges' `zoneText` null the zone file is left behind what is served (the server's journal holds
   * the changes; after a restart of the server alone it serves them again): writing megabytes per change of a
   * large zone is what a change must not cost. This writes the file later, when `zoneText` is the text last
   * applied (its serial says so); otherwise it does nothing and answers false.
   */
  saveZoneFile?(name: string, zoneText: string): Promise<boolean>;
  /** Stops serving the zone (queries get REFUSED) and forgets it: file, journal and DNSSEC keys. Re-adding
   * the zone later signs it with new keys, so its DS at the parent must go first. */
  removeZone(name: string): Promise<void>;
  /** Every zone the server holds anything of (configuration, zone file), whether the store still has it
   * or not: what a reconciler must look at to remove what nobody wants. */
  zones(): Promise<string[]>;
  /** The SOA serial the server answers now; null when it does not serve the zone. */
  servedSerial(name: string): Promise<number | null>;
  /** DS records of the zone's KSKs for the parent; [] when the zone is not signed or has no keys yet. */
  ds(name: string): Promise<DsRecord[]>;
  /** Tells the signer the parent publishes a DS for its current KSK (the customer said so with setZoneDS): a
   * KSK waiting for that confirmation becomes active, so key rollovers can proceed. */
  confirmDs?(name: string): Promise<void>;
  /** The serial each configured secondary serves; [] without secondaries. */
  secondarySerials?(name: string): Promise<SecondarySerial[]>;
  /** Sends NOTIFY for the zone to every secondary again (one that was down lost the first). */
  notifySecondaries?(name: string): Promise<void>;
  /** The signer's keys of a signed zone, private keys included; [] when it has none. */
  dnssecKeys?(name: string): Promise<DnssecKey[]>;
  /**
   * Makes this server the hidden primary (its process leads): `keys` (by zone) are the signer's keys before it
   * signs anything, so a zone with stored keys is never given new ones, and `zones` are configured. A server that
   * stood by forgets all it served before (another one served since) and answers true; one that served already
   * keeps it and answers false.
   */
  lead?(zones: ZoneConfig[], keys: Map<string, DnssecKey[]>): Promise<boolean>;
  /** Serves nothing, not even the catalog zone (its process follows another leader): every query is REFUSED, so
   * no secondary takes stale or differently signed data from it. Before start(), start() comes up so. */
  standBy?(): Promise<void>;
  health(): NameserverHealth;
  /** Calls `listener` each time the server process is serving again after a restart: what it serves then comes
   * from its files and journal, which every zone's status must be checked against anew. */
  onRestarted?(listener: () => void): void;
  /** The address the server answers DNS on, once started: a port asked as 0 is the one it was given. */
  address?(): { host: string; port: number };
}
