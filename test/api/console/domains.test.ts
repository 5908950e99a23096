/**
 * The console's domain pages (issue 24 item 3) over HTTP, against the sandbox registrar and payment provider: the
 * organization's domains paged with state, expiry, lock and auto-renew, never a contact or payment reference; a
 * domain with its registration, purchase step, ledger and conditions escaped; members sync, admins lock, unlock and
 * turn auto-renew on and off through the operations (audited as theirs) with the domain's ETag; a registrar that
 * fails or is not there is a page that says so; viewers see no forms and are refused when they post anyway;
 * outsiders find nothing; a form without the session's CSRF token changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../lib/access-hash';
import { recordDomainConditions } from '../../../store/domains';
import { setPasswordHash } from '../../../store/sessions';
import { startTestApi, type TestApi } from '../../helpers/app';
import { Browser, type Page } from '../../helpers/console-browser';
import { CONTACT_VALUES, purchaseBody, startProviders, type Providers } from '../../helpers/domains';

const PASSWORD = 'correct horse battery staple';
const LIST = '/console/orgs/acme/domains';
const DOMAIN = `${LIST}/alpha.com`;

let t: TestApi;
let p: Providers;

const withPasswords = async (api: TestApi): Promise<void> => {
  const hash = await hashPassword(PASSWORD);
  for (const email of ['admin@acme.test', 'member@acme.test', 'viewer@acme.test', 'stranger@nowhere.test']) await setPasswordHash(api.store, email, hash);
};

beforeAll(async () => {
  p = await startProviders();
  t = await startTestApi({ domains: p.domains, console: { pageSizes: { domains: 2 } } });
  await withPasswords(t);
  for (const name of ['alpha.com', 'beta.com', 'gamma.com']) expect((await t.call('POST', '/v1/orgs/acme/domains', { body: purchaseBody(name) })).status).toBe(201);
  await recordDomainConditions(t.store, 'beta.com', [{ type: 'Synced', status: 'False', reason: 'RegistrarUnavailable', message: 'registrar said <script>alert(1)</script>' }], null);
}, 120_000);
afterAll(async () => {
  await t.close();
  await p.close();
});

const signedIn = async (email: string, api = t): Promise<Browser> => {
  const b = new Browser(api.url);
  expect((await b.signIn(email, PASSWORD)).status).toBe(303);
  return b;
};
const audit = async () => (await t.call('GET', '/v1/orgs/acme/audit?limit=1000')).body.items as { event: string; target: string; actor: string; details?: unknown }[];
const etagOf = (page: Page, action: string): string => {
  const form = page.text.split('<form ').find((f) => f.includes(`action="${action}"`))!;
  return /name="etag" value="([^"]+)"/.exec(form)![1]!.replace(/&quot;/g, '"');
};
const registrarLock = (name: string): boolean => p.registrar.domains().find((d) => d.name === name)!.locked;

describe('the domains list', { timeout: 120_000 }, () => {
  it('lists the org\'s domains a page at a time with state, expiry, lock and auto-renew, and never a contact or payment reference', async () => {
    const b = await signedIn('viewer@acme.test');
    expect((await b.go('GET', '/console/orgs/acme')).text).toContain(`<a href="${LIST}">Domains</a>`);
    const first = await b.go('GET', LIST);
    expect(first.status).toBe(200);
    expect(first.text).toMatch(new RegExp(`<td><a href="${DOMAIN}">alpha.com</a></td><td>\\w+</td><td>Registered</td><td><time datetime="[^"]+" title="[^"]+">\\d{4}-\\d{2}-\\d{2}</time></td><td>On</td><td>On</td>`));
    expect(first.text).toContain('<td><a href="/console/orgs/acme/domains/beta.com">beta.com</a></td><td>Failing</td>');
    expect(first.text).not.toContain('gamma.com');
    const second = await b.go('GET', /<a rel="next" href="([^"]+)">Next page<\/a>/.exec(first.text)![1]!);
    expect(second.text).toContain('gamma.com');
    expect(second.text).not.toContain('alpha.com');
    for (const page of [first, second, await b.go('GET', DOMAIN)]) {
      for (const secret of [...CONTACT_VALUES, 'pm_card_visa']) expect(page.text).not.toContain(secret);
    }
  });

  it('refuses a cursor that is not the API\'s (400) and is not found for an outsider (404)', async () => {
    expect((await (await signedIn('viewer@acme.test')).go('GET', `${LIST}?cursor=%21`)).status).toBe(400);
    const outsider = await signedIn('stranger@nowhere.test');
    for (const path of [LIST, DOMAIN]) {
      const r = await outsider.go('GET', path);
      expect(r.status).toBe(404);
      expect(r.text).toContain('organization acme not found');
    }
  });
});

describe('a domain\'s page', { timeout: 120_000 }, () => {
  it('shows its registration, purchase step, ledger and conditions, escaped; takes the name in any case', async () => {
    const b = await signedIn('viewer@acme.test');
    const r = await b.go('GET', DOMAIN);
    expect(r.status).toBe(200);
    expect(r.text).toContain('<tr><th scope="row">Transfer lock</th><td>On</td></tr>');
    expect(r.text).toContain('<tr><th scope="row">Nameservers</th><td>ns1.hostplane.test, ns2.hostplane.test</td></tr>');
    expect(r.text).toContain('<tr><th scope="row">Purchase step</th><td>none: no purchase under way</td></tr>');
    expect(r.text).toMatch(/<tr><td><time datetime="[^"]+" title="[^"]+">\d+ s ago<\/time><\/td><td>charge<\/td><td>8.99 USD<\/td>/);
    const beta = await b.go('GET', `${LIST}/beta.com`);
    expect(beta.text).toContain('<td>Synced</td><td>False</td><td>RegistrarUnavailable</td><td>registrar said &lt;script&gt;alert(1)&lt;/script&gt;</td>');
    expect(beta.text).not.toContain('<script>');
    expect((await b.go('GET', `${LIST}/nothing.com`)).status).toBe(404);
    expect((await b.go('GET', `${LIST}/ALPHA.com`)).status).toBe(200);
    expect((await b.go('GET', `${LIST}/not%20a%20domain`)).status).toBe(400);
  });

  it('shows a viewer no forms and a member only "Read from the registrar now"; both are refused the admin\'s forms (403 page), changing nothing', async () => {
    const viewer = await signedIn('viewer@acme.test');
    const seen = await viewer.go('GET', DOMAIN);
    for (const action of ['sync', 'lock', 'auto-renew']) expect(seen.text).not.toContain(`action="${DOMAIN}/${action}"`);
    const member = await signedIn('member@acme.test');
    const memberPage = await member.go('GET', DOMAIN);
    expect(memberPage.text).toContain(`action="${DOMAIN}/sync"`);
    expect(memberPage.text).not.toContain(`action="${DOMAIN}/lock"`);
    const admin = await signedIn('admin@acme.test');
    const etag = etagOf(await admin.go('GET', DOMAIN), `${DOMAIN}/lock`);
    for (const [b, page] of [[viewer, seen], [member, memberPage]] as const) {
      const r = await b.go('POST', `${DOMAIN}/lock`, { csrf: Browser.csrf(page), etag, locked: 'false' });
      expect(r.status).toBe(403);
      expect(r.text).toContain('setDomainLock needs the admin role or above');
      expect((await b.go('POST', `${DOMAIN}/auto-renew`, { csrf: Browser.csrf(page), etag, autoRenew: 'false' })).status).toBe(403);
    }
    expect((await viewer.go('POST', `${DOMAIN}/sync`, { csrf: Browser.csrf(seen) })).status).toBe(403);
    expect(registrarLock('alpha.com')).toBe(true);
    expect((await t.call('GET', '/v1/orgs/acme/domains/alpha.com')).body.autoRenew).toBe(true);
  });
});

describe('the forms', { timeout: 120_000 }, () => {
  it('a member reads the domain from the registrar now', async () => {
    const b = await signedIn('member@acme.test');
    const r = await b.go('POST', `${DOMAIN}/sync`, { csrf: Browser.csrf(await b.go('GET', DOMAIN)) });
    expect(r.status).toBe(303);
    expect(r.location).toBe(DOMAIN);
  });

  it('an admin unlocks and locks at the registrar (audited domain.lock as the admin); a page from before the change is 412', async () => {
    const b = await signedIn('admin@acme.test');
    const before = await b.go('GET', DOMAIN);
    const form = { csrf: Browser.csrf(before), etag: etagOf(before, `${DOMAIN}/lock`) };
    const r = await b.go('POST', `${DOMAIN}/lock`, { ...form, locked: 'false' });
    expect(r.status).toBe(303);
    expect(r.location).toBe(DOMAIN);
    expect(registrarLock('alpha.com')).toBe(false);
    expect((await b.go('GET', DOMAIN)).text).toContain('Lock against transfer');
    expect((await audit()).find((e) => e.event === 'domain.lock' && e.target === 'alpha.com')).toMatchObject({ actor: 'user:admin@acme.test', details: { locked: false } });
    const stale = await b.go('POST', `${DOMAIN}/lock`, { ...form, locked: 'true' });
    expect(stale.status).toBe(412);
    expect(stale.text).toContain('alpha.com changed since this page showed it');
    expect(registrarLock('alpha.com')).toBe(false);
    // A form without the ETag names no version: refused, not applied over whatever is stored.
    expect((await b.go('POST', `${DOMAIN}/lock`, { csrf: form.csrf, locked: 'true' })).status).toBe(412);
    expect(registrarLock('alpha.com')).toBe(false);
    const fresh = await b.go('GET', DOMAIN);
    expect((await b.go('POST', `${DOMAIN}/lock`, { csrf: form.csrf, etag: etagOf(fresh, `${DOMAIN}/lock`), locked: 'true' })).status).toBe(303);
    expect(registrarLock('alpha.com')).toBe(true);
  });

  it('an admin turns auto-renew off (audited domain.auto_renew); a value that is no boolean is the operation\'s 400', async () => {
    const b = await signedIn('admin@acme.test');
    const page = await b.go('GET', `${LIST}/gamma.com`);
    const form = { csrf: Browser.csrf(page), etag: etagOf(page, `${LIST}/gamma.com/auto-renew`) };
    expect((await b.go('POST', `${LIST}/gamma.com/auto-renew`, { ...form, autoRenew: 'maybe' })).status).toBe(400);
    expect((await b.go('POST', `${LIST}/gamma.com/auto-renew`, { ...form, autoRenew: 'false' })).status).toBe(303);
    expect((await b.go('GET', `${LIST}/gamma.com`)).text).toContain('<tr><th scope="row">Auto-renew</th><td>Off:');
    expect((await audit()).find((e) => e.event === 'domain.auto_renew' && e.target === 'gamma.com')).toMatchObject({ actor: 'user:admin@acme.test' });
  });

  it('a registrar that fails is a 502 page saying so, with the way back; the lock stays as it was', async () => {
    const b = await signedIn('admin@acme.test');
    const page = await b.go('GET', DOMAIN);
    p.registrar.fault({ mode: 'fail' });
    try {
      const r = await b.go('POST', `${DOMAIN}/lock`, { csrf: Browser.csrf(page), etag: etagOf(page, `${DOMAIN}/lock`), locked: 'false' });
      expect(r.status).toBe(502);
      expect(r.text).toContain('A provider failed');
      expect(r.text).toContain('The registrar could not do it, so nothing changed');
      expect(r.text).toContain(`<a href="${DOMAIN}">Back to alpha.com</a>`);
    } finally {
      p.registrar.fault(null);
    }
    expect(registrarLock('alpha.com')).toBe(true);
  });

  it('refuses a form without the session\'s CSRF token, or sent from another site, changing nothing', async () => {
    const b = await signedIn('admin@acme.test');
    const page = await b.go('GET', DOMAIN);
    const etag = etagOf(page, `${DOMAIN}/lock`);
    expect((await b.go('POST', `${DOMAIN}/lock`, { csrf: 'forged', etag, locked: 'false' })).status).toBe(403);
    expect((await b.go('POST', `${DOMAIN}/lock`, { csrf: Browser.csrf(page), etag, locked: 'false' }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect(registrarLock('alpha.com')).toBe(true);
  });
});

describe('without a registrar', { timeout: 120_000 }, () => {
  it('a sync is a 503 page that says the registrar could not do it', async () => {
    const bare = await startTestApi();
    try {
      await withPasswords(bare);
      expect((await bare.call('POST', '/v1/orgs/acme/domains/import', { body: { name: 'imported.org' } })).status).toBe(201);
      const b = await signedIn('member@acme.test', bare);
      const page = await b.go('GET', `${LIST}/imported.org`);
      expect(page.text).toContain('Imported (registered elsewhere)');
      expect(page.text).not.toContain(`action="${LIST}/imported.org/lock"`);
      const r = await b.go('POST', `${LIST}/imported.org/sync`, { csrf: Browser.csrf(page) });
      expect(r.status).toBe(503);
      expect(r.text).toContain('The registrar could not do it, so nothing changed');
    } finally {
      await bare.close();
    }
  });
});
