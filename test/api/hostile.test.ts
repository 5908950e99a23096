/** A hostile tenant's probes of the routing, error bodies, conditions and node tokens. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerNode, rotateNodeToken } from '../../store/accounts';
import { startTestApi, type TestApi } from '../helpers/app';

describe('hostile probes', () => {
  let t: TestApi;
  const P = '/v1/orgs/acme/projects';
  beforeAll(async () => {
    t = await startTestApi();
    await t.call('POST', P, { body: { name: 'blog' } });
  });
  afterAll(() => t.close());

  const raw = async (method: string, path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(t.url + path, { method, headers: { authorization: `Bearer ${t.tokens.admin}`, ...headers } });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };

  it.each([
    ['another org\'s project by its slug', 'GET', '/v1/orgs/globex/projects/blog'],
    ['an encoded slash in a parameter', 'GET', '/v1/orgs/acme/projects/blog%2Fsecrets'],
    ['an org slug in upper case', 'GET', '/V1/ORGS/ACME/PROJECTS/blog'],
    ['a dot segment', 'GET', '/v1/orgs/globex/../acme/projects/blog/..%2F..%2F'],
  ])('%s reads nothing of the project', async (_what, method, path) => {
    const r = await raw(method, path);
    expect(r.status).not.toBe(200);
    expect(r.status).toBeLessThan(500);
  });

  it('a method override header does not turn a GET into a DELETE', async () => {
    const r = await raw('GET', `${P}/blog`, { 'x-http-method-override': 'DELETE', 'x-method-override': 'DELETE' });
    expect(r.status).toBe(200);
    expect((await t.call('GET', `${P}/blog`)).status).toBe(200);
  });

  it('a path with a method it lacks is 405 with Allow, the error body, and no stack', async () => {
    const r = await raw('PATCH', `${P}/blog`);
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toMatch(/GET/);
    expect(JSON.parse(r.text)).toMatchObject({ code: 'method_not_allowed' });
  });

  it.each(['{"value":', '\u0000', '{"value":"x"'.repeat(10)])('a malformed body is 400 and names no file or stack (%#)', async (body) => {
    const res = await fetch(`${t.url}${P}/blog/secrets/API_KEY`, {
      method: 'PUT', headers: { authorization: `Bearer ${t.tokens.admin}`, 'content-type': 'application/json' }, body,
    });
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(text).not.toMatch(/\/work\/|node_modules|\.ts:\d|at \w+ \(/);
  });

  it.each([
    ['a weak tag', (tag: string) => `W/${tag}`, 412],
    ['a list holding the tag', (tag: string) => `"nope", ${tag}`, 200],
    ['`*`', () => '*', 200],
    ['a malformed list', (tag: string) => `${tag} junk`, 412],
  ] as const)('If-Match with %s on setSecret', async (_what, header, status) => {
    const first = await t.call('PUT', `${P}/blog/secrets/IFM`, { body: { value: 'a' } });
    const tag = first.headers.get('etag')!;
    const r = await t.call('PUT', `${P}/blog/secrets/IFM`, { body: { value: 'b' }, headers: { 'if-match': header(tag) } });
    expect(r.status).toBe(status);
  });

  it('a secret value never reaches the logs, nor does a bearer token', async () => {
    await t.call('PUT', `${P}/blog/secrets/LOGGED?value=hunter2-in-query`, { body: { value: 'hunter2-in-body' } });
    await t.call('PUT', `${P}/blog/secrets/lower`, { body: { value: 'hunter2-bad-name' } });
    const all = t.logs.join('\n');
    expect(all).not.toContain('hunter2-in-body');
    expect(all).not.toContain('hunter2-bad-name');
    expect(all).not.toContain(t.tokens.admin);
  });

  it('a rotated node token reads no bundle and sends no report', async () => {
    const old = await registerNode(t.store, 'node-9');
    const fresh = await rotateNodeToken(t.store, 'node-9');
    const as = (token: string, path: string, init: RequestInit = {}) =>
      fetch(`${t.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }).then((r) => r.status);
    expect(await as(old, '/v1/nodes/node-9/bundle')).toBe(401);
    expect(await as(old, '/v1/nodes/node-9/report', { method: 'POST', body: JSON.stringify({ bundleVersion: 0, projects: [] }) })).toBe(401);
    expect(await as(fresh, '/v1/nodes/node-9/bundle')).toBe(200);
    await registerNode(t.store, 'node-8');
    expect(await as(fresh, '/v1/nodes/node-8/bundle')).toBe(404);
  });
});
