/**
 * The store on PostgreSQL (docs/store.md, "PostgreSQL behind the same interface"): the same `Store` and `Tx`, the
 * same write functions, one transaction per write on a pooled connection. Queries use store/schema.ts's table
 * objects through drizzle's node-postgres dialect; the tables themselves come from store/migrations-pg, which
 * drizzle-kit derives from the same schema (store/schema-pg.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { badRequest, causesOf, messageOf } from '../lib/errors';
import {
  cached, causeOf, driverCode, sharedWatch, StoreUnavailableError, WriteAbortedError, WriteContractError, type Db, type Store, type Tx, type WriteOptions, type WriteStats,
} from './db';
import * as schema from './schema';

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations-pg');

/** How long a statement may go unanswered before its connection counts as lost: a database host that hangs, or a
 * network that drops packets, refuses nothing and ends no connection, and a request would wait on it for ever. */
export const QUERY_TIMEOUT_MS = 10_000;

/** How often a write whose transaction PostgreSQL chose to abort (deadlock, serialization failure) runs again. */
export const WRITE_ATTEMPTS = 5;
const RETRYABLE = new Set(['40001', '40P01']);
/** A statement refused because an earlier one of its transaction failed. */
const IN_FAILED_TRANSACTION = '25P02';

/** The URL's parameters, named as libpq names them: `host` (a socket directory) and TLS's. */
const URL_PARAMETERS = new Set(['host', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey']);
const SSL_MODES = new Set(['disable', 'require', 'verify-ca', 'verify-full']);

/** Errors that say the database cannot be reached now, not that the request was wrong: the API answers 503. */
const UNAVAILABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006',
]);

export function isUnavailable(e: unknown): boolean {
  if (e instanceof StoreUnavailableError) return true;
  const code = driverCode(e);
  // A server that refuses the connection itself (class 28: a rotated password, a removed role or pg_hba.conf line;
  // 3D000: no such database) cannot be used either; the operator mends it, and no request was at fault.
  if (code !== undefined) return UNAVAILABLE.has(code) || code.startsWith('28') || code === '3D000';
  // node-postgres reports a connection lost mid-query, and a pool that waited too long, by message only.
  return causesOf(e).some((c) => /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|Query read timeout/i.test(c.message));
}

/** The database URL without its password: what logs, errors and `admin status` may show. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** Where a URL points, for a person: host (or socket directory), port and database. */
export function describeUrl(url: string): string {
  const u = checkDatabaseUrl(url);
  const c = addressOf(u);
  const host = c.host ?? 'localhost';
  const where = host.startsWith('/') ? `socket ${host}/.s.PGSQL.${c.port ?? 5432}` : `${host}:${c.port ?? 5432}`;
  const mode = u.searchParams.get('sslmode');
  return `${where} database ${c.database ?? c.user ?? '(default)'}${mode === null || mode === 'disable' ? '' : ` (TLS, sslmode=${mode})`}`;
}

/** The URL parsed, or a usage error naming `flag` (the URL itself is not repeated: it may hold a password). */
export function checkDatabaseUrl(url: string, flag = '--database-url'): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badRequest(`${flag} is not a URL (postgres://user:password@host:port/database)`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw badRequest(`${flag} must start with postgres:// (got ${u.protocol}//)`);
  // Refused, not ignored: an unknown parameter (say `sslcompression`) would connect without what it asks for.
  const unsupported = [...u.searchParams.keys()].filter((k) => !URL_PARAMETERS.has(k));
  if (unsupported.length > 0) throw badRequest(`${flag}: the URL parameter ${unsupported.join(', ')} is not supported (only ${[...URL_PARAMETERS].join(', ')})`);
  const mode = u.searchParams.get('sslmode');
  if (mode !== null && !SSL_MODES.has(mode)) {
    throw badRequest(`${flag}: sslmode=${mode} is not supported: use disable, require, verify-ca or verify-full (prefer and allow would fall back to a connection without TLS, unsaid)`);
  }
  const tlsFiles = ['sslrootcert', 'sslcert', 'sslkey'].filter((k) => u.searchParams.has(k));
  if (tlsFiles.length > 0 && (mode === null || mode === 'disable')) throw badRequest(`${flag}: ${tlsFiles.join(', ')} needs sslmode=require, verify-ca or verify-full`);
  if (u.searchParams.has('sslcert') !== u.searchParams.has('sslkey')) throw badRequest(`${flag}: sslcert and sslkey go together (a client certificate and its key)`);
  for (const [part, text] of [['user', u.username], ['password', u.password], ['database', u.pathname.slice(1)]] as const) {
    try {
      decodeURIComponent(text);
    } catch {
      throw badRequest(`${flag}: its ${part} is not percent-encoded (a % must start %XX; %25 is % itself)`);
    }
  }
  return u;
}

/** A file a TLS parameter names, read now, so that a wrong path stops the process with its name. */
function tlsFile(u: URL, key: string, flag: string): string | undefined {
  const path = u.searchParams.get(key);
  if (path === null) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw badRequest(`${flag}: ${key}=${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

/** TLS to the server as libpq's `sslmode` asks it: `require` encrypts without checking whom it talks to (unless
 * `sslrootcert` is given: then as verify-ca, as libpq does), `verify-ca` checks the chain against `sslrootcert` (or
 * the system's CAs), `verify-full` the host name too. */
function tlsOf(u: URL, flag: string): pg.ClientConfig['ssl'] {
  const mode = u.searchParams.get('sslmode');
  if (mode === null || mode === 'disable') return false;
  const ca = tlsFile(u, 'sslrootcert', flag);
  const client = { cert: tlsFile(u, 'sslcert', flag), key: tlsFile(u, 'sslkey', flag) };
  if (mode === 'require' && ca === undefined) return { rejectUnauthorized: false, ...client };
  return { ca, ...client, ...(mode !== 'verify-full' && { checkServerIdentity: () => undefined }) };
}

/** Where and as whom a checked URL connects. */
const addressOf = (u: URL): pg.ClientConfig => ({
  host: u.searchParams.get('host') ?? (u.hostname || undefined),
  port: u.port ? Number(u.port) : undefined,
  user: u.username ? decodeURIComponent(u.username) : undefined,
  password: u.password ? decodeURIComponent(u.password) : undefined,
  database: u.pathname.length > 1 ? decodeURIComponent(u.pathname.slice(1)) : undefined,
});

function pgConfig(url: string): pg.ClientConfig {
  const u = checkDatabaseUrl(url);
  return { ...addressOf(u), ssl: tlsOf(u, '--database-url') };
}

// int8 (bigint columns, count(*)) as numbers, as SQLite gives them: every integer the store holds is far below
// 2^53. Set on node-postgres's global parsers because drizzle passes its own per-query parsers, which fall back to
// these; the store is this process's only PostgreSQL client.
pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => Number(v));

/** `?` parameters numbered as PostgreSQL wants them; the SQL of store modules has no `?` inside literals. */
const numbered = (text: string): string => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};
/** A parameter as an SQL literal, for a statement sent in a simple query (which takes none); undefined for what is not
 * text, a number, a boolean or null. Quoted whatever its type, as node-postgres sends parameters (text of no declared
 * type), so that PostgreSQL types each from its context alike. */
const literal = (v: unknown): string | undefined => {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'bigint' && typeof v !== 'boolean') return undefined;
  return pg.escapeLiteral(String(v));
};

/** `?` parameters as literals (Tx.withCommit). */
const inlined = (text: string, params: readonly unknown[]): string => {
  const parts = text.split('?');
  if (parts.length !== params.length + 1) throw new WriteContractError(`a statement with ${parts.length - 1} parameters was given ${params.length} values`);
  return parts.reduce((out, part, i) => {
    const v = literal(params[i - 1]);
    if (v === undefined) throw new WriteContractError(`a statement sent with COMMIT takes text, numbers, booleans and null, not ${typeof params[i - 1]}`);
    return `${out}${v}${part}`;
  });
};

/** The first statement of a write (node-postgres's query arguments) after BEGIN in one simple query, its `$n`
 * parameters inlined: the write's first round trip carries both. Undefined when it cannot go so: a value that is not
 * text, a number, a boolean or null, or dollar quoting in the text, where a `$n` may not be a parameter. */
type FirstStatement = Pick<pg.QueryConfig, 'text' | 'values' | 'types'> & { rowMode?: 'array' };
function afterBegin(args: unknown[]): FirstStatement | undefined {
  const config: FirstStatement = typeof args[0] === 'string' ? { text: args[0] } : args[0] as FirstStatement;
  const values = (args[1] ?? config.values ?? []) as unknown[];
  if (config.text.includes('$$')) return undefined;
  let inlinable = true;
  const text = config.text.replace(/\$(\d+)/g, (_m, n: string) => {
    const v = Number(n) <= values.length ? literal(values[Number(n) - 1]) : undefined;
    if (v === undefined) inlinable = false;
    return v ?? '';
  });
  if (!inlinable) return undefined;
  return { text: `${BEGIN}; ${text}`, ...(config.rowMode && { rowMode: config.rowMode }), ...(config.types && { types: config.types }) };
}

const statementName = (key: string, text: string): string => `hp_${key.replace(/\W/g, '_').slice(0, 30)}_${createHash('sha1').update(text).digest('hex').slice(0, 10)}`;

/** Every write commits with synchronous_commit off; `attempt` says why a durable one is durable all the same. */
const BEGIN = 'BEGIN; SET LOCAL synchronous_commit = off';
/** The statements in BEGIN, whose results come first in a commit's round trip that opens the transaction too. */
const BEGIN_RESULTS = 2;

/** The channel every write notifies at its commit. */
const CHANNEL = 'hostplane_commits';
/** How long a lost listening connection waits before it connects again. */
const RELISTEN_MS = 1000;

/** Holds one connection in LISTEN and calls `fire` for other instances' commits, coalesced to one call per turn of
 * the event loop. It fires once each time its LISTEN is in place, the first time included: what was committed before
 * is unknown (a waiter that read just before it started listening, or while the connection was lost). */
function listen(config: pg.ClientConfig, instance: string, fire: () => void): () => void {
  let stopped = false;
  let client: pg.Client | undefined;
  let pending = false;
  let retry: NodeJS.Timeout | undefined;
  const soon = (): void => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      if (!stopped) fire();
    });
  };
  const connect = (): void => {
    const c = new pg.Client(config);
    client = c;
    let lost = false;
    const onLost = (): void => {
      if (lost || stopped) return;
      lost = true;
      void c.end().catch(() => undefined);
      retry = setTimeout(connect, RELISTEN_MS);
      retry.unref();
    };
    c.on('error', onLost);
    c.on('end', onLost);
    c.on('notification', (m) => {
      if (m.payload !== instance) soon();
    });
    c.connect().then(() => c.query(`LISTEN ${CHANNEL}`)).then(soon, onLost);
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(retry);
    void client?.end().catch(() => undefined);
  };
}

export interface OpenPgStoreOptions {
  clock?: () => Date;
  /** false: a database without the store's tables is an error, and nothing is created (the admin CLI, as for a
   * data dir without a store). Default true. */
  create?: boolean;
  /** Connections at most; it bounds write concurrency. Default 10. */
  poolSize?: number;
  /** QUERY_TIMEOUT_MS unless a test waits less. */
  queryTimeoutMs?: number;
}

interface Checkout {
  live: boolean;
  /** Whether this write's BEGIN went out: it goes with the write's first statement, not in a round trip of its own. */
  begun: boolean;
  /** The connection's own failure, told between statements (the server went away): it is not reused. */
  failed?: Error;
  /** This write's Tx.afterCommit callbacks. */
  after: (() => void)[];
  /** This write's Tx.withCommit statements, as sent, and who wants their rows. */
  withCommit: { text: string; then?: (rows: unknown[]) => void }[];
  client: pg.PoolClient;
  tx: Tx;
  statements: Map<string, unknown>;
}

/**
 * Opens the store in the PostgreSQL database of `url` and applies its migrations (several processes starting at
 * once apply them once, under an advisory lock). Rejects, having started nothing, when the database cannot be
 * reached, with a message that names where it is and never the password.
 */
export async function openPgStore(url: string, opts: OpenPgStoreOptions = {}): Promise<Store> {
  const clock = opts.clock ?? (() => new Date());
  const config = pgConfig(url);
  const pool = new pg.Pool({
    ...config,
    max: opts.poolSize ?? 10,
    // A request must not hang on a database that went away: it fails fast and answers 503 instead.
    connectionTimeoutMillis: 5000,
    query_timeout: opts.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
    keepAlive: true,
    // A write function breaking the contract (awaiting something else) must not hold its locks for ever.
    options: '-c idle_in_transaction_session_timeout=30000',
  });
  // An idle connection dropped by the server (a restart) is an event, not a crash of this process.
  pool.on('error', () => undefined);

  const fail = (e: unknown): never => {
    const why = e instanceof Error ? e.message : String(e);
    throw new StoreUnavailableError(`PostgreSQL at ${describeUrl(url)} cannot be used: ${(typeof config.password === 'string' && config.password ? why.replaceAll(config.password, '***') : why)}`, e);
  };
  // Not a pooled connection: migrating a large table, or waiting for another process's migration, may take longer
  // than a statement serving a request may.
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 5000, keepAlive: true });
  client.on('error', () => undefined);
  try {
    // Whatever stops the connection (refused, a wrong password or database name) is told with where it points.
    await client.connect().catch(fail);
    if (opts.create === false) {
      const { rows } = await client.query<{ present: boolean }>("SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present");
      if (!rows[0]?.present) {
        throw new Error(`no store in PostgreSQL at ${describeUrl(url)}: \`hostplane admin init --database-url URL\` creates an empty one, and serve creates one on first start`);
      }
    }
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', ['hostplane/migrate']);
    try {
      await migrate(drizzle({ client }), { migrationsFolder });
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', ['hostplane/migrate']);
    }
  } catch (e) {
    await pool.end().catch(() => undefined);
    if (isUnavailable(e) && !(e instanceof StoreUnavailableError)) fail(e);
    throw e;
  } finally {
    // Not awaited: after a failed connect the client may never tell that it ended.
    void client.end().catch(() => undefined);
  }

  /** A pool whose errors of reachability become StoreUnavailableError, whoever queries it. */
  const unavailableAsTyped = <T extends object>(target: T): T => new Proxy(target, {
    get(t, prop) {
      const v: unknown = Reflect.get(t, prop, t);
      if (prop !== 'query' || typeof v !== 'function') return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      return async (...args: unknown[]) => {
        try {
          return await (v as (...a: unknown[]) => Promise<unknown>).apply(t, args);
        } catch (e) {
          throw isUnavailable(e) ? new StoreUnavailableError(`PostgreSQL at ${describeUrl(url)} is unavailable`, e) : e;
        }
      };
    },
  });
  const readPool = unavailableAsTyped(pool);
  const db = drizzle({ client: readPool, schema }) as unknown as Db;

  const statements = new Map<string, unknown>();
  /** Each raw statement's numbered text and name, by key and text: made once, not at every call (a hash each). */
  const rawStatements = new Map<string, { name: string; text: string }>();
  const raw = (client: { query: pg.Pool['query'] }) => async <R>(key: string, text: string, params: readonly unknown[] = []): Promise<R[]> => {
    const st = cached(rawStatements, `${key}\u0000${text}`, () => {
      const numberedText = numbered(text);
      return { name: statementName(key, numberedText), text: numberedText };
    });
    const r = await client.query({ name: st.name, text: st.text, values: params as unknown[] });
    return r.rows as R[];
  };

  /** Each pooled connection's handle: its statements are live only while a write function runs on it. */
  const checkouts = new WeakMap<pg.PoolClient, Checkout>();
  const checkoutOf = (client: pg.PoolClient): Checkout => {
    let c = checkouts.get(client);
    if (c) return c;
    const state = { live: false } as Checkout;
    // A checked-out connection the server drops between statements emits 'error' with no query to fail: without a
    // listener that would end the process.
    client.on('error', (e: Error) => {
      state.failed = e;
    });
    const usable = (): void => {
      if (!state.live) throw new WriteContractError('a transaction handle was used outside its write function (after an await of something else, or after it settled)');
    };
    const guardedClient = new Proxy(client, {
      get(t, prop) {
        const v: unknown = Reflect.get(t, prop, t);
        if (typeof v !== 'function') return v;
        if (prop !== 'query') return (v as (...a: unknown[]) => unknown).bind(t);
        return async (...args: unknown[]) => {
          usable();
          if (!state.begun) {
            state.begun = true;
            const first = afterBegin(args);
            if (first) {
              const results = (await client.query(first as pg.QueryConfig)) as unknown as pg.QueryResult[];
              return results[results.length - 1];
            }
            await client.query(BEGIN);
          }
          return (v as (...a: unknown[]) => Promise<unknown>).apply(t, args);
        };
      },
    });
    const wdb = drizzle({ client: guardedClient, schema }) as unknown as Db;
    state.client = client;
    state.statements = new Map();
    state.tx = Object.assign(wdb, {
      prepared: <T>(key: string, build: (d: Db) => T): T => cached(state.statements, key, () => build(wdb)),
      lock: async (name: string): Promise<void> => {
        usable();
        if (state.begun) {
          await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [name]);
          return;
        }
        // Most writes start with their lock: BEGIN and the lock in one round trip (a simple query, hence the literal).
        state.begun = true;
        await client.query(`${BEGIN}; SELECT pg_advisory_xact_lock(hashtextextended(${pg.escapeLiteral(name)}, 0))`);
      },
      raw: raw(guardedClient),
      afterCommit: (fn: () => void): void => {
        if (!state.live) throw new WriteContractError('afterCommit was called outside a write function');
        state.after.push(fn);
      },
      withCommit: <R>(text: string, params: readonly unknown[], then?: (rows: R[]) => void): void => {
        usable();
        state.withCommit.push({ text: inlined(text, params), then: then as ((rows: unknown[]) => void) | undefined });
      },
    });
    checkouts.set(client, state);
    return state;
  };

  /** Tells this process's notifications from other processes' (onOtherCommits). */
  const instance = randomUUID();
  const notifyAndCommit = `NOTIFY ${CHANNEL}, '${instance}'; COMMIT`;
  // Every write commits with synchronous_commit off, so its locks (a zone's, the feed's) are released before the
  // WAL flush instead of after it, and the next writer waiting on them starts at once. A durable write then commits,
  // in the same round trip, a transaction of its own with synchronous_commit on: that COMMIT returns once the WAL is
  // flushed up to it, and so up to the write's commit record too. PostgreSQL waits for the flush only at the commit
  // of a transaction that has an xid and wrote WAL, hence the xid and the (empty, non-transactional) WAL message.
  // Concurrent writes' flushes are one fsync whoever runs it: PostgreSQL groups them behind its WAL write lock.
  const flush = "BEGIN; SELECT pg_current_xact_id(), pg_logical_emit_message(false, 'hostplane', ''); COMMIT";
  const notifyCommitAndFlush = `${notifyAndCommit}; ${flush}`;
  const commitListeners = new Set<() => void>();
  const listening = new Set<() => void>();
  const stats: WriteStats = { commits: 0, lazyCommits: 0, writes: 0, aborts: 0, syncs: 0, checkpoints: 0 };
  let closed = false;

  const attempt = async <T>(fn: (tx: Tx) => Promise<T>, durable: boolean): Promise<{ done: true; value: T } | { done: false; error: unknown }> => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (e) {
      throw new StoreUnavailableError(`PostgreSQL at ${describeUrl(url)} is unavailable`, e);
    }
    const c = checkoutOf(client);
    let broken: Error | undefined;
    try {
      c.begun = false;
      c.after = [];
      c.withCommit = [];
      c.live = true;
      let value: T;
      try {
        value = await fn(c.tx);
      } finally {
        c.live = false;
      }
      let results: pg.QueryResult[];
      // A write that sent no statement has no transaction yet: it opens one in its commit's round trip.
      const opened = c.begun ? 0 : BEGIN_RESULTS;
      const sent = c.withCommit;
      try {
        c.begun = true;
        // The statements sent with the commit, and the notification (other processes' waits wake on it), go out with
        // it in one round trip.
        const text = [...(opened ? [BEGIN] : []), ...sent.map((w) => w.text), durable ? notifyCommitAndFlush : notifyAndCommit].join('; ');
        results = (await client.query(text)) as unknown as pg.QueryResult[];
      } catch (e) {
        // A statement sent with the commit failed, as it would have failed alone: the transaction is rolled back
        // below, and the error is the write's, retried when PostgreSQL chose to abort it. Not one refused because a
        // statement of the function had failed (25P02): that write failed before, and is aborted as any such.
        const code = driverCode(e);
        if (sent.length > 0 && code !== undefined && code !== IN_FAILED_TRANSACTION && !isUnavailable(e)) throw e;
        broken = e as Error;
        stats.aborts++;
        throw isUnavailable(e) ? new StoreUnavailableError('the connection to PostgreSQL was lost at COMMIT; the write may not have committed', e) : new WriteAbortedError(e);
      }
      // A transaction in which a statement failed (and the function caught it) answers COMMIT with ROLLBACK.
      if (results[opened + sent.length + 1]!.command === 'ROLLBACK') {
        stats.aborts++;
        throw new WriteAbortedError(new Error('PostgreSQL rolled the transaction back (a statement in it had failed)'));
      }
      stats.commits++;
      stats.writes++;
      if (!durable) stats.lazyCommits++;
      sent.forEach((w, i) => w.then?.(results[opened + i]!.rows));
      for (const after of c.after) after();
      return { done: true, value };
    } catch (error) {
      // A connection lost or not answering is not reused and takes no ROLLBACK, which would wait behind the statement
      // that hangs; the server rolls the transaction back when the connection ends.
      if (!broken && isUnavailable(error)) broken = error as Error;
      if (!broken && c.begun) {
        await client.query('ROLLBACK').catch((e: unknown) => {
          broken = e as Error;
        });
      }
      const code = driverCode(error);
      if (code !== undefined && RETRYABLE.has(code)) return { done: false, error };
      const unavailable = causeOf(error, StoreUnavailableError);
      if (unavailable) throw unavailable;
      if (isUnavailable(error) && !(error instanceof StoreUnavailableError)) {
        broken ??= error as Error;
        throw new StoreUnavailableError(`PostgreSQL at ${describeUrl(url)} is unavailable`, error);
      }
      throw error;
    } finally {
      client.release(broken ?? c.failed);
    }
  };

  const write = async <T>(fn: (tx: Tx) => Promise<T>, opts: WriteOptions = {}): Promise<T> => {
    if (closed) throw new StoreUnavailableError('the store is closed');
    let last: unknown;
    for (let i = 0; i < WRITE_ATTEMPTS; i++) {
      const r = await attempt(fn, opts.durable !== false);
      if (r.done) {
        for (const l of commitListeners) l();
        return r.value;
      }
      last = r.error;
    }
    // Nothing committed and the request was right: answered as the store being unavailable for a moment (503 with
    // Retry-After), not as a failure of the service.
    throw new WriteAbortedError(new StoreUnavailableError(`PostgreSQL aborted this write ${WRITE_ATTEMPTS} times against other writes (${messageOf(last)}); retry`, last));
  };

  return {
    dialect: 'postgres',
    db,
    clock,
    write,
    prepared: (<T>(key: string, build: (d: Db) => T): T => cached(statements, key, () => build(db))) as Store['prepared'],
    raw: raw(readPool),
    // Commits are visible before their flush (above), so what was read may not be on disk yet: a flush transaction
    // begun now commits after every commit visible now, and its COMMIT returns once the WAL is flushed past them all.
    synced: () => {
      stats.syncs++;
      return pool.query(flush).then(() => undefined);
    },
    onCommit: (listener) => {
      commitListeners.add(listener);
      return () => {
        commitListeners.delete(listener);
      };
    },
    onOtherCommits: sharedWatch((fire) => {
      const stop = listen(config, instance, fire);
      listening.add(stop);
      return () => {
        listening.delete(stop);
        stop();
      };
    }),
    stats: () => ({ ...stats }),
    close: () => {
      if (closed) return;
      closed = true;
      for (const stop of listening) stop();
      void pool.end().catch(() => undefined);
    },
  };
}
