/** The core split (issue 2 part 7) with real processes: `hostplane core` plus `hostplane api --core-url`, an
 * `api` without a core (503 no_core only where the core is needed), an `api` with a wrong core token, the
 * core's request keys (issue 7 item 7), and the project limit held across two `api` processes writing the
 * same store. */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../client';
import { KEY_FILE, openSealer } from '../../core/sealing';
import { createOrg, createUser, issueToken, setMembership } from '../../store/accounts';
import { openTestStore } from '../helpers/store';
import { projects, secrets } from '../../store/schema';
import { cleanup, startHostplane, tempDir, type Running } from '../helpers/proc';

const CORE_TOKEN = 'core-shared-token-for-the-split-test';
let dir: string;
let token: string;
let core: Running;
let api: Running;
let bare: Running;
let wrong: Running;

beforeAll(async () => {
  dir = tempDir('hostplane-split-');
  // Bootstrap through the same store functions the admin CLI runs (the CLI itself is covered by its own tests).
  const s = await openTestStore(dir);
  try {
    await createOrg(s, 'acme', 'pro');
    await createOrg(s, 'limited', 'free');
    await createUser(s, 'owner@acme.test');
    await setMembership(s, 'acme', 'owner@acme.test', 'admin');
    await setMembership(s, 'limited', 'owner@acme.test', 'member');
    token = await issueToken(s, 'owner@acme.test');
  } finally {
    s.close();
  }
  core = await startHostplane(['core', '--port', '0', '--data', dir, '--core-token', CORE_TOKEN, '--dns', 'off']);
  [api, bare, wrong] = await Promise.all([
    startHostplane(['api', '--port', '0', '--data', dir, '--core-url', core.url, '--core-token', CORE_TOKEN]),
    startHostplane(['api', '--port', '0', '--data', dir]),
    startHostplane(['api', '--port', '0', '--data', dir, '--core-url', core.url, '--core-token', 'not-the-core-token']),
  ]);
}, 60_000);
afterAll(cleanup);

/** The typed client (client/) for one process, with the owner's token unless told otherwise. */
const as = (p: Running, t: string | null = token): Client => createClient({ baseUrl: p.url, ...(t ? { token: t } : {}) });
const BLOG = { orgSlug: 'acme', projectName: 'blog' };
const SECRETS = '/v1/orgs/{orgSlug}/projects/{projectName}/secrets';
const SECRET = '/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}';
const PROJECTS = '/v1/orgs/{orgSlug}/projects';

describe('api with a core', () => {
  it('every process printed its own listening URL', () => {
    const urls = [core.url, api.url, bare.url, wrong.url];
    for (const u of urls) expect(u).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new Set(urls).size).toBe(4);
  });

  it('the core created the sealing key in the data dir with mode 0600', () => {
    expect(existsSync(join(dir, KEY_FILE))).toBe(true);
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
  });

  it('creates a project and sets a secret through the core: 200, version 1', async () => {
    expect((await as(api).POST(PROJECTS, { path: { orgSlug: 'acme' }, body: { name: 'blog' } })).status).toBe(201);
    const r = await as(api).PUT(SECRET, { path: { ...BLOG, secretName: 'API_KEY' }, body: { value: 'split-plain-value' } });
    expect(r.status).toBe(200);
    expect(r.data).toMatchObject({ name: 'API_KEY', version: 1 });
  });

  const sealCall = (key: string, auth?: string, plaintext = 'x') => fetch(`${core.url}/internal/seal`, {
    method: 'POST',
    headers: { ...(auth ? { authorization: auth } : {}), 'content-type': 'application/json', 'x-core-request-key': key },
    body: JSON.stringify({ context: 'a/b/C', plaintext }),
  });

  it('the core refuses internal calls without the shared token', async () => {
    expect((await sealCall('split-key-000000000001')).status).toBe(401);
    expect((await sealCall('split-key-000000000001', 'Bearer nope')).status).toBe(401);
    const good = await sealCall('split-key-000000000001', `Bearer ${CORE_TOKEN}`);
    expect(good.status).toBe(200);
    expect((await good.json()).result).toMatch(/^v1\./);
  });

  it('a call repeated with its request key gets the first answer again: the core sealed once', async () => {
    // Sealing draws a fresh nonce each time, so two seals of one value never match: equal answers are one seal.
    const answers = await Promise.all([0, 1, 2].map(async () => (await (await sealCall('split-key-000000000002', `Bearer ${CORE_TOKEN}`)).json()).result));
    expect(answers[0]).toMatch(/^v1\./);
    expect(new Set(answers).size).toBe(1);
    const other = await (await sealCall('split-key-000000000003', `Bearer ${CORE_TOKEN}`)).json();
    expect(other.result).not.toBe(answers[0]);
    const reused = await sealCall('split-key-000000000002', `Bearer ${CORE_TOKEN}`, 'another value');
    expect([reused.status, (await reused.json()).code]).toEqual([422, 'request_key_reused']);
  });
});

describe('api without a core', () => {
  it('setSecret is 503 no_core', async () => {
    const r = await as(bare).PUT(SECRET, { path: { ...BLOG, secretName: 'OTHER' }, body: { value: 'x' } });
    expect(r.status).toBe(503);
    expect(r.error).toEqual({ code: 'no_core', message: expect.any(String), requestId: r.headers.get('x-request-id') });
  });

  it('listSecrets, getProject, listProjects and createProject still work, on the shared store', async () => {
    const list = await as(bare).GET(SECRETS, { path: BLOG });
    expect(list.status).toBe(200);
    expect(list.data?.items).toEqual([{ name: 'API_KEY', version: 1, updatedAt: expect.any(String) }]);
    expect((await as(bare).GET('/v1/orgs/{orgSlug}/projects/{projectName}', { path: BLOG })).status).toBe(200);
    expect((await as(bare).POST(PROJECTS, { path: { orgSlug: 'acme' }, body: { name: 'from-bare' } })).status).toBe(201);
    const all = await as(bare).GET(PROJECTS, { path: { orgSlug: 'acme' } });
    expect(all.data?.items.map((p) => p.name)).toEqual(['blog', 'from-bare']);
  });

  it('deleteSecret needs no core', async () => {
    expect((await as(bare).DELETE(SECRET, { path: { ...BLOG, secretName: 'NOT_THERE' } })).status).toBe(404);
  });

  it('the checks before the core still apply: 401, 404 and 400 come first where they should', async () => {
    expect((await as(bare, null).PUT(SECRET, { path: { ...BLOG, secretName: 'X' }, body: { value: 'x' } })).status).toBe(401);
    expect((await as(bare).PUT(SECRET, { path: { ...BLOG, orgSlug: 'nope', secretName: 'X' }, body: { value: 'x' } })).status).toBe(404);
  });
});

describe('api with a wrong core token', () => {
  it('setSecret is 503 with an error body, never a 500, and nothing is stored', async () => {
    const r = await as(wrong).PUT(SECRET, { path: { ...BLOG, secretName: 'API_KEY' }, body: { value: 'should-not-land' } });
    expect(r.status).toBe(503);
    expect(Object.keys(r.error ?? {}).sort()).toEqual(['code', 'message', 'requestId']);
    expect(r.error?.code).toMatch(/^[a-z_]+$/);
    expect(JSON.stringify(r.error)).not.toContain(CORE_TOKEN);
    const list = await as(api).GET(SECRETS, { path: BLOG });
    expect(list.data?.items).toEqual([expect.objectContaining({ name: 'API_KEY', version: 1 })]);
  });

  it('operations that need no core work there too', async () => {
    expect((await as(wrong).GET(SECRETS, { path: BLOG })).status).toBe(200);
  });
});

describe('project limit across processes', () => {
  it('20 parallel creations split over two api processes against a limit of 3 give exactly 3 × 201', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => as(i % 2 ? bare : wrong).POST(PROJECTS, { path: { orgSlug: 'limited' }, body: { name: `race-${i}` } })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 409)).toHaveLength(17);
    for (const r of results.filter((x) => x.status === 409)) expect(r.error).toMatchObject({ code: 'project_limit', details: { limit: 3, count: 3, plan: 'free' } });
    const list = await as(api).GET(PROJECTS, { path: { orgSlug: 'limited' } });
    expect(list.data?.items).toHaveLength(3);
  }, 20_000);
});

describe('shutdown', () => {
  it('every process exits 0 on SIGTERM, and the stored value opens with the core\'s key under its context', async () => {
    const exits = await Promise.all([api.stop(), bare.stop(), wrong.stop(), core.stop()]);
    for (const e of exits) expect(e).toEqual({ code: 0, signal: null });
    const s = await openTestStore(dir);
    try {
      const [row] = await s.db.select({ sealed: secrets.sealed }).from(secrets);
      expect(row!.sealed).not.toContain('split-plain-value');
      const sealer = openSealer(join(dir, KEY_FILE));
      expect(sealer.open('acme/blog/API_KEY', row!.sealed)).toBe('split-plain-value');
      expect(await s.db.select().from(projects)).toHaveLength(2 + 3);
    } finally {
      s.close();
    }
  }, 20_000);
});
