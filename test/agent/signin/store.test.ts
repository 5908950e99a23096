import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SESSION_ROWS, MAX_SESSIONS_PER_USER, SESSION_TABLE_CEILING_BYTES, sessionsPerUser, SignInStore, userLimit, type SessionScope } from '../../../agent/signin/store';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-26T10:00:00Z');
const GRANT = Buffer.from('a1'.repeat(16), 'hex');
const HOST = 'shop.example.test';
const scope = (over: Partial<SessionScope> = {}): SessionScope => ({ grant: GRANT, host: HOST, sessionDays: 30, ...over });
let dir: string;
let store: SignInStore;
let tokens = 0;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'signin-store-'));
  writeFileSync(join(dir, 'p.sqlite'), '');
  store = SignInStore.open(join(dir, 'p.sqlite'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const user = (subject: string, email: string | null, emailVerified = true) => ({ subject, email, emailVerified });
const hashOf = (token: string): Buffer => createHash('sha256').update(token).digest();
/** A new session of `userId`: its token's hash. */
function newSession(userId: number, o: { scope?: SessionScope; now?: number; maxUsers?: number; replacing?: Buffer } = {}): Buffer {
  const hash = hashOf(`token-${++tokens}`);
  store.createSession({ tokenHash: hash, userId, scope: o.scope ?? scope(), maxUsers: o.maxUsers ?? 10, now: o.now ?? T0, replacing: o.replacing ?? null });
  return hash;
}
const sessionRows = (): number => (store.db.prepare('SELECT count(*) AS n FROM service_auth_sessions').get() as { n: number }).n;

describe('the caps', () => {
  it('never allow more session rows than MAX_SESSION_ROWS, whatever the plan', () => {
    for (const maxUsers of [0, 1, 5_000, 50_000, 60_000, 499_999, 500_000, 10_000_000]) {
      expect(userLimit(maxUsers) * sessionsPerUser(maxUsers)).toBeLessThanOrEqual(MAX_SESSION_ROWS);
      expect(sessionsPerUser(maxUsers)).toBeGreaterThanOrEqual(1);
    }
    expect(sessionsPerUser(50_000)).toBe(MAX_SESSIONS_PER_USER);
    expect(sessionsPerUser(60_000)).toBe(8);
    expect(userLimit(10_000_000)).toBe(MAX_SESSION_ROWS);
  });

  it('keeps the session table under 150 MB filled to the caps (50,000 users, 10 sessions each, the 11th evicting)', async () => {
    const maxUsers = 50_000;
    const db = store.db;
    db.pragma('synchronous = OFF');
    // The first ten sessions of each user are inserted directly, as createSession would (it takes 4 times as
    // long, and the test should take seconds); the eleventh goes through createSession and must evict. Ids are
    // as after long use: from 2^56, SQLite's longest rowid varint, so that no row is smaller than in production.
    // The host's number is the largest that takes 2 bytes (a project has a few hostnames; each has one number).
    // Filled in transactions of a few thousand users, the event loop turned between them: one transaction of it all
    // held the test's worker for over a minute on a loaded machine, and vitest's calls to it timed out.
    const insertUser = db.prepare('INSERT INTO service_auth_users (id, email, created_at) VALUES (?, ?, ?)');
    const insertSession = db.prepare('INSERT INTO service_auth_sessions (id, token_hash, user_id, grant_id, host_id, created_at, expires_at) VALUES (?, ?, ?, ?, 32767, ?, ?)');
    const inChunks = async (each: (u: number) => void): Promise<void> => {
      const chunk = db.transaction((from: number) => {
        for (let u = from; u < Math.min(from + 5000, maxUsers + 1); u++) each(u);
      });
      for (let from = 1; from <= maxUsers; from += 5000) {
        chunk(from);
        await new Promise((res) => setImmediate(res));
      }
    };
    await inChunks((u) => insertUser.run(u, `user${u}@example.test`, T0));
    db.prepare('INSERT INTO service_auth_hosts (id, name) VALUES (32767, ?)').run(HOST);
    let id = 2n ** 56n;
    for (let round = 0; round < sessionsPerUser(maxUsers); round++) {
      await inChunks((u) => insertSession.run(id++, randomBytes(32), u, GRANT, T0 + round, T0 + round + 365 * DAY));
    }
    await inChunks((u) => newSession(u, { scope: scope({ sessionDays: 365 }), maxUsers, now: T0 + 10 }));
    expect(db.prepare('SELECT min(created_at) AS t FROM service_auth_sessions').get()).toEqual({ t: T0 + 1 });
    const rows = (db.prepare('SELECT count(*) AS n FROM service_auth_sessions').get() as { n: number }).n;
    expect(rows).toBe(maxUsers * MAX_SESSIONS_PER_USER);
    const bytes = (db.prepare("SELECT sum(pgsize) AS b FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'service_auth_sessions')").get() as { b: number }).b;
    const perRow = bytes / rows;
    console.log(`session table filled to the caps: ${rows} rows, ${bytes} bytes, ${perRow.toFixed(1)} bytes a row`);
    // store.ts's bound: ≤ 171 bytes a row in full pages, ≤ 257 on pages two thirds full.
    expect(perRow).toBeLessThanOrEqual(257);
    expect(bytes).toBeLessThan(SESSION_TABLE_CEILING_BYTES);
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(statSync(join(dir, 'p.sqlite')).size).toBeLessThan(SESSION_TABLE_CEILING_BYTES + 16 * 1024 * 1024);
  }, 120_000);
});

describe('accounts', () => {
  it('finds the same user again by the provider and its stable id, whatever the email says now', () => {
    const a = store.signIn('github', user('1', 'ada@example.test'), 10, T0);
    const b = store.signIn('github', user('1', 'ada@new.example.test'), 10, T0);
    expect(a).toMatchObject({ created: true });
    expect(b).toEqual({ userId: (a as { userId: number }).userId, created: false, linked: false });
  });

  it('links providers on the same verified email only, case-insensitively', () => {
    const a = store.signIn('github', user('1', 'Ada@Example.test'), 10, T0) as { userId: number };
    expect(store.signIn('google', user('g1', 'ada@example.TEST'), 10, T0)).toEqual({ userId: a.userId, created: false, linked: true });
    expect(store.signIn('kakao', user('7', 'ada@example.test', false), 10, T0)).toMatchObject({ created: true, linked: false });
  });

  it('does not link to an identity whose email was not verified', () => {
    const a = store.signIn('kakao', user('7', 'ada@example.test', false), 10, T0) as { userId: number };
    const b = store.signIn('google', user('g1', 'ada@example.test'), 10, T0) as { userId: number };
    expect(b.userId).not.toBe(a.userId);
  });

  it('refuses a new user at maxUsers; linking and known identities still pass', () => {
    store.signIn('github', user('1', 'ada@example.test'), 1, T0);
    expect(store.signIn('github', user('2', 'bob@example.test'), 1, T0)).toEqual({ refused: 'user_limit' });
    expect(store.signIn('google', user('g1', 'ada@example.test'), 1, T0)).toMatchObject({ linked: true });
    expect(store.signIn('github', user('1', 'ada@example.test'), 1, T0)).toMatchObject({ created: false });
  });

  it('keeps as the user\'s email only one a provider asserted as verified, the last one', () => {
    const a = store.signIn('github', user('1', 'ada@example.test'), 10, T0) as { userId: number };
    const s = newSession(a.userId);
    // The same identity now asserting an email it does not say is verified: kept on the identity, not the user.
    store.signIn('github', user('1', 'mallory@example.test', false), 10, T0);
    expect(store.session(s, scope(), T0)!.user).toMatchObject({ email: 'ada@example.test', emailVerified: true });
    store.signIn('github', user('1', 'ada@new.example.test'), 10, T0);
    expect(store.session(s, scope(), T0)!.user).toMatchObject({ email: 'ada@new.example.test', emailVerified: true });
    const b = store.signIn('kakao', user('7', 'bob@example.test', false), 10, T0) as { userId: number };
    expect(store.session(newSession(b.userId), scope(), T0)!.user).toEqual({ id: b.userId, email: null, emailVerified: false, providers: ['kakao'] });
  });

  it('bootstraps idempotently: opening again keeps users and identities', () => {
    store.signIn('github', user('1', 'ada@example.test'), 10, T0);
    store.close();
    store = SignInStore.open(join(dir, 'p.sqlite'));
    expect(store.signIn('github', user('1', 'ada@example.test'), 10, T0)).toMatchObject({ created: false });
  });
});

describe('sessions', () => {
  it('ends at expiresAt', () => {
    const { userId } = store.signIn('github', user('1', 'ada@example.test'), 10, T0) as { userId: number };
    const s = newSession(userId, { scope: scope({ sessionDays: 2 }) });
    expect(store.session(s, scope({ sessionDays: 2 }), T0 + 2 * DAY - 1)).toMatchObject({ user: { id: userId, providers: ['github'] } });
    expect(store.session(s, scope({ sessionDays: 2 }), T0 + 2 * DAY)).toBeNull();
  });

  it('counts only under the grant it was made under: a new grant ends it with nothing deleted', () => {
    const { userId } = store.signIn('github', user('1', 'ada@example.test'), 10, T0) as { userId: number };
    const s = newSession(userId);
    const regranted = scope({ grant: Buffer.from('b2'.repeat(16), 'hex') });
    expect(store.session(s, regranted, T0 + 1)).toBeNull();
    expect(store.session(s, scope(), T0 + 1)).not.toBeNull();
    expect(sessionRows()).toBe(1);
  });

  it('counts only on the host that made it', () => {
    const { userId } = store.signIn('github', user('1', 'ada@example.test'), 10, T0) as { userId: number };
    const s = newSession(userId, { scope: scope({ host: 'shop.customer.test' }) });
    expect(store.session(s, scope({ host: 'shop.customer.test' }), T0 + 1)).not.toBeNull();
    expect(store.session(s, scope({ host: 'shop.hostplane.app' }), T0 + 1)).toBeNull();
    store.endSession(s, 'shop.hostplane.app');
    expect(sessionRows()).toBe(1);
    store.endSession(s, 'shop.customer.test');
    expect(sessionRows()).toBe(0);
  });

  it('a lower sessionDays ends sessions older than it at once; a higher one does not lengthen them', () => {
    const { userId } = store.signIn('github', user('1', 'ada@example.test'), 10, T0) as { userId: number };
    const s = newSession(userId, { scope: scope({ sessionDays: 30 }) });
    expect(store.session(s, scope({ sessionDays: 3 }), T0 + 3 * DAY - 1)!.expiresAt).toBe(new Date(T0 + 3 * DAY).toISOString());
    expect(store.session(s, scope({ sessionDays: 3 }), T0 + 3 * DAY)).toBeNull();
    const t = newSession(userId, { scope: scope({ sessionDays: 3 }) });
    expect(store.session(t, scope({ sessionDays: 30 }), T0 + 3 * DAY)).toBeNull();
  });

  it('a new session ends the one the browser had', () => {
    const { userId } = store.signIn('github', user('1', 'ada@example.test'), 10, T0) as { userId: number };
    const first = newSession(userId);
    const second = newSession(userId, { replacing: first });
    expect(store.session(first, scope(), T0 + 1)).toBeNull();
    expect(store.session(second, scope(), T0 + 1)).not.toBeNull();
    expect(sessionRows()).toBe(1);
  });

  it('prunes expired sessions on each new session, and when asked also those of another grant or beyond sessionDays', () => {
    const { userId } = store.signIn('github', user('1', 'ada@example.test'), 10, T0) as { userId: number };
    const other = (store.signIn('github', user('2', 'bob@example.test'), 10, T0) as { userId: number }).userId;
    newSession(userId, { scope: scope({ sessionDays: 1 }) });
    newSession(userId, { scope: scope({ sessionDays: 1 }) });
    newSession(other, { now: T0 + 2 * DAY });
    expect(sessionRows()).toBe(1);
    newSession(other, { scope: scope({ grant: Buffer.from('c3'.repeat(16), 'hex') }), now: T0 + 2 * DAY });
    const kept = newSession(other, { now: T0 + 9 * DAY });
    expect(sessionRows()).toBe(3);
    // sessionDays now 10: the session made at T0 + 2 days ended at T0 + 12 days; the other grant's is not this one's.
    expect(store.prune({ grant: GRANT, sessionDays: 10 }, T0 + 12 * DAY)).toBe(2);
    expect(sessionRows()).toBe(1);
    expect(store.session(kept, scope({ sessionDays: 10 }), T0 + 12 * DAY)).not.toBeNull();
  });
});
