/**
 * API load benchmark (issue 8 item 6): three routes against a real `hostplane serve` child process, each beside
 * two floors doing the same work with the same statements on the same rows at the same durability, measured in the
 * same run: a bare `node:http` + better-sqlite3 server, and the same on a minimal Koa + @koa/router application
 * (the framework hostplane runs on, doing the least per request):
 *
 *   - `GET zone`: a zone of 100 rrsets (page, per-rrset tags, SOA, status and zone tag), 8 connections;
 *   - `GET project`: the project with hostnames, placements and grants (bench/baseline-server.ts), 8 connections;
 *   - `PUT rrset` (putRRset), 1 connection and 8, two bodies in turn so that every write changes the rrset: one
 *     transaction (BEGIN IMMEDIATE) with the zone's bump, the upsert, the change-feed row and the audit row,
 *     committed to a WAL synced before the answer on both sides (the floors: synchronous=FULL).
 *
 * Each prints one `ratio ...` line with hostplane's ratio to each floor (aims: 0.7, 0.7 and 0.6 to the bare server,
 * 0.8 to the Koa floor), in requests/s and in server CPU per answer. The floors share one database, into which
 * the zone's rows (zone, rrsets, status) are copied from hostplane's store after hostplane's reconciler has
 * served it, so all three read the same rows. Then serve is started again under `--cpu-prof` and put under each load alone: the
 * lines `profile ...` say where its CPU time went (busy time by area, top functions by self time), cut to the
 * load's time windows (bench/profile-summary.ts). The measured runs are never profiled.
 *
 *   npx tsx bench/api.ts                 (also run by `npm run bench`)
 *   npx tsx bench/api.ts --cpu-prof DIR  (keeps the V8 CPU profile of the serve process in DIR)
 *   npx tsx bench/api.ts --case 'PUT rrset conc=8'   (only the cases whose `name conc=N` holds this)
 *
 * Loopback only, bounded (about 60 s). Exits non-zero if a server fails to start or any measured request failed
 * (non-2xx or no response): a bench where requests fail is not a result.
 */
import Router from '@koa/router';
import Database from 'better-sqlite3';
import Koa from 'koa';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BASELINE_ORG, BASELINE_PROJECT, HttpError, startBaseline } from './baseline-server';
import { freePort } from '../harness/ports';
import { command, cpuSeconds, failed, fmt, guard, profileOf, REPO, run as runLoad, runJson, spawnServer, summarize, TSX, type ChildServer, type Load, type Slice } from './lib';
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

interface Target { name: 'hostplane' | 'baseline' | 'koa'; url: string; token: string }

interface Case {
  name: string;
  method: Load['method'];
  path: string;
  /** Bodies sent in turn on each connection. */
  bodies?: string[];
  connections: number;
  seconds: number;
  warmup: number;
  /** The least ratio to the bare server, and to the Koa floor. */
  aim: number;
  koaAim: number;
}

const rrsetBody = (address: string): string => JSON.stringify({ records: [{ content: address }], ttl: 300 });

const CASES: Case[] = [
  { name: `GET zone (${HOSTS + 2} rrsets)`, method: 'GET', path: `/v1/orgs/${ORG}/dns/zones/${ZONE}`, connections: 8, seconds: 5, warmup: 1, aim: 0.7, koaAim: 0.8 },
  { name: 'GET project', method: 'GET', path: `/v1/orgs/${ORG}/projects/${PROJECT}`, connections: 8, seconds: 5, warmup: 1, aim: 0.7, koaAim: 0.8 },
  {
    name: 'PUT rrset', method: 'PUT', path: `/v1/orgs/${ORG}/dns/zones/${ZONE}/rrsets/${WRITE_NAME}/A`,
    bodies: [rrsetBody('192.0.2.200'), rrsetBody('192.0.2.201')], connections: 1, seconds: 4, warmup: 1, aim: 0.6, koaAim: 0.8,
  },
  {
    name: 'PUT rrset', method: 'PUT', path: `/v1/orgs/${ORG}/dns/zones/${ZONE}/rrsets/${WRITE_NAME}/A`,
    bodies: [rrsetBody('192.0.2.200'), rrsetBody('192.0.2.201')], connections: 8, seconds: 4, warmup: 1, aim: 0.6, koaAim: 0.8,
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

export async function main(opts: { cpuProfDir?: string; only?: string } = {}): Promise<number> {
  const cases = CASES.filter((c) => !opts.only || `${c.name} conc=${c.connections}`.includes(opts.only));
  if (cases.length === 0) throw new Error(`no case matches ${opts.only}`);
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
    const floor = (name: string, ...flags: string[]): ChildServer => {
      const s = spawnServer(name, process.execPath, ['--import', TSX, fileURLToPath(import.meta.url), '--baseline-server', ...flags, '--data', baseData], {
        env: { ...process.env, BENCH_TOKEN: baseToken },
      });
      servers.push(s);
      return s;
    };
    const baseline = floor('baseline');

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
    // On the baseline's database, once the baseline has made it.
    const koaServer = floor('koa', '--koa');
    const koa: Target = { name: 'koa', url: await koaServer.ready, token: baseToken };
    const targets = [hp, base, koa];
    for (const u of targets.map((t) => t.url)) {
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
      const [h, ...floors] = await Promise.all(targets.map((t) => call(t, c.method, c.path, c.bodies && JSON.parse(c.bodies[0]!), 200)));
      for (const [i, b] of floors.entries()) {
        const name = targets[i + 1]!.name;
        if (shape(h!.body) !== shape(b.body)) {
          process.stdout.write(`warning: ${c.name} bodies differ in shape: hostplane {${shape(h!.body)}} ${name} {${shape(b.body)}}\n`);
        }
        const count = (v: unknown): number | undefined => (v as { rrsets?: unknown[] }).rrsets?.length;
        if (count(h!.body) !== count(b.body)) throw new Error(`${c.name}: hostplane answers ${count(h!.body)} rrsets, ${name} ${count(b.body)}`);
      }
    }

    const pids: Record<Target['name'], number> = { hostplane: serve.child.pid!, baseline: baseline.child.pid!, koa: koaServer.child.pid! };
    let ok = true;
    const ratios: string[] = [];
    for (const c of cases) {
      for (const t of targets) await runCase(t, c, c.warmup);
      const slices: Record<Target['name'], Slice[]> = { hostplane: [], baseline: [], koa: [] };
      const cpu: Record<Target['name'], number> = { hostplane: 0, baseline: 0, koa: 0 };
      for (let i = 0; i < SLICES; i++) {
        for (const t of i % 2 === 0 ? targets : [...targets].reverse()) {
          const before = cpuSeconds(pids[t.name]);
          slices[t.name].push(await runCase(t, c, c.seconds / SLICES));
          cpu[t.name] += cpuSeconds(pids[t.name]) - before;
        }
      }
      const m = Object.fromEntries(targets.map((t) => [t.name, summarize(slices[t.name])])) as Record<Target['name'], ReturnType<typeof summarize>>;
      // Server CPU per answer: what the ratio comes from, without the machine's other load in it.
      const perAnswer = (name: Target['name']): number => cpu[name] / m[name].responses;
      for (const t of targets) {
        process.stdout.write(`api ${c.name} conc=${c.connections} ${t.name}: ${fmt(m[t.name])} cpu=${m[t.name].responses ? Math.round(perAnswer(t.name) * 1e6) : NaN}us/answer\n`);
      }
      const label = `ratio ${c.name} conc=${c.connections}:`;
      if (targets.some((t) => failed(m[t.name]))) {
        ok = false;
        ratios.push(`${label} n/a (failed requests: not a result)`);
      } else {
        // Also in server CPU per answer: steadier than requests/s when other work shares the machine.
        const against = (floor: 'baseline' | 'koa', aim: number): string => {
          const r = m.hostplane.rps / m[floor].rps;
          return `hostplane/${floor === 'koa' ? 'koa floor' : 'bare node:http'} = ${r.toFixed(2)}${r < aim ? ` (below the ${aim} aim)` : ''}`
            + ` (${(perAnswer(floor) / perAnswer('hostplane')).toFixed(2)} by server CPU per answer)`;
        };
        ratios.push(`${label} ${against('baseline', c.aim)}; ${against('koa', c.koaAim)}`);
      }
    }
    process.stdout.write(`${ratios.join('\n')}\n`);

    // Where serve's time goes under each GET load: serve again, profiled, on the same store.
    await serve.stop(5000);
    serve = spawnServer('hostplane', process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, '--import', TSX, join(REPO, 'cli', 'main.ts'), ...serveArgs]);
    servers.push(serve);
    const profiled: Target = { ...hp, url: await serve.ready };
    const windows: { c: Case; w: Window }[] = [];
    for (const c of cases) {
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

/** An answer of the floors' zone routes, written by each in its own way. */
interface Answer { status: number; headers: Record<string, string>; json?: string }

const jsonAnswer = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({ status, headers, json: JSON.stringify(body) });

/** The error answer of both floors: an HttpError's own, any other a 500 (with its stack on stderr). */
function errorAnswer(e: unknown): Answer {
  if (e instanceof HttpError) return jsonAnswer(e.status, { code: e.code, message: e.message });
  process.stderr.write(`baseline: ${(e as Error).stack}\n`);
  return jsonAnswer(500, { code: 'internal', message: 'internal error' });
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

  const getZone = (req: IncomingMessage, slug: string, name: string): Answer => {
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
    const headers = { ETag: zoneTag, 'X-Generation': String(z.generation) };
    const inm = req.headers['if-none-match'];
    if (inm !== undefined && (inm === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === zoneTag))) return { status: 304, headers };
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
    return jsonAnswer(200, body, headers);
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

  const putRRset = async (req: IncomingMessage, slug: string, zone: string, owner: string, type: string): Promise<Answer> => {
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
    return jsonAnswer(200, { name: owner, type, ttl, records: canonical, managedBy: null, etag }, { ETag: etag, 'X-Generation': String(w.generation) });
  };

  /** The bare server's router: answers a zone route, or returns false for any other path. */
  const route = (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = (req.url ?? '/').split('?', 1)[0]!.split('/');
    // ['', 'v1', 'orgs', org, 'dns', 'zones', zone, ('rrsets', name, type)?]
    if (path[1] !== 'v1' || path[2] !== 'orgs' || path[4] !== 'dns' || path[5] !== 'zones' || !path[3] || !path[6]) return false;
    const given = req.headers['x-request-id'];
    res.setHeader('X-Request-Id', typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID());
    const send = (a: Answer): void => {
      const headers = a.json === undefined ? a.headers : { ...a.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(a.json)) };
      res.writeHead(a.status, headers).end(a.json);
    };
    const [slug, zone] = [decodeURIComponent(path[3]), decodeURIComponent(path[6]).toLowerCase()];
    try {
      if (path.length === 7 && req.method === 'GET') send(getZone(req, slug, zone));
      else if (path.length === 10 && path[7] === 'rrsets' && req.method === 'PUT') {
        putRRset(req, slug, zone, decodeURIComponent(path[8]!).toLowerCase(), path[9]!).then(send, (e: unknown) => send(errorAnswer(e)));
      } else throw new HttpError(404, 'not_found', 'no such route');
    } catch (e) {
      send(errorAnswer(e));
    }
    return true;
  };
  return { getZone, putRRset, route };
}

/**
 * The Koa floor: the same routes on Koa and @koa/router doing the least per request (a request id, the router,
 * one error middleware), over the same statements as the bare server: what hostplane's framework costs at
 * the least, so hostplane's ratio to it is what hostplane itself does.
 */
function koaFloor(project: (req: IncomingMessage) => Promise<unknown>, zones: ReturnType<typeof zoneRoutes>): RequestListener {
  const app = new Koa();
  app.silent = true;
  const answer = (ctx: Koa.Context, a: Answer): void => {
    ctx.status = a.status;
    ctx.set(a.headers);
    if (a.json !== undefined) {
      ctx.type = 'application/json';
      ctx.body = a.json;
    }
  };
  app.use(async (ctx, next) => {
    const given = ctx.get('x-request-id');
    ctx.set('X-Request-Id', REQUEST_ID.test(given) ? given : randomUUID());
    try {
      await next();
    } catch (e) {
      answer(ctx, errorAnswer(e));
    }
  });
  const router = new Router();
  router.get('/v1/orgs/:org/dns/zones/:zone', (ctx) => answer(ctx, zones.getZone(ctx.req, ctx.params.org!, ctx.params.zone!.toLowerCase())));
  router.put('/v1/orgs/:org/dns/zones/:zone/rrsets/:name/:type', async (ctx) => {
    const { org, zone, name, type } = ctx.params as { org: string; zone: string; name: string; type: string };
    answer(ctx, await zones.putRRset(ctx.req, org, zone.toLowerCase(), name.toLowerCase(), type));
  });
  router.get('/v1/orgs/:org/projects/:name', async (ctx) => {
    ctx.body = await project(ctx.req);
  });
  app.use(router.routes());
  return app.callback();
}

/** bench/baseline-server.ts with the zone routes beside its own; with `koa`, all of them on the Koa floor instead. */
function startZoneBaseline(dataDir: string, token: string, port: number, koa: boolean): void {
  const { server, handle, close } = startBaseline(dataDir, token);
  const zones = zoneRoutes(dataDir);
  const [own] = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  if (koa) server.on('request', koaFloor(handle, zones));
  else {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!zones.route(req, res)) own!.call(server, req, res);
    });
  }
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

command(import.meta.url, 'api', async () => {
  const { values } = parseArgs({
    options: { 'cpu-prof': { type: 'string' }, case: { type: 'string' }, 'baseline-server': { type: 'boolean' }, koa: { type: 'boolean' }, data: { type: 'string' }, port: { type: 'string', default: '0' } },
  });
  if (!values['baseline-server']) return main({ cpuProfDir: values['cpu-prof'], only: values.case });
  if (!values.data || !process.env.BENCH_TOKEN) {
    process.stderr.write('usage: BENCH_TOKEN=T tsx bench/api.ts --baseline-server [--koa] --data DIR [--port N]\n');
    return 2;
  }
  startZoneBaseline(values.data, process.env.BENCH_TOKEN, Number(values.port), values.koa ?? false);
  return 0;
});
