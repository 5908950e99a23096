/** The leader lease and fencing in the store (issue 23 items 1 and 2), on both stores: election by the database's
 * clock, renewal, expiry, resignation, a restart taking its own lease back, and a stale term's writes refused. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../store/db';
import { bid, FencedError, fencedStore, leadershipStatus, readLease, renew, resign, withTerm } from '../../store/leader';
import { orgs } from '../../store/schema';
import { until } from '../helpers/proc';
import { onPostgres, openTestStore } from '../helpers/store';

const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});
const fresh = async (): Promise<Store> => {
  const s = await openTestStore();
  stores.push(s);
  return s;
};
const A = { holder: 'host-a:/srv/a', url: 'http://10.0.0.1:8080' };
const B = { holder: 'host-b:/srv/b', url: 'http://10.0.0.2:8080' };
/** Long enough never to pass during a test, unless the test waits for it. */
const LONG = 60_000;
const leaseToPass = (s: Store) => until('the lease to pass', async () => {
  const l = await readLease(s);
  return l!.expiresMs <= l!.nowMs;
});
const SHORT = 300;

describe('the leader lease', () => {
  it('goes to the first bidder with term 1; another bidder loses while it is live and is told who holds it', async () => {
    const s = await fresh();
    const a = await bid(s, A, LONG);
    expect(a.won).toBe(true);
    expect(a.lease).toMatchObject({ term: 1, holder: A.holder, url: A.url });
    expect(a.lease!.expiresMs - a.lease!.renewedMs).toBe(LONG);
    const b = await bid(s, B, LONG);
    expect(b.won).toBe(false);
    expect(b.lease).toMatchObject({ term: 1, holder: A.holder });
    expect(b.lease!.expiresMs).toBeGreaterThan(b.lease!.nowMs);
  });

  it('is extended by a renewal of its term only', async () => {
    const s = await fresh();
    await bid(s, A, SHORT);
    expect(await renew(s, A, 1, LONG)).toBe(true);
    const l = await readLease(s);
    expect(l!.expiresMs - l!.nowMs).toBeGreaterThan(LONG - 5_000);
    expect(await renew(s, A, 2, LONG)).toBe(false);
    expect(await renew(s, B, 1, LONG)).toBe(false);
  });

  it('passes to another bidder with a higher term once it expires, and the old term can no longer renew', async () => {
    const s = await fresh();
    await bid(s, A, SHORT);
    await leaseToPass(s);
    expect(await bid(s, B, LONG)).toMatchObject({ won: true, lease: { term: 2, holder: B.holder, url: B.url } });
    expect(await renew(s, A, 1, LONG)).toBe(false);
    expect((await readLease(s))!.holder).toBe(B.holder);
  });

  it('passes at once when its holder resigns', async () => {
    const s = await fresh();
    await bid(s, A, LONG);
    await resign(s, 1);
    expect((await leadershipStatus(s)).leader).toBeNull();
    expect(await bid(s, B, LONG)).toMatchObject({ won: true, lease: { term: 2 } });
    // A late resignation of an old term ends nothing.
    await resign(s, 1);
    expect((await leadershipStatus(s)).leader).toMatchObject({ term: 2, url: B.url });
  });

  it('is taken back at once, with a new term, by a process restarted on its holder (data dir) before it passes', async () => {
    const s = await fresh();
    await bid(s, A, LONG);
    expect(await bid(s, A, LONG)).toMatchObject({ won: true, lease: { term: 2 } });
    expect(await renew(s, A, 1, LONG)).toBe(false);
  });

  it('is taken at once, with a new term, by a sole candidate (SQLite\'s data dir lock admits no other) under another name', async () => {
    const s = await fresh();
    await bid(s, A, LONG);
    // The data dir's last process, on a host (a rescheduled container) whose name this one does not share.
    expect(await bid(s, { ...B, sole: true }, LONG)).toMatchObject({ won: true, lease: { term: 2, holder: B.holder } });
    expect(await renew(s, A, 1, LONG)).toBe(false);
    expect(await bid(s, A, LONG)).toMatchObject({ won: false, lease: { holder: B.holder } });
  });

  it('shows in admin status: the leader with term and since, and every process with its last heartbeat', async () => {
    const s = await fresh();
    await bid(s, A, LONG, 41);
    await bid(s, B, LONG, 52);
    const st = await leadershipStatus(s);
    expect(st.leader).toMatchObject({ url: A.url, term: 1 });
    expect(Date.parse(st.leader!.since)).toBeGreaterThan(Date.now() - 60_000);
    expect(st.processes.map((p) => [p.holder, p.url, p.pid, p.leader])).toEqual([[A.holder, A.url, 41, true], [B.holder, B.url, 52, false]]);
    const before = Date.parse(st.processes[1]!.heartbeatAt);
    await until('a later heartbeat', async () => {
      await renew(s, B, 1, LONG, 52);
      return Date.parse((await leadershipStatus(s)).processes[1]!.heartbeatAt) > before;
    });
  });
});

describe('fencing', () => {
  const addOrg = (s: Store, slug: string) => s.write(async (tx) => {
    await tx.insert(orgs).values({ slug, plan: 'free', createdAt: '2026-11-29T00:00:00Z' });
  });
  const slugs = async (s: Store): Promise<string[]> => (await s.db.select({ slug: orgs.slug }).from(orgs)).map((o) => o.slug);
  const fenced = async (): Promise<Store> => fencedStore(await fresh());

  it('lets a write of the live term land, and refuses one of a superseded term in its own transaction', async () => {
    const s = await fenced();
    await bid(s, A, SHORT);
    await withTerm(1, () => addOrg(s, 'of-term-1'));
    await leaseToPass(s);
    await bid(s, B, LONG);
    await withTerm(2, () => addOrg(s, 'of-term-2'));
    const late = await withTerm(1, () => addOrg(s, 'late-of-term-1')).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(FencedError);
    expect(late).toMatchObject({ status: 503, code: 'not_leader', term: 1 });
    expect((await slugs(s)).sort()).toEqual(['of-term-1', 'of-term-2']);
  });

  it('refuses a write of a term whose lease passed even when nobody took it over, and one of a resigned term', async () => {
    const s = await fenced();
    await bid(s, A, SHORT);
    await leaseToPass(s);
    await expect(withTerm(1, () => addOrg(s, 'expired'))).rejects.toBeInstanceOf(FencedError);
    await bid(s, A, LONG);
    await resign(s, 2);
    await expect(withTerm(2, () => addOrg(s, 'resigned'))).rejects.toBeInstanceOf(FencedError);
    expect(await slugs(s)).toEqual([]);
  });

  it('leaves writes outside a term (API requests) alone, on a follower too', async () => {
    const s = await fenced();
    await bid(s, B, LONG);
    await addOrg(s, 'from-the-api');
    expect(await slugs(s)).toEqual(['from-the-api']);
  });

  it.skipIf(!onPostgres())('PostgreSQL: a successor waits for the old term\'s open write, which a pause of 5 s ends unlanded', async () => {
    const s = await fenced();
    await bid(s, A, SHORT);
    let open!: () => void;
    const gate = new Promise<void>((r) => { open = r; });
    let fencedIn = false;
    // The write of a leader frozen mid-transaction: fenced, then nothing until the test lets it go on.
    const paused = withTerm(1, () => s.write(async (tx) => {
      await tx.insert(orgs).values({ slug: 'paused', plan: 'free', createdAt: '2026-11-29T00:00:00Z' });
      fencedIn = true;
      await gate;
      await tx.insert(orgs).values({ slug: 'paused-2', plan: 'free', createdAt: '2026-11-29T00:00:00Z' });
    })).catch((e: unknown) => e);
    await until('the paused write to hold the lease row', () => fencedIn);
    await leaseToPass(s);
    const started = Date.now();
    expect(await bid(s, B, LONG)).toMatchObject({ won: true, lease: { term: 2 } });
    expect(Date.now() - started).toBeLessThan(10_000);
    open();
    expect(await paused).toBeInstanceOf(Error);
    expect(await slugs(s)).toEqual([]);
  }, 30_000);
});
