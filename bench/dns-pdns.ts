/**
 * PowerDNS Authoritative for the DNS bench: `pdns_server` as a child process with its config, SQLite
 * database and control socket in a directory of ours, answering DNS and its HTTP API on loopback only.
 * Installed by bench/pdns/setup.sh (Debian `pdns-server` + `pdns-backend-sqlite3`).
 */
import Database from 'better-sqlite3';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, stopChild } from './lib';
import { findExecutable, sleep } from './dns-lib';
import { DnsProbe } from './dns-query';

const SCHEMA_CANDIDATES = [
  '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql',
  '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql',
];
const READY_TIMEOUT_MS = 20_000;

function schemaPath(): string | null {
  const known = SCHEMA_CANDIDATES.find((p) => existsSync(p));
  if (known) return known;
  try {
    const listed = execFileSync('dpkg', ['-L', 'pdns-backend-sqlite3'], { encoding: 'utf8' }).split('\n');
    return listed.find((p) => p.endsWith('/schema.sqlite3.sql') && existsSync(p)) ?? null;
  } catch {
    return null;
  }
}

/** pdns_server and the gsqlite3 schema; runs bench/pdns/setup.sh (apt-get) when either is missing. */
export function ensurePowerDns(log: (line: string) => void): { pdnsServer: string; schema: string } {
  let pdnsServer = findExecutable('pdns_server');
  let schema = schemaPath();
  if (!pdnsServer || !schema) {
    log('pdns_server or its gsqlite3 schema is missing: running bench/pdns/setup.sh (apt-get install pdns-server pdns-backend-sqlite3)');
    execFileSync('bash', [join(BENCH_DIR, 'pdns', 'setup.sh')], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 240_000 });
    pdnsServer = findExecutable('pdns_server');
    schema = schemaPath();
  }
  if (!pdnsServer || !schema) throw new Error('PowerDNS is not installed (see bench/pdns/setup.sh)');
  return { pdnsServer, schema };
}

export interface PowerDns {
  dns: { host: string; port: number };
  apiUrl: string;
  apiKey: string;
  dbPath: string;
  child: ChildProcess;
  /** One API call; throws unless the answer has status `expect`. */
  api(method: string, path: string, body: unknown, expect: number): Promise<unknown>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface PowerDnsOptions {
  dir: string;
  dnsPort: number;
  apiPort: number;
  pdnsServer: string;
  schema: string;
  logFile: string;
}

const API_KEY = 'bench-pdns-key';

export async function startPowerDns(o: PowerDnsOptions): Promise<PowerDns> {
  const dbPath = join(o.dir, 'pdns.sqlite3');
  const db = new Database(dbPath);
  db.exec(readFileSync(o.schema, 'utf8'));
  db.close();
  // Defaults otherwise (caches, api-rectify, SQLite pragmas): PowerDNS as a user would run it.
  writeFileSync(join(o.dir, 'pdns.conf'), [
    'launch=gsqlite3',
    `gsqlite3-database=${dbPath}`,
    'local-address=127.0.0.1',
    `local-port=${o.dnsPort}`,
    `socket-dir=${o.dir}`,
    'daemon=no',
    'guardian=no',
    'disable-syslog=yes',
    'loglevel=4',
    'api=yes',
    `api-key=${API_KEY}`,
    'webserver=yes',
    'webserver-address=127.0.0.1',
    `webserver-port=${o.apiPort}`,
    'webserver-allow-from=127.0.0.0/8',
    'security-poll-suffix=', // no security-status query to the outside world
    '',
  ].join('\n'));

  const args = [`--config-dir=${o.dir}`];
  const log = openSync(o.logFile, 'a');
  // A parent-death signal stops pdns_server if the bench dies without stopping it.
  const setpriv = findExecutable('setpriv');
  const child = setpriv
    ? spawn(setpriv, ['--pdeathsig', 'KILL', o.pdnsServer, ...args], { stdio: ['ignore', log, log] })
    : spawn(o.pdnsServer, args, { stdio: ['ignore', log, log] });
  closeSync(log);
  const exited = new Promise<string>((res) => {
    child.once('error', (e) => res(e.message));
    child.once('exit', (code, signal) => res(signal ? `killed by ${signal}` : `exit code ${code}`));
  });

  const apiUrl = `http://127.0.0.1:${o.apiPort}`;
  const api = async (method: string, path: string, body: unknown, expect: number): Promise<unknown> => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { 'x-api-key': API_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== expect) throw new Error(`pdns ${method} ${path}: expected ${expect}, got ${res.status} ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as unknown) : null;
  };
  const stop = (graceMs?: number): Promise<void> => stopChild(child, exited, graceMs);

  const dns = { host: '127.0.0.1', port: o.dnsPort };
  const tail = (): string => {
    const s = existsSync(o.logFile) ? readFileSync(o.logFile, 'utf8') : '';
    return s.slice(-1500);
  };
  let gone: string | null = null;
  void exited.then((how) => {
    gone = how;
  });
  const probe = new DnsProbe(dns);
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (gone) throw new Error(`pdns_server exited (${gone}) before it was ready\n${tail()}`);
      const apiUp = await api('GET', '/api/v1/servers/localhost', undefined, 200).then(() => true, () => false);
      if (apiUp && (await probe.query('.', 'SOA', 200))) break;
      if (Date.now() > deadline) throw new Error(`pdns_server not ready within ${READY_TIMEOUT_MS} ms\n${tail()}`);
      await sleep(50);
    }
  } catch (e) {
    await stop();
    throw e;
  } finally {
    probe.close();
  }
  return { dns, apiUrl, apiKey: API_KEY, dbPath, child, api, stop };
}

/** The rrset the bench writes, in PowerDNS's API shape (names absolute with the trailing dot). */
export const pdnsRRset = (fqdn: string, address: string, ttl = 300) => ({
  name: `${fqdn}.`, type: 'A', ttl, changetype: 'REPLACE', records: [{ content: address, disabled: false }],
});

/** Writes `count` A rrsets straight into PowerDNS's `records` table (setup only, not measured), then
 * rectifies the zone through the API, as an operator bulk-loading a zone would. */
export async function bulkLoadPowerDns(p: PowerDns, zone: string, names: (i: number) => [fqdn: string, address: string], count: number): Promise<void> {
  const db = new Database(p.dbPath);
  try {
    db.pragma('busy_timeout = 10000');
    const domain = db.prepare('SELECT id FROM domains WHERE name = ?').get(zone) as { id: number } | undefined;
    if (!domain) throw new Error(`pdns has no zone ${zone}`);
    const insert = db.prepare('INSERT INTO records (domain_id, name, type, content, ttl, prio, disabled, ordername, auth) VALUES (?, ?, ?, ?, ?, 0, 0, NULL, 1)');
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const [fqdn, address] = names(i);
        insert.run(domain.id, fqdn, 'A', address, 300);
      }
    })();
  } finally {
    db.close();
  }
  await p.api('PUT', `/api/v1/servers/localhost/zones/${zone}./rectify`, undefined, 200);
}
