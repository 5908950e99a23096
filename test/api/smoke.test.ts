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
