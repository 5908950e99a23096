/**
 * The console's audit page (issue 24 item 3): the organization's audit log through listAudit (admin, as the operation
 * says: members and viewers are refused with a page saying so; outsiders find nothing), newest first with relative
 * times, escaped, paged, filtered by target (with what is under it) and actor through a GET form.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../lib/access-hash';
import { setPasswordHash } from '../../../store/sessions';
import { startTestApi, type TestApi } from '../../helpers/app';
import { signedInAt, type Browser } from '../../helpers/console-browser';

const PASSWORD = 'correct horse battery staple';
const AUDIT = '/console/orgs/acme/audit';

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi({ console: { pageSizes: { zones: 50, rrsets: 100, audit: 2 } } });
  const hash = await hashPassword(PASSWORD);
  for (const email of ['admin@acme.test', 'member@acme.test', 'viewer@acme.test', 'stranger@nowhere.test']) await setPasswordHash(t.store, email, hash);
  expect((await t.call('POST', '/v1/orgs/acme/projects', { token: t.tokens.member, body: { name: 'blog' } })).status).toBe(201);
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blogger' } })).status).toBe(201);
  for (const name of ['ONE', 'TWO']) expect((await t.call('PUT', `/v1/orgs/acme/projects/blog/secrets/${name}`, { body: { value: 'v' } })).status).toBe(200);
  expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'x<b>.test' } })).status).toBe(400);
  expect((await t.call('POST', '/v1/orgs/globex/projects', { token: t.other.token, body: { name: 'theirs' } })).status).toBe(201);
}, 120_000);
afterAll(async () => { await t.close(); });

const signedIn = (email: string): Promise<Browser> => signedInAt(t.url, email, PASSWORD);

/** The rows of an audit page as "event actor target". */
const rowsOf = (text: string): string[] =>
  [...text.matchAll(/<tr><td><time datetime="[^"]+" title="[^"]+">\d+ s ago<\/time><\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><td>([^<]+)<\/td>/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
const nextOf = (text: string): string | null => /<a rel="next" href="([^"]+)">Next page<\/a>/.exec(text)?.[1]?.replace(/&amp;/g, '&') ?? null;

describe('the audit page', { timeout: 120_000 }, () => {
  it('shows an admin the org\'s records newest first with how long ago, a page at a time; the org page links to it', async () => {
    const b = await signedIn('admin@acme.test');
    expect((await b.go('GET', '/console/orgs/acme')).text).toContain(`<a href="${AUDIT}">Audit log</a>`);
    const seen: string[] = [];
    let path: string | null = AUDIT;
    while (path !== null) {
      const r = await b.go('GET', path);
      expect(r.status).toBe(200);
      const rows = rowsOf(r.text);
      expect(rows.length).toBeLessThanOrEqual(2);
      seen.push(...rows);
      path = nextOf(r.text);
    }
    expect(seen).toEqual([
      'secret.set user:admin@acme.test blog/TWO',
      'secret.set user:admin@acme.test blog/ONE',
      'project.create user:admin@acme.test blogger',
      'project.create user:member@acme.test blog',
    ]);
  });

  it('filters by target (the target and what is under it, not a name it begins) and by actor, the filters kept on the next page', async () => {
    const b = await signedIn('admin@acme.test');
    const first = await b.go('GET', `${AUDIT}?target=blog&actor=`);
    expect(first.text).toContain('<input id="target" name="target" type="text" value="blog">');
    expect(rowsOf(first.text)).toEqual(['secret.set user:admin@acme.test blog/TWO', 'secret.set user:admin@acme.test blog/ONE']);
    const next = nextOf(first.text)!;
    expect(next).toMatch(/^\/console\/orgs\/acme\/audit\?target=blog&cursor=/);
    expect(rowsOf((await b.go('GET', next)).text)).toEqual(['project.create user:member@acme.test blog']);
    expect(rowsOf((await b.go('GET', `${AUDIT}?actor=${encodeURIComponent('user:member@acme.test')}`)).text)).toEqual(['project.create user:member@acme.test blog']);
    expect(rowsOf((await b.go('GET', `${AUDIT}?target=blog&actor=${encodeURIComponent('user:member@acme.test')}`)).text)).toEqual(['project.create user:member@acme.test blog']);
    const none = await b.go('GET', `${AUDIT}?target=${encodeURIComponent('<b>nothing</b>')}`);
    expect(none.status).toBe(200);
    expect(none.text).toContain('No records match these filters on this page.');
    expect(none.text).toContain('value="&lt;b&gt;nothing&lt;/b&gt;"');
    expect(none.text).not.toContain('<b>nothing');
  });

  it('shows details escaped', async () => {
    expect((await t.call('PUT', '/v1/orgs/acme/projects/blog/secrets/THREE', { body: { value: '<script>' } })).status).toBe(200);
    const r = await (await signedIn('admin@acme.test')).go('GET', `${AUDIT}?target=blog/THREE`);
    expect(r.text).toContain('<pre>{&quot;version&quot;:1}</pre>');
    expect(r.text).not.toContain('<script>');
  });

  it('refuses members and viewers as listAudit does (403 page), finds nothing for an outsider (404), and a bad cursor is a 400 page', async () => {
    for (const email of ['member@acme.test', 'viewer@acme.test']) {
      const r = await (await signedIn(email)).go('GET', AUDIT);
      expect(r.status, email).toBe(403);
      expect(r.text).toContain('listAudit needs the admin role');
    }
    const outsider = await (await signedIn('stranger@nowhere.test')).go('GET', AUDIT);
    expect(outsider.status).toBe(404);
    expect(outsider.text).toContain('organization acme not found');
    expect((await (await signedIn('admin@acme.test')).go('GET', `${AUDIT}?cursor=%21`)).status).toBe(400);
  });
});

describe('listAudit filters', () => {
  it('takes target and actor; an empty one is a 400', async () => {
    const r = await t.call('GET', '/v1/orgs/acme/audit?target=blogger');
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: { target: string }) => i.target)).toEqual(['blogger']);
    expect((await t.call('GET', '/v1/orgs/acme/audit?actor=')).status).toBe(400);
  });
});
