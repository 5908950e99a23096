/**
 * The console's project pages (issue 24 item 3) over HTTP: the organization's projects paged with their state; a
 * project's placements per node (applied or pending), secrets with their rollout per node, access mode, sign-in
 * providers and storage against the quota; no secret value, password, bypass secret or client secret in any page;
 * stored strings escaped; admins set the access mode (with the policy's ETag) and revoke the bypass secret; a viewer
 * sees no forms and is refused when posting anyway; an outsider finds nothing. Members create projects (the plan's
 * limit said on the form, what was entered kept) and set and delete secrets (the value never shown again); admins
 * delete a project after typing its name again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../lib/access-hash';
import { bundleReconciler } from '../../../reconcilers/bundles';
import { DEFAULT_PLANS } from '../../../rules/plans';
import { orgBySlug, registerNode } from '../../../store/accounts';
import { recordReport } from '../../../store/nodes';
import { setPlacement } from '../../../store/projects';
import { setPasswordHash } from '../../../store/sessions';
import { bytesText } from '../../../api/console/projects';
import { startTestApi, type TestApi } from '../../helpers/app';
import { Browser, nextHref, signedInAt, unescapeHtml, type Page } from '../../helpers/console-browser';

const PASSWORD = 'correct horse battery staple';
const SECRET_VALUES = ['sk_live_first_VALUE_4c1d', 'db-pass_second_VALUE_77e0'];
const ACCESS_PASSWORD = 'shared deployment pass 9f3a';
const CLIENT_SECRET = 'gh_client_secret_VALUE_b21c';
const FAILURE = 'worker exited: <img src=x onerror=alert(1)>';
const BLOG = '/console/orgs/acme/projects/blog';
const API = '/v1/orgs/acme/projects/blog';

let t: TestApi;
/** Every secret the pages must never carry: the values set, the shared password, the client secret, the bypass secret. */
const secrets: string[] = [...SECRET_VALUES, ACCESS_PASSWORD, CLIENT_SECRET];

beforeAll(async () => {
  t = await startTestApi({ console: { pageSizes: { projects: 2, secrets: 1 } } });
  const hash = await hashPassword(PASSWORD);
  for (const email of ['admin@acme.test', 'member@acme.test', 'viewer@acme.test', 'stranger@nowhere.test']) await setPasswordHash(t.store, email, hash);
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blog', database: true } })).status).toBe(201);
  for (const name of ['shop', 'wiki']) expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name } })).status).toBe(201);
  for (const [i, name] of ['API_KEY', 'DB_PASS'].entries()) expect((await t.call('PUT', `${API}/secrets/${name}`, { body: { value: SECRET_VALUES[i] } })).status).toBe(200);
  expect((await t.call('PUT', `${API}/access`, { body: { mode: 'password', password: ACCESS_PASSWORD } })).status).toBe(200);
  const bypass = await t.call('POST', `${API}/access/bypass`);
  expect(bypass.status).toBe(200);
  secrets.push(bypass.body.secret);
  expect((await t.call('POST', `${API}/auth`)).status).toBe(200);
  expect((await t.call('PUT', `${API}/auth/providers/github`, { body: { clientId: 'Iv1.<b>"acme"</b>', clientSecret: CLIENT_SECRET } })).status).toBe(200);
  expect((await t.call('POST', `${API}/storage`)).status).toBe(200);

  const org = await orgBySlug(t.store, 'acme');
  const bundles = bundleReconciler({ store: t.store, sealer: t.sealer, plans: DEFAULT_PLANS });
  for (const node of ['node-1', 'node-2']) {
    await registerNode(t.store, node);
    await setPlacement(t.store, org!.id, 'blog', node);
    await bundles.reconcile(node, new AbortController().signal);
  }
  const placed = (await t.call('GET', API)).body.placements as { nodeId: string; version: number }[];
  const version = placed.find((p) => p.nodeId === 'node-1')!.version;
  // node-1 runs the bundle; node-2 never reported.
  await recordReport(t.store, 'node-1', { bundleVersion: version, projects: [{ org: 'acme', project: 'blog', usedBytes: 1536, failure: FAILURE }] });
}, 120_000);
afterAll(async () => { await t.close(); });

const signedIn = (email: string): Promise<Browser> => signedInAt(t.url, email, PASSWORD);

const hiddenOf = (page: Page, action: string): Record<string, string> => {
  const form = page.text.split('<form ').find((f) => f.includes(`action="${action}"`))!;
  return Object.fromEntries([...form.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1]!, unescapeHtml(m[2]!)]));
};
const noSecretIn = (page: Page): void => {
  for (const s of secrets) expect(page.text).not.toContain(s);
};

describe('the projects list', { timeout: 120_000 }, () => {
  it('lists the org\'s projects a page at a time with their state and hostname; the org page links to it', async () => {
    const b = await signedIn('viewer@acme.test');
    expect((await b.go('GET', '/console/orgs/acme')).text).toContain('<a href="/console/orgs/acme/projects">Projects</a>');
    const first = await b.go('GET', '/console/orgs/acme/projects');
    expect(first.status).toBe(200);
    expect(first.text).toContain(`<td><a href="${BLOG}">blog</a></td><td>Ready</td><td>blog.hostplane.test</td><td>Yes</td>`);
    expect(first.text).toContain('shop.hostplane.test');
    expect(first.text).not.toContain('wiki');
    const second = await b.go('GET', nextHref(first));
    expect(second.text).toContain('wiki.hostplane.test');
    expect(second.text).not.toContain('blog.hostplane.test');
    expect(second.text).not.toContain('rel="next"');
  });

  it('refuses a cursor not the operation\'s (400) and finds nothing for an outsider (404)', async () => {
    expect((await (await signedIn('viewer@acme.test')).go('GET', '/console/orgs/acme/projects?cursor=%21')).status).toBe(400);
    const outsider = await signedIn('stranger@nowhere.test');
    for (const path of ['/console/orgs/acme/projects', BLOG]) {
      const r = await outsider.go('GET', path);
      expect(r.status).toBe(404);
      expect(r.text).toContain('organization acme not found');
    }
  });
});

describe('a project\'s page', { timeout: 120_000 }, () => {
  it('shows placements per node, applied or pending, with the node\'s failure escaped and its last report', async () => {
    const r = await (await signedIn('viewer@acme.test')).go('GET', BLOG);
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/<tr><td>node-1<\/td><td>\d+<\/td><td>\d+<\/td>\n<td>Applied<\/td><td>worker exited: &lt;img src=x onerror=alert\(1\)&gt;<\/td><td><time [^>]+>\d+ s ago<\/time><\/td><\/tr>/);
    expect(r.text).toMatch(/<tr><td>node-2<\/td><td>\d+<\/td><td>none reported<\/td>\n<td>Pending<\/td><td><\/td><td>never<\/td><\/tr>/);
    expect(r.text).not.toContain('<img');
  });

  it('shows secret names, versions and rollout per node to a member, a page at a time, and never a value', async () => {
    const b = await signedIn('member@acme.test');
    const first = await b.go('GET', BLOG);
    expect(first.text).toMatch(/<td>API_KEY<\/td><td>1<\/td><td><time [^>]+>\d+ s ago<\/time><\/td><td><ul><li>node-1: applied \(worker exited: &lt;img/);
    expect(first.text).toContain('<li>node-2: pending</li>');
    expect(first.text).not.toContain('DB_PASS');
    const second = await b.go('GET', nextHref(first));
    expect(second.text).toContain('<td>DB_PASS</td><td>1</td>');
    for (const page of [first, second]) noSecretIn(page);
  });

  it('shows a viewer no secret names (listSecrets is a member\'s), and the access, sign-in and storage sections', async () => {
    const r = await (await signedIn('viewer@acme.test')).go('GET', BLOG);
    expect(r.text).toContain('Secret names and versions are shown to members and admins.');
    expect(r.text).not.toContain('API_KEY');
    expect(r.text).toContain('Mode: Password: one shared password');
    expect(r.text).toContain('A password is set; a bypass secret is set');
    expect(r.text).toContain('<td>github</td><td>Iv1.&lt;b&gt;&quot;acme&quot;&lt;/b&gt;</td>');
    expect(r.text).toContain(`1.5 KiB used of ${bytesText(DEFAULT_PLANS.free!.storageBytes)}`);
    expect(r.text).toMatch(/<td>WithinQuota<\/td><td>True<\/td><td>UnderQuota<\/td><td>1536 of \d+ bytes used<\/td><td><time/);
    noSecretIn(r);
  });

  it('shows a viewer and a member no forms, and refuses their access form anyway (403), changing nothing', async () => {
    for (const email of ['viewer@acme.test', 'member@acme.test']) {
      const b = await signedIn(email);
      const page = await b.go('GET', BLOG);
      expect(page.text).not.toContain(`${BLOG}/access`);
      const csrf = Browser.csrf(page);
      const etag = (await t.call('GET', `${API}/access`)).headers.get('etag')!;
      const r = await b.go('POST', `${BLOG}/access`, { csrf, etag, mode: 'public' });
      expect(r.status).toBe(403);
      expect(r.text).toContain('setAccess needs the admin role or above');
      expect((await b.go('POST', `${BLOG}/access/bypass/revoke`, { csrf })).status).toBe(403);
    }
    expect((await t.call('GET', `${API}/access`)).body).toMatchObject({ mode: 'password', hasBypass: true });
  });
});

describe('the access forms of an admin', { timeout: 120_000 }, () => {
  it('sets the mode with the policy\'s ETag; a form from before another change is 412 with a way back, and writes nothing', async () => {
    const b = await signedIn('admin@acme.test');
    const page = await b.go('GET', BLOG);
    noSecretIn(page);
    expect(page.text).toContain('<option value="password" selected>');
    const form = hiddenOf(page, `${BLOG}/access`);
    const stale = await b.go('GET', BLOG);
    const r = await b.go('POST', `${BLOG}/access`, { ...form, mode: 'org', password: '' });
    expect(r.status).toBe(303);
    expect(r.location).toBe(BLOG);
    expect((await t.call('GET', `${API}/access`)).body).toMatchObject({ mode: 'org', hasPassword: true });
    const refused = await b.go('POST', `${BLOG}/access`, { ...hiddenOf(stale, `${BLOG}/access`), mode: 'public' });
    expect(refused.status).toBe(412);
    expect(refused.text).toContain('The access policy changed since this page showed it');
    expect(refused.text).toContain(`<a href="${BLOG}">Reload blog</a>`);
    expect((await t.call('GET', `${API}/access`)).body.mode).toBe('org');
    const bad = await b.go('POST', `${BLOG}/access`, { ...hiddenOf(await b.go('GET', BLOG), `${BLOG}/access`), mode: 'password', password: 'short' });
    expect(bad.status).toBe(400);
  });

  it('revokes the bypass secret; the form is gone once there is none', async () => {
    const b = await signedIn('admin@acme.test');
    const page = await b.go('GET', BLOG);
    const r = await b.go('POST', `${BLOG}/access/bypass/revoke`, hiddenOf(page, `${BLOG}/access/bypass/revoke`));
    expect(r.status).toBe(303);
    expect((await t.call('GET', `${API}/access`)).body.hasBypass).toBe(false);
    const after = await b.go('GET', BLOG);
    expect(after.text).toContain('a bypass secret is not set');
    expect(after.text).not.toContain(`${BLOG}/access/bypass/revoke`);
  });
});

describe('a project being deleted', { timeout: 120_000 }, () => {
  it('is listed as Deleting, and its page shows what its deletion waits for', async () => {
    await setPlacement(t.store, (await orgBySlug(t.store, 'acme'))!.id, 'shop', 'node-1');
    // Once node-1's bundle carries shop, its deletion waits for the node to stop it.
    await bundleReconciler({ store: t.store, sealer: t.sealer, plans: DEFAULT_PLANS }).reconcile('node-1', new AbortController().signal);
    expect((await t.call('DELETE', '/v1/orgs/acme/projects/shop')).status).toBe(202);
    const b = await signedIn('member@acme.test');
    expect((await b.go('GET', '/console/orgs/acme/projects')).text).toContain('<td><a href="/console/orgs/acme/projects/shop">shop</a></td><td>Deleting</td>');
    const r = await b.go('GET', '/console/orgs/acme/projects/shop');
    expect(r.status).toBe(200);
    expect(r.text).toContain('State: Deleting.');
    expect(r.text).toMatch(/Its deletion was asked <time [^>]+>\d+ s ago<\/time>; it waits for: node node-1\./);
    for (const section of ['Placements', 'Secrets']) expect(r.text).not.toContain(`<h2>${section}</h2>`);
  });
});

describe('creating and deleting projects, setting and deleting secrets', { timeout: 120_000 }, () => {
  let t2: TestApi;
  beforeAll(async () => {
    t2 = await startTestApi();
    const hash = await hashPassword(PASSWORD);
    for (const email of ['admin@acme.test', 'member@acme.test', 'viewer@acme.test']) await setPasswordHash(t2.store, email, hash);
  }, 120_000);
  afterAll(async () => { await t2.close(); });
  const as = (email: string): Promise<Browser> => signedInAt(t2.url, email, PASSWORD);
  const LIST = '/console/orgs/acme/projects';
  const SITE = `${LIST}/site`;
  const VALUE = 'sk_test_console_VALUE_0b7e';
  const projectStatus = async (name: string): Promise<number> => (await t2.call('GET', `/v1/orgs/acme/projects/${name}`)).status;

  it('creates a project from the list as a member (createProject, audited as the member) and lands on its page', async () => {
    const b = await as('member@acme.test');
    const list = await b.go('GET', LIST);
    expect(list.text).toContain('<label for="create-project-name">Project name');
    expect(list.text).toContain('<input id="create-project-database" name="database" type="checkbox" value="true"> <label for="create-project-database">With a database</label>');
    const r = await b.go('POST', LIST, { csrf: Browser.csrf(list), name: 'site', database: 'true' });
    expect(r.status).toBe(303);
    expect(r.location).toBe(SITE);
    expect((await t2.call('GET', '/v1/orgs/acme/projects/site')).body).toMatchObject({ name: 'site', database: true });
    const audit = (await t2.call('GET', '/v1/orgs/acme/audit?target=site')).body.items as { event: string; actor: string }[];
    expect(audit).toContainEqual(expect.objectContaining({ event: 'project.create', actor: 'user:member@acme.test' }));
  });

  it('shows an invalid name on the form again, next to the field, with the name and the database box kept', async () => {
    const b = await as('member@acme.test');
    const r = await b.go('POST', LIST, { csrf: Browser.csrf(await b.go('GET', LIST)), name: 'Bad_Name', database: 'true' });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/<p id="create-project-name-error" class="field-error">a project name is a DNS label[^<]*<\/p><input id="create-project-name" name="name" type="text" value="Bad_Name" required aria-invalid="true"/);
    expect(r.text).toContain('name="database" type="checkbox" value="true" checked>');
  });

  it('says the plan\'s project limit in the console\'s words on the form, keeping the name entered', async () => {
    for (const name of ['two', 'three']) expect((await t2.call('POST', '/v1/orgs/acme/projects', { body: { name } })).status).toBe(201);
    const b = await as('member@acme.test');
    const r = await b.go('POST', LIST, { csrf: Browser.csrf(await b.go('GET', LIST)), name: 'four' });
    expect(r.status).toBe(409);
    expect(r.text).toContain('<p class="error" role="alert">The free plan allows 3 projects and this organization has 3: delete a project first, or ask an operator for a larger plan.</p>');
    expect(r.text).toContain('value="four"');
    expect(await projectStatus('four')).toBe(404);
  });

  it('shows a viewer no forms, and refuses a viewer\'s posts with the operations\' own 403', async () => {
    const b = await as('viewer@acme.test');
    const list = await b.go('GET', LIST);
    expect(list.text).not.toContain('create-project-name');
    const csrf = Browser.csrf(list);
    const created = await b.go('POST', LIST, { csrf, name: 'viewer-made' });
    expect(created.status).toBe(403);
    expect(created.text).toContain('createProject needs the member role or above');
    const page = await b.go('GET', SITE);
    expect(page.text).not.toContain('set-secret');
    expect(page.text).not.toContain(`${SITE}/delete`);
    const secret = await b.go('POST', `${SITE}/secrets`, { csrf, secretName: 'API_KEY', value: VALUE });
    expect(secret.status).toBe(403);
    expect(secret.text).toContain('setSecret needs the member role or above');
    expect((await t2.call('GET', `/v1/orgs/acme/projects/site/secrets/API_KEY`)).status).toBe(404);
  });

  it('refuses the forms without the session\'s CSRF token, changing nothing', async () => {
    const b = await as('admin@acme.test');
    expect((await b.go('POST', LIST, { csrf: 'forged', name: 'forged' })).status).toBe(403);
    expect((await b.go('POST', `${SITE}/secrets`, { csrf: 'forged', secretName: 'FORGED', value: VALUE })).status).toBe(403);
    expect((await b.go('POST', `${SITE}/delete`, { csrf: 'forged', confirm: 'site' })).status).toBe(403);
    expect(await projectStatus('forged')).toBe(404);
    expect(await projectStatus('site')).toBe(200);
    expect((await t2.call('GET', '/v1/orgs/acme/projects/site/secrets/FORGED')).status).toBe(404);
  });

  it('sets a secret as a member (audited), never showing its value again; a refused name is the form again without the value', async () => {
    const b = await as('member@acme.test');
    const page = await b.go('GET', SITE);
    expect(page.text).toContain('<label for="set-secret-value">Value');
    const r = await b.go('POST', `${SITE}/secrets`, { csrf: Browser.csrf(page), secretName: 'API_KEY', value: VALUE });
    expect(r.status).toBe(303);
    expect(r.location).toBe(SITE);
    const shown = await b.go('GET', SITE);
    expect(shown.text).toContain('<td>API_KEY</td><td>1</td>');
    expect(shown.text).not.toContain(VALUE);
    const audit = (await t2.call('GET', '/v1/orgs/acme/audit?target=site/API_KEY')).body.items as { event: string; actor: string }[];
    expect(audit).toContainEqual(expect.objectContaining({ event: 'secret.set', actor: 'user:member@acme.test' }));

    const refused = await b.go('POST', `${SITE}/secrets`, { csrf: Browser.csrf(page), secretName: 'DB', value: VALUE });
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/<p id="set-secret-secretName-error" class="field-error">[^<]*DB[^<]*<\/p><input id="set-secret-secretName" name="secretName" type="text" value="DB"/);
    expect(refused.text).toContain('<textarea id="set-secret-value" name="value" rows="4" required autocomplete="off" spellcheck="false"></textarea>');
    expect(refused.text).not.toContain(VALUE);
  });

  it('deletes a secret with the version the page showed; one set again since is 412 and stays', async () => {
    const b = await as('member@acme.test');
    const stale = hiddenOf(await b.go('GET', SITE), `${SITE}/secrets/delete`);
    expect((await t2.call('PUT', '/v1/orgs/acme/projects/site/secrets/API_KEY', { body: { value: 'again' } })).status).toBe(200);
    const refused = await b.go('POST', `${SITE}/secrets/delete`, stale);
    expect(refused.status).toBe(412);
    expect(refused.text).toContain('API_KEY was set again since this page showed it');
    const fresh = hiddenOf(await b.go('GET', SITE), `${SITE}/secrets/delete`);
    const r = await b.go('POST', `${SITE}/secrets/delete`, fresh);
    expect(r.status).toBe(303);
    expect((await t2.call('GET', '/v1/orgs/acme/projects/site/secrets/API_KEY')).status).toBe(404);
  });

  it('deletes a project only once an admin types its name again; a member gets deleteProject\'s 403', async () => {
    const member = await as('member@acme.test');
    expect((await member.go('GET', `${SITE}/delete`)).status).toBe(403);
    const admin = await as('admin@acme.test');
    expect((await admin.go('GET', SITE)).text).toContain(`<a href="${SITE}/delete">Delete site…</a>`);
    const confirm = await admin.go('GET', `${SITE}/delete`);
    const wrong = await admin.go('POST', `${SITE}/delete`, { csrf: Browser.csrf(confirm), confirm: 'Site' });
    expect(wrong.status).toBe(400);
    expect(await projectStatus('site')).toBe(200);
    const r = await admin.go('POST', `${SITE}/delete`, { csrf: Browser.csrf(confirm), confirm: 'site' });
    expect(r.status).toBe(303);
    expect(r.location).toBe(LIST);
    const after = await t2.call('GET', '/v1/orgs/acme/projects/site');
    expect(after.status === 404 || after.body.deletingSince !== null).toBe(true);
  });
});
