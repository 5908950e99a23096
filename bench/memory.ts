/**
 * Memory of `hostplane serve` (issue 7 item 6): the peak RSS of its whole process tree (serve and the knotd it
 * supervises, sampled from /proc every 20 ms) with 1,000 zones of 100 rrsets and one zone of 100,000 rrsets.
 *
 * The zones are created through the store's own functions, as the API writes them, within the quotas of a plan
 * table that allows them (serve gets the same table with `--plans`); writes issued together share a commit, so
 * filling takes seconds rather than the minutes of 200,000 requests. Then serve runs with its Knot DNS: a first
 * start renders and loads every zone; a restart re-renders and checks every zone (the case measured against
 * the aim); after it, a write load of changes to the large zone and to small ones through the API, one every
 * 25 ms for a few seconds. Each start ends once the zone reconciler has passed over every zone (serve's
 * /metrics) and the last rrset of every zone is answered on the DNS port. One line per stage on stdout, with
 * the processes at its peak and how serve ran (compiled, or through tsx when dist/ is missing or stale).
 *
 *   npx tsx bench/memory.ts            (also run by `npm run bench`)
 *
 * Loopback only; bounded (a few minutes; a watchdog ends it after 8 minutes whatever hangs); every child process
 * and the temp dir are removed at the end, also on failure. Exits non-zero if a server does not start or a
 * write or a stage fails.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { assertLoopback, freePorts, ms, sleep } from './dns-lib';
import { DnsProbe } from './dns-query';
import { addressOf, bootstrap, hostplaneSide, out, startServe, write, zonePasses, type Side } from './dns-sides';
import { fill } from './fill';
import { command, guard, sampleTreeRss, type ChildServer, type ProcessRss } from './lib';

const SMALL_ZONES = 1_000;
const SMALL_RRSETS = 100;
const BIG_RRSETS = 100_000;
const BIG = 'big.test';
const smallZone = (i: number): string => `z${String(i).padStart(4, '0')}.test`;
/** Rrsets written per zone: the zone's SOA and apex NS come with it. */
const fillOf = (zone: string): number => (zone === BIG ? BIG_RRSETS : SMALL_RRSETS) - 2;
const PLAN = 'bench';
const MiB = 1024 * 1024;
const PLANS = {
  [PLAN]: { projects: 10, zones: SMALL_ZONES + 1, rrsetsPerZone: BIG_RRSETS, zoneBytes: 64 * MiB, storageBytes: 1024 * MiB, signInUsers: 10, hostnames: 10, secretValueBytes: 32 * 1024, secretBytes: 64 * 1024 },
};
const LOAD_SECONDS = 5;
const CADENCE_MS = 25;
const STAGE_TIMEOUT_MS = 180_000;
const WATCHDOG_MS = 480_000;
const AIM_MIB = 300;

const mib = (bytes: number): string => `${Math.round(bytes / MiB)}MiB`;

/** How ./bin/hostplane ran serve: compiled (dist/, fresh) or from the sources through tsx. */
const runsAs = (pid: number): string =>
  readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dist/cli/main.js') ? 'compiled' : 'through tsx';
const breakdown = (ps: ProcessRss[]): string => ps.map((p) => `${p.name} ${mib(p.rssBytes)}`).join(' + ');

/** Resolves once the zone reconciler has passed over every zone successfully since serve started. */
async function converged(metricsUrl: string, zones: number): Promise<void> {
  const deadline = performance.now() + STAGE_TIMEOUT_MS;
  for (;;) {
    const p = await zonePasses(metricsUrl);
    if (p.ok >= zones) return;
    if (performance.now() > deadline) throw new Error(`the zone reconciler passed over ${p.ok} of ${zones} zones within ${STAGE_TIMEOUT_MS / 1000} s`);
    await sleep(100);
  }
}

/** Waits until the last rrset of every zone is answered on the DNS port. */
async function served(side: Side, zones: string[]): Promise<void> {
  const probe = new DnsProbe(side.dns);
  const deadline = performance.now() + STAGE_TIMEOUT_MS;
  try {
    for (const zone of zones) {
      const n = fillOf(zone) - 1;
      for (;;) {
        const got = await probe.addresses(`r${n}.${zone}`, 500);
        if (got.length === 1 && got[0] === addressOf(n)) break;
        if (performance.now() > deadline) throw new Error(`r${n}.${zone} not served within ${STAGE_TIMEOUT_MS / 1000} s`);
        await sleep(20);
      }
    }
  } finally {
    probe.close();
  }
}

/** A change every CADENCE_MS for LOAD_SECONDS, alternating between the large zone and the small ones. */
async function writeLoad(side: Side): Promise<number> {
  let failed = 0;
  const end = performance.now() + LOAD_SECONDS * 1000;
  for (let i = 0; performance.now() < end; i++) {
    const zone = i % 2 === 0 ? BIG : smallZone((i >> 1) % SMALL_ZONES);
    const t = performance.now();
    await write(side, zone, `load.${zone}`, addressOf(i, 172)).catch(() => failed++);
    await sleep(Math.max(0, CADENCE_MS - (performance.now() - t)));
  }
  return failed;
}

export async function main(): Promise<number> {
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-memorybench-'));
  const data = join(tmp, 'hostplane');
  mkdirSync(data);
  const plansFile = join(tmp, 'plans.json');
  writeFileSync(plansFile, JSON.stringify(PLANS));
  let serve: ChildServer | undefined;
  const release = guard('memory', tmp, () => [serve?.child], WATCHDOG_MS);
  const zones = [...Array.from({ length: SMALL_ZONES }, (_, i) => smallZone(i)), BIG];
  let ok = true;
  try {
    out(`context: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const [dnsPort] = (await freePorts(1)) as [number];
    const token = await bootstrap(data, PLAN, plansFile);
    const run = async (): Promise<{ side: Side; metrics: string; rss: ReturnType<typeof sampleTreeRss> }> => {
      serve = startServe({ data, dnsPort, plansFile });
      const rss = sampleTreeRss(serve.child.pid!);
      const side = hostplaneSide(await serve.ready, token, dnsPort);
      assertLoopback(side.url);
      const metrics = await serve.metrics;
      if (!metrics) throw new Error('serve printed no metrics URL');
      return { side, metrics, rss };
    };
    const stop = async (): Promise<void> => {
      await serve?.stop(30_000);
      serve = undefined;
    };

    let t = performance.now();
    // Every zone and rrset, through the store with serve stopped.
    await fill(data, { name: PLAN, ...PLANS[PLAN] }, zones, fillOf);
    process.stderr.write(`# ${zones.length} zones, ${SMALL_ZONES * (SMALL_RRSETS - 2) + BIG_RRSETS - 2} rrsets written to the store in ${ms(performance.now() - t)}\n`);

    const line = (stage: string, r: ReturnType<typeof sampleTreeRss>, took: number, aim: boolean): string => {
      const peak = r.peak();
      return `memory serve (${runsAs(serve!.child.pid!)}) ${SMALL_ZONES}×${SMALL_RRSETS} + 1×${BIG_RRSETS} rrsets, ${stage}: peak RSS of serve+knotd ${mib(peak.bytes)}`
        + ` (${breakdown(peak.processes)}) in ${ms(took)}${aim ? ` [aim <${AIM_MIB}MiB: ${peak.bytes < AIM_MIB * MiB ? 'met' : 'MISSED'}]` : ''}`;
    };

    t = performance.now();
    const first = await run();
    await converged(first.metrics, zones.length);
    await served(first.side, zones);
    first.rss.stop();
    out(line('first start (renders and loads every zone)', first.rss, performance.now() - t, false));
    await stop();

    t = performance.now();
    const again = await run();
    await converged(again.metrics, zones.length);
    await served(again.side, zones);
    out(line('restart (re-renders and checks every zone)', again.rss, performance.now() - t, true));
    const startPeak = again.rss.peak().bytes;
    t = performance.now();
    const loadFailed = await writeLoad(again.side);
    again.rss.stop();
    if (loadFailed > 0) ok = false;
    out(`${line(`restart and a write load (a change every ${CADENCE_MS}ms for ${LOAD_SECONDS}s, big and small zones in turn)`, again.rss, performance.now() - t, true)}`
      + `${loadFailed ? ` failed=${loadFailed}` : ''}; the load added ${mib(Math.max(0, again.rss.peak().bytes - startPeak))}`);
    await stop();
    out(`context: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
    return ok ? 0 : 1;
  } finally {
    await serve?.stop(5000);
    rmSync(tmp, { recursive: true, force: true });
    release();
  }
}

command(import.meta.url, 'memory', main);
