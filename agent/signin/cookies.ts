/**
 * The sign-in handler's cookies. Both are `__Host-` cookies (RFC 6265bis 4.1.3.2): the browser keeps them only
 * when Secure, Path=/ and without Domain, so they belong to the one host that set them, and no sibling host of
 * the app domain can set or overwrite them.
 * - `__Host-service-auth`: the session token (32 random bytes, base64url); the node keeps only its SHA-256
 *   (tokenHash).
 * - `__Host-service-auth-login`: one login in progress, `<payload>.<mac>`: base64url JSON {state, PKCE verifier,
 *   next, provider, host, expiry} and its HMAC-SHA256 under the node's key, so the callback can check that the
 *   `state` the provider echoes is the one this browser was given, without memory on the node.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = '__Host-service-auth';
export const LOGIN_COOKIE = '__Host-service-auth-login';
/** How long a login may take between the redirect to the provider and the callback. */
export const LOGIN_TTL_MS = 10 * 60_000;

export interface LoginState {
  state: string;
  verifier: string;
  next: string;
  provider: string;
  host: string;
  /** Epoch milliseconds. */
  expires: number;
}

/** The SHA-256 of a session token, hex: all of it the project's database is given. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A `Set-Cookie` value for `name`; `maxAgeSeconds` 0 deletes it. */
export function setCookie(name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`;
}

const mac = (key: Buffer, payload: string): Buffer => createHmac('sha256', key).update(payload).digest();

export function sealLogin(key: Buffer, s: LoginState): string {
  const payload = Buffer.from(JSON.stringify(s)).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** The login state of a cookie value when its MAC is ours and it has not expired; null otherwise. */
export function openLogin(key: Buffer, value: string | undefined, now: number): LoginState | null {
  if (!value) return null;
  const dot = value.indexOf('.');
  if (dot < 0) return null;
  const payload = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  const want = mac(key, payload);
  if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
  let s: LoginState;
  try {
    s = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LoginState;
  } catch {
    return null;
  }
  return typeof s.expires === 'number' && s.expires > now ? s : null;
}

