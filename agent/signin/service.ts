/**
 * The sign-in handler: with the grant in the bundle (`signIn` non-null), the project's entry service for
 * `/__service/auth/*` on every host the project routes; without it those paths go to the project's worker.
 * Paths (docs/deployment.md, "Sign-in on the node"):
 * - `GET /__service/auth/login/<provider>?next=/path`: 302 to the provider's authorize URL (state and PKCE S256),
 *   the login kept in a signed cookie (cookies.ts);
 * - `GET /__service/auth/callback/<provider>?code&state`: the state checked against the cookie (403 when it is
 *   not the one given), the code exchanged, the user found or created (store.ts), a session cookie set, 302 to
 *   `next`;
 * - `GET /__service/auth/session`: the current user as JSON, or 401;
 * - `POST /__service/auth/logout`: ends the session (same-origin requests only).
 * A provider not registered for the project is 404 at its login and callback paths.
 *
 * The agent never opens a project's database: each call goes to the project's database helper (project-db.ts),
 * a child process running as the project's worker user, with a deadline; a helper that fails or is too slow makes
 * the request 503 `signin_unavailable` (Retry-After), for that project only. A session counts only under the
 * grant id of the bundle, on the host that made it, within the current sessionDays (store.ts): a revoke, a new
 * grant or a lower sessionDays needs nothing done to the database, which prune() keeps tidy at each helper start
 * and every 10 minutes while it runs. Callbacks (each a code exchange with the project's client secret) are
 * rate-limited per client address and per project: 429 with Retry-After.
 */
import { randomBytes, createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import { addressKey } from '../../lib/http/http-server';
import { OAUTH_PROVIDERS } from '../../rules/oauth-providers';
import type { Logger } from '../../lib/log';
import { rateLimitHeaders, TokenBuckets, type Decision, type Rate } from '../../lib/http/rate-limit';
import { isSafeNext } from '../../rules/safe-next';
import { lifetimeKey, projectKey, type BundleProject, type BundleSignIn } from '../sync/bundle';
import { placesOf } from '../workers/lifetimes';
import { loadNodeKey } from '../gate/node-key';
import type { ServiceContext, ServiceHandler } from '../gate/services';
import { runsAsRoot } from '../workers/users';
import { sameText } from '../../lib/same-text';
import { cookieValue } from '../../lib/http/cookies';
import { sendError } from '../gate/frontend';
import { LOGIN_COOKIE, LOGIN_TTL_MS, openLogin, sealLogin, SESSION_COOKIE, setCookie, tokenHash } from './cookies';
import { DatabaseUnavailable, DEFAULT_HELPER_LIMITS, ProjectDatabase, type HelperLimits } from './project-db';
import { authorizeUrl, exchangeCode, ProviderError, readUser, type ProviderConfig } from './providers';
import type { ProviderUser } from './store';

export const AUTH_PREFIX = '/__service/auth/';
const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;
const PRUNE_INTERVAL_MS = 10 * 60_000;
/** Seconds a browser is told to wait when the project's database helper cannot answer. */
const UNAVAILABLE_RETRY_SECONDS = 5;
/** Callbacks per client address: a person signs in a few times a minute at most. */
const CALLBACKS_PER_ADDRESS: Rate = { limit: 20, windowSeconds: 60 };
/** Callbacks per project: sign-ups of a busy launch, well below what a provider allows one client. */
const CALLBACKS_PER_PROJECT: Rate = { limit: 600, windowSeconds: 60 };

/** The helper's answers, checked: it runs as the project's worker, which can take it over. */
const SignInAnswer = z.union([
  z.object({ userId: z.number().int().positive(), created: z.boolean(), linked: z.boolean() }),
  z.object({ refused: z.literal('user_limit') }),
]);
const SessionAnswer = z.object({
  user: z.object({ id: z.number().int().positive(), email: z.string().max(320).nullable(), emailVerified: z.boolean(), providers: z.array(z.string().max(32)).max(8) }),
  expiresAt: z.iso.datetime(),
}).nullable();
const CreatedAnswer = z.object({ expiresAt: z.number() });
const PrunedAnswer = z.number().int().nonnegative();

export interface SignInServiceOptions {
  /** The node's `--dir`: project databases (agent/layout.ts) and the key of login cookies, `signin.key`. */
  dir: string;
  log: Logger;
  /** Each call to a provider must be answered within this. Default 10 s. */
  providerTimeoutMs?: number;
  /** The project database helpers' deadlines and bounds (project-db.ts). */
  database?: Partial<HelperLimits>;
  /** Callbacks allowed per client address and per project. */
  callbacks?: { perAddress?: Rate; perProject?: Rate };
  now?: () => number;
}

export interface SignInService {
  handle: ServiceHandler;
  /** The projects of the bundle just applied: the helpers of projects without the grant are stopped. */
  apply(projects: readonly BundleProject[]): void;
  close(): void;
}

/** The node's key for login cookies: made once, kept beside the bundle (mode 0600), so a login started before a
 * restart still finishes after it. */
function loginKey(dir: string): Buffer {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return loadNodeKey(join(dir, 'signin.key'), 'sign-ins under way on this node then fail and start again');
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Who a project's database helper runs as: as root, the owner of the project's database directory, which the
 * supervisor gave to the project's worker user (agent/workers/users.ts prepareDatabase) and which the worker cannot give
 * away; not root, the agent's user, like the workers. */
function helperUser(dbDir: string): { uid: number; gid: number } | null {
  if (!runsAsRoot()) return null;
  const st = lstatSync(dbDir);
  if (!st.isDirectory() || st.uid === 0 || st.gid === 0) throw new Error('the project database directory is not its worker\'s');
  return { uid: st.uid, gid: st.gid };
}

/** The bundle's sign-in of a project as the helper is told it: sessions count under this grant and sessionDays. */
const scopeOf = (signIn: BundleSignIn, host: string) => ({ grant: signIn.grant, host, sessionDays: signIn.settings.sessionDays });

export function createSignInService(o: SignInServiceOptions): SignInService {
  const now = o.now ?? Date.now;
  const timeoutMs = o.providerTimeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  const limits: HelperLimits = { ...DEFAULT_HELPER_LIMITS, ...o.database };
  const perAddressRate = o.callbacks?.perAddress ?? CALLBACKS_PER_ADDRESS;
  const perProjectRate = o.callbacks?.perProject ?? CALLBACKS_PER_PROJECT;
  const perAddress = new TokenBuckets(perAddressRate, now);
  const perProject = new TokenBuckets(perProjectRate, now);
  const key = loginKey(o.dir);
  /** The helpers of projects with the grant, made at their first need. */
  const databases = new Map<string, ProjectDatabase>();
  /** Projects with the grant and a database, as last applied. */
  const granted = new Map<string, BundleProject>();

  const prune = (k: string, db: ProjectDatabase): void => {
    const signIn = granted.get(k)?.signIn;
    if (!signIn) return;
    db.call('prune', { scope: { grant: signIn.grant, sessionDays: signIn.settings.sessionDays }, now: now() })
      .then((n) => PrunedAnswer.parse(n))
      .catch((e: Error) => o.log.warn({ project: k, err: e.message }, 'sign-in: pruning sessions failed'));
  };

  /** The helper of `p`'s database, or null when the node has no database for it (yet). */
  const databaseOf = (p: BundleProject): ProjectDatabase | null => {
    const k = lifetimeKey(p);
    let db = databases.get(k);
    if (db) return db;
    // The project lifetime's database (agent/workers/lifetimes.ts), as the supervisor prepared it.
    const places = placesOf(o.dir, p);
    const path = places.databasePath;
    // lstat: the path is the worker's to change, and a link it planted must not tell it what root can see.
    if (!p.database || !lstatSync(path, { throwIfNoEntry: false })?.isFile()) return null;
    db = new ProjectDatabase({
      project: projectKey(p), path, log: o.log, limits,
      user: () => helperUser(places.databaseDir),
      onStart: () => prune(k, db!),
    });
    databases.set(k, db);
    return db;
  };
  const call = async <T>(p: BundleProject, op: string, args: unknown, answer: z.ZodType<T>): Promise<T> => {
    const db = databaseOf(p);
    if (!db) throw new DatabaseUnavailable('unavailable', 'the project has no database on this node yet');
    const out = answer.safeParse(await db.call(op, args));
    if (!out.success) throw new DatabaseUnavailable('unavailable', `the database helper answered ${op} with something else`);
    return out.data;
  };

  const pruner = setInterval(() => {
    for (const [k, db] of databases) if (db.running) prune(k, db);
  }, PRUNE_INTERVAL_MS);
  pruner.unref();

  function page(res: ServerResponse, ctx: ServiceContext, status: number, message: string, headers: Record<string, string | string[]> = {}): void {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': ctx.requestId, ...headers });
    res.end(`<!doctype html><meta charset="utf-8"><title>Sign-in</title><p>${escapeHtml(message)}</p>\n`);
  }
  const jsonError = (res: ServerResponse, ctx: ServiceContext, status: number, code: string, message: string, headers?: Record<string, string>): void =>
    sendError(res, ctx.requestId, status, code, message, headers);
  const unavailable = (ctx: ServiceContext, e: DatabaseUnavailable): { headers: Record<string, string>; message: string } => {
    o.log.warn({ host: ctx.host, requestId: ctx.requestId, err: e.message }, 'sign-in: the project database did not answer');
    return {
      headers: { 'retry-after': String(UNAVAILABLE_RETRY_SECONDS) },
      message: e.kind === 'busy' ? 'sign-in is busy on this node; try again shortly' : 'sign-in is not available on this node now; try again shortly',
    };
  };

  const providerOf = (signIn: BundleSignIn, name: string): ProviderConfig | undefined =>
    (OAUTH_PROVIDERS as readonly string[]).includes(name)
      ? signIn.providers.find((p) => p.provider === name) as ProviderConfig | undefined
      : undefined;
  const redirectUri = (host: string, provider: string): string => `https://${host}${AUTH_PREFIX}callback/${provider}`;

  function login(res: ServerResponse, ctx: ServiceContext, p: ProviderConfig, url: URL): void {
    const next = url.searchParams.get('next') ?? '/';
    if (!isSafeNext(next)) return page(res, ctx, 400, 'next must be a path on this site.');
    const state = randomBytes(32).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const cookie = sealLogin(key, { state, verifier, next, provider: p.provider, host: ctx.host, expires: now() + LOGIN_TTL_MS });
    res.writeHead(302, {
      location: authorizeUrl(p, { redirectUri: redirectUri(ctx.host, p.provider), state, challenge }),
      'set-cookie': setCookie(LOGIN_COOKIE, cookie, LOGIN_TTL_MS / 1000),
      'cache-control': 'no-store',
      'x-request-id': ctx.requestId,
    });
    res.end();
  }

  /** A unit from the callback buckets of the client's address and of the project, or the refusal. */
  function takeCallback(req: IncomingMessage, project: string): { rate: Rate; d: Decision } | null {
    const byAddress = perAddress.take(addressKey(req.socket.remoteAddress ?? ''));
    if (!byAddress.ok) return { rate: perAddressRate, d: byAddress };
    const byProject = perProject.take(project);
    return byProject.ok ? null : { rate: perProjectRate, d: byProject };
  }

  async function callback(req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, project: BundleProject, signIn: BundleSignIn, p: ProviderConfig, url: URL): Promise<void> {
    // Whatever happens, this login is over: its cookie goes.
    const clear = { 'set-cookie': setCookie(LOGIN_COOKIE, '', 0) };
    const login = openLogin(key, cookieValue(req.headers.cookie, LOGIN_COOKIE) ?? undefined, now());
    const given = url.searchParams.get('state') ?? '';
    if (!login || login.provider !== p.provider || login.host !== ctx.host || !sameText(given, login.state)) {
      o.log.warn({ host: ctx.host, provider: p.provider, requestId: ctx.requestId }, 'sign-in: a callback without the state this browser was given (forged, replayed or expired)');
      return page(res, ctx, 403, 'This sign-in was not started here, or took too long. Start again.', clear);
    }
    const error = url.searchParams.get('error');
    if (error !== null) {
      const denied = error === 'access_denied';
      return page(res, ctx, denied ? 403 : 400, denied ? `Sign-in with ${p.provider} was cancelled.` : `${p.provider} refused the sign-in (${error.slice(0, 100)}).`, clear);
    }
    const code = url.searchParams.get('code');
    if (!code) return page(res, ctx, 400, 'The provider sent no code.', clear);
    const limited = takeCallback(req, projectKey(project));
    if (limited) {
      o.log.warn({ host: ctx.host, provider: p.provider, requestId: ctx.requestId }, 'sign-in: too many callbacks');
      return page(res, ctx, 429, `Too many sign-ins. Wait ${limited.d.retryAfter} seconds, then start again.`, {
        ...clear, 'retry-after': String(limited.d.retryAfter), ...rateLimitHeaders('signin-callback', limited.rate, limited.d),
      });
    }
    let who: ProviderUser;
    try {
      const token = await exchangeCode(p, { code, redirectUri: redirectUri(ctx.host, p.provider), verifier: login.verifier }, timeoutMs);
      who = await readUser(p, token, timeoutMs);
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      if (e.kind === 'misconfigured') {
        // The project's setup, not the person: its developer must fix the client id, secret or callback URL.
        o.log.error({ host: ctx.host, provider: p.provider, clientId: p.clientId, requestId: ctx.requestId, err: e.message }, 'sign-in: the provider refused the project\'s client (setAuthProvider\'s clientId or clientSecret)');
        return page(res, ctx, 502, `Sign-in with ${p.provider} is not set up correctly on this site. Its operator has been told.`, clear);
      }
      o.log.warn({ host: ctx.host, provider: p.provider, requestId: ctx.requestId, err: e.message }, 'sign-in: the provider step failed');
      return e.kind === 'refused'
        ? page(res, ctx, 400, `${p.provider} refused this sign-in (the code is invalid, used or expired). Start again.`, clear)
        : page(res, ctx, 502, `${p.provider} did not answer in time. Try again.`, clear);
    }
    const token = randomBytes(32).toString('base64url');
    const old = cookieValue(req.headers.cookie, SESSION_COOKIE) ?? undefined;
    let result: z.infer<typeof SignInAnswer>;
    try {
      result = await call(project, 'signIn', { provider: p.provider, who, maxUsers: signIn.maxUsers, now: now() }, SignInAnswer);
      if ('refused' in result) {
        o.log.warn({ host: ctx.host, provider: p.provider, maxUsers: signIn.maxUsers }, 'sign-in: sign-up refused, the project has its maximum of users');
        return page(res, ctx, 403, 'This site cannot take new accounts now.', clear);
      }
      // The browser's previous session ends with this one: it is the same browser's, and would otherwise count
      // against the user's sessions until evicted.
      await call(project, 'createSession', {
        tokenHash: tokenHash(token), userId: result.userId, scope: scopeOf(signIn, ctx.host), maxUsers: signIn.maxUsers, now: now(),
        replacing: old ? tokenHash(old) : null,
      }, CreatedAnswer);
    } catch (e) {
      if (!(e instanceof DatabaseUnavailable)) throw e;
      const u = unavailable(ctx, e);
      return page(res, ctx, 503, 'Sign-in is not available on this site now. Try again shortly.', { ...clear, ...u.headers });
    }
    o.log.info({ host: ctx.host, provider: p.provider, userId: result.userId, created: result.created, linked: result.linked }, 'sign-in: signed in');
    res.writeHead(302, {
      location: login.next,
      'set-cookie': [clear['set-cookie'], setCookie(SESSION_COOKIE, token, signIn.settings.sessionDays * 86_400)],
      'cache-control': 'no-store',
      'x-request-id': ctx.requestId,
    });
    res.end();
  }

  /** A POST from another site must not log people out: a browser's `Origin` or `Sec-Fetch-Site` must say this
   * host (clients that send neither are not browsers, and cannot be made to send the cookie). */
  function sameOrigin(req: IncomingMessage, host: string): boolean {
    const site = req.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') return false;
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    try {
      const u = new URL(origin);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname.replace(/^\[|\]$/g, '').toLowerCase() === host;
    } catch {
      return false;
    }
  }

  async function session(req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, signIn: BundleSignIn): Promise<void> {
    const token = cookieValue(req.headers.cookie, SESSION_COOKIE) ?? undefined;
    if (!token) return jsonError(res, ctx, 401, 'unauthorized', 'not signed in');
    let view: z.infer<typeof SessionAnswer>;
    try {
      view = await call(ctx.project, 'session', { tokenHash: tokenHash(token), scope: scopeOf(signIn, ctx.host), now: now() }, SessionAnswer);
    } catch (e) {
      if (!(e instanceof DatabaseUnavailable)) throw e;
      const u = unavailable(ctx, e);
      return jsonError(res, ctx, 503, 'signin_unavailable', u.message, u.headers);
    }
    if (!view) return jsonError(res, ctx, 401, 'unauthorized', 'not signed in');
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': ctx.requestId });
    res.end(JSON.stringify(view));
  }

  async function logout(req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, url: URL): Promise<void> {
    if (!sameOrigin(req, ctx.host)) return jsonError(res, ctx, 403, 'forbidden', 'logout is taken from this site only');
    const token = cookieValue(req.headers.cookie, SESSION_COOKIE) ?? undefined;
    if (token) {
      try {
        await call(ctx.project, 'endSession', { tokenHash: tokenHash(token), host: ctx.host }, z.null());
      } catch (e) {
        if (!(e instanceof DatabaseUnavailable)) throw e;
        // The cookie stays: a retry must still be able to end the session.
        const u = unavailable(ctx, e);
        return jsonError(res, ctx, 503, 'signin_unavailable', u.message, u.headers);
      }
    }
    const next = url.searchParams.get('next');
    const clear = { 'set-cookie': setCookie(SESSION_COOKIE, '', 0) };
    if (next !== null && isSafeNext(next)) {
      res.writeHead(303, { location: next, 'cache-control': 'no-store', 'x-request-id': ctx.requestId, ...clear });
      res.end();
      return;
    }
    res.writeHead(204, { 'cache-control': 'no-store', 'x-request-id': ctx.requestId, ...clear });
    res.end();
  }

  function route(req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, signIn: BundleSignIn, rest: string, url: URL): void | Promise<void> {
    const method = req.method ?? 'GET';
    const m = /^(login|callback)\/([^/]+)$/.exec(rest);
    if (m) {
      if (method !== 'GET' && method !== 'HEAD') return jsonError(res, ctx, 405, 'method_not_allowed', `${m[1]} takes GET`, { allow: 'GET, HEAD' });
      const p = providerOf(signIn, m[2]!);
      if (!p) return page(res, ctx, 404, 'This sign-in method is not available on this site.');
      return m[1] === 'login' ? login(res, ctx, p, url) : callback(req, res, ctx, ctx.project, signIn, p, url);
    }
    if (rest === 'session') {
      if (method !== 'GET' && method !== 'HEAD') return jsonError(res, ctx, 405, 'method_not_allowed', 'session takes GET', { allow: 'GET, HEAD' });
      return session(req, res, ctx, signIn);
    }
    if (rest === 'logout') {
      if (method !== 'POST') return jsonError(res, ctx, 405, 'method_not_allowed', 'logout takes POST', { allow: 'POST' });
      return logout(req, res, ctx, url);
    }
    return jsonError(res, ctx, 404, 'not_found', `no sign-in path ${AUTH_PREFIX}${rest}`);
  }

  const handle: ServiceHandler = (req, res, ctx) => {
    const signIn = ctx.project.signIn;
    if (!signIn || !ctx.path.startsWith(AUTH_PREFIX)) return false;
    const url = new URL(ctx.path, 'http://node.invalid');
    req.resume();
    const fail = (e: unknown): void => {
      o.log.error({ host: ctx.host, requestId: ctx.requestId, err: (e as Error).message }, 'sign-in: request failed');
      jsonError(res, ctx, 500, 'internal', 'internal error');
    };
    try {
      void Promise.resolve(route(req, res, ctx, signIn, url.pathname.slice(AUTH_PREFIX.length), url)).catch(fail);
    } catch (e) {
      fail(e);
    }
    return true;
  };

  return {
    handle,
    apply(projects) {
      granted.clear();
      // By lifetime: the helper of a deleted project's database is closed when another project takes its name.
      for (const p of projects) if (p.signIn && p.database) granted.set(lifetimeKey(p), p);
      for (const [k, db] of databases) {
        if (granted.has(k)) continue;
        db.close();
        databases.delete(k);
      }
    },
    close() {
      clearInterval(pruner);
      for (const db of databases.values()) db.close();
      databases.clear();
    },
  };
}
