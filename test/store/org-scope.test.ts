/** Which organizations changes concern (store/org-scope.ts), for the console's waits scoped to one: each kind's key is
 * told by its row, and a change that cannot be told concerns any. Both stores. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgBySlug } from '../../store/accounts';
import { orgsConcerned } from '../../store/org-scope';
import { projects } from '../../store/schema';
import { startTestApi, type TestApi } from '../helpers/app';

let t: TestApi;
let acme: number;
let globex: number;
let blog: string;
beforeAll(async () => {
  t = await startTestApi();
  acme = (await orgBySlug(t.store, 'acme'))!.id;
  globex = (await orgBySlug(t.store, 'globex'))!.id;
  expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'acme-zone.test' } })).status).toBe(200);
  expect((await t.call('POST', '/v1/orgs/globex/dns/zones', { token: t.other.token, body: { name: 'globex-zone.test' } })).status).toBe(200);
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blog' } })).status).toBe(201);
  for (const name of ['www.kept.example', 'www.gone.example']) expect((await t.call('POST', '/v1/orgs/acme/projects/blog/hostnames', { body: { name } })).status).toBe(200);
  expect((await t.call('DELETE', '/v1/orgs/acme/projects/blog/hostnames/www.gone.example')).status).toBeLessThan(300);
  blog = String((await t.store.db.select({ id: projects.id }).from(projects).where(eq(projects.name, 'blog')))[0]!.id);
}, 60_000);
afterAll(async () => { await t.close(); });

describe('orgsConcerned', () => {
  it('tells the organization of zones, hostnames (a deleted one by its cleanup), and projects, secrets and storage by project', async () => {
    expect(await orgsConcerned(t.store, [{ kind: 'zone', key: 'acme-zone.test' }])).toEqual(new Set([acme]));
    expect(await orgsConcerned(t.store, [{ kind: 'zone', key: 'globex-zone.test' }, { kind: 'zone', key: 'acme-zone.test' }])).toEqual(new Set([acme, globex]));
    expect(await orgsConcerned(t.store, [{ kind: 'hostname', key: 'www.kept.example' }, { kind: 'hostname', key: 'www.gone.example' }])).toEqual(new Set([acme]));
    for (const kind of ['project', 'secret', 'storage']) expect(await orgsConcerned(t.store, [{ kind, key: blog }]), kind).toEqual(new Set([acme]));
  });

  it('answers any for what it cannot tell: a resource gone, a kind it does not tell apart, a node running no project', async () => {
    expect(await orgsConcerned(t.store, [{ kind: 'zone', key: 'acme-zone.test' }, { kind: 'zone', key: 'deleted.test' }])).toBe('any');
    expect(await orgsConcerned(t.store, [{ kind: 'placement', key: 'node-1' }])).toBe('any');
    expect(await orgsConcerned(t.store, [{ kind: 'node', key: 'node-1' }])).toBe('any');
    expect(await orgsConcerned(t.store, [{ kind: 'project', key: 'not-an-id' }])).toBe('any');
    expect(await orgsConcerned(t.store, [])).toEqual(new Set());
  });
});
