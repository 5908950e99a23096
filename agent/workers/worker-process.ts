/**
 * One worker: a child process serving one project on a Unix socket of its own (`SERVICE_SOCKET`), started with
 * the project's bindings and nothing of the agent's environment but `PATH` (never a binding that changes how a
 * process loads or runs: rules/env-names.ts), as its project's own user when the spec names one. It counts as ready once it answers
 * HTTP on its socket (any status below 500 to `GET /`); it is stopped with SIGTERM, then SIGKILL after a grace
 * period. Its stdout and stderr go to its log file under the agent's dir, never to the agent's log: what a
 * worker prints is its own and may hold its values.
 *
 * Why a Unix socket and not a loopback port: separate uids do not separate loopback TCP. Any worker could connect to
 * another project's port (ports and their owners are in /proc/net/tcp), past the node's access gate, with
 * `X-Forwarded-*` of its choosing; and a port picked free and closed again before the worker binds it could be
 * taken by another tenant first. A worker gets no port: `SERVICE_SOCKET` is `D/run/<id>/<n>.sock` (agent/layout.ts),
 * in its project's socket directory, owned by the project's uid, mode 0700, under `D/run` (root's, 0711): only
 * that uid and root reach it. Each start gets a new `<n>`, so the old worker keeps serving on its socket while the
 * new one starts. Not root, the directory is the agent's user's, like everything else the workers have then.
 *
 * The directory is the worker's to change, so the agent never connects through it: once the worker has bound its
 * socket, the agent makes a hard link to it in `D/run/agent/` (its own, 0700), keeps it only when it is a socket
 * owned by the worker's uid (checked with lstat, never following a link), and probes and proxies through that
 * link alone. A worker that put a link to another project's socket in its socket's place, before or after it is
 * ready, reaches nothing: a hard link names the socket the worker bound, whatever its directory holds later (and a
 * worker that closes that socket and binds another is no longer reached).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, lchownSync, linkSync, lstatSync, mkdirSync, openSync, unlinkSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loaderRule } from '../../rules/env-names';

export interface WorkerSpec {
  /** `org/project`. */
  key: string;
  org: string;
  project: string;
  /** The bundle version it is started with. */
  version: string;
  /** argv: the program and its arguments. */
  command: readonly string[];
  /** The project's bindings (agent/workers/bindings.ts). */
  bindings: Record<string, string>;
  /** Identifies command and bindings: the same digest runs the same worker. */
  digest: string;
  logPath: string;
  /** The project's socket directory, `D/run/<id>` (agent/layout.ts socketDir): the worker binds its socket there. */
  socketDir: string;
  /** The agent's own directory of links to the workers' sockets, `D/run/agent` (agent/layout.ts pinDir). */
  pinDir: string;
  /** The project's own user and group (agent/workers/users.ts, when the agent runs as root); none: the agent's. */
  user?: { uid: number; gid: number } | null;
  /** Why this worker cannot start at all (its storage or database is not what the agent made: a worker replaced
   * it with a link): the project fails alone, and the next bundle looks again. */
  unusable?: string;
}

export interface Worker {
  readonly id: number;
  readonly spec: WorkerSpec;
  /** Where the front end connects: the agent's own link to the socket the worker bound (`D/run/agent/<n>.sock`). */
  readonly socketPath: string;
  readonly pid: number | undefined;
  /** Keep-alive connections of the front end to this worker, closed when it stops. */
  readonly agent: Agent;
  /** Resolves when the process has exited, however. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** A worker that did not become ready; the message says why in words, without values. `reported` is what the
 * node tells the control plane, which shows it to the project's tenant: the message without the node's paths. */
export class WorkerStartError extends Error {
  override name = 'WorkerStartError';
  constructor(message: string, readonly reported: string = message) {
    super(message);
  }
}

const SOCKET_UNUSABLE = 'the node could not make the worker\'s socket';

const here = dirname(fileURLToPath(import.meta.url));
const compiled = import.meta.url.endsWith('.js');

/** A module of the agent run as a process of its own (`base` in directory `dir`): node on its compiled file, or
 * through tsx from the sources. */
export function entryCommand(dir: string, base: string): string[] {
  if (compiled) return [process.execPath, join(dir, `${base}.js`)];
  return [process.execPath, '--import', join(here, '..', '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs'), join(dir, `${base}.ts`)];
}

/** The built-in worker (agent/workers/default-worker.ts). */
export const defaultWorkerCommand = (): string[] => entryCommand(here, 'default-worker');

/** `--worker CMD`: run through the shell. The worker runs in a process group of its own, which stop() signals
 * whole: the command and whatever the shell started for it. */
export const shellCommand = (cmd: string): string[] => ['/bin/sh', '-c', cmd];

/** The longest path a Unix socket may be bound at (`sun_path` holds 108 bytes with the terminating NUL). */
export const MAX_SOCKET_PATH = 107;

const code = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;


/** Makes `path` a directory owned by `owner` with `mode`, never through a link: made when missing (its parent must
 * exist), otherwise checked with lstat (a directory, not a link: refused else), then given its owner and mode. Its
 * parent is the agent's, so what lstat saw is what chown and chmod change. */
function ownDir(path: string, mode: number, owner: { uid: number; gid: number } | null): void {
  try {
    mkdirSync(path, { mode });
  } catch (e) {
    if (code(e) !== 'EEXIST') throw e;
  }
  const st = lstatSync(path);
  if (st.isSymbolicLink() || !st.isDirectory()) throw new WorkerStartError(`${path} is not a directory: the worker's socket is not made through it`, SOCKET_UNUSABLE);
  if (owner && (st.uid !== owner.uid || st.gid !== owner.gid)) lchownSync(path, owner.uid, owner.gid);
  if ((st.mode & 0o7777) !== mode) chmodSync(path, mode);
}

/** The agent's uid and gid (its own directories). */
const self = (): { uid: number; gid: number } | null => (process.getuid && process.getgid ? { uid: process.getuid(), gid: process.getgid() } : null);

/**
 * The socket directories of `spec`: `D/run` (the agent's; 0711 when workers have users of their own, so they can
 * reach their own directory in it and list nothing; 0700 otherwise), the project's (its user's, 0700) and the
 * agent's own link directory (0700).
 */
export function prepareSocketDirs(spec: Pick<WorkerSpec, 'socketDir' | 'pinDir' | 'user'>): void {
  const root = dirname(spec.socketDir);
  mkdirSync(dirname(root), { recursive: true, mode: 0o700 });
  ownDir(root, spec.user ? 0o711 : 0o700, self());
  ownDir(spec.socketDir, 0o700, spec.user ?? self());
  ownDir(spec.pinDir, 0o700, self());
}

/** Removes what is at `path` when lstat says it is a socket (one left by an earlier worker); anything else there is
 * refused, and left alone. */
function clearSocket(path: string): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return;
  if (!st.isSocket()) throw new WorkerStartError(`${path} is in the way of the worker's socket and is not a socket: it is left alone`, SOCKET_UNUSABLE);
  unlinkSync(path);
}

/** Removes `path` when it is there (in the agent's own directory). */
function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if (code(e) !== 'ENOENT') throw e;
  }
}

/**
 * Once the worker has bound `socket`: a hard link to it at `pinned`, kept when it is a socket owned by `uid`.
 * False while there is no socket at `socket` yet (or something else is there). A link names the inode, never a
 * path, and Linux's link(2) does not follow a symbolic link: what lstat then sees at `pinned`, in a directory no
 * worker reaches, is what every connection reaches.
 */
function pin(socket: string, pinned: string, uid: number): boolean {
  const st = lstatSync(socket, { throwIfNoEntry: false });
  if (!st?.isSocket() || st.uid !== uid) return false;
  unlinkQuietly(pinned);
  try {
    linkSync(socket, pinned);
  } catch (e) {
    if (code(e) === 'ENOENT') return false;
    throw new WorkerStartError(`the worker's socket could not be linked into ${dirname(pinned)}: ${code(e) ?? 'link failed'}`, SOCKET_UNUSABLE);
  }
  const p = lstatSync(pinned);
  if (p.isSocket() && !p.isSymbolicLink() && p.uid === uid) return true;
  unlinkQuietly(pinned);
  return false;
}

/** One `GET /` to the worker: true when it answered below 500. */
function probe(socketPath: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: '/', method: 'GET', timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 500) < 500);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
    req.end();
  });
}

let nextId = 1;

export interface StartOptions {
  /** How long it may take to answer (default 15 s). */
  readyTimeoutMs?: number;
  /** How often it is asked (default 25 ms). */
  probeIntervalMs?: number;
}

/** Starts the worker of `spec` and resolves once it is ready; rejects with a WorkerStartError (and leaves
 * nothing running) when it exits first or does not answer in time. */
export async function startWorker(spec: WorkerSpec, opts: StartOptions = {}): Promise<Worker> {
  const id = nextId++;
  const socket = join(spec.socketDir, `${id}.sock`);
  const pinned = join(spec.pinDir, `${id}.sock`);
  for (const path of [socket, pinned]) {
    const bytes = Buffer.byteLength(path);
    if (bytes > MAX_SOCKET_PATH) {
      throw new WorkerStartError(`the worker's socket path ${path} is ${bytes} bytes, more than the ${MAX_SOCKET_PATH} a Unix socket's may be: give the agent a --dir with a shorter path`, SOCKET_UNUSABLE);
    }
  }
  const owner = spec.user?.uid ?? process.getuid?.() ?? -1;
  prepareSocketDirs(spec);
  clearSocket(socket);
  unlinkQuietly(pinned);
  mkdirSync(dirname(spec.logPath), { recursive: true, mode: 0o700 });
  const out = openSync(spec.logPath, 'a', 0o600);
  // agent/workers/bindings.ts leaves these out already; checked again here, where the environment is made.
  const passed = Object.fromEntries(Object.entries(spec.bindings).filter(([name]) => loaderRule(name) === null));
  let child: ChildProcess;
  try {
    child = spawn(spec.command[0]!, spec.command.slice(1), {
      env: {
        ...passed,
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        // No port: the worker is reached on this socket only (see above).
        SERVICE_SOCKET: socket,
        SERVICE_ORG: spec.org,
        SERVICE_PROJECT: spec.project,
        SERVICE_BUNDLE_VERSION: spec.version,
        SERVICE_BINDINGS: Object.keys(passed).sort().join(','),
      },
      // As root: the project's own uid and gid (libuv drops the supplementary groups too).
      ...(spec.user ? { uid: spec.user.uid, gid: spec.user.gid } : {}),
      // stdin stays open: the built-in worker exits when it closes, so it does not outlive an agent killed hard.
      stdio: ['pipe', out, out],
      detached: true,
    });
  } finally {
    closeSync(out);
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  let gone: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  void exited.then((e) => {
    gone = e;
    // Its sockets go with it: the agent's link, and the socket itself when it still is one.
    try {
      unlinkQuietly(pinned);
      clearSocket(socket);
    } catch {
      // Something else is in the socket's place: the worker's own directory, left as it is.
    }
  });
  let spawnError: Error | null = null;
  child.once('error', (e) => { spawnError = e; });
  child.stdin?.on('error', () => undefined);

  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const stop = async (graceMs = 5000): Promise<void> => {
    agent.destroy();
    if (gone) return;
    const signal = (sig: NodeJS.Signals): void => {
      try {
        process.kill(-child.pid!, sig);
      } catch {
        child.kill(sig);
      }
    };
    signal('SIGTERM');
    const timer = setTimeout(() => signal('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const worker: Worker = { id, spec, socketPath: pinned, pid: child.pid, agent, exited, stop };

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 15_000);
  const interval = opts.probeIntervalMs ?? 25;
  let linked = false;
  for (;;) {
    if (spawnError) throw new WorkerStartError(`the worker could not be started: ${(spawnError as NodeJS.ErrnoException).code ?? 'spawn failed'}`);
    if (gone) {
      const e = gone as { code: number | null; signal: NodeJS.Signals | null };
      throw new WorkerStartError(`the worker exited (${e.signal ?? `code ${e.code}`}) before it was ready`);
    }
    try {
      linked ||= pin(socket, pinned, owner);
    } catch (e) {
      await stop(1000);
      throw e;
    }
    if (linked && await probe(pinned, 1000)) return worker;
    if (Date.now() >= deadline) {
      await stop(1000);
      throw new WorkerStartError(`the worker did not answer on its socket (SERVICE_SOCKET) within ${opts.readyTimeoutMs ?? 15_000} ms`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
