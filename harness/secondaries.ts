/**
 * Third-party DNS software on loopback for e2e tests: BIND `named` and Knot DNS as secondaries of a primary
 * (following it through a catalog zone, NOTIFY and IXFR, optionally under TSIG), a Knot DNS primary of our own
 * (to prove this harness without hostplane), and Unbound as a validating resolver. Each runs in the foreground
 * in a temp dir of its own, on a free port of 127.0.0.1, as a child of the test process; `stopDaemons()` ends
 * them all (call it from afterAll, before the dirs are removed: `removeTempDirs()`, or test/helpers/proc.ts `cleanup()`).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import dnsPacket, { type Packet, type RecordType } from 'dns-packet';
import { findExecutable } from '../providers/nameserver/knot';
import { query, type DnsResponse, type Server } from './dns';
import { freePort } from './ports';
import { tempDir } from './temp';

// ---------------------------------------------------------------------------------------------------------
// What is installed

const TOOLS = {
  named: 'bind9',
  'named-checkconf': 'bind9-utils',
  'dnssec-verify': 'bind9-utils',
  dig: 'bind9-dnsutils',
  unbound: 'unbound',
  'unbound-checkconf': 'unbound',
  knotd: 'knot',
  knotc: 'knot',
  keymgr: 'knot-dnssecutils',
  'ldns-verify-zone': 'ldnsutils',
} as const;

type Tool = keyof typeof TOOLS;

const found = new Map<Tool, string | null>();
function tool(name: Tool): string {
  if (!found.has(name)) found.set(name, findExecutable(name));
  const path = found.get(name);
  if (!path) throw new Error(`${name} is not installed (apt-get install ${TOOLS[name]})`);
  return path;
}

/** The programs these helpers need that are not installed, with the Debian package of each. */
export function missingSecondaryTools(): string[] {
  return (Object.keys(TOOLS) as Tool[]).filter((t) => findExecutable(t) === null).map((t) => `${t} (${TOOLS[t]})`);
}

/** True when every program the helpers run is installed. */
export function hasSecondaryTools(): boolean {
  return missingSecondaryTools().length === 0;
}

/** A describe title that says why its tests are skipped: `describe.skipIf(!hasSecondaryTools())(secondariesTitle('x'), ...)`. */
export function secondariesTitle(title: string): string {
  const missing = missingSecondaryTools();
  if (missing.length === 0) return title;
  process.stderr.write(`SKIPPED "${title}": not installed: ${missing.join(', ')} (apt-get install bind9 bind9-utils bind9-dnsutils unbound ldnsutils knot knot-dnsutils knot-dnssecutils)\n`);
  return `${title} (skipped: ${missing.join(', ')} not installed)`;
}

// ---------------------------------------------------------------------------------------------------------
// Small utilities

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until `check` passes or `ms` run out; returns the last value either way (the caller asserts). */
export async function eventually<T>(fn: () => Promise<T>, check: (v: T) => boolean, ms = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  let last = await fn();
  while (!check(last) && Date.now() < deadline) {
    await sleep(everyMs);
    last = await fn();
  }
  return last;
}

export interface RunResult { code: number; stdout: string; stderr: string }

/** Runs a program to completion; never rejects on a non-zero exit. */
export function run(cmd: string, args: string[], timeoutMs = 20_000): Promise<RunResult> {
  return new Promise((res) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      res({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const fqdn = (name: string): string => (name.endsWith('.') ? name : `${name}.`);
const bare = (name: string): string => name.replace(/\.$/, '');

// ---------------------------------------------------------------------------------------------------------
// TSIG

export interface TsigKey {
  name: string;
  algorithm: 'hmac-sha256';
  /** base64 */
  secret: string;
}

/** A new HMAC-SHA256 key, as `tsig-keygen -a hmac-sha256 NAME` makes one. */
export function newTsigKey(name = 'hostplane-xfr'): TsigKey {
  return { name, algorithm: 'hmac-sha256', secret: randomBytes(32).toString('base64') };
}

/** The key in BIND's key-file form (`key "NAME" { algorithm hmac-sha256; secret "..."; };`), what `--tsig-key FILE` reads. */
export function tsigKeyFile(key: TsigKey): string {
  return `key "${key.name}" {\n\talgorithm ${key.algorithm};\n\tsecret "${key.secret}";\n};\n`;
}

/** Writes the key file into `dir` and returns its path. */
export function writeTsigKeyFile(dir: string, key: TsigKey): string {
  const path = join(dir, `${key.name}.key`);
  writeFileSync(path, tsigKeyFile(key), { mode: 0o600 });
  return path;
}

const knotKeySection = (key: TsigKey): string[] => ['key:', `  - id: ${key.name}`, `    algorithm: ${key.algorithm}`, `    secret: ${key.secret}`];

// ---------------------------------------------------------------------------------------------------------
// Queries

/** The SOA serial `server` answers authoritatively for `zone`, or null when it does not serve it (REFUSED,
 * NOTAUTH, SERVFAIL while it has no copy, no answer). */
export async function soaSerial(server: Server, zone: string): Promise<number | null> {
  const r = await query(server, zone, 'SOA', { timeoutMs: 1000 }).catch(() => null);
  if (!r || r.rcode !== 'NOERROR' || !r.flag_aa) return null;
  const soa = (r.answers ?? []).find((a) => a.type === 'SOA' && bare(a.name).toLowerCase() === bare(zone).toLowerCase());
  return soa ? ((soa as { data: unknown }).data as { serial: number }).serial : null;
}

export interface Axfr {
  ok: boolean;
  /** One line per record, whitespace normalized, sorted: `owner ttl class type rdata`. The SOA once. */
  records: string[];
  /** The SOA serial of the copy, or null. */
  serial: number | null;
  /** dig's output (the zone in master-file form when ok; the reason when not). */
  text: string;
}

/** The whole zone as `server` transfers it (`dig AXFR`, signed with `key` when given). */
export async function axfr(server: Server, zone: string, key?: TsigKey): Promise<Axfr> {
  const args = [`@${server.host}`, '-p', String(server.port), fqdn(zone), 'AXFR', '+onesoa', '+nocmd', '+nostats', '+nocomments', '+time=3', '+tries=1'];
  if (key) args.push('-y', `${key.algorithm}:${key.name}:${key.secret}`);
  const r = await run(tool('dig'), args);
  const text = r.stdout + r.stderr;
  const lines = r.stdout.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith(';'));
  // With a key, dig prints each message's TSIG record too: not part of the zone.
  const records = lines.map((l) => l.split(/\s+/).join(' ')).filter((l) => l.split(' ')[3] !== 'TSIG').sort();
  const soa = records.find((l) => l.split(' ')[3] === 'SOA');
  const ok = r.code === 0 && !/Transfer failed|; communications error|couldn't get address/i.test(text) && soa !== undefined;
  return { ok, records: ok ? records : [], serial: ok ? Number(soa!.split(' ')[6]) : null, text };
}

/** Runs `dnssec-verify` (and `ldns-verify-zone`) on a transferred copy of a signed zone. */
export async function verifySigned(zone: string, copy: Axfr): Promise<{ ok: boolean; output: string }> {
  const dir = tempDir('hostplane-verify-');
  const file = join(dir, `${bare(zone)}.zone`);
  writeFileSync(file, `${copy.records.join('\n')}\n`);
  const [bind, ldns] = await Promise.all([
    run(tool('dnssec-verify'), ['-o', fqdn(zone), file]),
    run(tool('ldns-verify-zone'), [file]),
  ]);
  return {
    ok: bind.code === 0 && ldns.code === 0,
    output: `dnssec-verify (${bind.code}):\n${bind.stdout}${bind.stderr}\nldns-verify-zone (${ldns.code}):\n${ldns.stdout}${ldns.stderr}`,
  };
}

/** Asks a recursive resolver (RD, DO and AD set, as a validating stub would) over UDP, TCP on truncation. */
export async function resolve(resolver: Server, name: string, type: RecordType, timeoutMs = 5000): Promise<DnsResponse> {
  const packet: Packet = {
    type: 'query',
    id: Math.floor(Math.random() * 0x10000),
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.AUTHENTIC_DATA,
    questions: [{ type, name }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, extendedRcode: 0, ednsVersion: 0, flags: dnsPacket.DNSSEC_OK, flag_do: true, options: [] } as never],
  };
  const response = await new Promise<DnsResponse>((res, rej) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => { socket.close(); rej(new Error(`resolver ${resolver.host}:${resolver.port}: no answer for ${name} ${type} within ${timeoutMs} ms`)); }, timeoutMs);
    socket.on('error', (e) => { clearTimeout(timer); socket.close(); rej(e); });
    socket.on('message', (msg) => {
      const decoded = Object.assign(dnsPacket.decode(msg) as DnsResponse, { messageBytes: msg.length });
      if (decoded.id !== packet.id) return;
      clearTimeout(timer);
      socket.close();
      res(decoded);
    });
    socket.send(dnsPacket.encode(packet), resolver.port, resolver.host);
  });
  return response;
}

// ---------------------------------------------------------------------------------------------------------
// Processes

const daemons = new Set<Daemon>();

export interface Daemon {
  kind: 'named' | 'knotd' | 'unbound';
  /** Where it answers. */
  host: string;
  port: number;
  server: Server;
  dir: string;
  /** Everything it logged so far (stdout and stderr). */
  log(): string;
  /** Sends SIGTERM (SIGKILL after 5 s) and waits for the exit. */
  stop(): Promise<void>;
  /** Stops it (if running) and starts it again on the same port and directory (its copies kept); resolves once it answers. */
  restart(): Promise<void>;
  /** Its process id while it runs. */
  pid(): number | undefined;
}

/** The secondary side: the serial it serves, its copy, and how it got it. */
export interface Secondary extends Daemon {
  kind: 'named' | 'knotd';
  soa(zone: string): Promise<number | null>;
  /** Its copy of `zone`, transferred from it (with the TSIG key it was given, if any). */
  axfr(zone: string): Promise<Axfr>;
  /** Incoming transfers of `zone` its log shows so far, by kind. An IXFR the primary answered with the whole
   * zone (AXFR-style) counts as an AXFR. */
  transfers(zone: string): { ixfr: number; axfr: number };
  /** The size in bytes of each completed incoming transfer of `zone` (IXFR or AXFR), oldest first. */
  transferBytes(zone: string): number[];
}

async function spawnDaemon(kind: Daemon['kind'], cmd: string, args: string[], dir: string, port: number, readyName: string): Promise<Daemon> {
  const server = { host: '127.0.0.1', port };
  let log = '';
  let proc: ChildProcess;
  let exitedWith: string | null = null;
  let exited: Promise<void> = Promise.resolve();
  const stop = async (): Promise<void> => {
    if (exitedWith !== null) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const d: Daemon = {
    kind, host: server.host, port, server, dir,
    log: () => log,
    pid: () => (exitedWith === null ? proc.pid : undefined),
    stop,
    restart: async () => {
      await stop();
      await start();
    },
  };
  async function start(): Promise<void> {
    proc = spawn(cmd, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    exitedWith = null;
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => { log += c; });
    proc.stderr!.setEncoding('utf8').on('data', (c: string) => { log += c; });
    exited = new Promise<void>((res) => proc.once('exit', (code, signal) => { exitedWith = String(code ?? signal); res(); }));
    proc.once('error', (e) => { log += `\nspawn error: ${e.message}`; });
    daemons.add(d);
    void exited.then(() => daemons.delete(d));
    // Ready once it answers anything on its port (REFUSED included): polled, not slept.
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (exitedWith !== null) throw new Error(`${kind} exited (${exitedWith}) before answering on ${port}:\n${log}`);
      const r = await query(server, readyName, 'SOA', { timeoutMs: 200 }).catch(() => null);
      if (r) return;
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`${kind} did not answer on 127.0.0.1:${port} within 15 s:\n${log}`);
      }
      await sleep(25);
    }
  }
  await start();
  return d;
}

/**
 * Starts a daemon on `given`, or on a port free a moment ago: when another process took that port before the
 * daemon bound it (its log says the address is in use), it starts again on a port picked afresh, so a port picked
 * free is never tried twice.
 */
export async function onFreshPort<T>(given: number | undefined, start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(given ?? await freePort());
    } catch (e) {
      if (given !== undefined || attempt >= 5 || !/address (already )?in use/i.test((e as Error).message)) throw e;
    }
  }
}

/** Stops every daemon these helpers started that still runs. */
export async function stopDaemons(): Promise<void> {
  await Promise.all([...daemons].map((d) => d.stop()));
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---------------------------------------------------------------------------------------------------------
// BIND named as a secondary

export interface SecondaryOptions {
  /** The primary it transfers from and takes NOTIFY from; several (every `serve`'s DNS address, docs/dns.md
   * "Several `serve` processes"): it asks each in turn and takes NOTIFY from all. */
  primary: Server | Server[];
  /** The catalog zone listing the member zones (RFC 9432); default `catalog.invalid`. */
  catalogZone?: string;
  /** Zones to follow besides the catalog's (configured statically). */
  zones?: string[];
  /** Signs SOA queries and transfers to the primary, and expects NOTIFY signed. */
  tsig?: TsigKey;
  /** Default: a free one. */
  port?: number;
}

/**
 * Starts `named -f` as a secondary of `opts.primary`, following the catalog zone. Settings that keep it fast
 * (defaults in parentheses): `serial-query-rate 1000` (20 SOA queries a second over all zones), catalog
 * `min-update-interval 1` (5 s between catalog updates), `transfers-in 100` / `transfers-per-ns 100` (10 and 2
 * transfers at once), `min-refresh-time 1` / `min-retry-time 1` (300 s / 500 s floors on the SOA timers).
 */
export function startBindSecondary(opts: SecondaryOptions): Promise<Secondary> {
  return onFreshPort(opts.port, (port) => bindSecondaryOn(opts, port));
}

async function bindSecondaryOn(opts: SecondaryOptions, port: number): Promise<Secondary> {
  const named = tool('named');
  const dir = tempDir('hostplane-named-');
  const catalog = bare(opts.catalogZone ?? 'catalog.invalid');
  const key = opts.tsig;
  const primaries = [opts.primary].flat();
  const hosts = [...new Set(primaries.map((p) => p.host))];
  const primary = primaries.map((p) => `${p.host} port ${p.port}${key ? ` key "${key.name}"` : ''}`).join('; ');
  mkdirSync(join(dir, 'catz'));
  const conf = [
    ...(key ? [tsigKeyFile(key)] : []),
    'options {',
    `  directory "${dir}";`,
    `  pid-file "${dir}/named.pid";`,
    `  session-keyfile "${dir}/session.key";`,
    `  managed-keys-directory "${dir}";`,
    `  listen-on port ${port} { 127.0.0.1; };`,
    '  listen-on-v6 { none; };',
    '  recursion no;',
    '  dnssec-validation no;',
    '  notify no;',
    // NOTIFY comes from the primary's address; a signed NOTIFY is checked against the key regardless.
    `  allow-notify { ${hosts.join('; ')}; };`,
    `  allow-transfer { ${key ? `key "${key.name}"` : '127.0.0.0/8'}; };`,
    '  serial-query-rate 1000;',
    '  transfers-in 100;',
    '  transfers-per-ns 100;',
    '  min-refresh-time 1;',
    '  min-retry-time 1;',
    '  max-retry-time 2;',
    '  catalog-zones {',
    `    zone "${catalog}" default-primaries { ${primary}; } zone-directory "${dir}/catz" min-update-interval 1;`,
    '  };',
    '};',
    'controls { };',
    // Knot answers queries for a catalog zone it generates over TCP only (UDP: REFUSED, unsigned), which fails
    // named's SOA check of the catalog under TSIG ("expected a TSIG or SIG(0)"): ask the primary over TCP.
    ...hosts.map((h) => `server ${h} { tcp-only yes; };`),
    'logging {',
    '  channel main { stderr; severity info; print-time yes; print-category yes; print-severity yes; };',
    // xfer-in at debug 3 says "got incremental response" or "got nonincremental response" per transfer.
    '  channel xfer { stderr; severity debug 3; print-time yes; print-category yes; print-severity yes; };',
    '  category default { main; };',
    '  category xfer-in { xfer; };',
    '  category notify { xfer; };',
    '};',
    `zone "${catalog}" { type secondary; primaries { ${primary}; }; file "${catalog}.db"; };`,
    ...(opts.zones ?? []).map((z) => `zone "${bare(z)}" { type secondary; primaries { ${primary}; }; file "${bare(z)}.db"; };`),
    '',
  ].join('\n');
  const confPath = join(dir, 'named.conf');
  writeFileSync(confPath, conf);
  const check = await run(tool('named-checkconf'), [confPath]);
  if (check.code !== 0) throw new Error(`named-checkconf refused the generated config:\n${check.stdout}${check.stderr}\n${conf}`);
  // -f: foreground with the config's logging (-g would ignore it); as root without -u it stays root.
  const d = await spawnDaemon('named', named, ['-f', '-c', confPath, '-n', '1'], dir, port, catalog);
  return {
    ...d,
    kind: 'named',
    soa: (zone) => soaSerial(d.server, zone),
    axfr: (zone) => axfr(d.server, zone, key),
    transfers: (zone) => {
      const z = escapeRe(bare(zone));
      return {
        ixfr: (d.log().match(new RegExp(`transfer of '${z}/IN' from [^:]+: got incremental response`, 'g')) ?? []).length,
        axfr: (d.log().match(new RegExp(`transfer of '${z}/IN' from [^:]+: got nonincremental response`, 'g')) ?? []).length,
      };
    },
    transferBytes: (zone) => [...d.log().matchAll(new RegExp(`transfer of '${escapeRe(bare(zone))}/IN' from [^:]+: Transfer completed: \\d+ messages, \\d+ records, (\\d+) bytes`, 'g'))].map((m) => Number(m[1])),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Knot DNS

function knotBase(dir: string, port: number): string[] {
  mkdirSync(join(dir, 'run'), { recursive: true });
  mkdirSync(join(dir, 'db'), { recursive: true });
  mkdirSync(join(dir, 'zones'), { recursive: true });
  return [
    'server:',
    `    rundir: "${dir}/run"`,
    `    listen: 127.0.0.1@${port}`,
    'log:',
    '  - target: stderr',
    '    any: info',
    'database:',
    `    storage: "${dir}/db"`,
    'control:',
    `    listen: "${dir}/run/knot.sock"`,
  ];
}

async function startKnotd(dir: string, port: number, lines: string[], readyName: string): Promise<Daemon & { knotc(...args: string[]): Promise<RunResult>; config: string }> {
  const config = join(dir, 'knot.conf');
  writeFileSync(config, `${lines.join('\n')}\n`);
  const check = await run(tool('knotc'), ['-c', config, 'conf-check']);
  if (check.code !== 0) throw new Error(`knotc conf-check refused the generated config:\n${check.stdout}${check.stderr}\n${lines.join('\n')}`);
  const d = await spawnDaemon('knotd', tool('knotd'), ['-c', config], dir, port, readyName);
  return { ...d, config, knotc: (...args) => run(tool('knotc'), ['-c', config, ...args]) };
}

/** Knot logs `[zone.] IXFR, incoming, remote …, finished` (or AXFR) per completed transfer. */
function knotTransfers(log: string, zone: string, direction: 'incoming' | 'outgoing'): { ixfr: number; axfr: number } {
  const z = escapeRe(fqdn(zone));
  const count = (kind: string): number => (log.match(new RegExp(`\\[${z}\\] ${kind}, ${direction}, remote [^,]+, finished`, 'g')) ?? []).length;
  return { ixfr: count('IXFR'), axfr: count('AXFR') };
}

/**
 * Starts a knotd as a secondary of `opts.primary` that interprets the catalog zone (`catalog-role: interpret`):
 * every member zone gets the `member` template, transferring from the primary and taking its NOTIFY.
 */
export function startKnotSecondary(opts: SecondaryOptions): Promise<Secondary> {
  return onFreshPort(opts.port, (port) => knotSecondaryOn(opts, port));
}

async function knotSecondaryOn(opts: SecondaryOptions, port: number): Promise<Secondary> {
  tool('knotd');
  const dir = tempDir('hostplane-knot2-');
  const catalog = fqdn(opts.catalogZone ?? 'catalog.invalid');
  const key = opts.tsig;
  const primaries = [opts.primary].flat();
  const masters = `[${primaries.map((_, i) => `primary${i + 1}`).join(', ')}]`;
  const lines = [
    ...knotBase(dir, port),
    ...(key ? knotKeySection(key) : []),
    'remote:',
    ...primaries.flatMap((p, i) => [`  - id: primary${i + 1}`, `    address: ${p.host}@${p.port}`, ...(key ? [`    key: ${key.name}`] : [])]),
    'acl:',
    '  - id: notify_from_primary',
    `    address: [${[...new Set(primaries.map((p) => p.host))].join(', ')}]`,
    ...(key ? [`    key: ${key.name}`] : []),
    '    action: notify',
    '  - id: transfer_out',
    '    address: 127.0.0.0/8',
    ...(key ? [`    key: ${key.name}`] : []),
    '    action: transfer',
    'template:',
    '  - id: default',
    `    storage: "${dir}/zones"`,
    `    master: ${masters}`,
    '    acl: [notify_from_primary, transfer_out]',
    '    zonefile-sync: -1',
    '    journal-content: changes',
    '  - id: member',
    `    storage: "${dir}/zones"`,
    `    master: ${masters}`,
    '    acl: [notify_from_primary, transfer_out]',
    '    zonefile-sync: -1',
    '    journal-content: changes',
    'zone:',
    `  - domain: ${catalog}`,
    '    catalog-role: interpret',
    '    catalog-template: member',
    ...(opts.zones ?? []).map((z) => `  - domain: ${fqdn(z)}`),
  ];
  const d = await startKnotd(dir, port, lines, catalog);
  return {
    ...d,
    kind: 'knotd',
    soa: (zone) => soaSerial(d.server, zone),
    axfr: (zone) => axfr(d.server, zone, key),
    transfers: (zone) => knotTransfers(d.log(), zone, 'incoming'),
    transferBytes: (zone) => [...d.log().matchAll(new RegExp(`\\[${escapeRe(fqdn(zone))}\\] [AI]XFR, incoming, remote [^,]+, finished, [\\d.]+ seconds, \\d+ messages, (\\d+) bytes`, 'g'))].map((m) => Number(m[1])),
  };
}

export interface PrimaryZone {
  name: string;
  /** The zone file's text. */
  text: string;
  signed?: boolean;
}

export interface KnotPrimary extends Daemon {
  kind: 'knotd';
  soa(zone: string): Promise<number | null>;
  axfr(zone: string): Promise<Axfr>;
  /** Rewrites the zone's file and has knotd load the difference (it computes the serial). */
  setZone(zone: PrimaryZone): Promise<void>;
  /** Adds a member zone at run time (`knotc conf-set`), its file written first. */
  addZone(zone: PrimaryZone): Promise<void>;
  /** Removes a zone at run time (`knotc conf-unset`); it leaves the catalog. */
  removeZone(zone: string): Promise<void>;
  /** The DS records of a signed zone (`keymgr ds`), in presentation form. */
  ds(zone: string): Promise<string[]>;
  /** Outgoing transfers its log shows for `zone`. */
  transfers(zone: string): { ixfr: number; axfr: number };
  knotc(...args: string[]): Promise<RunResult>;
}

/**
 * A knotd primary of our own, for proving the harness without hostplane: member zones of a generated catalog
 * (`catalog-role: generate`), NOTIFY to `secondaries`, transfers for 127.0.0.0/8 (only with the key when
 * `tsig` is given), `zonefile-load: difference-no-serial` so that every change is an IXFR.
 */
export function startKnotPrimary(opts: { zones: PrimaryZone[]; secondaries: Server[]; catalogZone?: string; tsig?: TsigKey; port?: number }): Promise<KnotPrimary> {
  return onFreshPort(opts.port, (port) => knotPrimaryOn(opts, port));
}

async function knotPrimaryOn(opts: { zones: PrimaryZone[]; secondaries: Server[]; catalogZone?: string; tsig?: TsigKey; port?: number }, port: number): Promise<KnotPrimary> {
  tool('knotd');
  const dir = tempDir('hostplane-knot1-');
  const catalog = fqdn(opts.catalogZone ?? 'catalog.invalid');
  const key = opts.tsig;
  for (const z of opts.zones) mkdirSync(join(dir, 'zones'), { recursive: true }), writeFileSync(join(dir, 'zones', `${bare(z.name)}.zone`), z.text);
  const notify = opts.secondaries.length > 0 ? [`    notify: [${opts.secondaries.map((_, i) => `secondary${i + 1}`).join(', ')}]`] : [];
  const lines = [
    ...knotBase(dir, port),
    ...(key ? knotKeySection(key) : []),
    ...(opts.secondaries.length > 0 ? ['remote:'] : []),
    ...opts.secondaries.flatMap((s, i) => [`  - id: secondary${i + 1}`, `    address: ${s.host}@${s.port}`, ...(key ? [`    key: ${key.name}`] : [])]),
    'acl:',
    '  - id: secondaries',
    '    address: 127.0.0.0/8',
    ...(key ? [`    key: ${key.name}`] : []),
    '    action: transfer',
    'policy:',
    '  - id: signed',
    '    algorithm: ecdsap256sha256',
    'template:',
    '  - id: default',
    `    storage: "${dir}/zones"`,
    '    file: "%s.zone"',
    '    zonefile-sync: -1',
    '    zonefile-load: difference-no-serial',
    '    journal-content: all',
    '    serial-policy: increment',
    '    acl: [secondaries]',
    ...notify,
    '    catalog-role: member',
    `    catalog-zone: ${catalog}`,
    '  - id: catalog',
    `    storage: "${dir}/zones"`,
    '    acl: [secondaries]',
    ...notify,
    'zone:',
    `  - domain: ${catalog}`,
    '    catalog-role: generate',
    '    template: catalog',
    ...opts.zones.flatMap((z) => [`  - domain: ${fqdn(z.name)}`, ...(z.signed ? ['    dnssec-signing: on', '    dnssec-policy: signed'] : [])]),
  ];
  const d = await startKnotd(dir, port, lines, opts.zones[0]?.name ?? catalog);
  return {
    ...d,
    kind: 'knotd',
    soa: (zone) => soaSerial(d.server, zone),
    axfr: (zone) => axfr(d.server, zone, key),
    setZone: async (z) => {
      writeFileSync(join(dir, 'zones', `${bare(z.name)}.zone`), z.text);
      // -b: returns once the new version is loaded (and signed), not when the reload is queued.
      const r = await d.knotc('-b', 'zone-reload', fqdn(z.name));
      if (r.code !== 0) throw new Error(`knotc zone-reload ${z.name}: ${r.stdout}${r.stderr}`);
    },
    addZone: async (z) => {
      writeFileSync(join(dir, 'zones', `${bare(z.name)}.zone`), z.text);
      await confTransaction(d.knotc, [
        ['conf-set', `zone[${fqdn(z.name)}]`],
        ...(z.signed ? [['conf-set', `zone[${fqdn(z.name)}].dnssec-signing`, 'on'], ['conf-set', `zone[${fqdn(z.name)}].dnssec-policy`, 'signed']] : []),
      ]);
      // knotd loads a zone added by conf-commit after it answers the commit.
      const serial = await eventually(() => soaSerial(d.server, z.name), (v) => v !== null, 10_000);
      if (serial === null) throw new Error(`knotd did not load ${z.name} after conf-commit\n${d.log().slice(-2000)}`);
    },
    removeZone: async (zone) => {
      await confTransaction(d.knotc, [['conf-unset', `zone[${fqdn(zone)}]`]]);
    },
    ds: async (zone) => {
      const r = await run(tool('keymgr'), ['-c', d.config, fqdn(zone), 'ds']);
      if (r.code !== 0) throw new Error(`keymgr ds ${zone}: ${r.stdout}${r.stderr}`);
      return r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
    },
    transfers: (zone) => knotTransfers(d.log(), zone, 'outgoing'),
  };
}

async function confTransaction(knotc: (...args: string[]) => Promise<RunResult>, steps: string[][]): Promise<void> {
  const begin = await knotc('conf-begin');
  if (begin.code !== 0) throw new Error(`knotc conf-begin: ${begin.stdout}${begin.stderr}`);
  for (const step of steps) {
    const r = await knotc(...step);
    if (r.code !== 0) {
      await knotc('conf-abort');
      throw new Error(`knotc ${step.join(' ')}: ${r.stdout}${r.stderr}`);
    }
  }
  const commit = await knotc('-b', 'conf-commit');
  if (commit.code !== 0) throw new Error(`knotc conf-commit: ${commit.stdout}${commit.stderr}`);
}

// ---------------------------------------------------------------------------------------------------------
// Unbound

export interface ResolverOptions {
  /** Zones it asks a given authoritative server for (`stub-zone`): `{ 'example.com': primary }`. */
  stubs: Record<string, Server>;
  /** Trust anchors in presentation form: `example.com. DS 12345 13 2 ABCD…` (or DNSKEY records). None: it
   * validates nothing (every answer insecure). */
  trustAnchors?: string[];
  /** Records it answers itself (`local-data`, under `local-zone: … typetransparent`), e.g. a parent's DS. */
  localData?: string[];
  /** `module-config`; default `validator iterator`. */
  modules?: string;
  port?: number;
}

export interface Resolver extends Daemon {
  kind: 'unbound';
  resolve(name: string, type: RecordType): Promise<DnsResponse>;
}

/**
 * Starts `unbound -d` on loopback: stub zones to the given servers, everything else forwarded to a closed
 * loopback port (so it never reaches the machine's resolver or the Internet), caches capped at 1 s so that
 * answers follow changes, validation with the given trust anchors.
 */
export function startUnbound(opts: ResolverOptions): Promise<Resolver> {
  return onFreshPort(opts.port, (port) => unboundOn(opts, port));
}

async function unboundOn(opts: ResolverOptions, port: number): Promise<Resolver> {
  const unbound = tool('unbound');
  const dir = tempDir('hostplane-unbound-');
  const nowhere = await freePort();
  const localZones = [...new Set((opts.localData ?? []).map((r) => r.trim().split(/\s+/)[0]!).map((owner) => fqdn(owner).split('.').slice(1).join('.') || '.'))];
  const conf = [
    'server:',
    `  interface: 127.0.0.1@${port}`,
    `  port: ${port}`,
    '  do-ip6: no',
    '  chroot: ""',
    '  username: ""',
    `  directory: "${dir}"`,
    `  pidfile: "${dir}/unbound.pid"`,
    '  use-syslog: no',
    '  logfile: ""',
    '  verbosity: 1',
    '  val-log-level: 2',
    '  log-servfail: yes',
    '  num-threads: 1',
    '  so-reuseport: no',
    '  access-control: 127.0.0.0/8 allow',
    '  do-not-query-localhost: no',
    `  module-config: "${opts.modules ?? 'validator iterator'}"`,
    '  cache-max-ttl: 1',
    '  cache-max-negative-ttl: 1',
    '  infra-host-ttl: 1',
    '  qname-minimisation: no',
    '  harden-referral-path: no',
    '  target-fetch-policy: "0 0 0 0 0"',
    '  val-clean-additional: yes',
    '  aggressive-nsec: no',
    ...(opts.trustAnchors ?? []).map((a) => `  trust-anchor: "${a.replace(/\s+/g, ' ').trim()}"`),
    ...localZones.map((z) => `  local-zone: "${z}" typetransparent`),
    ...(opts.localData ?? []).map((r) => `  local-data: "${r.replace(/\s+/g, ' ').trim()}"`),
    // Stub zones' names are not "insecure": they validate from the anchors.
    ...Object.entries(opts.stubs).flatMap(([zone, s]) => ['stub-zone:', `  name: "${fqdn(zone)}"`, `  stub-addr: ${s.host}@${s.port}`, '  stub-prime: no', '  stub-first: no']),
    'forward-zone:',
    '  name: "."',
    `  forward-addr: 127.0.0.1@${nowhere}`,
    'remote-control:',
    '  control-enable: no',
    '',
  ].join('\n');
  const confPath = join(dir, 'unbound.conf');
  writeFileSync(confPath, conf);
  const check = await run(tool('unbound-checkconf'), [confPath]);
  if (check.code !== 0) throw new Error(`unbound-checkconf refused the generated config:\n${check.stdout}${check.stderr}\n${conf}`);
  const d = await spawnDaemon('unbound', unbound, ['-d', '-c', confPath], dir, port, 'localhost.');
  return { ...d, kind: 'unbound', resolve: (name, type) => resolve(d.server, name, type) };
}

/**
 * The text of a parent zone (`com`) that delegates `child` to `nameservers`, with the child's DS records when
 * given: serve it with {@link startKnotPrimary} (signed) and point a resolver at it to have a chain of trust
 * whose DS the test adds and removes, as a registry would.
 */
export function parentZoneText(parent: string, child: string, opts: { nameservers?: string[]; ds?: string[]; serial?: number } = {}): string {
  const p = fqdn(parent);
  return [
    '$TTL 60',
    `${p} SOA a.nic.${p} hostmaster.${p} ${opts.serial ?? 1} 60 30 3600 60`,
    `${p} NS a.nic.${p}`,
    `a.nic.${p} A 127.0.0.1`,
    ...(opts.nameservers ?? ['ns1.hostplane.test.', 'ns2.hostplane.test.']).map((ns) => `${fqdn(child)} NS ${fqdn(ns)}`),
    // Presentation-form DS lines may carry their own owner and TTL: keep only the type and data.
    ...(opts.ds ?? []).map((ds) => `${fqdn(child)} DS ${ds.replace(/^.*?\bDS\s+/, '')}`),
    '',
  ].join('\n');
}

/** A DS of the API (`{keyTag, algorithm, digestType, digest}`) as a trust anchor line. */
export function dsAnchor(zone: string, ds: { keyTag: number; algorithm: number; digestType: number; digest: string }): string {
  return `${fqdn(zone)} DS ${ds.keyTag} ${ds.algorithm} ${ds.digestType} ${ds.digest}`;
}

// ---------------------------------------------------------------------------------------------------------
// Comparing copies

/** The records of `copy` that are not in `reference` and the other way round (empty both: the same rrsets). */
export function diffRecords(reference: Axfr, copy: Axfr): { missing: string[]; extra: string[] } {
  const a = new Set(reference.records);
  const b = new Set(copy.records);
  return { missing: [...a].filter((r) => !b.has(r)), extra: [...b].filter((r) => !a.has(r)) };
}
