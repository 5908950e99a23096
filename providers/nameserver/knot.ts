/**
 * The nameserver port on Knot DNS: `knotd` runs as our child process (the hidden primary) with a generated
 * configuration in `dir`, serving the zone files we write to `zonesDir`. Knot facts: the design notes'
 * docs/dns.md; what this adapter relies on is exercised in `test/providers/nameserver/knot.test.ts`.
 *
 * Run-time changes go to the control socket. The zone set: a `knotc` configuration transaction (constant
 * cost, where `knotc reload` re-reads every zone's configuration: 40 ms against 510 ms with 10,000 zones),
 * each change also written to `knot.conf` so that a restarted knotd comes back with the same zones. Zone
 * data, the hot path, speaks the control protocol itself (knot-ctl.ts), sparing a knotc process start
 * (~8 ms) per change: the file replaced, then a blocking `zone-reload`, which returns once the zone is loaded
 * (and signed) or has failed to load. applyChanges: one zone transaction on one connection, served when it
 * commits; at 100 rrsets about 1 ms where a reload took 1.5 (and on a 100k-rrset zone about half a reload's
 * time: no re-parse). Zone files are derived state and are not fsynced; what a crash of the machine does to
 * them and to knotd's journal is handled at start (forgetAfterMachineCrash).
 *
 * Knot 3.2's control socket handles one command at a time, and a blocking reload holds it: while a 100k
 * zone reloads (~150 ms) every other knotc command, for any zone, waits.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { createSocket } from 'node:dgram';
import { connect, createServer, isIPv6 } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { Logger } from '../../lib/log';
import { soaSerialServed, udpQuery } from './dns-query';
import { removeFileDurably, replaceFile, stageFile, writeFileDurably, type StagedFile } from '../../lib/files';
import { ControlLine, CtlError, type CtlData, type KnotControl } from './knot-ctl';
import {
  configuredZones, formatHostPort, knotPaths, parseHostPort, policyOf, renderKnotConfig, signingOf, zoneFileNames, zoneFilePath, zoneFqdn,
  type Signing, type TsigKey,
} from './knot-config';
import { sameKeys, StaleSerialError, ZoneFileNotWrittenError, type ChangeTransaction, type CommittedSerial, type DnssecKey, type DsRecord, type Nameserver, type NameserverHealth, type SecondarySerial, type ZoneChanges, type ZoneConfig } from './port';
import { parseDsRecords, parseRecordLine, serialAbove, soaSerial, type RecordLine } from './zone-text';
import { isZoneName } from '../../zonefiles/names';
import { processAlive } from '../../lib/process-alive';

const run = promisify(execFile);

const RESTART_FIRST_DELAY_MS = 250;
const RESTART_MAX_DELAY_MS = 30_000;
/** A knotd that ran this long before crashing is restarted without the accumulated backoff. */
const STABLE_AFTER_MS = 30_000;
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
/** knotc's own control timeout (seconds): a blocking reload and signing of a large zone take seconds. */
const KNOTC_TIMEOUT_S = '300';
const CONTROL_TIMEOUT_MS = Number(KNOTC_TIMEOUT_S) * 1000;
/** A control connection is kept for the next change until this long after it opened (ControlLine): below knotd's 5 s
 * control timeout, and about the longest another program's knotc waits during a stream of changes. */
const CONTROL_KEPT_MS = 2000;
const RECENT_ERRORS = 200;
/** A secondary that does not answer its SOA query in this long counts as not serving the zone. */
const SECONDARY_QUERY_MS = 1_000;

/** Finds an executable on PATH or in the sbin directories Debian installs Knot into (often not on PATH). */
export function findExecutable(name: string): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs) {
    if (!dir) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** The Knot DNS programs this adapter runs; null when knotd or knotc is not installed (then nothing can
 * serve zone files, and `serve` says so in zone status). */
export function findKnot(): { knotd: string; knotc: string; keymgr: string | null } | null {
  const knotd = findExecutable('knotd');
  const knotc = findExecutable('knotc');
  return knotd && knotc ? { knotd, knotc, keymgr: findExecutable('keymgr') } : null;
}

export interface KnotNameserverOptions {
  /** knotd's own directory: `knot.conf`, `run/` (control socket), `db/` (journal, timers, DNSSEC keys). */
  dir: string;
  /** Where zone files live, `<zone>.zone`; written only by this adapter. */
  zonesDir: string;
  /** `ip:port` knotd answers on, e.g. `127.0.0.1:8053`; port 0: a port free for UDP and TCP, picked at each
   * start() (address() says which). */
  listen: string;
  /** Secondaries (`ip:port`): NOTIFY goes to them on every change, and their addresses may AXFR/IXFR. */
  notify?: string[];
  /** Signs NOTIFY; transfers need it. */
  tsig?: TsigKey | null;
  /** Program paths; default: found on PATH or in /usr/sbin. */
  knotd?: string;
  knotc?: string;
  keymgr?: string;
  /** knotd's own log lines come here too (info as debug, notice as info). Default: discarded. */
  logger?: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Stop a knotd that answers on `dir`'s control socket at start(). Only for a caller that has `dir` to
   * itself (serve and core hold the data dir lock): that knotd is then one an earlier holder left behind, and
   * it keeps the port. Without it, start() fails beside a live knotd and leaves it alone. */
  takeOver?: boolean;
  /** Until how long after it opened a control connection is kept for the next change (ControlLine). Default 2 s,
   * below knotd's control timeout. */
  controlKeptMs?: number;
}

interface Proc {
  child: ChildProcess;
  startedAt: number;
  ready: boolean;
  /** Resolves with a description of how the process ended. */
  exited: Promise<string>;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Serializes async functions: each runs after the previous one settled. */
function serializer(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (fn) => {
    const result = tail.then(fn);
    tail = result.catch(() => undefined);
    return result;
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Zone texts up to this size are put in place before their transaction commits (applyChanges). */
const EARLY_FILE_BYTES = 64 * 1024;

/** In knotd's directory while its journal may hold writes that are not on disk yet: the machine's boot id. */
const JOURNAL_MARK = 'journal-unsynced';

/** This boot of the machine (Linux); null where it cannot be told, and then neither can a crash. */
const bootId = (): Promise<string | null> => readFile('/proc/sys/kernel/random/boot_id', 'utf8').then((s) => s.trim(), () => null);

async function readFileOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

class Knot implements KnotNameserver {
  private readonly paths: ReturnType<typeof knotPaths>;
  private readonly line: ControlLine;
  private server: { host: string; port: number };
  /** The address knotd binds (`server` is where we ask it, loopback for a wildcard); port 0 until start() picks one. */
  private listenOn: { host: string; port: number };
  /** `listen` as given: port 0 there means a port is picked again at each start(). */
  private readonly listenGiven: { host: string; port: number };
  private readonly bin: { knotd: string; knotc: string; keymgr: string };
  private readonly setpriv = findExecutable('setpriv');
  private readonly log: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
  /** The configured zone set: name → signing. Mirrors knot.conf and knotd's live configuration. */
  private configured = new Map<string, Signing>();
  private proc: Proc | null = null;
  /** Standing by (standBy): knotd runs with no zone at all. */
  private idle = false;
  private running = false;
  private wanted = false;
  private lastError: string | null = null;
  private restarts = 0;
  private failedStarts = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private recentErrors: { seq: number; line: string }[] = [];
  private errorSeq = 0;
  private readonly configChange = serializer();
  private launches = 0;
  private readonly restartListeners: (() => void)[] = [];
  private readonly zoneQueues = new Map<string, Promise<unknown>>();
  /** The serial of the zone text knotd last took for each zone (applyZone, applyChanges). */
  private readonly applied = new Map<string, number>();

  private readonly opts: KnotNameserverOptions;

  constructor(given: KnotNameserverOptions) {
    // knotd resolves relative paths in its config against its rundir, not our working directory.
    const opts = { ...given, dir: resolve(given.dir), zonesDir: resolve(given.zonesDir) };
    this.opts = opts;
    this.paths = knotPaths(opts.dir);
    this.line = new ControlLine(this.paths.socket, opts.controlKeptMs ?? CONTROL_KEPT_MS);
    const listen = parseHostPort(opts.listen, true);
    this.listenGiven = listen;
    this.listenOn = listen;
    this.server = askAt(listen);
    this.bin = {
      knotd: opts.knotd ?? findExecutable('knotd') ?? 'knotd',
      knotc: opts.knotc ?? findExecutable('knotc') ?? 'knotc',
      keymgr: opts.keymgr ?? findExecutable('keymgr') ?? 'keymgr',
    };
    this.log = opts.logger ?? silent;
    // Fail at construction, not at the first zone change, on a bad listen or secondary address.
    this.renderConfig([]);
  }

  async start(zones: ZoneConfig[]): Promise<void> {
    if (this.wanted) throw new Error('knotd is already started');
    // A zone whose name knotd could not take must not keep it from serving every other zone.
    const [servable, unservable] = [zones.filter((z) => isZoneName(z.name)), zones.filter((z) => !isZoneName(z.name))];
    if (unservable.length > 0) this.log.warn({ zones: unservable.map((z) => z.name) }, 'knot: zones with names that break the zone name rule are not served');
    // Signing as knotd last accepted it (knot.conf keeps that): a zone whose signing was refused, say for an
    // rrset it cannot sign, would otherwise come back signed and answer SERVFAIL. The reconciler then moves
    // each zone to what is desired, and a refusal leaves it serving.
    // Zones knotd had that nobody asked for now stay configured, so that their journal and keys can be
    // purged (knotd purges configured zones only): the reconciler finds them in zones() and removes them.
    const accepted = configuredZones((await readFileOrNull(this.paths.config))?.toString('utf8') ?? '');
    this.configured = this.idle ? new Map() : new Map([...accepted, ...servable.map((z): [string, Signing] => [z.name, accepted.get(z.name) ?? signingOf(z)])]);
    await mkdir(this.paths.rundir, { recursive: true });
    await mkdir(this.paths.db, { recursive: true, mode: 0o700 });
    await mkdir(this.opts.zonesDir, { recursive: true });
    // Before knot.conf is written: a knotd that is not ours to stop must find its configuration as it was.
    await this.stopStaleKnotd();
    await this.forgetAfterMachineCrash();
    // Another program on the DNS address would make every launch fail: a configuration error, not a crash to
    // supervise.
    if (this.listenGiven.port === 0) {
      this.listenOn = { ...this.listenGiven, port: await freeDnsPort(this.listenGiven.host) };
      this.server = askAt(this.listenOn);
    } else if (await addressInUse(this.listenOn)) {
      throw new AddressInUseError(`the DNS address ${this.opts.listen} (--dns-listen) is in use`);
    }
    await this.writeConfig();
    this.lastError = null;
    this.restarts = 0;
    this.failedStarts = 0;
    await this.launchSupervised();
  }

  async stop(): Promise<void> {
    await this.halt();
    await this.journalOnDisk();
  }

  address(): { host: string; port: number } {
    return { ...this.listenOn };
  }

  async standBy(): Promise<void> {
    this.idle = true;
    this.configured = new Map();
    if (this.wanted) await this.relaunch(async () => undefined);
  }

  async lead(zones: ZoneConfig[], keys: Map<string, DnssecKey[]>): Promise<boolean> {
    const stoodBy = this.idle;
    const differ: string[] = [];
    for (const [name, want] of keys) {
      const have = stoodBy ? [] : await this.dnssecKeys(name);
      if (!sameKeys(have, want)) differ.push(name);
    }
    if (!stoodBy && differ.length === 0) return false;
    this.idle = false;
    await this.relaunch(async () => {
      if (stoodBy) {
        // What this knotd served before it stood by is older than what the leader since served: the zone
        // reconciler loads every zone again, from the store, above the serials served meanwhile.
        await Promise.all(['journal', 'timers', 'keys'].map((sub) => rm(join(this.paths.db, sub), { recursive: true, force: true })));
        await Promise.all((await zoneFileNames(this.opts.zonesDir)).map((name) => rm(zoneFilePath(this.opts.zonesDir, name), { force: true })));
        this.configured = new Map(zones.filter((z) => isZoneName(z.name)).map((z): [string, Signing] => [z.name, signingOf(z)]));
      }
      // keymgr reads the KASP database's place and the zones' policies from knot.conf.
      await this.writeConfig();
      for (const name of differ) await this.replaceKasp(name, keys.get(name)!);
    });
    return stoodBy;
  }

  async dnssecKeys(name: string): Promise<DnssecKey[]> {
    const fqdn = zoneFqdn(name);
    let listed: Record<string, unknown>[];
    try {
      const { stdout } = await run(this.bin.keymgr, ['-c', this.paths.config, '-j', fqdn, 'list']);
      listed = JSON.parse(stdout || '[]') as Record<string, unknown>[];
    } catch (err) {
      throw new Error(`keymgr ${fqdn} list: ${commandError(err)}`);
    }
    const keys: DnssecKey[] = [];
    for (const { zone: _zone, id, ...attrs } of listed) {
      // A public-only key has no private key to carry over; hostplane never imports one.
      if (attrs['public-only'] === true || typeof id !== 'string') continue;
      const pem = await readFileOrNull(join(this.paths.db, 'keys', 'keys', `${id}.pem`));
      if (pem) keys.push({ keyId: id, attrs, pem: pem.toString('utf8') });
    }
    return keys;
  }

  onRestarted(listener: () => void): void {
    this.restartListeners.push(listener);
  }

  health(): NameserverHealth {
    return {
      running: this.running,
      lastError: this.lastError,
      pid: this.running ? (this.proc?.child.pid ?? null) : null,
      restarts: this.restarts,
    };
  }

  async applyZone(name: string, zoneText: string, opts: { dnssec: boolean; deleteDs?: boolean; asServed?: boolean }): Promise<void> {
    const fqdn = zoneFqdn(name);
    const serial = soaSerial(zoneText);
    const signing = signingOf(opts);
    return this.oneAtATime(name, async () => {
      this.requireRunning();
      const path = zoneFilePath(this.opts.zonesDir, name);
      const text = Buffer.from(zoneText);
      const previous = await readFileOrNull(path);
      const configured = this.configured.get(name);
      const fileChanged = !previous?.equals(text);
      const configChanged = configured !== signing;
      const served = await this.servedSerial(name);
      if (served !== null) {
        // The file alone does not say it is served: one left in place by a transaction that did not commit
        // is not, until a reload.
        if (!fileChanged && !configChanged && (opts.dnssec || served === serial)) return;
        // The caller knows knotd serves this very text at this serial, from its journal while the file lagged (a
        // large zone's changes go there first, its file follows: saveZoneFile): the file catches up, nothing is
        // reloaded, and the serial stays the zone's own.
        if (opts.asServed && !opts.dnssec && !configChanged && served === serial) {
          // Served at this serial whether or not the file can be written: saveZoneFile may write it later.
          this.applied.set(name, serial);
          await this.writeServedFile(name, path, text, serial);
          return;
        }
        // Signed, knotd serves at least text serial + 1, so the served serial itself is still a step up.
        if (opts.dnssec ? serialAbove(served, serial) : !serialAbove(serial, served)) throw new StaleSerialError(name, serial, served);
      }

      // Not fsynced: a zone file is derived from the store, and the zone reconciler renders and compares every
      // zone at start, so a file a crash of the machine took back is rewritten then.
      if (fileChanged) await replaceFile(path, text);
      const mark = this.errorSeq;
      try {
        // A configuration change makes knotd load the zone by itself, but without a way to wait for it.
        if (configChanged) await this.configure(name, signing);
        await this.line.commands([{ cmd: 'zone-reload', zone: fqdn, flags: 'B' }], CONTROL_TIMEOUT_MS);
        this.applied.set(name, serial);
      } catch (err) {
        // Put the last state knotd accepted back on disk, so that a restart cannot load the rejected text.
        try {
          if (fileChanged) await (previous ? replaceFile(path, previous) : removeFileDurably(path));
          if (configChanged) await this.configure(name, configured ?? null);
        } catch (undoErr) {
          this.log.error({ err: undoErr, zone: name }, 'knot: could not restore the previous zone state');
        }
        throw await this.withKnotdErrors(err, fqdn, mark);
      }
    });
  }

  applyChanges(name: string, changes: ZoneChanges, zoneText: string | null, opts: { notBefore?: Promise<void> } = {}): Promise<CommittedSerial> {
    return this.openChanges(name).apply(changes, zoneText, opts);
  }

  openChanges(name: string): ChangeTransaction {
    const fqdn = zoneFqdn(name);
    let deliver!: (change: { changes: ZoneChanges; zoneText: string | null; opts: { notBefore?: Promise<void> } } | null) => void;
    const delivered = new Promise<Parameters<typeof deliver>[0]>((resolve) => {
      deliver = resolve;
    });
    /** knotd serves an unsigned zone's SOA as it was set; a signed one's signer serves a serial of its own. */
    const committedSerial = (serial: number): CommittedSerial => (this.configured.get(name) === 'off' ? serial : null);
    const done = this.oneAtATime(name, async (): Promise<CommittedSerial> => {
      this.requireRunning();
      if (!this.configured.has(name)) throw new Error(`zone ${name} is not served: applyZone it first`);
      const path = zoneFilePath(this.opts.zonesDir, name);
      // A small zone's new file is written beside the old one while knotd takes the transaction's commands, and put
      // in place (without fsync, see applyZone) once it took them, before the transaction commits: its file
      // never lags behind what knotd serves. One that did would come back at a restart as another text with the
      // served serial, which only a serial above both settles (applyZone's StaleSerialError). A large zone's file
      // is written after the commit instead, since megabytes before it would hold the change back, or later still
      // (no text: saveZoneFile): should serve die in between, knotd's journal keeps the change and the next start
      // settles the file that way.
      let staged: StagedFile | null = null;
      let committed = false;
      /** The connection ends with no transaction open on it and no answer outstanding: the line may keep it. */
      let inStep = false;
      let ctl: KnotControl | undefined;
      const mark = this.errorSeq;
      try {
        // One control connection for the whole transaction, which commits only when knotd took every command. The
        // transaction is begun, and the served serial read in it, while the caller still reads its change.
        ctl = this.line.take();
        const begun = ctl.pipeline([{ cmd: 'zone-begin', zone: fqdn }, { cmd: 'zone-get', zone: fqdn, owner: fqdn, type: 'SOA' }], CONTROL_TIMEOUT_MS);
        begun.catch(() => undefined);
        const change = await delivered;
        if (!change) {
          await begun;
          await this.abortTransaction(ctl, fqdn);
          inStep = true;
          return null;
        }
        const { changes, zoneText, opts } = change;
        const { removes, adds, serial } = transactionOf(name, changes, zoneText);
        // The rest but the commit in one round trip; when the change does not go above the served serial, what was
        // sent is aborted unseen.
        const sent = ctl.pipeline([
          ...removes.map((r): CtlData => ({ cmd: 'zone-unset', zone: fqdn, owner: r.owner, type: r.type, ...(r.rdata ? { data: r.rdata } : {}) })),
          // The SOA is set like any record: knotd replaces the apex SOA with it.
          ...adds.map((r): CtlData => ({ cmd: 'zone-set', zone: fqdn, owner: r.owner, ttl: String(r.ttl), type: r.type, data: r.rdata })),
        ], CONTROL_TIMEOUT_MS);
        sent.catch(() => undefined);
        if (zoneText !== null && zoneText.length <= EARLY_FILE_BYTES) staged = stageFile(path, zoneText);
        const served = Number((await begun)[1]![0]?.data?.split(/\s+/)[2]);
        if (!Number.isInteger(served)) throw new Error(`zone ${name} is not served: applyZone it first`);
        await sent;
        if (!serialAbove(serial, served)) {
          await this.abortTransaction(ctl, fqdn);
          inStep = true;
          if (served === serial && zoneText !== null && (await readFileOrNull(path))?.equals(Buffer.from(zoneText))) return committedSerial(serial);
          throw new StaleSerialError(name, serial, served);
        }
        await opts.notBefore;
        staged?.place();
        await ctl.call({ cmd: 'zone-commit', zone: fqdn }, CONTROL_TIMEOUT_MS);
        committed = true;
        this.applied.set(name, serial);
        // knotd's one control connection, for every zone and any knotc, is not held while a large text is written.
        this.line.give(ctl, true);
        ctl = undefined;
        if (!staged && zoneText !== null) {
          await this.writeServedFile(name, path, zoneText, committedSerial(serial));
        }
        return committedSerial(serial);
      } catch (err) {
        if (err instanceof StaleSerialError || err instanceof ZoneFileNotWrittenError) throw err;
        // Also closes a transaction some earlier failure left open, so that a retry can begin one.
        if (ctl) await this.abortTransaction(ctl, fqdn).catch(() => undefined);
        throw await this.withKnotdErrors(err, fqdn, mark);
      } finally {
        if (ctl) this.line.give(ctl, inStep);
        // Otherwise the file knotd last accepted goes back, as applyZone leaves it.
        try {
          if (committed) staged?.keep();
          else staged?.undo();
        } catch (err) {
          this.log.error({ err, zone: name }, 'knot: could not settle the zone file');
        }
      }
    });
    let state: 'open' | 'applied' | 'abandoned' = 'open';
    // Abandoned, or failed before its change came: nobody awaits it.
    done.catch((err: Error) => {
      if (state !== 'applied') this.log.warn({ zone: name, err: err.message }, 'knot: a zone transaction given up failed to end cleanly');
    });
    return {
      apply: (changes, zoneText, opts = {}) => {
        if (state !== 'open') return Promise.reject(new Error(`zone ${name}: this transaction has ended already`));
        state = 'applied';
        deliver({ changes, zoneText, opts });
        return done;
      },
      abandon: () => {
        if (state !== 'open') return;
        state = 'abandoned';
        deliver(null);
      },
    };
  }

  /**
   * Ends the zone's open transaction in knotd. A transaction outlives its connection: knotd drops one idle past its
   * control timeout (5 s), or it failed under way, and its transaction would stay open, where every later blocking
   * reload of the zone waits behind it and holds knotd's one control thread, for every zone, until a restart. So
   * when the connection cannot carry the abort, a new one does.
   */
  private async abortTransaction(ctl: KnotControl, fqdn: string): Promise<void> {
    try {
      await ctl.call({ cmd: 'zone-abort', zone: fqdn }, CONTROL_TIMEOUT_MS);
    } catch (err) {
      if (err instanceof CtlError) throw err;
      ctl.close();
      await this.line.commands([{ cmd: 'zone-abort', zone: fqdn }], CONTROL_TIMEOUT_MS);
    }
  }

  /**
   * knotd writes its journal without waiting for the disk (knot-config.ts), and zone files are replaced without
   * fsync: after a crash of the machine while knotd ran, the journal may be torn (knotd might not even load a
   * zone over it) or short of its last changes, and a zone file older than what was served. Then both go, before
   * knotd starts: it comes up without the zones' data, and the zone reconciler renders every zone again from the
   * store, so that nothing older than what was served is answered. A crash of serve or knotd alone loses
   * nothing (the page cache keeps their writes), and neither does a clean stop (journalOnDisk). The machine's
   * boot id, written to JOURNAL_MARK before knotd runs and removed once the journal is on disk, tells them apart.
   */
  private async forgetAfterMachineCrash(): Promise<void> {
    const mark = join(this.opts.dir, JOURNAL_MARK);
    const [marked, boot] = await Promise.all([readFileOrNull(mark), bootId()]);
    if (boot === null) return;
    if (marked !== null && marked.toString() !== boot) {
      this.log.warn({}, 'knot: the machine went down while knotd ran; its journal and the zone files go, and every zone is rendered again');
      await rm(join(this.paths.db, 'journal'), { recursive: true, force: true });
      await Promise.all((await zoneFileNames(this.opts.zonesDir)).map((name) => rm(zoneFilePath(this.opts.zonesDir, name), { force: true })));
    }
    if (marked?.toString() !== boot) await writeFileDurably(mark, boot);
  }

  /** Once knotd has exited: its journal on disk, where a crash of the machine cannot tear it. */
  private async journalOnDisk(): Promise<void> {
    const mark = join(this.opts.dir, JOURNAL_MARK);
    if ((await readFileOrNull(mark)) === null) return;
    const journal = await open(join(this.paths.db, 'journal', 'data.mdb'), 'r').catch(() => null);
    if (journal) {
      try {
        await journal.sync();
      } finally {
        await journal.close();
      }
    }
    await removeFileDurably(mark);
  }

  async saveZoneFile(name: string, zoneText: string): Promise<boolean> {
    const path = zoneFilePath(this.opts.zonesDir, name);
    const serial = soaSerial(zoneText);
    return this.oneAtATime(name, async () => {
      // Only the text knotd serves: a file ahead of it would be served after a restart without ever being applied.
      if (this.applied.get(name) !== serial) return false;
      await replaceFile(path, zoneText);
      return true;
    });
  }

  async removeZone(name: string): Promise<void> {
    const fqdn = zoneFqdn(name);
    return this.oneAtATime(name, async () => {
      this.requireRunning();
      this.applied.delete(name);
      if (this.configured.has(name)) {
        // Purge while the zone is still configured (knotd refuses it afterwards): a zone added again must
        // not replay an old journal onto its new file, nor sign with the previous owner's keys.
        await this.knotc('-b', '-f', 'zone-purge', fqdn, '+expire', '+journal', '+timers', '+kaspdb');
        await this.configure(name, null);
      }
      await removeFileDurably(zoneFilePath(this.opts.zonesDir, name));
    });
  }

  async zones(): Promise<string[]> {
    return [...new Set([...this.configured.keys(), ...(await zoneFileNames(this.opts.zonesDir))])];
  }

  async servedSerial(name: string): Promise<number | null> {
    const fqdn = zoneFqdn(name);
    this.requireRunning();
    return soaSerialServed(this.server, fqdn);
  }

  async ds(name: string): Promise<DsRecord[]> {
    const fqdn = zoneFqdn(name);
    if ((this.configured.get(name) ?? 'off') === 'off') return [];
    try {
      const { stdout } = await run(this.bin.keymgr, ['-c', this.paths.config, fqdn, 'ds']);
      return parseDsRecords(stdout);
    } catch (err) {
      throw new Error(`keymgr ${fqdn} ds: ${commandError(err)}`);
    }
  }

  async confirmDs(name: string): Promise<void> {
    const fqdn = zoneFqdn(name);
    this.requireRunning();
    await this.line.commands([{ cmd: 'zone-ksk-submitted', zone: fqdn }], CONTROL_TIMEOUT_MS);
  }

  async secondarySerials(name: string): Promise<SecondarySerial[]> {
    const fqdn = zoneFqdn(name);
    return Promise.all((this.opts.notify ?? []).map(async (address) => ({
      address,
      serial: await soaSerialServed(parseHostPort(address), fqdn, SECONDARY_QUERY_MS).catch(() => null),
    })));
  }

  async notifySecondaries(name: string): Promise<void> {
    const fqdn = zoneFqdn(name);
    this.requireRunning();
    await this.line.commands([{ cmd: 'zone-notify', zone: fqdn }], CONTROL_TIMEOUT_MS);
  }

  /** The zone's KASP keys become exactly `keys` (knotd stopped: keymgr and knotd never write it at once). */
  private async replaceKasp(name: string, keys: DnssecKey[]): Promise<void> {
    const fqdn = zoneFqdn(name);
    const keymgr = async (...args: string[]): Promise<void> => {
      try {
        await run(this.bin.keymgr, ['-c', this.paths.config, fqdn, ...args]);
      } catch (err) {
        throw new Error(`keymgr ${fqdn} ${args[0]}: ${commandError(err)}`);
      }
    };
    const have = await this.dnssecKeys(name);
    for (const k of have) await keymgr('delete', k.keyId);
    const pemFile = join(this.paths.db, 'import.pem');
    for (const k of keys) {
      await writeFile(pemFile, k.pem, { mode: 0o600 });
      try {
        await keymgr('import-pem', pemFile, ...importAttributes(k.attrs));
      } finally {
        await rm(pemFile, { force: true });
      }
    }
  }

  /** knotd stopped, `prepare` run, and knotd started again on the same address with the configuration as it is
   * then; like start(), a knotd that does not come up is retried in the background. */
  private async relaunch(prepare: () => Promise<void>): Promise<void> {
    await this.halt();
    this.applied.clear();
    await prepare();
    await this.writeConfig();
    await this.launchSupervised();
  }

  /** knotd stopped, and not restarted by the supervisor. */
  private async halt(): Promise<void> {
    this.wanted = false;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const proc = this.proc;
    // knotd stops between control connections: not while one of ours is kept.
    if (proc) {
      await this.line.apart(async () => {
        proc.child.kill('SIGTERM');
        const kill = setTimeout(() => proc.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await proc.exited;
        clearTimeout(kill);
      });
    }
  }

  private async launchSupervised(): Promise<void> {
    this.wanted = true;
    try {
      await this.launch();
    } catch (err) {
      // The caller goes on without DNS for now; the supervisor keeps trying, and health() says why it fails.
      this.lastError = (err as Error).message;
      this.scheduleRestart();
      throw err;
    }
  }

  // --- process supervision -------------------------------------------------------------------------

  private async launch(): Promise<void> {
    const mark = this.errorSeq;
    const args = ['-c', this.paths.config];
    // With a parent-death signal the kernel stops knotd if we die without stopping it, so no orphan keeps
    // the port and the data directory.
    const child = this.setpriv
      ? spawn(this.setpriv, ['--pdeathsig', 'TERM', this.bin.knotd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(this.bin.knotd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<string>((resolve) => {
      child.once('error', (err) => resolve(`could not run ${this.bin.knotd}: ${err.message}`));
      child.once('exit', (code, signal) => resolve(signal ? `killed by ${signal}` : `exit code ${code}`));
    });
    const proc: Proc = { child, startedAt: Date.now(), ready: false, exited };
    this.proc = proc;
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', (line) => this.onKnotdLine(line));
    }
    void exited.then((how) => this.onExit(proc, how));

    let gone = false;
    const ready = this.waitReady(proc, () => gone);
    const outcome = await Promise.race([ready.then(() => null), exited]);
    gone = true;
    if (outcome !== null) throw new Error(`knotd did not start (${outcome})${this.knotdErrorsSince(mark)}`);
    if (this.proc !== proc) throw new Error('knotd was stopped while starting');
    proc.ready = true;
    this.running = true;
    this.log.info({ pid: child.pid }, 'knot: knotd is serving');
    if (this.launches++ > 0) for (const listener of this.restartListeners) listener();
  }

  /** Ready = the control socket takes commands and the DNS port answers. */
  private async waitReady(proc: Proc, abandoned: () => boolean): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!abandoned()) {
      try {
        await this.knotc('status');
        await udpQuery(this.server, '.', 'SOA', 200);
        return;
      } catch (err) {
        if (Date.now() > deadline) {
          proc.child.kill('SIGKILL');
          throw new Error(`knotd did not answer within ${READY_TIMEOUT_MS} ms: ${(err as Error).message}`);
        }
        await sleep(20);
      }
    }
  }

  private onExit(proc: Proc, how: string): void {
    if (this.proc !== proc) return;
    this.proc = null;
    this.running = false;
    // launch() reports a process that never became ready; stop() expects the exit.
    if (!proc.ready || !this.wanted) return;
    this.restarts++;
    this.lastError = `knotd exited unexpectedly (${how})${this.knotdErrorsSince(Math.max(0, this.errorSeq - 3))}`;
    this.log.error({ pid: proc.child.pid }, `knot: ${this.lastError}`);
    if (Date.now() - proc.startedAt >= STABLE_AFTER_MS) this.failedStarts = 0;
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const delay = Math.min(RESTART_MAX_DELAY_MS, RESTART_FIRST_DELAY_MS * 2 ** this.failedStarts);
    this.failedStarts++;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.wanted) return;
      // The backoff is not reset when knotd comes up, only when it has run for STABLE_AFTER_MS (onExit): one
      // that exits right after answering (its port taken, another knotd on its socket) must not restart
      // every RESTART_FIRST_DELAY_MS.
      this.launch().catch((err: Error) => {
        if (!this.wanted) return;
        this.lastError = `knotd restart failed: ${err.message}`;
        this.log.error({}, `knot: ${this.lastError}`);
        this.scheduleRestart();
      });
    }, delay);
  }

  /** A knotd still answering on our control socket: with `takeOver` one left behind by an earlier holder of
   * the directory (its parent died without stopping it), which holds the port and has to go; without, maybe
   * another process's, which is not ours to stop. */
  private async stopStaleKnotd(): Promise<void> {
    try {
      await this.knotc('status');
    } catch {
      return;
    }
    if (!this.opts.takeOver) throw new Error(`a knotd is already running on ${this.paths.socket}, which another process may supervise`);
    this.log.warn({ socket: this.paths.socket }, 'knot: stopping a knotd left running on this directory');
    const pid = Number((await readFile(join(this.paths.rundir, 'knot.pid'), 'utf8').catch(() => '')).trim()) || undefined;
    await this.knotc('stop');
    // Its control socket closes before its DNS sockets do, and those before it exits: the new knotd needs the
    // port, and refuses to start while the process its PID file names is alive ("server PID found").
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (!processAlive(pid) && !(await tcpAccepts(this.server))) return;
      await sleep(50);
    }
    throw new Error(`a knotd left running on ${this.paths.socket} does not stop`);
  }

  private onKnotdLine(line: string): void {
    const m = /^\S+ (debug|info|notice|warning|error|critical): (.*)$/.exec(line);
    const level = m?.[1] ?? 'error';
    const msg = `knotd: ${m?.[2] ?? line}`;
    // knotd notices on every conf-begin that it runs from a file, not a configuration database: by design.
    const expected = msg.endsWith('persistent configuration database not available');
    // A NOTIFY a secondary did not take is logged once more as a failed event: the zone reconciler watches the
    // secondaries and sends it again (SecondariesInSync), so it is a warning, not an error of the nameserver.
    const notify = / zone event 'notify' failed/.test(msg);
    // knotd warns when it starts with no zones configured, which is every first start of serve and every standby.
    const noZones = level === 'warning' && msg.endsWith('no zones loaded');
    if (level === 'debug' || level === 'info' || expected) this.log.debug({}, msg);
    else if (level === 'notice' || noZones) this.log.info({}, msg);
    else if (level === 'warning' || notify) this.log.warn({}, msg);
    else {
      this.log.error({}, msg);
      this.recentErrors.push({ seq: ++this.errorSeq, line: m?.[2] ?? line });
      if (this.recentErrors.length > RECENT_ERRORS) this.recentErrors.shift();
    }
  }

  /** The first of knotd's error lines logged after `mark` (about `fqdn` if given: the most specific come
   * first), as a suffix for an error message. */
  private knotdErrorsSince(mark: number, fqdn?: string): string {
    const lines = this.recentErrors.filter((e) => e.seq > mark && (!fqdn || e.line.startsWith(`[${fqdn}]`))).map((e) => e.line);
    return lines.length > 0 ? `; knotd: ${lines.slice(0, 3).join('; ')}` : '';
  }

  /** Writes the file of a zone knotd serves already: a failure leaves the file lagging, no refusal of what is served. */
  private writeServedFile(name: string, path: string, text: string | Uint8Array, committed: CommittedSerial): Promise<void> {
    return replaceFile(path, text).catch((e: unknown) => {
      throw new ZoneFileNotWrittenError(name, committed, e);
    });
  }

  /** knotc only says "(failed)"; the reason is in knotd's log, which may trail the knotc answer a little. */
  private async withKnotdErrors(err: unknown, fqdn: string, mark: number): Promise<Error> {
    await sleep(20);
    const detail = this.knotdErrorsSince(mark, fqdn);
    return detail && err instanceof Error ? new Error(`${err.message}${detail}`, { cause: err }) : (err as Error);
  }

  // --- knotd configuration and control -------------------------------------------------------------

  private requireRunning(): void {
    if (!this.running) throw new Error(`knotd is not running${this.lastError ? ` (${this.lastError})` : ''}`);
  }

  private async knotc(...args: string[]): Promise<string> {
    try {
      // knotd serves its connection once none of ours is kept.
      const { stdout } = await this.line.apart(() => run(this.bin.knotc, ['-s', this.paths.socket, '-t', KNOTC_TIMEOUT_S, ...args], {
        maxBuffer: 64 * 1024 * 1024,
      }));
      return stdout;
    } catch (err) {
      throw new Error(`knotc ${args.join(' ')}: ${commandError(err)}`, { cause: err });
    }
  }

  private writeConfig(): Promise<void> {
    const zones = [...this.configured].map(([name, signing]) => ({ name, dnssec: signing !== 'off', deleteDs: signing === 'delete-ds' }));
    // 0600: it holds the TSIG secret (--tsig-key), which only this process and the knotd it runs may read.
    return writeFileDurably(this.paths.config, this.renderConfig(zones), 0o600);
  }

  private renderConfig(zones: ZoneConfig[]): string {
    const o = this.opts;
    return renderKnotConfig({ dir: o.dir, zonesDir: o.zonesDir, listen: formatHostPort(this.listenOn), notify: o.notify ?? [], zones, tsig: o.tsig, idle: this.idle });
  }

  /** Sets a zone's configuration (null: not configured) in knot.conf and, in one configuration
   * transaction, in the running knotd. */
  private configure(name: string, signing: Signing | null): Promise<void> {
    return this.configChange(async () => {
      const current = this.configured.get(name) ?? null;
      if (current === signing) return;
      const item = `zone[${zoneFqdn(name)}]`;
      const steps: string[][] = [];
      if (current === null) steps.push(['conf-set', item]);
      if (signing === null) steps.push(['conf-unset', item]);
      else if (signing === 'off') {
        if (current && current !== 'off') steps.push(['conf-unset', `${item}.dnssec-signing`], ['conf-unset', `${item}.dnssec-policy`]);
      } else {
        // Both policies have the same algorithm, so a zone moving between them keeps its keys.
        if (current !== 'on' && current !== 'delete-ds') steps.push(['conf-set', `${item}.dnssec-signing`, 'on']);
        steps.push(['conf-set', `${item}.dnssec-policy`, policyOf(signing)]);
      }

      const restore = (): Promise<void> => {
        if (current === null) this.configured.delete(name);
        else this.configured.set(name, current);
        return this.writeConfig();
      };
      if (signing === null) this.configured.delete(name);
      else this.configured.set(name, signing);
      await this.writeConfig();
      try {
        await this.knotc('conf-begin');
        for (const step of steps) await this.knotc(...step);
        await this.knotc('conf-commit');
      } catch (err) {
        // Also closes a transaction some earlier failure left open, so that a retry can begin one.
        await this.knotc('conf-abort').catch(() => undefined);
        await restore();
        throw err;
      }
    });
  }

  /** Runs operations on one zone one after another; different zones proceed concurrently. */
  private oneAtATime<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const result = (this.zoneQueues.get(name) ?? Promise.resolve()).then(fn);
    const tail = result.catch(() => undefined);
    this.zoneQueues.set(name, tail);
    void tail.then(() => {
      if (this.zoneQueues.get(name) === tail) this.zoneQueues.delete(name);
    });
    return result;
  }
}

/** A change's commands: the records it removes (the SOA aside: the added one replaces it) and adds, and the serial
 * it goes to, which the added apex SOA must carry (the zone text's, when there is one). */
function transactionOf(name: string, changes: ZoneChanges, zoneText: string | null): { removes: RecordLine[]; adds: RecordLine[]; serial: number } {
  const fqdn = zoneFqdn(name);
  const removes = changes.remove.map((line) => parseRecordLine(fqdn, line)).filter((r) => r.type !== 'SOA');
  const adds = changes.add.map((line) => parseRecordLine(fqdn, line));
  const soa = adds.filter((r) => r.type === 'SOA');
  const serial = zoneText === null ? Number(soa[0]?.rdata.split(/\s+/)[2]) : soaSerial(zoneText);
  if (soa.length !== 1 || soa[0]!.owner !== fqdn || soa[0]!.rdata.split(/\s+/)[2] !== String(serial)) {
    throw new Error(`zone ${name}: changes.add must hold the apex SOA with the zone text's serial ${serial}`);
  }
  const untimed = adds.find((r) => r.ttl === null);
  if (untimed) throw new Error(`zone ${name}: added record ${untimed.owner} ${untimed.type} has no TTL`);
  return { removes, adds, serial };
}

/** Timers keymgr lists and import-pem takes back (its names use `_` where the listing has `-`). */
const KEY_TIMERS = ['pre-active', 'publish', 'ready', 'active', 'retire-active', 'retire', 'post-active', 'revoke', 'remove'];

/** A listed key's role, algorithm and set timers as keymgr import-pem arguments. */
export function importAttributes(attrs: Record<string, unknown>): string[] {
  const out = [`ksk=${attrs.ksk ? 'yes' : 'no'}`, `zsk=${attrs.zsk ? 'yes' : 'no'}`, `algorithm=${Number(attrs.algorithm)}`, `size=${Number(attrs.size)}`];
  for (const t of KEY_TIMERS) if (Number(attrs[t]) > 0) out.push(`${t.replace(/-/g, '_')}=${Number(attrs[t])}`);
  return out;
}

/** knotd cannot listen: its address is taken by another program. */
export class AddressInUseError extends Error {
  override name = 'AddressInUseError';
}

/** Where we ask a knotd listening on `listen`: loopback for a wildcard address. */
const askAt = (listen: { host: string; port: number }): { host: string; port: number } => ({
  host: listen.host === '0.0.0.0' ? '127.0.0.1' : listen.host === '::' ? '::1' : listen.host,
  port: listen.port,
});

/** A port of `host` that is free for both UDP and TCP now (DNS needs both): the kernel picks the UDP one, and a
 * pick whose TCP twin is taken is tried again. */
export async function freeDnsPort(host: string): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const udp = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
    const port = await new Promise<number>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, host, () => resolve(udp.address().port));
    });
    const tcp = createServer();
    const tcpFree = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, host, () => resolve(true));
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (!tcpFree) continue;
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    return port;
  }
  throw new Error(`no port of ${host} is free for both UDP and TCP`);
}

/** Whether something else holds `host:port` for TCP or UDP (DNS needs both). */
export async function addressInUse(at: { host: string; port: number }): Promise<boolean> {
  const tcp = createServer();
  const tcpTaken = await new Promise<boolean>((resolve) => {
    tcp.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'EADDRINUSE'));
    tcp.listen(at.port, at.host, () => tcp.close(() => resolve(false)));
  });
  if (tcpTaken) return true;
  const udp = createSocket(isIPv6(at.host) ? 'udp6' : 'udp4');
  return new Promise<boolean>((resolve) => {
    udp.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'EADDRINUSE'));
    udp.bind(at.port, at.host, () => udp.close(() => resolve(false)));
  });
}

function tcpAccepts(server: { host: string; port: number }): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(server.port, server.host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function commandError(err: unknown): string {
  const e = err as { stderr?: string; stdout?: string; message?: string };
  return (e.stderr?.trim() || e.stdout?.trim() || e.message || String(err)).replace(/\s*\n\s*/g, '; ');
}

/** The Knot DNS adapter: the nameserver port with every optional part. */
export type KnotNameserver = Nameserver & Required<Pick<Nameserver, 'applyChanges' | 'saveZoneFile' | 'confirmDs' | 'secondarySerials' | 'notifySecondaries' | 'onRestarted' | 'address' | 'dnssecKeys' | 'lead' | 'standBy'>>;

/** The Knot DNS adapter of the nameserver port; nothing runs until start(). */
export function createKnotNameserver(opts: KnotNameserverOptions): KnotNameserver {
  return new Knot(opts);
}
