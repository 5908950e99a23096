/**
 * Speed of whole-zone work (issue 25 "Speed"), on `hostplane serve` with its managed Knot DNS:
 *  - change sets of 1,000 rrsets (POST …/zones/{zone}/changes): from the request's start to its answer, and to the
 *    set's last rrset answered on the DNS port (polled over UDP every millisecond), aim within 1 s. Two cases: a
 *    zone of 1,000 rrsets whose every rrset the set replaces (the nameserver loads the zone whole), and 1,000
 *    rrsets of a zone of 100,000 (one incremental transaction);
 *  - change sets of one rrset on a zone that keeps REVISIONS.sets change sets' revisions: from the request's start
 *    to its answer (what a write pays for the revisions it keeps; no aim);
 *  - a zone file of 1 MiB imported (POST …/import?mode=replace: parse, validate, diff, apply), request to answer,
 *    aim within 2 s: into the empty zone, replacing every rrset with others (a few deleted, a few added), and the
 *    same file again (nothing changes);
 *  - export (GET …/export) of zones of 100,000 and 200,000 rrsets: to the last byte, aim within 2 s for 100,000;
 *    memory, aim: serve's live heap halfway through the 200,000-rrset export no more than EXPORT_GROWTH_SLACK_MIB
 *    above halfway through the 100,000 one (a heap snapshot, taken on SIGUSR2, holds what is live after a full
 *    collection; an answer built whole would hold every rrset read so far). Serve's RSS, sampled every 10 ms,
 *    is printed beside it but is no measure of this: it holds the export's garbage until V8 collects it, which
 *    it may put off for hundreds of MiB on a heap grown by loading large zones (RSS then fell back by itself).
 *  - fairness of whole-zone work (`--case fair`): org A sends FAIR_BURST concurrent 1 MiB imports into its
 *    FAIR_ZONES zones (dry runs: the same parse, checks and diff, without the write that would make its later ones no
 *    change) while org B imports a
 *    1 MiB file once; B's time from its request to its answer, with the fair queue (slots: the cores, api/zone-changes.ts
 *    `zoneWork`) and without it (a slot for each request, as before it), beside B's import alone. In-process (createApp
 *    over a store on disk, as bench/console.ts: SQLite, then PostgreSQL on a throw-away cluster where it is installed),
 *    without serve and Knot: what is measured is the API's turn.
 * The export zones and the revisions are filled through the store (bench/fill.ts) before serve starts. Each case
 * takes several runs and prints one line with p50 and max, its aim and whether it is met, and the load average
 * beside it (other work on the machine shows in every number).
 *
 *   npx tsx bench/zone-changes.ts                 (also run by `npm run bench`)
 *   npx tsx bench/zone-changes.ts --cpu-prof DIR  (V8 CPU profile of serve into DIR; bench/profile-summary.ts reads it)
 *   npx tsx bench/zone-changes.ts --case import   (only the cases whose name starts so: change, import, export, fair)
 *
 * Loopback only; bounded (a minute or two; a watchdog ends it after 6 minutes whatever hangs); every child process
 * and the temp dir are removed at the end, also on failure. Exits non-zero if serve does not start, a request
 * fails or a change is not served.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { assertLoopback, freePorts, ms, sleep, stats } from './dns-lib';
import { DnsProbe } from './dns-query';
import { addressOf, bootstrap, hostplaneCall, hostplaneSide, note, ORG, out, servedAfter, startServe, type Side } from './dns-sides';
import { fillRevisions, fillZone } from './fill';
import { command, guard, type ChildServer } from './lib';
import { importFile } from './zone-file';
import { createApp } from '../api/app';
import type { ApiConfig } from '../api/ops';
import { localCore } from '../core/local';
import { KEY_FILE, openSealer } from '../core/sealing';
import { createLogger } from '../lib/log';
import { createOrg, createUser, issueToken, setMembership } from '../store/accounts';
import { openStore } from '../store/db';
import { openStoreAt } from '../store/open';
import { postgresMissing, startCluster } from '../harness/postgres';
import { createZone } from '../store/zones';

const PLAN = 'bench';
const MiB = 1024 * 1024;
const PLANS = {
  [PLAN]: { projects: 10, zones: 10, rrsetsPerZone: 250_000, zoneBytes: 64 * MiB, storageBytes: 1024 * MiB, signInUsers: 10, hostnames: 10, secretValueBytes: 32 * 1024, secretBytes: 64 * 1024 },
};
const SET = 1_000;
const SMALL_SET_ZONE = 'changes.test';
const EXPORT_DOUBLE = { zone: 'export200k.test', rrsets: 200_000 };
const EXPORT_BIG = { zone: 'export100k.test', rrsets: 100_000 };
const IMPORT_ZONE = 'import.test';
const REVISIONS = { zone: 'revisions.test', rrsets: 100, sets: 5_000 };
const CHANGE_RUNS = 5;
const SMALL_SET_RUNS = 50;
const EXPORT_RUNS = 3;
/** How long a heap snapshot may take to be written. */
const SNAPSHOT_TIMEOUT_MS = 60_000;
const AIM = { changeMs: 1_000, importMs: 2_000, exportMs: 2_000 };
const EXPORT_GROWTH_SLACK_MIB = 16;
const SERVED_TIMEOUT_MS = 30_000;
const START_TIMEOUT_MS = 120_000;
const WATCHDOG_MS = 360_000;

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');
const aim = (met: boolean, what: string): string => ` [aim ${what}: ${met ? 'met' : 'MISSED'}]`;
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)}MiB`;

async function call(side: Side, method: string, path: string, body: string, contentType = 'application/json'): Promise<Response> {
  const res = await fetch(`${side.url}/v1/orgs/${ORG}/dns/zones/${path}`, { method, headers: { ...side.headers, 'content-type': contentType }, body });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return res;
}

/** Waits until `fqdn` (in `zone`) is answered with `address`; the time since `t0`. Failing, says the zone's status. */
async function served(side: Side, zone: string, fqdn: string, address: string, t0: number): Promise<number> {
  const probe = new DnsProbe(side.dns);
  try {
    const took = await servedAfter(probe, fqdn, address, t0, SERVED_TIMEOUT_MS, 1);
    if (took === null) {
      const status = (await (await fetch(`${side.url}/v1/orgs/${ORG}/dns/zones/${zone}?limit=1`, { headers: side.headers })).json() as { status?: unknown }).status;
      throw new Error(`${fqdn} A ${address} not served within ${SERVED_TIMEOUT_MS / 1000} s; the zone's status: ${JSON.stringify(status)}`);
    }
    return took;
  } finally {
    probe.close();
  }
}

const spread = (values: number[]): string => {
  const s = stats(values);
  return `p50=${ms(s.p50)} max=${ms(s.max)}`;
};

/** CHANGE_RUNS sets of SET puts of `r<i>.<zone>` A (i from `first`), each with new addresses; one line. */
async function changeSets(side: Side, zone: string, first: number, what: string): Promise<boolean> {
  const acked: number[] = [];
  const total: number[] = [];
  for (let run = 0; run < CHANGE_RUNS; run++) {
    const address = (i: number): string => addressOf(i, 100 + run);
    const changes = Array.from({ length: SET }, (_, k) => ({ op: 'put', name: `r${first + k}.${zone}`, type: 'A', ttl: 300, records: [{ content: address(first + k) }] }));
    const body = JSON.stringify({ changes });
    const t0 = performance.now();
    await (await call(side, 'POST', `${zone}/changes`, body)).text();
    acked.push(performance.now() - t0);
    const last = first + SET - 1;
    total.push(await served(side, zone, `r${last}.${zone}`, address(last), t0));
  }
  const worst = Math.max(...total);
  out(`zone-changes change set of ${SET} rrsets, ${what}: acknowledged ${spread(acked)}; served by Knot (last rrset answered) ${spread(total)} n=${CHANGE_RUNS}`
    + `${aim(worst <= AIM.changeMs, `served within ${AIM.changeMs / 1000}s (max)`)} (load ${load()})`);
  return worst <= AIM.changeMs;
}

/** SMALL_SET_RUNS sets of one put each on REVISIONS.zone, one after another; one line. */
async function smallSets(side: Side): Promise<boolean> {
  const acked: number[] = [];
  for (let run = 0; run < SMALL_SET_RUNS; run++) {
    const changes = [{ op: 'put', name: `r${run % REVISIONS.rrsets}.${REVISIONS.zone}`, type: 'A', ttl: 300, records: [{ content: addressOf(run, 250) }] }];
    const t0 = performance.now();
    await (await call(side, 'POST', `${REVISIONS.zone}/changes`, JSON.stringify({ changes }))).text();
    acked.push(performance.now() - t0);
  }
  out(`zone-changes change set of 1 rrset on a zone keeping ${REVISIONS.sets} change sets' revisions: acknowledged ${spread(acked)} n=${SMALL_SET_RUNS} (load ${load()})`);
  return true;
}

/** CPU time (user and system) a process has used so far, in ms: beside a wall time that other work on the machine
 * stretches, what the process itself spent. */
function cpuMs(pid: number): number {
  // Fields 14 and 15 of /proc/PID/stat, after the command's closing parenthesis (a name may hold spaces).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 1000 / CLOCK_TICKS;
}
/** USER_HZ, 100 on Linux for every architecture Node runs on. */
const CLOCK_TICKS = 100;

async function imports(side: Side, pid: number): Promise<boolean> {
  const runs: { what: string; acked: number; cpu: number; served: number; changed: number }[] = [];
  const files = [importFile(IMPORT_ZONE, 0), importFile(IMPORT_ZONE, 1), importFile(IMPORT_ZONE, 1)];
  const whats = ['into the empty zone', 'replacing every rrset', 'the same file again'];
  for (const [i, file] of files.entries()) {
    const t0 = performance.now();
    const cpu0 = cpuMs(pid);
    const answer = await (await call(side, 'POST', `${IMPORT_ZONE}/import?mode=replace`, file.text, 'text/dns')).json() as { diff: unknown[] };
    const acked = performance.now() - t0;
    const cpu = cpuMs(pid) - cpu0;
    runs.push({ what: whats[i]!, acked, cpu, served: await served(side, IMPORT_ZONE, file.last.name, file.last.address, t0), changed: answer.diff.length });
  }
  const worst = Math.max(...runs.map((r) => r.acked));
  out(`zone-changes import of a ${mib(Buffer.byteLength(files[0]!.text))} zone file (mode=replace): `
    + `${runs.map((r) => `${r.what} (${r.changed} rrsets changed) acknowledged ${ms(r.acked)} (serve's CPU ${ms(r.cpu)}), served ${ms(r.served)}`).join('; ')}`
    + `${aim(worst <= AIM.importMs, `acknowledged within ${AIM.importMs / 1000}s (max)`)} (load ${load()})`);
  return worst <= AIM.importMs;
}

/** Serve's own RSS (not knotd's), sampled every 10 ms until stopped: the highest seen. */
function rssOf(pid: number): { peak(): number; stop(): void } {
  const read = (): number => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  let peak = read();
  const timer = setInterval(() => {
    peak = Math.max(peak, read());
  }, 10);
  return { peak: () => peak, stop: () => clearInterval(timer) };
}

interface Exported { took: number[]; firstByte: number[]; bytes: number; growth: number; liveMiB: number }

/** The live heap a snapshot holds: the sum of its nodes' self sizes. */
function liveHeap(file: string): number {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as { snapshot: { meta: { node_fields: string[] } }; nodes: number[] };
  const fields = snap.snapshot.meta.node_fields;
  const self = fields.indexOf('self_size');
  let total = 0;
  for (let i = self; i < snap.nodes.length; i += fields.length) total += snap.nodes[i]!;
  return total;
}

/** Serve's live heap halfway through an export of `zone` (`bytes` long): the body is read to half, a snapshot
 * taken (serve stands still while it writes it), then the rest read. */
async function liveHalfway(side: Side, pid: number, snapshots: string, zone: string, bytes: number): Promise<number> {
  const before = new Set(readdirSync(snapshots));
  const res = await fetch(`${side.url}/v1/orgs/${ORG}/dns/zones/${zone}/export`, { headers: side.headers });
  const reader = res.body!.getReader();
  let read = 0;
  let file: string | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.byteLength;
    if (file === undefined && read >= bytes / 2) {
      process.kill(pid, 'SIGUSR2');
      const t0 = performance.now();
      // Written by serve before it answers anything again: complete once its size holds still.
      let size = -1;
      for (;;) {
        await sleep(250);
        const name = readdirSync(snapshots).find((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
        const now = name ? statSync(join(snapshots, name)).size : -1;
        if (name && now > 0 && now === size) {
          file = join(snapshots, name);
          break;
        }
        size = now;
        if (performance.now() - t0 > SNAPSHOT_TIMEOUT_MS) throw new Error(`no heap snapshot from serve within ${SNAPSHOT_TIMEOUT_MS / 1000} s`);
      }
    }
  }
  if (file === undefined || read !== bytes) throw new Error(`export of ${zone} read ${read} of ${bytes} bytes`);
  const live = liveHeap(file);
  rmSync(file);
  return live;
}

/** EXPORT_RUNS exports of `zone`, read to the last byte; the most serve's RSS grew over its level before a run;
 * then the live heap halfway through one more. */
async function exports(side: Side, pid: number, snapshots: string, zone: string, lastName: string): Promise<Exported> {
  const r: Exported = { took: [], firstByte: [], bytes: 0, growth: 0, liveMiB: 0 };
  for (let run = 0; run < EXPORT_RUNS; run++) {
    const rss = rssOf(pid);
    const before = rss.peak();
    const t0 = performance.now();
    const res = await fetch(`${side.url}/v1/orgs/${ORG}/dns/zones/${zone}/export`, { headers: side.headers });
    r.firstByte.push(performance.now() - t0);
    const text = await res.text();
    r.took.push(performance.now() - t0);
    rss.stop();
    if (res.status !== 200 || !text.includes(`\n${lastName}. `)) throw new Error(`export of ${zone}: ${res.status}, ${text.length} characters without ${lastName}`);
    r.bytes = Buffer.byteLength(text);
    r.growth = Math.max(r.growth, rss.peak() - before);
  }
  r.liveMiB = (await liveHalfway(side, pid, snapshots, zone, r.bytes)) / MiB;
  return r;
}

async function exportsOf(side: Side, pid: number, snapshots: string): Promise<boolean> {
  const big = await exports(side, pid, snapshots, EXPORT_BIG.zone, `r${EXPORT_BIG.rrsets - 1}.${EXPORT_BIG.zone}`);
  const double = await exports(side, pid, snapshots, EXPORT_DOUBLE.zone, `r${EXPORT_DOUBLE.rrsets - 1}.${EXPORT_DOUBLE.zone}`);
  const worst = Math.max(...big.took);
  const flat = double.liveMiB - big.liveMiB <= EXPORT_GROWTH_SLACK_MIB;
  const line = (x: Exported, n: number): string =>
    `${n} rrsets (${mib(x.bytes)}): first byte ${spread(x.firstByte)}, last byte ${spread(x.took)}, live heap halfway ${x.liveMiB.toFixed(1)}MiB, `
    + `serve's RSS grew by ${mib(x.growth)} at most`;
  out(`zone-changes export, n=${EXPORT_RUNS} each: ${line(big, EXPORT_BIG.rrsets)}; ${line(double, EXPORT_DOUBLE.rrsets)}`
    + `${aim(worst <= AIM.exportMs, `${EXPORT_BIG.rrsets} rrsets within ${AIM.exportMs / 1000}s (max)`)}`
    + `${aim(flat, `live heap halfway through the ${EXPORT_DOUBLE.rrsets} export within ${EXPORT_GROWTH_SLACK_MIB}MiB of the ${EXPORT_BIG.rrsets} one's`)} (load ${load()})`);
  return worst <= AIM.exportMs && flat;
}

/** Org A's concurrent imports in the fairness case, and how long they are given to arrive before B's. */
const FAIR_BURST = 20;
const FAIR_ARRIVAL_MS = 300;
const FAIR_RUNS = 3;
/** A's zones, its imports spread over them: those of one zone take its lock one at a time, which would queue them
 * without any fair queue. */
const FAIR_ZONES = 10;
const FAIR_NS = ['ns1.hostplane.bench', 'ns2.hostplane.bench'];

/** B's import time while A's burst runs, on an in-process API of `zoneWork`'s config; B's import alone before it. */
interface FairRun { alone: number; beside: number; burst: number; failed: string[] }

async function fairRun(zoneWork: ApiConfig['zoneWork'], databaseUrl: string | undefined): Promise<FairRun> {
  const dir = mkdtempSync(join(tmpdir(), 'hostplane-fairbench-'));
  const store = databaseUrl ? await openStoreAt({ data: dir, databaseUrl }) : openStore(dir);
  const log = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });
  const core = localCore({ sealer: openSealer(join(dir, KEY_FILE)), dns: { configured: true, nameservers: FAIR_NS }, nudge: () => undefined });
  const app = createApp({ store, core, config: { appDomain: 'hostplane.bench', plans: { [PLAN]: PLANS[PLAN] }, serviceDomains: [], ...(zoneWork && { zoneWork }) } }, log);
  const server = createServer(app.handler);
  try {
    const token: Record<string, string> = {};
    for (const org of ['a', 'b']) {
      const { id } = await createOrg(store, org, PLAN);
      await createUser(store, `admin@${org}.test`);
      await setMembership(store, org, `admin@${org}.test`, 'admin');
      token[org] = await issueToken(store, `admin@${org}.test`);
      for (let z = 0; z < FAIR_ZONES; z++) await createZone(store, { orgId: id, name: `${org}${z}.test`, nameservers: FAIR_NS, actor: 'bench', quota: null });
    }
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const failed: string[] = [];
    // A request that fails (PostgreSQL's pool exhausted answers 503) is counted, not thrown: it is part of the result.
    const importOf = async (org: string, zone: string, dryRun: boolean): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(`${base}/v1/orgs/${org}/dns/zones/${zone}/import?mode=replace${dryRun ? '&dryRun=true' : ''}`, {
        method: 'POST', headers: { authorization: `Bearer ${token[org]}`, 'content-type': 'text/dns' }, body: importFile(zone, 0).text,
      });
      await res.text();
      if (res.status !== 200) failed.push(`${org.toUpperCase()} ${res.status}`);
      return performance.now() - t0;
    };
    const alone = await importOf('b', 'b0.test', false);
    const t0 = performance.now();
    const burst = Array.from({ length: FAIR_BURST }, (_, i) => importOf('a', `a${i % FAIR_ZONES}.test`, true));
    await sleep(FAIR_ARRIVAL_MS);
    const beside = await importOf('b', 'b1.test', false);
    await Promise.all(burst);
    return { alone, beside, burst: performance.now() - t0, failed };
  } finally {
    server.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The fairness case: on each store (PostgreSQL where it is installed), a line with the fair queue and one without. */
async function fairness(): Promise<boolean> {
  const cases: [string, ApiConfig['zoneWork']][] = [
    // A's whole burst waits (past the default bound of 8 the rest would be 429 at once, and retried by a client).
    [`with the fair queue (${availableParallelism()} slots)`, { waitingPerOrg: FAIR_BURST }],
    ['without it (a slot for each request)', { slots: 1000, waitingPerOrg: 1000 }],
  ];
  const cluster = postgresMissing() === undefined ? await startCluster({ fsync: true }) : undefined;
  if (!cluster) note(`fairness on PostgreSQL skipped: ${postgresMissing()}`);
  try {
    for (const dialect of cluster ? ['sqlite', 'postgres'] : ['sqlite']) {
      for (const [what, zoneWork] of cases) {
        const runs: FairRun[] = [];
        for (let run = 0; run < FAIR_RUNS; run++) runs.push(await fairRun(zoneWork, dialect === 'postgres' ? await cluster!.createDatabase() : undefined));
        const fails = runs.flatMap((r) => r.failed);
        out(`zone-changes fairness ${what}, ${dialect}: org B's 1 MiB import answered in ${spread(runs.map((r) => r.beside))} while org A ran ${FAIR_BURST} concurrent `
          + `1 MiB imports into ${FAIR_ZONES} zones (dry runs, all answered in ${spread(runs.map((r) => r.burst))}); B's import alone ${spread(runs.map((r) => r.alone))} n=${FAIR_RUNS}`
          + `${fails.length ? `; requests failed: ${[...new Set(fails)].map((f) => `${fails.filter((x) => x === f).length}× ${f}`).join(', ')}` : ''} (load ${load()})`);
      }
    }
  } finally {
    await cluster?.destroy();
  }
  return true;
}

export interface ZoneChangesBenchOptions { cpuProfDir?: string; cases?: string[] }

export async function main(opts: ZoneChangesBenchOptions = {}): Promise<number> {
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-zonechangesbench-'));
  const data = join(tmp, 'hostplane');
  mkdirSync(data);
  const plansFile = join(tmp, 'plans.json');
  writeFileSync(plansFile, JSON.stringify(PLANS));
  let serve: ChildServer | undefined;
  const release = guard('zone-changes', tmp, () => [serve?.child], WATCHDOG_MS);
  try {
    out(`context: ${cpus().length} cores, load average ${load()}`);
    const selected = (name: string): boolean => !opts.cases?.length || opts.cases.some((c) => name.startsWith(c));
    let met = 0;
    let ran = 0;
    let failed = 0;
    /** Each case on its own: one that fails is said on its line and the others still run. */
    const runCase = async (name: string, run: () => Promise<boolean>): Promise<void> => {
      ran++;
      try {
        if (await run()) met++;
      } catch (e) {
        failed++;
        out(`zone-changes ${name}: FAILED: ${(e as Error).message} (load ${load()})`);
      }
    };
    const summary = (): number => {
      out(`context: load average ${load()} at the end; aims met ${met} of ${ran}${failed ? `, ${failed} failed` : ''}`);
      return failed === 0 ? 0 : 1;
    };
    // In-process, before serve starts (it needs neither serve nor Knot).
    if (selected('fair')) await runCase('fair', fairness);
    const cases: [string, (side: Side, pid: number, snapshots: string) => Promise<boolean>][] = [
      ['change set (whole load)', (side) => changeSets(side, SMALL_SET_ZONE, 0, `replacing every rrset of a ${SET}-rrset zone (a whole load)`)],
      ['change set (incremental)', (side) => changeSets(side, EXPORT_BIG.zone, EXPORT_BIG.rrsets - SET, `${SET} of a ${EXPORT_BIG.rrsets}-rrset zone (incremental)`)],
      ['change set (many revisions)', (side) => smallSets(side)],
      ['import', (side, pid) => imports(side, pid)],
      ['export', (side, pid, snapshots) => exportsOf(side, pid, snapshots)],
    ];
    if (!cases.some(([name]) => selected(name))) return summary();
    const [dnsPort] = (await freePorts(1)) as [number];
    const token = await bootstrap(data, PLAN, plansFile);
    let t = performance.now();
    for (const x of [EXPORT_BIG, EXPORT_DOUBLE]) await fillZone(data, { name: PLAN, ...PLANS[PLAN] }, x.zone, x.rrsets);
    note(`${EXPORT_BIG.rrsets + EXPORT_DOUBLE.rrsets} rrsets written to the store in ${ms(performance.now() - t)}`);
    t = performance.now();
    await fillRevisions(data, { name: PLAN, ...PLANS[PLAN] }, REVISIONS.zone, REVISIONS.rrsets, REVISIONS.sets);
    note(`${REVISIONS.sets} change sets applied to ${REVISIONS.zone} in ${ms(performance.now() - t)}`);

    t = performance.now();
    const snapshots = join(tmp, 'heap');
    mkdirSync(snapshots);
    serve = startServe({ data, dnsPort, plansFile, cpuProfDir: opts.cpuProfDir, heapSnapshotDir: snapshots });
    const side = hostplaneSide(await serve.ready, token, dnsPort);
    assertLoopback(side.url);
    const pid = serve.child.pid!;
    // Both large zones served before any case: their first loads would otherwise run beside it (and in its RSS).
    const probe = new DnsProbe(side.dns);
    try {
      for (const x of [EXPORT_BIG, EXPORT_DOUBLE]) {
        const last = x.rrsets - 1;
        while ((await probe.addresses(`r${last}.${x.zone}`, 500))[0] !== addressOf(last)) {
          if (performance.now() - t > START_TIMEOUT_MS) throw new Error(`${x.zone} not served within ${START_TIMEOUT_MS / 1000} s of the start`);
          await sleep(50);
        }
      }
    } finally {
      probe.close();
    }
    note(`serve started and served ${EXPORT_BIG.zone} and ${EXPORT_DOUBLE.zone} in ${ms(performance.now() - t)}`);
    for (const zone of [SMALL_SET_ZONE, IMPORT_ZONE]) await hostplaneCall(side, 'POST', `/v1/orgs/${ORG}/dns/zones`, { name: zone });

    for (const [name, run] of cases) if (selected(name)) await runCase(name, () => run(side, pid, snapshots));
    return summary();
  } finally {
    await serve?.stop(opts.cpuProfDir ? 20_000 : 5000);
    rmSync(tmp, { recursive: true, force: true });
    release();
  }
}

command(import.meta.url, 'zone-changes', async () => {
  const { values } = parseArgs({ options: { 'cpu-prof': { type: 'string' }, case: { type: 'string', multiple: true } } });
  return main({ cpuProfDir: values['cpu-prof'], cases: values.case });
});
