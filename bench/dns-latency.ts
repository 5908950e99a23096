/**
 * Change latency at a steady cadence (issue 7 item 9): hostplane (`serve` with its managed Knot DNS) side by
 * side with PowerDNS (gsqlite3, which answers from its database) in one run. One zone of 100 rrsets on each
 * (SOA, apex NS, the changed `c.<zone>` A and 97 more); one change of `c` every 25 ms; for each change, the
 * time from the start of the write request (putRRset; PowerDNS: PATCH zone) to the new address being answered
 * on the DNS port, polled over UDP every 0.2 ms from the write's answer on (a coarser poll adds up to its
 * interval to the side that serves after its answer, which PowerDNS never does). Also the part of it after the
 * write was acknowledged, and hostplane's zone reconcile passes (from serve's /metrics): their mean duration,
 * which includes what follows the apply (the read-back of the served serial, the status write). And each side's CPU
 * per change: its processes' user and system time over its own rounds (/proc; serve with its knotd, PowerDNS),
 * which on a machine of few cores is time the other processes on a change's way wait for.
 *
 * The series are cut in rounds taken in the order H P P H ..., so that drift in the machine's load hits both
 * alike. A change starts on its 25 ms tick, or as soon as the previous one is served when that is later (the
 * line counts those as late). One line per side on stdout, hostplane's with the issue's aims: p50 within 1.5×
 * PowerDNS's, p99 no worse than PowerDNS's.
 *
 *   npx tsx bench/dns-latency.ts                      (also run by `npm run bench`)
 *   npx tsx bench/dns-latency.ts --changes 100        (per side; default 400)
 *   npx tsx bench/dns-latency.ts --poll-ms 1          (poll every millisecond, as bench/dns.ts does)
 *   npx tsx bench/dns-latency.ts --cpu-prof DIR       (V8 CPU profile of serve into DIR)
 *   npx tsx bench/dns-latency.ts --warmup 2000        (unmeasured changes on each side, PowerDNS too, before the
 *                                                      rounds; default 20. A fresh serve's V8 keeps compiling its
 *                                                      hot functions for about 2,000 changes: with 2,000, what a
 *                                                      serve that has been up a while does)
 *   npx tsx bench/dns-latency.ts --runs 8             (8 runs, each with a fresh serve and PowerDNS, then a line of
 *                                                      the ratios' median and range: one run's p99 is its 5th
 *                                                      slowest change, and PowerDNS's own moves by a quarter or more
 *                                                      between runs, so one run cannot tell a build 10% slower)
 *
 * PowerDNS comes from bench/pdns/setup.sh (apt-get) when missing. Loopback only; bounded (a run takes about half
 * a minute, plus 50 ms per warm-up change; a watchdog ends a run whatever hangs, after 150 s and 100 ms per warm-up
 * change); every child process and the temp dir are removed at the end, also on failure. Exits non-zero if a
 * server does not start or a hostplane change failed, in any run.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { assertLoopback, freePorts, ms, stats } from './dns-lib';
import { ensurePowerDns, startPowerDns, type PowerDns } from './dns-pdns';
import { DnsProbe } from './dns-query';
import {
  addressOf, bootstrap, changesAtCadence, hostplaneCall, hostplaneSide, NAMESERVERS, note, ORG, out, pdnsSide, servedAfter, setupWrite,
  startServe, waitServed, zonePasses, type Side,
} from './dns-sides';
import { command, cpuSeconds, guard, processTree, wholeNumber, type ChildServer } from './lib';

const ZONE = 'latency.test';
/** Rrsets in the zone, counting the SOA and the apex NS. */
const RRSETS = 100;
const CADENCE_MS = 25;
const POLL_MS = 0.2;
const ROUNDS = 4;
/** Unmeasured changes before the first round of each side (JIT, caches), unless --warmup says otherwise. */
const WARMUP = 20;
/** A change not served within this long counts as failed. */
const CHANGE_TIMEOUT_MS = 5_000;
const SETUP_TIMEOUT_MS = 30_000;
const WATCHDOG_MS = 150_000;
/** The watchdog's extra time per warm-up change: one change a tick on each side, with room for late ones. */
const WATCHDOG_PER_WARMUP_MS = 4 * CADENCE_MS;
const AIM = { p50Ratio: 1.5 };

interface Series {
  /** Write start to new answer. */
  total: number[];
  /** The write request alone. */
  acked: number[];
  /** Write answered to new answer. */
  afterAck: number[];
  late: number;
  failed: number;
  firstError: string | null;
  /** CPU seconds the side's processes (serve and its knotd; PowerDNS) used during its rounds. */
  cpu: number;
}

const emptySeries = (): Series => ({ total: [], acked: [], afterAck: [], late: 0, failed: 0, firstError: null, cpu: 0 });

/** CPU seconds a process and its descendants have used so far (a process that exited meanwhile counts none). */
function treeCpu(pid: number): number {
  return processTree(pid).reduce((sum, p) => {
    try {
      return sum + cpuSeconds(p.pid);
    } catch {
      return sum;
    }
  }, 0);
}

/** `count` changes of `c.<zone>` A, one per CADENCE_MS tick; `next` numbers the addresses across rounds. */
async function changes(side: Side, count: number, pollMs: number, next: { n: number }, into: Series | null): Promise<void> {
  const probe = new DnsProbe(side.dns);
  const fqdn = `c.${ZONE}`;
  const fail = (why: string): void => {
    if (into) {
      into.failed++;
      into.firstError ??= why;
    }
  };
  try {
    await changesAtCadence({
      side, zone: ZONE, fqdn, count, cadenceMs: CADENCE_MS, next,
      late: () => {
        if (into) into.late++;
      },
      failed: fail,
      written: async (address, t0, t1) => {
        const after = await servedAfter(probe, fqdn, address, t1, CHANGE_TIMEOUT_MS, pollMs);
        if (!into) return false;
        if (after === null) {
          fail(`${fqdn} A ${address} not served within ${CHANGE_TIMEOUT_MS} ms`);
          return false;
        }
        into.acked.push(t1 - t0);
        into.afterAck.push(after);
        into.total.push(t1 - t0 + after);
        return true;
      },
    });
  } finally {
    probe.close();
  }
}

export interface LatencyBenchOptions { cpuProfDir?: string; changes?: number; pollMs?: number; runs?: number; warmup?: number }

/** One run's outcome: whether every hostplane change was served, and each side's p50 and p99 in ms. */
interface RunResult { ok: boolean; hostplane: { p50: number; p99: number }; pdns: { p50: number; p99: number } }

export async function main(opts: LatencyBenchOptions = {}): Promise<number> {
  const runs = opts.runs ?? 1;
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number of runs, 1 or more (got ${runs})`);
  const warmup = opts.warmup ?? WARMUP;
  if (!Number.isInteger(warmup) || warmup < 0) throw new Error(`--warmup must be a whole number of changes, 0 or more (got ${warmup})`);
  if (runs === 1) return (await oneRun({ ...opts, warmup, run: 'one run' })).ok ? 0 : 1;
  const results: (RunResult | null)[] = [];
  for (let i = 1; i <= runs; i++) {
    // A run that fails to finish (a server that does not start) leaves the others' summary standing.
    try {
      results.push(await oneRun({ ...opts, warmup, run: `run ${i} of ${runs}` }));
    } catch (e) {
      process.stderr.write(`bench dns-latency: run ${i} of ${runs}: ${(e as Error).message}\n`);
      results.push(null);
    }
  }
  out(acrossRuns(results));
  return results.every((r) => r?.ok) ? 0 : 1;
}

/** The ratios of hostplane's p50 and p99 to PowerDNS's over the finished runs: median, range, and in how many of them
 * the aim was met. A run with no measured change on a side has no ratio. */
function acrossRuns(results: (RunResult | null)[]): string {
  const finished = results.filter((r): r is RunResult => r !== null);
  const line = (what: string, of: (r: RunResult) => number, limit: number): string => {
    const v = finished.map(of).filter(Number.isFinite).sort((a, b) => a - b);
    if (v.length === 0) return `${what} n/a`;
    const median = v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
    return `${what} median ${median.toFixed(2)}× (${v[0]!.toFixed(2)}-${v[v.length - 1]!.toFixed(2)}×), within ${limit}× in ${v.filter((x) => x <= limit).length} of ${v.length}`;
  };
  return `hostplane change-latency over ${results.length} runs against PowerDNS's in the same run: `
    + `${line('p50', (r) => r.hostplane.p50 / r.pdns.p50, AIM.p50Ratio)}; ${line('p99', (r) => r.hostplane.p99 / r.pdns.p99, 1)}`
    + `; runs with a failed hostplane change: ${finished.filter((r) => !r.ok).length}; runs that did not finish: ${results.length - finished.length}`;
}

async function oneRun(opts: LatencyBenchOptions & { warmup: number; run: string }): Promise<RunResult> {
  const perSide = opts.changes ?? 400;
  const pollMs = opts.pollMs ?? POLL_MS;
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-latencybench-'));
  const hpData = join(tmp, 'hostplane');
  const pdnsDir = join(tmp, 'pdns');
  mkdirSync(hpData);
  mkdirSync(pdnsDir);
  let serve: ChildServer | undefined;
  let pdns: PowerDns | null = null;
  /** PowerDNS while it starts: a failure before it was awaited must still stop it, or its pipes keep the bench alive. */
  let pdnsStarting: Promise<PowerDns> | undefined;
  const { warmup } = opts;
  const release = guard('dns-latency', tmp, () => [serve?.child, pdns?.child], WATCHDOG_MS + warmup * WATCHDOG_PER_WARMUP_MS);
  try {
    out(`context: ${opts.run}, ${warmup} warm-up changes a side, ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const installed = ensurePowerDns(note);
    const [hpDnsPort, pdnsDnsPort, pdnsApiPort] = (await freePorts(3)) as [number, number, number];
    pdnsStarting = startPowerDns({ dir: pdnsDir, dnsPort: pdnsDnsPort, apiPort: pdnsApiPort, ...installed, logFile: join(tmp, 'pdns.log') });
    pdnsStarting.catch(() => undefined);
    const token = await bootstrap(hpData, 'pro');
    serve = startServe({ data: hpData, dnsPort: hpDnsPort, cpuProfDir: opts.cpuProfDir });
    const hp = hostplaneSide(await serve.ready, token, hpDnsPort);
    const metrics = await serve.metrics;
    if (!metrics) throw new Error('serve printed no metrics URL');
    pdns = await pdnsStarting;
    const pd = pdnsSide(pdns);
    for (const s of [hp, pd]) assertLoopback(s.url);

    await hostplaneCall(hp, 'POST', `/v1/orgs/${ORG}/dns/zones`, { name: ZONE });
    await pdns.api('POST', '/api/v1/servers/localhost/zones', { name: `${ZONE}.`, kind: 'Native', nameservers: NAMESERVERS.map((n) => `${n}.`) }, 201);
    for (const side of [hp, pd]) {
      for (let i = 0; i < RRSETS - 3; i++) await setupWrite(side, ZONE, `r${i}.${ZONE}`, addressOf(i));
      await setupWrite(side, ZONE, `c.${ZONE}`, '192.0.2.1');
      await waitServed(side, `c.${ZONE}`, '192.0.2.1', ZONE, SETUP_TIMEOUT_MS);
    }

    const series = { hostplane: emptySeries(), pdns: emptySeries() };
    const next = { hostplane: { n: 0 }, pdns: { n: 0 } };
    for (const side of [hp, pd]) await changes(side, warmup, pollMs, next[side.name], null);
    const passesBefore = await zonePasses(metrics);
    const perRound = Math.ceil(perSide / ROUNDS);
    const pids = { hostplane: serve.child.pid!, pdns: pdns.child.pid! };
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? [hp, pd] : [pd, hp]) {
        const cpuBefore = treeCpu(pids[side.name]);
        await changes(side, perRound, pollMs, next[side.name], series[side.name]);
        series[side.name].cpu += treeCpu(pids[side.name]) - cpuBefore;
      }
    }
    const passesAfter = await zonePasses(metrics);

    const line = (side: Side): { p50: number; p99: number; text: string } => {
      const r = series[side.name];
      const t = stats(r.total);
      const a = stats(r.acked);
      const after = stats(r.afterAck);
      let text = `${side.name} change-latency zone=${RRSETS} rrsets every ${CADENCE_MS}ms poll=${pollMs}ms: write start to served p50=${ms(t.p50)} p99=${ms(t.p99)}`
        + ` max=${ms(t.max)} n=${t.n} (write acknowledged p50=${ms(a.p50)} p99=${ms(a.p99)}; served after the acknowledgement p50=${ms(after.p50)}`
        + ` p99=${ms(after.p99)}) late=${r.late} failed=${r.failed}${r.firstError ? ` (first: ${r.firstError})` : ''}`
        + `; cpu per change=${t.n > 0 ? ms((r.cpu / t.n) * 1000) : 'n/a'}`;
      if (side.name === 'hostplane') {
        const passes = passesAfter.count - passesBefore.count;
        const seconds = passesAfter.seconds - passesBefore.seconds;
        text += `; zone reconcile passes=${passes} mean=${passes > 0 ? ms((seconds / passes) * 1000) : 'n/a'}`;
      }
      return { p50: t.p50, p99: t.p99, text };
    };
    const h = line(hp);
    const p = line(pd);
    const hr = series.hostplane;
    const ok = hr.failed === 0 && hr.total.length > 0;
    const aim = (met: boolean, what: string): string => ` [aim ${what}: ${met ? 'met' : 'MISSED'}]`;
    out(`${h.text}${aim(h.p50 <= AIM.p50Ratio * p.p50, `p50 ≤${AIM.p50Ratio}× pdns (${ms(AIM.p50Ratio * p.p50)})`)}`
      + `${aim(h.p99 <= p.p99, `p99 ≤ pdns (${ms(p.p99)})`)}${aim(hr.failed === 0, 'no failed change')}`);
    out(p.text);
    out(`context: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
    return { ok, hostplane: { p50: h.p50, p99: h.p99 }, pdns: { p50: p.p50, p99: p.p99 } };
  } finally {
    pdns ??= (await pdnsStarting?.catch(() => null)) ?? null;
    await Promise.all([serve?.stop(opts.cpuProfDir ? 20_000 : 5000), pdns?.stop()]);
    rmSync(tmp, { recursive: true, force: true });
    release();
  }
}

command(import.meta.url, 'dns-latency', async () => {
  const { values } = parseArgs({ options: { 'cpu-prof': { type: 'string' }, changes: { type: 'string' }, 'poll-ms': { type: 'string' }, runs: { type: 'string' }, warmup: { type: 'string' } } });
  return main({
    warmup: wholeNumber('warmup', values.warmup),
    runs: wholeNumber('runs', values.runs),
    cpuProfDir: values['cpu-prof'],
    changes: wholeNumber('changes', values.changes),
    pollMs: values['poll-ms'] === undefined ? undefined : Number(values['poll-ms']),
  });
});
