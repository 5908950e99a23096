/** Real-process helpers for CLI and e2e tests: run `./bin/hostplane`, wait for its `{"listening": URL}` line,
 * call it over HTTP, and clean up every process and temp dir a test file made. */
import { parseHostPort } from '../../providers/nameserver/knot-config';
import { startStubResolver, type StubResolver } from './stub-resolver';
import { createOrg, createUser, issueToken, registerNode, setMembership } from '../../store/accounts';
import { openTestStore, storeEnv } from './store';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { removeTempDirs } from '../../harness/temp';

export { tempDir } from '../../harness/temp';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin', 'hostplane');

const running = new Set<Running>();

export interface Exit { code: number | null; signal: NodeJS.Signals | null }

export interface Running {
  proc: ChildProcess;
  /** The URL of the `{"listening": URL}` line. */
  url: string;
  /** Its `metrics` URL (the separate metrics listener), null when off. */
  metrics: string | null;
  /** Where its knotd answers (`dns` of the line: `serve` and `core`), null when none does; with `--dns-listen
   * 127.0.0.1:0` the port was picked by this start, so no other process can have taken it since. */
  dns: { host: string; port: number } | null;
  /** Everything the process wrote to stderr so far (its JSON logs). */
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<Exit>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/** Spawns `hostplane <args>` and resolves once its first stdout line `{"listening": URL}` arrives. The metrics
 * listener gets a free port unless `args` choose one, so that processes started together do not collide on the
 * default (`defaultMetrics` leaves the default, for a test of it). `prefix` runs it through another command (e.g.
 * `prlimit --nofile=1024 --`). */
let shared: Promise<StubResolver> | null = null;
/** One stub resolver for every hostplane a test file starts without `--resolver`. */
const sharedResolver = (): Promise<StubResolver> => (shared ??= startStubResolver().then((r) => {
  r.unref();
  return r;
}));

export async function startHostplane(args: string[], opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; prefix?: string[]; defaultMetrics?: boolean } = {}): Promise<Running> {
  // node-agent has no metrics listener.
  if (args[0] !== 'node-agent' && !opts.defaultMetrics && !args.some((a) => a.startsWith('--metrics-listen'))) args = [...args, '--metrics-listen', '127.0.0.1:0'];
  // Never the machine's resolver: one on loopback that knows nothing unless a test tells it.
  if ((args[0] === 'serve' || args[0] === 'core') && !args.includes('--resolver')) args = [...args, '--resolver', (await sharedResolver()).address];
  const [cmd, ...cmdArgs] = [...(opts.prefix ?? []), BIN, ...args];
  const env = { ...process.env, HOSTPLANE_LOG_LEVEL: 'info', ...(await storeEnvOf(args)), ...opts.env };
  const proc = spawn(cmd!, cmdArgs, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => { err += c; });
  const exited = new Promise<Exit>((res) => proc.once('exit', (code, signal) => res({ code, signal })));
  const lines = createInterface({ input: proc.stdout! });
  const first = await new Promise<{ listening: string; metrics: string | null; dns: string | null }>((res, rej) => {
    const timer = setTimeout(() => fail(new Error(`hostplane ${args.join(' ')}: no listening line within ${opts.timeoutMs ?? 20_000} ms\n${err}`)), opts.timeoutMs ?? 20_000);
    const fail = (e: Error): void => {
      clearTimeout(timer);
      proc.kill('SIGKILL');
      rej(e);
    };
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        const parsed = JSON.parse(line) as { listening?: unknown; metrics?: unknown; dns?: unknown };
        if (typeof parsed.listening !== 'string') throw new Error('no listening field');
        res({ listening: parsed.listening, metrics: typeof parsed.metrics === 'string' ? parsed.metrics : null, dns: typeof parsed.dns === 'string' ? parsed.dns : null });
      } catch {
        fail(new Error(`hostplane ${args.join(' ')}: first stdout line is not {"listening": URL}: ${line}`));
      }
    });
    void exited.then((e) => fail(new Error(`hostplane ${args.join(' ')} exited (${e.code ?? e.signal}) before listening\n${err}`)));
  });
  const r: Running = {
    proc,
    url: first.listening,
    metrics: first.metrics,
    dns: first.dns === null ? null : parseHostPort(first.dns),
    stderr: () => err,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
  running.add(r);
  void exited.then(() => running.delete(r));
  return r;
}

export interface CliResult { code: number; stdout: string; stderr: string }

/** The store of the data dir `args` name, in this pass of the tests (test/helpers/store.ts). */
function storeEnvOf(args: string[]): Promise<NodeJS.ProcessEnv> {
  const at = args.indexOf('--data');
  const uses = ['serve', 'api', 'core', 'admin'].includes(args[0] ?? '') && !args.includes('--database-url');
  return storeEnv(uses ? (at >= 0 ? args[at + 1] : './data') : undefined);
}

/** Runs `hostplane <args>` to completion with `input` on its stdin (then closed); never rejects on a non-zero exit. */
export async function runHostplane(args: string[], input = ''): Promise<CliResult> {
  const env = { ...process.env, ...(await storeEnvOf(args)) };
  return new Promise((res) => {
    const child = execFile(BIN, args, { cwd: ROOT, env, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      res({ code, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

/** `hostplane admin --data DIR <args>`. */
export const admin = (dataDir: string, ...args: string[]): Promise<CliResult> => runHostplane(['admin', '--data', dataDir, ...args]);

/** Parses the JSON an admin command printed, failing with its stderr when it did not succeed. */
export async function adminJson<T = Record<string, unknown>>(dataDir: string, ...args: string[]): Promise<T> {
  const r = await admin(dataDir, ...args);
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Bootstraps an org with an admin user through the operator CLI, creating the store first if there is none
 * (`admin init`: the other admin commands refuse a data dir without one); returns the admin's bearer token. */
export async function bootstrapWithCli(dataDir: string, org = 'acme', email = `owner@${org}.test`, plan = 'free'): Promise<string> {
  await adminJson(dataDir, 'init');
  await Promise.all([adminJson(dataDir, 'org', 'create', org, '--plan', plan), adminJson(dataDir, 'user', 'create', email)]);
  const [, { token }] = await Promise.all([
    adminJson(dataDir, 'member', 'add', org, email, 'admin'),
    adminJson<{ token: string }>(dataDir, 'token', 'create', email),
  ]);
  return token;
}

/** What `bootstrapInStore` made: the org admin's bearer token and the node's token. */
export interface Bootstrapped { token: string; nodeToken: string }

/** The org `acme` (free) with its admin `owner@acme.test` and the node `nodeId`, written through the store the CLI
 * uses, in this process: what a test that runs processes needs before they start, without one CLI run per row. */
export async function bootstrapInStore(dataDir: string, nodeId: string): Promise<Bootstrapped> {
  const s = await openTestStore(dataDir);
  try {
    await createOrg(s, 'acme', 'free');
    await createUser(s, 'owner@acme.test');
    await setMembership(s, 'acme', 'owner@acme.test', 'admin');
    return { token: await issueToken(s, 'owner@acme.test'), nodeToken: await registerNode(s, nodeId) };
  } finally {
    s.close();
  }
}

export interface HttpResult { status: number; body: any; text: string; headers: Headers }

/** One JSON request; `body` is sent as JSON. */
export async function http(base: string, method: string, path: string, opts: { token?: string; body?: unknown } = {}): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: unknown = text;
  try { body = text ? JSON.parse(text) : undefined; } catch { /* stays text */ }
  return { status: res.status, body, text, headers: res.headers };
}

/** Kills every process still running (SIGKILL) and removes the temp dirs; call from afterAll. */
export async function cleanup(): Promise<void> {
  // Stopped cleanly, serve ends its knotd before it exits. Killed, it leaves knotd (TERMed by its parent-death signal)
  // writing its last files while the dirs go: ENOTEMPTY under load, past rmSync's retries. SIGCONT wakes one a test
  // stopped (SIGSTOP); SIGKILL ends one that does not stop in time.
  await Promise.all([...running].map(async (r) => {
    const kill = setTimeout(() => r.proc.kill('SIGKILL'), CLEAN_STOP_MS);
    const stopped = r.stop('SIGTERM');
    r.proc.kill('SIGCONT');
    await stopped;
    clearTimeout(kill);
  }));
  removeTempDirs();
}

/** How long `cleanup` waits for a process to stop on SIGTERM before it kills it. */
const CLEAN_STOP_MS = 10_000;

/** Polls `probe` every `everyMs` until it gives a value (`undefined`, `false` and a throw count as none yet), or
 * fails naming `what`. */
export async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 20_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await Promise.resolve().then(probe).catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

