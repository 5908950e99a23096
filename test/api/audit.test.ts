/** The audit read of CONTRACT.md: `GET /v1/orgs/{orgSlug}/audit` (admin), newest first, paged, own org only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/app';

const A = '/v1/orgs/acme/audit';
let t: TestApi;
beforeAll(async () => {
  t = await startTestApi();
  await t.call('POST', '/v1/orgs/acme/projects', { token: t.tokens.member, body: { name: 'blog' } });
  for (const name of ['ONE', 'TWO', 'THREE']) await t.call('PUT', `/v1/orgs/acme/projects/blog/secrets/${name}`, { body: { value: 'v' } });
  await t.call('DELETE', '/v1/orgs/acme/projects/blog/secrets/TWO');
  await t.call('POST', '/v1/orgs/globex/projects', { token: t.other.token, body: { name: 'theirs' } });
});
afterAll(async () => { await t.close(); });

describe('listAudit', () => {
  it('answers the org\'s records newest first, each exactly {id, at, event, actor, target, details}', async () => {
    const r = await t.call('GET', A);
    expect(r.status).toBe(200);
    expect(r.body.nextCursor).toBeNull();
    const items = r.body.items as Record<string, unknown>[];
    expect(items.map((i) => `${i.event} ${i.target}`)).toEqual([
      'secret.delete blog/TWO',
      'secret.set blog/THREE',
      'secret.set blog/TWO',
      'secret.set blog/ONE',
      'project.create blog',
    ]);
    for (const i of items) {
      expect(Object.keys(i).sort()).toEqual(['actor', 'at', 'details', 'event', 'id', 'target']);
      expect(typeof i.id).toBe('string');
      expect(i.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(typeof i.details).toBe('object');
    }
    expect(items.at(-1)!.actor).toBe('user:member@acme.test');
    expect(items[0]!.actor).toBe('user:admin@acme.test');
  });

  it('never shows another org\'s records', async () => {
    const r = await t.call('GET', A);
    expect(JSON.stringify(r.body)).not.toContain('theirs');
    const theirs = await t.call('GET', '/v1/orgs/globex/audit', { token: t.other.token });
    expect(theirs.body.items.map((i: { target: string }) => i.target)).toEqual(['theirs']);
  });

  it.each([1, 2, 4, 5])('limit=%i: following nextCursor gives every record once, in order, ending with null', async (limit) => {
    const all = (await t.call('GET', A)).body.items.map((i: { id: string }) => i.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await t.call('GET', `${A}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.items.length).toBeGreaterThan(0);
      seen.push(...r.body.items.map((i: { id: string }) => i.id));
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / limit));
  });

  it('a cursor that is not one of this API\'s is 400 bad_request', async () => {
    for (const cursor of ['AAAA', 'bm90LWEtbnVtYmVy', '!!']) {
      const r = await t.call('GET', `${A}?cursor=${cursor}`);
      expect(r.status, cursor).toBe(400);
      expect(r.body.code).toBe('bad_request');
    }
  });
});
