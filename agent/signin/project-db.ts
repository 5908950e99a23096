/**
 * The agent's side of a project's database helper (db-helper.ts): the agent never opens a project's database
 * itself. The file is the worker's: a trigger or a view it adds can make a query run forever, and a lock it holds
 * makes SQLite wait, and better-sqlite3 waits synchronously, on the one event loop that serves every project; the
 * file can be replaced by a link to a file the worker must not write. So each project's sign-in queries run in a
 * child process of their own, as the project's worker user (the agent's when it is not root, like the workers),
 * and the agent only waits for answers, each within a deadline:
 *
 * - a call not answered within `callTimeoutMs` (from when the helper is ready) kills the helper and fails every
 *   call it had; the next call starts a new one. A helper not ready within `startTimeoutMs` is killed the same way;
 * - at most `maxPending` calls wait per project: more are refused at once;
 * - a helper without calls for `idleMs` is stopped, so that a node with many projects keeps a process only for
 *   those signing people in now.
 *
 * - a helper that failed (killed, or it could not start) is started again only after a growing delay
 *   (agent/sync/backoff.ts); calls meanwhile are refused at once, so a project that breaks its own database costs the
 *   node one start per delay, not one per request.
 *
 * The helper runs as the worker, which can take it over (or write to its stdout: same uid): anything on that pipe
 * is input, never trusted (bounded lines, objects only, shapes checked by the caller), a killed helper's pipe is
 * closed and no more of it read, and it is told nothing the worker may not know (token hashes, never tokens; no
 * client secret). It runs in a process group of its own, killed whole, so what it forks does not outlive it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../lib/log';
import { backoffDelay, type BackoffOptions } from '../sync/backoff';
import { entryCommand } from '../workers/worker-process';

export interface HelperLimits {
  /** Default 2 s. */
  callTimeoutMs: number;
  /** Default 10 s: a node and its loader starting on a busy machine. */
  startTimeoutMs: number;
  /** Default 60 s. */
  idleMs: number;
  /** Default 64. */
  maxPending: number;
  /** Delays before a helper that failed is started again (default from 1 s, doubling, up to 60 s). */
  restart: BackoffOptions;
}

export const DEFAULT_HELPER_LIMITS: HelperLimits = {
  callTimeoutMs: 2_000, startTimeoutMs: 10_000, idleMs: 60_000, maxPending: 64, restart: { baseMs: 1_000, maxMs: 60_000 },
};

/** An answer line longer than this is not one the helper writes: it is killed. */
const MAX_LINE_BYTES = 64 * 1024;
/** What is kept of the helper's stderr, for the log line when it exits. */
const MAX_STDERR_BYTES = 2048;

/** Why a call got no answer: `busy`, too many calls wait already; `unavailable`, the helper failed, was too slow or
 * could not start. */
export class DatabaseUnavailable extends Error {
  override name = 'DatabaseUnavailable';
  constructor(readonly kind: 'busy' | 'unavailable', message: string) {
    super(message);
  }
}

/** The helper, run as the built-in worker is (agent/workers/worker-process.ts entryCommand). */
const helperCommand = (): string[] => entryCommand(dirname(fileURLToPath(import.meta.url)), 'db-helper');

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout | null;
}

interface Helper {
  proc: ChildProcess;
  ready: boolean;
  /** Killed: nothing more of its pipes is read. */
  dead: boolean;
  pending: Map<number, Pending>;
  out: string;
  err: string;
  startTimer: NodeJS.Timeout;
}

export interface ProjectDatabaseOptions {
  /** `org/project`, for the log. */
  project: string;
  path: string;
  /** Who the helper runs as (asked at each start); null: the agent's user. Throws when it cannot be told. */
  user(): { uid: number; gid: number } | null;
  log: Logger;
  limits: HelperLimits;
  command?: readonly string[];
  /** Called when a helper started and got its first call. */
  onStart?(): void;
}

export class ProjectDatabase {
  private helper: Helper | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private nextId = 1;
  private closed = false;
  /** Helpers that failed in a row, and until when no new one starts. */
  private failures = 0;
  private retryAt = 0;

  constructor(private readonly o: ProjectDatabaseOptions) {}

  /** Whether a helper runs now. */
  get running(): boolean {
    return this.helper !== null;
  }

  /** The helper's answer to `op`, unchecked. */
  call(op: string, args: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new DatabaseUnavailable('unavailable', 'sign-in was revoked'));
    if (this.helper && this.helper.pending.size >= this.o.limits.maxPending) {
      return Promise.reject(new DatabaseUnavailable('busy', `${this.o.limits.maxPending} calls wait already`));
    }
    let started = false;
    if (!this.helper) {
      if (Date.now() < this.retryAt) {
        return Promise.reject(new DatabaseUnavailable('unavailable', 'the database helper failed; it is started again after a delay'));
      }
      try {
        this.helper = this.spawn();
      } catch (e) {
        return Promise.reject(new DatabaseUnavailable('unavailable', `the database helper cannot start: ${(e as Error).message}`));
      }
      started = true;
    }
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const h = this.helper;
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => {
      const p: Pending = { resolve, reject, timer: null };
      h.pending.set(id, p);
      if (h.ready) this.arm(h, p);
    });
    h.proc.stdin!.write(`${JSON.stringify({ id, op, args })}\n`);
    if (started) this.o.onStart?.();
    return answer;
  }

  /** Kills the helper, failing what it has. */
  close(): void {
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.helper) this.kill(this.helper, 'sign-in was revoked');
  }

  private spawn(): Helper {
    const user = this.o.user();
    const [cmd, ...argv] = this.o.command ?? helperCommand();
    const proc = spawn(cmd!, [...argv, this.o.path], {
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own session and process group: no controlling terminal of the agent's, and killed as a group.
      detached: true,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    const h: Helper = {
      proc, ready: false, dead: false, pending: new Map(), out: '', err: '',
      startTimer: setTimeout(() => this.kill(h, `the database helper was not ready within ${this.o.limits.startTimeoutMs} ms`), this.o.limits.startTimeoutMs),
    };
    proc.stdin!.on('error', () => undefined);
    proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.read(h, chunk));
    proc.stderr!.setEncoding('utf8').on('data', (chunk: string) => { h.err = (h.err + chunk).slice(-MAX_STDERR_BYTES); });
    proc.once('error', (e: NodeJS.ErrnoException) => this.kill(h, `the database helper could not be started: ${e.code ?? e.message}`));
    proc.once('exit', (code, signal) => this.kill(h, `the database helper exited (${signal ?? `code ${code}`})`));
    return h;
  }

  private read(h: Helper, chunk: string): void {
    if (h.dead) return;
    h.out += chunk;
    try {
      let nl: number;
      while ((nl = h.out.indexOf('\n')) >= 0) {
        const line = h.out.slice(0, nl);
        h.out = h.out.slice(nl + 1);
        if (!this.answer(h, line)) return;
      }
      if (h.out.length > MAX_LINE_BYTES) this.kill(h, 'the database helper wrote a line too long');
    } catch (e) {
      // Whatever it wrote, the agent, which serves every project, goes on.
      this.kill(h, `the database helper's answer could not be read: ${(e as Error).message}`);
    }
  }

  /** Handles one line; false when it killed the helper. */
  private answer(h: Helper, line: string): boolean {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      this.kill(h, 'the database helper wrote something that is not JSON');
      return false;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      this.kill(h, 'the database helper wrote something that is not an object');
      return false;
    }
    const msg = parsed as { ready?: unknown; id?: unknown; ok?: unknown; result?: unknown; error?: unknown };
    const error = typeof msg.error === 'string' ? msg.error.slice(0, 200) : 'no reason given';
    if (!h.ready) {
      if (msg.ready !== true) {
        this.kill(h, `the database cannot be opened: ${error}`);
        return false;
      }
      h.ready = true;
      clearTimeout(h.startTimer);
      for (const p of h.pending.values()) this.arm(h, p);
      return true;
    }
    const p = typeof msg.id === 'number' ? h.pending.get(msg.id) : undefined;
    if (!p) {
      this.kill(h, 'the database helper answered a call it was not given');
      return false;
    }
    h.pending.delete(msg.id as number);
    if (p.timer) clearTimeout(p.timer);
    if (msg.ok === true) {
      this.failures = 0;
      p.resolve(msg.result);
    } else {
      this.o.log.warn({ project: this.o.project, err: error }, 'sign-in: a database call failed');
      p.reject(new DatabaseUnavailable('unavailable', `the database call failed: ${error}`));
    }
    if (h.pending.size === 0 && this.helper === h) this.idle(h);
    return true;
  }

  private arm(h: Helper, p: Pending): void {
    p.timer = setTimeout(() => this.kill(h, `a database call took longer than ${this.o.limits.callTimeoutMs} ms`), this.o.limits.callTimeoutMs);
  }

  private idle(h: Helper): void {
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.helper !== h || h.pending.size > 0) return;
      this.helper = null;
      // Its stdin ending is its cue to close the database and exit.
      h.proc.stdin!.end();
      setTimeout(() => killGroup(h.proc), 1_000).unref();
    }, this.o.limits.idleMs);
    this.idleTimer.unref();
  }

  /** Ends `h` (once) and fails its calls with `why`. */
  private kill(h: Helper, why: string): void {
    clearTimeout(h.startTimer);
    const current = this.helper === h;
    if (current) this.helper = null;
    if (!h.dead) {
      h.dead = true;
      h.out = '';
      killGroup(h.proc);
      // Another process may hold the pipe's other end (the worker, with the helper's uid): none of it is read.
      h.proc.stdout!.destroy();
      h.proc.stderr!.destroy();
      h.proc.stdin!.destroy();
      if (current && !this.closed) {
        this.failures++;
        this.retryAt = Date.now() + backoffDelay(this.failures, this.o.limits.restart);
      }
    }
    if (h.pending.size > 0 || (current && !this.closed)) {
      this.o.log.warn({ project: this.o.project, reason: why, pending: h.pending.size, stderr: h.err.slice(-500) || undefined }, 'sign-in: the database helper was stopped');
    }
    for (const p of h.pending.values()) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new DatabaseUnavailable('unavailable', why));
    }
    h.pending.clear();
  }
}

/** SIGKILL to the helper's process group (it leads one: `detached`), so that what it forked goes too. */
function killGroup(proc: ChildProcess): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}
