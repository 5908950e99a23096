/** Projects (spec 4.8, CONTRACT.md): create, read, list, and every conflict createProject can answer. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { orgBySlug, registerNode } from '../../store/accounts';
import { finalizeProject, setPlacement } from '../../store/projects';
import { projects } from '../../store/schema';
import { bundleReconciler } from '../../reconcilers/bundles';
import { and, eq } from 'drizzle-orm';
import { DEFAULT_PLANS } from '../../rules/plans';
import { startTestApi, type TestApi, type TestApiOptions } from '../helpers/app';
import { openTestStore } from '../helpers/store';
import { onChanges } from '../../store/feed';
import type { Store } from '../../store/db';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const P = '/v1/orgs/acme/projects';

/** Each test that needs a fresh org gets its own API, closed after the test. */
const opened: TestApi[] = [];
async function fresh(opts: TestApiOptions = {}): Promise<TestApi> {
  const t = await startTestApi(opts);
  opened.push(t);
  return t;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()));
});
const getProjectId = async (t: TestApi, name: string) =>
  (await t.store.db.select({ id: projects.id }).from(projects).where(and(eq(projects.orgId, (await orgBySlug(t.store, 'acme'))!.id), eq(projects.name, name))))[0]?.id;

describe('createProject', () => {
  it('answers 201 with exactly the Project fields and the default hostname <project>.<appDomain>', async () => {
    const t = await fresh({ config: { appDomain: 'apps.example.net' } });
    const before = Date.now();
    const r = await t.call('POST', P, { token: t.tokens.member, body: { name: 'blog' } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(['createdAt', 'database', 'deletingSince', 'hostname', 'name']);
    expect(r.body).toMatchObject({ name: 'blog', hostname: 'blog.apps.example.net', database: false });
    expect(r.body.createdAt).toMatch(RFC3339_UTC);
    expect(Date.parse(r.body.createdAt)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('location')).toBe('/v1/orgs/acme/projects/blog');
    expect((await t.call('GET', r.headers.get('location')!, { token: t.tokens.member })).body).toMatchObject({ name: 'blog' });
  });

  it('records the database flag, default false', async () => {
    const t = await fresh();
    expect((await t.call('POST', P, { body: { name: 'with-db', database: true } })).body.database).toBe(true);
    expect((await t.call('POST', P, { body: { name: 'no-db', database: false } })).body.database).toBe(false);
    expect((await t.call('GET', `${P}/with-db`)).body.database).toBe(true);
    expect((await t.call('GET', `${P}/no-db`)).body.database).toBe(false);
  });

  it('a second project of the same name in the org is 409 project_name_taken', async () => {
    const t = await fresh();
    expect((await t.call('POST', P, { body: { name: 'blog' } })).status).toBe(201);
    const r = await t.call('POST', P, { body: { name: 'blog', database: true } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('project_name_taken');
    const list = await t.call('GET', P);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0].database).toBe(false);
  });

  it('the same name in another org is 409 hostname_taken: default hostnames are global', async () => {
    const t = await fresh();
    expect((await t.call('POST', '/v1/orgs/globex/projects', { token: t.other.token, body: { name: 'shop' } })).status).toBe(201);
    const r = await t.call('POST', P, { body: { name: 'shop' } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('hostname_taken');
    expect((await t.call('GET', `${P}/shop`)).status).toBe(404);
  });

  it('the plan\'s limit (free: 3) gives 409 project_limit with details {limit, count, plan}', async () => {
    const t = await fresh();
    for (const name of ['one', 'two', 'three']) expect((await t.call('POST', P, { body: { name } })).status).toBe(201);
    const r = await t.call('POST', P, { body: { name: 'four' } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('project_limit');
    expect(r.body.details).toEqual({ limit: 3, count: 3, plan: 'free' });
    expect((await t.call('GET', P)).body.items).toHaveLength(3);
  });

  it('the limit follows the configured plans', async () => {
    const t = await fresh({ plan: 'pro', config: { plans: { ...DEFAULT_PLANS, pro: { ...DEFAULT_PLANS.pro!, projects: 1 } } } });
    expect((await t.call('POST', P, { body: { name: 'one' } })).status).toBe(201);
    const r = await t.call('POST', P, { body: { name: 'two' } });
    expect(r.status).toBe(409);
    expect(r.body.details).toEqual({ limit: 1, count: 1, plan: 'pro' });
  });

  it('refused creations do not count against the limit', async () => {
    const t = await fresh();
    expect((await t.call('POST', P, { body: { name: 'one' } })).status).toBe(201);
    for (let i = 0; i < 4; i++) expect((await t.call('POST', P, { body: { name: 'one' } })).status).toBe(409);
    expect((await t.call('POST', P, { body: { name: 'Bad' } })).status).toBe(400);
    expect((await t.call('POST', P, { body: { name: 'two' } })).status).toBe(201);
    expect((await t.call('POST', P, { body: { name: 'three' } })).status).toBe(201);
  });

  it('20 parallel creations against a limit of 3 give exactly 3 × 201 and 17 × 409 project_limit', async () => {
    const t = await fresh();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.call('POST', P, { token: i % 2 ? t.tokens.member : t.tokens.admin, body: { name: `p${i}` } })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 409)).toHaveLength(17);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.body).toEqual({ code: 'project_limit', message: expect.any(String), details: { limit: 3, count: 3, plan: 'free' }, requestId: expect.any(String) });
    }
    const list = await t.call('GET', P);
    expect(list.body.items).toHaveLength(3);
  });

  describe('names are DNS labels', () => {
    let t: TestApi;
    beforeAll(async () => { t = await startTestApi({ plan: 'pro' }); });
    afterAll(async () => { await t.close(); });

    const good = ['a', '0', 'a-b', 'x--y', '9lives', 'a'.repeat(63), 'abc123'];
    it.each(good)('%s is accepted', async (name) => {
      const r = await t.call('POST', P, { body: { name } });
      expect(r.status).toBe(201);
      expect(r.body.hostname).toBe(`${name}.hostplane.test`);
    });

    const bad = ['', 'Blog', 'BLOG', '-blog', 'blog-', 'a_b', 'a.b', 'a b', ' blog', 'blog ', 'blög', 'a'.repeat(64), 'blog\n', '*', 'a/b'];
    it.each(bad.map((n) => [JSON.stringify(n), n]))('%s is 400 bad_request with details.issues', async (_label, name) => {
      const r = await t.call('POST', P, { body: { name } });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('bad_request');
      expect(r.body.details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'body.name', message: expect.any(String) })]));
    });

    const badBodies: [string, unknown][] = [
      ['missing name', {}],
      ['name not a string', { name: 42 }],
      ['database not a boolean', { name: 'okname', database: 'yes' }],
      ['unknown field', { name: 'okname2', color: 'red' }],
    ];
    it.each(badBodies)('%s is 400 bad_request with details.issues', async (_label, body) => {
      const r = await t.call('POST', P, { body });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('bad_request');
      expect(Array.isArray(r.body.details.issues)).toBe(true);
      expect(r.body.details.issues.length).toBeGreaterThan(0);
    });

    it('none of the refused names was created', async () => {
      const names: string[] = [];
      let cursor: string | null = null;
      do {
        const r = await t.call('GET', `${P}?limit=1000${cursor ? `&cursor=${cursor}` : ''}`);
        names.push(...(r.body.items as { name: string }[]).map((p) => p.name));
        cursor = r.body.nextCursor;
      } while (cursor);
      expect(names.sort()).toEqual([...good].sort());
    });
  });
});

describe('getProject', () => {
  it('returns the ProjectDetail: hostnames, grants and no placements until one is set', async () => {
    const t = await fresh();
    await t.call('POST', P, { body: { name: 'blog', database: true } });
    const r = await t.call('GET', `${P}/blog`, { token: t.tokens.viewer });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['cleanup', 'createdAt', 'database', 'deletingSince', 'grants', 'hostname', 'hostnames', 'name', 'placements']);
    expect(r.body).toMatchObject({
      name: 'blog',
      hostname: 'blog.hostplane.test',
      database: true,
      hostnames: [{ name: 'blog.hostplane.test', kind: 'default', status: expect.any(String) }],
      grants: { auth: false, storage: false },
      placements: [],
    });
    expect(r.body.createdAt).toMatch(RFC3339_UTC);

    // Placements come from the operator (CLI) or a deploy, never from createProject.
    const org = await orgBySlug(t.store, 'acme');
    await registerNode(t.store, 'node-1');
    await setPlacement(t.store, org!.id, 'blog', 'node-1');
    const after = await t.call('GET', `${P}/blog`);
    // No bundle built and no report yet: not applied.
    expect(after.body.placements).toEqual([{ nodeId: 'node-1', createdAt: expect.stringMatching(RFC3339_UTC), version: null, appliedVersion: null, applied: false, failure: null, reportedAt: null }]);
  });

  it('a project that does not exist is 404 not_found', async () => {
    const t = await fresh();
    const r = await t.call('GET', `${P}/ghost`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });
});

describe('listProjects paging', () => {
  const NAMES = ['delta', 'alpha', 'echo', 'charlie', 'bravo'];
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi({ plan: 'pro' });
    for (const name of NAMES) expect((await t.call('POST', P, { body: { name } })).status).toBe(201);
    // Another org's projects never show up in acme's pages.
    await t.call('POST', '/v1/orgs/globex/projects', { token: t.other.token, body: { name: 'zulu' } });
  });
  afterAll(async () => { await t.close(); });

  async function walk(limit: number): Promise<{ pages: string[][]; last: unknown }> {
    const pages: string[][] = [];
    let cursor: string | null = null;
    let last: unknown;
    for (let i = 0; i < 20; i++) {
      const r = await t.call('GET', `${P}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: t.tokens.viewer });
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(['items', 'nextCursor']);
      pages.push((r.body.items as { name: string }[]).map((p) => p.name));
      cursor = r.body.nextCursor;
      last = r.body.nextCursor;
      if (cursor === null) break;
    }
    return { pages, last };
  }

  it.each([1, 2, 3, 4, 5, 6, 1000])('limit=%i: following nextCursor yields every project once, by name, and ends with null', async (limit) => {
    const { pages, last } = await walk(limit);
    expect(last).toBeNull();
    expect(pages.flat()).toEqual([...NAMES].sort());
    expect(pages).toHaveLength(Math.ceil(NAMES.length / limit));
    for (const p of pages) expect(p.length).toBeGreaterThan(0);
    for (const p of pages.slice(0, -1)) expect(p).toHaveLength(limit);
  });

  it('limit=2 over 5 projects: pages of 2, 2, 1 and nextCursor null on the last', async () => {
    const { pages } = await walk(2);
    expect(pages).toEqual([['alpha', 'bravo'], ['charlie', 'delta'], ['echo']]);
  });

  it('without a limit all projects come on one page with nextCursor null', async () => {
    const r = await t.call('GET', P);
    expect(r.body.items.map((p: { name: string }) => p.name)).toEqual([...NAMES].sort());
    expect(r.body.nextCursor).toBeNull();
    for (const item of r.body.items) expect(Object.keys(item).sort()).toEqual(['createdAt', 'database', 'deletingSince', 'hostname', 'name']);
  });

  it('a project created between pages appears on a later page, nothing is dropped', async () => {
    const first = await t.call('GET', `${P}?limit=2`);
    expect(first.body.items.map((p: { name: string }) => p.name)).toEqual(['alpha', 'bravo']);
    await t.call('POST', P, { body: { name: 'bravo-two' } });
    const names: string[] = ['alpha', 'bravo'];
    let cursor: string | null = first.body.nextCursor;
    while (cursor) {
      const r = await t.call('GET', `${P}?limit=2&cursor=${encodeURIComponent(cursor)}`);
      names.push(...r.body.items.map((p: { name: string }) => p.name));
      cursor = r.body.nextCursor;
    }
    expect(names).toEqual([...NAMES, 'bravo-two'].sort());
  });

  it.each(['limit=0', 'limit=1001', 'limit=abc', 'limit=-1', 'limit=1.5', 'cursor=%21%21'])('?%s is 400 bad_request', async (q) => {
    const r = await t.call('GET', `${P}?${q}`);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
  });
});

describe('deleteProject (beyond the spec)', () => {
  const audited = async (t: TestApi) => ((await t.call('GET', '/v1/orgs/acme/audit')).body.items as { event: string; actor: string; target: string }[])
    .filter((a) => a.event === 'project.delete');

  it.each([
    ['viewer', 403, 'forbidden'],
    ['member', 403, 'forbidden'],
    ['stranger', 404, 'not_found'],
    ['globex admin', 404, 'not_found'],
    ['admin', 204, null],
  ] as const)('%s: %i', async (who, status, code) => {
    const t = await fresh();
    await t.call('POST', P, { body: { name: 'blog' } });
    const r = await t.call('DELETE', `${P}/blog`, { token: who === 'globex admin' ? t.other.token : t.tokens[who] });
    expect(r.status).toBe(status);
    if (code) expect(r.body.code).toBe(code);
    expect((await t.call('GET', `${P}/blog`)).status).toBe(status === 204 ? 404 : 200);
  });

  it('another org\'s project reads as 404 under this org, and stays', async () => {
    const t = await fresh();
    await t.call('POST', '/v1/orgs/globex/projects', { token: t.other.token, body: { name: 'shop' } });
    expect((await t.call('DELETE', `${P}/shop`)).status).toBe(404);
    expect((await t.call('GET', '/v1/orgs/globex/projects/shop', { token: t.other.token })).status).toBe(200);
  });

  it('a project nothing outside the store holds is gone at once: 204, audited, its name and plan slot free', async () => {
    const t = await fresh();
    for (const name of ['one', 'two', 'three']) expect((await t.call('POST', P, { body: { name } })).status).toBe(201);
    expect((await t.call('DELETE', `${P}/two`)).status).toBe(204);
    expect(await audited(t)).toEqual([expect.objectContaining({ actor: 'user:admin@acme.test', target: 'two' })]);
    expect((await t.call('GET', `${P}/two`)).status).toBe(404);
    expect((await t.call('DELETE', `${P}/two`)).status).toBe(404);
    expect((await t.call('POST', P, { body: { name: 'four' } })).status).toBe(201);
    expect((await t.call('POST', P, { body: { name: 'five' } })).body.code).toBe('project_limit');
    await t.call('DELETE', `${P}/four`);
    expect((await t.call('POST', P, { body: { name: 'two' } })).status).toBe(201);
  });

  it('a placed project answers 202 with what its deletion waits for, reads so until finalized, then 404', async () => {
    const t = await fresh();
    await t.call('POST', P, { body: { name: 'blog', database: true } });
    expect((await t.call('PUT', `${P}/blog/secrets/API_KEY`, { body: { value: 'v' } })).status).toBe(200);
    expect((await t.call('POST', `${P}/blog/storage`)).status).toBe(200);
    expect((await t.call('PUT', `${P}/blog/access`, { body: { mode: 'org' } })).status).toBe(200);
    const org = await orgBySlug(t.store, 'acme');
    const nodeToken = await registerNode(t.store, 'node-1');
    await setPlacement(t.store, org!.id, 'blog', 'node-1');
    const bundles = bundleReconciler({ store: t.store, sealer: t.sealer, plans: DEFAULT_PLANS });
    await bundles.reconcile('node-1', new AbortController().signal);
    const bundle = () => fetch(`${t.url}/v1/nodes/node-1/bundle`, { headers: { authorization: `Bearer ${nodeToken}` } }).then((r) => r.json());
    expect((await bundle()).projects.map((p: { project: string }) => p.project)).toEqual(['blog']);

    const r = await t.call('DELETE', `${P}/blog`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({
      name: 'blog', deletingSince: expect.stringMatching(RFC3339_UTC), placements: [], grants: { auth: false, storage: false },
      cleanup: { hostnames: [], nodes: ['node-1'] },
    });
    expect((await t.call('GET', `${P}/blog`, { token: t.tokens.viewer })).body).toEqual(r.body);
    expect((await t.call('GET', P)).body.items).toEqual([expect.objectContaining({ name: 'blog', deletingSince: r.body.deletingSince })]);
    for (const sub of ['secrets', 'storage', 'access', 'hostnames']) {
      expect((await t.call('GET', `${P}/blog/${sub}`)).body).toMatchObject({ code: 'not_found', message: 'project blog is being deleted' });
    }
    expect((await t.call('POST', P, { body: { name: 'blog' } })).body.code).toBe('project_name_taken');
    expect((await t.call('DELETE', `${P}/blog`)).status).toBe(202);
    expect(await audited(t)).toHaveLength(1);

    await bundles.reconcile('node-1', new AbortController().signal);
    expect((await bundle()).projects).toEqual([]);
    expect(await finalizeProject(t.store, (await getProjectId(t, 'blog'))!)).toBeNull();
    expect((await t.call('GET', `${P}/blog`)).status).toBe(404);
    expect((await t.call('POST', P, { body: { name: 'blog' } })).status).toBe(201);
  });

  it('answers what its own write left for cleanup, also when the bundle reconciler its commit woke has dropped the project before the answer is read', async () => {
    // The reconciler woken by the deletion's commit rebuilds the node's bundle before the writer resumes: the
    // order a core may run them in (on PostgreSQL the runner routes the commit before the write returns).
    const real = await openTestStore(mkdtempSync(join(tmpdir(), 'hostplane-delete-race-')));
    let rebuild: (() => Promise<unknown>) | undefined;
    let rebuilt: Promise<unknown> | undefined;
    const store: Store = { ...real, write: (async (fn, o) => {
      const value = await real.write(fn, o);
      await rebuilt;
      return value;
    }) as Store['write'] };
    onChanges(store, (batch) => {
      if (rebuild && batch.some((c) => c.kind === 'placement' && c.key === 'node-1')) {
        rebuilt = rebuild();
        rebuild = undefined;
      }
    });
    const t = await fresh({ store });
    await t.call('POST', P, { body: { name: 'blog' } });
    const org = await orgBySlug(t.store, 'acme');
    await registerNode(t.store, 'node-1');
    await setPlacement(t.store, org!.id, 'blog', 'node-1');
    const bundles = bundleReconciler({ store: real, sealer: t.sealer, plans: DEFAULT_PLANS });
    await bundles.reconcile('node-1', new AbortController().signal);

    rebuild = () => bundles.reconcile('node-1', new AbortController().signal);
    const r = await t.call('DELETE', `${P}/blog`);
    expect(rebuilt).toBeDefined();
    expect([r.status, r.body.cleanup]).toEqual([202, { hostnames: [], nodes: ['node-1'] }]);
    expect((await t.call('GET', `${P}/blog`)).body.cleanup).toEqual({ hostnames: [], nodes: [] });
  });
});
