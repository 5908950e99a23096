/** The typed client against the API in-process: what it sends is what the operations take, what it returns is
 * the answer as sent (status, data or the spec's error body, headers), and every answer it got is checked against
 * the OpenAPI document. The `@ts-expect-error` lines are checked by `tsc -p .` (the first step of `npm test`): a
 * wrong path, body field or parameter does not compile. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, fillPath, queryString, type Client } from '../../client';
import { startTestApi, type TestApi } from '../helpers/app';

let t: TestApi;
let api: Client;
beforeAll(async () => {
  t = await startTestApi();
  api = client(t.tokens.admin);
});
afterAll(async () => { await t.close(); });

/** A client whose every answer must match the served document. */
const client = (token?: string): Client => createClient({
  baseUrl: `${t.url}/`,
  ...(token ? { token } : {}),
  fetch: async (input, init) => {
    const res = await fetch(input, init);
    const url = new URL(String(input));
    await t.documented(init?.method ?? 'GET', url.pathname + url.search, { status: res.status, headers: res.headers, text: await res.clone().text() });
    return res;
  },
});

const acme = { orgSlug: 'acme' };

describe('the typed client', () => {
  it('creates a project: 201 with the Project as data and the Location header', async () => {
    const r = await api.POST('/v1/orgs/{orgSlug}/projects', { path: acme, body: { name: 'blog', database: true } });
    expect(r.status).toBe(201);
    if (r.status !== 201) return;
    expect(r.ok).toBe(true);
    expect(r.data).toEqual({ name: 'blog', hostname: 'blog.hostplane.test', database: true, createdAt: expect.any(String), deletingSince: null });
    expect(r.headers.get('location')).toBe('/v1/orgs/acme/projects/blog');
  });

  it('reads it back, and lists with a query', async () => {
    const one = await api.GET('/v1/orgs/{orgSlug}/projects/{projectName}', { path: { ...acme, projectName: 'blog' } });
    expect(one.ok && one.data.hostname).toBe('blog.hostplane.test');
    await api.POST('/v1/orgs/{orgSlug}/projects', { path: acme, body: { name: 'shop' } });
    const page = await api.GET('/v1/orgs/{orgSlug}/projects', { path: acme, query: { limit: '1' } });
    if (!page.ok) throw new Error(`listProjects: ${page.status}`);
    expect(page.data.items.map((p) => p.name)).toEqual(['blog']);
    const next = await api.GET('/v1/orgs/{orgSlug}/projects', { path: acme, query: { limit: '1', cursor: page.data.nextCursor ?? undefined } });
    expect(next.ok && next.data.items.map((p) => p.name)).toEqual(['shop']);
  });

  it('an error answer carries the spec\'s error body, its requestId the X-Request-Id sent as a per-call header', async () => {
    const r = await api.POST('/v1/orgs/{orgSlug}/projects', { path: acme, body: { name: 'blog' }, headers: { 'X-Request-Id': 'client-test-1' } });
    expect(r.status).toBe(409);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.data).toBeUndefined();
    expect(r.error).toEqual({ code: 'project_name_taken', message: expect.any(String), requestId: 'client-test-1' });
    expect(r.headers.get('x-request-id')).toBe('client-test-1');
  });

  it('401 without a token the API issued, 404 for another org, 400 naming the invalid field', async () => {
    const stranger = await client('hp_not-issued').GET('/v1/orgs/{orgSlug}/projects', { path: acme });
    expect([stranger.status, stranger.error?.code]).toEqual([401, 'unauthorized']);
    expect(stranger.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const other = await api.GET('/v1/orgs/{orgSlug}/projects', { path: { orgSlug: t.other.slug } });
    expect([other.status, other.error?.code]).toEqual([404, 'not_found']);
    const bad = await api.POST('/v1/orgs/{orgSlug}/projects', { path: acme, body: { name: 'Not A Label!' } });
    expect([bad.status, bad.error?.code]).toEqual([400, 'bad_request']);
  });

  it('a call\'s own headers win over the client\'s, whatever their case', async () => {
    const r = await api.POST('/v1/orgs/{orgSlug}/projects', {
      path: acme, body: { name: 'as-viewer' }, headers: { Authorization: `Bearer ${t.tokens.viewer}`, 'Idempotency-Key': 'any-header-passes' },
    });
    expect([r.status, r.error?.code]).toEqual([403, 'forbidden']);
  });

  it('sets and deletes a secret: 200 with its metadata, then 204 with no data', async () => {
    const path = { ...acme, projectName: 'blog', secretName: 'API_KEY' };
    const set = await api.PUT('/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}', { path, body: { value: 'client-plain' } });
    expect(set.ok && set.data).toEqual({ name: 'API_KEY', version: 1, updatedAt: expect.any(String), rollout: [] });
    const del = await api.DELETE('/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}', { path });
    expect(del.status).toBe(204);
    expect(del.data).toBeUndefined();
    const again = await api.DELETE('/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}', { path });
    expect([again.status, again.error?.code]).toEqual([404, 'not_found']);
  });

  it('the types refuse a wrong body field, path, method or parameter; the API refuses the field too', async () => {
    // @ts-expect-error `nmae` is no field of createProject's body (and `name` is missing).
    const r = await api.POST('/v1/orgs/{orgSlug}/projects', { path: acme, body: { nmae: 'typo' } });
    expect([r.status, r.error?.code]).toEqual([400, 'bad_request']);
    const typeErrors = (): void => {
      // @ts-expect-error an extra body field beside the right ones
      void api.POST('/v1/orgs/{orgSlug}/projects', { path: acme, body: { name: 'x', plan: 'pro' } });
      // @ts-expect-error `database` is a boolean
      void api.POST('/v1/orgs/{orgSlug}/projects', { path: acme, body: { name: 'x', database: 'yes' } });
      // @ts-expect-error createProject needs a body
      void api.POST('/v1/orgs/{orgSlug}/projects', { path: acme });
      // @ts-expect-error no such path
      void api.GET('/v1/orgs/{orgSlug}/project', { path: acme });
      // @ts-expect-error the projects collection has no DELETE
      void api.DELETE('/v1/orgs/{orgSlug}/projects', { path: acme });
      // @ts-expect-error the path parameter is `orgSlug`
      void api.GET('/v1/orgs/{orgSlug}/projects', { path: { org: 'acme' } });
      // @ts-expect-error path parameters are required
      void api.GET('/v1/orgs/{orgSlug}/projects');
      // @ts-expect-error getProject takes no body
      void api.GET('/v1/orgs/{orgSlug}/projects/{projectName}', { path: { ...acme, projectName: 'x' }, body: {} });
    };
    void typeErrors;
    const narrowed = async (): Promise<void> => {
      const a = await api.POST('/v1/orgs/{orgSlug}/projects', { path: acme, body: { name: 'x' } });
      if (a.status === 201) {
        const hostname: string = a.data.hostname;
        void hostname;
        // @ts-expect-error a 201 has no error
        void a.error.code;
      } else if (a.status === 409) {
        const code: string = a.error.code;
        void code;
        // @ts-expect-error createProject never answers 418
      } else if (a.status === 418) { /* unreachable */ }
    };
    void narrowed;
  });
});

describe('fillPath and queryString', () => {
  it('encode each path value and refuse a missing one', () => {
    expect(fillPath('/v1/orgs/{orgSlug}/dns/zones/{zone}/rrsets/{name}/{type}', { orgSlug: 'acme', zone: 'example.com', name: 'a b/c', type: 'TXT' }))
      .toBe('/v1/orgs/acme/dns/zones/example.com/rrsets/a%20b%2Fc/TXT');
    expect(() => fillPath('/v1/orgs/{orgSlug}/projects', {})).toThrow(/orgSlug/);
  });

  it('leave out undefined values and repeat arrays', () => {
    expect(queryString({ limit: 10, cursor: undefined })).toBe('?limit=10');
    expect(queryString({ a: ['x', 'y'] })).toBe('?a=x&a=y');
    expect(queryString({})).toBe('');
  });
});
