/**
 * The console in a real browser (issue 24 items 1, 2 and 4): Debian's Chromium against `serve` over TLS and a real
 * `node-agent` (HTTPS front end, a worker). The `org`-mode round trip with hostplane alone: a member opens the
 * deployment, is sent to the console, signs in (a wrong password first), and lands on the worker's page; a viewer
 * and an outsider are refused with pages that say why. A forged CSRF token is refused. The member walks the project
 * pages (the project applied on the node, its secret's value in no page), the custom hostname pages (the Copy buttons,
 * "Check now") and the domain pages (a sync); an admin sees the nodes page and sets the project's access mode with its
 * form; an admin creates a zone (a refused name first) and a project through the forms. Every page is checked with axe-core (no critical or serious violation) and kept as a screenshot
 * (.tmp/screenshots/console-*.png).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { nodeFetch } from '../../agent/sync/fetch';
import { createClient } from '../../client/index';
import { hasOpenssl, makePki } from '../../harness/tls';
import { accessibilityProblems, browserTitle, chromiumPath, launchChromium, screenshot } from '../helpers/browser';
import { purchaseBody } from '../helpers/domains';
import { freePort, hasKnot, knotTitle } from '../helpers/knot';
import { adminJson, bootstrapWithCli, cleanup, runHostplane, startHostplane, tempDir, until } from '../helpers/proc';

afterAll(cleanup);

const BLOG = 'blog.hostplane.app';
const PASSWORD = 'correct horse battery staple';
const SECRET_VALUE = 'sk_live_e2e_VALUE_5d0c';
const PAGE = "require('http').createServer((q,s)=>{q.resume();s.setHeader('content-type','text/html; charset=utf-8');"
  + "s.end('<!doctype html><html lang=en><title>blog</title><h1>Hello from blog</h1><p id=path>'+q.url+'</p></html>')}).listen(process.env.SERVICE_SOCKET)";

describe.skipIf(!hasOpenssl() || !chromiumPath())(browserTitle('the console in Chromium, with a node in org mode'), () => {
  it('takes a member from the deployment through sign-in to the worker\'s page; refuses a viewer, an outsider and a forged form, each with a page that says why', async () => {
    const data = tempDir();
    const pki = makePki(tempDir('hostplane-pki-'));
    const ownerToken = await bootstrapWithCli(data);
    for (const [email, org, role] of [['mia@acme.test', 'acme', 'member'], ['vic@acme.test', 'acme', 'viewer'], ['out@globex.test', null, null]] as const) {
      await adminJson(data, 'user', 'create', email);
      if (org) await adminJson(data, 'member', 'add', org, email, role!);
    }
    for (const email of ['owner@acme.test', 'mia@acme.test', 'vic@acme.test', 'out@globex.test']) {
      const r = await runHostplane(['admin', '--data', data, 'user', 'password', email], `${PASSWORD}\n`);
      expect(r.code, r.stderr).toBe(0);
    }
    // DNS on, so that a domain can be bought (from the sandbox registrar serve runs) for the domain pages.
    const serve = await startHostplane(['serve', '--port', '0', '--data', data, '--dns-listen', '127.0.0.1:0', '--tls-cert', pki.certPath, '--tls-key', pki.keyPath]);
    const api = createClient({ baseUrl: serve.url, token: ownerToken, fetch: nodeFetch({ ca: pki.ca }).fetch });
    expect((await api.POST('/v1/orgs/{orgSlug}/projects', { path: { orgSlug: 'acme' }, body: { name: 'blog' } })).status).toBe(201);
    expect((await api.PUT('/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}', { path: { orgSlug: 'acme', projectName: 'blog', secretName: 'API_KEY' }, body: { value: SECRET_VALUE } })).status).toBe(200);
    const { token: nodeToken } = await adminJson<{ token: string }>(data, 'node', 'register', 'n1');
    await adminJson(data, 'placement', 'set', 'acme', 'blog', 'n1');
    const agent = await startHostplane([
      'node-agent', '--node', 'n1', '--dir', tempDir('hostplane-node-'), '--control', serve.url, '--ca', pki.caPath, '--listen', '127.0.0.1:0',
      '--tls-cert', pki.certPath, '--tls-key', pki.keyPath, '--dashboard-url', `${serve.url}/console/access`,
      '--worker', `exec '${process.execPath}' -e "${PAGE}"`,
    ], { env: { HOSTPLANE_NODE_TOKEN: nodeToken } });
    expect((await api.POST('/v1/orgs/{orgSlug}/projects/{projectName}/hostnames', { path: { orgSlug: 'acme', projectName: 'blog' }, body: { name: 'www.customer.test' } })).status).toBe(200);
    expect((await api.POST('/v1/orgs/{orgSlug}/domains', { path: { orgSlug: 'acme' }, body: purchaseBody('console-walk.com') })).status).toBe(201);
    expect((await api.PUT('/v1/orgs/{orgSlug}/projects/{projectName}/access', { path: { orgSlug: 'acme', projectName: 'blog' }, body: { mode: 'org' } })).status).toBe(200);

    const browser = await launchChromium({ [BLOG]: new URL(agent.url).host });
    try {
      const visit = async (email: string, password: string) => {
        const context = await browser.newContext({ ignoreHTTPSErrors: true });
        const page = await context.newPage();
        // The node takes up `org` mode from its next bundle: until then the worker answers openly.
        await until('the node to send browsers to the console', async () => {
          await page.goto(`https://${BLOG}/reports?q=1`);
          return page.url().startsWith(`${serve.url}/console/sign-in`) ? true : undefined;
        });
        await page.getByLabel('Email').fill(email);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Sign in' }).click();
        return { context, page };
      };

      const member = await visit('mia@acme.test', 'not the password');
      expect(await member.page.getByRole('alert').textContent()).toContain('The email or the password is wrong.');
      expect(await accessibilityProblems(member.page)).toEqual([]);
      await screenshot(member.page, 'console-sign-in-refused');
      await member.page.getByLabel('Password').fill(PASSWORD);
      await member.page.getByRole('button', { name: 'Sign in' }).click();
      await member.page.waitForURL(`https://${BLOG}/reports?q=1`);
      expect(await member.page.locator('h1').textContent()).toBe('Hello from blog');
      expect(await member.page.locator('#path').textContent()).toBe('/reports?q=1');
      const cookies = await member.context.cookies(serve.url);
      expect(cookies.find((c) => c.name === '__Host-hostplane_session')).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });

      // The console's own pages, for the same member.
      const walk = async (page: typeof member.page, pages: readonly (readonly [string, string])[]): Promise<void> => {
        for (const [path, name] of pages) {
          await page.goto(`${serve.url}${path}`);
          expect(page.url()).toBe(`${serve.url}${path}`);
          expect(await accessibilityProblems(page), path).toEqual([]);
          expect(await page.content()).not.toContain(SECRET_VALUE);
          await screenshot(page, name);
        }
      };
      await walk(member.page, [
        ['/console', 'console-home'], ['/console/account', 'console-account'], ['/console/orgs/acme', 'console-org'],
        ['/console/orgs/acme/attention/hostnames', 'console-attention'],
        ['/console/orgs/acme/projects', 'console-projects'], ['/console/orgs/acme/projects/blog', 'console-project'],
      ]);
      // The node runs the project's bundle: the page says so, and the secret's version is applied there.
      await until('the project page to show blog applied on n1', async () => {
        await member.page.reload();
        const text = await member.page.locator('main').innerText();
        return /n1\s+\d+\s+\d+\s+Applied/.test(text) && text.includes('n1: applied') ? true : undefined;
      });
      // A custom hostname's guidance with Copy buttons (the console's script), and "Check now" coming back with the outcome.
      const hostname = `${serve.url}/console/orgs/acme/projects/blog/hostnames/www.customer.test`;
      await member.page.goto(hostname);
      expect(await member.page.getByRole('button', { name: /^Copy the (TXT|CNAME) record's (name|value)$/ }).count()).toBe(4);
      await member.page.getByRole('button', { name: 'Check now' }).click();
      await member.page.waitForURL(`${hostname}?checked=1`);
      expect(await member.page.locator('p.notice[role=status]').textContent()).toContain('Checked just now: no proof passed yet');
      expect(await member.page.locator('p.error').textContent()).toContain('no TXT record with the token');
      // A domain bought from the sandbox registrar: its registration and ledger, and a member's sync coming back to it.
      const domain = `${serve.url}/console/orgs/acme/domains/console-walk.com`;
      await member.page.goto(domain);
      await member.page.getByRole('button', { name: 'Read from the registrar now' }).click();
      await member.page.waitForURL(domain);
      expect(await member.page.getByRole('table', { name: 'The latest ledger entries of console-walk.com, newest first' }).innerText()).toMatch(/charge\s+\d+\.\d\d USD/);
      await walk(member.page, [
        ['/console/orgs/acme/hostnames', 'console-hostnames'], [`${hostname.slice(serve.url.length)}?checked=1`, 'console-hostname'],
        ['/console/orgs/acme/domains', 'console-domains'], [domain.slice(serve.url.length), 'console-domain'],
      ]);
      await member.page.goto(`${serve.url}/console`);
      expect(await member.page.getByRole('table').innerText()).toMatch(/acme\s+member/);
      // A form whose CSRF token was tampered with changes nothing: still signed in.
      await member.page.locator('header input[name=csrf]').evaluate((el) => { (el as HTMLInputElement).value = 'forged'; });
      await member.page.getByRole('button', { name: 'Sign out' }).click();
      expect(await member.page.getByRole('alert').textContent()).toContain('this form expired or came from another site');
      await member.page.goto(`${serve.url}/console`);
      expect(member.page.url()).toBe(`${serve.url}/console`);
      await member.page.getByRole('button', { name: 'Sign out' }).click();
      await member.page.waitForURL(`${serve.url}/console/sign-in`);

      const viewer = await visit('vic@acme.test', PASSWORD);
      await viewer.page.waitForURL((u) => u.hostname === BLOG && u.pathname === '/__service/access/callback');
      expect(await viewer.page.content()).toContain('Your role in acme is viewer: this deployment admits members and admins.');
      await screenshot(viewer.page, 'console-viewer-refused-by-node');

      const outsider = await visit('out@globex.test', PASSWORD);
      await outsider.page.waitForURL((u) => u.pathname === '/console/access');
      expect(await outsider.page.getByRole('alert').textContent()).toContain('you are no member of the organization of this hostname');
      expect(await accessibilityProblems(outsider.page)).toEqual([]);
      await screenshot(outsider.page, 'console-outsider-refused');

      // An admin: the nodes page, and the project page with its access form.
      const admin = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
      await admin.goto(`${serve.url}/console/sign-in`);
      await admin.getByLabel('Email').fill('owner@acme.test');
      await admin.getByLabel('Password').fill(PASSWORD);
      await admin.getByRole('button', { name: 'Sign in' }).click();
      await admin.waitForURL(`${serve.url}/console`);
      await walk(admin, [['/console/orgs/acme/nodes', 'console-nodes'], ['/console/orgs/acme/projects/blog', 'console-project-admin']]);
      await admin.getByLabel('Access mode').selectOption('public');
      await admin.getByRole('button', { name: 'Set access' }).click();
      await admin.waitForURL(`${serve.url}/console/orgs/acme/projects/blog`);
      expect(await admin.locator('main').innerText()).toContain('Mode: Public: anyone');
      await admin.goto(`${serve.url}/console/orgs/acme/nodes`);
      expect(await admin.getByRole('table', { name: 'Nodes by id' }).innerText()).toMatch(/n1\s+\d+\s+\d+\s+\d+ s ago\s+Reporting/);
    } finally {
      await browser.close();
    }
  }, 300_000);
});

/** `serve` on a fresh data dir with its own DNS, and a user of acme with `role` and a console password; the owner's API token. */
async function serveWithUser(email: string, role: string): Promise<{ serve: Awaited<ReturnType<typeof startHostplane>>; ownerToken: string }> {
  const data = tempDir();
  const ownerToken = await bootstrapWithCli(data);
  await adminJson(data, 'user', 'create', email);
  await adminJson(data, 'member', 'add', 'acme', email, role);
  expect((await runHostplane(['admin', '--data', data, 'user', 'password', email], `${PASSWORD}\n`)).code).toBe(0);
  const serve = await startHostplane(['serve', '--port', '0', '--data', data, '--dns-listen', `127.0.0.1:${await freePort()}`, '--nameservers', 'ns1.hostplane.test,ns2.hostplane.test']);
  return { serve, ownerToken };
}

/** A page of `browser` signed in at `url` as `email`, on `next`. */
async function signedInPage(browser: Awaited<ReturnType<typeof launchChromium>>, url: string, email: string, next: string) {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${url}/console/sign-in?next=${encodeURIComponent(next)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}${next}`);
  return page;
}

describe.skipIf(!chromiumPath() || !hasKnot())(knotTitle(browserTitle('a zone page in Chromium, live against knotd')), () => {
  it('creates a zone and an rrset and sees the zone page turn Ready, the rrset served, without a reload', async () => {
    const { serve, ownerToken } = await serveWithUser('mia@acme.test', 'member');
    const api = createClient({ baseUrl: serve.url, token: ownerToken });
    expect((await api.POST('/v1/orgs/{orgSlug}/dns/zones', { path: { orgSlug: 'acme' }, body: { name: 'live.example' } })).status).toBe(200);

    const browser = await launchChromium({});
    try {
      const page = await signedInPage(browser, serve.url, 'mia@acme.test', '/console/orgs/acme/zones');
      expect(await accessibilityProblems(page), 'the zone list').toEqual([]);
      await screenshot(page, 'console-zones');
      await page.getByRole('link', { name: 'live.example' }).click();
      await page.waitForURL(`${serve.url}/console/orgs/acme/zones/live.example`);
      await page.getByLabel(/^Name/).fill('www.live.example');
      await page.getByLabel('Type').selectOption('A');
      await page.getByLabel('TTL (seconds)').last().fill('300');
      await page.getByLabel('Records, one per line').last().fill('192.0.2.80');
      await page.getByRole('button', { name: 'Add' }).click();
      await page.waitForURL(`${serve.url}/console/orgs/acme/zones/live.example`);
      // From here on the page is never loaded again: what changes comes through live.js.
      let loads = 0;
      page.on('load', () => { loads++; });
      const servedSummary = (serial: number) => page.locator('[data-live-summary]').filter({ hasText: `State: Ready. Serial ${serial}; the nameserver serves ${serial}.` });
      const zone = { path: { orgSlug: 'acme', zone: 'live.example' } };
      // The form's rrset may be served before the page it leads to has loaded: then that page shows it Ready as loaded.
      await servedSummary((await api.GET('/v1/orgs/{orgSlug}/dns/zones/{zone}', zone)).data!.serial).waitFor({ timeout: 30_000 });
      expect(await page.locator('main').innerText()).toContain('192.0.2.80');
      // A change made while the page is shown can only reach it live.
      const put = await api.PUT('/v1/orgs/{orgSlug}/dns/zones/{zone}/rrsets/{name}/{type}', {
        path: { ...zone.path, name: 'api.live.example', type: 'A' }, body: { records: [{ content: '192.0.2.81' }], ttl: 300 },
      });
      expect(put.status).toBe(200);
      await servedSummary((await api.GET('/v1/orgs/{orgSlug}/dns/zones/{zone}', zone)).data!.serial).waitFor({ timeout: 30_000 });
      expect(await page.getByRole('status').textContent()).toMatch(/^Updated at .+: State: Ready\./);
      expect(await page.locator('main').innerText()).toContain('192.0.2.81');
      expect(loads).toBe(0);
      expect(await accessibilityProblems(page), 'the zone page').toEqual([]);
      await screenshot(page, 'console-zone-live');
    } finally {
      await browser.close();
    }
  }, 180_000);

  it('creates a zone and a project through the console\'s forms, a refused name said next to its field', async () => {
    const { serve } = await serveWithUser('ada@acme.test', 'admin');

    const browser = await launchChromium({});
    try {
      const page = await signedInPage(browser, serve.url, 'ada@acme.test', '/console/orgs/acme/zones');
      await page.getByLabel(/^Zone name/).fill('com');
      await page.getByRole('button', { name: 'Create zone' }).click();
      await page.locator('#create-zone-name-error').waitFor();
      expect(await page.getByLabel(/^Zone name/).inputValue()).toBe('com');
      expect(await accessibilityProblems(page), 'the zones list with a refused name').toEqual([]);
      await screenshot(page, 'console-zone-create-refused');
      await page.getByLabel(/^Zone name/).fill('made.example');
      await page.getByRole('button', { name: 'Create zone' }).click();
      await page.waitForURL(`${serve.url}/console/orgs/acme/zones/made.example`);
      expect(await page.locator('h1').innerText()).toBe('made.example');

      await page.goto(`${serve.url}/console/orgs/acme/projects`);
      await page.getByLabel(/^Project name/).fill('made');
      await page.getByLabel('With a database').check();
      expect(await accessibilityProblems(page), 'the projects list with its create form').toEqual([]);
      await screenshot(page, 'console-project-create');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.waitForURL(`${serve.url}/console/orgs/acme/projects/made`);
      expect(await page.locator('main').innerText()).toContain('Default hostname made.');
      expect(await accessibilityProblems(page), 'the new project\'s page with its secret form').toEqual([]);
      await screenshot(page, 'console-project-created');
    } finally {
      await browser.close();
    }
  }, 180_000);
});
