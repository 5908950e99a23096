/** The hostname store (spec 4.5, issue 9 item 1): a name held once across projects and orgs from the moment it is
 * added, idempotent re-adds, lifetimes and finalizers on delete, activation only from pending, expiry. */
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOrg } from '../../store/accounts';
import { type Store } from '../../store/db';
import { openTestStore } from '../helpers/store';
import { changesSince, latestSeq, listAudit } from '../../store/feed';
import { finalizersOf } from '../../store/finalizers';
import {
  activateHostname, addHostname, allHostnameKeys, deleteHostname, expireHostname, hostnameByName, listHostnames, listOrgHostnames, routableHostnames,
} from '../../store/hostnames';
import { createProject } from '../../store/projects';
import { hostnames } from '../../store/schema';

let s: Store;
let clock: Date;
let acme: { orgId: number; projectId: number; projectName: string };
let shop: { orgId: number; projectId: number; projectName: string };
let other: { orgId: number; projectId: number; projectName: string };

const project = async (orgId: number, name: string) => {
  const p = await createProject(s, { orgId, plan: 'free', limit: 3, name, database: false, hostname: `${name}.hostplane.test`, actor: 't' });
  return { orgId, projectId: p.id, projectName: name };
};
const add = (who: typeof acme, name: string) => addHostname(s, { ...who, name, actor: 'user:a@acme.test' });

beforeEach(async () => {
  clock = new Date('2026-11-26T10:00:00Z');
  s = await openTestStore(':memory:', { clock: () => clock });
  const a = await createOrg(s, 'acme', 'free');
  const g = await createOrg(s, 'globex', 'free');
  acme = await project(a.id, 'blog');
  shop = await project(a.id, 'shop');
  other = await project(g.id, 'site');
});
afterEach(() => s.close());

describe('listOrgHostnames', () => {
  it('pages the org\'s custom hostnames across its projects by name, with each one\'s project; no default hostname, none of another org', async () => {
    await add(shop, 'b.customer.test');
    await add(acme, 'c.customer.test');
    await add(acme, 'a.customer.test');
    await add(other, 'aa.globex.test');
    const first = await listOrgHostnames(s, acme.orgId, 2);
    expect(first.items.map((h) => [h.name, h.projectName])).toEqual([['a.customer.test', 'blog'], ['b.customer.test', 'shop']]);
    const second = await listOrgHostnames(s, acme.orgId, 2, first.nextCursor!);
    expect(second.items.map((h) => h.name)).toEqual(['c.customer.test']);
    expect(second.nextCursor).toBeNull();
  });
});

describe('addHostname', () => {
  it('holds the name at once as pending_dns with a token, records a change and audit hostname.add', async () => {
    const seq = await latestSeq(s);
    const { hostname, created } = await add(acme, 'www.customer.test');
    expect(created).toBe(true);
    expect(hostname).toMatchObject({ name: 'www.customer.test', kind: 'custom', status: 'pending_dns', generation: 1, verifiedAt: null });
    expect(hostname.token).toMatch(/^[0-9a-f]{32}$/);
    expect((await changesSince(s, seq)).map((c) => [c.kind, c.key])).toEqual([['hostname', 'www.customer.test']]);
    expect((await listAudit(s, acme.orgId, 10))[0]).toMatchObject({ event: 'hostname.add', target: 'www.customer.test', actor: 'user:a@acme.test' });
  });

  it('the same project again: the row unchanged (token, createdAt), no second audit record', async () => {
    const first = (await add(acme, 'www.customer.test')).hostname;
    clock = new Date(clock.getTime() + 60_000);
    const again = await add(acme, 'www.customer.test');
    expect(again.created).toBe(false);
    expect(again.hostname).toMatchObject({ token: first.token, createdAt: first.createdAt, uid: first.uid });
    expect((await listAudit(s, acme.orgId, 10)).filter((e) => e.event === 'hostname.add')).toHaveLength(1);
  });

  it.each([
    ['another project of the org', () => shop],
    ['a project of another org', () => other],
  ])('%s holding it: 409 hostname_taken', async (_what, who) => {
    await add(acme, 'taken.customer.test');
    await expect(add(who(), 'taken.customer.test')).rejects.toMatchObject({ status: 409, code: 'hostname_taken' });
  });

  it('another project\'s default hostname is taken too', async () => {
    await expect(add(other, 'blog.hostplane.test')).rejects.toMatchObject({ status: 409, code: 'hostname_taken' });
  });

  it('concurrent adds from two projects: one row, one success and one 409', async () => {
    const results = await Promise.allSettled([add(acme, 'race.customer.test'), add(other, 'race.customer.test')]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: 'hostname_taken' });
    expect(await s.db.select().from(hostnames).where(eq(hostnames.name, 'race.customer.test'))).toHaveLength(1);
  });

  it('concurrent adds from one project: one row, both answered it', async () => {
    const [a, b] = await Promise.all([add(acme, 'twice.customer.test'), add(acme, 'twice.customer.test')]);
    expect(a.hostname.uid).toBe(b.hostname.uid);
    expect([a.created, b.created].sort()).toEqual([false, true]);
  });

  it('concurrent adds of different names over the organization\'s quota: one gets the last slot, the others 409 quota_exceeded', async () => {
    const quota = { plan: 'free', limit: 2 };
    await addHostname(s, { ...acme, name: 'first.customer.test', actor: 't', quota });
    const names = ['a', 'b', 'c', 'd', 'e'].map((l) => `${l}.customer.test`);
    // Reads at once first, as a loaded server has: on PostgreSQL each write then starts on an open connection.
    await Promise.all(names.map(() => s.db.select().from(hostnames)));
    const results = await Promise.allSettled(names.map((name, i) => addHostname(s, { ...(i % 2 ? acme : shop), name, actor: 't', quota })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected')) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'quota_exceeded' });
    const held = await s.db.select().from(hostnames).where(eq(hostnames.kind, 'custom'));
    expect(held).toHaveLength(2);
  });
});

describe('deleteHostname', () => {
  it('frees the name at once and leaves a finalizer for the lifetime; another project may take it', async () => {
    const { hostname } = await add(acme, 'gone.customer.test');
    await deleteHostname(s, { ...acme, name: 'gone.customer.test', actor: 'user:a@acme.test' });
    expect(await finalizersOf(s, 'hostname', 'gone.customer.test')).toEqual([expect.objectContaining({ uid: hostname.uid, orgId: acme.orgId })]);
    const taken = await add(other, 'gone.customer.test');
    expect(taken.hostname.uid).not.toBe(hostname.uid);
    expect(await allHostnameKeys(s)).toContain('gone.customer.test');
    expect((await listAudit(s, acme.orgId, 10))[0]).toMatchObject({ event: 'hostname.delete', target: 'gone.customer.test' });
  });

  it('the default hostname is 400; another project\'s hostname is 404', async () => {
    await expect(deleteHostname(s, { ...acme, name: 'blog.hostplane.test', actor: 't' })).rejects.toMatchObject({ status: 400, code: 'bad_request' });
    await add(acme, 'mine.customer.test');
    await expect(deleteHostname(s, { ...shop, name: 'mine.customer.test', actor: 't' })).rejects.toMatchObject({ status: 404 });
  });
});

describe('activation and expiry', () => {
  it('activates only the pending lifetime it judged, once, with a generation and an audit record by system', async () => {
    const { hostname } = await add(acme, 'act.customer.test');
    expect(await activateHostname(s, { name: 'act.customer.test', uid: 'another-lifetime', proof: 'txt' })).toBe(false);
    expect(await activateHostname(s, { name: 'act.customer.test', uid: hostname.uid, proof: 'cname' })).toBe(true);
    expect(await activateHostname(s, { name: 'act.customer.test', uid: hostname.uid, proof: 'cname' })).toBe(false);
    expect(await hostnameByName(s, 'act.customer.test')).toMatchObject({ status: 'active', proof: 'cname', generation: 2, verifiedAt: '2026-11-26T10:00:00Z' });
    expect((await listAudit(s, acme.orgId, 10))[0]).toMatchObject({ event: 'hostname.activate', actor: 'system', details: { proof: 'cname' } });
    expect(await routableHostnames(s, acme.projectId)).toEqual(['act.customer.test', 'blog.hostplane.test']);
  });

  it('expires a pending row (with its finalizer), never an active one', async () => {
    const p = (await add(acme, 'squat.customer.test')).hostname;
    const a = (await add(acme, 'kept.customer.test')).hostname;
    await activateHostname(s, { name: a.name, uid: a.uid, proof: 'txt' });
    expect(await expireHostname(s, { name: a.name, uid: a.uid })).toBe(false);
    expect(await expireHostname(s, { name: p.name, uid: p.uid })).toBe(true);
    expect(await hostnameByName(s, p.name)).toBeUndefined();
    expect(await finalizersOf(s, 'hostname', p.name)).toHaveLength(1);
    expect((await listAudit(s, acme.orgId, 10))[0]).toMatchObject({ event: 'hostname.expire', actor: 'system' });
  });
});

it('lists the default hostname with the custom ones, by name, in pages', async () => {
  await add(acme, 'a.customer.test');
  await add(acme, 'z.customer.test');
  const first = await listHostnames(s, acme.projectId, 2);
  expect(first.items.map((h) => [h.name, h.kind])).toEqual([['a.customer.test', 'custom'], ['blog.hostplane.test', 'default']]);
  const second = await listHostnames(s, acme.projectId, 2, first.nextCursor!);
  expect(second).toMatchObject({ items: [expect.objectContaining({ name: 'z.customer.test' })], nextCursor: null });
});
