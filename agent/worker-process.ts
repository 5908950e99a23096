/**
 * One worker: a child process serving one project on a loopback port of its own (`SERVICE_PORT`), started with
 * the project's bindings and nothing of the agent's environment but `PATH` (never a binding that changes how a
 * process loads or runs: lib/env-names.ts), as its project's own user when the spec names one. It counts as ready once it answers
 * HTTP on its port (any status below 500 to `GET /`); it is stopped with SIGTERM, then SIGKILL after a grace
 * period. Its stdout and stderr go to its log file under the agent's dir, never to the agent's log: what a
 * worker prints is its own and may hold its values.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loaderRule } from '../lib/env-names';

export interface WorkerSpec {
  /** `org/project`. */
  key: string;
  org: string;
  project: string;
  /** The bundle version it is started with. */
  version: string;
  /** argv: the program and its arguments. */
  command: readonly string[];
  /** The project's bindings (agent/bindings.ts). */
  bindings: Record<string, string>;
  /** Identifies command and bindings: the same digest runs the same worker. */
  digest: string;
  logPath: string;
  /** The project's own user and group (agent/users.ts, when the agent runs as root); none: the agent's. */
  user?: { uid: number; gid: number } | null;
}

export interface Worker {
  readonly id: number;
  readonly spec: WorkerSpec;
  readonly port: number;
  readonly pid: number | undefined;
  /** Keep-alive connections of the front end to this worker, closed when it stops. */
  readonly agent: Agent;
  /** Resolves when the process has exited, however. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** A worker that did not become ready; the message says why in words, without values. */
export class WorkerStartError extends Error {
  override name = 'WorkerStartError';
}

const here = dirname(fileURLToPath(import.meta.url));
const compiled = import.meta.url.endsWith('.js');

/** The built-in worker (agent/default-worker): node on its compiled file, or through tsx from the sources. */
export function defaultWorkerCommand(): string[] {
  if (compiled) return [process.execPath, join(here, 'default-worker.js')];
  return [process.execPath, '--import', join(here, '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs'), join(here, 'default-worker.ts')];
}

/** `--worker CMD`: run through the shell. The worker runs in a process group of its own, which stop() signals
 * whole: the command and whatever the shell started for it. */
export const shellCommand = (cmd: string): string[] => ['/bin/sh', '-c', cmd];

/** A free loopback port, as the kernel picks one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** One `GET /` to the worker: true when it answered below 500. */
function probe(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', method: 'GET', timeout: timeoutMs, agent: false }, (res) => {
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
  const port = await freePort();
  mkdirSync(dirname(spec.logPath), { recursive: true, mode: 0o700 });
  const out = openSync(spec.logPath, 'a', 0o600);
  // agent/bindings.ts leaves these out already; checked again here, where the environment is made.
  const passed = Object.fromEntries(Object.entries(spec.bindings).filter(([name]) => loaderRule(name) === null));
  let child: ChildProcess;
  try {
    child = spawn(spec.command[0]!, spec.command.slice(1), {
      env: {
        ...passed,
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        SERVICE_HOST: '127.0.0.1',
        SERVICE_PORT: String(port),
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
  void exited.then((e) => { gone = e; });
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
  const worker: Worker = { id: nextId++, spec, port, pid: child.pid, agent, exited, stop };

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 15_000);
  const interval = opts.probeIntervalMs ?? 25;
  for (;;) {
    if (spawnError) throw new WorkerStartError(`the worker could not be started: ${(spawnError as NodeJS.ErrnoException).code ?? 'spawn failed'}`);
    if (gone) {
      const e = gone as { code: number | null; signal: NodeJS.Signals | null };
      throw new WorkerStartError(`the worker exited (${e.signal ?? `code ${e.code}`}) before it was ready`);
    }
    if (await probe(port, 1000)) return worker;
    if (Date.now() >= deadline) {
      await stop(1000);
      throw new WorkerStartError(`the worker did not answer on its port within ${opts.readyTimeoutMs ?? 15_000} ms`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
