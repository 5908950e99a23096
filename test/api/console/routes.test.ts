/**
 * The console (CONTRACT.md "Console"; issue 24 items 1 and 2) over HTTP: sign-in with email and password, session
 * and sign-in cookies (HttpOnly, SameSite=Lax), CSRF tokens on every form, sign-out, the password change that ends
 * the user's other sessions, the sign-in limit, and the dashboard step of deployment access: authorizeAccess run
 * with the session as the user's credential, with its own refusals shown as pages.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { SignInLimits } from '../../../api/console/limits';
import { hashPassword } from '../../../lib/access-hash';
import { hashToken } from '../../../store/accounts';
import { accessCodes, users, zones } from '../../../store/schema';
import { recordStatus } from '../../../store/status';
import { ZONE_STATUS } from '../../../store/zones';
import { setPasswordHash } from '../../../store/sessions';
import { startTestApi, type TestApi } from '../../helpers/app';
import { Browser, type Page } from '../../helpers/console-browser';

const PASSWORD = 'correct horse battery staple';
const STATE = 'abcdefghijklmnopqrstuvwx';

// Each test runs scrypt at N = 2^17 (a quarter of a second idle) several times: on a busy machine that is seconds.
let t: TestApi;
beforeAll(async () => {
  t = await startTestApi();
  const hash = await hashPassword(PASSWORD);
  for (const email of ['member@acme.test', 'viewer@acme.test', 'stranger@nowhere.test']) await setPasswordHash(t.store, email, hash);
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blog' } })).status).toBe(201);
}, 120_000);
afterAll(async () => { await t.close(); });

describe('sign-in', { timeout: 120_000 }, () => {
  it('sends the signed-out to the sign-in form, with where they were going', async () => {
    const b = new Browser(t.url);
    const r = await b.go('GET', '/console');
    expect(r.status).toBe(303);
    expect(r.location).toBe('/console/sign-in?next=%2Fconsole');
  });

  it('serves the form with labelled fields and a CSRF token that its HttpOnly, SameSite=Lax cookie matches; never cached, never framed', async () => {
    const b = new Browser(t.url);
    const r = await b.go('GET', '/console/sign-in');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(r.text).toContain('<label for="email">');
    expect(r.text).toContain('<label for="password">');
    const cookie = b.cookies.get('hostplane_sign_in')!;
    expect(cookie.value).toBe(Browser.csrf(r));
    expect(cookie.attrs).toContain('httponly');
    expect(cookie.attrs).toContain('samesite=lax');
  });

  it('refuses a wrong password and an unknown email alike (401), with no session', async () => {
    for (const [email, password] of [['member@acme.test', 'not the password at all'], ['nobody@acme.test', PASSWORD]] as const) {
      const b = new Browser(t.url);
      const r = await b.signIn(email, password);
      expect(r.status).toBe(401);
      expect(r.text).toContain('The email or the password is wrong.');
      expect(b.cookies.has('hostplane_session')).toBe(false);
    }
  });

  it('refuses a sign-in whose CSRF token is missing or is not its cookie\'s (403), with no session', async () => {
    const b = new Browser(t.url);
    await b.go('GET', '/console/sign-in');
    for (const csrf of ['', 'x'.repeat(43)]) {
      const r = await b.go('POST', '/console/sign-in', { csrf, next: '/console', email: 'member@acme.test', password: PASSWORD });
      expect(r.status).toBe(403);
      expect(b.cookies.has('hostplane_session')).toBe(false);
    }
  });

  it('refuses a form sent from another origin (login CSRF with a cookie a sibling host set), with no session', async () => {
    const b = new Browser(t.url);
    const form = await b.go('GET', '/console/sign-in');
    const fields = { csrf: Browser.csrf(form), next: '/console', email: 'member@acme.test', password: PASSWORD };
    for (const site of ['same-site', 'cross-site']) {
      const r = await b.go('POST', '/console/sign-in', fields, { 'sec-fetch-site': site });
      expect(r.status).toBe(403);
      expect(b.cookies.has('hostplane_session')).toBe(false);
    }
    expect((await b.go('POST', '/console/sign-in', fields, { 'sec-fetch-site': 'same-origin' })).status).toBe(303);
  });

  it('signs in with the right password: an HttpOnly, SameSite=Lax session cookie, then the home page lists the user\'s organizations and roles', async () => {
    const b = new Browser(t.url);
    const r = await b.signIn('Member@Acme.test', PASSWORD);
    expect(r.status).toBe(303);
    expect(r.location).toBe('/console');
    const session = b.cookies.get('hostplane_session')!;
    expect(session.attrs).toContain('httponly');
    expect(session.attrs).toContain('samesite=lax');
    expect(session.attrs).toContain('path=/');
    const home = await b.go('GET', '/console');
    expect(home.status).toBe(200);
    expect(home.text).toContain('member@acme.test');
    expect(home.text).toMatch(/<td><a href="\/console\/orgs\/acme">acme<\/a><\/td><td>member<\/td>/);
  });

  it('goes on only to console paths after sign-in (no open redirect)', async () => {
    for (const next of ['https://evil.example/', '//evil.example/console', '/v1/orgs', '/console/../v1']) {
      const b = new Browser(t.url);
      const r = await b.signIn('member@acme.test', PASSWORD, next);
      expect(r.status).toBe(303);
      expect(r.location).toBe('/console');
    }
  });
});

describe('sign-out and password changes', { timeout: 120_000 }, () => {
  it('signs out only with the session\'s CSRF token; the cookie then opens nothing', async () => {
    const b = new Browser(t.url);
    await b.signIn('member@acme.test', PASSWORD);
    const cookie = b.cookies.get('hostplane_session')!.value;
    expect((await b.go('POST', '/console/sign-out', { csrf: 'forged' })).status).toBe(403);
    const home = await b.go('GET', '/console');
    expect(home.status).toBe(200);
    const out = await b.go('POST', '/console/sign-out', { csrf: Browser.csrf(home) });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/console/sign-in');
    const stolen = await fetch(`${t.url}/console`, { redirect: 'manual', headers: { cookie: `hostplane_session=${cookie}` } });
    expect(stolen.status).toBe(303);
  });

  it('ends the session a sign-in replaces: its cookie then opens nothing', async () => {
    const a = new Browser(t.url);
    await a.signIn('member@acme.test', PASSWORD);
    const first = a.cookies.get('hostplane_session')!;
    // A sign-in form loaded signed out, sent once the browser holds a session (as a client that keeps both cookies).
    const b = new Browser(t.url);
    const form = await b.go('GET', '/console/sign-in');
    b.cookies.set('hostplane_session', first);
    expect((await b.go('POST', '/console/sign-in', { csrf: Browser.csrf(form), next: '/console', email: 'viewer@acme.test', password: PASSWORD })).status).toBe(303);
    expect(b.cookies.get('hostplane_session')!.value).not.toBe(first.value);
    const old = await fetch(`${t.url}/console`, { redirect: 'manual', headers: { cookie: `hostplane_session=${first.value}` } });
    expect(old.status).toBe(303);
    expect((await b.go('GET', '/console')).text).toContain('viewer@acme.test');
  });

  it('sends a form posted signed out to sign in, and then to the console, not to the form\'s address (a GET it has not)', async () => {
    const b = new Browser(t.url);
    const out = await b.go('POST', '/console/sign-out', { csrf: 'none' });
    expect(out.status).toBe(303);
    expect(out.location).toBe('/console/sign-in?next=%2Fconsole');
  });

  it('changes the password with the current one: other sessions end, this browser stays signed in, the old password stops working', async () => {
    const me = new Browser(t.url);
    const other = new Browser(t.url);
    await me.signIn('viewer@acme.test', PASSWORD);
    await other.signIn('viewer@acme.test', PASSWORD);
    const account = await me.go('GET', '/console/account');
    const csrf = Browser.csrf(account);
    const wrong = await me.go('POST', '/console/account/password', { csrf, current: 'not my password!', password: 'a new password 1', confirm: 'a new password 1' });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('The current password is wrong.');
    const short = await me.go('POST', '/console/account/password', { csrf, current: PASSWORD, password: 'short', confirm: 'short' });
    expect(short.status).toBe(400);
    const r = await me.go('POST', '/console/account/password', { csrf, current: PASSWORD, password: 'a new password 1', confirm: 'a new password 1' });
    expect(r.status).toBe(200);
    expect(r.text).toContain('Your password is changed');
    expect((await me.go('GET', '/console')).status).toBe(200);
    expect((await other.go('GET', '/console')).status).toBe(303);
    expect((await new Browser(t.url).signIn('viewer@acme.test', PASSWORD)).status).toBe(401);
    expect((await new Browser(t.url).signIn('viewer@acme.test', 'a new password 1')).status).toBe(303);
    await setPasswordHash(t.store, 'viewer@acme.test', await hashPassword(PASSWORD));
  });

  it('ends a user\'s sessions when an operator sets the password', async () => {
    const b = new Browser(t.url);
    await b.signIn('stranger@nowhere.test', PASSWORD);
    expect((await b.go('GET', '/console')).status).toBe(200);
    expect(await setPasswordHash(t.store, 'stranger@nowhere.test', await hashPassword(PASSWORD))).toEqual({ sessionsEnded: 1 });
    expect((await b.go('GET', '/console')).status).toBe(303);
  });
});

describe('the dashboard step of deployment access (/console/access)', { timeout: 120_000 }, () => {
  const access = (to: string, next: string) => `/console/access?to=${encodeURIComponent(to)}&next=${encodeURIComponent(next)}&state=${STATE}`;

  it('signs the signed-out in first, then runs authorizeAccess with the session and sends the browser to the node\'s callback', async () => {
    const b = new Browser(t.url);
    const path = access('blog.hostplane.test', '/dashboard?tab=1');
    const first = await b.go('GET', path);
    expect(first.status).toBe(303);
    const signInAt = first.location!;
    const next = new URL(signInAt, t.url).searchParams.get('next')!;
    expect(next).toBe(path);
    const signedIn = await b.signIn('member@acme.test', PASSWORD, next);
    expect(signedIn.location).toBe(path);
    const r = await b.go('GET', path);
    expect(r.status).toBe(303);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const to = new URL(r.location!);
    expect(to.origin).toBe('https://blog.hostplane.test');
    expect(to.pathname).toBe('/__service/access/callback');
    expect(to.searchParams.get('code')).toMatch(/\S{20,}/);
    expect(to.searchParams.get('next')).toBe('/dashboard?tab=1');
    expect(to.searchParams.get('state')).toBe(STATE);
  });

  it('shows the operation\'s refusals as pages: an outsider 403, an unknown host 404, an unsafe next 400', async () => {
    const outsider = new Browser(t.url);
    await outsider.signIn('stranger@nowhere.test', PASSWORD);
    const refused = await outsider.go('GET', access('blog.hostplane.test', '/'));
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(refused.text).toContain('you are no member of the organization of this hostname');
    const member = new Browser(t.url);
    await member.signIn('member@acme.test', PASSWORD);
    expect((await member.go('GET', access('nowhere.hostplane.test', '/'))).status).toBe(404);
    expect((await member.go('GET', access('blog.hostplane.test', 'https://evil.example/'))).status).toBe(400);
  });

  it('issues the code to the signed-in user: the code the node redeems is bound to that user and the next path', async () => {
    const b = new Browser(t.url);
    await b.signIn('member@acme.test', PASSWORD);
    const r = await b.go('GET', access('blog.hostplane.test', '/x'));
    expect(r.status).toBe(303);
    const code = new URL(r.location!).searchParams.get('code')!;
    const [row] = await t.store.db.select().from(accessCodes).where(eq(accessCodes.codeHash, hashToken(code)));
    const [user] = await t.store.db.select().from(users).where(eq(users.email, 'member@acme.test'));
    expect(row).toMatchObject({ host: 'blog.hostplane.test', userId: user!.id, next: '/x' });
    expect(t.logs.some((l) => l.includes(PASSWORD) || l.includes(code))).toBe(false);
  });
});

describe('the organization page', { timeout: 120_000 }, () => {
  it('counts each kind by state and lists the conditions that are not True, with how long; the home page links to it', async () => {
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'broken-zone.test' } })).status).toBeLessThan(300);
    const [zone] = await t.store.db.select().from(zones).where(eq(zones.name, 'broken-zone.test'));
    await recordStatus(t.store, ZONE_STATUS, 'broken-zone.test', {
      uid: zone!.uid, generation: zone!.generation, set: [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', message: 'knotd refused <the zone>' }],
    });
    const b = new Browser(t.url);
    await b.signIn('viewer@acme.test', PASSWORD);
    expect((await b.go('GET', '/console')).text).toContain('<a href="/console/orgs/acme">acme</a>');
    const r = await b.go('GET', '/console/orgs/acme');
    expect(r.status).toBe(200);
    expect(r.text).toContain('Your role: viewer.');
    expect(r.text).toMatch(/<th scope="row">Zones<\/th><td>0<\/td><td>0<\/td><td>1<\/td><td>0<\/td><td>1<\/td>/);
    expect(r.text).toMatch(/<th scope="row">Projects<\/th><td>1<\/td><td>0<\/td><td>0<\/td><td>0<\/td><td>1<\/td>/);
    expect(r.text).toContain('<td>broken-zone.test</td><td>Ready False</td><td>ApplyFailed</td><td>knotd refused &lt;the zone&gt;</td>');
    expect(r.text).toMatch(/<time datetime="[^"]+" title="[^"]+">\d+ s ago<\/time>/);
  });

  it('is not found for someone outside the organization, as the API answers', async () => {
    const b = new Browser(t.url);
    await b.signIn('stranger@nowhere.test', PASSWORD);
    const r = await b.go('GET', '/console/orgs/acme');
    expect(r.status).toBe(404);
    expect(r.text).toContain('organization acme not found');
  });
});

describe('the sign-in limit', { timeout: 120_000 }, () => {
  // The limit's clock stands still: on a loaded machine ten verifications may take long enough to regain a try.
  const still = (): SignInLimits => new SignInLimits(undefined, () => 0);

  it('refuses a sign-in (429, Retry-After) after 10 failures a minute from an address, the right password too', async () => {
    const own = await startTestApi({ console: { limits: still() } });
    try {
      await setPasswordHash(own.store, 'member@acme.test', await hashPassword(PASSWORD));
      const b = new Browser(own.url);
      for (let i = 0; i < 10; i++) expect((await b.signIn(`nobody${i}@acme.test`, 'wrong password!')).status).toBe(401);
      const r = await b.signIn('member@acme.test', PASSWORD);
      expect(r.status).toBe(429);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(b.cookies.has('hostplane_session')).toBe(false);
    } finally {
      await own.close();
    }
  }, 120_000);

  it('counts guesses sent at once: no more than the limit (and the verifications then running) are checked', async () => {
    const own = await startTestApi({ console: { limits: still(), verifications: { concurrent: 2, queued: 100 } } });
    try {
      const statuses = await guessesAtOnce(own.url, 30);
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(12);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(18);
    } finally {
      await own.close();
    }
  }, 120_000);
});

/** `n` wrong sign-ins sent at once from one browser; their statuses. */
async function guessesAtOnce(url: string, n: number): Promise<number[]> {
  const b = new Browser(url);
  const csrf = Browser.csrf(await b.go('GET', '/console/sign-in'));
  const pages = await Promise.all(Array.from({ length: n }, (_, i) => b.go('POST', '/console/sign-in', { csrf, next: '/console', email: `nobody${i}@acme.test`, password: 'wrong password!' })));
  return pages.map((p) => p.status);
}

describe('the bound on password verifications', () => {
  it('checks 2 passwords at once with 8 waiting, as the node\'s gate does; past that 503 Busy with Retry-After', async () => {
    const own = await startTestApi({ console: { limits: new SignInLimits({ limit: 1000, windowSeconds: 60 }) } });
    try {
      const statuses = await guessesAtOnce(own.url, 30);
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
      expect(statuses.filter((s) => s === 503).length).toBeGreaterThanOrEqual(20);
    } finally {
      await own.close();
    }
  }, 120_000);
});

describe('error pages', () => {
  const isPage = (r: Page): void => {
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(r.text).toContain('<a href="/console">Back to the console</a>');
  };

  it('answers an unknown console page and a method it lacks with a page, not the API\'s JSON', async () => {
    const b = new Browser(t.url);
    const missing = await b.go('GET', '/console/nope');
    expect(missing.status).toBe(404);
    isPage(missing);
    expect(missing.text).toContain('There is no console page at this address.');
    const put = await b.go('PUT', '/console/sign-in');
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toContain('POST');
    isPage(put);
    // A form's address opened as a link (a bookmark, a reload of an old tab) says to use the page's button.
    const opened = await b.go('GET', '/console/sign-out');
    expect(opened.status).toBe(405);
    expect(opened.text).toContain('takes a form sent from a console page');
    const sent = await b.go('PUT', '/console');
    expect(sent.status).toBe(405);
    expect(sent.text).toContain('This page is only opened, not sent to.');
    for (const r of [missing, put, opened, sent]) expect(r.text).not.toMatch(/no such route|allowed:/);
    expect((await b.go('GET', '/v1/nope')).headers.get('content-type')).toContain('application/json');
  });

  it('answers an unexpected failure with a page that tells nothing of it; the log has it', async () => {
    const own = await startTestApi();
    try {
      vi.spyOn(own.store.db, 'select').mockImplementation(() => { throw new Error('boom at /srv/secret/path'); });
      const b = new Browser(own.url);
      b.cookies.set('hostplane_session', { value: 'hps_anything', attrs: '' });
      const r = await b.go('GET', '/console');
      expect(r.status).toBe(500);
      isPage(r);
      expect(r.text).not.toContain('boom');
      // The request id is what ties the page to the log line of its cause.
      expect(r.text).toContain(`give request id ${r.headers.get('x-request-id')!} to whoever runs the service`);
      expect(own.logs.some((l) => l.includes('boom at /srv/secret/path'))).toBe(true);
    } finally {
      vi.restoreAllMocks();
      await own.close();
    }
  });
});
