/**
 * Deployment access at the node (spec 4.4): decides every request for a known host before the node's services
 * or the project's worker get it, from the bundle's `access` section (mode, password hash, bypass hash, policy
 * version). Its own paths are under `/__service/access/`; every other path, `/__service/auth/*` included, is
 * gated.
 *
 * - `public`: everything passes.
 * - `org` and `password` need HTTPS (on plain HTTP: 403 `https_required`) and one of:
 *   - `Service-Access-Bypass: <secret>` whose SHA-256 is the bundle's `bypassHash` (a wrong or old secret: 403
 *     `bypass_refused`, whatever else the request carries);
 *   - the session cookie (agent/gate/access-session.ts) made on this node for this host, project, mode and policy
 *     version, not expired.
 *   Otherwise `password` answers 401 with the password form, and `org` redirects a GET or HEAD (302) to the
 *   dashboard (`?to=<host>&next=<path>`), which sends the browser back to the callback with a one-time code;
 *   other methods get 401 `access_required`.
 * - `GET /__service/access/callback?code&next` (`org`): `next` must be a path on this host (rules/safe-next.ts,
 *   the API's own check) and the code well formed, else 400 before anything is spent; the code is redeemed at
 *   the control plane, and admits when it was issued for this host, this `next` and the project's organization,
 *   to a member or admin (a viewer may ask for a code but is refused here, 403). Then the session cookie and a
 *   302 to `next`.
 * - `POST /__service/access/login` (`password`): the form (`password`, `csrf`, `next`), urlencoded, at most 4 KiB,
 *   within 10 s; sent from this origin (`Origin` and `Sec-Fetch-Site` when the browser sends them) with the CSRF
 *   token. Each attempt takes one of the client address's (IPv6: its /64) 10 a minute (429 with `Retry-After`
 *   past them), and at most 2 verifications run at once with 8 waiting (past that 503 with `Retry-After`): a
 *   verification is 128 MiB of scrypt. Right: the session cookie and a 303 to `next`; wrong: the form again, 401.
 * - `/__service/access/logout` (GET or POST): ends the session (the cookie cleared) unless the browser says the
 *   request came from another site. A GET is enough because it can do nothing but sign out, and a cross-site
 *   one (an image on another page) is refused.
 * - A gate path of another mode (the callback of a project now in `password` mode) redirects to `next`.
 *
 * The bypass header and the access cookies are taken out of every request that passes: the worker never sees a
 * credential of the node's.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { bypassHash, verifyPassword } from '../../lib/access-hash';
import { addressKey } from '../../lib/http/http-server';
import type { Logger } from '../../lib/log';
import { rateLimitHeaders, TokenBuckets, type Decision, type Rate } from '../../lib/http/rate-limit';
import { isSafeNext } from '../../rules/safe-next';
import { sameText } from '../../lib/same-text';
import { cookieValue, cookieValues } from '../../lib/http/cookies';
import { Slots } from '../../lib/slots';
import { messagePage, passwordPage, sendPage } from './access-pages';
import {
  checkCsrf, clearedSessionCookie, clearedStateCookie, CSRF_COOKIE, STATE_COOKIE, stateCookie, csrfCookie, csrfToken, newCsrfNonce, SESSION_COOKIE, sessionCookie, signSession,
  verifySession, withoutAccessCookies, type SessionScope,
} from './access-session';
import { projectKey, type BundleProject } from '../sync/bundle';
import type { Redeemed } from '../sync/control';
import { hostOf, sendError } from './frontend';
import type { ServiceContext, ServiceHandler } from './services';

export const ACCESS_PATH = '/__service/access/';
const LOGIN_PATH = `${ACCESS_PATH}login`;
/** The gate's own paths under ACCESS_PATH, with the methods each takes. */
const ACTIONS = new Map<string, readonly string[]>([['callback', ['GET', 'HEAD']], ['login', ['GET', 'HEAD', 'POST']], ['logout', ['GET', 'HEAD', 'POST']]]);

export const DEFAULT_SESSION_TTL_MS = 24 * 3_600_000;
/** Password attempts per client address: enough for a person who mistypes, not for guessing. */
export const DEFAULT_ATTEMPTS: Rate = { limit: 10, windowSeconds: 60 };
export const DEFAULT_VERIFICATIONS = { concurrent: 2, queued: 8 };
const MAX_FORM_BYTES = 4096;
const FORM_TIMEOUT_MS = 10_000;
/** The API takes passwords up to this length; a longer one cannot be right and is not hashed. */
const MAX_PASSWORD = 1024;
/** Redeems in flight at once: each is a request to the control plane, which a flood of made-up codes must not
 * multiply without bound. */
const REDEEMS_AT_ONCE = 16;
/** The form of authorizeAccess's codes (store/access.ts: 32 random bytes, base64url): anything else is no code. */
const ACCESS_CODE = /^[A-Za-z0-9_-]{43}$/;
/** The form of the state this node sends browsers to the dashboard with (16 random bytes, base64url). */
const ROUND_TRIP_STATE = /^[A-Za-z0-9_-]{22}$/;
const REDEEM_TIMEOUT_MS = 10_000;
/** Client addresses whose attempts are counted; past it the least recently seen are forgotten. */
const MAX_ADDRESSES = 10_000;
/** Password attempts per project, from all addresses together: many addresses (an IPv6 /48 is 65,536 /64s)
 * get no more guesses at one password than this, and one project under attack takes at most this share of the
 * node's verifications, so the other projects' people still sign in. */
export const DEFAULT_PROJECT_ATTEMPTS: Rate = { limit: 60, windowSeconds: 60 };
/** Callbacks per client address: each spends a code at the control plane, with the node's token. */
export const DEFAULT_CALLBACKS: Rate = { limit: 30, windowSeconds: 60 };
const MAX_PROJECTS = 10_000;

export interface AccessGateOptions {
  /** The node's session key (agent/gate/access-session.ts loadAccessKey). */
  key: Buffer;
  /** Redeems an `org` code at the control plane: null when it is not valid (404); throws when unreachable. */
  redeem(code: string, signal: AbortSignal): Promise<Redeemed | null>;
  /** The dashboard screen `org` mode sends browsers to (`--dashboard-url`); null: those requests get 503. */
  dashboardUrl: string | null;
  /** How long a session lasts (default 24 h). */
  sessionTtlMs?: number;
  log: Logger;
  /** Password attempts per client address (default 10 a minute). */
  attempts?: Rate;
  /** Password attempts per project (default 60 a minute). */
  projectAttempts?: Rate;
  /** Callbacks per client address (default 30 a minute). */
  callbacks?: Rate;
  /** Password verifications at once, and waiting for one (default 2 and 8). */
  verifications?: { concurrent: number; queued: number };
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
  /** The slow hash's check (tests make it slower or faster). */
  verifyPassword?: (password: string, hash: string) => Promise<boolean>;
}

const AccessSection = z.object({
  mode: z.enum(['public', 'org', 'password']),
  passwordHash: z.string().nullable(),
  bypassHash: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  version: z.number().int().min(0),
  // A control plane from before members versions sent none.
  membersVersion: z.number().int().min(0).default(0),
});

type Policy =
  | { mode: 'public' }
  | { mode: 'org' | 'password'; version: number; membersVersion: number; passwordHash: string | null; bypassHash: string | null }
  /** A section the node cannot read: nothing passes (503), rather than guessing. */
  | { mode: 'invalid' };

/** Parsed once per bundle: each applied bundle brings new project objects. */
const policies = new WeakMap<BundleProject, Policy>();

function policyOf(p: BundleProject): Policy {
  let policy = policies.get(p);
  if (policy) return policy;
  // A control plane from before access had no section: its projects were public.
  const parsed = p.access === undefined ? null : AccessSection.safeParse(p.access);
  if (parsed === null || (parsed.success && parsed.data.mode === 'public')) policy = { mode: 'public' };
  else if (!parsed.success) policy = { mode: 'invalid' };
  else {
    const a = parsed.data;
    policy = {
      mode: a.mode as 'org' | 'password', version: a.version, membersVersion: a.membersVersion, passwordHash: a.passwordHash,
      bypassHash: a.bypassHash,
    };
  }
  policies.set(p, policy);
  return policy;
}

type Guarded = Extract<Policy, { version: number }>;

const isSecure = (req: IncomingMessage): boolean => 'encrypted' in req.socket;

const safeNext = (next: string | null | undefined): string => (next && isSafeNext(next) ? next : '/');

/** For a project that is not `public`: answers (true) when its policy cannot be read (503) or the request came
 * over plain HTTP (403), where nothing it carries may be trusted or sent back. */
function refused(req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, policy: Exclude<Policy, { mode: 'public' }>): policy is Extract<Policy, { mode: 'invalid' }> {
  if (policy.mode === 'invalid') {
    req.resume();
    sendError(res, ctx.requestId, 503, 'access_policy_invalid', 'this node cannot read the deployment\'s access policy');
    return true;
  }
  if (!isSecure(req)) {
    req.resume();
    sendError(res, ctx.requestId, 403, 'https_required', 'this deployment is protected and served over HTTPS only');
    return true;
  }
  return false;
}

/** Takes the node's credentials out of a request that goes on to the worker. */
function strip(req: IncomingMessage): void {
  if (req.headers['service-access-bypass'] !== undefined) delete req.headers['service-access-bypass'];
  const cookie = req.headers.cookie;
  if (cookie === undefined) return;
  const kept = withoutAccessCookies(cookie);
  if (kept === undefined) delete req.headers.cookie;
  else req.headers.cookie = kept;
}

/** Whether the browser says the request came from another site or origin. An origin is scheme, host and port:
 * another port of the same name is another origin (a different server may listen there). */
function crossSite(req: IncomingMessage, host: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  const authority = `https://${req.headers.host ?? ''}`;
  if (!URL.canParse(origin) || !URL.canParse(authority)) return true;
  const u = new URL(origin);
  return u.protocol !== 'https:' || hostOf(u.host) !== host || u.host !== new URL(authority).host;
}

type Body = { text: string } | { failed: 413 | 408 | 'aborted' };

/** Reads a small body whole, or says why not: too large, too slow, or the client went away. */
function readBody(req: IncomingMessage, max: number, timeoutMs: number): Promise<Body> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (b: Body): void => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      if ('failed' in b) req.pause();
      resolve(b);
    };
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > max) done({ failed: 413 });
      else chunks.push(c);
    };
    const onEnd = (): void => done({ text: Buffer.concat(chunks).toString('utf8') });
    const onAbort = (): void => done({ failed: 'aborted' });
    const timer = setTimeout(() => done({ failed: 408 }), timeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  });
}

/** The access gate: a handler that answers (true) what it refuses and its own paths, and lets (false) what it
 * admits go on, without the node's credentials. */
export function accessGate(o: AccessGateOptions): ServiceHandler {
  const now = o.now ?? Date.now;
  const ttlSeconds = Math.floor((o.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS) / 1000);
  const attemptRate = o.attempts ?? DEFAULT_ATTEMPTS;
  const attempts = new TokenBuckets(attemptRate, now, MAX_ADDRESSES);
  const projectRate = o.projectAttempts ?? DEFAULT_PROJECT_ATTEMPTS;
  const projectAttempts = new TokenBuckets(projectRate, now, MAX_PROJECTS);
  const callbackRate = o.callbacks ?? DEFAULT_CALLBACKS;
  const callbacks = new TokenBuckets(callbackRate, now, MAX_ADDRESSES);
  const { concurrent, queued } = o.verifications ?? DEFAULT_VERIFICATIONS;
  const verifications = new Slots(concurrent, queued);
  const redeems = new Slots(REDEEMS_AT_ONCE, 0);
  const verify = o.verifyPassword ?? verifyPassword;
  const log = o.log;

  // An `org` session admits whoever had the role when it was made: a demotion or a removal (a new members
  // version) ends it. A password session admits whoever knows the password, members or not.
  const scopeOf = (ctx: ServiceContext, p: Guarded): SessionScope => ({
    host: ctx.host, project: projectKey(ctx.project), mode: p.mode, version: p.version,
    members: p.mode === 'org' ? p.membersVersion : 0,
  });

  const admitSession = (res: ServerResponse, ctx: ServiceContext, p: Guarded, user: string, next: string, status: 302 | 303): void => {
    const value = signSession(o.key, scopeOf(ctx, p), Math.floor(now() / 1000) + ttlSeconds, user);
    // An org round trip's state is spent with it.
    const cookies = p.mode === 'org' ? [sessionCookie(value, ttlSeconds), clearedStateCookie()] : sessionCookie(value, ttlSeconds);
    res.writeHead(status, { location: next, 'set-cookie': cookies, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'content-length': '0' });
    res.end();
  };

  const tooMany = (res: ServerResponse, taken: Decision, policy: string, rate: Rate): void =>
    sendPage(res, 429, messagePage('Too many attempts', `Wait ${taken.retryAfter} seconds before you try again.`), {
      'retry-after': String(taken.retryAfter), ...rateLimitHeaders(policy, rate, taken),
    });

  const redirect = (res: ServerResponse, location: string): void => {
    res.writeHead(302, { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'content-length': '0' });
    res.end();
  };

  /** The password form, with the browser's CSRF nonce (a new one when it has none). */
  const form = (req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, status: number, next: string, note?: string): void => {
    const given = cookieValue(req.headers.cookie, CSRF_COOKIE);
    const nonce = given && /^[A-Za-z0-9_-]{22}$/.test(given) ? given : newCsrfNonce();
    const html = passwordPage({ host: ctx.host, action: LOGIN_PATH, next, csrf: csrfToken(o.key, ctx.host, nonce), note });
    sendPage(res, status, html, nonce === given ? {} : { 'set-cookie': csrfCookie(nonce) });
  };

  // The bundle's hash is the control plane's bypassHash of the secret: the same digest, compared in constant time.
  const bypassMatches = (p: Guarded, secret: string): boolean => {
    if (p.bypassHash === null) return false;
    return sameText(bypassHash(secret), p.bypassHash);
  };

  /** A gated request without credentials: the form, or the way to the dashboard. */
  const challenge = (req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, p: Guarded): void => {
    req.resume();
    if (p.mode === 'password') return form(req, res, ctx, 401, safeNext(ctx.path));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendError(res, ctx.requestId, 401, 'access_required', 'this deployment admits members of its organization: sign in through the dashboard first');
    }
    if (o.dashboardUrl === null) {
      return sendError(res, ctx.requestId, 503, 'dashboard_not_configured', 'this deployment admits members of its organization, and this node has no dashboard to sign them in (--dashboard-url)');
    }
    // The round trip's state, kept by this browser: the callback admits only in the browser that started it, so
    // a member cannot sign someone else's browser in with a link of theirs. A state the browser has already is
    // used again, so that round trips started together (two tabs) all come back to it; no other site can have
    // set it (`__Host-`).
    const held = cookieValues(req.headers.cookie, STATE_COOKIE).find((v) => ROUND_TRIP_STATE.test(v));
    const state = held ?? randomBytes(16).toString('base64url');
    const to = new URL(o.dashboardUrl);
    to.searchParams.set('to', ctx.host);
    to.searchParams.set('next', safeNext(ctx.path));
    to.searchParams.set('state', state);
    res.writeHead(302, { location: to.href, 'set-cookie': stateCookie(state), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'content-length': '0' });
    res.end();
  };

  const login = async (req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, p: Guarded): Promise<void> => {
    const body = await readBody(req, MAX_FORM_BYTES, FORM_TIMEOUT_MS);
    if ('failed' in body) {
      if (body.failed === 'aborted') return void res.destroy();
      const [code, message] = body.failed === 413 ? ['payload_too_large', `the form is larger than ${MAX_FORM_BYTES} bytes`] : ['request_timeout', 'the form did not arrive in time'];
      return sendError(res, ctx.requestId, body.failed, code, message, { connection: 'close' });
    }
    const fields = new URLSearchParams(body.text);
    const next = safeNext(fields.get('next'));
    if (!checkCsrf(o.key, ctx.host, cookieValue(req.headers.cookie, CSRF_COOKIE), fields.get('csrf'))) {
      return form(req, res, ctx, 403, next, 'This form has expired. Enter the password again.');
    }
    const taken = attempts.take(addressKey(req.socket.remoteAddress ?? ''));
    if (!taken.ok) return tooMany(res, taken, 'access-password', attemptRate);
    const project = projectKey(ctx.project);
    const ofProject = projectAttempts.take(project);
    if (!ofProject.ok) {
      log.warn({ host: ctx.host, project }, 'password attempts for the project are over its limit: someone may be guessing');
      return tooMany(res, ofProject, 'access-password-project', projectRate);
    }
    const release = await verifications.acquire();
    if (!release) return sendPage(res, 503, messagePage('Busy', 'Too many sign-ins at once. Try again in a moment.'), { 'retry-after': '1' });
    let right = false;
    try {
      const password = fields.get('password') ?? '';
      // A client that went away while it waited is not worth a verification.
      if (!res.destroyed && p.passwordHash !== null && password.length <= MAX_PASSWORD) right = await verify(password, p.passwordHash);
    } finally {
      release();
    }
    if (!right) return form(req, res, ctx, 401, next, 'Wrong password.');
    admitSession(res, ctx, p, '', next, 303);
  };

  const callback = async (req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, p: Guarded, code: string, next: string, state: string): Promise<void> => {
    const taken = callbacks.take(addressKey(req.socket.remoteAddress ?? ''));
    if (!taken.ok) return tooMany(res, taken, 'access-callback', callbackRate);
    if (!cookieValues(req.headers.cookie, STATE_COOKIE).some((v) => sameText(v, state))) {
      return sendPage(res, 403, messagePage('Sign-in link not valid', 'This sign-in was not started in this browser, or took too long. Open the site again to sign in.'));
    }
    const release = await redeems.acquire();
    if (!release) return sendPage(res, 503, messagePage('Busy', 'Too many sign-ins at once. Try again in a moment.'), { 'retry-after': '1' });
    let r: Redeemed | null;
    try {
      r = await o.redeem(code, AbortSignal.timeout(REDEEM_TIMEOUT_MS));
    } catch (e) {
      log.warn({ err: (e as Error).message, host: ctx.host }, 'the control plane did not redeem a sign-in code');
      return sendPage(res, 502, messagePage('Sign-in failed', 'The sign-in could not be checked right now. Try again in a moment.'));
    } finally {
      release();
    }
    if (r === null || r.host !== ctx.host || r.next !== next || r.org !== ctx.project.org) {
      return sendPage(res, 403, messagePage('Sign-in link not valid', 'This sign-in link has expired, was used already, or is not for this site. Sign in again.'));
    }
    if (r.role !== 'member' && r.role !== 'admin') {
      log.info({ host: ctx.host, user: r.user, role: r.role }, 'access refused: the role does not admit');
      return sendPage(res, 403, messagePage('Access refused', `Your role in ${r.org} is ${r.role}: this deployment admits members and admins.`));
    }
    log.info({ host: ctx.host, user: r.user, role: r.role }, 'access granted');
    admitSession(res, ctx, p, r.user, next, 302);
  };

  const failed = (res: ServerResponse, ctx: ServiceContext) => (e: unknown): void => {
    log.error({ err: (e as Error).message, host: ctx.host }, 'the access gate failed');
    sendError(res, ctx.requestId, 500, 'internal', 'internal error');
  };

  /** `/__service/access/*`. */
  const own = (req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, policy: Policy): void => {
    const q = ctx.path.indexOf('?');
    const action = ctx.path.slice(ACCESS_PATH.length, q < 0 ? undefined : q);
    const query = new URLSearchParams(q < 0 ? '' : ctx.path.slice(q + 1));
    const method = req.method ?? 'GET';
    const allowed = ACTIONS.get(action);
    if (!allowed) {
      req.resume();
      return sendError(res, ctx.requestId, 404, 'not_found', 'no such access path');
    }
    if (!allowed.includes(method)) {
      req.resume();
      return sendError(res, ctx.requestId, 405, 'method_not_allowed', `${method} is not allowed here`, { allow: allowed.join(', ') });
    }
    if (policy.mode !== 'public' && refused(req, res, ctx, policy)) return;
    if (action === 'logout') {
      req.resume();
      if (crossSite(req, ctx.host)) return sendPage(res, 403, messagePage('Not signed out', 'A sign-out from another site is refused.'));
      return sendPage(res, 200, messagePage('Signed out', `You are signed out of ${ctx.host}.`), { 'set-cookie': clearedSessionCookie() });
    }
    if (action === 'callback' && policy.mode === 'org') {
      req.resume();
      const code = query.get('code');
      const next = query.get('next');
      const state = query.get('state');
      if (next === null || !isSafeNext(next) || code === null || !ACCESS_CODE.test(code) || state === null || !ROUND_TRIP_STATE.test(state)) {
        return sendPage(res, 400, messagePage('Sign-in link not valid', 'This sign-in link is not valid for this site.'));
      }
      // A HEAD (a link preview fetching the URL) must not spend the person's code.
      if (method === 'HEAD') return sendPage(res, 200, '');
      return void callback(req, res, ctx, policy, code, next, state).catch(failed(res, ctx));
    }
    if (action === 'login' && policy.mode === 'password') {
      if (method !== 'POST') {
        req.resume();
        return form(req, res, ctx, 200, safeNext(query.get('next')));
      }
      if (crossSite(req, ctx.host)) {
        req.resume();
        return sendPage(res, 403, messagePage('Refused', 'The password form was sent from another site.'));
      }
      if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
        req.resume();
        return sendError(res, ctx.requestId, 415, 'unsupported_media_type', 'the form is sent as application/x-www-form-urlencoded');
      }
      if (Number(req.headers['content-length'] ?? 0) > MAX_FORM_BYTES) {
        return sendError(res, ctx.requestId, 413, 'payload_too_large', `the form is larger than ${MAX_FORM_BYTES} bytes`, { connection: 'close' });
      }
      return void login(req, res, ctx, policy).catch(failed(res, ctx));
    }
    // A path of another mode than the project's now (a callback after a switch to `password`): on to `next`,
    // where this mode's gate decides.
    req.resume();
    redirect(res, safeNext(query.get('next')));
  };

  return (req, res, ctx) => {
    const policy = policyOf(ctx.project);
    if (ctx.path.startsWith(ACCESS_PATH)) {
      own(req, res, ctx, policy);
      return true;
    }
    if (policy.mode === 'public') {
      strip(req);
      return false;
    }
    if (refused(req, res, ctx, policy)) return true;
    const bypass = req.headers['service-access-bypass'];
    if (bypass !== undefined) {
      if (bypassMatches(policy, bypass as string)) {
        strip(req);
        return false;
      }
      req.resume();
      sendError(res, ctx.requestId, 403, 'bypass_refused', 'the Service-Access-Bypass secret is not the deployment\'s current one');
      return true;
    }
    const scope = scopeOf(ctx, policy);
    const at = Math.floor(now() / 1000);
    if (cookieValues(req.headers.cookie, SESSION_COOKIE).some((v) => verifySession(o.key, v, scope, at))) {
      strip(req);
      return false;
    }
    challenge(req, res, ctx, policy);
    return true;
  };
}
