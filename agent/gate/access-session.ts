/**
 * The node's deployment access sessions, without a session store: a cookie that carries what it admits and an
 * HMAC-SHA256 over it with a key only this node has (`D/access.key`, 32 random bytes, mode 0600, made at the
 * first start). Deleting the key file ends every session on the node at its next start.
 *
 * Session cookie `__Host-service-access` (the `__Host-` prefix makes browsers keep it host-only, `Path=/`,
 * `Secure`: a sibling host under the same app domain can neither read nor plant it), `HttpOnly`,
 * `SameSite=Lax`, `Max-Age` the session's lifetime. Its value:
 *
 *   1.<mode>.<policy version>.<expiry, unix seconds>.<user, base64url>.<MAC, base64url>
 *
 * The MAC covers the host, the project, the mode, the policy version, the expiry and the user (the email of an
 * `org` session, empty in `password` mode): a cookie admits one host of one project while the policy is what it
 * was made under; a changed password or mode raises the version and ends every older session. Comparisons are
 * of fixed-length digests in constant time.
 *
 * The password form's CSRF token is a double submit bound by the same key: a random nonce in the pre-session
 * cookie `__Host-service-access-csrf` and, in the form, HMAC(host, nonce), which a page of another origin can
 * neither read nor compute.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { loadNodeKey } from './node-key';

export const SESSION_COOKIE = '__Host-service-access';
export const CSRF_COOKIE = '__Host-service-access-csrf';
/** The `state` of an `org` round trip through the dashboard, for the browser that started it. */
export const STATE_COOKIE = '__Host-service-access-state';

export const accessKeyPath = (dir: string): string => join(dir, 'access.key');

/** The node's session key from `D/access.key` (agent/gate/node-key.ts). */
export const loadAccessKey = (dir: string): Buffer => loadNodeKey(accessKeyPath(dir), 'every access session on this node then ends');

/** What a session admits: one host of one project, under one mode and policy version (and for `org` mode, one
 * members version of the organization). */
export interface SessionScope {
  host: string;
  /** `org/project`. */
  project: string;
  mode: 'org' | 'password';
  version: number;
  members: number;
}

const mac = (key: Buffer, ...parts: string[]): Buffer => createHmac('sha256', key).update(parts.join('\n')).digest();

const sessionMac = (key: Buffer, s: SessionScope, expires: number, user: string): Buffer =>
  mac(key, 'hostplane access session 1', s.host, s.project, s.mode, String(s.version), String(s.members), String(expires), user);

/** The session cookie's value for `user` (empty in `password` mode), expiring at `expires` (unix seconds). */
export function signSession(key: Buffer, s: SessionScope, expires: number, user: string): string {
  return ['1', s.mode, s.version, expires, Buffer.from(user).toString('base64url'), sessionMac(key, s, expires, user).toString('base64url')].join('.');
}

/** The session's user ('' in `password` mode) when `value` is a cookie this node made for `s` that has not
 * expired at `now` (unix seconds); null otherwise. */
export function verifySession(key: Buffer, value: string, s: SessionScope, now: number): { user: string } | null {
  const parts = value.split('.');
  if (parts.length !== 6 || parts[0] !== '1' || parts[1] !== s.mode || parts[2] !== String(s.version)) return null;
  const expires = Number(parts[3]);
  if (!/^\d{1,12}$/.test(parts[3]!) || expires <= now) return null;
  const user = Buffer.from(parts[4]!, 'base64url').toString();
  const given = Buffer.from(parts[5]!, 'base64url');
  if (given.length !== 32) return null;
  return timingSafeEqual(given, sessionMac(key, s, expires, user)) ? { user } : null;
}

/** A fresh nonce for the CSRF cookie. */
export const newCsrfNonce = (): string => randomBytes(16).toString('base64url');

/** The form token for the CSRF cookie's `nonce` on `host`. */
export const csrfToken = (key: Buffer, host: string, nonce: string): string => mac(key, 'hostplane access csrf 1', host, nonce).toString('base64url');

/** Whether `token` is the form token of `nonce` on `host`. */
export function checkCsrf(key: Buffer, host: string, nonce: string | null, token: string | null): boolean {
  if (!nonce || !token) return false;
  const given = Buffer.from(token, 'base64url');
  return given.length === 32 && timingSafeEqual(given, mac(key, 'hostplane access csrf 1', host, nonce));
}


/** A `Cookie` header without the access cookies (undefined when nothing else is left): they are the node's,
 * and a worker that logs its requests must not get a session it could replay. */
export function withoutAccessCookies(header: string): string | undefined {
  if (!header.includes(SESSION_COOKIE)) return header;
  const kept = header.split(';').map((pair) => pair.trim()).filter((pair) => {
    const name = pair.slice(0, pair.indexOf('=')).trim();
    return name !== SESSION_COOKIE && name !== CSRF_COOKIE && name !== STATE_COOKIE;
  }).join('; ');
  return kept === '' ? undefined : kept;
}

const ATTRIBUTES = 'Path=/; HttpOnly; Secure; SameSite=Lax';

export const sessionCookie = (value: string, maxAgeSeconds: number): string => `${SESSION_COOKIE}=${value}; Max-Age=${maxAgeSeconds}; ${ATTRIBUTES}`;
export const clearedSessionCookie = (): string => `${SESSION_COOKIE}=; Max-Age=0; ${ATTRIBUTES}`;
/** The pre-session cookie lives as long as the browser session. */
export const csrfCookie = (nonce: string): string => `${CSRF_COOKIE}=${nonce}; ${ATTRIBUTES}`;
/** Lives as long as a round trip may take: the dashboard's sign-in, then the code's 60 s. */
export const stateCookie = (state: string): string => `${STATE_COOKIE}=${state}; Max-Age=600; ${ATTRIBUTES}`;
export const clearedStateCookie = (): string => `${STATE_COOKIE}=; Max-Age=0; ${ATTRIBUTES}`;
