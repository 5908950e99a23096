/**
 * Nodes (CONTRACT.md, Nodes; issue 10 items 1, 2 and 5): a node reads its own bundle with its token (another
 * node's is 404), the ETag is the bundle version and only rises, `If-None-Match` + `wait` holds until a change
 * that affects this node commits (and not one of a project placed elsewhere), answers carry
 * `Cache-Control: no-store`, and no secret value reaches a log line. Reports record the applied version and
 * usage; getProject's placements, getSecret's rollout and `admin status` read them. A sign-in client secret reaches
 * the bundle of the node hosting its project only, and never as an env binding.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldBundlePolls, MAX_HELD_POLLS_PER_NODE } from '../../api/nodes';
import { waiting } from '../../api/wait';
import { createLogger } from '../../lib/log';
import { REAL_ENDPOINTS } from '../../rules/oauth-providers';
import { DEFAULT_PLANS } from '../../rules/plans';
import { bundleReconciler } from '../../reconcilers/bundles';
import { startRunner, type Runner } from '../../reconcilers/runner';
import { orgBySlug, registerNode, rotateNodeToken } from '../../store/accounts';
import { bundleVersion, removeNode } from '../../store/nodes';
import { setPlacement } from '../../store/projects';
import { readStatus } from '../../store/read-model';
import { startTestApi, type TestApi } from '../helpers/app';
import { until } from '../helpers/proc';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SECRET_A = 'sk_live_nodes_test_6f1d0c2a9b';
const SECRET_A2 = 'sk_live_nodes_test_second_77e1';
const SECRET_B = 'sk_live_nodes_test_other_c0ffee';
const CLIENT_SECRET = 'oauth_client_secret_nodes_test_9d41';

let t: TestApi;
let runner: Runner;
const nodeTokens: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApi();
  const destination = new Writable({ write(chunk, _e, cb) { t.logs.push(String(chunk)); cb(); } });
  const log = createLogger({ level: 'debug', destination });
  runner = await startRunner({ store: t.store, log, pollMs: 50, reconcilers: [bundleReconciler({ store: t.store, sealer: t.sealer, plans: DEFAULT_PLANS })] });
  for (const id of ['node-a', 'node-b', 'node-c']) nodeTokens[id] = await registerNode(t.store, id);
  for (const name of ['shop', 'blog']) expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name, database: name === 'shop' } })).status).toBe(201);
  expect((await t.call('POST', '/v1/orgs/globex/projects', { token: t.other.token, body: { name: 'rival' } })).status).toBe(201);
  const acme = (await orgBySlug(t.store, 'acme'))!;
  const globex = (await orgBySlug(t.store, 'globex'))!;
  await setPlacement(t.store, acme.id, 'shop', 'node-a');
  await setPlacement(t.store, acme.id, 'blog', 'node-b');
  await setPlacement(t.store, globex.id, 'rival', 'node-a');
  expect((await t.call('PUT', '/v1/orgs/acme/projects/shop/secrets/STRIPE_KEY', { body: { value: SECRET_A } })).status).toBe(200);
  expect((await t.call('PUT', '/v1/orgs/acme/projects/blog/secrets/BLOG_KEY', { body: { value: SECRET_B } })).status).toBe(200);
  await runner.idle();
});
afterAll(async () => {
  await runner.stop();
  await t.close();
});

const bundle = (node: string, o: { token?: string | null; headers?: Record<string, string>; query?: string } = {}) =>
  t.call('GET', `/v1/nodes/${node}/bundle${o.query ?? ''}`, { token: o.token === undefined ? nodeTokens[node] : o.token, headers: o.headers });

describe('getNodeBundle', () => {
  it('answers the node\'s placed projects with hostnames, secret values and sections, ETag = version, no-store', async () => {
    const r = await bundle('node-a');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('etag')).toBe(`"${r.body.version}"`);
    expect(r.body.version).toBe(await bundleVersion(t.store, 'node-a'));
    expect(r.body.version).toBeGreaterThan(0);
    expect(r.body.projects.map((p: { org: string; project: string }) => `${p.org}/${p.project}`)).toEqual(['acme/shop', 'globex/rival']);
    const shop = r.body.projects[0];
    expect(shop).toMatchObject({
      hostnames: ['shop.hostplane.test'], database: true, storage: null, signIn: null,
      access: { mode: 'public', passwordHash: null, bypassHash: null, version: 0 },
      secrets: [{ name: 'STRIPE_KEY', version: 1, value: SECRET_A }],
    });
    // Nothing of another node's projects.
    expect(JSON.stringify(r.body)).not.toContain(SECRET_B);
  });

  it('a node with nothing placed has the empty bundle at version 0', async () => {
    const r = await bundle('node-c');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ nodeId: 'node-c', version: 0, projects: [] });
  });

  it('another node\'s bundle is 404 with a node token, whether it exists or not; a user token is 401', async () => {
    expect((await bundle('node-a', { token: nodeTokens['node-b'] })).status).toBe(404);
    expect((await bundle('node-zzz', { token: nodeTokens['node-b'] })).status).toBe(404);
    expect((await bundle('node-a', { token: t.tokens.admin })).status).toBe(401);
    expect((await bundle('node-a', { token: null })).status).toBe(401);
  });

  it('If-None-Match with the current version is 304 with the ETag; an older one gets the bundle', async () => {
    const { headers } = await bundle('node-a');
    const tag = headers.get('etag')!;
    const same = await bundle('node-a', { headers: { 'if-none-match': tag } });
    expect(same.status).toBe(304);
    expect(same.headers.get('etag')).toBe(tag);
    expect(same.headers.get('cache-control')).toBe('no-store');
    expect((await bundle('node-a', { headers: { 'if-none-match': '"1"' } })).status).toBe(200);
  });

  it('a long-poll is answered when a change to its own project commits, not by one placed elsewhere; versions rise', async () => {
    const before = await bundle('node-a');
    const tag = before.headers.get('etag')!;
    const started = Date.now();
    const polled = bundle('node-a', { headers: { 'if-none-match': tag }, query: '?wait=30' }).then((r) => ({ ...r, at: Date.now() }));
    await until('a held long-poll', () => waiting(t.store) >= 1, 5000, 5);
    // A change of a project placed on node-b only: node-b's bundle moves, node-a's request keeps waiting.
    const bBefore = await bundleVersion(t.store, 'node-b');
    expect((await t.call('PUT', '/v1/orgs/acme/projects/blog/secrets/BLOG_KEY', { body: { value: `${SECRET_B}-2` } })).status).toBe(200);
    await until('a new bundle of node-b', async () => (await bundleVersion(t.store, 'node-b')) > bBefore, 5000, 5);
    await sleep(150);
    let answered = false;
    void polled.then(() => { answered = true; });
    await sleep(0);
    expect(answered).toBe(false);
    expect(await bundleVersion(t.store, 'node-a')).toBe(before.body.version);
    // Its own project's secret: answered at the commit of its new bundle, long before the 30 s.
    const set = await t.call('PUT', '/v1/orgs/acme/projects/shop/secrets/STRIPE_KEY', { body: { value: SECRET_A2 } });
    const setAt = Date.now();
    expect(set.status).toBe(200);
    const r = await polled;
    expect(r.status).toBe(200);
    expect(r.at - setAt).toBeLessThan(1000);
    expect(r.at - started).toBeLessThan(10_000);
    expect(r.body.version).toBeGreaterThan(before.body.version);
    expect(r.headers.get('etag')).toBe(`"${r.body.version}"`);
    expect(r.body.projects[0].secrets).toEqual([{ name: 'STRIPE_KEY', version: 2, value: SECRET_A2 }]);
    expect(waiting(t.store)).toBe(0);
  });

  it('a long-poll with nothing changing ends with 304 when wait passes', async () => {
    const { headers } = await bundle('node-c');
    const started = Date.now();
    const r = await bundle('node-c', { headers: { 'if-none-match': headers.get('etag')! }, query: '?wait=1' });
    expect(r.status).toBe(304);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('a hostname, storage or placement change reaches the bundle; an identical state writes no new version', async () => {
    const v0 = await bundleVersion(t.store, 'node-a');
    await runner.idle();
    // Run the reconciler again over an unchanged state: nothing new.
    runner.nudge('placement', 'node-a');
    await runner.idle();
    expect(await bundleVersion(t.store, 'node-a')).toBe(v0);
    expect((await t.call('POST', '/v1/orgs/acme/projects/shop/storage')).status).toBe(200);
    await until('a new bundle of node-a', async () => (await bundleVersion(t.store, 'node-a')) > v0, 5000, 5);
    const r = await bundle('node-a');
    expect(r.body.projects[0].storage).toEqual({ prefix: expect.stringMatching(/^p[0-9a-f]{24}\/$/), quotaBytes: DEFAULT_PLANS.free!.storageBytes });
    const v1 = r.body.version;
    expect((await t.call('DELETE', '/v1/orgs/acme/projects/shop/storage')).status).toBe(204);
    await until('a new bundle of node-a', async () => (await bundleVersion(t.store, 'node-a')) > v1, 5000, 5);
    expect((await bundle('node-a')).body.projects[0].storage).toBeNull();
  });
});

describe('a revoked node token (issue 20 item 7)', () => {
  /** Answers the poll in an object: an async function would wait for a promise it returns. */
  const heldPoll = async (node: string, token: string) => {
    const { headers } = await bundle(node, { token });
    const polled = bundle(node, { token, headers: { 'if-none-match': headers.get('etag')! }, query: '?wait=30' }).then((r) => ({ ...r, at: Date.now() }));
    await until('a held long-poll', () => waiting(t.store) >= 1, 5000, 5);
    return { polled };
  };

  it.each([
    ['rotated', (node: string): Promise<string | null> => rotateNodeToken(t.store, node)],
    ['removed with its node', async (node: string): Promise<string | null> => { await removeNode(t.store, node); return null; }],
  ] as const)('%s: a long-poll held with it is answered 401 at once, and it is 401 from then on', async (_how, revoke) => {
    const node = `node-revoked-${Math.random().toString(36).slice(2, 8)}`;
    const old = await registerNode(t.store, node);
    const { polled } = await heldPoll(node, old);
    const revokedAt = Date.now();
    const fresh = await revoke(node);
    const r = await polled;
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('unauthorized');
    expect(r.at - revokedAt).toBeLessThan(1000);
    expect(waiting(t.store)).toBe(0);
    expect((await bundle(node, { token: old })).status).toBe(401);
    if (fresh) expect((await bundle(node, { token: fresh })).status).toBe(200);
  });
});

describe('held bundle long-polls per node', () => {
  it(`at most ${MAX_HELD_POLLS_PER_NODE} are held at once: one more is 429 with Retry-After, and a place comes back when one ends`, async () => {
    const tag = (await bundle('node-c')).headers.get('etag')!;
    const polls = Array.from({ length: MAX_HELD_POLLS_PER_NODE }, () => new AbortController());
    const held = polls.map((c) => fetch(`${t.url}/v1/nodes/node-c/bundle?wait=30`, {
      headers: { authorization: `Bearer ${nodeTokens['node-c']}`, 'if-none-match': tag }, signal: c.signal,
    }).catch(() => undefined));
    await until('the polls held', () => heldBundlePolls(t.store, 'node-c') === MAX_HELD_POLLS_PER_NODE);
    const over = await bundle('node-c', { headers: { 'if-none-match': tag }, query: '?wait=30' });
    expect([over.status, over.body.code, over.headers.get('retry-after')]).toEqual([429, 'rate_limited', '1']);
    // Another node's polls are its own.
    expect((await bundle('node-b', { headers: { 'if-none-match': '"0"' }, query: '?wait=1' })).status).toBe(200);
    polls[0]!.abort();
    await until('one poll ended', () => heldBundlePolls(t.store, 'node-c') === MAX_HELD_POLLS_PER_NODE - 1);
    expect((await bundle('node-c', { headers: { 'if-none-match': tag }, query: '?wait=1' })).status).toBe(304);
    for (const c of polls) c.abort();
    await Promise.all(held);
    await until('all polls ended', () => heldBundlePolls(t.store, 'node-c') === 0);
  });
});

describe('reportNode', () => {
  it('records the applied version and usage; placements, storage, rollout and admin status read them', async () => {
    const b = await bundle('node-a');
    expect((await t.call('POST', '/v1/orgs/acme/projects/shop/storage')).status).toBe(200);
    await runner.idle();
    const current = await bundle('node-a');
    // Pending before the node reports.
    const before = await t.call('GET', '/v1/orgs/acme/projects/shop/secrets/STRIPE_KEY', { token: t.tokens.member });
    expect(before.status).toBe(200);
    expect(before.body.rollout).toEqual([{ nodeId: 'node-a', state: 'pending', failure: null }]);
    const rep = await t.call('POST', '/v1/nodes/node-a/report', {
      token: nodeTokens['node-a'],
      body: { bundleVersion: current.body.version, projects: [{ org: 'acme', project: 'shop', usedBytes: 4096 }, { org: 'acme', project: 'blog', usedBytes: 7 }] },
    });
    expect(rep.status).toBe(200);
    expect(rep.body).toEqual({ desiredVersion: current.body.version, ignored: [{ org: 'acme', project: 'blog' }] });
    expect(b.body.version).toBeLessThanOrEqual(current.body.version);

    const project = await t.call('GET', '/v1/orgs/acme/projects/shop', { token: t.tokens.viewer });
    expect(project.body.grants.storage).toBe(true);
    expect(project.body.placements).toEqual([{
      nodeId: 'node-a', createdAt: expect.any(String), version: expect.any(Number), appliedVersion: current.body.version, applied: true, failure: null, reportedAt: expect.any(String),
    }]);
    const storage = await t.call('GET', '/v1/orgs/acme/projects/shop/storage', { token: t.tokens.viewer });
    expect(storage.body).toMatchObject({ granted: true, usedBytes: 4096, usedBytesAt: expect.any(String), quotaBytes: DEFAULT_PLANS.free!.storageBytes });
    expect(storage.body.conditions[0]).toMatchObject({ type: 'WithinQuota', status: 'True' });
    const after = await t.call('GET', '/v1/orgs/acme/projects/shop/secrets/STRIPE_KEY', { token: t.tokens.member });
    expect(after.body.rollout).toEqual([{ nodeId: 'node-a', state: 'applied', failure: null }]);

    // A new version: setSecret answers it pending; admin status lists it until the node applies it.
    const set = await t.call('PUT', '/v1/orgs/acme/projects/shop/secrets/STRIPE_KEY', { body: { value: `${SECRET_A2}-3` } });
    expect(set.body.rollout).toEqual([{ nodeId: 'node-a', state: 'pending', failure: null }]);
    await runner.idle();
    const st = await readStatus(t.store);
    const a = st.nodes.find((n) => n.nodeId === 'node-a')!;
    expect(a.desiredVersion).toBeGreaterThan(current.body.version);
    expect(a.appliedVersion).toBe(current.body.version);
    expect(a.pendingSecrets).toEqual([{ org: 'acme', project: 'shop', name: 'STRIPE_KEY', version: 3 }]);
    expect(a.conditions.find((c) => c.type === 'Applied')!.status).toBe('False');
    expect(a.conditions.find((c) => c.type === 'Stale')!.status).toBe('False');
    expect(st.nodes.find((n) => n.nodeId === 'node-c')!.conditions.find((c) => c.type === 'Stale')).toMatchObject({ status: 'True', reason: 'NeverReported' });
    await t.call('POST', '/v1/nodes/node-a/report', { token: nodeTokens['node-a'], body: { bundleVersion: a.desiredVersion, projects: [] } });
    expect((await readStatus(t.store)).nodes.find((n) => n.nodeId === 'node-a')!.pendingSecrets).toEqual([]);
    expect((await t.call('GET', '/v1/orgs/acme/projects/shop/secrets/STRIPE_KEY', { token: t.tokens.member })).body.rollout)
      .toEqual([{ nodeId: 'node-a', state: 'applied', failure: null }]);
  });

  it('the access policy\'s rollout: pending until the node reports the bundle that carries it, again for a new bypass secret', async () => {
    const access = () => t.call('GET', '/v1/orgs/acme/projects/shop/access', { token: t.tokens.viewer });
    const report = async () => {
      await runner.idle();
      const version = (await bundle('node-a')).body.version;
      expect((await t.call('POST', '/v1/nodes/node-a/report', { token: nodeTokens['node-a'], body: { bundleVersion: version, projects: [] } })).status).toBe(200);
    };
    const set = await t.call('PUT', '/v1/orgs/acme/projects/shop/access', { body: { mode: 'password', password: 'long enough' } });
    expect(set.body.rollout).toEqual([{ nodeId: 'node-a', state: 'pending', failure: null }]);
    await report();
    expect((await access()).body.rollout).toEqual([{ nodeId: 'node-a', state: 'applied', failure: null }]);
    expect((await t.call('POST', '/v1/orgs/acme/projects/shop/access/bypass')).status).toBe(200);
    expect((await access()).body.rollout).toEqual([{ nodeId: 'node-a', state: 'pending', failure: null }]);
    await report();
    expect((await access()).body.rollout).toEqual([{ nodeId: 'node-a', state: 'applied', failure: null }]);
  });

  it('a version the node was never given is 400; another node\'s report path is 404', async () => {
    const r = await t.call('POST', '/v1/nodes/node-a/report', { token: nodeTokens['node-a'], body: { bundleVersion: 1e9, projects: [] } });
    expect(r.status).toBe(400);
    expect((await t.call('POST', '/v1/nodes/node-a/report', { token: nodeTokens['node-b'], body: { bundleVersion: 0, projects: [] } })).status).toBe(404);
  });

  // PostgreSQL's text cannot hold U+0000: stored, such a failure was a 500 there.
  it('a failure holding U+0000 is 400 on either store, and nothing of the report is recorded', async () => {
    const { version } = (await bundle('node-a')).body as { version: number };
    const r = await t.call('POST', '/v1/nodes/node-a/report', {
      token: nodeTokens['node-a'], body: { bundleVersion: version, projects: [{ org: 'acme', project: 'shop', usedBytes: 4242, failure: 'no\u0000start' }] },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect(JSON.stringify((await t.call('GET', '/v1/orgs/acme/projects/shop/storage')).body)).not.toContain('4242');
  });

  it('getProject shows only the project\'s own placements; another org reads it as 404', async () => {
    const rival = await t.call('GET', '/v1/orgs/globex/projects/rival', { token: t.other.token });
    expect(rival.body.placements.map((p: { nodeId: string }) => p.nodeId)).toEqual(['node-a']);
    expect(JSON.stringify(rival.body)).not.toContain('shop');
    expect((await t.call('GET', '/v1/orgs/acme/projects/shop', { token: t.other.token })).status).toBe(404);
  });
});

describe('sign-in in the bundle', () => {
  it('the client secret goes to the node hosting the project only, beside its env bindings, not among them', async () => {
    const v = await bundleVersion(t.store, 'node-a');
    expect((await t.call('POST', '/v1/orgs/acme/projects/shop/auth', { token: t.tokens.member })).status).toBe(200);
    const set = await t.call('PUT', '/v1/orgs/acme/projects/shop/auth/providers/github', { body: { clientId: 'gh-shop', clientSecret: CLIENT_SECRET } });
    expect(set.status).toBe(200);
    await runner.idle();
    await until('a new bundle of node-a', async () => (await bundleVersion(t.store, 'node-a')) > v, 5000, 5);
    const [shop] = (await bundle('node-a')).body.projects;
    expect(shop.signIn).toEqual({
      settings: { sessionDays: 30 },
      grant: expect.stringMatching(/^[0-9a-f]{32}$/),
      maxUsers: DEFAULT_PLANS.free!.signInUsers,
      providers: [{ provider: 'github', clientId: 'gh-shop', clientSecret: CLIENT_SECRET, endpoints: REAL_ENDPOINTS.github }],
    });
    expect(shop.secrets.map((x: { name: string }) => x.name)).toEqual(['STRIPE_KEY']);
    for (const other of ['node-b', 'node-c']) expect(JSON.stringify((await bundle(other)).body), other).not.toContain(CLIENT_SECRET);
  });
});

describe('no secret value in a log line', () => {
  it('after bundles were built, fetched, long-polled and reported, no log line holds a value', async () => {
    await runner.idle();
    const lines = t.logs.join('');
    // Not vacuous: the bundle requests were logged.
    expect(lines).toContain('getNodeBundle');
    for (const v of [SECRET_A, SECRET_A2, SECRET_B, CLIENT_SECRET]) expect(lines).not.toContain(v);
  });
});
