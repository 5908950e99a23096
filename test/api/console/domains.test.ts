/**
 * The console's domain pages (issue 24 item 3) over HTTP, against the sandbox registrar and payment provider: the
 * organization's domains paged with state, expiry, lock and auto-renew, never a contact or payment reference; a
 * domain with its registration, purchase step, ledger and conditions escaped; members sync, admins lock, unlock and
 * turn auto-renew on and off through the operations (audited as theirs) with the domain's ETag; a registrar that
 * fails or is not there is a page that says so; viewers see no forms and are refused when they post anyway;
 * outsiders find nothing; a form without the session's CSRF token changes nothing. Members check names' availability
 * and price; admins buy one with the whole purchase body (a form sent twice buys once: its Idempotency-Key is made
 * with the form) and import one; a refused field is said next to it, with what was entered kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../lib/access-hash';
import { recordDomainConditions } from '../../../store/domains';
import { setPasswordHash } from '../../../store/sessions';
import { startTestApi, type TestApi } from '../../helpers/app';
import { Browser, type Page } from '../../helpers/console-browser';
import { CONTACT, CONTACT_VALUES, purchaseBody, startProviders, type Providers } from '../../helpers/domains';

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

describe('checking, buying and importing domains', { timeout: 120_000 }, () => {
  const hiddenIn = (page: Page, name: string): string => new RegExp(`name="${name}" value="([^"]+)"`).exec(page.text)![1]!;
  const buyForm = (page: Page, over: Record<string, string> = {}): Record<string, string> => ({
    csrf: Browser.csrf(page), idempotencyKey: hiddenIn(page, 'idempotencyKey'), name: 'console-buy.com', years: '2',
    'contact.name': CONTACT.name, 'contact.email': CONTACT.email, 'contact.phone': CONTACT.phone, 'contact.address.line1': CONTACT.address.line1,
    'contact.address.city': CONTACT.address.city, 'contact.address.postalCode': CONTACT.address.postalCode, 'contact.country': CONTACT.country,
    paymentMethod: 'pm_card_visa', ...over,
  });

  it('checks names as a member: availability with the first year\'s and the renewal\'s price, and no buy link for a member', async () => {
    const b = await signedIn('member@acme.test');
    const list = await b.go('GET', LIST);
    expect(list.text).toContain('<label for="check-names">Names');
    expect(list.text).not.toContain('import-name');
    const r = await b.go('POST', `${LIST}/check`, { csrf: Browser.csrf(list), names: 'free-one.com\r\nalpha.com' });
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/<tr><td>free-one\.com<\/td><td>Available<\/td><td>\d+\.\d\d [A-Z]{3}<\/td><td>\d+\.\d\d [A-Z]{3}<\/td>/);
    expect(r.text).toContain('<td>alpha.com</td><td>Taken</td>');
    expect(r.text).not.toContain('/buy?');
  });

  it('shows a name the operation refuses next to the names field, kept; a viewer gets checkDomains\' 403', async () => {
    const b = await signedIn('member@acme.test');
    const r = await b.go('POST', `${LIST}/check`, { csrf: Browser.csrf(await b.go('GET', LIST)), names: 'x'.repeat(254) });
    expect(r.status).toBe(400);
    expect(r.text).toContain('<p id="check-names-error" class="field-error">');
    expect(r.text).toContain(`>${'x'.repeat(254)}</textarea>`);
    const viewer = await signedIn('viewer@acme.test');
    const list = await viewer.go('GET', LIST);
    expect(list.text).not.toContain('check-names');
    const refused = await viewer.go('POST', `${LIST}/check`, { csrf: Browser.csrf(list), names: 'free-one.com' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('checkDomains needs the member role or above');
  });

  it('buys once from a form sent twice (one registration, one charge), with the years, registrant and auto-renew of the form', async () => {
    const b = await signedIn('admin@acme.test');
    const checked = await b.go('POST', `${LIST}/check`, { csrf: Browser.csrf(await b.go('GET', LIST)), names: 'console-buy.com' });
    expect(checked.text).toContain(`<a href="${LIST}/buy?name=console-buy.com">Buy console-buy.com</a>`);
    const form = await b.go('GET', `${LIST}/buy?name=console-buy.com`);
    expect(form.status).toBe(200);
    expect(form.text).toContain('<input id="buy-name" name="name" type="text" value="console-buy.com" required>');
    for (const id of [...form.text.matchAll(/<(?:input|textarea) id="([\w-]+)"/g)].map((m) => m[1])) expect(form.text).toContain(`<label for="${id}">`);
    const charges = p.payments.charges().length;
    const sent = buyForm(form);
    const first = await b.go('POST', `${LIST}/buy`, sent);
    expect(first.status).toBe(303);
    expect(first.location).toBe(`${LIST}/console-buy.com`);
    const again = await b.go('POST', `${LIST}/buy`, sent);
    expect(again.status).toBe(303);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(p.registrar.domains().filter((d) => d.name === 'console-buy.com')).toHaveLength(1);
    expect(p.payments.charges().length).toBe(charges + 1);
    const bought = (await t.call('GET', '/v1/orgs/acme/domains/console-buy.com')).body;
    expect(bought).toMatchObject({ status: 'active', autoRenew: false });
    const page = await b.go('GET', `${LIST}/console-buy.com`);
    for (const v of CONTACT_VALUES) expect(page.text).not.toContain(v);
  });

  it('shows a refused field next to it on the form again, with what was entered kept and a new key; a member gets purchaseDomain\'s 403', async () => {
    const b = await signedIn('admin@acme.test');
    const form = await b.go('GET', `${LIST}/buy?name=refused-buy.com`);
    const sent = buyForm(form, { name: 'refused-buy.com', 'contact.phone': '555-0100', autoRenew: 'true' });
    const r = await b.go('POST', `${LIST}/buy`, sent);
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/<p id="buy-contact-phone-error" class="field-error">phone is \+CC\.NUMBER[^<]*<\/p><input id="buy-contact-phone" name="contact.phone" type="tel" value="555-0100"/);
    expect(r.text).toContain(`value="${CONTACT.address.city}"`);
    expect(r.text).toContain('name="autoRenew" type="checkbox" value="true" checked>');
    expect(hiddenIn(r, 'idempotencyKey')).not.toBe(sent.idempotencyKey);
    expect(p.registrar.domains().some((d) => d.name === 'refused-buy.com')).toBe(false);

    const member = await signedIn('member@acme.test');
    expect((await member.go('GET', `${LIST}/buy?name=refused-buy.com`)).status).toBe(403);
    const refused = await member.go('POST', `${LIST}/buy`, { ...sent, csrf: Browser.csrf(await member.go('GET', LIST)), 'contact.phone': CONTACT.phone });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('purchaseDomain needs the admin role or above');
  });

  it('imports a domain as an admin and lands on its page; a refused name is said next to the field; a member sees no import form', async () => {
    const b = await signedIn('admin@acme.test');
    const list = await b.go('GET', LIST);
    expect(list.text).toContain('<label for="import-name">Domain');
    const r = await b.go('POST', `${LIST}/import`, { csrf: Browser.csrf(list), name: 'Imported-Here.org' });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`${LIST}/imported-here.org`);
    expect((await t.call('GET', '/v1/orgs/acme/domains/imported-here.org')).body.status).toBe('imported');
    const bad = await b.go('POST', `${LIST}/import`, { csrf: Browser.csrf(list), name: 'com' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('<p id="import-name-error" class="field-error">');
    expect(bad.text).toContain('value="com"');
  });

  it('refuses the forms without the session\'s CSRF token, buying and importing nothing', async () => {
    const b = await signedIn('admin@acme.test');
    const form = await b.go('GET', `${LIST}/buy?name=forged-buy.com`);
    expect((await b.go('POST', `${LIST}/buy`, buyForm(form, { csrf: 'forged', name: 'forged-buy.com' }))).status).toBe(403);
    expect((await b.go('POST', `${LIST}/import`, { csrf: 'forged', name: 'forged-import.org' })).status).toBe(403);
    expect((await b.go('POST', `${LIST}/check`, { csrf: 'forged', names: 'forged.com' })).status).toBe(403);
    expect(p.registrar.domains().some((d) => d.name === 'forged-buy.com')).toBe(false);
    expect((await t.call('GET', '/v1/orgs/acme/domains/forged-import.org')).status).toBe(404);
  });
});
