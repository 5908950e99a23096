/**
 * What every console page is built with: the session cookie and who it signs in, forms with their CSRF token, and
 * answering a page or a refusal as HTML. Each area of the console (api/console/zones.ts, …) mounts its routes with
 * a `Kit`, so a page of any area is refused, redirected and escaped the same way.
 */
import type { Context } from 'koa';
import { parse as parseContentType } from 'content-type';
import getRawBody from 'raw-body';
import { AppError } from '../../lib/errors';
import { sameText } from '../../lib/same-text';
import { isSafeNext } from '../../rules/safe-next';
import { createHash } from 'node:crypto';
import client from 'prom-client';
import { sessionByToken, type NewSession, type Session } from '../../store/sessions';
import { toErrorBody, type ErrorPage } from '../errors';
import type { AnyOp, Deps } from '../ops';
import { holdUntil, MAX_WAIT_SECONDS, type Watched } from '../wait';
import { messagePage, type Viewer } from './html';

const MAX_FORM_BYTES = 16 * 1024;

// Scripts (console.js, live.js; no inline ones), styles and fetches from this origin only, no framing. No `form-action`:
// Chrome applies it to the redirects that follow a form, and sign-in on the way to a deployment ends on the deployment's host.
const POLICY = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

/** Over HTTPS the cookies are `__Host-` prefixed (Secure, Path=/, no Domain: RFC 6265bis), so a sibling host
 * cannot set or shadow them. */
export const cookieName = (ctx: Context, base: string): string => (ctx.secure ? `__Host-${base}` : base);
export const SESSION = 'hostplane_session';

export const setCookie = (ctx: Context, base: string, value: string | null, expires?: Date): void => {
  ctx.cookies.set(cookieName(ctx, base), value, { httpOnly: true, sameSite: 'lax', secure: ctx.secure, path: '/', overwrite: true, expires });
};

/** A CSRF token sent against the one kept; a missing one matches nothing. */
export const sameToken = (sent: string | undefined, kept: string): boolean => sent !== undefined && sameText(sent, kept);

/** Where a sign-in goes on to: a console path, else the home page (never another site: no open redirect). */
export const consoleNext = (next: unknown): string =>
  typeof next === 'string' && (next === '/console' || next.startsWith('/console/') || next.startsWith('/console?')) && isSafeNext(next) ? next : '/console';

const badForm = (why: string): AppError => new AppError(400, 'bad_request', why);

export async function readForm(ctx: Context): Promise<URLSearchParams> {
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

export const PAGE_TITLES: Record<number, string> = {
  400: 'Not accepted', 403: 'Refused', 404: 'Not found', 405: 'Not allowed', 409: 'Conflict', 412: 'Changed meanwhile', 413: 'Too large', 415: 'Not a form',
  429: 'Too many attempts',
  500: 'Something went wrong', 502: 'A provider failed', 503: 'Unavailable',
};

/** Answers a console page: never cached (forms carry CSRF tokens), never framed. */
export const send = (ctx: Context, status: number, body: string): void => {
  ctx.status = status;
  ctx.set({ 'Content-Security-Policy': POLICY, 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' });
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
};

/** What a person can do about an error the console's routes did not answer themselves: the router's 404 and 405
 * speak the API's words ("no such route", "allowed: POST"), and an unexpected failure is only traceable by its
 * request id, which the log line of its cause holds. */
function edgeMessage(ctx: Context, status: number, message: string): string {
  if (status === 404) return 'There is no console page at this address. Go back to the console and follow its links from there.';
  if (status === 405) {
    return ctx.response.get('Allow').includes('POST')
      ? 'This address takes a form sent from a console page, not a link opened directly. Go back to the page and use its button.'
      : 'This page is only opened, not sent to. Go back to the console and open it from there.';
  }
  if (status >= 500) return `${message}. Try again in a moment; if it fails again, give request id ${String(ctx.state.reqId)} to whoever runs the service.`;
  return message;
}

/** The error edge's answer under /console (an unknown page, a method it lacks, an unexpected failure): a page, not
 * the API's JSON. The raw target is matched, since one the URL parser refuses is an error here too. */
export const consoleErrorPage: ErrorPage = (ctx, status, message) => {
  if (!/^\/console(?:[/?]|$)/.test(ctx.url)) return false;
  send(ctx, status, messagePage(PAGE_TITLES[status] ?? 'Error', null, edgeMessage(ctx, status, message)));
  return true;
};

export const opOf = (ops: AnyOp[], id: string): AnyOp => ops.find((op) => op.operationId === id)!;

/** A `cursor` query parameter passed on to the operation, which says when it is not one of its own. */
export const cursorOf = (ctx: Context): { cursor?: unknown } => (ctx.query.cursor === undefined ? {} : { cursor: ctx.query.cursor });

/** The `cursor` query parameter for a page read from the store as its operation reads it (store/paging.ts judges it). */
export const storeCursor = (ctx: Context): string | undefined => {
  const c = ctx.query.cursor;
  if (Array.isArray(c)) throw badForm('cursor is given more than once');
  return c;
};

/** A form field without the blanks around it ('' when absent). */
export const field = (form: URLSearchParams, name: string): string => (form.get(name) ?? '').trim();

/** The `If-Match` of a form that carries the ETag its page was shown with. A form without one names no version:
 * refused (412), never written over whatever is stored. */
export const ifMatch = (form: URLSearchParams): Record<string, string> => ({ 'if-match': field(form, 'etag') || '""' });

export type SignedIn = Session & { token: string };

/** What a live page shows changes with: a resource (the zone of a zone's page), or any change of the organization
 * (`*`, `key` unused) for a page of many; `orgId` is whose held waits it counts against (api/wait.ts
 * MAX_HELD_WAITS_PER_ORG). */
export interface LiveWatch { kind: Watched; key: string; orgId: number }

/** How long a live page's poll is held by default: under the API's longest wait, so proxies set for it let it be. */
export const LIVE_WAIT_SECONDS = 25;

/** A held poll reads its page again at most this often (ms): under a burst of changes it reads a few times a second,
 * not once per change, and still answers well within the 2 s a page has to show a change (issue 24). */
export const LIVE_REREAD_MS = 250;

/** A page's version: a digest of what it shows, so a change of anything it shows (a condition, a count) is one. */
export const versionOf = (data: unknown): string => createHash('sha256').update(JSON.stringify(data)).digest('base64url').slice(0, 22);

const waitOf = (ctx: Context): number => {
  const given = ctx.query.wait;
  if (given === undefined) return LIVE_WAIT_SECONDS;
  if (typeof given !== 'string' || !/^\d{1,2}$/.test(given) || Number(given) > MAX_WAIT_SECONDS) {
    throw new AppError(400, 'bad_request', `wait is a number of seconds from 0 to ${MAX_WAIT_SECONDS}`);
  }
  return Number(given);
};

export interface Kit {
  deps: Deps;
  /** The signed-in user of this request, if any. */
  session(ctx: Context): Promise<SignedIn | undefined>;
  viewerOf(s: Session): Viewer;
  startSession(ctx: Context, s: NewSession): void;
  /** 303 to `to`: the browser GETs it, also after a form's POST. */
  redirect(ctx: Context, to: string): void;
  /** Runs a console route; an AppError (a refusal of the operation, a bad form) is shown as a page saying why. */
  route(fn: (ctx: Context) => Promise<void>): (ctx: Context) => Promise<void>;
  /** A route for the signed-in: the signed-out are sent to sign in first, and come back to where they were going. */
  signedIn(fn: (ctx: Context, s: SignedIn) => Promise<void>): (ctx: Context) => Promise<void>;
  /** A form of the signed-in: its CSRF token must be the session's. */
  signedInForm(fn: (ctx: Context, s: SignedIn, form: URLSearchParams) => Promise<void>): (ctx: Context) => Promise<void>;
  /** Runs an operation for a form; its refusal (not an unexpected failure) is a page that leads back to `back`. */
  formOutcome(ctx: Context, s: Session, back: { href: string; label: string }, run: () => Promise<void>, message?: (status: number, error: string) => string): Promise<boolean>;
  /**
   * Answers a page that updates itself in the browser (api/console/live.ts), made from what `load` reads (with the
   * page's roles: an operation or memberScope) by `render`, which passes the version on to page(). The page's
   * script asks the same URL with `?live=<version>`: answered `{"version"}` at once when what `load` reads now
   * differs, else held until a change of `watch` makes it differ or `?wait` seconds (default 25) pass.
   */
  live<T>(ctx: Context, watch: LiveWatch, load: () => Promise<T>, render: (data: T, version: string) => string): Promise<void>;
}

/** `registry`: where the count of live polls' page reads goes (`hostplane_console_live_reads_total` on /metrics). */
export function makeKit(deps: Deps, registry: client.Registry): Kit {
  const liveReads = new client.Counter({
    name: 'hostplane_console_live_reads_total',
    help: 'Console pages read again by held live polls (woken by a change, or at the end of the wait)',
    registers: [registry],
  });
  const session = async (ctx: Context): Promise<SignedIn | undefined> => {
    const token = ctx.cookies.get(cookieName(ctx, SESSION));
    if (!token) return undefined;
    const s = await sessionByToken(deps.store, token);
    return s && { ...s, token };
  };
  const viewerOf = (s: Session): Viewer => ({ email: s.principal.email, csrf: s.csrf });
  const redirect = (ctx: Context, to: string): void => {
    // Koa keeps a 3xx status set before it: 303 makes the browser GET where a form's POST is answered.
    ctx.status = 303;
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(to);
  };
  const route: Kit['route'] = (fn) => async (ctx) => {
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
  const signedIn: Kit['signedIn'] = (fn) => route(async (ctx) => {
    const s = await session(ctx);
    // A form sent signed out is not sent again after sign-in (its CSRF token was no session's): back to the console.
    const next = ctx.method === 'GET' || ctx.method === 'HEAD' ? consoleNext(ctx.url) : '/console';
    if (!s) return redirect(ctx, `/console/sign-in?next=${encodeURIComponent(next)}`);
    await fn(ctx, s);
  });
  const signedInForm: Kit['signedInForm'] = (fn) => signedIn(async (ctx, s) => {
    const form = await readForm(ctx);
    if (!sameToken(form.get('csrf') ?? undefined, s.csrf)) throw new AppError(403, 'forbidden', 'this form expired or came from another site: open the page again and resend it');
    await fn(ctx, s, form);
  });
  const formOutcome: Kit['formOutcome'] = async (ctx, s, back, run, message = (_status, error) => error) => {
    try {
      await run();
      return true;
    } catch (e) {
      const { status, body: error, unexpected } = toErrorBody(e);
      if (unexpected) throw e;
      send(ctx, status, messagePage(PAGE_TITLES[status] ?? 'Error', viewerOf(s), message(status, error.message), back));
      return false;
    }
  };
  const live: Kit['live'] = async (ctx, watch, load, render) => {
    const seen = ctx.query.live;
    if (seen === undefined) {
      const data = await load();
      return send(ctx, 200, render(data, versionOf(data)));
    }
    const wait = waitOf(ctx);
    // A browser that leaves the page ends its poll.
    const gone = new AbortController();
    const abort = (): void => gone.abort();
    ctx.res.once('close', abort);
    try {
      const key = watch.kind === '*' ? String(watch.orgId) : watch.key;
      const version = await holdUntil(deps.store, watch.kind, key, { deadline: Date.now() + wait * 1000, signal: gone.signal, owner: `org:${watch.orgId}`, every: LIVE_REREAD_MS },
        async () => {
          liveReads.inc();
          return versionOf(await load());
        }, (v) => v !== seen);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { version };
    } finally {
      ctx.res.off('close', abort);
    }
  };
  return {
    deps, session, viewerOf, redirect, route, signedIn, signedInForm, formOutcome, live,
    startSession: (ctx, s) => setCookie(ctx, SESSION, s.token, new Date(s.expiresAt)),
  };
}
