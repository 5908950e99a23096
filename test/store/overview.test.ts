/** The console's organization overview in the store (store/overview.ts): each zone, custom hostname, domain and
 * project of one organization with its stored status, those plainly ready (observed, every condition True) only counted; another organization's are not there. Both stores. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgBySlug } from '../../store/accounts';
import { HOSTNAME_STATUS } from '../../store/hostnames';
import { orgOverview } from '../../store/overview';
import { hostnames, projects, zones } from '../../store/schema';
import { recordStatus } from '../../store/status';
import { ZONE_STATUS } from '../../store/zones';
import { startTestApi, type TestApi } from '../helpers/app';

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi();
  for (const name of ['zone-a.test', 'zone-b.test']) expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } })).status).toBeLessThan(300);
  expect((await t.call('POST', '/v1/orgs/globex/dns/zones', { token: t.other.token, body: { name: 'globex-zone.test' } })).status).toBeLessThan(300);
  for (const name of ['blog', 'shop']) expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name } })).status).toBeLessThan(300);
  expect((await t.call('POST', '/v1/orgs/acme/projects/blog/hostnames', { body: { name: 'www.customer.example' } })).status).toBeLessThan(300);
}, 60_000);
afterAll(async () => { await t.close(); });

describe('orgOverview', () => {
  it('lists the organization\'s zones, custom hostnames and projects, with the status recorded for each', async () => {
    const [zone] = await t.store.db.select().from(zones).where(eq(zones.name, 'zone-a.test'));
    await recordStatus(t.store, ZONE_STATUS, 'zone-a.test', {
      uid: zone!.uid, generation: zone!.generation, set: [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', message: 'refused' }],
    });
    const [host] = await t.store.db.select().from(hostnames).where(eq(hostnames.name, 'www.customer.example'));
    await recordStatus(t.store, HOSTNAME_STATUS, 'www.customer.example', { uid: host!.uid, generation: host!.generation, set: [{ type: 'Ready', status: 'True', reason: 'Active', message: 'routed' }] });
    // A status of another lifetime of the name is not this resource's.
    await recordStatus(t.store, ZONE_STATUS, 'zone-b.test', { uid: 'an-older-lifetime', generation: 9, set: [{ type: 'Ready', status: 'True', reason: 'Served', message: '' }] });
    await t.store.write(async (tx) => { await tx.update(projects).set({ deletingSince: '2026-11-29T00:00:00.000Z' }).where(eq(projects.name, 'shop')); });

    const { items, ready } = await orgOverview(t.store, (await orgBySlug(t.store, 'acme'))!.id);
    const by = Object.fromEntries(items.map((i) => [`${i.kind}:${i.name}`, i]));
    // The hostname is observed at its generation with every condition True: counted as ready, not read.
    expect(Object.keys(by).sort()).toEqual(['project:blog', 'project:shop', 'zone:zone-a.test', 'zone:zone-b.test']);
    expect(ready).toEqual({ zone: 0, hostname: 1, domain: 0, project: 0 });
    expect(by['zone:zone-a.test']).toMatchObject({ observedGeneration: zone!.generation, conditions: [{ type: 'Ready', status: 'False', reason: 'ApplyFailed' }], deletingSince: null });
    expect(by['zone:zone-b.test']).toMatchObject({ observedGeneration: null, conditions: [] });
    expect(by['project:shop']!.deletingSince).toBe('2026-11-29T00:00:00.000Z');
    expect(by['project:blog']!.deletingSince).toBeNull();
  });

  it('reads a resource that is not plainly ready: a condition not True beside True ones, or observed at an older generation', async () => {
    const [zone] = await t.store.db.select().from(zones).where(eq(zones.name, 'zone-a.test'));
    const acme = (await orgBySlug(t.store, 'acme'))!.id;
    const names = async () => (await orgOverview(t.store, acme)).items.filter((i) => i.kind === 'zone').map((i) => i.name);
    await recordStatus(t.store, ZONE_STATUS, 'zone-a.test', { uid: zone!.uid, generation: zone!.generation, set: [{ type: 'Ready', status: 'True', reason: 'Served', message: '' }] });
    expect(await names()).toEqual(['zone-b.test']);
    await recordStatus(t.store, ZONE_STATUS, 'zone-a.test', {
      uid: zone!.uid, generation: zone!.generation, set: [{ type: 'Delegated', status: 'Unknown', reason: 'WaitingForParent', message: '' }],
    });
    expect(await names()).toEqual(['zone-a.test', 'zone-b.test']);
    await recordStatus(t.store, ZONE_STATUS, 'zone-a.test', { uid: zone!.uid, generation: zone!.generation - 1, set: [], drop: ['Delegated'] });
    expect(await names()).toEqual(['zone-a.test', 'zone-b.test']);
    expect((await orgOverview(t.store, acme)).ready.zone).toBe(0);
  });
});
