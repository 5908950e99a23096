/**
 * The node's side of the OAuth 2.0 authorization-code flow (RFC 6749 4.1, PKCE RFC 7636) with GitHub, Google and
 * Kakao, at the endpoints the bundle names (the real providers, or the sandbox of providers/oauth/sandbox.ts):
 * the authorize URL, the code exchange, and who the person is (the provider's stable id and email).
 *
 * Every call has a deadline and a bounded answer, and a non-2xx answer is a failure; GitHub reports token
 * errors in a 200 answer, so an `error` field fails too. Codes, tokens and the client secret go only to the
 * provider: they are in no message here.
 */
import type { OAuthProviderName, ProviderEndpoints } from '../../rules/oauth-providers';
import type { ProviderUser } from './store';

/** One provider registered for a project, as the bundle carries it. */
export interface ProviderConfig {
  provider: OAuthProviderName;
  clientId: string;
  clientSecret: string;
  endpoints: ProviderEndpoints;
}

/** Why a sign-in could not be finished: `refused`, the provider said no (a bad, replayed or expired code);
 * `unavailable`, the provider could not be reached, was too slow or answered nonsense. */
export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(readonly kind: 'refused' | 'misconfigured' | 'unavailable', message: string) {
    super(message);
  }
}

/** What each provider must be asked for to tell the person's email. */
const SCOPES: Record<OAuthProviderName, string> = { github: 'read:user user:email', google: 'openid email', kakao: 'account_email' };
/** Larger answers are not read: a token or a user-info answer is well under it. */
const MAX_ANSWER_BYTES = 64 * 1024;
const USER_AGENT = 'hostplane-node';

/** Where the browser is sent to consent. */
export function authorizeUrl(p: ProviderConfig, o: { redirectUri: string; state: string; challenge: string }): string {
  const u = new URL(p.endpoints.authorize);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('client_id', p.clientId);
  u.searchParams.set('redirect_uri', o.redirectUri);
  u.searchParams.set('scope', SCOPES[p.provider]);
  u.searchParams.set('state', o.state);
  u.searchParams.set('code_challenge', o.challenge);
  u.searchParams.set('code_challenge_method', 'S256');
  return u.href;
}

async function call(url: string, init: RequestInit, timeoutMs: number, what: string): Promise<{ status: number; json: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...init.headers } });
  } catch (e) {
    throw new ProviderError('unavailable', (e as Error).name === 'TimeoutError' ? `${what}: no answer within ${timeoutMs} ms` : `${what}: the provider cannot be reached`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body ?? []) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) throw new ProviderError('unavailable', `${what}: the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
      chunks.push(chunk);
    }
  } catch (e) {
    if (e instanceof ProviderError) throw e;
    throw new ProviderError('unavailable', (e as Error).name === 'TimeoutError' ? `${what}: no answer within ${timeoutMs} ms` : `${what}: the answer was cut`);
  }
  try {
    return { status: res.status, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch {
    throw new ProviderError('unavailable', `${what}: the answer (${res.status}) is not JSON`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Token endpoint errors about the client rather than the code (RFC 6749 5.2; GitHub's own name). Not
 * `redirect_uri_mismatch`: whoever signs in chooses the redirect URI the code is issued for, so anyone could
 * make a working site look broken with it; a callback URL registered wrong fails at the authorize step instead. */
const CLIENT_ERRORS = new Set(['invalid_client', 'unauthorized_client', 'incorrect_client_credentials']);

/** Exchanges `code` for an access token. */
export async function exchangeCode(p: ProviderConfig, o: { code: string; redirectUri: string; verifier: string }, timeoutMs: number): Promise<string> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code', code: o.code, redirect_uri: o.redirectUri, client_id: p.clientId, client_secret: p.clientSecret, code_verifier: o.verifier,
  });
  const { status, json } = await call(p.endpoints.token, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }, timeoutMs, 'token exchange');
  if (isObject(json) && typeof json.error === 'string') {
    // A 4xx or GitHub's 200 with an error: the provider refused this code (what it says names no secret), or the
    // project's client (its id, secret or registered callback), which no new attempt can get past.
    const kind = status >= 500 ? 'unavailable' : CLIENT_ERRORS.has(json.error) ? 'misconfigured' : 'refused';
    throw new ProviderError(kind, `token exchange: the provider answered ${status} ${json.error}`);
  }
  if (status < 200 || status > 299) throw new ProviderError('unavailable', `token exchange: the provider answered ${status}`);
  if (!isObject(json) || typeof json.access_token !== 'string' || json.access_token === '') throw new ProviderError('unavailable', 'token exchange: the answer has no access_token');
  return json.access_token;
}

async function getJson(url: string, token: string, timeoutMs: number, what: string): Promise<unknown> {
  const { status, json } = await call(url, { headers: { authorization: `Bearer ${token}` } }, timeoutMs, what);
  if (status < 200 || status > 299) throw new ProviderError('unavailable', `${what}: the provider answered ${status}`);
  return json;
}

const subjectOf = (v: unknown): string | null =>
  (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) || (typeof v === 'string' && /^[\x21-\x7e]{1,255}$/.test(v)) ? String(v) : null;

/** Who consented: the provider's stable id, and the email with whether the provider says it is verified. */
export async function readUser(p: ProviderConfig, token: string, timeoutMs: number): Promise<ProviderUser> {
  const info = await getJson(p.endpoints.userInfo, token, timeoutMs, 'user info');
  if (!isObject(info)) throw new ProviderError('unavailable', 'user info: not an object');
  const subject = subjectOf(p.provider === 'google' ? info.sub : info.id);
  if (subject === null) throw new ProviderError('unavailable', 'user info: no user id');
  const str = (v: unknown): string | null => (typeof v === 'string' && v.includes('@') && v.length <= 320 ? v : null);
  if (p.provider === 'google') return { subject, email: str(info.email), emailVerified: info.email_verified === true };
  if (p.provider === 'kakao') {
    const a = isObject(info.kakao_account) ? info.kakao_account : {};
    return { subject, email: str(a.email), emailVerified: a.is_email_verified === true && a.is_email_valid === true };
  }
  // GitHub's /user shows only a public email, and says nothing of verification: the emails list does.
  if (p.endpoints.emails === null) return { subject, email: str(info.email), emailVerified: false };
  const list = await getJson(p.endpoints.emails, token, timeoutMs, 'user emails');
  const emails = (Array.isArray(list) ? list : []).filter(isObject);
  const best = emails.find((e) => e.primary === true && e.verified === true) ?? emails.find((e) => e.verified === true) ?? emails.find((e) => e.primary === true);
  return best && str(best.email) ? { subject, email: str(best.email), emailVerified: best.verified === true } : { subject, email: str(info.email), emailVerified: false };
}
