/**
 * The console's zone pages (issue 24 item 3) over HTTP: the organization's zones paged with their state and served
 * serial; a zone's conditions, DNSSEC and DS records, and its rrsets paged; members edit, delete and add rrsets with
 * the rrset's ETag as If-Match, so a second editor with the page from before is refused; viewers see no forms and
 * are refused when they post anyway; outsiders find nothing. Admins create a zone from the list (landing on its page)
 * and delete one after typing its name again; a refused name is the form again with the objection next to the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { hashPassword } from '../../../lib/access-hash';
import { zones } from '../../../store/schema';
import { setPasswordHash } from '../../../store/sessions';
import { recordStatus } from '../../../store/status';
import { ZONE_STATUS } from '../../../store/zones';
import { startTestApi, type TestApi } from '../../helpers/app';
import { Browser, nextHref, signedInAt, unescapeHtml, type Page } from '../../helpers/console-browser';

const PASSWORD = 'correct horse battery staple';
const DIGEST = 'AB'.repeat(32);

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi({ console: { pageSizes: { zones: 2, rrsets: 3 } } });
  const hash = await hashPassword(PASSWORD);
  for (const email of ['admin@acme.test', 'member@acme.test', 'viewer@acme.test', 'stranger@nowhere.test']) await setPasswordHash(t.store, email, hash);
  for (const name of ['a-zone.test', 'b-zone.test', 'c-zone.test']) expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } })).status).toBe(200);
  for (const [name, content] of [['www', '192.0.2.1'], ['api', '192.0.2.2'], ['mail', '192.0.2.3']]) {
    expect((await t.call('PUT', `/v1/orgs/acme/dns/zones/a-zone.test/rrsets/${name}.a-zone.test/A`, { body: { records: [{ content }], ttl: 300 } })).status).toBe(200);
  }
  const [zone] = await t.store.db.select().from(zones).where(eq(zones.name, 'a-zone.test'));
  await recordStatus(t.store, ZONE_STATUS, 'a-zone.test', {
    uid: zone!.uid, generation: zone!.generation,
    set: [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', message: 'knotd refused <script>alert(1)</script>' }],
    facts: { servedSerial: 2026112901, signerDs: [{ keyTag: 4242, algorithm: 13, digestType: 2, digest: DIGEST }] },
  });
  expect((await t.call('POST', '/v1/orgs/acme/dns/zones/a-zone.test/dnssec', { body: { enabled: true } })).status).toBe(200);
}, 120_000);
afterAll(async () => { await t.close(); });

const signedIn = (email: string): Promise<Browser> => signedInAt(t.url, email, PASSWORD);

/** The hidden fields of the form whose action is `action` and which names `rrset` ("www.a-zone.test A"). */
function formOf(page: Page, action: string, rrset: string): Record<string, string> {
  const [name, type] = rrset.split(' ');
  const forms = page.text.split('<form ').filter((f) => f.includes(`action="${action}"`));
  const form = forms.find((f) => f.includes(`name="name" value="${name}"`) && f.includes(`name="type" value="${type}"`))!;
  return Object.fromEntries([...form.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [m[1]!, unescapeHtml(m[2]!)]));
}

const ZONE = '/console/orgs/acme/zones/a-zone.test';
const rrsetOf = async (name: string, type: string) => (await t.call('GET', '/v1/orgs/acme/dns/zones/a-zone.test')).body.rrsets.find((r: { name: string; type: string }) => r.name === name && r.type === type);

describe('the zones list', { timeout: 120_000 }, () => {
  it('lists the org\'s zones a page at a time, each with its state and served serial, with a Next link; the org page links to it', async () => {
    const b = await signedIn('viewer@acme.test');
    expect((await b.go('GET', '/console/orgs/acme')).text).toContain('<a href="/console/orgs/acme/zones">Zones</a>');
    const first = await b.go('GET', '/console/orgs/acme/zones');
    expect(first.status).toBe(200);
    expect(first.text).toContain('<td><a href="/console/orgs/acme/zones/a-zone.test">a-zone.test</a></td><td>Failing</td><td>2026112901</td>');
    expect(first.text).toContain('<td><a href="/console/orgs/acme/zones/b-zone.test">b-zone.test</a></td><td>Progressing</td><td>none yet</td>');
    expect(first.text).not.toContain('c-zone.test');
    const second = await b.go('GET', nextHref(first));
    expect(second.status).toBe(200);
    expect(second.text).toContain('c-zone.test');
    expect(second.text).not.toContain('a-zone.test');
    expect(second.text).not.toContain('rel="next"');
  });

  it('refuses a cursor that is not the operation\'s (400 page) and is not found for an outsider (404)', async () => {
    const b = await signedIn('viewer@acme.test');
    expect((await b.go('GET', '/console/orgs/acme/zones?cursor=%21')).status).toBe(400);
    const outsider = await signedIn('stranger@nowhere.test');
    for (const path of ['/console/orgs/acme/zones', ZONE]) {
      const r = await outsider.go('GET', path);
      expect(r.status).toBe(404);
      expect(r.text).toContain('organization acme not found');
    }
  });
});

describe('a zone\'s page', { timeout: 120_000 }, () => {
  it('shows its conditions with how long, escaped; DNSSEC with the DS records for the registrar; and a page of its rrsets', async () => {
    const b = await signedIn('viewer@acme.test');
    const r = await b.go('GET', ZONE);
    expect(r.status).toBe(200);
    expect(r.text).toContain('<td>Ready</td><td>False</td><td>ApplyFailed</td><td>knotd refused &lt;script&gt;alert(1)&lt;/script&gt;</td>');
    expect(r.text).not.toContain('<script>');
    expect(r.text).toMatch(/<time datetime="[^"]+" title="[^"]+">\d+ s ago<\/time>/);
    expect(r.text).toContain('the nameserver serves 2026112901');
    expect(r.text).toContain(`a-zone.test. IN DS 4242 13 2 ${DIGEST}`);
    // A page of 3: the SOA first, then rrsets by name.
    expect(r.text).toContain('<td>a-zone.test</td><td>SOA</td>');
    expect(r.text).not.toContain('<td>www.a-zone.test</td>');
    expect((await b.go('GET', nextHref(r))).text).toContain('<td>www.a-zone.test</td><td>A</td><td>300</td><td><pre>192.0.2.1</pre></td>');
  });

  it('shows a viewer no forms, and refuses a viewer\'s post anyway (403 page), changing nothing', async () => {
    const viewer = await signedIn('viewer@acme.test');
    const page = await viewer.go('GET', `${ZONE}?cursor=${encodeURIComponent(/cursor=([^"&]+)/.exec((await viewer.go('GET', ZONE)).text)![1]!)}`);
    expect(page.text).not.toContain(`${ZONE}/rrsets`);
    const { csrf } = { csrf: Browser.csrf(page) };
    const before = await rrsetOf('www.a-zone.test', 'A');
    const r = await viewer.go('POST', `${ZONE}/rrsets/edit`, { csrf, name: 'www.a-zone.test', type: 'A', etag: before.etag, ttl: '60', records: '198.51.100.9' });
    expect(r.status).toBe(403);
    expect(r.text).toContain('putRRset needs the member role or above');
    expect((await viewer.go('POST', `${ZONE}/rrsets/delete`, { csrf, name: 'www.a-zone.test', type: 'A', etag: before.etag })).status).toBe(403);
    expect(await rrsetOf('www.a-zone.test', 'A')).toEqual(before);
  });
});

describe('changing rrsets as a member', { timeout: 120_000 }, () => {
  const pageWith = async (b: Browser, rrset: string): Promise<Page> => {
    let page = await b.go('GET', ZONE);
    for (;;) {
      const [name, type] = rrset.split(' ');
      if (page.text.includes(`<td>${name}</td><td>${type}</td>`)) return page;
      page = await b.go('GET', nextHref(page));
    }
  };

  it('saves an edit that carries the rrset\'s current ETag; an editor with the page from before gets 412 and a link to reload, and nothing of theirs is written', async () => {
    const first = await signedIn('member@acme.test');
    const second = await signedIn('member@acme.test');
    const action = `${ZONE}/rrsets/edit`;
    const mine = formOf(await pageWith(first, 'api.a-zone.test A'), action, 'api.a-zone.test A');
    const theirs = formOf(await pageWith(second, 'api.a-zone.test A'), action, 'api.a-zone.test A');
    const saved = await first.go('POST', action, { ...mine, ttl: '120', records: '198.51.100.1\r\n\r\n198.51.100.2\r\n' });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(ZONE);
    expect(await rrsetOf('api.a-zone.test', 'A')).toMatchObject({ ttl: 120, records: [{ content: '198.51.100.1' }, { content: '198.51.100.2' }] });
    const stale = await second.go('POST', action, { ...theirs, ttl: '60', records: '203.0.113.7' });
    expect(stale.status).toBe(412);
    expect(stale.text).toContain('api.a-zone.test A changed since this page showed it');
    expect(stale.text).toContain(`<a href="${ZONE}">Reload a-zone.test</a>`);
    expect((await rrsetOf('api.a-zone.test', 'A')).records).toEqual([{ content: '198.51.100.1' }, { content: '198.51.100.2' }]);
    const again = formOf(await pageWith(second, 'api.a-zone.test A'), action, 'api.a-zone.test A');
    expect((await second.go('POST', action, { ...again, ttl: '60', records: '203.0.113.7' })).status).toBe(303);
    expect(await rrsetOf('api.a-zone.test', 'A')).toMatchObject({ ttl: 60, records: [{ content: '203.0.113.7' }] });
  });

  it('refuses an edit without an ETag (412) rather than writing over what is stored', async () => {
    const b = await signedIn('member@acme.test');
    const csrf = formOf(await pageWith(b, 'mail.a-zone.test A'), `${ZONE}/rrsets/edit`, 'mail.a-zone.test A').csrf!;
    expect((await b.go('POST', `${ZONE}/rrsets/edit`, { csrf, name: 'mail.a-zone.test', type: 'A', ttl: '60', records: '203.0.113.8' })).status).toBe(412);
    expect((await rrsetOf('mail.a-zone.test', 'A')).records).toEqual([{ content: '192.0.2.3' }]);
  });

  it('shows bad records and TTLs as a 400 page naming the problem, escaped, with the way back to the zone', async () => {
    const b = await signedIn('member@acme.test');
    const form = formOf(await pageWith(b, 'mail.a-zone.test A'), `${ZONE}/rrsets/edit`, 'mail.a-zone.test A');
    const r = await b.go('POST', `${ZONE}/rrsets/edit`, { ...form, records: 'not an <address>' });
    expect(r.status).toBe(400);
    expect(r.text).toContain('&lt;address&gt;');
    expect(r.text).not.toContain('<address>');
    expect(r.text).toContain(`<a href="${ZONE}">Reload a-zone.test</a>`);
    for (const ttl of ['abc', '0', '1.5']) expect((await b.go('POST', `${ZONE}/rrsets/edit`, { ...form, ttl })).status).toBe(400);
  });

  it('deletes with the current ETag; a delete from a page shown before the rrset changed is 412', async () => {
    const b = await signedIn('member@acme.test');
    const stale = formOf(await pageWith(b, 'mail.a-zone.test A'), `${ZONE}/rrsets/delete`, 'mail.a-zone.test A');
    expect((await t.call('PUT', '/v1/orgs/acme/dns/zones/a-zone.test/rrsets/mail.a-zone.test/A', { body: { records: [{ content: '192.0.2.33' }] } })).status).toBe(200);
    const refused = await b.go('POST', `${ZONE}/rrsets/delete`, stale);
    expect(refused.status).toBe(412);
    expect(refused.text).toContain('mail.a-zone.test A changed since this page showed it');
    expect(await rrsetOf('mail.a-zone.test', 'A')).toBeDefined();
    const fresh = formOf(await pageWith(b, 'mail.a-zone.test A'), `${ZONE}/rrsets/delete`, 'mail.a-zone.test A');
    const r = await b.go('POST', `${ZONE}/rrsets/delete`, fresh);
    expect(r.status).toBe(303);
    expect(r.location).toBe(ZONE);
    expect(await rrsetOf('mail.a-zone.test', 'A')).toBeUndefined();
  });

  it('adds an rrset from the add form (TTL and records one per line); adding one that exists is 412, leaving it as it was', async () => {
    const b = await signedIn('member@acme.test');
    const page = await b.go('GET', ZONE);
    expect(page.text).toContain('<label for="add-records">');
    const csrf = Browser.csrf(page);
    const r = await b.go('POST', `${ZONE}/rrsets`, { csrf, name: 'txt.a-zone.test', type: 'TXT', ttl: '600', records: '"v=spf1 -all"\n"hello <world>"' });
    expect(r.status).toBe(303);
    expect(await rrsetOf('txt.a-zone.test', 'TXT')).toMatchObject({ ttl: 600, records: [{ content: '"hello <world>"' }, { content: '"v=spf1 -all"' }] });
    const shown = await pageWith(b, 'txt.a-zone.test TXT');
    expect(shown.text).toContain('&quot;hello &lt;world&gt;&quot;');
    const twice = await b.go('POST', `${ZONE}/rrsets`, { csrf, name: 'txt.a-zone.test', type: 'TXT', ttl: '60', records: '"other"' });
    expect(twice.status).toBe(412);
    expect(twice.text).toContain('txt.a-zone.test TXT exists already');
    expect((await rrsetOf('txt.a-zone.test', 'TXT')).ttl).toBe(600);
  });
});

describe('creating and deleting zones', { timeout: 120_000 }, () => {
  const LIST = '/console/orgs/acme/zones';
  const zoneExists = async (name: string): Promise<boolean> => (await t.call('GET', `/v1/orgs/acme/dns/zones/${name}`)).status === 200;

  it('creates a zone from the list as an admin (createZone, audited as the admin) and lands on its page', async () => {
    const b = await signedIn('admin@acme.test');
    const list = await b.go('GET', LIST);
    expect(list.text).toContain('<label for="create-zone-name">Zone name');
    const r = await b.go('POST', LIST, { csrf: Browser.csrf(list), name: 'New-Zone.test' });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`${LIST}/new-zone.test`);
    expect((await b.go('GET', r.location!)).text).toContain('<h1>new-zone.test</h1>');
    const audit = (await t.call('GET', '/v1/orgs/acme/audit?target=new-zone.test')).body.items as { event: string; actor: string }[];
    expect(audit).toContainEqual(expect.objectContaining({ event: 'dns.zone.create', actor: 'user:admin@acme.test' }));
  });

  it('shows a refused name as the list with the form again: the objection next to the field, the name kept and escaped', async () => {
    const b = await signedIn('admin@acme.test');
    const csrf = Browser.csrf(await b.go('GET', LIST));
    const r = await b.go('POST', LIST, { csrf, name: 'com' });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/<label for="create-zone-name">Zone name[^]*<\/label><p id="create-zone-name-error" class="field-error">[^<]+<\/p><input id="create-zone-name" name="name" type="text" value="com" required aria-invalid="true" aria-describedby="create-zone-name-error">/);
    const evil = await b.go('POST', LIST, { csrf, name: '"><b>x' });
    expect(evil.status).toBe(400);
    expect(evil.text).toContain('value="&quot;&gt;&lt;b&gt;x"');
    expect(evil.text).not.toContain('<b>x');
  });

  it('shows a member no create form, and refuses a member\'s post with createZone\'s own 403, creating nothing', async () => {
    const b = await signedIn('member@acme.test');
    const list = await b.go('GET', LIST);
    expect(list.text).not.toContain('create-zone-name');
    const r = await b.go('POST', LIST, { csrf: Browser.csrf(list), name: 'member-made.test' });
    expect(r.status).toBe(403);
    expect(r.text).toContain('createZone needs the admin role or above');
    expect(await zoneExists('member-made.test')).toBe(false);
  });

  it('refuses a create or delete form without the session\'s CSRF token, changing nothing', async () => {
    const b = await signedIn('admin@acme.test');
    expect((await b.go('POST', LIST, { csrf: 'forged', name: 'forged.test' })).status).toBe(403);
    expect(await zoneExists('forged.test')).toBe(false);
    expect((await b.go('POST', `${LIST}/c-zone.test/delete`, { csrf: 'forged', confirm: 'c-zone.test' })).status).toBe(403);
    expect(await zoneExists('c-zone.test')).toBe(true);
  });

  it('deletes a zone only once its name is typed again; a member gets deleteZone\'s 403 at both steps', async () => {
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'doomed.test' } })).status).toBe(200);
    const member = await signedIn('member@acme.test');
    expect((await member.go('GET', `${LIST}/doomed.test`)).text).not.toContain('/delete');
    expect((await member.go('GET', `${LIST}/doomed.test/delete`)).status).toBe(403);
    const refused = await member.go('POST', `${LIST}/doomed.test/delete`, { csrf: Browser.csrf(await member.go('GET', LIST)), confirm: 'doomed.test' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('deleteZone needs the admin role or above');

    const admin = await signedIn('admin@acme.test');
    expect((await admin.go('GET', `${LIST}/doomed.test`)).text).toContain(`<a href="${LIST}/doomed.test/delete">Delete doomed.test…</a>`);
    const confirm = await admin.go('GET', `${LIST}/doomed.test/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('<label for="delete-confirm">Type doomed.test to confirm</label>');
    const wrong = await admin.go('POST', `${LIST}/doomed.test/delete`, { csrf: Browser.csrf(confirm), confirm: 'doomed' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('<p id="delete-confirm-error" class="field-error">Type doomed.test exactly as it is shown.</p>');
    expect(await zoneExists('doomed.test')).toBe(true);
    const r = await admin.go('POST', `${LIST}/doomed.test/delete`, { csrf: Browser.csrf(confirm), confirm: 'doomed.test' });
    expect(r.status).toBe(303);
    expect(r.location).toBe(LIST);
    expect(await zoneExists('doomed.test')).toBe(false);
  });
});
