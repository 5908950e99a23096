/**
 * Nodes through the split deployment with real processes (issue 10 items 1-3 and 5): `hostplane core` builds
 * and seals bundles, `hostplane api --core-url` answers them (the core opens them through the Core port), a
 * long-poll on `api` is answered when the core commits the node's new bundle, an `api` without a core answers
 * 503 `no_core` to the bundle and the storage operations, `admin status` lists the nodes, and no secret value
 * reaches either process's logs (at debug level).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminJson, bootstrapInStore, cleanup, http, startHostplane, tempDir, type Running } from '../helpers/proc';

const CORE_TOKEN = 'core-token-of-the-nodes-e2e-test';
const VALUE_1 = 'e2e-secret-value-one-5d41402abc';
const VALUE_2 = 'e2e-secret-value-two-7d793037a0';
let dir: string;
let token: string;
let nodeToken: string;
let core: Running;
let api: Running;
let bare: Running;

const env = { ...process.env, HOSTPLANE_LOG_LEVEL: 'debug' };

beforeAll(async () => {
  dir = tempDir('hostplane-nodes-');
  ({ token, nodeToken } = await bootstrapInStore(dir, 'edge-1'));
  core = await startHostplane(['core', '--port', '0', '--data', dir, '--core-token', CORE_TOKEN, '--dns', 'off'], { env });
  [api, bare] = await Promise.all([
    startHostplane(['api', '--port', '0', '--data', dir, '--core-url', core.url, '--core-token', CORE_TOKEN], { env }),
    startHostplane(['api', '--port', '0', '--data', dir], { env }),
  ]);
}, 60_000);
afterAll(cleanup);

const bundle = (headers: Record<string, string> = {}, query = '') =>
  fetch(`${api.url}/v1/nodes/edge-1/bundle${query}`, { headers: { authorization: `Bearer ${nodeToken}`, ...headers } });

describe('nodes across api and core', () => {
  it('a placed project\'s bundle carries its secret, opened by the core; a long-poll on api ends at the core\'s commit', async () => {
    expect((await http(api.url, 'POST', '/v1/orgs/acme/projects', { token, body: { name: 'shop' } })).status).toBe(201);
    expect((await http(api.url, 'PUT', '/v1/orgs/acme/projects/shop/secrets/API_KEY', { token, body: { value: VALUE_1 } })).status).toBe(200);
    await adminJson(dir, 'placement', 'set', 'acme', 'shop', 'edge-1');
    let first: Response | undefined;
    for (let i = 0; i < 100; i++) {
      first = await bundle();
      if (first.headers.get('etag') !== '"0"') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(first!.status).toBe(200);
    expect(first!.headers.get('cache-control')).toBe('no-store');
    const body = await first!.json() as { version: number; projects: { secrets: { value: string }[] }[] };
    expect(body.projects[0]!.secrets[0]!.value).toBe(VALUE_1);

    const polled = bundle({ 'if-none-match': first!.headers.get('etag')! }, '?wait=30');
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    expect((await http(api.url, 'PUT', '/v1/orgs/acme/projects/shop/secrets/API_KEY', { token, body: { value: VALUE_2 } })).status).toBe(200);
    const next = await polled;
    expect(next.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    const nextBody = await next.json() as { version: number; projects: { secrets: { value: string }[] }[] };
    expect(nextBody.version).toBeGreaterThan(body.version);
    expect(nextBody.projects[0]!.secrets[0]!.value).toBe(VALUE_2);

    const report = await http(api.url, 'POST', '/v1/nodes/edge-1/report', { token: nodeToken, body: { bundleVersion: nextBody.version, projects: [{ org: 'acme', project: 'shop', usedBytes: 10 }] } });
    expect(report.status).toBe(200);
    const status = await adminJson<{ nodes: { nodeId: string; appliedVersion: number; conditions: { type: string; status: string }[] }[] }>(dir, 'status', '--json');
    const node = status.nodes.find((n) => n.nodeId === 'edge-1')!;
    expect(node.appliedVersion).toBe(nextBody.version);
    expect(node.conditions.find((c) => c.type === 'Stale')!.status).toBe('False');
  });

  it('storage through api: granted with the core, 503 no_core without one', async () => {
    const granted = await http(api.url, 'POST', '/v1/orgs/acme/projects/shop/storage', { token });
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ granted: true, usedBytes: 10 });
    for (const method of ['GET', 'POST', 'DELETE']) {
      const r = await http(bare.url, method, '/v1/orgs/acme/projects/shop/storage', { token });
      expect(r.status, method).toBe(503);
      expect(r.body.code).toBe('no_core');
    }
    const b = await fetch(`${bare.url}/v1/nodes/edge-1/bundle`, { headers: { authorization: `Bearer ${nodeToken}` } });
    expect(b.status).toBe(503);
  });

  it('no secret value in any log line of api or core', () => {
    const logs = core.stderr() + api.stderr() + bare.stderr();
    expect(logs).toContain('getNodeBundle');
    for (const v of [VALUE_1, VALUE_2]) expect(logs).not.toContain(v);
  });
});
