/**
 * The sign-in tables in a project's SQLite database on the node (`SERVICE_DB_PATH`, agent/layout.ts
 * databasePath). The spec keeps them "in a schema named `service_auth`"; SQLite has no schemas inside one file,
 * so the schema is a name prefix: `service_auth_users`, `service_auth_identities`, `service_auth_hosts`,
 * `service_auth_sessions`. They are created when missing (idempotent) and never dropped: a revoke, a provider
 * removed or a node restart keeps every user and identity, so the same people get their same accounts back.
 *
 * Only the project's database helper (db-helper.ts, a child process running as the project's worker user) opens
 * this: the file is the worker's, and so is whatever it put in it (triggers, views, locks).
 *
 * - users: `id` (what `/__service/auth/session` answers), and the last email a provider asserted as verified
 *   (null until one did: an unverified email is never the user's, since anyone can claim one).
 * - identities: one per (provider, the provider's stable user id) — GitHub's and Kakao's numeric `id`, Google's
 *   `sub` — with the email the provider asserted and whether it said it was verified.
 * - hosts: the hostnames sessions were made on, numbered, so that a session row holds a small number.
 * - sessions: the SHA-256 of the cookie's token (the token itself is never stored), the user, the grant it was made
 *   under (the bundle's `signIn.grant`), the host that set the cookie, when it was made and when it ends
 *   (`expires_at`, epoch milliseconds). A session counts only under the grant it was made under, on its host,
 *   before `expires_at` and before `created_at` + the current sessionDays: a revoke, a new grant or a lower
 *   sessionDays ends sessions without anything having to delete them; prune() deletes them as hygiene.
 *
 * The session table stays under SESSION_TABLE_CEILING_BYTES by construction, whatever users do:
 * - rows ≤ MAX_SESSION_ROWS = 500,000: at most userLimit(maxUsers) users (the plan's sign-in users, 50,000 at
 *   most by default; never above MAX_SESSION_ROWS) each with at most sessionsPerUser(maxUsers) rows (10, fewer
 *   when a plan allows more than 50,000 users: the product never passes 500,000). A new session evicts the
 *   user's oldest beyond the cap, expired or not, so pruning is not needed for the bound; it only gives the
 *   space of people who do not come back to others.
 * - bytes per row, counted from SQLite's record format: the table cell (rowid ≤ 9, payload length 1, header 8,
 *   token hash 32, user id ≤ 3, grant id 16, host number ≤ 2, two millisecond timestamps 6 + 6, cell pointer 2)
 *   ≤ 85; the unique index on the hash (header 3, hash 32, rowid ≤ 9, lengths 1, pointer 2) ≤ 47; the index on
 *   user (user id ≤ 3, rowid ≤ 9, header 3, lengths 1, pointer 2) ≤ 18; the index on expiry (timestamp 6,
 *   rowid ≤ 9, header 3, lengths 1, pointer 2) ≤ 21: ≤ 171 bytes a row in full pages. B-tree pages of random
 *   keys are about two thirds full, so ≤ 257 bytes a row on disk, and 500,000 × 257 = 128.5 MB ≤ 150 MB. The
 *   host table has a row per hostname of the project that ever set a session (the project's routed hostnames).
 *   test/agent/signin/store.test.ts fills the table to the caps with the longest ids and measures it: 180 bytes a
 *   row, 90 MB.
 */
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
CREATE TABLE IF NOT EXISTS service_auth_hosts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS service_auth_sessions (
  id INTEGER PRIMARY KEY,
  token_hash BLOB NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES service_auth_users(id),
  grant_id BLOB NOT NULL,
  host_id INTEGER NOT NULL REFERENCES service_auth_hosts(id),
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

/** What a session is valid under: the bundle's grant id (16 bytes), the host asking, the current sessionDays. */
export interface SessionScope {
  grant: Buffer;
  host: string;
  sessionDays: number;
}

export interface SessionView {
  /** `email` is the last one a provider asserted as verified, or null: an unverified email is never answered. */
  user: { id: number; email: string | null; emailVerified: boolean; providers: string[] };
  expiresAt: string;
}

export type SignInResult = { userId: number; created: boolean; linked: boolean } | { refused: 'user_limit' };

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
    addHost: db.prepare('INSERT INTO service_auth_hosts (name) VALUES (?) ON CONFLICT (name) DO NOTHING'),
    host: db.prepare<[string], { id: number }>('SELECT id FROM service_auth_hosts WHERE name = ?'),
    insertSession: db.prepare('INSERT INTO service_auth_sessions (token_hash, user_id, grant_id, host_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)'),
    evict: db.prepare(`DELETE FROM service_auth_sessions WHERE id IN (
      SELECT id FROM service_auth_sessions WHERE user_id = ? ORDER BY id DESC LIMIT -1 OFFSET ?)`),
    session: db.prepare<[{ hash: Buffer; grant: Buffer; host: string; life: number; now: number }], { id: number; email: string | null; ends: number }>(
      `SELECT u.id, u.email, min(s.expires_at, s.created_at + $life) AS ends
      FROM service_auth_sessions s JOIN service_auth_users u ON u.id = s.user_id JOIN service_auth_hosts h ON h.id = s.host_id
      WHERE s.token_hash = $hash AND s.grant_id = $grant AND h.name = $host AND s.expires_at > $now AND s.created_at + $life > $now`),
    providers: db.prepare<[number], { provider: string }>('SELECT provider FROM service_auth_identities WHERE user_id = ? ORDER BY provider'),
    endSession: db.prepare('DELETE FROM service_auth_sessions WHERE token_hash = ?'),
    endHostSession: db.prepare('DELETE FROM service_auth_sessions WHERE token_hash = ? AND host_id = (SELECT id FROM service_auth_hosts WHERE name = ?)'),
    pruneExpired: db.prepare('DELETE FROM service_auth_sessions WHERE id IN (SELECT id FROM service_auth_sessions WHERE expires_at <= ? LIMIT ?)'),
    pruneStale: db.prepare<[{ now: number; life: number; grant: Buffer; limit: number }]>(`DELETE FROM service_auth_sessions WHERE id IN (
      SELECT id FROM service_auth_sessions WHERE expires_at <= $now OR created_at + $life <= $now OR grant_id != $grant LIMIT $limit)`),
  };
}

/** The sign-in tables of one project database. */
export class SignInStore {
  private readonly q: ReturnType<typeof statements>;

  private constructor(readonly db: Database.Database) {
    this.q = statements(db);
  }

  /**
   * Opens the project's database at `path` (which must exist: the supervisor creates it, owned by the worker)
   * and creates the tables when missing. WAL, so that the worker's readers never wait for a sign-in; the busy
   * timeout is below the helper's deadline, so a worker holding the write lock fails a call rather than timing it
   * out.
   */
  static open(path: string, busyTimeoutMs = 1_000): SignInStore {
    const db = new Database(path, { fileMustExist: true, timeout: busyTimeoutMs });
    try {
      db.pragma('journal_mode = WAL');
      db.exec(SCHEMA);
      return new SignInStore(db);
    } catch (e) {
      db.close();
      throw e;
    }
  }

  /**
   * The user of `who` at `provider`: the identity's when known; else, when the provider asserts a verified email
   * that another identity asserted verified too, that identity's user (linked); else a new user, unless the
   * project has `maxUsers` already. The user's email becomes the one asserted only when it is verified.
   */
  signIn(provider: string, who: ProviderUser, maxUsers: number, now: number): SignInResult {
    const email = who.email === null ? null : who.email.toLowerCase();
    const verified = who.emailVerified && email !== null;
    const q = this.q;
    return this.db.transaction((): SignInResult => {
      const known = q.identity.get(provider, who.subject);
      if (known) {
        q.updateIdentity.run(email, verified ? 1 : 0, provider, who.subject);
        if (verified) q.updateUser.run(email, known.user_id);
        return { userId: known.user_id, created: false, linked: false };
      }
      let userId = verified ? q.verifiedEmail.get(email!)!.user_id : null;
      const linked = userId !== null;
      if (userId === null) {
        if (q.countUsers.get()!.n >= userLimit(maxUsers)) return { refused: 'user_limit' };
        userId = Number(q.insertUser.run(verified ? email : null, now).lastInsertRowid);
      }
      q.insertIdentity.run(provider, who.subject, userId, email, verified ? 1 : 0, now);
      return { userId, created: !linked, linked };
    }).immediate();
  }

  /**
   * A new session for `userId` under `scope`, its token's hash given (the token itself goes only to the cookie):
   * when it ends. The browser's previous session (`replacing`, its token's hash) ends with it; the user's oldest
   * beyond sessionsPerUser(maxUsers) are evicted and a batch of expired rows pruned.
   */
  createSession(o: { tokenHash: Buffer; userId: number; scope: SessionScope; maxUsers: number; now: number; replacing: Buffer | null }): { expiresAt: number } {
    const expiresAt = o.now + o.scope.sessionDays * DAY_MS;
    const q = this.q;
    this.db.transaction(() => {
      if (o.replacing) q.endSession.run(o.replacing);
      q.addHost.run(o.scope.host);
      q.insertSession.run(o.tokenHash, o.userId, o.scope.grant, q.host.get(o.scope.host)!.id, o.now, expiresAt);
      q.evict.run(o.userId, sessionsPerUser(o.maxUsers));
      q.pruneExpired.run(o.now, PRUNE_BATCH);
    }).immediate();
    return { expiresAt };
  }

  /** The session of `tokenHash` when it counts under `scope` at `now` (see the module's header), or null. */
  session(tokenHash: Buffer, scope: SessionScope, now: number): SessionView | null {
    const row = this.q.session.get({ hash: tokenHash, grant: scope.grant, host: scope.host, life: scope.sessionDays * DAY_MS, now });
    if (!row) return null;
    const providers = this.q.providers.all(row.id).map((r) => r.provider);
    return { user: { id: row.id, email: row.email, emailVerified: row.email !== null, providers }, expiresAt: new Date(row.ends).toISOString() };
  }

  /** Ends the session of `tokenHash` made on `host` (nothing when there is none). */
  endSession(tokenHash: Buffer, host: string): void {
    this.q.endHostSession.run(tokenHash, host);
  }

  /** Deletes up to `limit` sessions that no longer count under the grant and sessionDays of `scope`; how many went. */
  prune(scope: Omit<SessionScope, 'host'>, now: number, limit = 10_000): number {
    return this.q.pruneStale.run({ now, life: scope.sessionDays * DAY_MS, grant: scope.grant, limit }).changes;
  }

  close(): void {
    this.db.close();
  }
}
