/**
 * Secondaries bench (issue 14, "How it is checked"): `hostplane serve` as a hidden primary with a Knot DNS
 * secondary (and a BIND `named` one when installed) following it on loopback through the catalog zone, as
 * harness/secondaries.ts starts them for the e2e tests. Three zones, filled through the store before serve
 * starts (as bench/memory.ts does): `small.test` (100 rrsets, unsigned), `signed.test` (20,000 rrsets, DNSSEC
 * on through setZoneDNSSEC) and `unsigned.test` (the same 20,000 rrsets, unsigned). Rrset counts include the SOA
 * and the apex NS, as bench/dns-latency.ts counts them.
 *
 * Each change is one putRRset of `c.<zone>` A. From its acknowledgement (the answer read), the primary and every
 * secondary are asked for the zone's SOA over UDP about every millisecond until each serves a serial above the
 * one served before the change; the next change waits for that, and for its 100 ms tick. Per case:
 *   (1) ack→secondary p50/p99 for each secondary, and how many of the measured changes reached it as IXFR (its
 *       log, through the harness's transfers(); an IXFR answered with the whole zone counts as AXFR);
 *   (2) ack→primary p50/p99: the primary's cost per change, signed vs unsigned on the 20,000-rrset zone (the
 *       difference is the re-signing). These two series are cut in rounds taken U S S U ..., so that drift in
 *       the machine's load hits both alike.
 * One line per case on stdout, setup notes on stderr (`# ...`). At the end of each series the secondaries
 * must answer the last address written.
 *
 *   npx tsx bench/dns-secondaries.ts                  (also run by `npm run bench`)
 *   npx tsx bench/dns-secondaries.ts --changes 50     (per case; default 100)
 *
 * Needs knotd (BIND is optional: skipped with a note when `named` is missing). Loopback only, serve's
 * `--resolver` is its own nameserver. Bounded: the series shorten themselves to end the run within about
 * 3.5 minutes (their lines say n), and a watchdog ends it after 240 s whatever hangs. Every child process
 * (serve and its knotd, the secondaries) and every temp dir (the secondaries' included) are removed at the
 * end, also on failure. Exits non-zero if a server does not start or a change does not reach the primary and
 * every secondary within 15 s.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startBindSecondary, startKnotSecondary, stopDaemons, type Secondary } from '../harness/secondaries';
import { removeTempDirs } from '../harness/temp';
import { assertLoopback, findExecutable, freePorts, sleep, stats } from './dns-lib';
import { DnsProbe } from './dns-query';
import { addressOf, bootstrap, changesAtCadence, hostplaneCall, hostplaneSide, note, ORG, out, startServe, type Side } from './dns-sides';
import { fill } from './fill';
import { command, guard, processTree, until, wholeNumber, type ChildServer } from './lib';
import { serialGreater } from '../zonefiles/serial';

const CATALOG = 'catalog.invalid';
const ZONES = { small: 'small.test', signed: 'signed.test', unsigned: 'unsigned.test' } as const;
/** Rrsets per zone, counting the SOA and the apex NS: the changed `c.<zone>` A plus `r<i>` fill. */
const SIZE = { [ZONES.small]: 100, [ZONES.signed]: 20_000, [ZONES.unsigned]: 20_000 } as Record<string, number>;
const fillOf = (zone: string): number => SIZE[zone]! - 3;
const PLAN = 'bench';
const MiB = 1024 * 1024;
const PLANS = { [PLAN]: { projects: 10, zones: 10, rrsetsPerZone: 25_000, zoneBytes: 64 * MiB, storageBytes: 1024 * MiB, signInUsers: 10, hostnames: 10, secretValueBytes: 32 * 1024, secretBytes: 64 * 1024 } };
const CADENCE_MS = 100;
const POLL_MS = 1;
/** Unmeasured changes before each case (JIT, caches, the first IXFR after the initial transfer). */
const WARMUP = 3;
/** Rounds the two 20,000-rrset series are cut into (U S S U ...). */
const ROUNDS = 4;
/** A change that has not reached the primary and every secondary within this long fails the run. */
const CHANGE_TIMEOUT_MS = 15_000;
/** Serve's first load, signing, the secondaries' first transfers. */
const SETUP_TIMEOUT_MS = 90_000;
/** The series share what is left of this (from the start) between them; the watchdog is the hard stop. */
const SOFT_DEADLINE_MS = 205_000;
const WATCHDOG_MS = 240_000;

const fmtMs = (v: number): string => (Number.isNaN(v) ? 'n/a' : `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v)} ms`);

/** The SOA serial a server answers authoritatively for `zone`, or null. */
async function soaOf(probe: DnsProbe, zone: string, timeoutMs = 250): Promise<number | null> {
  const p = await probe.query(zone, 'SOA', timeoutMs);
  if (!p || p.rcode !== 'NOERROR' || !p.flag_aa) return null;
  const soa = (p.answers ?? []).find((a) => a.type === 'SOA' && a.name.toLowerCase() === zone);
  return soa ? ((soa as { data: unknown }).data as { serial: number }).serial : null;
}

/** Polls `zone`'s SOA every POLL_MS until it is after `before`; ms from `since`, or null past `timeoutMs`. */
async function serialAfterAt(probe: DnsProbe, zone: string, before: number, since: number, timeoutMs: number): Promise<{ ms: number; serial: number } | null> {
  for (;;) {
    const s = await soaOf(probe, zone);
    const now = performance.now();
    if (s !== null && serialGreater(s, before)) return { ms: now - since, serial: s };
    if (now - since > timeoutMs) return null;
    await sleep(POLL_MS);
  }
}

interface Server { name: string; probe: DnsProbe; secondary?: Secondary }

interface Series {
  zone: string;
  acked: number[];
  /** Per server name: ack → that server serves a serial after the one before the change. */
  after: Map<string, number[]>;
  late: number;
  failed: number;
  firstError: string | null;
  transfersBefore: Map<string, { ixfr: number; axfr: number }>;
}

const newSeries = (zone: string, servers: Server[]): Series => ({
  zone, acked: [], after: new Map(servers.map((s) => [s.name, []])), late: 0, failed: 0, firstError: null, transfersBefore: new Map(),
});

/**
 * `count` changes of `c.<zone>`, one per CADENCE_MS tick at the earliest, each after the previous one reached
 * every server. Returns false (and records why) when a change failed; the series stops there. `into` null:
 * warm-up, not recorded.
 */
async function changes(side: Side, zone: string, servers: Server[], count: number, next: { n: number; serial: number }, into: Series | null, deadline: number): Promise<boolean> {
  const fqdn = `c.${zone}`;
  let going = true;
  const fail = (why: string): void => {
    going = false;
    if (into) {
      into.failed++;
      into.firstError ??= why;
    } else throw new Error(`warm-up change of ${zone}: ${why}`);
  };
  await changesAtCadence({
    side, zone, fqdn, count, cadenceMs: CADENCE_MS, next,
    stop: () => !going || (into !== null && performance.now() > deadline),
    late: () => {
      if (into) into.late++;
    },
    failed: fail,
    written: async (address, t0, t1) => {
      const got = await Promise.all(servers.map((s) => serialAfterAt(s.probe, zone, next.serial, t1, CHANGE_TIMEOUT_MS)));
      const missing = servers.filter((_, j) => got[j] === null).map((s) => s.name);
      if (missing.length > 0) {
        fail(`${fqdn} A ${address}: ${missing.join(', ')} served no serial after ${next.serial} within ${CHANGE_TIMEOUT_MS / 1000} s`);
        return false;
      }
      // The primary's new serial; a secondary may only be at it, not beyond.
      next.serial = got[0]!.serial;
      if (into) {
        into.acked.push(t1 - t0);
        servers.forEach((s, j) => into.after.get(s.name)!.push(got[j]!.ms));
      }
      return true;
    },
  });
  return going;
}

export interface SecondariesBenchOptions { changes?: number }

export async function main(opts: SecondariesBenchOptions = {}): Promise<number> {
  const perCase = opts.changes ?? 100;
  const began = performance.now();
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-secondariesbench-'));
  const data = join(tmp, 'hostplane');
  const daemonsTmp = join(tmp, 'secondaries');
  mkdirSync(data);
  mkdirSync(daemonsTmp);
  const plansFile = join(tmp, 'plans.json');
  writeFileSync(plansFile, JSON.stringify(PLANS));
  let serve: ChildServer | undefined;
  const secondaries: Secondary[] = [];
  const probes: DnsProbe[] = [];
  // The harness's daemons are not ChildProcesses the guard can name: on an abrupt end (watchdog, signal), every
  // process below this one that was not there before is killed by its pid (serve's knotd and the secondaries).
  const preexisting = new Set(processTree(process.pid).map((p) => p.pid));
  const killDescendants = (): void => {
    for (const p of processTree(process.pid)) {
      if (p.pid === process.pid || preexisting.has(p.pid)) continue;
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  };
  process.once('exit', killDescendants);
  const release = guard('dns-secondaries', tmp, () => [serve?.child], WATCHDOG_MS);
  let ok = true;
  try {
    out(`context: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    if (!findExecutable('knotd')) throw new Error('knotd is not installed (apt-get install knot)');
    const withBind = findExecutable('named') !== null && findExecutable('named-checkconf') !== null;
    if (!withBind) note('named is not installed (apt-get install bind9 bind9-utils): the Knot secondary only');
    const [dnsPort, knotPort, bindPort] = (await freePorts(3)) as [number, number, number];
    const primary = { host: '127.0.0.1', port: dnsPort };

    const token = await bootstrap(data, PLAN, plansFile);
    let t = performance.now();
    const zones: string[] = [ZONES.small, ZONES.signed, ZONES.unsigned];
    // Every zone and rrset, through the store with serve not yet started (as bench/memory.ts does).
    await fill(data, { name: PLAN, ...PLANS[PLAN] }, zones, fillOf, (zone) => [{ name: `c.${zone}`, address: '192.0.2.1' }]);
    note(`${zones.map((z) => `${z} ${SIZE[z]}`).join(', ')} rrsets written to the store in ${fmtMs(performance.now() - t)}`);

    t = performance.now();
    serve = startServe({
      data, dnsPort, plansFile,
      extraArgs: ['--secondaries', [knotPort, ...(withBind ? [bindPort] : [])].map((p) => `127.0.0.1:${p}`).join(','), '--catalog-zone', CATALOG],
    });
    const side = hostplaneSide(await serve.ready, token, dnsPort);
    assertLoopback(side.url);
    const primaryProbe = new DnsProbe(primary);
    probes.push(primaryProbe);
    for (const zone of zones) {
      await until(`${zone} served by the primary`, SETUP_TIMEOUT_MS, async () => {
        const [c, last] = await Promise.all([primaryProbe.addresses(`c.${zone}`), primaryProbe.addresses(`r${fillOf(zone) - 1}.${zone}`)]);
        return c[0] === '192.0.2.1' && last[0] === addressOf(fillOf(zone) - 1);
      });
    }
    note(`serve started and every zone served by the primary in ${fmtMs(performance.now() - t)}`);

    t = performance.now();
    await hostplaneCall(side, 'POST', `/v1/orgs/${ORG}/dns/zones/${ZONES.signed}/dnssec`, { enabled: true });
    const hasDnskey = async (probe: DnsProbe): Promise<boolean> => {
      const p = await probe.query(ZONES.signed, 'DNSKEY', 500);
      return !!p && p.rcode === 'NOERROR' && (p.answers ?? []).some((a) => a.type === 'DNSKEY');
    };
    await until(`${ZONES.signed} signed by the primary (DNSKEY)`, SETUP_TIMEOUT_MS, () => hasDnskey(primaryProbe));
    note(`${ZONES.signed} signed by the primary ${fmtMs(performance.now() - t)} after setZoneDNSSEC`);

    // The secondaries start once the primary serves everything: each transfers the catalog, then its members.
    // Their temp dirs go under this bench's (tempDir reads TMPDIR when called, before the start's first await).
    t = performance.now();
    const savedTmpdir = process.env.TMPDIR;
    process.env.TMPDIR = daemonsTmp;
    let starting: Promise<Secondary>[];
    try {
      starting = [
        startKnotSecondary({ primary, port: knotPort, catalogZone: CATALOG }),
        ...(withBind ? [startBindSecondary({ primary, port: bindPort, catalogZone: CATALOG })] : []),
      ];
    } finally {
      if (savedTmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = savedTmpdir;
    }
    const started = await Promise.allSettled(starting);
    for (const r of started) if (r.status === 'fulfilled') secondaries.push(r.value);
    const refused = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (refused) throw new Error(`a secondary did not start: ${(refused.reason as Error).message}`);
    const servers: Server[] = [
      { name: 'primary', probe: primaryProbe },
      ...secondaries.map((s) => ({ name: s.kind === 'knotd' ? 'knot' : 'bind', probe: new DnsProbe(s.server), secondary: s })),
    ];
    for (const s of servers) if (s.secondary) probes.push(s.probe);

    // Signed and transferred: the primary's serial holds still for a second and every secondary serves it.
    const serials = new Map<string, number>();
    for (const zone of zones) {
      let last: number | null = null;
      let stableSince = performance.now();
      await until(`${zone} at one serial on the primary and every secondary`, SETUP_TIMEOUT_MS, async () => {
        const got = await Promise.all(servers.map((s) => soaOf(s.probe, zone, 500)));
        if (got[0] !== last) {
          last = got[0]!;
          stableSince = performance.now();
        }
        return last !== null && got.every((g) => g === last) && performance.now() - stableSince >= 1000;
      });
      serials.set(zone, last!);
    }
    for (const s of servers.slice(1)) await until(`${ZONES.signed} signed on ${s.name}`, SETUP_TIMEOUT_MS, () => hasDnskey(s.probe));
    note(`${secondaries.length} secondar${secondaries.length === 1 ? 'y' : 'ies'} (${servers.slice(1).map((s) => s.name).join(', ')}) serve every zone at the primary's serial ${fmtMs(performance.now() - t)} after starting`);

    const next = new Map(zones.map((z) => [z, { n: 0, serial: serials.get(z)! }]));
    const series = new Map(zones.map((z) => [z, newSeries(z, servers)]));
    const budget = (casesLeft: number): number => performance.now() + Math.max(5_000, (SOFT_DEADLINE_MS - (performance.now() - began)) / casesLeft);
    const snapshot = async (zone: string): Promise<void> => {
      await sleep(300); // the last warm-up transfer's log line
      for (const s of servers) if (s.secondary) series.get(zone)!.transfersBefore.set(s.name, s.secondary.transfers(zone));
    };

    // (1a) the small zone alone.
    await changes(side, ZONES.small, servers, WARMUP, next.get(ZONES.small)!, null, Infinity);
    await snapshot(ZONES.small);
    let going = await changes(side, ZONES.small, servers, perCase, next.get(ZONES.small)!, series.get(ZONES.small)!, budget(2));
    // (1b) and (2): the two 20,000-rrset zones in rounds, U S S U ...
    if (going) {
      for (const zone of [ZONES.unsigned, ZONES.signed]) await changes(side, zone, servers, WARMUP, next.get(zone)!, null, Infinity);
      await Promise.all([snapshot(ZONES.unsigned), snapshot(ZONES.signed)]);
      const roundDeadline = budget(1);
      const perRound = Math.ceil(perCase / ROUNDS);
      for (let round = 0; round < ROUNDS && going; round++) {
        const order = round % 2 === 0 ? [ZONES.unsigned, ZONES.signed] : [ZONES.signed, ZONES.unsigned];
        for (const [j, zone] of order.entries()) {
          const s = series.get(zone)!;
          const count = Math.min(perRound, perCase - s.acked.length);
          // An equal share of the time left to each slice still to run.
          const deadline = performance.now() + (roundDeadline - performance.now()) / ((ROUNDS - round) * 2 - j);
          if (!(going = await changes(side, zone, servers, count, next.get(zone)!, s, deadline))) break;
        }
      }
    }

    // Each secondary answers the last address written to each zone, and its transfers are logged.
    for (const zone of zones) {
      const last = addressOf(next.get(zone)!.n, 172);
      for (const s of servers.slice(1)) {
        const got = await s.probe.addresses(`c.${zone}`);
        if (got.length !== 1 || got[0] !== last) {
          ok = false;
          note(`${s.name} answers c.${zone} A ${JSON.stringify(got)}, not ${last}, after the last change`);
        }
      }
    }
    const transfersOf = (zone: string, s: Server): { ixfr: number; axfr: number } => {
      const before = series.get(zone)!.transfersBefore.get(s.name)!;
      const now = s.secondary!.transfers(zone);
      return { ixfr: now.ixfr - before.ixfr, axfr: now.axfr - before.axfr };
    };
    const logged = performance.now() + 3000;
    while (performance.now() < logged && zones.some((z) => servers.slice(1).some((s) => {
      const x = transfersOf(z, s);
      return x.ixfr + x.axfr < series.get(z)!.acked.length;
    }))) await sleep(100);

    const label = { [ZONES.small]: 'small-unsigned', [ZONES.signed]: 'big-signed', [ZONES.unsigned]: 'big-unsigned' } as Record<string, string>;
    const failure = (s: Series): string => (s.failed ? ` FAILED ${s.failed}: ${s.firstError}` : '');
    for (const zone of [ZONES.small, ZONES.signed, ZONES.unsigned]) {
      const s = series.get(zone)!;
      if (s.failed > 0 || s.acked.length === 0) ok = false;
      const n = s.acked.length;
      for (const srv of servers.slice(1)) {
        const st = stats(s.after.get(srv.name)!);
        const x = transfersOf(zone, srv);
        out(`dns-secondaries ${label[zone]} (${SIZE[zone]} rrsets) ${srv.name}: ack→secondary p50 ${fmtMs(st.p50)} p99 ${fmtMs(st.p99)} max ${fmtMs(st.max)}`
          + ` (n=${n}, IXFR ${x.ixfr}/${n}${x.axfr ? `, AXFR ${x.axfr}` : ''}${s.late ? `, late ${s.late}` : ''})${failure(s)}`);
      }
    }
    const primaryLine = (zone: string): { p50: number; p99: number } => {
      const s = series.get(zone)!;
      const st = stats(s.after.get('primary')!);
      const a = stats(s.acked);
      out(`dns-secondaries ${label[zone]} (${SIZE[zone]} rrsets) primary: ack→primary p50 ${fmtMs(st.p50)} p99 ${fmtMs(st.p99)} max ${fmtMs(st.max)}`
        + ` (n=${st.n}; write acknowledged p50 ${fmtMs(a.p50)} p99 ${fmtMs(a.p99)})${failure(s)}`);
      return st;
    };
    primaryLine(ZONES.small);
    const signed = primaryLine(ZONES.signed);
    const unsigned = primaryLine(ZONES.unsigned);
    const sign = (v: number): string => `${v >= 0 ? '+' : '−'}${fmtMs(Math.abs(v))}`;
    out(`dns-secondaries re-signing per change (${SIZE[ZONES.signed]} rrsets): ack→primary signed p50 ${fmtMs(signed.p50)} p99 ${fmtMs(signed.p99)}`
      + ` vs unsigned p50 ${fmtMs(unsigned.p50)} p99 ${fmtMs(unsigned.p99)}: ${sign(signed.p50 - unsigned.p50)} at p50, ${sign(signed.p99 - unsigned.p99)} at p99`);
    out(`context: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end, ${Math.round((performance.now() - began) / 1000)} s`);
    return ok ? 0 : 1;
  } finally {
    for (const p of probes) p.close();
    await Promise.all([serve?.stop(10_000), stopDaemons()]);
    removeTempDirs();
    rmSync(tmp, { recursive: true, force: true });
    killDescendants();
    process.off('exit', killDescendants);
    release();
  }
}

command(import.meta.url, 'dns-secondaries', async () => {
  const { values } = parseArgs({ options: { changes: { type: 'string' } } });
  return main({ changes: wholeNumber('changes', values.changes) });
});
