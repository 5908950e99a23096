/**
 * Live pages (issue 24 item 3; api/console/kit.ts Kit.live, api/console/live.ts): a live page carries its version
 * and loads /console/live.js; the same URL with `?live=<version>` answers the page's version at once when what it
 * shows has moved on, else holds until a change of what it watches (the zone for a zone's page, any change for the
 * organization page and the zone list) or `wait` seconds pass. The page's roles hold: an outsider finds nothing.
 */
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { hashPassword } from '../../../lib/access-hash';
import { LIVE_SCRIPT } from '../../../api/console/live';
import { waiting } from '../../../api/wait';
import { hostnames, zones } from '../../../store/schema';
import { HOSTNAME_STATUS } from '../../../store/hostnames';
import { setPasswordHash } from '../../../store/sessions';
import { recordStatus } from '../../../store/status';
import { ZONE_STATUS } from '../../../store/zones';
import { startTestApi, type TestApi } from '../../helpers/app';
import { Browser, signedInAt } from '../../helpers/console-browser';

const PASSWORD = 'correct horse battery staple';
const ZONE = '/console/orgs/acme/zones/live-zone.test';

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi();
  const hash = await hashPassword(PASSWORD);
  for (const email of ['viewer@acme.test', 'admin@acme.test', 'stranger@nowhere.test']) await setPasswordHash(t.store, email, hash);
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'live-p' } })).status).toBe(201);
  expect((await t.call('POST', '/v1/orgs/acme/projects/live-p/hostnames', { body: { name: 'www.live-host.test' } })).status).toBe(200);
  expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'live-zone.test' } })).status).toBe(200);
}, 120_000);
afterAll(async () => { await t.close(); });

const signedIn = (email: string): Promise<Browser> => signedInAt(t.url, email, PASSWORD);

const versionIn = (text: string): string => /<main data-live="([^"]+)">/.exec(text)![1]!;

async function markReady(reason: string): Promise<void> {
  const [zone] = await t.store.db.select().from(zones).where(eq(zones.name, 'live-zone.test'));
  await recordStatus(t.store, ZONE_STATUS, 'live-zone.test', {
    uid: zone!.uid, generation: zone!.generation, set: [{ type: 'Ready', status: reason === 'Served' ? 'True' : 'False', reason, message: reason }],
  });
}

/** Polls `path` with `version`, and once the poll is held (counted by api/wait.ts), makes `change`. */
async function heldThen(b: Browser, path: string, version: string, change: () => Promise<unknown>): Promise<{ status: number; version: string }> {
  const before = waiting(t.store);
  const started = Date.now();
  const poll = b.go('GET', `${path}?live=${version}&wait=20`);
  await vi.waitFor(() => expect(waiting(t.store)).toBeGreaterThan(before), { timeout: 10_000 });
  await change();
  const r = await poll;
  if (r.status !== 200) throw new Error(`${path} answered the poll ${r.status}: ${r.text.slice(0, 500)}`);
  // Woken by the change, not answered at the end of its wait (which would re-read and see the change too).
  expect(Date.now() - started, path).toBeLessThan(15_000);
  return { status: r.status, version: (JSON.parse(r.text) as { version: string }).version };
}

describe('a live page', { timeout: 120_000 }, () => {
  it('carries its version, the status line (aria-live polite, outside <main>) and the same-origin script; the policy lets it run and fetch', async () => {
    const b = await signedIn('viewer@acme.test');
    const r = await b.go('GET', ZONE);
    expect(r.status).toBe(200);
    expect(r.text).toContain('<script src="/console/live.js" defer></script>');
    expect(r.text).toMatch(/<p id="live-status" class="live-status" role="status" aria-live="polite"><\/p>\n<main data-live="[\w-]{22}">/);
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self'; connect-src 'self'");
    const script = await b.go('GET', '/console/live.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.text).toBe(LIVE_SCRIPT);
    // A page that is not live has neither.
    const account = await b.go('GET', '/console/account');
    expect(account.text).not.toContain('live.js');
    expect(account.text).toContain('<main>');
  });

  it('answers at once with the current version when the one given is behind', async () => {
    const b = await signedIn('viewer@acme.test');
    const current = versionIn((await b.go('GET', ZONE)).text);
    const started = Date.now();
    const r = await b.go('GET', `${ZONE}?live=behind&wait=20`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(JSON.parse(r.text)).toEqual({ version: current });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('holds a zone page\'s poll until the zone\'s status changes, then answers the version of the page as it is now', async () => {
    const b = await signedIn('viewer@acme.test');
    const before = versionIn((await b.go('GET', ZONE)).text);
    const r = await heldThen(b, ZONE, before, () => markReady('ApplyFailed'));
    expect(r.status).toBe(200);
    expect(r.version).not.toBe(before);
    const page = await b.go('GET', ZONE);
    expect(versionIn(page.text)).toBe(r.version);
    expect(page.text).toContain('<p data-live-summary>State: Failing.');
  });

  it('holds up to `wait` seconds when nothing changes, then answers the same version; a `wait` out of range is a 400 page', async () => {
    const b = await signedIn('viewer@acme.test');
    const current = versionIn((await b.go('GET', ZONE)).text);
    const started = Date.now();
    const r = await b.go('GET', `${ZONE}?live=${current}&wait=1`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(JSON.parse(r.text)).toEqual({ version: current });
    expect(waiting(t.store)).toBe(0);
    for (const wait of ['31', 'x', '-1']) expect((await b.go('GET', `${ZONE}?live=${current}&wait=${wait}`)).status).toBe(400);
  });

  it('holds the organization page and the zone list until any change of the organization shows on them', async () => {
    const b = await signedIn('viewer@acme.test');
    for (const [path, name] of [['/console/orgs/acme', 'org-page.test'], ['/console/orgs/acme/zones', 'a-list.test']] as const) {
      const before = versionIn((await b.go('GET', path)).text);
      const r = await heldThen(b, path, before, () => t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } }));
      expect(r.version, path).not.toBe(before);
      expect(versionIn((await b.go('GET', path)).text)).toBe(r.version);
    }
  });

  it('makes every page that shows resources live, each woken by a change it shows', async () => {
    const b = await signedIn('admin@acme.test');
    const host = '/console/orgs/acme/projects/live-p/hostnames/www.live-host.test';
    const pages: [string, () => Promise<unknown>][] = [
      ['/console/orgs/acme/projects', () => t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'live-p2' } })],
      ['/console/orgs/acme/projects/live-p', () => t.call('PUT', '/v1/orgs/acme/projects/live-p/secrets/API_KEY', { body: { value: 'v1' } })],
      ['/console/orgs/acme/hostnames', () => t.call('POST', '/v1/orgs/acme/projects/live-p/hostnames', { body: { name: 'api.live-host.test' } })],
      [host, async () => {
        const [h] = await t.store.db.select().from(hostnames).where(eq(hostnames.name, 'www.live-host.test'));
        await recordStatus(t.store, HOSTNAME_STATUS, h!.name, { uid: h!.uid, generation: h!.generation, set: [{ type: 'Ready', status: 'False', reason: 'NotVerified', message: 'no proof yet' }] });
        return { status: 200 };
      }],
      ['/console/orgs/acme/domains', () => t.call('POST', '/v1/orgs/acme/domains/import', { body: { name: 'live-domain.test' } })],
      ['/console/orgs/acme/domains/live-domain.test', () => t.call('POST', '/v1/orgs/acme/domains/live-domain.test/auto-renew', { body: { autoRenew: true } })],
      ['/console/orgs/acme/audit', () => t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'audited.test' } })],
    ];
    for (const [path, change] of pages) {
      const page = await b.go('GET', path);
      expect(page.status, path).toBe(200);
      expect(page.text, path).toContain('<script src="/console/live.js" defer></script>');
      const before = versionIn(page.text);
      const r = await heldThen(b, path, before, async () => expect((await change() as { status: number }).status, path).toBeLessThan(300));
      expect(r.version, path).not.toBe(before);
    }
    expect((await b.go('GET', '/console/orgs/acme/nodes')).text).toContain('<script src="/console/live.js" defer></script>');
  });

  it('is not found for an outsider (404 page), before any wait; the signed-out are sent to sign in', async () => {
    const outsider = await signedIn('stranger@nowhere.test');
    for (const path of [ZONE, '/console/orgs/acme', '/console/orgs/acme/zones']) {
      const r = await outsider.go('GET', `${path}?live=x&wait=20`);
      expect(r.status, path).toBe(404);
      expect(r.text).toContain('organization acme not found');
    }
    expect(waiting(t.store)).toBe(0);
    const r = await new Browser(t.url).go('GET', `${ZONE}?live=x`);
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/console\/sign-in\?next=/);
  });
});

describe('a live page of many (an organization\'s)', { timeout: 120_000 }, () => {
  const reads = async (): Promise<number> => (await t.registry.getSingleMetric('hostplane_console_live_reads_total')!.get()).values[0]?.value ?? 0;
  /** `writes` status writes of `zone` as fast as they go, none changing what an organization's page shows (a True
   * condition's message); answers how many ms they took. */
  async function churn(zone: string, writes: number): Promise<number> {
    const [row] = await t.store.db.select().from(zones).where(eq(zones.name, zone));
    const started = Date.now();
    for (let i = 0; i < writes; i++) {
      await recordStatus(t.store, ZONE_STATUS, zone, { uid: row!.uid, generation: row!.generation, set: [{ type: 'Signed', status: 'True', reason: 'Signed', message: `pass ${i}` }] });
    }
    return Date.now() - started;
  }

  beforeAll(async () => {
    expect((await t.call('POST', '/v1/orgs/globex/dns/zones', { token: t.other.token, body: { name: 'globex-live.test' } })).status).toBe(200);
  });

  it('is neither answered nor read again by another organization\'s writes, and is answered by its own', async () => {
    const b = await signedIn('viewer@acme.test');
    const before = versionIn((await b.go('GET', '/console/orgs/acme')).text);
    const held = waiting(t.store);
    let answered = false;
    const poll = b.go('GET', `/console/orgs/acme?live=${before}&wait=20`).then((r) => { answered = true; return r; });
    await vi.waitFor(() => expect(waiting(t.store)).toBeGreaterThan(held), { timeout: 10_000 });
    const read = await reads();
    await churn('globex-live.test', 200);
    expect(answered).toBe(false);
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'woken-by-own.test' } })).status).toBe(200);
    const r = await poll;
    expect(JSON.parse(r.text).version).not.toBe(before);
    // One read: the one that found the page changed. Whose a change is is told in order, so the other organization's
    // writes were judged before this one woke the poll.
    expect(await reads() - read).toBe(1);
  });

  it('reads its page again at most every 250 ms under a burst of its own organization\'s writes that do not change it', async () => {
    // The zone observed before the page is read: the burst then changes nothing the page shows.
    await churn('live-zone.test', 1);
    const b = await signedIn('viewer@acme.test');
    const before = versionIn((await b.go('GET', '/console/orgs/acme')).text);
    const held = waiting(t.store);
    const poll = b.go('GET', `/console/orgs/acme?live=${before}&wait=20`);
    await vi.waitFor(() => expect(waiting(t.store)).toBeGreaterThan(held), { timeout: 10_000 });
    const read = await reads();
    const ms = await churn('live-zone.test', 200);
    // Woken, read again, still the same page: held on, not answered.
    await vi.waitFor(async () => expect(await reads()).toBeGreaterThan(read), { timeout: 10_000 });
    const during = await reads() - read;
    expect(during).toBeLessThanOrEqual(Math.ceil(ms / 250) + 2);
    expect(waiting(t.store)).toBeGreaterThan(held);
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'woken-after-burst.test' } })).status).toBe(200);
    expect(JSON.parse((await poll).text).version).not.toBe(before);
  });
});

describe('the live script', () => {
  it('does not poll again at once when a poll comes back unchanged without being held (past the organization\'s held waits)', async () => {
    let polls = 0;
    // The server past MAX_HELD_WAITS_PER_ORG: every poll answered at once with the page's own version.
    const fetch = (): Promise<unknown> => {
      polls += 1;
      return new Promise((resolve) => setImmediate(() => resolve({ ok: true, status: 200, type: 'basic', json: async () => ({ version: 'v1' }) })));
    };
    const main = { dataset: { live: 'v1' }, addEventListener: () => undefined, contains: () => false, querySelector: () => null };
    const timers: NodeJS.Timeout[] = [];
    const document = { querySelector: () => main, getElementById: () => ({ textContent: '' }), activeElement: null };
    runInNewContext(LIVE_SCRIPT, {
      document, fetch, window: { fetch, DOMParser: class {} }, location: { href: 'http://console.test/console/orgs/acme' }, URL, Date,
      setTimeout: (f: () => void, ms: number) => { const id = setTimeout(f, ms); timers.push(id); return id; },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    timers.forEach(clearTimeout);
    // Before: a poll after each answer, as fast as they came (thousands in 300 ms); now one, then a pause of seconds.
    expect(polls).toBeLessThanOrEqual(2);
  });
});
