/**
 * The ratio baseline for bench/api.ts: a bare `node:http` server with better-sqlite3 used directly (prepared
 * statements, no framework, no ORM, no logging), doing the same work as hostplane's getProject and setSecret:
 * same schema (hostplane's own migration SQL), same durability (WAL + synchronous=FULL), bearer token checked
 * by SHA-256 lookup, org membership and role check, project read with hostnames/placements/grants, and for the
 * write an AES-256-GCM seal (context as AAD) then upsert raising the version + change-feed row + audit row in
 * one BEGIN IMMEDIATE transaction.
 *
 * Usage: tsx bench/baseline-server.ts --data DIR   (env BENCH_TOKEN: the bearer token to seed)
 * Prints `{"listening": URL}` as its first stdout line; exits cleanly on SIGTERM.
 */
import Database from 'better-sqlite3';
import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const BASELINE_ORG = 'bench';
export const BASELINE_PROJECT = 'web';
export const BASELINE_EMAIL = 'bench@example.com';

const ROLES = ['viewer', 'member', 'admin'] as const;
type Role = (typeof ROLES)[number];
const roleAtLeast = (role: Role, min: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(min);

const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
const REQUEST_ID = /^[\w.:-]{1,128}$/;
const MAX_BODY = 1024 * 1024;
const iso = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
const sha256hex = (s: string): string => createHash('sha256').update(s).digest('hex');

export class HttpError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

function openDb(dataDir: string): Database.Database {
  const db = new Database(join(dataDir, 'baseline.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // Made once: bench/api.ts's Koa floor opens the database the baseline made.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'orgs'").get()) return db;
  // hostplane's own schema (tables, indexes, audit triggers), so both sides read and write the same shapes.
  const migrations = join(dirname(fileURLToPath(import.meta.url)), '..', 'store', 'migrations');
  for (const f of readdirSync(migrations).filter((n) => n.endsWith('.sql')).sort()) {
    for (const stmt of readFileSync(join(migrations, f), 'utf8').split('--> statement-breakpoint')) {
      if (stmt.trim()) db.exec(stmt);
    }
  }
  return db;
}

/** The org, user, token and project, once. */
function seed(db: Database.Database, token: string): void {
  if (db.prepare('SELECT 1 FROM orgs WHERE slug = ?').get(BASELINE_ORG)) return;
  const now = iso(new Date());
  db.transaction(() => {
    const org = db.prepare('INSERT INTO orgs (slug, plan, created_at) VALUES (?, ?, ?) RETURNING id').get(BASELINE_ORG, 'pro', now) as { id: number };
    const user = db.prepare('INSERT INTO users (email, created_at) VALUES (?, ?) RETURNING id').get(BASELINE_EMAIL, now) as { id: number };
    db.prepare('INSERT INTO memberships (org_id, user_id, role) VALUES (?, ?, ?)').run(org.id, user.id, 'admin');
    db.prepare('INSERT INTO tokens (hash, user_id, created_at) VALUES (?, ?, ?)').run(sha256hex(token), user.id, now);
    const p = db.prepare('INSERT INTO projects (org_id, name, uid, database, generation, created_at) VALUES (?, ?, lower(hex(randomblob(16))), 0, 1, ?) RETURNING id')
      .get(org.id, BASELINE_PROJECT, now) as { id: number };
    db.prepare("INSERT INTO hostnames (name, project_id, kind, status, created_at) VALUES (?, ?, 'default', 'active', ?)")
      .run(`${BASELINE_PROJECT}.hostplane.app`, p.id, now);
  }).immediate();
}

export function startBaseline(dataDir: string, token: string) {
  const db = openDb(dataDir);
  seed(db, token);
  const key = randomBytes(32);
  const keyId = 'k1';

  const principalByHash = db.prepare<[string], { userId: number; email: string }>(
    'SELECT u.id AS userId, u.email AS email FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?');
  const membership = db.prepare<[number, string], { id: number; slug: string; plan: string; role: Role }>(
    'SELECT o.id, o.slug, o.plan, m.role FROM orgs o JOIN memberships m ON m.org_id = o.id AND m.user_id = ? WHERE o.slug = ?');
  const projectByName = db.prepare<[number, string], { id: number; name: string; hostname: string; database: number; createdAt: string }>(
    "SELECT p.id, p.name, h.name AS hostname, p.database, p.created_at AS createdAt FROM projects p JOIN hostnames h ON h.project_id = p.id AND h.kind = 'default' WHERE p.org_id = ? AND p.name = ?");
  const hostnamesOf = db.prepare<[number], { name: string; kind: string; status: string }>(
    'SELECT name, kind, status FROM hostnames WHERE project_id = ? ORDER BY name');
  const placementsOf = db.prepare<[number], { nodeId: string; createdAt: string }>(
    'SELECT node_id AS nodeId, created_at AS createdAt FROM placements WHERE project_id = ? ORDER BY node_id');
  const authGrant = db.prepare<[number], { id: number }>('SELECT project_id AS id FROM auth_grants WHERE project_id = ?');
  const storageGrant = db.prepare<[number], { id: number }>('SELECT project_id AS id FROM storage_grants WHERE project_id = ?');
  const upsertSecret = db.prepare<[number, string, string, string], { name: string; version: number; updatedAt: string }>(
    'INSERT INTO secrets (project_id, name, version, sealed, updated_at) VALUES (?, ?, 1, ?, ?) '
    + 'ON CONFLICT (project_id, name) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at, version = secrets.version + 1 '
    + 'RETURNING name, version, updated_at AS updatedAt');
  const recordChange = db.prepare<[string, string, string], { seq: number }>('INSERT INTO changes (kind, key, at) VALUES (?, ?, ?) RETURNING seq');
  const appendAudit = db.prepare<[number, string, string, string, string, string]>(
    'INSERT INTO audit (org_id, at, event, actor, target, details) VALUES (?, ?, ?, ?, ?, ?)');

  const setSecret = db.transaction((orgId: number, projectId: number, target: string, name: string, sealed: string, actor: string) => {
    const at = iso(new Date());
    const row = upsertSecret.get(projectId, name, sealed, at)!;
    recordChange.get('secret', String(projectId), at);
    appendAudit.run(orgId, at, 'secret.set', actor, target, JSON.stringify({ version: row.version }));
    return row;
  });

  const seal = (context: string, plaintext: string): string => {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return ['v1', keyId, nonce.toString('base64url'), body.toString('base64url')].join('.');
  };

  const readBody = (req: IncomingMessage): Promise<string> => new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, 'payload_too_large', 'request bodies are limited to 1 MiB'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

  const authorize = (req: IncomingMessage, slug: string, min: Role) => {
    const h = req.headers.authorization ?? '';
    const token = h.startsWith('Bearer ') ? h.slice(7).trim() : '';
    const principal = token ? principalByHash.get(sha256hex(token)) : undefined;
    if (!principal) throw new HttpError(401, 'unauthorized', 'a valid bearer token is required');
    const m = membership.get(principal.userId, slug);
    if (!m) throw new HttpError(404, 'not_found', `organization ${slug} not found`);
    if (!roleAtLeast(m.role, min)) throw new HttpError(403, 'forbidden', `needs the ${min} role or above`);
    return { principal, org: m };
  };

  const project = (orgId: number, name: string) => {
    const p = projectByName.get(orgId, name);
    if (!p) throw new HttpError(404, 'not_found', `project ${name} not found`);
    return p;
  };

  const handle = async (req: IncomingMessage): Promise<unknown> => {
    const path = (req.url ?? '/').split('?', 1)[0]!.split('/');
    // ['', 'v1', 'orgs', org, 'projects', name, ('secrets', secret)?]
    if (path[1] !== 'v1' || path[2] !== 'orgs' || path[4] !== 'projects' || !path[3] || !path[5]) {
      throw new HttpError(404, 'not_found', 'no such route');
    }
    const slug = decodeURIComponent(path[3]);
    const projectName = decodeURIComponent(path[5]);
    if (path.length === 6 && req.method === 'GET') {
      const { org } = authorize(req, slug, 'viewer');
      const { id, ...p } = project(org.id, projectName);
      const auth = authGrant.get(id);
      const storage = storageGrant.get(id);
      return {
        ...p, database: p.database === 1, hostnames: hostnamesOf.all(id),
        grants: { auth: auth !== undefined, storage: storage !== undefined }, placements: placementsOf.all(id),
      };
    }
    if (path.length === 8 && path[6] === 'secrets' && req.method === 'PUT') {
      const { principal, org } = authorize(req, slug, 'member');
      const name = decodeURIComponent(path[7]!);
      if (!SECRET_NAME.test(name)) throw new HttpError(400, 'bad_request', 'invalid secret name');
      if (name === 'DB' || name === 'ASSETS' || name.startsWith('SERVICE_')) throw new HttpError(400, 'reserved_name', `${name} is reserved`);
      if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
        throw new HttpError(415, 'unsupported_media_type', 'request bodies must be application/json');
      }
      let body: unknown;
      try {
        body = JSON.parse(await readBody(req));
      } catch (e) {
        if (e instanceof HttpError) throw e;
        throw new HttpError(400, 'bad_request', 'request body is not valid JSON');
      }
      const value = (body as { value?: unknown } | null)?.value;
      if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).length !== 1
        || typeof value !== 'string' || value.length > 65_536) {
        throw new HttpError(400, 'bad_request', 'invalid request body');
      }
      const p = project(org.id, projectName);
      const sealed = seal(`${org.slug}/${p.name}/${name}`, value);
      return setSecret.immediate(org.id, p.id, `${p.name}/${name}`, name, sealed, `user:${principal.email}`);
    }
    throw new HttpError(404, 'not_found', 'no such route');
  };

  const server = createServer((req, res) => {
    const given = req.headers['x-request-id'];
    res.setHeader('X-Request-Id', typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID());
    const send = (status: number, body: unknown): void => {
      const json = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) }).end(json);
    };
    handle(req).then(
      (body) => send(200, body),
      (e: unknown) => {
        if (e instanceof HttpError) send(e.status, { code: e.code, message: e.message });
        else send(500, { code: 'internal', message: 'internal error' });
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  return { server, handle, close: () => db.close() };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { data: { type: 'string' }, port: { type: 'string', default: '0' } } });
  const token = process.env.BENCH_TOKEN;
  if (!values.data || !token) {
    process.stderr.write('usage: BENCH_TOKEN=T tsx bench/baseline-server.ts --data DIR [--port N]\n');
    process.exit(2);
  }
  const { server, close } = startBaseline(values.data, token);
  server.listen(Number(values.port), '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${JSON.stringify({ listening: `http://127.0.0.1:${port}` })}\n`);
  });
  process.once('SIGTERM', () => {
    server.close(() => {
      close();
      process.exit(0);
    });
    server.closeIdleConnections();
  });
}
