/**
 * The console in a real browser (issue 24 items 1, 2 and 4): Debian's Chromium against `serve` over TLS and a real
 * `node-agent` (HTTPS front end, a worker). The `org`-mode round trip with hostplane alone: a member opens the
 * deployment, is sent to the console, signs in (a wrong password first), and lands on the worker's page; a viewer
 * and an outsider are refused with pages that say why. A forged CSRF token is refused. Every page is checked with
 * axe-core (no critical or serious violation) and kept as a screenshot (.tmp/screenshots/console-*.png).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { nodeFetch } from '../../agent/sync/fetch';
import { createClient } from '../../client/index';
import { hasOpenssl, makePki } from '../../harness/tls';
import { accessibilityProblems, browserTitle, chromiumPath, launchChromium, screenshot } from '../helpers/browser';
import { freePort, hasKnot, knotTitle } from '../helpers/knot';
import { adminJson, bootstrapWithCli, cleanup, runHostplane, startHostplane, tempDir, until } from '../helpers/proc';

afterAll(cleanup);

const BLOG = 'blog.hostplane.app';
const PASSWORD = 'correct horse battery staple';
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
      const r = await runHostplane(['admin', '--data', data, 'user', 'password', email], `${PASSWORD}\n`);
      expect(r.code, r.stderr).toBe(0);
    }
    const serve = await startHostplane(['serve', '--port', '0', '--data', data, '--dns', 'off', '--tls-cert', pki.certPath, '--tls-key', pki.keyPath]);
    const api = createClient({ baseUrl: serve.url, token: ownerToken, fetch: nodeFetch({ ca: pki.ca }).fetch });
    expect((await api.POST('/v1/orgs/{orgSlug}/projects', { path: { orgSlug: 'acme' }, body: { name: 'blog' } })).status).toBe(201);
    const { token: nodeToken } = await adminJson<{ token: string }>(data, 'node', 'register', 'n1');
    await adminJson(data, 'placement', 'set', 'acme', 'blog', 'n1');
    const agent = await startHostplane([
      'node-agent', '--node', 'n1', '--dir', tempDir('hostplane-node-'), '--control', serve.url, '--ca', pki.caPath, '--listen', '127.0.0.1:0',
      '--tls-cert', pki.certPath, '--tls-key', pki.keyPath, '--dashboard-url', `${serve.url}/console/access`,
      '--worker', `exec '${process.execPath}' -e "${PAGE}"`,
    ], { env: { HOSTPLANE_NODE_TOKEN: nodeToken } });
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
      for (const [path, name] of [['/console', 'console-home'], ['/console/account', 'console-account'], ['/console/orgs/acme', 'console-org']] as const) {
        await member.page.goto(`${serve.url}${path}`);
        expect(member.page.url()).toBe(`${serve.url}${path}`);
        expect(await accessibilityProblems(member.page), path).toEqual([]);
        await screenshot(member.page, name);
      }
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
    } finally {
      await browser.close();
    }
  }, 180_000);
});

describe.skipIf(!chromiumPath() || !hasKnot())(knotTitle(browserTitle('a zone page in Chromium, live against knotd')), () => {
  it('creates a zone and an rrset and sees the zone page turn Ready, the rrset served, without a reload', async () => {
    const data = tempDir();
    const ownerToken = await bootstrapWithCli(data);
    await adminJson(data, 'user', 'create', 'mia@acme.test');
    await adminJson(data, 'member', 'add', 'acme', 'mia@acme.test', 'member');
    expect((await runHostplane(['admin', '--data', data, 'user', 'password', 'mia@acme.test'], `${PASSWORD}\n`)).code).toBe(0);
    const serve = await startHostplane(['serve', '--port', '0', '--data', data, '--dns-listen', `127.0.0.1:${await freePort()}`, '--nameservers', 'ns1.hostplane.test,ns2.hostplane.test']);
    const api = createClient({ baseUrl: serve.url, token: ownerToken });
    expect((await api.POST('/v1/orgs/{orgSlug}/dns/zones', { path: { orgSlug: 'acme' }, body: { name: 'live.example' } })).status).toBe(200);

    const browser = await launchChromium({});
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${serve.url}/console/sign-in?next=${encodeURIComponent('/console/orgs/acme/zones')}`);
      await page.getByLabel('Email').fill('mia@acme.test');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${serve.url}/console/orgs/acme/zones`);
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
      const serial = (await api.GET('/v1/orgs/{orgSlug}/dns/zones/{zone}', { path: { orgSlug: 'acme', zone: 'live.example' } })).data!.serial;
      await page.locator('[data-live-summary]').filter({ hasText: `State: Ready. Serial ${serial}; the nameserver serves ${serial}.` }).waitFor({ timeout: 30_000 });
      expect(await page.getByRole('status').textContent()).toMatch(/^Updated at .+: State: Ready\./);
      expect(await page.locator('main').innerText()).toContain('192.0.2.80');
      expect(loads).toBe(0);
      expect(await accessibilityProblems(page), 'the zone page').toEqual([]);
      await screenshot(page, 'console-zone-live');
    } finally {
      await browser.close();
    }
  }, 180_000);
});
