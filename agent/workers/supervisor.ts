/**
 * The node's workers: one per placed project, each serving its project's hostnames through the front end.
 *
 * A bundle is applied level-triggered: for each project the wanted worker (command + bindings, as a digest) is
 * compared with the running one, and only a project whose digest changed gets a new worker. A swap has no
 * downtime: the new worker is started and answers on its own socket (a new one each start) before the front end routes to it; the old one then
 * gets no new requests, finishes those it has (drain) and is stopped. A new worker that fails to start leaves the
 * old one serving, is logged (project and reason, never a value) and is retried with backoff; until it runs,
 * the node does not count that bundle version as applied. A worker that dies is restarted the same way.
 *
 * Who workers run as (agent/workers/users.ts): as root, each project's worker under its own uid; otherwise as the agent's
 * user, and then (unless allowed) the projects of one organization at a time: a project of another one is
 * refused like a worker that failed to start, until the projects of the one running are no longer placed here.
 */
import type { Logger } from '../../lib/log';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from '../sync/backoff';
import { bindings, specDigest, withheldSecrets } from './bindings';
import { projectKey, type BundleProject, type VersionedBundle } from '../sync/bundle';
import { pinDir, socketDir, storageDir, workerLogPath } from '../layout';
import { adoptNameKeyed, placesOf } from './lifetimes';
import { defaultWorkerUsers, hardenDir, MAX_WORKER_UID, prepareDatabase, prepareStorage, UserIndex, type WorkerUsers } from './users';
import { startWorker, WorkerStartError, type Worker, type WorkerSpec } from './worker-process';

export interface SupervisorOptions {
  /** The agent's `--dir`. */
  dir: string;
  /** The worker's argv (the built-in worker's, or `--worker` through the shell). */
  command: readonly string[];
  log: Logger;
  /** Starts a worker and resolves once it is ready (worker-process.ts by default). */
  start?: (spec: WorkerSpec) => Promise<Worker>;
  /** How long an old worker may take to finish its requests before it is stopped anyway (default 30 s). */
  drainTimeoutMs?: number;
  /** Delays between attempts to start a worker that failed. */
  retry?: BackoffOptions;
  /** Called whenever the applied version rises (the agent reports then). */
  onApplied?: (version: string) => void;
  /** Called whenever a project's applied version rises or its worker fails to start (the agent reports then):
   * one project whose worker cannot start does not hold the others' rollouts. */
  onProjectChange?: () => void;
  /** Who workers run as (default: agent/workers/users.ts defaultWorkerUsers, isolated when the agent runs as root). */
  users?: WorkerUsers;
}

/** Where a request for a hostname goes, with the project that holds it as the last applied bundle has it. */
export type Route =
  | { kind: 'unknown' }
  | { kind: 'unavailable'; key: string; project: BundleProject }
  | { kind: 'worker'; key: string; project: BundleProject; worker: Worker; release(): void };

/** A project as the supervisor last applied it, for reports and status. */
export interface ProjectState {
  key: string;
  org: string;
  project: string;
  /** The storage directory when storage is granted (its usage is reported). */
  storageDir: string | null;
  /** The bundle version its running worker was started with; null when none runs. */
  runningVersion: string | null;
  /** The newest bundle version the project runs as that bundle has it (its worker started, or kept when its
   * bindings did not change); null before its first worker runs. */
  appliedVersion: string | null;
  /** Why the wanted worker is not running, when it is not, in words its tenant may read (no path, no value). */
  failure: string | null;
}

/** What a failed start is reported as: the control plane shows it to the project's tenant, so a reason that may
 * name a node path (the node's own setup) is told as one phrase, and the node's log has the whole. */
export function reportedFailure(e: unknown): string {
  if (e instanceof WorkerStartError) return e.reported;
  const code = (e as NodeJS.ErrnoException).code;
  return code ? `the worker could not be started: ${code}` : 'the worker could not be started (the node\'s log says why)';
}

interface Slot {
  key: string;
  project: BundleProject;
  storageDir: string | null;
  wanted: WorkerSpec;
  current: Worker | null;
  failure: { digest: string; reason: string; reported: string; attempts: number } | null;
  /** ProjectState.appliedVersion. */
  appliedVersion: string | null;
  retry: NodeJS.Timeout | null;
  /** When its current worker started serving, and how many in a row exited within CRASH_WINDOW_MS of that. */
  servingSince: number;
  crashes: number;
}

/** A worker that exits this soon after it started serving crashed: the next start waits, growing each time. */
const CRASH_WINDOW_MS = 60_000;

export class Supervisor {
  private readonly slots = new Map<string, Slot>();
  private readonly routes = new Map<string, string>();
  private readonly inFlight = new Map<Worker, number>();
  private readonly idle = new Map<Worker, () => void>();
  private readonly stopping = new Set<Promise<void>>();
  /** Workers retired and not yet stopped. */
  private readonly retiring = new Set<Worker>();
  readonly users: WorkerUsers;
  private userIndex: UserIndex | null = null;
  /** Shared user, one organization at a time: the one whose projects may run now. */
  private allowedOrg: string | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private latest: string | null = null;
  private applied: string | null = null;
  private closed = false;
  private readonly start: (spec: WorkerSpec) => Promise<Worker>;

  constructor(private readonly opts: SupervisorOptions) {
    this.start = opts.start ?? ((spec) => startWorker(spec));
    this.users = opts.users ?? defaultWorkerUsers();
  }

  /** The highest bundle version whose every worker runs; null before the first. */
  appliedVersion(): string | null {
    return this.applied;
  }

  /** Applies `b` (after any apply still running); resolves when every changed project has its new worker
   * running or has failed to start (then retried in the background), with the projects that failed. */
  apply(b: VersionedBundle): Promise<{ failed: string[] }> {
    const run = this.chain.then(() => this.applyNow(b));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** The route for a request's Host (lower case, without port or trailing dot). Holding a worker route counts
   * as a request in flight on it until `release()`: the worker is not stopped before. */
  route(host: string): Route {
    const key = this.routes.get(host);
    const slot = key === undefined ? undefined : this.slots.get(key);
    if (!slot) return { kind: 'unknown' };
    const worker = slot.current;
    if (!worker) return { kind: 'unavailable', key: slot.key, project: slot.project };
    this.inFlight.set(worker, (this.inFlight.get(worker) ?? 0) + 1);
    let released = false;
    return {
      kind: 'worker', key: slot.key, project: slot.project, worker,
      release: () => {
        if (released) return;
        released = true;
        const n = (this.inFlight.get(worker) ?? 1) - 1;
        if (n > 0) return void this.inFlight.set(worker, n);
        this.inFlight.delete(worker);
        this.idle.get(worker)?.();
      },
    };
  }

  projects(): ProjectState[] {
    return [...this.slots.values()].map((s) => ({
      key: s.key, org: s.project.org, project: s.project.project, storageDir: s.storageDir,
      runningVersion: s.current?.spec.version ?? null, appliedVersion: s.appliedVersion, failure: s.failure?.reported ?? null,
    }));
  }

  /** Stops every worker (draining what they answer) and every retry. */
  async stop(): Promise<void> {
    this.closed = true;
    await this.chain;
    for (const slot of this.slots.values()) {
      if (slot.retry) clearTimeout(slot.retry);
      if (slot.current) this.retire(slot.current);
      slot.current = null;
    }
    this.slots.clear();
    this.routes.clear();
    await Promise.all([...this.stopping]);
  }

  private async applyNow(b: VersionedBundle): Promise<{ failed: string[] }> {
    if (this.closed) return { failed: [] };
    this.latest = b.version;
    const wanted = new Map<string, BundleProject>();
    for (const p of b.bundle.projects) wanted.set(projectKey(p), p);
    // Projects no longer placed here: not routed any more, their workers drained and stopped.
    for (const [key, slot] of this.slots) {
      if (wanted.has(key)) continue;
      if (slot.retry) clearTimeout(slot.retry);
      if (slot.current) this.retire(slot.current);
      slot.current = null;
      this.slots.delete(key);
      this.opts.log.info({ project: key }, 'project no longer placed on this node: its worker is stopped');
    }
    if (this.users.mode === 'isolated' && !this.userIndex) {
      hardenDir(this.opts.dir);
      this.userIndex = new UserIndex(this.opts.dir);
    }
    const changed: Slot[] = [];
    for (const [key, p] of wanted) {
      // A project the agent ran from a bundle without lifetimes keeps the places earlier agents made for it.
      adoptNameKeyed(this.opts.dir, p, this.slots.get(key)?.project);
      const { spec, storage } = this.specOf(p, b.version);
      let slot = this.slots.get(key);
      if (!slot) {
        slot = { key, project: p, storageDir: storage, wanted: spec, current: null, failure: null, appliedVersion: null, retry: null, servingSince: 0, crashes: 0 };
        this.slots.set(key, slot);
      }
      slot.project = p;
      slot.storageDir = storage;
      if (slot.wanted.digest !== spec.digest || !slot.current) {
        slot.wanted = spec;
        if (slot.current?.spec.digest !== spec.digest) changed.push(slot);
        else slot.failure = null; // back to what runs: a failed start in between no longer matters
      }
    }
    // Hostnames route to their project's current worker, which stays the old one until the new one is ready.
    this.routes.clear();
    for (const [key, p] of wanted) for (const h of p.hostnames) this.routes.set(h.toLowerCase().replace(/\.$/, ''), key);

    if (this.users.mode === 'shared' && !this.users.allowSeveralOrgs) {
      // The organization running stays; with none running, the first of the bundle's starts.
      this.allowedOrg = [...this.slots.values()].find((s) => s.current)?.project.org ?? b.bundle.projects[0]?.org ?? null;
      // A worker of another organization still draining is gone before one of this one starts.
      if ([...this.retiring].some((w) => w.spec.org !== this.allowedOrg)) await Promise.all([...this.stopping]);
    }
    const results = await Promise.all(changed.map(async (slot) => ((await this.replace(slot)) ? null : slot.key)));
    const failed = results.filter((k): k is string => k !== null);
    this.checkApplied();
    return { failed };
  }

  /** The uid and gid of the worker of `key` (a lifetime's, agent/workers/lifetimes.ts placesOf) when workers are
   * isolated. */
  userOf(key: string): { uid: number; gid: number } | null {
    if (this.users.mode !== 'isolated') return null;
    this.userIndex ??= new UserIndex(this.opts.dir);
    const id = this.users.uidBase + this.userIndex.indexOf(key);
    if (id > MAX_WORKER_UID) throw new Error(`no worker uid is left above --worker-uid-base ${this.users.uidBase}`);
    return { uid: id, gid: id };
  }

  /** The worker spec of `p` at `version`, creating its storage directory and database file (owned by the
   * project's user when workers are isolated). */
  private specOf(p: BundleProject, version: string): { spec: WorkerSpec; storage: string | null } {
    const key = projectKey(p);
    // Keyed by the project's lifetime: a project of a deleted one's name gets its own uid and database.
    const places = placesOf(this.opts.dir, p);
    const user = this.userOf(places.userKey);
    const storage = p.storage ? storageDir(this.opts.dir, p.storage.prefix) : null;
    let dbPath: string | null = null;
    let unusable: string | undefined;
    try {
      if (storage) prepareStorage(storage, user);
      // An empty file is an empty SQLite database: the worker's SQLite opens it as one.
      dbPath = p.database ? prepareDatabase(this.opts.dir, p.org, p.project, user, places.uid) : null;
    } catch (e) {
      unusable = `refused: ${(e as Error).message}`;
    }
    const withheld = withheldSecrets(p);
    if (withheld.length > 0) {
      // Names only: the values are not the agent's to log.
      this.opts.log.warn({ project: key, bundleVersion: version, names: withheld }, 'secrets that change how a process loads or runs are not passed to the worker');
    }
    const env = bindings(p, { storageDir: storage, dbPath });
    const spec: WorkerSpec = {
      key, org: p.org, project: p.project, version, command: this.opts.command, bindings: env, user,
      digest: specDigest(this.opts.command, env, user), logPath: workerLogPath(this.opts.dir, p.org, p.project),
      socketDir: socketDir(this.opts.dir, p.org, p.project), pinDir: pinDir(this.opts.dir), unusable,
    };
    return { spec, storage };
  }

  /** Why the worker of `spec` may not run now (its storage or database refused, or a shared user with another
   * organization running), for the log and as reported, or null. */
  private refusal(spec: WorkerSpec): { reason: string; reported: string } | null {
    if (spec.unusable) return { reason: spec.unusable, reported: 'the node could not prepare the project\'s storage or database' };
    if (this.users.mode !== 'shared' || this.users.allowSeveralOrgs || this.allowedOrg === null || spec.org === this.allowedOrg) return null;
    return {
      reason: `refused: workers run as the agent's user (it is not root) and could read the data of organization ${this.allowedOrg}, whose projects run here, and the bundle; --allow-shared-user runs several organizations anyway`,
      reported: 'refused: the node runs another organization\'s projects under the same user',
    };
  }

  /** Starts the slot's wanted worker; once ready it takes the routes and the old one is drained. False when it
   * failed (the old one keeps serving; a retry is scheduled). */
  private async replace(slot: Slot): Promise<boolean> {
    const spec = slot.wanted;
    if (slot.retry) {
      clearTimeout(slot.retry);
      slot.retry = null;
    }
    const refused = this.refusal(spec);
    if (refused) {
      // Like a failed start, without retries: the next bundle decides again.
      slot.failure = { digest: spec.digest, ...refused, attempts: 1 };
      this.opts.log.warn({ project: slot.key, bundleVersion: spec.version, reason: refused.reason }, 'the worker was not started');
      this.opts.onProjectChange?.();
      return false;
    }
    let worker: Worker;
    try {
      worker = await this.start(spec);
    } catch (e) {
      const attempts = slot.failure?.digest === spec.digest ? slot.failure.attempts + 1 : 1;
      slot.failure = { digest: spec.digest, reason: (e as Error).message, reported: reportedFailure(e), attempts };
      if (attempts === 1) this.opts.onProjectChange?.();
      const delay = backoffDelay(attempts, this.retryBackoff());
      this.opts.log.warn(
        { project: slot.key, bundleVersion: spec.version, reason: (e as Error).message, attempts, retryInMs: delay, serving: slot.current?.spec.version ?? null },
        slot.current ? 'the new worker failed to start: the old one keeps serving' : 'the worker failed to start',
      );
      this.scheduleRetry(slot, delay);
      return false;
    }
    if (this.closed || this.slots.get(slot.key) !== slot || slot.wanted.digest !== spec.digest) {
      // Superseded while it started (stopped, unplaced, or a newer spec): not needed.
      this.retire(worker);
      return slot.wanted.digest === spec.digest;
    }
    const old = slot.current;
    slot.current = worker;
    slot.failure = null;
    slot.servingSince = Date.now();
    this.watchExit(slot, worker);
    if (old) this.retire(old);
    this.opts.log.info({ project: slot.key, bundleVersion: spec.version, pid: worker.pid, replaced: old?.spec.version ?? null }, 'worker serving');
    return true;
  }

  private scheduleRetry(slot: Slot, delay: number): void {
    if (this.closed) return;
    slot.retry = setTimeout(() => {
      slot.retry = null;
      this.chain = this.chain.then(async () => {
        if (this.closed || this.slots.get(slot.key) !== slot) return;
        if (slot.current?.spec.digest === slot.wanted.digest) return;
        await this.replace(slot);
        this.checkApplied();
      }).catch(() => undefined);
    }, delay);
    slot.retry.unref();
  }

  /** A current worker that exits on its own is restarted (with backoff when it keeps failing). */
  private watchExit(slot: Slot, worker: Worker): void {
    void worker.exited.then((e) => {
      if (this.closed || slot.current !== worker) return;
      slot.current = null;
      // Once at once; a worker that keeps exiting soon after it starts (a crash loop) waits longer each time.
      slot.crashes = Date.now() - slot.servingSince < CRASH_WINDOW_MS ? slot.crashes + 1 : 1;
      const delay = slot.crashes <= 1 ? 0 : backoffDelay(slot.crashes - 1, this.retryBackoff());
      this.opts.log.warn({ project: slot.key, code: e.code, signal: e.signal, retryInMs: delay }, 'the worker exited: starting it again');
      this.scheduleRetry(slot, delay);
    });
  }

  private retryBackoff(): BackoffOptions {
    return this.opts.retry ?? { ...DEFAULT_BACKOFF, baseMs: 1000, maxMs: 60_000 };
  }

  /** Takes `worker` out of service: it finishes the requests it has (up to the drain timeout), then stops. */
  private retire(worker: Worker): void {
    this.retiring.add(worker);
    const drained = new Promise<void>((resolve) => {
      if (!this.inFlight.get(worker)) return resolve();
      const timer = setTimeout(resolve, this.opts.drainTimeoutMs ?? 30_000);
      this.idle.set(worker, () => {
        clearTimeout(timer);
        resolve();
      });
    });
    const done = drained.then(() => worker.stop()).catch((e: Error) => {
      this.opts.log.error({ err: e.message, pid: worker.pid }, 'stopping a worker failed');
    }).finally(() => {
      this.retiring.delete(worker);
      this.idle.delete(worker);
      this.inFlight.delete(worker);
      this.stopping.delete(done);
    });
    this.stopping.add(done);
  }

  /** Raises each project's applied version to the latest bundle when its wanted worker runs, and the node's
   * when every project's does. */
  private checkApplied(): void {
    if (this.latest === null) return;
    let all = true;
    let raised = false;
    for (const slot of this.slots.values()) {
      if (slot.current?.spec.digest !== slot.wanted.digest) all = false;
      else if (slot.appliedVersion !== this.latest) {
        slot.appliedVersion = this.latest;
        raised = true;
      }
    }
    if (all && this.applied !== this.latest) {
      this.applied = this.latest;
      this.opts.onApplied?.(this.latest);
    } else if (raised) this.opts.onProjectChange?.();
  }
}
