/** The API while PostgreSQL is gone (issue 22): 503 `store_unavailable` with Retry-After, never a 500 or a hang, and
 * no acknowledged write lost across the outage. */
import { connect, createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPgStore } from '../../store/db-pg';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';
import { startTestApi, type TestApi } from '../helpers/app';
import { until } from '../helpers/proc';

const missing = postgresMissing();

/** A read and a write answered while the store cannot be used: 503 store_unavailable with Retry-After, saying nothing
 * of the driver's reason. */
async function expectUnavailable(t: TestApi, projectName: string): Promise<void> {
  const read = await t.call('GET', '/v1/orgs/acme/projects');
  const write = await t.call('POST', '/v1/orgs/acme/projects', { body: { name: projectName } });
  for (const r of [read, write]) {
    expect(r.status).toBe(503);
    expect(r.body.code).toBe('store_unavailable');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(JSON.stringify(r.body)).not.toMatch(/ECONNREFUSED|ENOENT|\.s\.PGSQL|does not exist|stack/);
  }
}

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
      await expectUnavailable(t, 'during');
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await cluster.start();
    }
    expect((await t.call('GET', '/v1/orgs/acme/projects')).status).toBe(200);
  }, 60_000);

  // A server that answers but refuses the connection (the database renamed away here; a password rotated, a role
  // or pg_hba.conf line removed alike) is an unavailable store too, not a 500 on every request.
  it('answers 503 store_unavailable while the server refuses its connections, and works again once it accepts them', async () => {
    const database = new URL(await cluster.createDatabase()).pathname.slice(1);
    const own = await startTestApi({ store: await openPgStore(cluster.url(database)), plan: 'pro' });
    const admin = new pg.Client({ host: cluster.socketDir, user: 'hostplane', database: 'postgres' });
    await admin.connect();
    const rename = (from: string, to: string) => until(`${from} renamed`, async () => {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [from]);
      return admin.query(`ALTER DATABASE "${from}" RENAME TO "${to}"`).then(() => true, () => false);
    });
    try {
      expect((await own.call('GET', '/v1/orgs/acme/projects')).status).toBe(200);
      await rename(database, `${database}_away`);
      await expectUnavailable(own, 'refused');
      // The operator is told why, once for both answers.
      const told = own.logs.filter((l) => l.includes('requests answer 503 store_unavailable'));
      expect(told).toHaveLength(1);
      expect(told[0]).toContain(`database \\"${database}\\" does not exist`);
      await rename(`${database}_away`, database);
      expect((await own.call('GET', '/v1/orgs/acme/projects')).status).toBe(200);
    } finally {
      await admin.end();
      await own.close();
    }
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

/** A TCP relay to the cluster's socket that can stop relaying: a database host that hangs or a network that drops
 * packets, where nothing is refused and no connection ends. */
async function relay(socketDir: string): Promise<{ port: number; freeze: () => void; close: () => Promise<void> }> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(`${socketDir}/.s.PGSQL.5432`);
    for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
      sockets.add(from);
      from.on('data', (b) => {
        if (!frozen) to.write(b);
      });
      from.on('error', () => undefined);
      from.on('close', () => to.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    freeze: () => {
      frozen = true;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.skipIf(missing)(`the API on PostgreSQL while the database hangs${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it('answers 503 store_unavailable once a statement is not answered in time, on a connection it already held', async () => {
    const cluster = await startCluster();
    const database = new URL(await cluster.createDatabase()).pathname;
    const hung = await relay(cluster.socketDir);
    const t = await startTestApi({ store: await openPgStore(`postgres://hostplane@127.0.0.1:${hung.port}${database}`, { queryTimeoutMs: 1000 }), plan: 'pro' });
    try {
      // Pooled connections, idle and open, as a serving process holds them.
      expect((await t.call('GET', '/v1/orgs/acme/projects')).status).toBe(200);
      expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'before' } })).status).toBe(201);
      hung.freeze();
      const started = Date.now();
      await expectUnavailable(t, 'during');
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await t.close();
      await hung.close();
      await cluster.destroy();
    }
  }, 60_000);
});
