/** The API while PostgreSQL is gone (issue 22): 503 `store_unavailable` with Retry-After, never a 500 or a hang, and
 * no acknowledged write lost across the outage. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPgStore } from '../../store/db-pg';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';
import { startTestApi, type TestApi } from '../helpers/app';

const missing = postgresMissing();

describe.skipIf(missing)(`the API on PostgreSQL while the database is away${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let cluster: Cluster;
  let t: TestApi;
  beforeAll(async () => {
    cluster = await startCluster();
    t = await startTestApi({ store: await openPgStore(await cluster.createDatabase()), plan: 'pro' });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await cluster?.destroy();
  });

  it('answers 503 store_unavailable with Retry-After while it is stopped, and works again once it is back', async () => {
    await cluster.stop();
    try {
      const started = Date.now();
      const read = await t.call('GET', '/v1/orgs/acme/projects');
      const write = await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'during' } });
      for (const r of [read, write]) {
        expect(r.status).toBe(503);
        expect(r.body.code).toBe('store_unavailable');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(JSON.stringify(r.body)).not.toMatch(/ECONNREFUSED|ENOENT|\.s\.PGSQL|stack/);
      }
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await cluster.start();
    }
    expect((await t.call('GET', '/v1/orgs/acme/projects')).status).toBe(200);
  }, 60_000);

  it('loses no acknowledged write when the server stops under write load', async () => {
    const acknowledged: string[] = [];
    let done = false;
    let i = 0;
    const writer = async (): Promise<void> => {
      while (!done) {
        const name = `load-${i++}`;
        const r = await t.call('POST', '/v1/orgs/acme/projects', { body: { name } }).catch(() => undefined);
        if (r?.status === 201) acknowledged.push(name);
        else if (r) expect([503, 409]).toContain(r.status);
      }
    };
    const load = Promise.all([writer(), writer(), writer()]);
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThanOrEqual(3), { timeout: 20_000 });
    const stopAt = acknowledged.length;
    await cluster.stop();
    // The outage's length, not an ordering: writes meet a database that is gone for a while.
    await new Promise((r) => setTimeout(r, 1500));
    await cluster.start();
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThanOrEqual(stopAt + 3), { timeout: 20_000 });
    done = true;
    await load;
    expect(stopAt).toBeGreaterThan(0);
    const listed = new Set<string>();
    let cursor: string | undefined;
    do {
      const r = await t.call('GET', `/v1/orgs/acme/projects?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      for (const p of r.body.items as { name: string }[]) listed.add(p.name);
      cursor = r.body.nextCursor ?? undefined;
    } while (cursor);
    expect(acknowledged.filter((n) => !listed.has(n))).toEqual([]);
  }, 60_000);
});
