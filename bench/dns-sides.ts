/**
 * The two sides of the DNS benches: hostplane (`serve` with its managed Knot DNS) and PowerDNS, each reached
 * through its own API for writes and on its DNS port for answers; and how hostplane's serve is started and
 * bootstrapped for a bench.
 */
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sleep } from './dns-lib';
import { pdnsRRset, type PowerDns } from './dns-pdns';
import { DnsProbe } from './dns-query';
import { REPO, runJson, spawnServer, type ChildServer } from './lib';

export const HOSTPLANE = join(REPO, 'bin', 'hostplane');
export const ORG = 'bench';
export const EMAIL = 'bench@example.com';
export const NAMESERVERS = ['ns1.hostplane.net', 'ns2.hostplane.net'];

export type SideName = 'hostplane' | 'pdns';

export interface WriteRequest { method: 'PUT' | 'PATCH'; path: string; body: string }

export interface Side {
  name: SideName;
  url: string;
  headers: Record<string, string>;
  dns: { host: string; port: number };
  writeRequest(zone: string, fqdn: string, address: string): WriteRequest;
}

export const out = (line: string): void => void process.stdout.write(`${line}\n`);
export const note = (line: string): void => void process.stderr.write(`# ${line}\n`);

/** 10.x.y.z for the i-th address: distinct for every i below 2^24. */
export const addressOf = (i: number, net = 10): string => `${net}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

export function hostplaneSide(url: string, token: string, dnsPort: number): Side {
  return {
    name: 'hostplane',
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    dns: { host: '127.0.0.1', port: dnsPort },
    writeRequest: (zone, fqdn, address) => ({
      method: 'PUT',
      path: `/v1/orgs/${ORG}/dns/zones/${zone}/rrsets/${fqdn}/A`,
      body: JSON.stringify({ records: [{ content: address }], ttl: 300 }),
    }),
  };
}

export function pdnsSide(p: PowerDns): Side {
  return {
    name: 'pdns',
    url: p.apiUrl,
    headers: { 'x-api-key': p.apiKey, 'content-type': 'application/json' },
    dns: p.dns,
    writeRequest: (zone, fqdn, address) => ({
      method: 'PATCH',
      path: `/api/v1/servers/localhost/zones/${zone}.`,
      body: JSON.stringify({ rrsets: [pdnsRRset(fqdn, address)] }),
    }),
  };
}

/** One write through fetch; throws unless it answered 2xx. */
export async function write(side: Side, zone: string, fqdn: string, address: string): Promise<void> {
  const r = side.writeRequest(zone, fqdn, address);
  const res = await fetch(`${side.url}${r.path}`, { method: r.method, headers: side.headers, body: r.body });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${side.name} ${r.method} ${r.path}: ${res.status} ${text.slice(0, 300)}`);
}

/** A write that is setup, not measurement: retried a few times (PowerDNS answers 500 "database is locked"
 * now and then). */
export async function setupWrite(side: Side, zone: string, fqdn: string, address: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(side, zone, fqdn, address);
    } catch (e) {
      if (attempt >= 5) throw e;
      await sleep(100 * attempt);
    }
  }
}

const pauseCell = new Int32Array(new SharedArrayBuffer(4));

/** Waits until `fqdn` is answered with exactly `address`, asking every `pollMs` (about: a timer cannot wait
 * less than a millisecond, so a shorter pause blocks this otherwise idle process instead, without spinning);
 * the time from `since` it took, or null after `timeoutMs`. */
export async function servedAfter(probe: DnsProbe, fqdn: string, address: string, since: number, timeoutMs: number, pollMs = 1): Promise<number | null> {
  for (;;) {
    const got = await probe.addresses(fqdn, 250);
    const now = performance.now();
    if (got.length === 1 && got[0] === address) return now - since;
    if (now - since > timeoutMs) return null;
    if (pollMs >= 1) await sleep(pollMs);
    else Atomics.wait(pauseCell, 0, 0, pollMs);
  }
}

export async function waitServed(side: Side, fqdn: string, address: string, what: string, timeoutMs: number): Promise<number> {
  const probe = new DnsProbe(side.dns);
  try {
    const took = await servedAfter(probe, fqdn, address, performance.now(), timeoutMs);
    if (took === null) throw new Error(`${side.name}: ${what} not served within ${timeoutMs / 1000} s`);
    return took;
  } finally {
    probe.close();
  }
}

export interface ServeOptions {
  data: string;
  dnsPort: number;
  /** V8 CPU profiles into this directory: serve is then node on dist/ with --cpu-prof, which NODE_OPTIONS refuses. */
  cpuProfDir?: string;
  /** Heap snapshots into this directory on SIGUSR2 (node's --heapsnapshot-signal, through NODE_OPTIONS). */
  heapSnapshotDir?: string;
  plansFile?: string;
  extraArgs?: string[];
}

/**
 * `hostplane serve` as operators run it (./bin/hostplane), on loopback, its delegation lookups answered by
 * its own nameserver (`--resolver`: never the machine's) and its metrics on a free port.
 */
export function startServe(o: ServeOptions): ChildServer {
  const serveArgs = [
    'serve', '--port', '0', '--data', o.data, '--dns-listen', `127.0.0.1:${o.dnsPort}`, '--nameservers', NAMESERVERS.join(','),
    '--metrics-listen', '127.0.0.1:0', '--resolver', `127.0.0.1:${o.dnsPort}`, ...(o.plansFile ? ['--plans', o.plansFile] : []), ...(o.extraArgs ?? []),
  ];
  // A heap snapshot's flags go through NODE_OPTIONS, so that the serve is the one operators run. node refuses
  // --cpu-prof there: a profiled serve is node itself on the compiled build (dist/, from `npm run build`).
  const env = o.heapSnapshotDir
    ? { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${resolve(o.heapSnapshotDir)}`].filter(Boolean).join(' ') }
    : process.env;
  if (o.cpuProfDir) {
    // Every 100 µs rather than every ms: a change's path is a few milliseconds.
    const flags = ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${resolve(o.cpuProfDir)}`];
    return spawnServer('hostplane', process.execPath, [...flags, join(REPO, 'dist', 'cli', 'main.js'), ...serveArgs], { env, timeoutMs: 60_000 });
  }
  return spawnServer('hostplane', HOSTPLANE, serveArgs, { env, timeoutMs: 60_000 });
}

export const admin = (data: string, ...args: string[]): Promise<Record<string, unknown>> => runJson(HOSTPLANE, ['admin', '--data', data, ...args]);

/** The bench org (on `plan`) with an admin user, through the operator CLI; returns the user's token. */
export async function bootstrap(data: string, plan: string, plansFile?: string): Promise<string> {
  const plans = plansFile ? ['--plans', plansFile] : [];
  // The store the other admin commands need.
  await admin(data, 'init');
  await admin(data, 'org', 'create', ORG, '--plan', plan, ...plans);
  await admin(data, 'user', 'create', EMAIL);
  const [, issued] = await Promise.all([admin(data, 'member', 'add', ORG, EMAIL, 'admin'), admin(data, 'token', 'create', EMAIL)]);
  if (typeof issued.token !== 'string') throw new Error(`token create printed no token: ${JSON.stringify(issued)}`);
  return issued.token;
}

/** A hostplane API call that must answer 200. */
export async function hostplaneCall(side: Side, method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${side.url}${path}`, { method, headers: side.headers, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`hostplane ${method} ${path}: ${res.status} ${await res.text()}`);
}

/** Zone reconcile passes serve has run so far (`ok`: those that succeeded), and the seconds they took, from its
 * /metrics. */
export async function zonePasses(metricsUrl: string): Promise<{ count: number; ok: number; seconds: number }> {
  const text = await (await fetch(metricsUrl)).text();
  const p = { count: 0, ok: 0, seconds: 0 };
  for (const m of text.matchAll(/^hostplane_reconcile_duration_seconds_(count|sum)\{([^}]*)\} (\S+)$/gm)) {
    if (!m[2]!.includes('kind="zone"')) continue;
    const v = Number(m[3]);
    if (m[1] === 'sum') p.seconds += v;
    else {
      p.count += v;
      if (m[2]!.includes('outcome="ok"')) p.ok += v;
    }
  }
  return p;
}

export interface CadenceOptions {
  side: Side;
  zone: string;
  fqdn: string;
  count: number;
  cadenceMs: number;
  /** Numbers the addresses written (172.x) across calls. */
  next: { n: number };
  /** Asked before each change: true ends the series there. */
  stop?: () => boolean;
  /** Told when a change starts after its tick. */
  late?: () => void;
  /** A write that failed, with why. */
  failed(why: string): void;
  /** After the write of `address` was answered (`t0` its start, `t1` its answer): follows the change up and
   * answers true when it is done, so that a tick missed meanwhile is not made up for. */
  written(address: string, t0: number, t1: number): Promise<boolean>;
}

/** `count` changes of `fqdn` A in `zone`, one per `cadenceMs` tick at the earliest, or as soon as the
 * previous one is done when that is later. */
export async function changesAtCadence(o: CadenceOptions): Promise<void> {
  let tick = performance.now();
  for (let i = 0; i < o.count; i++) {
    if (o.stop?.()) break;
    tick += o.cadenceMs;
    const wait = tick - performance.now();
    if (wait > 0) await sleep(wait);
    else o.late?.();
    const address = addressOf(++o.next.n, 172);
    const t0 = performance.now();
    try {
      await write(o.side, o.zone, o.fqdn, address);
    } catch (e) {
      o.failed((e as Error).message);
      continue;
    }
    const t1 = performance.now();
    // A tick missed while waiting is not made up for: the next change starts now at the earliest.
    if (await o.written(address, t0, t1)) tick = Math.max(tick, performance.now() - o.cadenceMs);
  }
}
