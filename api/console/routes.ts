/**
 * The web console (CONTRACT.md "Console"), served by the API's listener under /console: sign-in with email and
 * password, sessions as cookies, CSRF tokens on every form, and the dashboard step of deployment access (spec 4.4,
 * part 5: `/console/access` calls authorizeAccess with the user's session). A session is a credential of the API:
 * what the console does goes through the operation itself (api/ops.ts `invokeAs`), with its roles and audit.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { parse as parseContentType } from 'content-type';
import getRawBody from 'raw-body';
import { randomBytes } from 'node:crypto';
import { hashPassword, verifyPassword } from '../../lib/access-hash';
import { AppError } from '../../lib/errors';
import { sameText } from '../../lib/same-text';
import { Slots } from '../../lib/slots';
import { roleAtLeast } from '../../store/accounts';
import { attentionOf, RESOURCE_STATES, resourceState, sinceLongest, type ResourceState } from '../../rules/resource-state';
import { isSafeNext } from '../../rules/safe-next';
import { orgOverview, type OverviewItem, type OverviewKind } from '../../store/overview';
import { changePassword, endSession, membershipsOf, openSession, passwordHashOf, PASSWORD_LENGTH, sessionByToken, signInRecord, type NewSession, type Session } from '../../store/sessions';
import { accessOps } from '../access';
import { dnsOps } from '../dns';
import { toErrorBody, type ErrorPage } from '../errors';
import { invokeAs, memberScope, type AnyOp, type Deps } from '../ops';
import {
  accountPage, homePage, messagePage, orgPage, signInPage, STYLESHEET, zonePage, zonePath, zonesPage, type Attention, type RRsetView, type Viewer, type ZoneView,
} from './html';
import { SignInLimits } from './limits';

const { min: MIN_PASSWORD, max: MAX_PASSWORD } = PASSWORD_LENGTH;
const MAX_FORM_BYTES = 16 * 1024;

// Scripts from nowhere (the pages have none), styles from this origin, no framing. No `form-action`: Chrome applies
// it to the redirects that follow a form, and sign-in on the way to a deployment ends on the deployment's host.
const POLICY = "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

/** Over HTTPS the cookies are `__Host-` prefixed (Secure, Path=/, no Domain: RFC 6265bis), so a sibling host
 * cannot set or shadow them. */
const cookieName = (ctx: Context, base: string): string => (ctx.secure ? `__Host-${base}` : base);
const SESSION = 'hostplane_session';
/** The sign-in form's CSRF token, before there is a session to hold one (double submit: cookie and field). */
const SIGN_IN = 'hostplane_sign_in';

const setCookie = (ctx: Context, base: string, value: string | null, expires?: Date): void => {
  ctx.cookies.set(cookieName(ctx, base), value, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: '/', overwrite: true, expires });
};

/** A CSRF token sent against the one kept; a missing one matches nothing. */
const sameToken = (sent: string | undefined, kept: string): boolean => sent !== undefined && sameText(sent, kept);

/** Where a sign-in goes on to: a console path, else the home page (never another site: no open redirect). */
const consoleNext = (next: unknown): string =>
  typeof next === 'string' && (next === '/console' || next.startsWith('/console/') || next.startsWith('/console?')) && isSafeNext(next) ? next : '/console';

const badForm = (why: string): AppError => new AppError(400, 'bad_request', why);

async function readForm(ctx: Context): Promise<URLSearchParams> {
  // Browsers say whether a form came from this origin (Fetch Metadata). Another site's form, a sibling host's too, is
  // refused even with the right CSRF token: over plain HTTP a sibling host (a tenant's deployment under the same
  // domain) can set the token's cookie. Not `Origin`: the pages' `Referrer-Policy: no-referrer` makes it `null`.
  const site = ctx.get('sec-fetch-site');
  if (site && site !== 'same-origin') throw new AppError(403, 'forbidden', 'this form came from another site: open the console and send it from there');
  let type: string | undefined;
  try {
    type = parseContentType(ctx.get('content-type')).type;
  } catch {
    // Missing or malformed: not a form.
  }
  if (type !== 'application/x-www-form-urlencoded') throw new AppError(415, 'unsupported_media_type', 'the console takes forms (application/x-www-form-urlencoded)');
  let raw: string;
  try {
    raw = await getRawBody(ctx.req, { length: ctx.get('content-length') || undefined, limit: MAX_FORM_BYTES, encoding: 'utf-8' });
  } catch (e) {
    if ((e as { type?: string }).type === 'entity.too.large') throw new AppError(413, 'payload_too_large', 'the form is too large');
    throw badForm('the form could not be read whole');
  }
  return new URLSearchParams(raw);
}

/** The "needs attention" list shows this many conditions; the page says how many more there are. */
export const ATTENTION_SHOWN = 200;

/** Counts by kind and state, and the conditions that are not True, longest so first. */
export function summarize(items: readonly OverviewItem[]): { counts: Record<OverviewKind, Record<ResourceState, number>>; attention: Attention[]; more: number } {
  const zero = (): Record<ResourceState, number> => Object.fromEntries(RESOURCE_STATES.map((st) => [st, 0])) as Record<ResourceState, number>;
  const counts: Record<OverviewKind, Record<ResourceState, number>> = { zone: zero(), hostname: zero(), domain: zero(), project: zero() };
  const all: Attention[] = [];
  for (const i of items) {
    counts[i.kind][resourceState(i)] += 1;
    for (const condition of attentionOf(i.conditions)) all.push({ kind: i.kind, name: i.name, condition });
  }
  all.sort((a, b) => sinceLongest(a.condition, b.condition));
  return { counts, attention: all.slice(0, ATTENTION_SHOWN), more: Math.max(0, all.length - ATTENTION_SHOWN) };
}

const PAGE_TITLES: Record<number, string> = {
  400: 'Not accepted', 403: 'Refused', 404: 'Not found', 405: 'Not allowed', 409: 'Conflict', 412: 'Changed meanwhile', 413: 'Too large', 415: 'Not a form',
  429: 'Too many attempts',
  500: 'Something went wrong', 503: 'Unavailable',
};

/** Answers a console page: never cached (forms carry CSRF tokens), never framed. */
const send = (ctx: Context, status: number, body: string): void => {
  ctx.status = status;
  ctx.set({ 'Content-Security-Policy': POLICY, 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' });
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
};

/** The error edge's answer under /console (an unknown page, a method it lacks, an unexpected failure): a page, not
 * the API's JSON. The raw target is matched, since one the URL parser refuses is an error here too. */
export const consoleErrorPage: ErrorPage = (ctx, status, message) => {
  if (!/^\/console(?:[/?]|$)/.test(ctx.url)) return false;
  send(ctx, status, messagePage(PAGE_TITLES[status] ?? 'Error', null, message));
  return true;
};

export interface ConsoleOptions {
  /** Failed sign-ins per address and per email (default 10 a minute). */
  limits?: SignInLimits;
  /** Password verifications at once, and waiting for one (default 2 and 8, as the node's access gate). */
  verifications?: { concurrent: number; queued: number };
  /** Zones and rrsets a page shows at once (default 50 and 100); "Next page" goes on with the operation's cursor. */
  pageSizes?: { zones: number; rrsets: number };
}

/** An AppError with the header fields of its answer (the error edge and the console's pages set them). */
const withHeaders = (e: AppError, headers: Record<string, string>): AppError & { headers: Record<string, string> } => Object.assign(e, { headers });

const opOf = (ops: AnyOp[], id: string): AnyOp => ops.find((op) => op.operationId === id)!;
const authorizeAccess = opOf(accessOps, 'authorizeAccess');
const listZones = opOf(dnsOps, 'listZones');
const getZone = opOf(dnsOps, 'getZone');
const putRRset = opOf(dnsOps, 'putRRset');
const deleteRRset = opOf(dnsOps, 'deleteRRset');

/** A `cursor` query parameter passed on to the operation, which says when it is not one of its own. */
const cursorOf = (ctx: Context): { cursor?: unknown } => (ctx.query.cursor === undefined ? {} : { cursor: ctx.query.cursor });

/** A zone as the operations answer it, with what its state is judged by. */
type ZoneListed = ZoneView & { status: { generation: number; observedGeneration: number | null } };

// A zone is deleted at once (its nameserver entry after): it is never pending deletion.
const stateOfZone = (z: ZoneListed): ResourceState =>
  resourceState({ generation: z.status.generation, observedGeneration: z.status.observedGeneration, conditions: z.status.conditions, deletingSince: null });

/** An rrset form's records: one per line, blank lines left out. */
const recordsOf = (form: URLSearchParams): { content: string }[] =>
  (form.get('records') ?? '').split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '').map((content) => ({ content }));

/** An rrset form's TTL: absent takes the operation's default; anything else is the operation's to judge. */
const ttlOf = (form: URLSearchParams): { ttl?: number } => {
  const ttl = (form.get('ttl') ?? '').trim();
  return ttl === '' ? {} : { ttl: Number(ttl) };
};

export function mountConsole(router: Router, deps: Deps, opts: ConsoleOptions = {}): void {
  const limits = opts.limits ?? new SignInLimits();
  const { concurrent, queued } = opts.verifications ?? { concurrent: 2, queued: 8 };
  const verifications = new Slots(concurrent, queued);
  const pageSizes = opts.pageSizes ?? { zones: 50, rrsets: 100 };
  // Checked against when the email has no password, so that a wrong email takes as long as a wrong password.
  let decoy: Promise<string> | undefined;

  const session = async (ctx: Context): Promise<(Session & { token: string }) | undefined> => {
    const token = ctx.cookies.get(cookieName(ctx, SESSION));
    if (!token) return undefined;
    const s = await sessionByToken(deps.store, token);
    return s && { ...s, token };
  };
  const viewerOf = (s: Session): Viewer => ({ email: s.principal.email, csrf: s.csrf });
  const startSession = (ctx: Context, s: NewSession): void => setCookie(ctx, SESSION, s.token, new Date(s.expiresAt));

  const redirect = (ctx: Context, to: string): void => {
    // Koa keeps a 3xx status set before it: 303 makes the browser GET where a form's POST is answered.
    ctx.status = 303;
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(to);
  };

  /** Runs a console route; an AppError (a refusal of the operation, a bad form) is shown as a page saying why. */
  const route = (fn: (ctx: Context) => Promise<void>) => async (ctx: Context): Promise<void> => {
    ctx.state.operationId = 'console';
    try {
      await fn(ctx);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      const s = await session(ctx);
      const headers = (e as { headers?: Record<string, string> }).headers;
      send(ctx, e.status, messagePage(PAGE_TITLES[e.status] ?? 'Error', s ? viewerOf(s) : null, e.message));
      if (headers) ctx.set(headers);
    }
  };
  /** A route for the signed-in: the signed-out are sent to sign in first, and come back to where they were going. */
  const signedIn = (fn: (ctx: Context, s: Session & { token: string }) => Promise<void>) => route(async (ctx) => {
    const s = await session(ctx);
    if (!s) return redirect(ctx, `/console/sign-in?next=${encodeURIComponent(consoleNext(ctx.url))}`);
    await fn(ctx, s);
  });
  /** A form of the signed-in: its CSRF token must be the session's. */
  const signedInForm = (fn: (ctx: Context, s: Session & { token: string }, form: URLSearchParams) => Promise<void>) => signedIn(async (ctx, s) => {
    const form = await readForm(ctx);
    if (!sameToken(form.get('csrf') ?? undefined, s.csrf)) throw new AppError(403, 'forbidden', 'this form expired or came from another site: open the page again and resend it');
    await fn(ctx, s, form);
  });

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

  router.get('/console', signedIn(async (ctx, s) => {
    send(ctx, 200, homePage(viewerOf(s), await membershipsOf(deps.store, s.principal.userId)));
  }));

  router.get('/console/orgs/:slug', signedIn(async (ctx, s) => {
    const scope = await memberScope(deps, s.principal, String(ctx.params.slug), { operationId: 'the organization page', role: 'viewer' });
    send(ctx, 200, orgPage(viewerOf(s), { slug: scope.org.slug, role: scope.role, now: deps.store.clock().getTime(), ...summarize(await orgOverview(deps.store, scope.org.id)) }));
  }));

  router.get('/console/orgs/:slug/zones', signedIn(async (ctx, s) => {
    const orgSlug = String(ctx.params.slug);
    const reply = await invokeAs(listZones, deps, ctx, s.principal, { params: { orgSlug }, query: { limit: String(pageSizes.zones), ...cursorOf(ctx) } });
    const page = reply.body as { items: ZoneListed[]; nextCursor: string | null };
    send(ctx, 200, zonesPage(viewerOf(s), { slug: orgSlug, zones: page.items.map((z) => ({ ...z, state: stateOfZone(z) })), nextCursor: page.nextCursor }));
  }));

  router.get('/console/orgs/:slug/zones/:zone', signedIn(async (ctx, s) => {
    const orgSlug = String(ctx.params.slug);
    const scope = await memberScope(deps, s.principal, orgSlug, { operationId: 'the zone page', role: 'viewer' });
    const params = { orgSlug, zone: String(ctx.params.zone) };
    const reply = await invokeAs(getZone, deps, ctx, s.principal, { params, query: { limit: String(pageSizes.rrsets), ...cursorOf(ctx) } });
    const zone = JSON.parse(reply.json!) as ZoneListed & { rrsets: RRsetView[]; nextCursor: string | null };
    send(ctx, 200, zonePage(viewerOf(s), {
      slug: orgSlug, zone, rrsets: zone.rrsets, nextCursor: zone.nextCursor, state: stateOfZone(zone), canEdit: roleAtLeast(scope.role, 'member'),
      now: deps.store.clock().getTime(),
    }));
  }));

  /** A form that changes one of the zone's rrsets through `op`; back to the zone when done. Its refusals are pages
   * that lead back to the zone; a stale ETag (412) says the rrset changed since the page showed it. */
  const rrsetForm = (op: AnyOp, input: (form: URLSearchParams) => { name: string; type: string; headers: Record<string, string>; body?: unknown; stale: string }) =>
    signedInForm(async (ctx, s, form) => {
      const orgSlug = String(ctx.params.slug);
      const zone = String(ctx.params.zone);
      const back = zonePath(orgSlug, zone);
      const { name, type, headers, body, stale } = input(form);
      try {
        await invokeAs(op, deps, ctx, s.principal, { params: { orgSlug, zone, name, type }, headers, body });
      } catch (e) {
        const { status, body: error, unexpected } = toErrorBody(e);
        if (unexpected) throw e;
        const message = status === 412 ? `${name} ${type} ${stale} Reload the zone to see it as it is now, then make your change again.` : error.message;
        return send(ctx, status, messagePage(PAGE_TITLES[status] ?? 'Error', viewerOf(s), message, { href: back, label: `Reload ${zone}` }));
      }
      redirect(ctx, back);
    });
  const field = (form: URLSearchParams, name: string): string => (form.get(name) ?? '').trim();
  // A form without the rrset's ETag names no version: refused, never written over whatever is stored.
  const ifMatch = (form: URLSearchParams): Record<string, string> => ({ 'if-match': field(form, 'etag') || '""' });
  const CHANGED = 'changed since this page showed it (someone else edited or deleted it).';

  router.post('/console/orgs/:slug/zones/:zone/rrsets', rrsetForm(putRRset, (form) => ({
    name: field(form, 'name'), type: field(form, 'type'), headers: { 'if-none-match': '*' }, body: { records: recordsOf(form), ...ttlOf(form) },
    stale: 'exists already (perhaps someone else added it): edit it instead.',
  })));
  router.post('/console/orgs/:slug/zones/:zone/rrsets/edit', rrsetForm(putRRset, (form) => ({
    name: field(form, 'name'), type: field(form, 'type'), headers: ifMatch(form), body: { records: recordsOf(form), ...ttlOf(form) }, stale: CHANGED,
  })));
  router.post('/console/orgs/:slug/zones/:zone/rrsets/delete', rrsetForm(deleteRRset, (form) => ({
    name: field(form, 'name'), type: field(form, 'type'), headers: ifMatch(form), stale: CHANGED,
  })));

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
        const hash = user?.passwordHash ?? await (decoy ??= hashPassword(randomBytes(16).toString('hex')));
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
