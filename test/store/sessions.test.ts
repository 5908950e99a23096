/** Console sign-in in the store (store/sessions.ts): password hashes, sessions stored only as hashes, their expiry,
 * and a password set or changed ending the user's sessions. On both stores. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg, createUser, hashToken, setMembership } from '../../store/accounts';
import type { Store } from '../../store/db';
import { consoleSessions } from '../../store/schema';
import {
  changePassword, endSession, membershipsOf, openSession, passwordHashOf, SESSION_TTL_MS, sessionByToken, setPasswordHash, signInRecord,
} from '../../store/sessions';
import { openTestStore } from '../helpers/store';

let s: Store;
let now = Date.parse('2026-11-29T00:00:00Z');
let ada: number;
beforeAll(async () => {
  s = await openTestStore(':memory:', { clock: () => new Date(now) });
  ada = (await createUser(s, 'ada@acme.test')).id;
  await createUser(s, 'bob@acme.test');
  await createOrg(s, 'acme', 'free');
  await createOrg(s, 'globex', 'pro');
  await setMembership(s, 'globex', 'ada@acme.test', 'viewer');
  await setMembership(s, 'acme', 'ada@acme.test', 'admin');
});
afterAll(() => s.close());

describe('console sessions', () => {
  it('has no password for a new user, and one once set; an unknown user is 404', async () => {
    expect(await signInRecord(s, 'ada@acme.test')).toEqual({ userId: ada, email: 'ada@acme.test', passwordHash: null });
    expect(await signInRecord(s, 'nobody@acme.test')).toBeUndefined();
    await setPasswordHash(s, 'ada@acme.test', '$scrypt$one');
    expect(await passwordHashOf(s, ada)).toBe('$scrypt$one');
    await expect(setPasswordHash(s, 'nobody@acme.test', '$scrypt$x')).rejects.toMatchObject({ status: 404 });
  });

  it('stores a session only as its hash, finds it by its token until it expires, and ends it', async () => {
    const o = await openSession(s, ada);
    const rows = await s.db.select().from(consoleSessions);
    expect(rows.map((r) => r.hash)).toContain(hashToken(o.token));
    expect(JSON.stringify(rows)).not.toContain(o.token);
    expect(await sessionByToken(s, o.token)).toEqual({ principal: { userId: ada, email: 'ada@acme.test' }, csrf: o.csrf, expiresAt: o.expiresAt });
    expect(Date.parse(o.expiresAt) - now).toBe(SESSION_TTL_MS);
    now += SESSION_TTL_MS;
    expect(await sessionByToken(s, o.token)).toBeUndefined();
    const live = await openSession(s, ada);
    expect((await s.db.select().from(consoleSessions)).map((r) => r.hash)).not.toContain(hashToken(o.token));
    await endSession(s, live.token);
    expect(await sessionByToken(s, live.token)).toBeUndefined();
  });

  it('ends every session of the user, and no other user\'s, when the password is set or changed', async () => {
    const [a1, a2] = [await openSession(s, ada), await openSession(s, ada)];
    const bob = await openSession(s, (await signInRecord(s, 'bob@acme.test'))!.userId);
    expect(await setPasswordHash(s, 'ada@acme.test', '$scrypt$two')).toEqual({ sessionsEnded: 2 });
    expect(await sessionByToken(s, a1.token)).toBeUndefined();
    expect(await sessionByToken(s, a2.token)).toBeUndefined();
    const a3 = await openSession(s, ada);
    const fresh = await changePassword(s, ada, '$scrypt$three');
    expect(await passwordHashOf(s, ada)).toBe('$scrypt$three');
    expect(await sessionByToken(s, a3.token)).toBeUndefined();
    expect(await sessionByToken(s, fresh.token)).toMatchObject({ principal: { userId: ada } });
    expect(await sessionByToken(s, bob.token)).toMatchObject({ principal: { email: 'bob@acme.test' } });
  });

  it('lists the user\'s organizations with the role, by slug', async () => {
    expect(await membershipsOf(s, ada)).toEqual([{ slug: 'acme', plan: 'free', role: 'admin' }, { slug: 'globex', plan: 'pro', role: 'viewer' }]);
  });
});
