/**
 * The two stores side by side (issue 22): the same `hostplane serve` on SQLite (its data dir) and on PostgreSQL
 * (a cluster this bench starts on a private socket, with fsync on: the same durability), the same zone of 100
 * rrsets, the same loads in interleaved slices:
 *   - `PUT rrset` at 8 connections (aim: PostgreSQL at least SQLite's writes/s, p99 under 25 ms);
 *   - `GET zone` at 8 connections (aim: PostgreSQL at least 0.6 of SQLite's reads/s).
 * One line per case and store, then one `ratio` line per case. Loopback only, about 40 s.
 *
 *   npx tsx bench/store.ts
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresMissing, startCluster } from '../harness/postgres';
import { fmt, REPO, run as runLoad, runJson, spawnServer, summarize, type ChildServer, type Slice } from './lib';

const HOSTPLANE = join(REPO, 'bin', 'hostplane');
const ORG = 'bench';
const ZONE = 'bench.test';
const HOSTS = 100;
const SLICES = 4;

interface Target { name: 'sqlite' | 'postgres'; url: string; token: string }
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
async function prepare(name: Target['name'], data: string, databaseUrl: string | undefined, servers: ChildServer[]): Promise<Target> {
  const store = databaseUrl ? ['--database-url', databaseUrl] : [];
  const admin = (...args: string[]) => runJson(HOSTPLANE, ['admin', '--data', data, ...store, ...args]);
  await admin('init');
  await admin('org', 'create', ORG, '--plan', 'pro');
  await admin('user', 'create', `owner@${ORG}.test`);
  await admin('member', 'add', ORG, `owner@${ORG}.test`, 'admin');
  const { token } = await admin('token', 'create', `owner@${ORG}.test`) as { token: string };
  const serve = spawnServer(name, HOSTPLANE, ['serve', '--port', '0', '--data', data, '--dns-listen', '127.0.0.1:0', '--metrics-listen', 'off', ...store]);
  servers.push(serve);
  const t: Target = { name, url: await serve.ready, token };
  await call(t, 'POST', `/v1/orgs/${ORG}/dns/zones`, { name: ZONE });
  for (let i = 0; i < HOSTS; i += 25) {
    await Promise.all(Array.from({ length: 25 }, (_, j) => call(t, 'PUT', `/v1/orgs/${ORG}/dns/zones/${ZONE}/rrsets/h${i + j}.${ZONE}/A`, { records: [{ content: `192.0.2.${(i + j) % 250 + 1}` }], ttl: 300 })));
  }
  return t;
}

export async function main(): Promise<number> {
  const missing = postgresMissing();
  if (missing) {
    process.stdout.write(`store: skipped (${missing})\n`);
    return 0;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-bench-store-'));
  const servers: ChildServer[] = [];
  const cluster = await startCluster({ fsync: true });
  try {
    mkdirSync(join(tmp, 'sqlite'));
    mkdirSync(join(tmp, 'postgres'));
    const targets = [
      await prepare('sqlite', join(tmp, 'sqlite'), undefined, servers),
      await prepare('postgres', join(tmp, 'postgres'), await cluster.createDatabase('bench'), servers),
    ];
    let ok = true;
    for (const c of CASES) {
      const slices: Record<Target['name'], Slice[]> = { sqlite: [], postgres: [] };
      for (let i = 0; i < SLICES; i++) {
        for (const t of i % 2 === 0 ? targets : [...targets].reverse()) {
          slices[t.name].push(await runLoad({
            url: t.url, method: c.method, path: c.path, connections: 8, seconds: c.seconds / SLICES, bodies: c.bodies,
            headers: { authorization: `Bearer ${t.token}`, ...(c.bodies ? { 'content-type': 'application/json' } : {}) },
          }));
        }
      }
      const lite = summarize(slices.sqlite);
      const pg = summarize(slices.postgres);
      process.stdout.write(`store ${c.name} sqlite: ${fmt(lite)}\nstore ${c.name} postgres: ${fmt(pg)}\n`);
      const ratio = pg.rps / lite.rps;
      const aim = c.method === 'PUT' ? `aim >= 1.0 and p99 < 25 ms: ${ratio >= 1 && pg.p99 < 25 ? 'met' : 'not met'}` : `aim >= 0.6: ${ratio >= 0.6 ? 'met' : 'not met'}`;
      process.stdout.write(`ratio store ${c.name}: postgres/sqlite ${ratio.toFixed(2)} req/s, p99 ${pg.p99.toFixed(1)} vs ${lite.p99.toFixed(1)} ms (${aim})\n`);
      if (lite.non2xx + pg.non2xx + lite.errors + pg.errors > 0) ok = false;
    }
    return ok ? 0 : 1;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await cluster.destroy();
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then((code) => process.exit(code), (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
