/** Shared pieces of the benchmarks: child servers that print `{"listening": URL}`, CLI calls with JSON on
 * stdout, and one bounded autocannon measurement with sub-millisecond latency percentiles. */
import autocannon from 'autocannon';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(BENCH_DIR, '..');
/** The tsx loader, as `./bin/hostplane` uses it: `node --import TSX file.ts`. */
export const TSX = join(REPO, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

export interface ChildServer {
  name: string;
  child: ChildProcess;
  /** The URL from the first stdout line; rejects if the child exits or stays silent past the timeout. */
  ready: Promise<string>;
  /** The `metrics` URL of that line (serve's /metrics listener), null when it has none. */
  metrics: Promise<string | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the child is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** How much of a child's stderr (its logs) is kept to explain a failed start. */
const STDERR_TAIL = 4096;

/**
 * Spawns a server child whose first stdout line is `{"listening": URL}`. Its stderr (hostplane's JSON logs)
 * is a pipe drained here, as a supervisor (systemd, a container runtime) would take it: a log file on the
 * database's disk would be flushed by every WAL fsync (ext4 data=ordered) and tax the writes twice.
 */
export function spawnServer(name: string, cmd: string, args: string[], o: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): ChildServer {
  const child = spawn(cmd, args, { cwd: REPO, env: o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  const tail = (): string => (stderr ? `\n--- ${name} stderr (tail) ---\n${stderr}` : '');
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const first = new Promise<{ listening: string; metrics: string | null }>((res, rej) => {
    let buf = '';
    const fail = (why: string): void => {
      clearTimeout(timer);
      rej(new Error(`${name} failed to start: ${why}${tail()}`));
    };
    const timer = setTimeout(() => fail(`no listening line in ${o.timeoutMs ?? 20_000} ms`), o.timeoutMs ?? 20_000);
    child.once('error', (e) => fail(e.message));
    child.once('close', (code, signal) => fail(`exited (${signal ?? code}) before listening`));
    child.stdout!.setEncoding('utf8');
    const onData = (chunk: string): void => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      child.stdout!.off('data', onData);
      child.stdout!.resume(); // keep draining anything else it prints
      clearTimeout(timer);
      try {
        const line = JSON.parse(buf.slice(0, nl)) as { listening?: unknown; metrics?: unknown };
        if (typeof line.listening !== 'string') throw new Error('no "listening" field');
        res({ listening: line.listening, metrics: typeof line.metrics === 'string' ? line.metrics : null });
      } catch (e) {
        rej(new Error(`${name} printed an unexpected first line ${JSON.stringify(buf.slice(0, nl))}: ${(e as Error).message}`));
      }
    };
    child.stdout!.on('data', onData);
  });
  first.catch(() => undefined); // awaited later; never an unhandled rejection meanwhile
  const ready = first.then((f) => f.listening);
  const metrics = first.then((f) => f.metrics);
  ready.catch(() => undefined);
  metrics.catch(() => undefined);
  return { name, child, ready, metrics, stop: (graceMs?: number) => stopChild(child, exited, graceMs) };
}

const running = (c: ChildProcess): boolean => c.exitCode === null && c.signalCode === null;

/** SIGTERM, then SIGKILL after `graceMs`; resolves once `exited` does. */
export async function stopChild(child: ChildProcess, exited: Promise<unknown>, graceMs = 5000): Promise<void> {
  if (!running(child)) return;
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(t);
}

/**
 * Last resort for a bench that is interrupted, dies or overruns: kills the children `children()` names at that
 * moment, removes `tmp` (null: it made none), and aborts the bench after `watchdogMs`. Nothing is left behind in
 * any case. Returns the release to call once the bench has cleaned up by itself.
 */
export function guard(name: string, tmp: string | null, children: () => (ChildProcess | undefined)[], watchdogMs: number): () => void {
  const onExit = (): void => {
    for (const c of children()) if (c && running(c)) c.kill('SIGKILL');
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  };
  const onSignal = (): void => {
    onExit();
    process.exit(130);
  };
  process.once('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench ${name}: still running after ${watchdogMs / 1000} s, aborting\n`);
    process.exit(1);
  }, watchdogMs);
  watchdog.unref();
  return () => {
    clearTimeout(watchdog);
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/**
 * A bench's command line: runs `cli` when `moduleUrl` is the script node was started with (not when run.ts or another
 * bench imports it), and ends with its exit code, or with 1 and one line `bench NAME: why` on stderr when it throws
 * (a bad option included). `exit`: end the process at once, for benches whose clients would keep it running.
 */
export function command(moduleUrl: string, name: string, cli: () => Promise<number>, opts: { exit?: boolean } = {}): void {
  if (!process.argv[1] || fileURLToPath(moduleUrl) !== process.argv[1]) return;
  const end = (code: number): void => {
    if (opts.exit) process.exit(code);
    process.exitCode = code;
  };
  cli().then(end, (e: unknown) => {
    process.stderr.write(`bench ${name}: ${e instanceof Error ? e.message : String(e)}\n`);
    end(1);
  });
}

/** A command-line count as given (`--runs 8`): digits only, so that `--runs=` or `--runs 1e1` is refused rather than
 * read as 0 or 10. Undefined when the option was not given; the caller checks the range. */
export function wholeNumber(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new Error(`--${option} must be a whole number (got ${JSON.stringify(text)})`);
  return Number(text);
}

/** Polls `check` every `everyMs` until it answers true; throws with `what` after `timeoutMs`. */
export async function until(what: string, timeoutMs: number, check: () => Promise<boolean>, everyMs = 100): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(everyMs);
  }
}

/** Runs a CLI command that prints one JSON value on stdout; throws with its stderr on a non-zero exit. */
export function runJson(cmd: string, args: string[]): Promise<Record<string, unknown>> {
  return new Promise((res, rej) => {
    execFile(cmd, args, { cwd: REPO, timeout: 20_000 }, (err, stdout, stderr) => {
      if (err) return rej(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stderr}`));
      try {
        res(JSON.parse(stdout) as Record<string, unknown>);
      } catch {
        rej(new Error(`${cmd} ${args.join(' ')} printed no JSON: ${stdout}`));
      }
    });
  });
}

export interface Load {
  url: string;
  method: 'GET' | 'PUT' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Bodies sent in turn on each connection, in place of `body`. */
  bodies?: string[];
  connections: number;
  seconds: number;
}

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  responses: number;
  non2xx: number;
  /** Connection errors and timeouts: requests that got no response at all. */
  errors: number;
}

/** What one autocannon run saw: 2xx latencies in fractional ms, failures, and its wall time. */
export interface Slice { latencies: number[]; non2xx: number; errors: number; seconds: number }

/** One autocannon run on `load`. Latencies come from the per-response event (fractional ms), because
 * autocannon's own histogram has 1 ms resolution, too coarse for loopback. */
export async function run(load: Load): Promise<Slice> {
  const latencies: number[] = [];
  let non2xx = 0;
  const { method, path, headers } = load;
  // With `bodies`, one request per body, sent in turn; otherwise the one request at `url` + `path`.
  const requests = load.bodies
    ? { url: load.url, requests: load.bodies.map((body) => ({ method, path, headers, body })) }
    : { url: `${load.url}${path}`, method, headers, ...(load.body === undefined ? {} : { body: load.body }) };
  const result = await new Promise<autocannon.Result>((res, rej) => {
    const inst = autocannon({
      ...requests,
      connections: load.connections,
      pipelining: 1,
      duration: load.seconds,
      timeout: 10,
    }, (err, r) => (err ? rej(err) : res(r)));
    inst.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
      else non2xx += 1;
    });
  });
  // result.errors counts connection errors including timeouts: requests that got no response at all.
  return { latencies, non2xx: Math.max(non2xx, result.non2xx), errors: result.errors, seconds: result.duration };
}

const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Throughput and latency percentiles over one or more slices of the same load. */
export function summarize(slices: Slice[]): Measured {
  const sorted = Float64Array.from(slices.flatMap((s) => s.latencies)).sort();
  const non2xx = slices.reduce((a, s) => a + s.non2xx, 0);
  const seconds = slices.reduce((a, s) => a + s.seconds, 0);
  const responses = sorted.length + non2xx;
  return {
    rps: seconds > 0 ? responses / seconds : 0,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    responses,
    non2xx,
    errors: slices.reduce((a, s) => a + s.errors, 0),
  };
}

export const failed = (m: Measured): boolean => m.non2xx > 0 || m.errors > 0 || m.responses === 0;

export const fmt = (m: Measured): string =>
  `${Math.round(m.rps)} req/s p50=${m.p50.toFixed(2)}ms p99=${m.p99.toFixed(2)}ms non2xx=${m.non2xx} errors=${m.errors}`;

export interface ProcessRss { pid: number; name: string; rssBytes: number; peakBytes: number }

/** A process and its descendants, each with its RSS and its own peak (VmHWM), from /proc (Linux): what the
 * memory benches count, a supervised knotd included. */
export function processTree(root: number): ProcessRss[] {
  const out: ProcessRss[] = [];
  const visit = (pid: number): void => {
    let status: string;
    try {
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch {
      return; // exited meanwhile
    }
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
    out.push({ pid, name: /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '?', rssBytes: kb('VmRSS'), peakBytes: kb('VmHWM') });
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      let children = '';
      try {
        children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const child of children.split(' ')) if (child.trim()) visit(Number(child));
    }
  };
  visit(root);
  return out;
}

/** Samples the summed RSS of a process tree every `everyMs` and keeps the highest sum seen, with the
 * processes that made it up. */
export function sampleTreeRss(root: number, everyMs = 20): { peak(): { bytes: number; processes: ProcessRss[] }; stop(): void } {
  let best = { bytes: 0, processes: [] as ProcessRss[] };
  const sample = (): void => {
    const processes = processTree(root);
    const bytes = processes.reduce((n, p) => n + p.rssBytes, 0);
    if (bytes > best.bytes) best = { bytes, processes };
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    peak: () => best,
    stop: () => clearInterval(timer),
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The profile V8 wrote in `dir` for the main thread (thread id 0) of process `pid`: under tsx the module
 * loader's thread writes one too. */
export function profileOf(dir: string, pid: number): string {
  const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.0.`)).sort().at(-1);
  if (!file) throw new Error(`no CPU profile of pid ${pid} in ${dir}`);
  return join(dir, file);
}
