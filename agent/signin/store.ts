/**
 * The sign-in tables in a project's SQLite database on the node (`SERVICE_DB_PATH`, agent/layout.ts
 * databasePath). The spec keeps them "in a schema named `service_auth`"; SQLite has no schemas inside one file,
 * so the schema is a name prefix: `service_auth_users`, `service_auth_identities`, `service_auth_sessions`. They
 * are created when missing (idempotent) and never dropped: a revoke, a provider removed or a node restart keeps
 * every user and identity, so the same people get their same accounts back.
 *
 * The project's worker has the file open too: WAL (readers never wait for the writer) and a busy timeout. It is
 * short because better-sqlite3 waits synchronously, on the front end's event loop.
 *
 * - users: `id` (what `/__service/auth/session` answers), the email last asserted by a provider.
 * - identities: one per (provider, the provider's stable user id) — GitHub's and Kakao's numeric `id`, Google's
 *   `sub` — with the email the provider asserted and whether it said it was verified.
 * - sessions: the SHA-256 of the cookie's token (the token itself is never stored), the user, when it was made
 *   and when it ends (`expires_at`, epoch milliseconds: the one thing a worker reading the table must check).
 *
 * The session table stays under SESSION_TABLE_CEILING_BYTES by construction, whatever users do:
 * - rows ≤ MAX_SESSION_ROWS = 500,000: at most userLimit(maxUsers) users (the plan's sign-in users, 50,000 at
 *   most by default; never above MAX_SESSION_ROWS) each with at most sessionsPerUser(maxUsers) rows (10, fewer
 *   when a plan allows more than 50,000 users: the product never passes 500,000). A new session evicts the
 *   user's oldest beyond the cap, expired or not, so pruning is not needed for the bound; it only gives the
 *   space of people who do not come back to others.
 * - bytes per row, counted from SQLite's record format: the table cell (rowid ≤ 9, payload length 1, header 5,
 *   token hash 32, user id ≤ 3, two millisecond timestamps 6 + 6, cell pointer 2) ≤ 64; the unique index on the
 *   hash (header 3, hash 32, rowid ≤ 9, lengths 1, pointer 2) ≤ 47; the index on user (user id ≤ 3, rowid ≤ 9,
 *   header 3, lengths 1, pointer 2) ≤ 18; the index on expiry (timestamp 6, rowid ≤ 9, header 3, lengths 1,
 *   pointer 2) ≤ 21: ≤ 150 bytes a row in full pages. B-tree pages of random keys are about two thirds full, so
 *   ≤ 225 bytes a row on disk, and 500,000 × 225 = 112.5 MB ≤ 150 MB. test/agent/signin-store.test.ts fills the
 *   table to the caps with the longest ids and measures it: 160 bytes a row, 80 MB.
 */
import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';

export const SESSION_TABLE_CEILING_BYTES = 150 * 1000 * 1000;
/** Session rows a project's table ever holds: the users cap times the sessions-per-user cap never exceeds it. */
export const MAX_SESSION_ROWS = 500_000;
/** Live sessions per user (browsers, devices); the oldest is evicted by the next. */
export const MAX_SESSIONS_PER_USER = 10;
const DAY_MS = 86_400_000;
/** Expired rows deleted on each new session: enough to keep up with sign-ins, small enough to be quick. */
const PRUNE_BATCH = 500;

/** Users a project may have: the plan's, but never more than the session table can hold a session for. */
export const userLimit = (maxUsers: number): number => Math.max(0, Math.min(maxUsers, MAX_SESSION_ROWS));
/** Sessions a user may hold with `maxUsers` users allowed: 10, fewer when the plan allows more than 50,000. */
export const sessionsPerUser = (maxUsers: number): number =>
  Math.max(1, Math.min(MAX_SESSIONS_PER_USER, Math.floor(MAX_SESSION_ROWS / Math.max(1, userLimit(maxUsers)))));

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS service_auth_users (
  id INTEGER PRIMARY KEY,
  email TEXT,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS service_auth_identities (
  provider TEXT NOT NULL,
  subject TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES service_auth_users(id),
  email TEXT,
  email_verified INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (provider, subject)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS service_auth_identities_user ON service_auth_identities(user_id);
CREATE INDEX IF NOT EXISTS service_auth_identities_verified_email ON service_auth_identities(email) WHERE email_verified = 1;
CREATE TABLE IF NOT EXISTS service_auth_sessions (
  id INTEGER PRIMARY KEY,
  token_hash BLOB NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES service_auth_users(id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS service_auth_sessions_user ON service_auth_sessions(user_id);
CREATE INDEX IF NOT EXISTS service_auth_sessions_expiry ON service_auth_sessions(expires_at);
`;

/** What a provider says about the person who consented. */
export interface ProviderUser {
  /** The provider's stable user id. */
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

export interface SessionView {
  user: { id: number; email: string | null; providers: string[] };
  expiresAt: string;
}

export type SignInResult = { userId: number; created: boolean; linked: boolean } | { refused: 'user_limit' };

/**
 * `use` over the database at `path`, kept open after it when `keep`. (As root, SQLite gives the WAL and
 * shared-memory files it creates to the database file's owner, so the worker keeps writing its own database.)
 */
function withDatabase<T>(path: string, use: (db: Database.Database) => T, keep: boolean): T {
  const db = new Database(path, { fileMustExist: true, timeout: 1_000 });
  let ok = false;
  try {
    const out = use(db);
    ok = true;
    return out;
  } finally {
    if (!ok || !keep) db.close();
  }
}

const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();

/** The statements of a store, compiled once (a sign-in runs several). */
function statements(db: Database.Database) {
  return {
    identity: db.prepare<[string, string], { user_id: number }>('SELECT user_id FROM service_auth_identities WHERE provider = ? AND subject = ?'),
    updateIdentity: db.prepare('UPDATE service_auth_identities SET email = ?, email_verified = ? WHERE provider = ? AND subject = ?'),
    updateUser: db.prepare('UPDATE service_auth_users SET email = ? WHERE id = ?'),
    verifiedEmail: db.prepare<[string], { user_id: number | null }>('SELECT min(user_id) AS user_id FROM service_auth_identities WHERE email = ? AND email_verified = 1'),
    countUsers: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM service_auth_users'),
    insertUser: db.prepare('INSERT INTO service_auth_users (email, created_at) VALUES (?, ?)'),
    insertIdentity: db.prepare('INSERT INTO service_auth_identities (provider, subject, user_id, email, email_verified, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
    insertSession: db.prepare('INSERT INTO service_auth_sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)'),
    evict: db.prepare(`DELETE FROM service_auth_sessions WHERE id IN (
      SELECT id FROM service_auth_sessions WHERE user_id = ? ORDER BY id DESC LIMIT -1 OFFSET ?)`),
    session: db.prepare<[Buffer, number], { id: number; email: string | null; expires_at: number }>(`SELECT u.id, u.email, s.expires_at
      FROM service_auth_sessions s JOIN service_auth_users u ON u.id = s.user_id WHERE s.token_hash = ? AND s.expires_at > ?`),
    providers: db.prepare<[number], { provider: string }>('SELECT provider FROM service_auth_identities WHERE user_id = ? ORDER BY provider'),
    endSession: db.prepare('DELETE FROM service_auth_sessions WHERE token_hash = ?'),
    limit: db.prepare('UPDATE service_auth_sessions SET expires_at = created_at + ? WHERE expires_at > created_at + ?'),
    prune: db.prepare('DELETE FROM service_auth_sessions WHERE id IN (SELECT id FROM service_auth_sessions WHERE expires_at <= ? LIMIT ?)'),
  };
}

/** The sign-in tables of one project database. */
export class SignInStore {
  private readonly q: ReturnType<typeof statements>;

  private constructor(readonly db: Database.Database) {
    this.q = statements(db);
  }

  /** Opens the project's database at `path` (which must exist: the supervisor creates it, owned by the worker)
   * and creates the tables when missing. */
  static open(path: string): SignInStore {
    return withDatabase(path, (db) => {
      db.pragma('journal_mode = WAL');
      db.exec(SCHEMA);
      return new SignInStore(db);
    }, true);
  }

  /** Ends every session in the database at `path`, when it has the tables (a grant revoked; users and identities
   * stay), without creating them. */
  static endAllSessionsAt(path: string): void {
    withDatabase(path, (db) => {
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'service_auth_sessions'").get()) db.prepare('DELETE FROM service_auth_sessions').run();
    }, false);
  }

  /**
   * The user of `who` at `provider`: the identity's when known; else, when the provider asserts a verified email
   * that another identity asserted verified too, that identity's user (linked); else a new user, unless the
   * project has `maxUsers` already.
   */
  signIn(provider: string, who: ProviderUser, maxUsers: number, now: number): SignInResult {
    const email = who.email === null ? null : who.email.toLowerCase();
    const verified = who.emailVerified && email !== null ? 1 : 0;
    const q = this.q;
    return this.db.transaction((): SignInResult => {
      const known = q.identity.get(provider, who.subject);
      if (known) {
        q.updateIdentity.run(email, verified, provider, who.subject);
        q.updateUser.run(email, known.user_id);
        return { userId: known.user_id, created: false, linked: false };
      }
      let userId = verified ? q.verifiedEmail.get(email!)!.user_id : null;
      const linked = userId !== null;
      if (userId === null) {
        if (q.countUsers.get()!.n >= userLimit(maxUsers)) return { refused: 'user_limit' };
        userId = Number(q.insertUser.run(email, now).lastInsertRowid);
      }
      q.insertIdentity.run(provider, who.subject, userId, email, verified, now);
      return { userId, created: !linked, linked };
    }).immediate();
  }

  /** A new session for `userId` lasting `days`: its token (for the cookie only). Evicts the user's oldest
   * beyond sessionsPerUser(maxUsers) and prunes a batch of expired rows. */
  createSession(userId: number, days: number, maxUsers: number, now: number): { token: string; expiresAt: number } {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = now + days * DAY_MS;
    this.db.transaction(() => {
      this.q.insertSession.run(hashToken(token), userId, now, expiresAt);
      this.q.evict.run(userId, sessionsPerUser(maxUsers));
      this.q.prune.run(now, PRUNE_BATCH);
    }).immediate();
    return { token, expiresAt };
  }

  /** The live session of `token`, or null. */
  session(token: string, now: number): SessionView | null {
    const row = this.q.session.get(hashToken(token), now);
    if (!row) return null;
    const providers = this.q.providers.all(row.id).map((r) => r.provider);
    return { user: { id: row.id, email: row.email, providers }, expiresAt: new Date(row.expires_at).toISOString() };
  }

  /** Ends the session of `token` (nothing when there is none). */
  endSession(token: string): void {
    this.q.endSession.run(hashToken(token));
  }

  /** Shortens sessions that would outlive `days` from their start (sessionDays lowered); longer ones stay. */
  limitSessions(days: number): void {
    this.q.limit.run(days * DAY_MS, days * DAY_MS);
  }

  /** Deletes up to `limit` expired sessions; how many went. */
  prune(now: number, limit = 10_000): number {
    return this.q.prune.run(now, limit).changes;
  }

  close(): void {
    this.db.close();
  }
}
