/**
 * The web console (CONTRACT.md "Console"), served by the API's listener under /console: sign-in with email and
 * password, sessions as cookies, CSRF tokens on every form, and the dashboard step of deployment access (spec 4.4,
 * part 5: `/console/access` calls authorizeAccess with the user's session). A session is a credential of the API:
 * what the console does goes through the operation itself (api/ops.ts `invokeAs`), with its roles and audit.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type client from 'prom-client';
import { randomBytes } from 'node:crypto';
import { hashPassword, verifyPassword } from '../../lib/access-hash';
import { AppError } from '../../lib/errors';
import { Slots } from '../../lib/slots';
import { longestAttention, orgCounts } from '../../store/overview';
import { changePassword, endSession, membershipsOf, openSession, passwordHashOf, PASSWORD_LENGTH, signInRecord } from '../../store/sessions';
import { accessOps } from '../access';
import { invokeAs, memberScope, type Deps } from '../ops';
import { accountPage, homePage, orgPage, SCRIPT, signInPage, STYLESHEET } from './html';
import { cookieName, consoleNext, makeKit, opOf, readForm, sameToken, send, SESSION, setCookie } from './kit';
import { SignInLimits } from './limits';
import { mountNodePages } from './nodes';
import { mountProjectPages } from './projects';
import { mountDomainPages } from './domains';
import { mountHostnamePages } from './hostnames';
import { LIVE_SCRIPT } from './live';
import { mountAttentionPages } from './attention';
import { mountAuditPages } from './audit';
import { mountZonePages } from './zones';

const { min: MIN_PASSWORD, max: MAX_PASSWORD } = PASSWORD_LENGTH;
/** The sign-in form's CSRF token, before there is a session to hold one (double submit: cookie and field). */
const SIGN_IN = 'hostplane_sign_in';
export interface ConsoleOptions {
  /** Failed sign-ins per address and per email (default 10 a minute). */
  limits?: SignInLimits;
  /** Password verifications at once, and waiting for one (default 2 and 8, as the node's access gate). */
  verifications?: { concurrent: number; queued: number };
  /** What a page shows at once (DEFAULT_PAGE_SIZES for those not given); "Next page" goes on with the list's cursor. */
  pageSizes?: Partial<PageSizes>;
}

/** `orgAttention`: the conditions not True the organization's page shows, longest first; each kind's own list
 * (`attention` a page, api/console/attention.ts) goes through all of them. */
export interface PageSizes {
  zones: number; rrsets: number; hostnames: number; domains: number; projects: number; secrets: number; nodes: number; audit: number; attention: number; orgAttention: number;
}
export const DEFAULT_PAGE_SIZES: PageSizes = {
  zones: 50, rrsets: 100, hostnames: 50, domains: 50, projects: 50, secrets: 50, nodes: 50, audit: 50, attention: 50, orgAttention: 200,
};

/** An AppError with the header fields of its answer (the error edge and the console's pages set them). */
const withHeaders = (e: AppError, headers: Record<string, string>): AppError & { headers: Record<string, string> } => Object.assign(e, { headers });

const authorizeAccess = opOf(accessOps, 'authorizeAccess');

export function mountConsole(router: Router, deps: Deps, registry: client.Registry, opts: ConsoleOptions = {}): void {
  const limits = opts.limits ?? new SignInLimits();
  const { concurrent, queued } = opts.verifications ?? { concurrent: 2, queued: 8 };
  const verifications = new Slots(concurrent, queued);
  const pageSizes = { ...DEFAULT_PAGE_SIZES, ...opts.pageSizes };
  // Checked against when the email has no password, so that a wrong email takes as long as a wrong password.
  // Made now, not at the first sign-in of an unknown email, which would take the time of making it too.
  const decoy = hashPassword(randomBytes(16).toString('hex'));

  const kit = makeKit(deps, registry);
  const { session, viewerOf, startSession, redirect, route, signedIn, signedInForm } = kit;

  const refuseIfLimited = (ctx: Context, email: string): void => {
    const wait = limits.refused(ctx.ip, email);
    if (wait !== null) throw withHeaders(new AppError(429, 'rate_limited', `Too many failed sign-ins: try again in ${wait} s.`), { 'Retry-After': String(wait) });
  };
  /** Checks a password within the sign-in limit and the bound on verifications at once; a wrong one counts. The
   * limit is asked again once a verification may start, so that guesses sent at once are counted, not all let
   * through on the count from before any of them failed. */
  const verifyLimited = async (ctx: Context, email: string, verify: () => Promise<boolean>): Promise<boolean> => {
    refuseIfLimited(ctx, email);
    const release = await verifications.acquire();
    if (!release) throw withHeaders(new AppError(503, 'busy', 'Too many sign-ins at once. Try again in a moment.'), { 'Retry-After': '1' });
    try {
      refuseIfLimited(ctx, email);
      const right = await verify();
      if (!right) limits.failed(ctx.ip, email);
      return right;
    } finally {
      release();
    }
  };

  const showSignIn = (ctx: Context, status: number, o: { next: string; email?: string; error?: string }): void => {
    const csrf = randomBytes(32).toString('base64url');
    setCookie(ctx, SIGN_IN, csrf);
    send(ctx, status, signInPage({ csrf, ...o }));
  };

  router.get('/console/console.css', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = STYLESHEET;
  });

  router.get('/console/console.js', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = SCRIPT;
  });

  router.get('/console/live.js', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = LIVE_SCRIPT;
  });

  router.get('/console', signedIn(async (ctx, s) => {
    send(ctx, 200, homePage(viewerOf(s), await membershipsOf(deps.store, s.principal.userId)));
  }));

  // Any change of the organization may change its counts: it watches them all, and its version tells whether one did.
  router.get('/console/orgs/:slug', signedIn(async (ctx, s) => {
    const scope = await memberScope(deps, s.principal, String(ctx.params.slug), { operationId: 'the organization page', role: 'viewer' });
    const load = async () => {
      const [{ counts, attention: pending }, attention] = await Promise.all([orgCounts(deps.store, scope.org.id), longestAttention(deps.store, scope.org.id, pageSizes.orgAttention)]);
      return { counts, pending, attention };
    };
    await kit.live(ctx, { kind: '*', key: '', orgId: scope.org.id }, load,
      (overview, live) => orgPage(viewerOf(s), { slug: scope.org.slug, role: scope.role, now: deps.store.clock().getTime(), ...overview, live }));
  }));

  mountZonePages(router, kit, pageSizes);
  mountProjectPages(router, kit, pageSizes);
  mountNodePages(router, kit, pageSizes.nodes);
  mountHostnamePages(router, kit, pageSizes.hostnames);
  mountDomainPages(router, kit, pageSizes.domains);
  mountAuditPages(router, kit, pageSizes.audit);
  mountAttentionPages(router, kit, pageSizes.attention);

  router.get('/console/sign-in', route(async (ctx) => {
    const next = consoleNext(ctx.query.next);
    if (await session(ctx)) return redirect(ctx, next);
    showSignIn(ctx, 200, { next });
  }));

  router.post('/console/sign-in', route(async (ctx) => {
    const form = await readForm(ctx);
    const next = consoleNext(form.get('next'));
    if (!sameToken(ctx.cookies.get(cookieName(ctx, SIGN_IN)), form.get('csrf') ?? '')) {
      return showSignIn(ctx, 403, { next, error: 'This sign-in form expired or came from another site. Sign in again.' });
    }
    const email = (form.get('email') ?? '').trim().toLowerCase();
    const password = form.get('password') ?? '';
    const user = email && password.length <= MAX_PASSWORD ? await signInRecord(deps.store, email) : undefined;
    let right: boolean;
    try {
      right = await verifyLimited(ctx, email, async () => {
        const hash = user?.passwordHash ?? await decoy;
        return (await verifyPassword(password, hash)) && !!user?.passwordHash;
      });
    } catch (e) {
      // Refused before its password was checked: the form again, to send later.
      if (!(e instanceof AppError) || (e.status !== 429 && e.status !== 503)) throw e;
      showSignIn(ctx, e.status, { next, email, error: e.message });
      ctx.set((e as AppError & { headers: Record<string, string> }).headers);
      return;
    }
    if (!user || !right) return showSignIn(ctx, 401, { next, email, error: 'The email or the password is wrong.' });
    setCookie(ctx, SIGN_IN, null);
    // A sign-in over a session (another tab, another user) replaces it: the session it replaces ends, not only its cookie.
    const replaced = await session(ctx);
    if (replaced) await endSession(deps.store, replaced.token);
    startSession(ctx, await openSession(deps.store, user.userId));
    redirect(ctx, next);
  }));

  router.post('/console/sign-out', signedInForm(async (ctx, s) => {
    await endSession(deps.store, s.token);
    setCookie(ctx, SESSION, null);
    redirect(ctx, '/console/sign-in');
  }));

  router.get('/console/account', signedIn(async (ctx, s) => {
    send(ctx, 200, accountPage(viewerOf(s)));
  }));

  router.post('/console/account/password', signedInForm(async (ctx, s, form) => {
    const current = form.get('current') ?? '';
    const password = form.get('password') ?? '';
    const refuse = (error: string): void => send(ctx, 400, accountPage(viewerOf(s), { error }));
    const stored = await passwordHashOf(deps.store, s.principal.userId);
    const right = await verifyLimited(ctx, s.principal.email, async () => !!stored && current.length <= MAX_PASSWORD && await verifyPassword(current, stored));
    if (!right) return refuse('The current password is wrong.');
    if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) return refuse(`The new password must have ${MIN_PASSWORD} to ${MAX_PASSWORD} characters.`);
    if (password !== form.get('confirm')) return refuse('The new password and its repetition differ.');
    const fresh = await changePassword(deps.store, s.principal.userId, await hashPassword(password));
    startSession(ctx, fresh);
    send(ctx, 200, accountPage({ email: s.principal.email, csrf: fresh.csrf }, { notice: 'Your password is changed; every other session is signed out.' }));
  }));

  // The dashboard step of deployment access: the node sent the browser here; authorizeAccess (with this user's
  // session as its credential) answers the node's callback with a one-time code, where the browser goes on.
  router.get('/console/access', signedIn(async (ctx, s) => {
    const { to, next, state } = ctx.query;
    const reply = await invokeAs(authorizeAccess, deps, ctx, s.principal, { params: {}, body: { to, next, ...(state !== undefined && { state }) } });
    redirect(ctx, (reply.body as { redirect: string }).redirect);
  }));
}
