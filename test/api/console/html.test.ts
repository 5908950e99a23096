/** The console's pages (api/console/html.ts): every value put into a page is escaped, whoever chose it. */
import { describe, expect, it } from 'vitest';
import { domainsPage } from '../../../api/console/domains';
import { hostnamesPage } from '../../../api/console/hostnames';
import { homePage, html, messagePage, signInPage } from '../../../api/console/html';
import { projectsPage } from '../../../api/console/projects';
import { zonesPage } from '../../../api/console/zones';

const EVIL = '"><script>alert(1)</script>\'&';

describe('console pages', () => {
  it('escapes every interpolated value, and only built HTML goes in as it is', () => {
    expect(html`<p>${EVIL}</p>`.text).toBe('<p>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;&amp;</p>');
    expect(html`<div>${html`<b>${EVIL}</b>`}</div>`.text).toBe('<div><b>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&#39;&amp;</b></div>');
  });

  it('holds no value unescaped: sign-in (email, next, error), a message, an organization list', () => {
    const pages = [
      signInPage({ csrf: 'c', next: EVIL, email: EVIL, error: EVIL }),
      messagePage(EVIL, { email: EVIL, csrf: EVIL }, EVIL),
      homePage({ email: 'a@b.test', csrf: 'c' }, [{ slug: EVIL, plan: EVIL, role: EVIL }]),
    ];
    for (const p of pages) {
      expect(p).not.toContain('<script>');
      expect(p).toContain('&lt;script&gt;');
    }
  });

  it('labels every input the user fills in', () => {
    const p = signInPage({ csrf: 'c', next: '/console' });
    for (const id of [...p.matchAll(/<input id="(\w+)"/g)].map((m) => m[1])) expect(p).toContain(`<label for="${id}">`);
  });

  it('says on an empty first list page that there are none yet and how one is added; a later empty page is past the end', () => {
    const viewer = { email: 'a@acme.test', csrf: 'c' };
    const lists = (first: boolean) => ({
      zones: zonesPage(viewer, { slug: 'acme', zones: [], first, nextCursor: null, canCreate: false }),
      projects: projectsPage(viewer, { slug: 'acme', projects: [], first, nextCursor: null, canCreate: false }),
      domains: domainsPage(viewer, { slug: 'acme', domains: [], first, nextCursor: null, forms: { canCheck: false, canImport: false } }),
      hostnames: hostnamesPage(viewer, { slug: 'acme', hostnames: [], first, nextCursor: null, canEdit: false }),
    });
    const first = lists(true);
    expect(first.zones).toContain('There are no zones yet. They are added with the API: <code>POST /v1/orgs/acme/dns/zones</code> (see <a href="/docs">the API reference</a>).');
    expect(first.projects).toContain('<code>POST /v1/orgs/acme/projects</code>');
    expect(first.domains).toContain('<code>POST /v1/orgs/acme/domains</code>');
    expect(first.hostnames).toContain('There are no custom hostnames yet. Members and admins add them.');
    expect(hostnamesPage(viewer, { slug: 'acme', hostnames: [], first: true, nextCursor: null, canEdit: true })).toContain('Add one to a project with the form below.');
    expect(zonesPage(viewer, { slug: 'acme', zones: [], first: true, nextCursor: null, canCreate: true })).toContain('There are no zones yet. Create one below.');
    expect(projectsPage(viewer, { slug: 'acme', projects: [], first: true, nextCursor: null, canCreate: true })).toContain('There are no projects yet. Create one below.');
    expect(domainsPage(viewer, { slug: 'acme', domains: [], first: true, nextCursor: null, forms: { canCheck: true, canImport: false } }))
      .toContain('There are no domains yet. Check and buy one, or import one, below.');
    for (const [what, text] of Object.entries(lists(false))) {
      expect(text).toContain(`on this page: the list ended before it.`);
      expect(text, what).not.toContain('yet.');
    }
  });
});
