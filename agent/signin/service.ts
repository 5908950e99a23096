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
 * Each project's database is opened at its first need and kept open while the project has the grant; `apply`
 * closes the others and, when a grant goes, ends its sessions (users and identities stay).
 */
import { randomBytes, createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { OAUTH_PROVIDERS } from '../../lib/oauth-providers';
import type { Logger } from '../../lib/log';
import { isSafeNext } from '../../lib/safe-next';
import { projectKey, type BundleProject, type BundleSignIn } from '../bundle';
import { databasePath } from '../layout';
import type { ServiceContext, ServiceHandler } from '../services';
import { LOGIN_COOKIE, LOGIN_TTL_MS, openLogin, parseCookies, sameText, sealLogin, SESSION_COOKIE, setCookie } from './cookies';
import { authorizeUrl, exchangeCode, ProviderError, readUser, type ProviderConfig } from './providers';
import { SignInStore } from './store';

export const AUTH_PREFIX = '/__service/auth/';
const DEFAULT_PROVIDER_TIMEOUT_MS = 10_000;
const PRUNE_INTERVAL_MS = 10 * 60_000;

export interface SignInServiceOptions {
  /** The node's `--dir`: project databases (agent/layout.ts) and the key of login cookies, `signin.key`. */
  dir: string;
  log: Logger;
  /** Each call to a provider must be answered within this. Default 10 s. */
  providerTimeoutMs?: number;
  now?: () => number;
}

export interface SignInService {
  handle: ServiceHandler;
  /** The projects of the bundle just applied: grants gone end their sessions, settings changed take effect. */
  apply(projects: readonly BundleProject[]): void;
  close(): void;
}

/** The node's key for login cookies: made once, kept beside the bundle (mode 0600), so a login started before a
 * restart still finishes after it. */
function loginKey(dir: string): Buffer {
  const path = join(dir, 'signin.key');
  if (existsSync(path)) {
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64url');
    if (key.length === 32) return key;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(path, key.toString('base64url'), { mode: 0o600 });
  chmodSync(path, 0o600);
  return key;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function createSignInService(o: SignInServiceOptions): SignInService {
  const now = o.now ?? Date.now;
  const timeoutMs = o.providerTimeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  const key = loginKey(o.dir);
  const stores = new Map<string, SignInStore>();
  /** sessionDays per project with the grant, as last applied; null before the first apply. */
  let granted: Map<string, number> | null = null;

  const storeOf = (p: BundleProject): SignInStore | null => {
    const k = projectKey(p);
    let s = stores.get(k);
    if (s) return s;
    const path = databasePath(o.dir, p.org, p.project);
    if (!p.database || !existsSync(path)) return null;
    s = SignInStore.open(path);
    stores.set(k, s);
    return s;
  };
  const forget = (k: string): void => {
    stores.get(k)?.close();
    stores.delete(k);
  };

  const pruner = setInterval(() => {
    for (const [k, s] of stores) {
      try {
        s.prune(now());
      } catch (e) {
        o.log.warn({ project: k, err: (e as Error).message }, 'sign-in: pruning expired sessions failed');
      }
    }
  }, PRUNE_INTERVAL_MS);
  pruner.unref();

  function page(res: ServerResponse, ctx: ServiceContext, status: number, message: string, headers: Record<string, string | string[]> = {}): void {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': ctx.requestId, ...headers });
    res.end(`<!doctype html><meta charset="utf-8"><title>Sign-in</title><p>${escapeHtml(message)}</p>\n`);
  }
  function json(res: ServerResponse, ctx: ServiceContext, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-request-id': ctx.requestId, ...headers });
    res.end(JSON.stringify(body));
  }
  const jsonError = (res: ServerResponse, ctx: ServiceContext, status: number, code: string, message: string, headers?: Record<string, string>) =>
    json(res, ctx, status, { code, message, requestId: ctx.requestId }, headers);

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

  async function callback(req: IncomingMessage, res: ServerResponse, ctx: ServiceContext, project: BundleProject, signIn: BundleSignIn, p: ProviderConfig, url: URL): Promise<void> {
    // Whatever happens, this login is over: its cookie goes.
    const clear = { 'set-cookie': setCookie(LOGIN_COOKIE, '', 0) };
    const login = openLogin(key, parseCookies(req.headers.cookie).get(LOGIN_COOKIE), now());
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
    const store = storeOf(project);
    if (!store) return page(res, ctx, 503, 'Sign-in is not ready on this node yet. Try again shortly.', { ...clear, 'retry-after': '5' });
    let result;
    try {
      const token = await exchangeCode(p, { code, redirectUri: redirectUri(ctx.host, p.provider), verifier: login.verifier }, timeoutMs);
      const who = await readUser(p, token, timeoutMs);
      result = store.signIn(p.provider, who, signIn.maxUsers, now());
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      o.log.warn({ host: ctx.host, provider: p.provider, requestId: ctx.requestId, err: e.message }, 'sign-in: the provider step failed');
      return e.kind === 'refused'
        ? page(res, ctx, 400, `${p.provider} refused this sign-in (the code is invalid, used or expired). Start again.`, clear)
        : page(res, ctx, 502, `${p.provider} did not answer in time. Try again.`, clear);
    }
    if ('refused' in result) {
      o.log.warn({ host: ctx.host, provider: p.provider, maxUsers: signIn.maxUsers }, 'sign-in: sign-up refused, the project has its maximum of users');
      return page(res, ctx, 403, 'This site cannot take new accounts now.', clear);
    }
    const session = store.createSession(result.userId, signIn.settings.sessionDays, signIn.maxUsers, now());
    o.log.info({ host: ctx.host, provider: p.provider, userId: result.userId, created: result.created, linked: result.linked }, 'sign-in: signed in');
    res.writeHead(302, {
      location: login.next,
      'set-cookie': [clear['set-cookie'], setCookie(SESSION_COOKIE, session.token, signIn.settings.sessionDays * 86_400)],
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
      const token = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
      const store = token ? storeOf(ctx.project) : null;
      const view = token && store ? store.session(token, now()) : null;
      return view ? json(res, ctx, 200, view) : jsonError(res, ctx, 401, 'unauthorized', 'not signed in');
    }
    if (rest === 'logout') {
      if (method !== 'POST') return jsonError(res, ctx, 405, 'method_not_allowed', 'logout takes POST', { allow: 'POST' });
      if (!sameOrigin(req, ctx.host)) return jsonError(res, ctx, 403, 'forbidden', 'logout is taken from this site only');
      const token = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
      if (token) storeOf(ctx.project)?.endSession(token);
      const next = url.searchParams.get('next');
      const clear = { 'set-cookie': setCookie(SESSION_COOKIE, '', 0) };
      if (next !== null && isSafeNext(next)) {
        res.writeHead(303, { location: next, 'cache-control': 'no-store', 'x-request-id': ctx.requestId, ...clear });
        res.end();
        return;
      }
      res.writeHead(204, { 'cache-control': 'no-store', 'x-request-id': ctx.requestId, ...clear });
      res.end();
      return;
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
      if (res.headersSent) res.destroy();
      else jsonError(res, ctx, 500, 'internal', 'internal error');
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
      const first = granted === null;
      const was = granted ?? new Map<string, number>();
      const next = new Map<string, number>();
      for (const p of projects) {
        const k = projectKey(p);
        if (p.signIn) {
          next.set(k, p.signIn.settings.sessionDays);
          if (was.get(k) !== p.signIn.settings.sessionDays) {
            try {
              storeOf(p)?.limitSessions(p.signIn.settings.sessionDays);
            } catch (e) {
              o.log.warn({ project: k, err: (e as Error).message }, 'sign-in: the project database cannot be opened');
            }
          }
        } else if (p.database && (first || was.has(k))) {
          // The grant went (or may have gone while the node was down): sessions end; users stay for a re-grant.
          forget(k);
          const path = databasePath(o.dir, p.org, p.project);
          try {
            if (existsSync(path)) SignInStore.endAllSessionsAt(path);
          } catch (e) {
            o.log.warn({ project: k, err: (e as Error).message }, 'sign-in: ending the sessions of a revoked grant failed');
          }
        }
      }
      for (const k of stores.keys()) if (!next.has(k)) forget(k);
      granted = next;
    },
    close() {
      clearInterval(pruner);
      for (const k of [...stores.keys()]) forget(k);
    },
  };
}
