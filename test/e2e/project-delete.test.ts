/**
 * Project and node lifecycle with real processes (issue 20 items 5 and 7): `hostplane serve` and the admin CLI
 * on one data dir. A node's long-poll held with a token the CLI rotates (another process) is answered 401; a
 * deleted project leaves the node's bundle and then reads as 404, its name free; a removed node's token is 401.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminJson, bootstrapInStore, cleanup, http, startHostplane, tempDir, until, type Running } from '../helpers/proc';

let dir: string;
let token: string;
let nodeToken: string;
let serve: Running;

beforeAll(async () => {
  dir = tempDir('hostplane-project-delete-');
  ({ token, nodeToken } = await bootstrapInStore(dir, 'edge-1'));
  serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns', 'off', '--registrar', 'off']);
}, 60_000);
afterAll(cleanup);

const bundle = (withToken: string, headers: Record<string, string> = {}, query = '') =>
  fetch(`${serve.url}/v1/nodes/edge-1/bundle${query}`, { headers: { authorization: `Bearer ${withToken}`, ...headers } });
const projectsIn = async (withToken: string) => ((await (await bundle(withToken)).json()) as { projects: { project: string }[] }).projects.map((p) => p.project);

describe('serve and the admin CLI', () => {
  it('a token rotated by the CLI ends a long-poll held with it; a deleted project leaves the bundle, then its name is free', async () => {
    expect((await http(serve.url, 'POST', '/v1/orgs/acme/projects', { token, body: { name: 'shop' } })).status).toBe(201);
    await adminJson(dir, 'placement', 'set', 'acme', 'shop', 'edge-1');
    const etag = await until('the node\'s first bundle', async () => {
      const tag = (await bundle(nodeToken)).headers.get('etag');
      return tag !== '"0"' && tag;
    });

    const polled = bundle(nodeToken, { 'if-none-match': etag! }, '?wait=30').then((r) => ({ status: r.status, at: Date.now() }));
    const { token: rotated } = await adminJson<{ token: string }>(dir, 'node', 'token', 'rotate', 'edge-1');
    const rotatedAt = Date.now();
    const held = await polled;
    expect(held.status).toBe(401);
    expect(held.at - rotatedAt).toBeLessThan(5000);
    expect((await bundle(nodeToken)).status).toBe(401);
    expect(await projectsIn(rotated)).toEqual(['shop']);

    const deleted = await http(serve.url, 'DELETE', '/v1/orgs/acme/projects/shop', { token });
    expect(deleted.status).toBe(202);
    expect(deleted.body.cleanup).toEqual({ hostnames: [], nodes: ['edge-1'] });
    await until('the project finalized', async () => (await http(serve.url, 'GET', '/v1/orgs/acme/projects/shop', { token })).status === 404);
    expect(await projectsIn(rotated)).toEqual([]);
    expect((await http(serve.url, 'POST', '/v1/orgs/acme/projects', { token, body: { name: 'shop' } })).status).toBe(201);

    expect(await adminJson(dir, 'node', 'remove', 'edge-1')).toEqual({ nodeId: 'edge-1', unplaced: [] });
    expect((await bundle(rotated)).status).toBe(401);
    const status = await adminJson<{ projects: unknown }>(dir, 'status', '--json');
    expect(status.projects).toEqual({ unplaced: [{ org: 'acme', project: 'shop' }], deleting: [] });
  }, 90_000);
});
