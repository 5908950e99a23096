/**
 * DNS bench (issue 3): hostplane (`serve` with its managed Knot DNS) side by side with PowerDNS
 * Authoritative (gsqlite3 backend, HTTP API), the peer users would otherwise pick, doing the same work in
 * one run:
 *   (a) rrset writes (each a new name, one A record) per second and p50/p99 latency at concurrency 1 and 8;
 *   (b) the time from a write returning to the new answer being served on the DNS port (polled over UDP
 *       about every millisecond), p50/p99 over 200 sequential changes of one A record (fewer when the time
 *       left runs short; the line says n), in a zone of 10 rrsets and in one of 100,000;
 *   (c) render time and peak memory of zonefiles' renderZone for 100,000 rrsets (bench/dns-render.ts, in a
 *       child process of its own).
 * One result line per case on stdout (and two `context:` lines: cores, load, the disk's fsync-bound
 * commit rate); setup progress on stderr (`# ...`). Aims of the issue are marked on hostplane's lines.
 *
 *   npx tsx bench/dns.ts                   (also run by `npm run bench`)
 *   npx tsx bench/dns.ts --cpu-prof DIR    (V8 CPU profiles of the serve processes into DIR)
 *   npx tsx bench/dns.ts --seconds 2 --changes 50   (a quicker, rougher run)
 *
 * PowerDNS comes from bench/pdns/setup.sh (apt-get), run by this bench only when pdns_server is missing.
 * Everything listens on 127.0.0.1 at free ports; serve's delegation lookups go to its own loopback
 * nameserver (`--resolver`). Bounded: the (b) series shorten themselves to end the run
 * within about 4.5 minutes, and a watchdog ends it after 295 s whatever hangs. Every child
 * process and the temp dir are removed at the end, also on failure. Exits non-zero if a server does not
 * start or a hostplane write or change failed; PowerDNS's failures are reported, they are the peer's.
 */
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { assertLoopback, freePorts, ms, stats } from './dns-lib';
import { bulkLoadPowerDns, ensurePowerDns, startPowerDns, type PowerDns } from './dns-pdns';
import { DnsProbe } from './dns-query';
import {
  addressOf, bootstrap, hostplaneCall, hostplaneSide, NAMESERVERS, note, ORG, out, pdnsSide, servedAfter, setupWrite, startServe,
  waitServed, write, type Side, type WriteRequest,
} from './dns-sides';
import { BENCH_DIR, command, guard, REPO, TSX, wholeNumber, type ChildServer } from './lib';

const ZONE = { writes: 'writes.test', small: 'small.test', big: 'big.test' } as const;
/** Rrsets per zone in (b), counting the SOA and the apex NS: the changed A rrset `c.<zone>` plus fill. */
const SIZES = { small: 10, big: 100_000 } as const;
const FILL = { small: SIZES.small - 3, big: SIZES.big - 3 };
const CONCURRENCY = [1, 8];
const WARMUP_SECONDS = 1;
/** A change not served within this long counts as failed. */
const CHANGE_TIMEOUT_MS = 10_000;
/** Unmeasured changes before each (b) series (JIT, caches). */
const CHANGE_WARMUP = 5;
/** The whole run aims to end by this (the watchdog is the hard stop): each (b) series gets the time left
 * before it, less {@link RESERVE_MS} for case (c) and the cleanup and {@link MIN_SERIES_MS} for every series
 * after it, and stops early past that (its line says how many changes it got). */
const SOFT_DEADLINE_MS = 270_000;
const RESERVE_MS = 20_000;
const MIN_SERIES_MS = 30_000;
/** Bulk-loaded zones must be served within this. */
const LOAD_TIMEOUT_MS = 90_000;
const WATCHDOG_MS = 295_000;

const AIM = { writesPerSec: 2000, smallP99: 25, bigP99: 250, renderMs: 300 };

interface WriteRun { rps: number; p50: number; p99: number; ok: number; failed: number; statuses: Map<number, number>; errors: number }

/** One HTTP request on `agent`; resolves with the status once the whole answer is read. */
function send(agent: Agent, base: URL, headers: Record<string, string>, r: WriteRequest, timeoutMs: number): Promise<number> {
  return new Promise((res, rej) => {
    const body = Buffer.from(r.body);
    const req = httpRequest({
      agent, host: base.hostname, port: base.port, method: r.method, path: r.path,
      headers: { ...headers, 'content-length': String(body.length) },
    }, (response) => {
      response.on('error', rej);
      response.on('end', () => res(response.statusCode ?? 0));
      response.resume();
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', rej);
    req.end(body);
  });
}

/**
 * Case (a): `seconds` of writes by `connections` closed-loop clients, each request a new name `w<n>.<zone>`.
 * A plain node:http client with a keep-alive agent rather than autocannon: PowerDNS's webserver answers
 * every request with `Connection: close`, which autocannon counts as errors and times wrongly (its latency
 * clock keeps running across the reconnect); here each request is timed from send to the end of its answer,
 * on a reused connection where the server allows it and a new one where it does not.
 */
async function writeLoad(side: Side, zone: string, connections: number, seconds: number, counter: { n: number }): Promise<WriteRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const base = new URL(side.url);
  const lat: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const client = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const n = ++counter.n;
      const r = side.writeRequest(zone, `w${n}.${zone}`, addressOf(n));
      const t0 = performance.now();
      try {
        const status = await send(agent, base, side.headers, r, 10_000);
        if (status >= 200 && status < 300) lat.push(performance.now() - t0);
        else statuses.set(status, (statuses.get(status) ?? 0) + 1);
      } catch {
        errors++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, client));
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - start) / 1000;
  const s = stats(lat);
  const non2xx = [...statuses.values()].reduce((a, b) => a + b, 0);
  return { rps: lat.length / elapsed, p50: s.p50, p99: s.p99, ok: lat.length, failed: non2xx + errors, statuses, errors };
}

interface ChangeRun { served: number[]; writes: number[]; totals: number[]; failed: number; firstError: string | null }

/** Case (b): sequential changes of `c.<zone>` A; for each, the time from the write returning to the new
 * address being answered on the DNS port (polled about every millisecond). */
async function changeSeries(side: Side, zone: string, count: number, startAt: number, budgetMs: number): Promise<ChangeRun> {
  const probe = new DnsProbe(side.dns);
  const fqdn = `c.${zone}`;
  const run: ChangeRun = { served: [], writes: [], totals: [], failed: 0, firstError: null };
  const began = performance.now();
  try {
    for (let i = 0; i < CHANGE_WARMUP + count; i++) {
      if (i >= CHANGE_WARMUP && performance.now() - began > budgetMs) break;
      const address = addressOf(startAt + i, 172);
      const t0 = performance.now();
      try {
        await write(side, zone, fqdn, address);
      } catch (e) {
        run.failed++;
        run.firstError ??= (e as Error).message;
        continue;
      }
      const t1 = performance.now();
      const took = await servedAfter(probe, fqdn, address, t1, CHANGE_TIMEOUT_MS);
      if (i < CHANGE_WARMUP) continue;
      if (took === null) {
        run.failed++;
        run.firstError ??= `${fqdn} A ${address} not served within ${CHANGE_TIMEOUT_MS} ms`;
        continue;
      }
      run.writes.push(t1 - t0);
      run.served.push(took);
      run.totals.push(t1 - t0 + took);
    }
  } finally {
    probe.close();
  }
  return run;
}

/** Writes a sentinel name and waits until it is served: the zone has caught up with every earlier write. */
async function settle(side: Side, zone: string, tag: string): Promise<number> {
  const probe = new DnsProbe(side.dns);
  try {
    const fqdn = `settle-${tag}.${zone}`;
    await setupWrite(side, zone, fqdn, '192.0.2.99');
    const took = await servedAfter(probe, fqdn, '192.0.2.99', performance.now(), LOAD_TIMEOUT_MS);
    if (took === null) throw new Error(`${side.name}: ${zone} did not catch up within ${LOAD_TIMEOUT_MS / 1000} s`);
    return took;
  } finally {
    probe.close();
  }
}

const fillName = (zone: string, i: number): [string, string] => [`r${i}.${zone}`, addressOf(i)];

/** hostplane's 100k zone, set up (not measured) by inserting rows into its store while serve is stopped:
 * through the API it would take minutes. The rows look as putRRset leaves them: the zone's serial and
 * generation rise once, and each row carries that generation in `changed_gen` where the store has the
 * column, so the restarted serve's reconciler renders and loads the zone as after one large write. */
function bulkLoadHostplane(dataDir: string, zone: string, count: number): void {
  const db = new Database(join(dataDir, 'hostplane.db'));
  try {
    db.pragma('busy_timeout = 10000');
    const hasChangedGen = (db.prepare('PRAGMA table_info(rrsets)').all() as { name: string }[]).some((c) => c.name === 'changed_gen');
    db.transaction(() => {
      const z = db.prepare('SELECT serial, generation FROM zones WHERE name = ?').get(zone) as { serial: number; generation: number } | undefined;
      if (!z) throw new Error(`hostplane store has no zone ${zone}`);
      const generation = z.generation + 1;
      db.prepare('UPDATE zones SET serial = ?, generation = ? WHERE name = ?').run(z.serial + 1, generation, zone);
      const insert = hasChangedGen
        ? db.prepare("INSERT INTO rrsets (zone, name, type, ttl, records, managed_by, changed_gen) VALUES (?, ?, 'A', 300, ?, NULL, ?)")
        : db.prepare("INSERT INTO rrsets (zone, name, type, ttl, records, managed_by) VALUES (?, ?, 'A', 300, ?, NULL)");
      for (let i = 0; i < count; i++) {
        const [fqdn, address] = fillName(zone, i);
        const records = JSON.stringify([{ content: address }]);
        if (hasChangedGen) insert.run(zone, fqdn, records, generation);
        else insert.run(zone, fqdn, records);
      }
    })();
  } finally {
    db.close();
  }
}

interface RenderResult { rrsets: number; firstMs: number; warmP50Ms: number; rssBeforeMB: number; rssAfterMB: number; peakRssMB: number; textMB: number }

function renderCase(n: number): Promise<RenderResult> {
  return new Promise((res, rej) => {
    execFile(process.execPath, ['--expose-gc', '--import', TSX, join(BENCH_DIR, 'dns-render.ts'), String(n)], { cwd: REPO, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) return rej(new Error(`bench/dns-render.ts failed: ${err.message}\n${stderr}`));
      try {
        res(JSON.parse(stdout) as RenderResult);
      } catch {
        rej(new Error(`bench/dns-render.ts printed ${stdout}`));
      }
    });
  });
}

/** The disk's commit rate at hostplane's durability (a WAL synced at each commit, one row per transaction) for
 * one second: the ceiling of any store that fsyncs every write, printed as context for case (a). */
function commitRate(dir: string): { perSec: number; p50: number; p99: number } {
  const db = new Database(join(dir, 'commit-rate.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    const lat: number[] = [];
    const start = performance.now();
    while (performance.now() - start < 1000) {
      const t0 = performance.now();
      insert.run('x'); // autocommit: one transaction, one WAL fsync
      lat.push(performance.now() - t0);
    }
    const s = stats(lat);
    return { perSec: lat.length / ((performance.now() - start) / 1000), p50: s.p50, p99: s.p99 };
  } finally {
    db.close();
    rmSync(join(dir, 'commit-rate.db'), { force: true });
    rmSync(join(dir, 'commit-rate.db-wal'), { force: true });
    rmSync(join(dir, 'commit-rate.db-shm'), { force: true });
  }
}

const aimNote = (met: boolean, aim: string): string => ` [aim ${aim}: ${met ? 'met' : 'MISSED'}]`;

export interface DnsBenchOptions { cpuProfDir?: string; seconds?: number; changes?: number }

export async function main(opts: DnsBenchOptions = {}): Promise<number> {
  const seconds = opts.seconds ?? 5;
  const changes = opts.changes ?? 200;
  const began = performance.now();
  /** Time for a (b) series when `after` more series follow it. */
  const seriesBudget = (after: number): number => Math.max(5_000, began + SOFT_DEADLINE_MS - performance.now() - RESERVE_MS - after * MIN_SERIES_MS);
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-dnsbench-'));
  const hpData = join(tmp, 'hostplane');
  const pdnsDir = join(tmp, 'pdns');
  mkdirSync(hpData);
  mkdirSync(pdnsDir);
  const servers: ChildServer[] = [];
  let pdns: PowerDns | null = null;
  /** PowerDNS while it starts: a failure before it was awaited must still stop it, or its pipes keep the bench alive. */
  let pdnsStarting: Promise<PowerDns> | undefined;
  const release = guard('dns', tmp, () => [...servers.map((x) => x.child), pdns?.child], WATCHDOG_MS);

  let ok = true;
  try {
    const disk = commitRate(tmp);
    out(`context: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')};`
      + ` SQLite WAL synchronous=FULL on the temp dir's disk: ${Math.round(disk.perSec)} commits/s p50=${ms(disk.p50)} p99=${ms(disk.p99)}`);
    const installed = ensurePowerDns(note);
    const [hpDnsPort, pdnsDnsPort, pdnsApiPort] = (await freePorts(3)) as [number, number, number];

    // PowerDNS starts while hostplane is bootstrapped through its operator CLI.
    pdnsStarting = startPowerDns({ dir: pdnsDir, dnsPort: pdnsDnsPort, apiPort: pdnsApiPort, ...installed, logFile: join(tmp, 'pdns.log') });
    pdnsStarting.catch(() => undefined);

    const serveOf = (): ChildServer => {
      const s = startServe({ data: hpData, dnsPort: hpDnsPort, cpuProfDir: opts.cpuProfDir });
      servers.push(s);
      return s;
    };
    const stopServe = async (s: ChildServer): Promise<void> => {
      await s.stop(opts.cpuProfDir ? 20_000 : 10_000);
      servers.splice(servers.indexOf(s), 1);
    };

    const token = await bootstrap(hpData, 'pro');
    let serve = serveOf();
    const hp = hostplaneSide(await serve.ready, token, hpDnsPort);
    pdns = await pdnsStarting;
    const pd = pdnsSide(pdns);
    const sides = [hp, pd];
    for (const s of sides) assertLoopback(s.url);
    note(`hostplane ${hp.url} dns 127.0.0.1:${hpDnsPort}; pdns ${pd.url} dns 127.0.0.1:${pdnsDnsPort}`);

    // Zones: the same three on both sides; the small one with its 10 rrsets.
    for (const zone of Object.values(ZONE)) {
      await hostplaneCall(hp, 'POST', `/v1/orgs/${ORG}/dns/zones`, { name: zone });
      await pdns.api('POST', '/api/v1/servers/localhost/zones', { name: `${zone}.`, kind: 'Native', nameservers: NAMESERVERS.map((n) => `${n}.`) }, 201);
    }
    for (const side of sides) {
      for (let i = 0; i < FILL.small; i++) await setupWrite(side, ZONE.small, `s${i}.${ZONE.small}`, addressOf(i));
      await setupWrite(side, ZONE.small, `c.${ZONE.small}`, '192.0.2.1');
      await waitServed(side, `c.${ZONE.small}`, '192.0.2.1', ZONE.small, LOAD_TIMEOUT_MS);
    }

    // (a) rrset writes. hostplane's zone reconciler keeps working after the last write returns; it is let
    // catch up (and the time it took reported) before the other side is measured, so that the two never
    // share the CPU.
    const counters = { hostplane: { n: 0 }, pdns: { n: 0 } };
    for (const conc of CONCURRENCY) {
      for (const side of sides) {
        await writeLoad(side, ZONE.writes, conc, WARMUP_SECONDS, counters[side.name]);
        if (side.name === 'hostplane') await settle(side, ZONE.writes, `warm${conc}`);
        const r = await writeLoad(side, ZONE.writes, conc, seconds, counters[side.name]);
        const caughtUp = await settle(side, ZONE.writes, `run${conc}`);
        const detail = [...r.statuses].map(([status, n]) => `${status}×${n}`).concat(r.errors ? [`no-response×${r.errors}`] : []).join(' ');
        let line = `${side.name} rrset-write conc=${conc}: ${Math.round(r.rps)} writes/s p50=${ms(r.p50)} p99=${ms(r.p99)} failed=${r.failed}${detail ? ` (${detail})` : ''}`
          + ` ok=${r.ok}; zone served the writes ${ms(caughtUp)} after the run`;
        if (side.name === 'hostplane') {
          if (r.failed > 0 || r.ok === 0) ok = false;
          line += aimNote(r.failed === 0, 'no failed write');
          if (conc === 8) line += aimNote(r.rps >= AIM.writesPerSec, `≥${AIM.writesPerSec}/s`);
        }
        out(line);
      }
    }

    // (b) change served, small zone.
    const reportChanges = (side: Side, label: string, r: ChangeRun, aimP99: number): void => {
      const s = stats(r.served);
      const w = stats(r.writes);
      const all = stats(r.totals);
      let line = `${side.name} change-served zone=${label}: p50=${ms(s.p50)} p99=${ms(s.p99)} max=${ms(s.max)} n=${s.n}`
        + ` (the write itself p50=${ms(w.p50)} p99=${ms(w.p99)}; write start to served p50=${ms(all.p50)} p99=${ms(all.p99)})`
        + ` failed=${r.failed}${r.firstError ? ` (first: ${r.firstError})` : ''}`;
      if (side.name === 'hostplane') {
        if (r.failed > 0 || s.n === 0) ok = false;
        line += aimNote(s.p99 <= aimP99 && r.failed === 0, `p99 ≤${aimP99}ms`);
      }
      out(line);
    };
    let seriesLeft = sides.length * 2;
    for (const side of sides) {
      reportChanges(side, String(SIZES.small), await changeSeries(side, ZONE.small, changes, 1, seriesBudget(--seriesLeft)), AIM.smallP99);
    }

    // (b) change served, 100k zone: bulk-loaded on both sides (setup, not measured).
    let t = performance.now();
    await stopServe(serve);
    bulkLoadHostplane(hpData, ZONE.big, FILL.big);
    serve = serveOf();
    hp.url = await serve.ready;
    assertLoopback(hp.url);
    await waitServed(hp, `r${FILL.big - 1}.${ZONE.big}`, addressOf(FILL.big - 1), `${ZONE.big} after the bulk load`, LOAD_TIMEOUT_MS);
    await setupWrite(hp, ZONE.big, `c.${ZONE.big}`, '192.0.2.1');
    await waitServed(hp, `c.${ZONE.big}`, '192.0.2.1', `c.${ZONE.big}`, LOAD_TIMEOUT_MS);
    note(`hostplane: ${SIZES.big} rrsets inserted into the store, serve restarted and the zone served in ${ms(performance.now() - t)}`);
    t = performance.now();
    await bulkLoadPowerDns(pdns, ZONE.big, (i) => fillName(ZONE.big, i), FILL.big);
    await waitServed(pd, `r${FILL.big - 1}.${ZONE.big}`, addressOf(FILL.big - 1), `${ZONE.big} after the bulk load`, LOAD_TIMEOUT_MS);
    await setupWrite(pd, ZONE.big, `c.${ZONE.big}`, '192.0.2.1');
    await waitServed(pd, `c.${ZONE.big}`, '192.0.2.1', `c.${ZONE.big}`, LOAD_TIMEOUT_MS);
    note(`pdns: ${SIZES.big} rrsets inserted into its records table, rectified and served in ${ms(performance.now() - t)}`);
    for (const side of sides) {
      reportChanges(side, '100k', await changeSeries(side, ZONE.big, changes, 1, seriesBudget(--seriesLeft)), AIM.bigP99);
    }

    // (c) render, with both servers stopped so that it has the CPU to itself.
    await Promise.all([stopServe(serve), pdns.stop()]);
    const r = await renderCase(SIZES.big);
    out(`render 100k: ${ms(r.warmP50Ms)} (first ${ms(r.firstMs)}) peak-rss=${Math.round(r.peakRssMB)}MB`
      + ` (rss ${Math.round(r.rssBeforeMB)}MB with the rrsets built, +${Math.round(r.peakRssMB - r.rssBeforeMB)}MB rendering; ${r.textMB.toFixed(1)}MB of text)`
      + aimNote(r.warmP50Ms < AIM.renderMs, `<${AIM.renderMs}ms`));
    out(`context: load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end`);
    return ok ? 0 : 1;
  } finally {
    pdns ??= (await pdnsStarting?.catch(() => null)) ?? null;
    await Promise.all([...servers.map((s) => s.stop(opts.cpuProfDir ? 20_000 : 5000)), pdns?.stop()]);
    rmSync(tmp, { recursive: true, force: true });
    release();
  }
}

command(import.meta.url, 'dns', async () => {
  const { values } = parseArgs({ options: { 'cpu-prof': { type: 'string' }, seconds: { type: 'string' }, changes: { type: 'string' } } });
  return main({
    cpuProfDir: values['cpu-prof'],
    seconds: values.seconds === undefined ? undefined : Number(values.seconds),
    changes: wholeNumber('changes', values.changes),
  });
});
