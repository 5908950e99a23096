/**
 * The two stores side by side (issue 22): the same `hostplane serve` on SQLite (its data dir) and on PostgreSQL
 * (a cluster this bench starts on a private socket, with fsync on: the same durability), the same zone of 100
 * rrsets, the same loads in interleaved slices:
 *   - `PUT rrset` at 8 connections (aim: PostgreSQL at least SQLite's writes/s, p99 under 25 ms);
 *   - `GET zone` at 8 connections (aim: PostgreSQL at least 0.6 of SQLite's reads/s).
 * One line per case and store, with the CPU each request cost serve (and, on PostgreSQL, the cluster's processes),
 * then one `ratio` line per case. On a machine shared with other work, rates follow the load; CPU per request and
 * the ratios are what to compare. Loopback only, about 40 s.
 *
 *   npx tsx bench/store.ts
 *   npx tsx bench/store.ts --cpu-prof DIR   (serve under V8's profiler on both stores: where each spends its time)
 *   npx tsx bench/store.ts --case PUT       (only the cases whose name contains PUT)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { postgresMissing, startCluster } from '../harness/postgres';
import { command, cpuSeconds, fmt, processTree, profileOf, REPO, run as runLoad, runJson, spawnServer, summarize, TSX, type ChildServer, type Slice } from './lib';
import { formatSummary, monotonicMicros, readProfile, summarize as summarizeProfile, type Window } from './profile-summary';

const HOSTPLANE = join(REPO, 'bin', 'hostplane');
const ORG = 'bench';
const ZONE = 'bench.test';
const HOSTS = 100;
const SLICES = 4;

interface Target { name: 'sqlite' | 'postgres'; url: string; token: string; pid: number }
interface Case { name: string; method: 'GET' | 'PUT'; path: string; bodies?: string[]; seconds: number }

const rrsetBody = (address: string): string => JSON.stringify({ records: [{ content: address }], ttl: 300 });
const CASES: Case[] = [
  { name: 'PUT rrset conc=8', method: 'PUT', path: `/v1/orgs/${ORG}/dns/zones/${ZONE}/rrsets/w.${ZONE}/A`, bodies: [rrsetBody('192.0.2.200'), rrsetBody('192.0.2.201')], seconds: 8 },
  { name: 'GET zone conc=8', method: 'GET', path: `/v1/orgs/${ORG}/dns/zones/${ZONE}`, seconds: 8 },
];

async function call(t: Target, method: string, path: string, body?: unknown): Promise<void> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${t.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${t.name} ${method} ${path}: ${res.status} ${await res.text()}`);
}

/** A serve on `data` (and `databaseUrl` when given) with an org, an admin token and the zone filled. */
async function prepare(name: Target['name'], data: string, databaseUrl: string | undefined, servers: ChildServer[], profDir: string | undefined): Promise<Target> {
  const store = databaseUrl ? ['--database-url', databaseUrl] : [];
  const admin = (...args: string[]) => runJson(HOSTPLANE, ['admin', '--data', data, ...store, ...args]);
  await admin('init');
  await admin('org', 'create', ORG, '--plan', 'pro');
  await admin('user', 'create', `owner@${ORG}.test`);
  await admin('member', 'add', ORG, `owner@${ORG}.test`, 'admin');
  const { token } = await admin('token', 'create', `owner@${ORG}.test`) as { token: string };
  const serveArgs = ['serve', '--port', '0', '--data', data, '--dns-listen', '127.0.0.1:0', '--metrics-listen', 'off', ...store];
  // node refuses --cpu-prof in NODE_OPTIONS, so a profiled serve is node itself on the sources.
  const serve = profDir
    ? spawnServer(name, process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, '--import', TSX, join(REPO, 'cli', 'main.ts'), ...serveArgs])
    : spawnServer(name, HOSTPLANE, serveArgs);
  servers.push(serve);
  const t: Target = { name, url: await serve.ready, token, pid: serve.child.pid! };
  await call(t, 'POST', `/v1/orgs/${ORG}/dns/zones`, { name: ZONE });
  for (let i = 0; i < HOSTS; i += 25) {
    await Promise.all(Array.from({ length: 25 }, (_, j) => call(t, 'PUT', `/v1/orgs/${ORG}/dns/zones/${ZONE}/rrsets/h${i + j}.${ZONE}/A`, { records: [{ content: `192.0.2.${(i + j) % 250 + 1}` }], ttl: 300 })));
  }
  return t;
}

/** A cluster process that ended between the listing and the read (a backend whose connection closed) counts nothing:
 * it is not one of the measured ones, which stay connected. */
function backendCpu(pid: number): number {
  try {
    return cpuSeconds(pid);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
}

/** CPU seconds used so far by serve and, on PostgreSQL, by the cluster's processes (this bench's children). */
function cpuOf(t: Target): { serve: number; database: number } {
  const database = t.name === 'postgres'
    ? processTree(process.pid).filter((p) => p.name === 'postgres').reduce((n, p) => n + backendCpu(p.pid), 0)
    : 0;
  return { serve: cpuSeconds(t.pid), database };
}

export async function main(opts: { cpuProfDir?: string; only?: string } = {}): Promise<number> {
  const missing = postgresMissing();
  if (missing) {
    process.stdout.write(`store: skipped (${missing})\n`);
    return 0;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-bench-store-'));
  const profDir = opts.cpuProfDir ? resolve(opts.cpuProfDir) : undefined;
  if (profDir) mkdirSync(profDir, { recursive: true });
  const servers: ChildServer[] = [];
  const cluster = await startCluster({ fsync: true });
  try {
    mkdirSync(join(tmp, 'sqlite'));
    mkdirSync(join(tmp, 'postgres'));
    const targets = [
      await prepare('sqlite', join(tmp, 'sqlite'), undefined, servers, profDir),
      await prepare('postgres', join(tmp, 'postgres'), await cluster.createDatabase('bench'), servers, profDir),
    ];
    const windows: Record<Target['name'], { c: Case; w: Window }[]> = { sqlite: [], postgres: [] };
    let ok = true;
    const cases = CASES.filter((c) => !opts.only || c.name.includes(opts.only));
    for (const c of cases) {
      const slices: Record<Target['name'], Slice[]> = { sqlite: [], postgres: [] };
      const cpu: Record<Target['name'], { serve: number; database: number }> = { sqlite: { serve: 0, database: 0 }, postgres: { serve: 0, database: 0 } };
      for (let i = 0; i < SLICES; i++) {
        for (const t of i % 2 === 0 ? targets : [...targets].reverse()) {
          const before = cpuOf(t);
          const from = monotonicMicros();
          slices[t.name].push(await runLoad({
            url: t.url, method: c.method, path: c.path, connections: 8, seconds: c.seconds / SLICES, bodies: c.bodies,
            headers: { authorization: `Bearer ${t.token}`, ...(c.bodies ? { 'content-type': 'application/json' } : {}) },
          }));
          windows[t.name].push({ c, w: [from, monotonicMicros()] });
          const after = cpuOf(t);
          cpu[t.name].serve += after.serve - before.serve;
          cpu[t.name].database += after.database - before.database;
        }
      }
      const m = { sqlite: summarize(slices.sqlite), postgres: summarize(slices.postgres) };
      const msPer = (name: Target['name'], part: 'serve' | 'database'): string => (cpu[name][part] * 1000 / Math.max(1, m[name].responses)).toFixed(2);
      process.stdout.write(`store ${c.name} sqlite: ${fmt(m.sqlite)} cpu serve=${msPer('sqlite', 'serve')}ms/req\n`);
      process.stdout.write(`store ${c.name} postgres: ${fmt(m.postgres)} cpu serve=${msPer('postgres', 'serve')}ms/req database=${msPer('postgres', 'database')}ms/req\n`);
      const ratio = m.postgres.rps / m.sqlite.rps;
      const aim = c.method === 'PUT' ? `aim >= 1.0 and p99 < 25 ms: ${ratio >= 1 && m.postgres.p99 < 25 ? 'met' : 'not met'}` : `aim >= 0.6: ${ratio >= 0.6 ? 'met' : 'not met'}`;
      process.stdout.write(`ratio store ${c.name}: postgres/sqlite ${ratio.toFixed(2)} req/s, p99 ${m.postgres.p99.toFixed(1)} vs ${m.sqlite.p99.toFixed(1)} ms (${aim})\n`);
      if (m.sqlite.non2xx + m.postgres.non2xx + m.sqlite.errors + m.postgres.errors > 0) ok = false;
    }
    if (profDir) {
      for (const t of targets) {
        await servers.find((s) => s.child.pid === t.pid)!.stop(15_000);
        const profile = readProfile(profileOf(profDir, t.pid));
        for (const c of cases) {
          const w = windows[t.name].filter((x) => x.c === c).map((x) => x.w);
          process.stdout.write(`${formatSummary(`${t.name} ${c.name}`, summarizeProfile(profile, w, 25)).join('\n')}\n`);
        }
      }
    }
    return ok ? 0 : 1;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await cluster.destroy();
    rmSync(tmp, { recursive: true, force: true });
  }
}

command(import.meta.url, 'store', async () => {
  const { values } = parseArgs({ options: { 'cpu-prof': { type: 'string' }, case: { type: 'string' } } });
  return main({ cpuProfDir: values['cpu-prof'], only: values.case });
}, { exit: true });
