/**
 * The console's custom hostname pages (issue 24 item 3) over HTTP: the organization's hostnames paged with their
 * project and state; a hostname's records to create, what the proofs see, the edge and certificate, its conditions
 * escaped; members check now (verifyHostname through a core over a stub resolver), add and delete through the
 * operations, audited as theirs; viewers see no forms and are refused when they post anyway; outsiders find nothing;
 * a form without the session's CSRF token changes nothing.
 */
import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../lib/access-hash';
import { createLogger } from '../../../lib/log';
import { systemResolver } from '../../../providers/resolver';
import { hostnameReconciler } from '../../../reconcilers/hostnames';
import { orgOrigin } from '../../../rules/hostnames';
import { orgBySlug } from '../../../store/accounts';
import { HOSTNAME_STATUS } from '../../../store/hostnames';
import { hostnames } from '../../../store/schema';
import { setPasswordHash } from '../../../store/sessions';
import { recordStatus } from '../../../store/status';
import { startTestApi, type TestApi } from '../../helpers/app';
import { Browser, type Page } from '../../helpers/console-browser';
import { FakeEdge } from '../../helpers/edge';
import { startStubResolver, type StubResolver } from '../../helpers/stub-resolver';

const PASSWORD = 'correct horse battery staple';
const FALLBACK = 'edge.hostplane.test';
const LIST = '/console/orgs/acme/hostnames';
const pageOf = (project: string, host: string): string => `/console/orgs/acme/projects/${project}/hostnames/${host}`;
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });

let t: TestApi;
let stub: StubResolver;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  stub = await startStubResolver();
  t = await startTestApi({
    config: { fallbackOrigin: FALLBACK },
    console: { pageSizes: { hostnames: 2 } },
    verifyHostname: (store) => {
      const r = hostnameReconciler({
        store, resolver: systemResolver([stub.address], 500), nameservers: ['ns1.hostplane.test'], edge: new FakeEdge(), fallbackOrigin: FALLBACK, edgeAddresses: [], log: silent,
      });
      return (name) => r.verify(name);
    },
  });
  const hash = await hashPassword(PASSWORD);
  for (const email of ['member@acme.test', 'viewer@acme.test', 'stranger@nowhere.test']) await setPasswordHash(t.store, email, hash);
  for (const name of ['blog', 'shop']) expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name } })).status).toBe(201);
  for (const [project, name] of [['blog', 'a.customer.test'], ['shop', 'b.customer.test'], ['blog', 'c.customer.test'], ['blog', 'gone.customer.test']]) {
    const r = await t.call('POST', `/v1/orgs/acme/projects/${project}/hostnames`, { body: { name } });
    expect(r.status).toBe(200);
    tokens[name!] = r.body.verify[0].value;
  }
  // a.customer.test is active, its certificate pending at the edge, which says so with a hostile message.
  stub.set('_service-verify.a.customer.test', 'TXT', [{ type: 'TXT', name: '_service-verify.a.customer.test', data: tokens['a.customer.test']! }]);
  expect((await t.call('POST', '/v1/orgs/acme/projects/blog/hostnames/a.customer.test/verify', { token: t.tokens.member })).body.status).toBe('active');
  const [a] = await t.store.db.select().from(hostnames).where(eq(hostnames.name, 'a.customer.test'));
  await recordStatus(t.store, HOSTNAME_STATUS, 'a.customer.test', {
    uid: a!.uid, generation: a!.generation,
    set: [{ type: 'CertificateReady', status: 'False', reason: 'PendingValidation', message: 'edge says <script>alert(1)</script>' }],
    facts: { edge: { id: 'edge-1', certificate: 'pending_validation' } },
  });
}, 120_000);
afterAll(async () => {
  await t.close();
  await stub.close();
});

const signedIn = async (email: string): Promise<Browser> => {
  const b = new Browser(t.url);
  expect((await b.signIn(email, PASSWORD)).status).toBe(303);
  return b;
};
/** The hostname's version that the page's delete form sends. */
const etagOf = (page: Page): string => /name="etag" value="([^"]+)"/.exec(page.text)![1]!.replace(/&quot;/g, '"');
const audit = async () => (await t.call('GET', '/v1/orgs/acme/audit?limit=1000')).body.items as { event: string; target: string; actor: string }[];

describe('the custom hostnames list', { timeout: 120_000 }, () => {
  it('lists the org\'s hostnames across its projects a page at a time, with project and state; the org page links to it', async () => {
    const b = await signedIn('viewer@acme.test');
    expect((await b.go('GET', '/console/orgs/acme')).text).toContain(`<a href="${LIST}">Custom hostnames</a>`);
    const first = await b.go('GET', LIST);
    expect(first.status).toBe(200);
    expect(first.text).toContain(`<td><a href="${pageOf('blog', 'a.customer.test')}">a.customer.test</a></td><td>blog</td><td>Progressing</td><td>Active (verified and routed)</td>`);
    expect(first.text).toContain(`<td><a href="${pageOf('shop', 'b.customer.test')}">b.customer.test</a></td><td>shop</td><td>Progressing</td><td>Waiting for a DNS proof</td>`);
    expect(first.text).not.toContain('c.customer.test');
    const next = /<a rel="next" href="([^"]+)">Next page<\/a>/.exec(first.text)![1]!;
    const second = await b.go('GET', next.replace(/&amp;/g, '&'));
    expect(second.status).toBe(200);
    expect(second.text).toContain('c.customer.test');
    expect(second.text).not.toContain('a.customer.test');
  });

  it('refuses a cursor that is not the API\'s (400) and is not found for an outsider (404)', async () => {
    expect((await (await signedIn('viewer@acme.test')).go('GET', `${LIST}?cursor=%21`)).status).toBe(400);
    const outsider = await signedIn('stranger@nowhere.test');
    for (const path of [LIST, pageOf('blog', 'a.customer.test')]) {
      const r = await outsider.go('GET', path);
      expect(r.status).toBe(404);
      expect(r.text).toContain('organization acme not found');
    }
  });
});

describe('a hostname\'s page', { timeout: 120_000 }, () => {
  it('shows the exact records to create, copyable (selected whole, a Copy button from the console\'s script); the edge and certificate; its conditions with how long, escaped', async () => {
    const b = await signedIn('viewer@acme.test');
    const r = await b.go('GET', pageOf('blog', 'a.customer.test'));
    expect(r.status).toBe(200);
    const origin = orgOrigin(FALLBACK, (await orgBySlug(t.store, 'acme'))!.id);
    expect(r.text).toContain(`<td>TXT</td><td><code class="copy" data-what="the TXT record&#39;s name">_service-verify.a.customer.test</code></td><td><code class="copy" data-what="the TXT record&#39;s value">${tokens['a.customer.test']}</code></td>`);
    expect(r.text).toContain(`<td>CNAME</td><td><code class="copy" data-what="the CNAME record&#39;s name">a.customer.test</code></td><td><code class="copy" data-what="the CNAME record&#39;s value">${origin}</code></td>`);
    // The Copy buttons come from the console's own script, the only one the policy lets run (no inline script).
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(r.text).toContain('<script src="/console/console.js" defer></script>');
    const script = await b.go('GET', '/console/console.js');
    expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect(script.text).toContain("querySelectorAll('code.copy')");
    expect(r.text).toContain('by the TXT record');
    expect(r.text).toContain('Certificate: pending_validation.');
    expect(r.text).toContain('<caption>Conditions of the edge for a.customer.test</caption>');
    expect(r.text).toContain('<td>CertificateReady</td><td>False</td><td>PendingValidation</td><td>edge says &lt;script&gt;alert(1)&lt;/script&gt;</td>');
    expect(r.text).not.toContain('<script>');
    expect(r.text).toMatch(/<td>Verified<\/td><td>True<\/td><td>TxtRecord<\/td><td>[^<]*<\/td><td><time datetime="[^"]+" title="[^"]+">\d+ s ago<\/time>/);
  });

  it('takes the name in any case; is 404 for a name of another project, or none, and 400 for one that is no hostname', async () => {
    const b = await signedIn('viewer@acme.test');
    expect((await b.go('GET', pageOf('blog', 'A.Customer.TEST'))).status).toBe(200);
    expect((await b.go('GET', pageOf('blog', 'not%20a%20name'))).status).toBe(400);
    expect((await b.go('GET', pageOf('shop', 'a.customer.test'))).status).toBe(404);
    expect((await b.go('GET', pageOf('blog', 'nothing.customer.test'))).status).toBe(404);
  });

  it('shows a viewer no forms, and refuses a viewer\'s posts anyway (403 page), changing nothing', async () => {
    const viewer = await signedIn('viewer@acme.test');
    const at = pageOf('blog', 'c.customer.test');
    const page = await viewer.go('GET', at);
    expect(page.text).not.toContain(`${at}/verify`);
    expect(page.text).not.toContain(`${at}/delete`);
    expect((await viewer.go('GET', LIST)).text).not.toContain('<form method="post" action="/console/orgs/acme/hostnames">');
    const csrf = Browser.csrf(page);
    const verify = await viewer.go('POST', `${at}/verify`, { csrf });
    expect(verify.status).toBe(403);
    expect(verify.text).toContain('verifyHostname needs the member role or above');
    expect((await viewer.go('POST', `${at}/delete`, { csrf, etag: '"x"' })).status).toBe(403);
    expect((await viewer.go('POST', LIST, { csrf, project: 'blog', name: 'viewer.customer.test' })).status).toBe(403);
    const names = (await t.call('GET', '/v1/orgs/acme/projects/blog/hostnames')).body.items.map((h: { name: string }) => h.name);
    expect(names).toContain('c.customer.test');
    expect(names).not.toContain('viewer.customer.test');
  });
});

describe('a member\'s forms', { timeout: 120_000 }, () => {
  it('"Check now" runs verifyHostname and comes back to the page with the outcome: what the proofs see, then active once the TXT is there', async () => {
    const b = await signedIn('member@acme.test');
    const at = pageOf('blog', 'c.customer.test');
    const csrf = Browser.csrf(await b.go('GET', at));
    const pending = await b.go('POST', `${at}/verify`, { csrf });
    expect(pending.status).toBe(303);
    expect(pending.location).toBe(`${at}?checked=1`);
    const shown = await b.go('GET', pending.location!);
    expect(shown.text).toContain('Checked just now: no proof passed yet');
    expect(shown.text).toContain(`What the proofs see: no TXT record with the token &#39;${tokens['c.customer.test']}&#39; at _service-verify.c.customer.test`);
    expect(shown.text).toContain('<td>Verified</td><td>False</td><td>NoProof</td>');
    stub.set('_service-verify.c.customer.test', 'TXT', [{ type: 'TXT', name: '_service-verify.c.customer.test', data: tokens['c.customer.test']! }]);
    const active = await b.go('POST', `${at}/verify`, { csrf });
    expect(active.status).toBe(303);
    expect((await b.go('GET', active.location!)).text).toContain('Checked just now: a proof passed: the name is active.');
    expect((await audit()).find((e) => e.event === 'hostname.activate' && e.target === 'c.customer.test')).toMatchObject({ actor: 'system' });
  });

  it('adds a hostname to a project (audited hostname.add as the member) and shows a refused name as a 400 page, escaped', async () => {
    const b = await signedIn('member@acme.test');
    const list = await b.go('GET', LIST);
    expect(list.text).toContain('<label for="add-project">');
    const csrf = Browser.csrf(list);
    const r = await b.go('POST', LIST, { csrf, project: 'shop', name: 'New.Customer.test' });
    expect(r.status).toBe(303);
    expect(r.location).toBe(pageOf('shop', 'new.customer.test'));
    expect((await b.go('GET', r.location!)).text).toContain('_service-verify.new.customer.test');
    expect((await audit()).find((e) => e.event === 'hostname.add' && e.target === 'new.customer.test')).toMatchObject({ actor: 'user:member@acme.test' });
    const bad = await b.go('POST', LIST, { csrf, project: 'shop', name: '<b>bad</b>' });
    expect(bad.status).toBe(400);
    expect(bad.text).not.toContain('<b>bad</b>');
  });

  it('deletes with the page\'s ETag (audited hostname.delete as the member); a page from before the name changed is 412', async () => {
    const b = await signedIn('member@acme.test');
    const at = pageOf('blog', 'gone.customer.test');
    const before = await b.go('GET', at);
    const form = { csrf: Browser.csrf(before), etag: etagOf(before) };
    // Judged meanwhile: its status moves, and so does its tag.
    expect((await t.call('POST', '/v1/orgs/acme/projects/blog/hostnames/gone.customer.test/verify', { token: t.tokens.member })).status).toBe(200);
    const stale = await b.go('POST', `${at}/delete`, form);
    expect(stale.status).toBe(412);
    expect(stale.text).toContain('gone.customer.test changed since this page showed it');
    expect((await b.go('POST', `${at}/delete`, { csrf: form.csrf })).status).toBe(412);
    const r = await b.go('POST', `${at}/delete`, { ...form, etag: etagOf(await b.go('GET', at)) });
    expect(r.status).toBe(303);
    expect(r.location).toBe(LIST);
    expect((await b.go('GET', at)).status).toBe(404);
    expect((await audit()).find((e) => e.event === 'hostname.delete' && e.target === 'gone.customer.test')).toMatchObject({ actor: 'user:member@acme.test' });
  });

  it('refuses a form without the session\'s CSRF token, or sent from another site, changing nothing', async () => {
    const b = await signedIn('member@acme.test');
    const at = pageOf('shop', 'b.customer.test');
    const page = await b.go('GET', at);
    const etag = etagOf(page);
    expect((await b.go('POST', `${at}/delete`, { csrf: 'forged', etag })).status).toBe(403);
    expect((await b.go('POST', `${at}/delete`, { csrf: Browser.csrf(page), etag }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await b.go('POST', LIST, { project: 'shop', name: 'csrf.customer.test' })).status).toBe(403);
    expect((await b.go('GET', at)).status).toBe(200);
    expect((await t.call('GET', '/v1/orgs/acme/projects/shop/hostnames')).body.items.map((h: { name: string }) => h.name)).not.toContain('csrf.customer.test');
  });
});
