import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/app';

describe('test api harness', () => {
  let t: TestApi;
  beforeAll(async () => { t = await startTestApi(); });
  afterAll(async () => { await t.close(); });
  it('creates a project through HTTP', async () => {
    const r = await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blog' } });
    expect(r.status).toBe(201);
    expect(r.body.hostname).toBe('blog.hostplane.test');
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('a newcomer at the server (issue 20 item 4)', () => {
  let t: TestApi;
  beforeAll(async () => { t = await startTestApi(); });
  afterAll(async () => { await t.close(); });

  it('GET / says where to go: the API, the console, its reference and the document', async () => {
    const r = await fetch(`${t.url}/`);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ service: 'hostplane', api: '/v1', console: '/console', docs: '/docs', openapi: '/openapi.json', health: '/healthz' });
  });

  it.each([
    ['a user operation', '/v1/orgs/acme/projects', 'hostplane admin token create <email>'],
    ['a node operation', '/v1/nodes/n1/bundle', 'hostplane admin node register <id>'],
  ])('a 401 on %s says how its token is made', async (_what, path, command) => {
    const r = await fetch(`${t.url}${path}`);
    expect(r.status).toBe(401);
    const body = (await r.json()) as { code: string; message: string };
    expect(body.code).toBe('unauthorized');
    expect(body.message).toContain(command);
  });
});
