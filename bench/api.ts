/**
 * API load benchmark (issue 8 item 6): three routes against a real `hostplane serve` child process, each beside a
 * bare `node:http` + better-sqlite3 server doing the same work on the same rows at the same durability, measured
 * in the same run as the ratio baseline:
 *
 *   - `GET zone`: a zone of 100 rrsets (page, per-rrset tags, SOA, status and zone tag), 8 connections;
 *   - `GET project`: the project with hostnames, placements and grants (bench/baseline-server.ts), 8 connections;
 *   - `PUT rrset` (putRRset), 1 connection, two bodies in turn so that every write changes the rrset: one
 *     transaction (BEGIN IMMEDIATE) with the zone's bump, the upsert, the change-feed row and the audit row,
 *     committed with WAL + synchronous=FULL on both sides.
 *
 * Each prints one `ratio ...: hostplane/baseline = R` line (aims: 0.7, 0.7 and 0.6). The baseline copies the
 * zone's rows (zone, rrsets, status) from hostplane's store after hostplane's reconciler has served it, so both
 * read the same rows. Then serve is started again under `--cpu-prof` and put under each load alone: the
 * lines `profile ...` say where its CPU time went (busy time by area, top functions by self time), cut to the
 * load's time windows (bench/profile-summary.ts). The measured runs are never profiled.
 *
 *   npx tsx bench/api.ts                 (also run by `npm run bench`)
 *   npx tsx bench/api.ts --cpu-prof DIR  (keeps the V8 CPU profile of the serve process in DIR)
 *
 * Loopback only, bounded (about 60 s). Exits non-zero if a server fails to start or any measured request failed
 * (non-2xx or no response): a bench where requests fail is not a result.
 */
import Database from 'better-sqlite3';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BASELINE_ORG, BASELINE_PROJECT, startBaseline } from './baseline-server';
import { freePort } from '../harness/ports';
import { failed, guard, fmt, REPO, run as runLoad, runJson, spawnServer, summarize, TSX, type ChildServer, type Load, type Slice } from './lib';
import { formatSummary, monotonicMicros, readProfile, summarize as summarizeProfile, type Window } from './profile-summary';

const HOSTPLANE = join(REPO, 'bin', 'hostplane');
const ORG = BASELINE_ORG;
const PROJECT = BASELINE_PROJECT;
const EMAIL = 'bench@example.com';
const ZONE = 'example.com';
/** The stored rrsets of the zone: its apex NS, HOSTS others, and the rrset the write case rewrites. */
const HOSTS = 98;
const WRITE_NAME = `www.${ZONE}`;
const NAMESERVERS = ['ns1.hostplane.net', 'ns2.hostplane.net'];
/** Each slice of a measurement is taken in the order H B B H, so drift in the machine's load (other processes,
 * disk) hits both alike. The warm-up (JIT, statement caches, WAL growth) is discarded. */
const SLICES = 2;
/** The whole bench stays about a minute. */
const WATCHDOG_MS = 150_000;
/** Seconds of each load while serve is profiled. */
const PROFILE_SECONDS = 2;

interface Target { name: 'hostplane' | 'baseline'; url: string; token: string }

interface Case {
  name: string;
  method: Load['method'];
  path: string;
  /** Bodies sent in turn on each connection. */
  bodies?: string[];
  connections: number;
  seconds: number;
  warmup: number;
  aim: number;
}

const rrsetBody = (address: string): string => JSON.stringify({ records: [{ content: address }], ttl: 300 });

const CASES: Case[] = [
  { name: `GET zone (${HOSTS + 2} rrsets)`, method: 'GET', path: `/v1/orgs/${ORG}/dns/zones/${ZONE}`, connections: 8, seconds: 5, warmup: 1, aim: 0.7 },
  { name: 'GET project', method: 'GET', path: `/v1/orgs/${ORG}/projects/${PROJECT}`, connections: 8, seconds: 5, warmup: 1, aim: 0.7 },
  {
    name: 'PUT rrset', method: 'PUT', path: `/v1/orgs/${ORG}/dns/zones/${ZONE}/rrsets/${WRITE_NAME}/A`,
    bodies: [rrsetBody('192.0.2.200'), rrsetBody('192.0.2.201')], connections: 1, seconds: 4, warmup: 1, aim: 0.6,
  },
];

/** The zone's other rrsets: A, AAAA and TXT in turn. */
function hostRRsets(): { name: string; type: string; body: unknown }[] {
  return Array.from({ length: HOSTS }, (_, i) => {
    const name = `host${String(i).padStart(3, '0')}.${ZONE}`;
    if (i % 3 === 0) return { name, type: 'A', body: { records: [{ content: `192.0.2.${i + 1}` }], ttl: 300 } };
    if (i % 3 === 1) return { name, type: 'AAAA', body: { records: [{ content: `2001:db8::${(i + 1).toString(16)}` }], ttl: 300 } };
    return { name, type: 'TXT', body: { records: [{ content: `"v=bench1 host ${i}"` }], ttl: 3600 } };
  });
}

/** One autocannon run of case `c` on `t`, its `bodies` sent in turn when it has some. */
function runCase(t: Target, c: Case, seconds: number): Promise<Slice> {
  const headers: Record<string, string> = { authorization: `Bearer ${t.token}`, ...(c.bodies ? { 'content-type': 'application/json' } : {}) };
  return runLoad({ url: t.url, method: c.method, path: c.path, headers, bodies: c.bodies, connections: c.connections, seconds });
}

/** One request through fetch, to check a route answers as expected before it is measured. */
async function call(t: Target, method: string, path: string, body: unknown, expect: number): Promise<{ body: unknown; headers: Headers }> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${t.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${t.name} ${method} ${path}: expected ${expect}, got ${res.status} ${text}`);
  return { body: JSON.parse(text) as unknown, headers: res.headers };
}

const admin = (data: string, ...args: string[]) => runJson(HOSTPLANE, ['admin', '--data', data, ...args]);

/** Copies the zone's rows (zone, rrsets, status) from hostplane's store into the baseline's, under the baseline's org. */
function copyZone(hpData: string, baseData: string): void {
  const from = new Database(join(hpData, 'hostplane.db'), { readonly: true });
  const to = new Database(join(baseData, 'baseline.db'));
  try {
    to.pragma('busy_timeout = 5000');
    const zone = from.prepare('SELECT * FROM zones WHERE name = ?').get(ZONE) as Record<string, unknown>;
    const rows = from.prepare('SELECT * FROM rrsets WHERE zone = ?').all(ZONE) as Record<string, unknown>[];
    const status = from.prepare("SELECT * FROM resource_status WHERE kind = 'zone' AND key = ?").get(ZONE) as Record<string, unknown> | undefined;
    const { id: orgId } = to.prepare('SELECT id FROM orgs WHERE slug = ?').get(ORG) as { id: number };
    const insert = (table: string, row: Record<string, unknown>): void => {
      const cols = Object.keys(row);
      to.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`).run(row);
    };
    to.transaction(() => {
      insert('zones', { ...zone, org_id: orgId });
      for (const r of rows) insert('rrsets', r);
      if (status) insert('resource_status', status);
    }).immediate();
  } finally {
    from.close();
    to.close();
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The profile V8 wrote in `dir` for the main thread (thread id 0) of process `pid`: under tsx the module
 * loader's thread writes one too. */
function profileOf(dir: string, pid: number): string {
  const file = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.0.`)).sort().at(-1);
  if (!file) throw new Error(`no CPU profile of pid ${pid} in ${dir}`);
  return join(dir, file);
}

export async function main(opts: { cpuProfDir?: string } = {}): Promise<number> {
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-bench-'));
  const hpData = join(tmp, 'hostplane');
  const baseData = join(tmp, 'baseline');
  const profDir = opts.cpuProfDir ? resolve(opts.cpuProfDir) : join(tmp, 'profile');
  mkdirSync(hpData);
  mkdirSync(baseData);
  mkdirSync(profDir, { recursive: true });
  const servers: ChildServer[] = [];
  const release = guard('api', tmp, () => servers.map((x) => x.child), WATCHDOG_MS);

  try {
    // The baseline starts while hostplane is bootstrapped through its operator CLI.
    const baseToken = `bt_${randomBytes(32).toString('base64url')}`;
    const baseline = spawnServer('baseline', process.execPath, ['--import', TSX, fileURLToPath(import.meta.url), '--baseline-server', '--data', baseData], {
      env: { ...process.env, BENCH_TOKEN: baseToken },
    });
    servers.push(baseline);

    await admin(hpData, 'init');
    await admin(hpData, 'org', 'create', ORG, '--plan', 'pro');
    // Its own DNS port and metrics port: other work on the machine may hold the defaults.
    const serveArgs = ['serve', '--port', '0', '--data', hpData, '--dns-listen', `127.0.0.1:${await freePort()}`, '--metrics-listen', '127.0.0.1:0'];
    let serve = spawnServer('hostplane', HOSTPLANE, serveArgs);
    servers.push(serve);
    await admin(hpData, 'user', 'create', EMAIL);
    const [, issued] = await Promise.all([admin(hpData, 'member', 'add', ORG, EMAIL, 'admin'), admin(hpData, 'token', 'create', EMAIL)]);
    if (typeof issued.token !== 'string') throw new Error(`token create printed no token: ${JSON.stringify(issued)}`);

    const hp: Target = { name: 'hostplane', url: await serve.ready, token: issued.token };
    const base: Target = { name: 'baseline', url: await baseline.ready, token: baseToken };
    const targets = [hp, base];
    for (const u of [hp.url, base.url]) {
      const host = new URL(u).hostname;
      if (host !== '127.0.0.1' && host !== '[::1]' && host !== 'localhost') throw new Error(`not a loopback server: ${u}`);
    }

    // The state the routes read: the project, and the zone with its rrsets (written in parallel: group commits).
    await call(hp, 'POST', `/v1/orgs/${ORG}/projects`, { name: PROJECT }, 201);
    await call(hp, 'POST', `/v1/orgs/${ORG}/dns/zones`, { name: ZONE }, 200);
    const writes = [...hostRRsets(), { name: WRITE_NAME, type: 'A', body: JSON.parse(CASES[2]!.bodies![1]!) as unknown }];
    for (let i = 0; i < writes.length; i += 25) {
      await Promise.all(writes.slice(i, i + 25).map((w) => call(hp, 'PUT', `/v1/orgs/${ORG}/dns/zones/${ZONE}/rrsets/${w.name}/${w.type}`, w.body, 200)));
    }
    // Served by the nameserver (or as far as the reconciler gets without one), so the status row is the final one.
    const zonePath = CASES[0]!.path;
    const generation = (await call(hp, 'GET', zonePath, undefined, 200)).headers.get('x-generation');
    await call(hp, 'GET', `${zonePath}?waitGeneration=${generation}&wait=10`, undefined, 200);
    copyZone(hpData, baseData);

    const shape = (v: unknown): string => Object.keys(v as object).sort().join(',');
    for (const c of CASES) {
      const [h, b] = await Promise.all(targets.map((t) => call(t, c.method, c.path, c.bodies && JSON.parse(c.bodies[0]!), 200)));
      if (shape(h!.body) !== shape(b!.body)) {
        process.stdout.write(`warning: ${c.name} bodies differ in shape: hostplane {${shape(h!.body)}} baseline {${shape(b!.body)}}\n`);
      }
      const count = (v: unknown): number | undefined => (v as { rrsets?: unknown[] }).rrsets?.length;
      if (count(h!.body) !== count(b!.body)) throw new Error(`${c.name}: hostplane answers ${count(h!.body)} rrsets, the baseline ${count(b!.body)}`);
    }

    const pids: Record<Target['name'], number> = { hostplane: serve.child.pid!, baseline: baseline.child.pid! };
    let ok = true;
    const ratios: string[] = [];
    for (const c of CASES) {
      for (const t of targets) await runCase(t, c, c.warmup);
      const slices: Record<Target['name'], Slice[]> = { hostplane: [], baseline: [] };
      const cpu: Record<Target['name'], number> = { hostplane: 0, baseline: 0 };
      for (let i = 0; i < SLICES; i++) {
        for (const t of i % 2 === 0 ? targets : [...targets].reverse()) {
          const before = cpuSeconds(pids[t.name]);
          slices[t.name].push(await runCase(t, c, c.seconds / SLICES));
          cpu[t.name] += cpuSeconds(pids[t.name]) - before;
        }
      }
      const hpM = summarize(slices.hostplane);
      const baseM = summarize(slices.baseline);
      // Server CPU per answer: what the ratio comes from, without the machine's other load in it.
      const perAnswer = (name: Target['name'], m: typeof hpM): string => `cpu=${m.responses ? Math.round((cpu[name] / m.responses) * 1e6) : NaN}us/answer`;
      process.stdout.write(`api ${c.name} conc=${c.connections} hostplane: ${fmt(hpM)} ${perAnswer('hostplane', hpM)}\n`);
      process.stdout.write(`api ${c.name} conc=${c.connections} baseline: ${fmt(baseM)} ${perAnswer('baseline', baseM)}\n`);
      const label = `ratio ${c.name} conc=${c.connections}: hostplane/baseline`;
      if (failed(hpM) || failed(baseM)) {
        ok = false;
        ratios.push(`${label} = n/a (failed requests: not a result)`);
      } else {
        const r = hpM.rps / baseM.rps;
        // The same comparison in server CPU per answer: steadier than requests/s when other work shares the machine.
        const byCpu = (cpu.baseline / baseM.responses) / (cpu.hostplane / hpM.responses);
        ratios.push(`${label} = ${r.toFixed(2)}${r < c.aim ? ` (below the ${c.aim} aim)` : ''}; by server CPU per answer ${byCpu.toFixed(2)}`);
      }
    }
    process.stdout.write(`${ratios.join('\n')}\n`);

    // Where serve's time goes under each GET load: serve again, profiled, on the same store.
    await serve.stop(5000);
    serve = spawnServer('hostplane', process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, '--import', TSX, join(REPO, 'cli', 'main.ts'), ...serveArgs]);
    servers.push(serve);
    const profiled: Target = { ...hp, url: await serve.ready };
    const windows: { c: Case; w: Window }[] = [];
    for (const c of CASES) {
      await runCase(profiled, c, 1);
      const from = monotonicMicros();
      await runCase(profiled, c, PROFILE_SECONDS);
      windows.push({ c, w: [from, monotonicMicros()] });
    }
    const pid = serve.child.pid!;
    await serve.stop(15_000);
    const profile = readProfile(profileOf(profDir, pid));
    for (const { c, w } of windows) process.stdout.write(`${formatSummary(`${c.name} conc=${c.connections}`, summarizeProfile(profile, [w], 10)).join('\n')}\n`);
    return ok ? 0 : 1;
  } finally {
    await Promise.all(servers.map((s) => s.stop(5000)));
    rmSync(tmp, { recursive: true, force: true });
    release();
  }
}

// ---- The baseline's zone routes --------------------------------------------------------------------------------

type Role = 'viewer' | 'member' | 'admin';
const ROLES: Role[] = ['viewer', 'member', 'admin'];
const iso = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const tag = (...parts: (string | number)[]): string => `"${parts.join('-')}"`;
const REQUEST_ID = /^[\w.:-]{1,128}$/;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

/**
 * getZone and putRRset done bare, on a second connection to the baseline's database (the project routes stay
 * bench/baseline-server.ts's): token by SHA-256, membership and role, the zone of the org, its status, the
 * first page of rrsets in one read transaction with each rrset's tag, the SOA, the zone's tag (a digest of what
 * moves without its generation), 304 on `If-None-Match`; for the write, one BEGIN IMMEDIATE transaction that
 * reads the zone and the rrsets at the name, bumps serial and generation, keeps the zone's size, upserts the
 * rrset and appends the change-feed and audit rows.
 */
function zoneRoutes(dataDir: string) {
  const db = new Database(join(dataDir, 'baseline.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const principalByHash = db.prepare<[string, string], { userId: number; email: string }>(
    'SELECT u.id AS userId, u.email AS email FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ? AND (t.expires_at IS NULL OR t.expires_at > ?)');
  const membership = db.prepare<[number, string], { id: number; slug: string; plan: string; role: Role }>(
    'SELECT o.id, o.slug, o.plan, m.role FROM orgs o JOIN memberships m ON m.org_id = o.id AND m.user_id = ? WHERE o.slug = ?');
  type ZoneRow = { name: string; uid: string; org_id: number; dnssec: string; ds: string; serial: number; generation: number; created_at: string; rrset_count: number; bytes: number };
  const zoneByName = db.prepare<[string], ZoneRow>('SELECT * FROM zones WHERE name = ?');
  type StatusRow = { uid: string; observed_generation: number; conditions: string; facts: string; last_error: string | null; reconciled_at: string };
  const statusOf = db.prepare<[string], StatusRow>("SELECT uid, observed_generation, conditions, facts, last_error, reconciled_at FROM resource_status WHERE kind = 'zone' AND key = ?");
  type RRsetRow = { name: string; type: string; ttl: number; records: string; managed_by: string | null; changed_gen: number };
  const apex = db.prepare<[{ zone: string }], RRsetRow>('SELECT name, type, ttl, records, managed_by, changed_gen FROM rrsets WHERE zone = @zone AND name = @zone ORDER BY type');
  const rest = db.prepare<[{ zone: string; limit: number }], RRsetRow>(
    'SELECT name, type, ttl, records, managed_by, changed_gen FROM rrsets WHERE zone = @zone AND name <> @zone ORDER BY name, type LIMIT @limit');
  const atName = db.prepare<[string, string], { type: string; ttl: number; records: string; bytes: number }>('SELECT type, ttl, records, bytes FROM rrsets WHERE zone = ? AND name = ?');
  const bump = db.prepare<[number, number, number, number, string]>('UPDATE zones SET serial = ?, generation = ?, rrset_count = rrset_count + ?, bytes = bytes + ? WHERE name = ?');
  const upsert = db.prepare<[string, string, string, number, string, number, number]>(
    'INSERT INTO rrsets (zone, name, type, ttl, records, managed_by, changed_gen, bytes) VALUES (?, ?, ?, ?, ?, NULL, ?, ?) '
    + 'ON CONFLICT (zone, name, type) DO UPDATE SET ttl = excluded.ttl, records = excluded.records, changed_gen = excluded.changed_gen, bytes = excluded.bytes');
  const recordChange = db.prepare<[string, string]>("INSERT INTO changes (kind, key, at) VALUES ('zone', ?, ?)");
  const appendAudit = db.prepare<[number, string, string, string, string]>("INSERT INTO audit (org_id, at, event, actor, target, details) VALUES (?, ?, 'dns.rrset.set', ?, ?, ?)");
  const lifetime = (uid: string): string => uid.replace(/-/g, '').slice(0, 12);

  const authorize = (req: IncomingMessage, slug: string, min: Role) => {
    const token = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1];
    const principal = token ? principalByHash.get(sha256(token), iso(new Date())) : undefined;
    if (!principal) throw new HttpError(401, 'unauthorized', 'a valid bearer token is required');
    const m = membership.get(principal.userId, slug);
    if (!m) throw new HttpError(404, 'not_found', `organization ${slug} not found`);
    if (ROLES.indexOf(m.role) < ROLES.indexOf(min)) throw new HttpError(403, 'forbidden', `needs the ${min} role or above`);
    return { principal, org: m };
  };
  const zoneOf = (orgId: number, name: string): ZoneRow => {
    const z = zoneByName.get(name);
    if (!z || z.org_id !== orgId) throw new HttpError(404, 'not_found', `zone ${name} not found`);
    return z;
  };

  const getZone = (req: IncomingMessage, res: ServerResponse, slug: string, name: string): void => {
    const { org } = authorize(req, slug, 'viewer');
    const read = db.transaction(() => {
      const z = zoneOf(org.id, name);
      const st = statusOf.get(name);
      const status = st && st.uid === z.uid ? st : undefined;
      return { z, status, apex: apex.all({ zone: name }), rest: rest.all({ zone: name, limit: 999 }) };
    });
    const { z, status, apex: apexRows, rest: restRows } = read();
    const conditions = status ? JSON.parse(status.conditions) as { type: string; status: string; message: string; observedGeneration: number }[] : [];
    const facts = status ? JSON.parse(status.facts) as { delegated?: boolean; servedSerial?: number; signerDs?: unknown[] } : {};
    const ds = JSON.parse(z.ds) as unknown[];
    const zoneTag = tag(z.generation, createHash('sha256').update(JSON.stringify([z.uid, z.dnssec, ds, NAMESERVERS,
      status && [status.observed_generation, conditions, facts, status.last_error, status.reconciled_at]])).digest('base64url').slice(0, 16));
    res.setHeader('ETag', zoneTag);
    res.setHeader('X-Generation', String(z.generation));
    const inm = req.headers['if-none-match'];
    if (inm !== undefined && (inm === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === zoneTag))) {
      res.writeHead(304).end();
      return;
    }
    const ready = conditions.find((c) => c.type === 'Ready');
    const life = lifetime(z.uid);
    const rrset = (r: RRsetRow) => ({
      name: r.name, type: r.type, ttl: r.ttl, records: JSON.parse(r.records) as unknown, managedBy: r.managed_by, etag: tag(r.changed_gen, life),
    });
    const body = {
      name: z.name, dnssec: z.dnssec, ds, delegated: facts.delegated ?? false, nameservers: NAMESERVERS, serial: z.serial, createdAt: z.created_at,
      status: {
        generation: z.generation, observedGeneration: status?.observed_generation ?? null,
        ready: ready?.status === 'True' && ready.observedGeneration >= z.generation, conditions,
        servedSerial: facts.servedSerial ?? null, lastError: ready && ready.status !== 'True' ? ready.message : null,
        reconciledAt: status?.reconciled_at ?? null, signerDs: facts.signerDs ?? [],
      },
      rrsets: [
        {
          name: z.name, type: 'SOA', ttl: 3600, managedBy: 'system', etag: tag(z.generation, life, 'soa'),
          records: [{ content: `${NAMESERVERS[0]} hostmaster.${z.name} ${z.serial} 3600 600 1209600 300` }],
        },
        ...apexRows.map(rrset), ...restRows.map(rrset),
      ],
      nextCursor: null,
    };
    const json = JSON.stringify(body);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) }).end(json);
  };

  const write = db.transaction((orgId: number, zone: string, name: string, type: string, ttl: number, records: string, actor: string) => {
    const z = zoneOf(orgId, zone);
    const old = atName.all(zone, name).find((r) => r.type === type);
    const at = iso(new Date());
    let changedGen = 0;
    if (!(old && old.ttl === ttl && old.records === records)) {
      // The same rule as hostplane: the serial is the date and a counter, never backwards.
      const serial = z.serial + 1;
      changedGen = z.generation + 1;
      const bytes = name.length + records.length;
      bump.run(serial, changedGen, old ? 0 : 1, bytes - (old?.bytes ?? 0), zone);
      upsert.run(zone, name, type, ttl, records, changedGen, bytes);
      recordChange.run(zone, at);
    }
    appendAudit.run(orgId, at, actor, `${zone}/${name}/${type}`, JSON.stringify({ ttl, records: (JSON.parse(records) as unknown[]).length }));
    return { generation: changedGen || z.generation, changedGen, uid: z.uid };
  });

  const readBody = (req: IncomingMessage): Promise<string> => new Promise((res, rej) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => res(Buffer.concat(chunks).toString('utf8')));
    req.on('error', rej);
  });

  const putRRset = async (req: IncomingMessage, res: ServerResponse, slug: string, zone: string, owner: string, type: string): Promise<void> => {
    const { principal, org } = authorize(req, slug, 'member');
    if (type !== 'A') throw new HttpError(400, 'bad_request', 'the baseline writes A rrsets only');
    if (!owner.endsWith(`.${zone}`) && owner !== zone) throw new HttpError(400, 'bad_request', 'owner outside the zone');
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) throw new HttpError(415, 'unsupported_media_type', 'request bodies must be application/json');
    let body: { records?: unknown; ttl?: unknown };
    try {
      body = JSON.parse(await readBody(req)) as typeof body;
    } catch {
      throw new HttpError(400, 'bad_request', 'request body is not valid JSON');
    }
    const records = body.records;
    const ttl = body.ttl ?? 3600;
    if (!Array.isArray(records) || records.length === 0 || typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 60 || ttl > 604_800
      || !records.every((r: { content?: unknown }) => typeof r?.content === 'string' && IPV4.test(r.content))) {
      throw new HttpError(400, 'bad_request', 'invalid request body');
    }
    const canonical = [...new Set(records.map((r: { content: string }) => r.content))].sort().map((content) => ({ content }));
    const w = write.immediate(org.id, zone, owner, type, ttl, JSON.stringify(canonical), `user:${principal.email}`);
    const etag = tag(w.changedGen || w.generation, lifetime(w.uid));
    const json = JSON.stringify({ name: owner, type, ttl, records: canonical, managedBy: null, etag });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json), ETag: etag, 'X-Generation': String(w.generation) }).end(json);
  };

  /** Answers a zone route, or returns false for any other path. */
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = (req.url ?? '/').split('?', 1)[0]!.split('/');
    // ['', 'v1', 'orgs', org, 'dns', 'zones', zone, ('rrsets', name, type)?]
    if (path[1] !== 'v1' || path[2] !== 'orgs' || path[4] !== 'dns' || path[5] !== 'zones' || !path[3] || !path[6]) return false;
    const given = req.headers['x-request-id'];
    res.setHeader('X-Request-Id', typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID());
    const fail = (e: unknown): void => {
      if (!(e instanceof HttpError)) process.stderr.write(`baseline: ${(e as Error).stack}\n`);
      const [status, b] = e instanceof HttpError ? [e.status, { code: e.code, message: e.message }] : [500, { code: 'internal', message: 'internal error' }];
      const json = JSON.stringify(b);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) }).end(json);
    };
    const [slug, zone] = [decodeURIComponent(path[3]), decodeURIComponent(path[6]).toLowerCase()];
    try {
      if (path.length === 7 && req.method === 'GET') getZone(req, res, slug, zone);
      else if (path.length === 10 && path[7] === 'rrsets' && req.method === 'PUT') {
        putRRset(req, res, slug, zone, decodeURIComponent(path[8]!).toLowerCase(), path[9]!).catch(fail);
      } else throw new HttpError(404, 'not_found', 'no such route');
    } catch (e) {
      fail(e);
    }
    return true;
  };
}

/** bench/baseline-server.ts with the zone routes beside its own. */
function startZoneBaseline(dataDir: string, token: string, port: number): void {
  const { server, close } = startBaseline(dataDir, token);
  const zones = zoneRoutes(dataDir);
  const [own] = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!zones(req, res)) own!.call(server, req, res);
  });
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ listening: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
  });
  process.once('SIGTERM', () => {
    server.close(() => {
      close();
      process.exit(0);
    });
    server.closeIdleConnections();
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { 'cpu-prof': { type: 'string' }, 'baseline-server': { type: 'boolean' }, data: { type: 'string' }, port: { type: 'string', default: '0' } } });
  if (values['baseline-server']) {
    if (!values.data || !process.env.BENCH_TOKEN) {
      process.stderr.write('usage: BENCH_TOKEN=T tsx bench/api.ts --baseline-server --data DIR [--port N]\n');
      process.exit(2);
    }
    startZoneBaseline(values.data, process.env.BENCH_TOKEN, Number(values.port));
  } else {
    main({ cpuProfDir: values['cpu-prof'] }).then(
      (code) => {
        process.exitCode = code;
      },
      (e: unknown) => {
        process.stderr.write(`bench api: ${(e as Error).message}\n`);
        process.exitCode = 1;
      },
    );
  }
}
