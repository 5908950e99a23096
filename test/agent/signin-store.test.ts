import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_SESSION_ROWS, MAX_SESSIONS_PER_USER, SESSION_TABLE_CEILING_BYTES, sessionsPerUser, SignInStore, userLimit } from '../../agent/signin/store';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-26T10:00:00Z');
let dir: string;
let store: SignInStore;

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

  it('keeps the session table under 150 MB filled to the caps (50,000 users, 10 sessions each, the 11th evicting)', () => {
    const maxUsers = 50_000;
    const db = store.db;
    db.pragma('synchronous = OFF');
    db.transaction(() => {
      // The first ten sessions of each user are inserted directly, as createSession would (it takes 4 times as
      // long, and the test should take seconds); the eleventh goes through createSession and must evict. Ids are
      // as after long use: from 2^56, SQLite's longest rowid varint, so that no row is smaller than in production.
      const insertUser = db.prepare('INSERT INTO service_auth_users (id, email, created_at) VALUES (?, ?, ?)');
      for (let u = 1; u <= maxUsers; u++) insertUser.run(u, `user${u}@example.test`, T0);
      const insertSession = db.prepare('INSERT INTO service_auth_sessions (id, token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)');
      let id = 2n ** 56n;
      for (let round = 0; round < sessionsPerUser(maxUsers); round++) {
        for (let u = 1; u <= maxUsers; u++) insertSession.run(id++, randomBytes(32), u, T0 + round, T0 + round + 365 * DAY);
      }
      for (let u = 1; u <= maxUsers; u++) store.createSession(u, 365, maxUsers, T0 + 10);
    })();
    expect(db.prepare('SELECT min(created_at) AS t FROM service_auth_sessions').get()).toEqual({ t: T0 + 1 });
    const rows = (db.prepare('SELECT count(*) AS n FROM service_auth_sessions').get() as { n: number }).n;
    expect(rows).toBe(maxUsers * MAX_SESSIONS_PER_USER);
    const bytes = (db.prepare("SELECT sum(pgsize) AS b FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'service_auth_sessions')").get() as { b: number }).b;
    const perRow = bytes / rows;
    console.log(`session table filled to the caps: ${rows} rows, ${bytes} bytes, ${perRow.toFixed(1)} bytes a row`);
    expect(perRow).toBeLessThanOrEqual(225);
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
    const s = store.createSession(userId, 2, 10, T0);
    expect(store.session(s.token, T0 + 2 * DAY - 1)).toMatchObject({ user: { id: userId, providers: ['github'] } });
    expect(store.session(s.token, T0 + 2 * DAY)).toBeNull();
  });

  it('prunes expired sessions, on each new session and when asked', () => {
    const { userId } = store.signIn('github', user('1', 'ada@example.test'), 10, T0) as { userId: number };
    const other = (store.signIn('github', user('2', 'bob@example.test'), 10, T0) as { userId: number }).userId;
    store.createSession(userId, 1, 10, T0);
    store.createSession(userId, 1, 10, T0);
    store.createSession(other, 30, 10, T0 + 2 * DAY);
    const count = () => (store.db.prepare('SELECT count(*) AS n FROM service_auth_sessions').get() as { n: number }).n;
    expect(count()).toBe(1);
    store.createSession(other, 1, 10, T0 + 3 * DAY);
    expect(store.prune(T0 + 10 * DAY)).toBe(1);
    expect(count()).toBe(1);
  });

  it('lowering sessionDays shortens live sessions; raising it does not lengthen them', () => {
    const { userId } = store.signIn('github', user('1', 'ada@example.test'), 10, T0) as { userId: number };
    const s = store.createSession(userId, 30, 10, T0);
    store.limitSessions(3);
    expect(store.session(s.token, T0 + 3 * DAY)).toBeNull();
    const t = store.createSession(userId, 3, 10, T0);
    store.limitSessions(30);
    expect(store.session(t.token, T0 + 3 * DAY)).toBeNull();
  });

  it('endAllSessionsAt ends sessions and keeps users', () => {
    const { userId } = store.signIn('github', user('1', 'ada@example.test'), 10, T0) as { userId: number };
    const s = store.createSession(userId, 30, 10, T0);
    SignInStore.endAllSessionsAt(join(dir, 'p.sqlite'));
    expect(store.session(s.token, T0)).toBeNull();
    expect(store.signIn('github', user('1', 'ada@example.test'), 10, T0)).toMatchObject({ userId, created: false });
  });
});
