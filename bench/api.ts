/**
 * API load benchmark: `GET project` and `PUT secret` against a real `hostplane serve` child process, with a
 * bare `node:http` + better-sqlite3 server doing the same read and write at the same durability
 * (bench/baseline-server.ts) measured in the same run as the ratio baseline. Aim: hostplane at 0.7x the
 * baseline's throughput or better.
 *
 *   npx tsx bench/api.ts                 (also run by `npm run bench`)
 *   npx tsx bench/api.ts --cpu-prof DIR  (writes a V8 CPU profile of the serve process to DIR)
 *
 * Loopback only, bounded (about 45 s, under a minute). Exits non-zero if a server fails to start or any
 * measured request failed (non-2xx or no response): a bench where requests fail is not a result.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BASELINE_ORG, BASELINE_PROJECT } from './baseline-server';
import { BENCH_DIR, failed, guard, fmt, REPO, run, runJson, spawnServer, summarize, TSX, type ChildServer, type Load, type Slice } from './lib';

const HOSTPLANE = join(REPO, 'bin', 'hostplane');
const ORG = BASELINE_ORG;
const PROJECT = BASELINE_PROJECT;
const EMAIL = 'bench@example.com';
const SECRET = 'API_KEY';
/** Measured runs: the headline at 8 connections, then 1 connection (latency without queueing). Each is cut in
 * SLICES taken in the order H B B H, so drift in the machine's load (other processes, disk) hits both alike.
 * The warm-up (JIT, statement caches, WAL growth) is discarded; the conc=1 runs come after a route's conc=8 run
 * and need none. */
const SLICES = 2;
const RUNS = [
  { connections: 8, seconds: 5, warmup: 1, optional: false },
  { connections: 1, seconds: 2, warmup: 0, optional: true },
];
/** The whole bench stays under a minute: optional runs are skipped (and say so) when they would not fit, as
 * on a machine loaded by other work, where process starts and every autocannon run take longer. */
const BUDGET_MS = 52_000;
/** Start and stop cost of one autocannon run, for the estimate above. */
const RUN_OVERHEAD_MS = 400;
const AIM = 0.7;
/** Hard stop for the whole bench, whatever hangs. */
const WATCHDOG_MS = 120_000;

interface Target { name: 'hostplane' | 'baseline'; url: string; token: string }

interface Case { name: string; method: Load['method']; path: string; body?: string; expect: number }

const CASES: Case[] = [
  { name: 'GET project', method: 'GET', path: `/v1/orgs/${ORG}/projects/${PROJECT}`, expect: 200 },
  {
    name: 'PUT secret', method: 'PUT', path: `/v1/orgs/${ORG}/projects/${PROJECT}/secrets/${SECRET}`,
    body: JSON.stringify({ value: 'sk_live_0123456789abcdef0123456789abcdef' }), expect: 200,
  },
];

const headersOf = (t: Target, c: Case): Record<string, string> => ({
  authorization: `Bearer ${t.token}`,
  ...(c.body === undefined ? {} : { 'content-type': 'application/json' }),
});

/** One request through fetch, to check a route answers as expected before it is measured. */
async function call(t: Target, method: string, path: string, body: unknown, expect: number): Promise<unknown> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${t.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${t.name} ${method} ${path}: expected ${expect}, got ${res.status} ${text}`);
  return JSON.parse(text) as unknown;
}

const admin = (data: string, ...args: string[]) => runJson(HOSTPLANE, ['admin', '--data', data, ...args]);

export async function main(opts: { cpuProfDir?: string } = {}): Promise<number> {
  const started = performance.now();
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-bench-'));
  const hpData = join(tmp, 'hostplane');
  const baseData = join(tmp, 'baseline');
  mkdirSync(hpData);
  mkdirSync(baseData);
  const servers: ChildServer[] = [];
  const release = guard('api', tmp, () => servers.map((x) => x.child), WATCHDOG_MS);

  try {
    // The baseline starts while hostplane is bootstrapped through its operator CLI.
    const baseToken = `bt_${randomBytes(32).toString('base64url')}`;
    const baseline = spawnServer('baseline', process.execPath, ['--import', TSX, join(BENCH_DIR, 'baseline-server.ts'), '--data', baseData], {
      env: { ...process.env, BENCH_TOKEN: baseToken },
    });
    servers.push(baseline);

    // The store the other admin commands need; serve, started beside them, would make it too.
    await admin(hpData, 'init');
    await admin(hpData, 'org', 'create', ORG);
    const serveArgs = ['serve', '--port', '0', '--data', hpData, '--dns', 'off'];
    const serve = opts.cpuProfDir
      ? spawnServer('hostplane', process.execPath, ['--cpu-prof', '--cpu-prof-dir', resolve(opts.cpuProfDir), '--import', TSX, join(REPO, 'cli', 'main.ts'), ...serveArgs])
      : spawnServer('hostplane', HOSTPLANE, serveArgs);
    servers.push(serve);
    await admin(hpData, 'user', 'create', EMAIL);
    const [, issued] = await Promise.all([admin(hpData, 'member', 'add', ORG, EMAIL, 'admin'), admin(hpData, 'token', 'create', EMAIL)]);
    if (typeof issued.token !== 'string') throw new Error(`token create printed no token: ${JSON.stringify(issued)}`);

    const targets: Target[] = [
      { name: 'hostplane', url: await serve.ready, token: issued.token },
      { name: 'baseline', url: await baseline.ready, token: baseToken },
    ];
    const [hp, base] = targets as [Target, Target];
    for (const u of [hp.url, base.url]) {
      const host = new URL(u).hostname;
      if (host !== '127.0.0.1' && host !== '[::1]' && host !== 'localhost') throw new Error(`not a loopback server: ${u}`);
    }

    // The state both routes need: one project (the baseline seeds its own), one secret set once.
    await call(hp, 'POST', `/v1/orgs/${ORG}/projects`, { name: PROJECT }, 201);
    for (const t of targets) {
      for (const c of CASES) await call(t, c.method, c.path, c.body === undefined ? undefined : JSON.parse(c.body), c.expect);
    }
    const shape = (v: unknown): string => Object.keys(v as object).sort().join(',');
    const [hpGet, baseGet] = await Promise.all(targets.map((t) => call(t, 'GET', CASES[0]!.path, undefined, 200)));
    if (shape(hpGet) !== shape(baseGet)) {
      process.stdout.write(`warning: GET project bodies differ in shape: hostplane {${shape(hpGet)}} baseline {${shape(baseGet)}}\n`);
    }

    let ok = true;
    for (const { connections, seconds, warmup, optional } of RUNS) {
      for (const c of CASES) {
        const runs = targets.length * (SLICES + (warmup > 0 ? 1 : 0));
        const estimate = targets.length * (warmup + seconds) * 1000 + runs * RUN_OVERHEAD_MS;
        if (optional && performance.now() - started + estimate > BUDGET_MS) {
          process.stdout.write(`api ${c.name} conc=${connections}: skipped (would pass the bench's ${BUDGET_MS / 1000} s budget)\n`);
          continue;
        }
        const loadOf = (t: Target): Load => ({
          url: t.url, method: c.method, path: c.path, headers: headersOf(t, c), connections, seconds: seconds / SLICES,
          ...(c.body === undefined ? {} : { body: c.body }),
        });
        if (warmup > 0) for (const t of targets) await run({ ...loadOf(t), seconds: warmup });
        const slices: Record<Target['name'], Slice[]> = { hostplane: [], baseline: [] };
        for (let i = 0; i < SLICES; i++) {
          for (const t of i % 2 === 0 ? targets : [...targets].reverse()) slices[t.name].push(await run(loadOf(t)));
        }
        const hpM = summarize(slices.hostplane);
        const baseM = summarize(slices.baseline);
        process.stdout.write(`api ${c.name} conc=${connections} hostplane: ${fmt(hpM)}\n`);
        process.stdout.write(`api ${c.name} conc=${connections} baseline: ${fmt(baseM)}\n`);
        const label = `ratio ${c.name} conc=${connections}: hostplane/baseline`;
        if (failed(hpM) || failed(baseM)) {
          ok = false;
          process.stdout.write(`${label} = n/a (failed requests: not a result)\n`);
        } else {
          const r = hpM.rps / baseM.rps;
          process.stdout.write(`${label} = ${r.toFixed(2)}${r < AIM ? ` (below the ${AIM} aim)` : ''}\n`);
        }
      }
    }
    return ok ? 0 : 1;
  } finally {
    await Promise.all(servers.map((s) => s.stop(opts.cpuProfDir ? 15_000 : 5000)));
    rmSync(tmp, { recursive: true, force: true });
    release();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { 'cpu-prof': { type: 'string' } } });
  main({ cpuProfDir: values['cpu-prof'] }).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`bench api: ${(e as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
