/**
 * The sandbox OAuth provider: a real HTTP server of ours that answers like the OAuth 2.0 authorization-code
 * endpoints of GitHub, Google and Kakao (authorize, token, user info), each under its own path prefix, so that
 * the node's sign-in handler (agent/signin/) can be run end to end without the real providers. `serve` starts one
 * on loopback for the embedded default; a node given the real providers' URLs talks to them the same way.
 *
 * Where a client can tell the providers apart, the sandbox behaves like each:
 * - authorize: `response_type=code`, a registered `client_id`, a `redirect_uri` equal to one the client registered
 *   (GitHub uses the first registered one when it is absent; a mismatch is an error page, never a redirect, so a
 *   code cannot be sent to a URI the client did not register), `state` echoed. PKCE is optional at all three, as
 *   it is at the real ones: a `code_challenge` given binds the code to its verifier (GitHub: `S256` only; Google
 *   and Kakao also `plain`, the default method when none is named). Consent is given at once by the sandbox's
 *   signed-in user of that provider (set through the control routes): a 302 straight back with `code` and
 *   `state`.
 * - token: `grant_type=authorization_code`, form body; the client authenticates with `client_secret` in the body
 *   (Google also with HTTP basic); a code is single use (a replay also revokes the token issued for it, RFC 6749
 *   10.5) and lives 10 minutes; `redirect_uri` must equal the authorize one and `code_verifier` must match the
 *   challenge. GitHub answers form-encoded unless the client sends `Accept: application/json`, and its errors
 *   come with status 200 (`error=bad_verification_code`, `redirect_uri_mismatch`, `incorrect_client_credentials`);
 *   Google's and Kakao's with 400/401 (`invalid_grant`, `invalid_client`, `redirect_uri_mismatch`, Kakao's with
 *   its `error_code` `KOE...`).
 * - user info, with `Authorization: Bearer <token>` (GitHub also `token <token>`): GitHub `/user`
 *   `{id, login, email}` and `/user/emails` `[{email, primary, verified, visibility}]` (scope `user:email`;
 *   without a `User-Agent` GitHub's API answers 403); Google `/v1/userinfo` `{sub, email, email_verified}`
 *   (email with scope `email`); Kakao `/v2/user/me` `{id, kakao_account: {email, is_email_verified,
 *   is_email_valid}}` (email with scope `account_email`).
 *
 * Control (JSON), for tests and curl users, with `Authorization: Bearer <token>` (`OAuthSandbox.token`; `serve`
 * writes it to `DATA/oauth-sandbox.json`, mode 0600): without it anyone who can reach the port could add a person
 * with any verified email and sign in as them wherever the sandbox is trusted. 401 otherwise.
 * - `PUT /_sandbox/{provider}/clients/{clientId}` `{clientSecret, redirectUris}` registers (or replaces) an app;
 * - `PUT /_sandbox/{provider}/users/{id}` `{email, verified?}` adds a person (GitHub and Kakao ids are numbers);
 * - `PUT /_sandbox/{provider}/session` `{userId}` (`null`: nobody) signs a person in at that provider;
 * - `PUT /_sandbox/faults` `{mode, provider?, times?, delayMs?}` (the shape of the other sandboxes' faults, with
 *   `provider` where they name `operations`) and `DELETE /_sandbox/faults`: `deny` (consent
 *   refused: the redirect carries `error=access_denied`), `bad_code` (the token endpoint refuses every code as
 *   the provider does an unknown one), `slow_token` (the token endpoint acts, then answers after `delayMs`,
 *   default 30 s).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOn } from '../../lib/http/http-server';
import { z } from 'zod';
import type { Logger } from '../../lib/log';
import { sameText } from '../../lib/same-text';
import { OAUTH_PROVIDERS, OAuthProvider, type OAuthProviderName, type ProviderEndpoints } from '../../rules/oauth-providers';

export type { OAuthProviderName, ProviderEndpoints };

export interface OAuthSandbox {
  url: string;
  /** The bearer token of the control routes (`/_sandbox/...`). */
  token: string;
  /** The sandbox's endpoints for `provider`, to put in a bundle in place of the real ones (rules/oauth-providers.ts). */
  endpoints(provider: OAuthProviderName): ProviderEndpoints;
  close(): Promise<void>;
}

/** The sandbox's paths: the real ones under a prefix per provider. */
const PATHS: Record<OAuthProviderName, ProviderEndpoints> = {
  github: { authorize: '/github/login/oauth/authorize', token: '/github/login/oauth/access_token', userInfo: '/github/user', emails: '/github/user/emails' },
  google: { authorize: '/google/o/oauth2/v2/auth', token: '/google/token', userInfo: '/google/v1/userinfo', emails: null },
  kakao: { authorize: '/kakao/oauth/authorize', token: '/kakao/oauth/token', userInfo: '/kakao/v2/user/me', emails: null },
};

/** How long a code can be exchanged (GitHub's and Kakao's 10 minutes). */
const CODE_TTL_MS = 10 * 60_000;
const TOKEN_TTL_MS = 60 * 60_000;
const MAX_BODY_BYTES = 64 * 1024;
/** Codes and tokens alive at once: anyone can ask the authorize endpoint for codes, and memory stays bounded. */
const MAX_GRANTS = 10_000;

const ClientBody = z.strictObject({ clientSecret: z.string().min(1), redirectUris: z.array(z.url()).min(1) });
const UserBody = z.strictObject({ email: z.email().nullable(), verified: z.boolean().default(true), login: z.string().min(1).optional() });
// A number is taken as the id it spells: GitHub's and Kakao's ids are numbers.
const SessionBody = z.strictObject({ userId: z.union([z.string().min(1), z.number().int().nonnegative().transform(String)]).nullable() });
const FaultBody = z.strictObject({
  mode: z.enum(['deny', 'bad_code', 'slow_token']),
  provider: OAuthProvider.optional(),
  times: z.number().int().min(1).optional(),
  delayMs: z.number().int().min(0).max(600_000).optional(),
});
type SandboxFault = z.infer<typeof FaultBody> & { left: number };

interface Client { clientSecret: string; redirectUris: string[] }
interface Person { id: string; email: string | null; verified: boolean; login: string }
interface Code {
  provider: OAuthProviderName; clientId: string; userId: string; redirectUri: string; scope: string[];
  challenge: { value: string; method: 'S256' | 'plain' } | null; expires: number; used: boolean; token: string | null;
}
interface Token { provider: OAuthProviderName; userId: string; scope: string[]; expires: number }

interface Reply { status: number; headers?: Record<string, string>; body: string }
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  ({ status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(body) });
const text = (status: number, body: string): Reply => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `${body}\n` });
const redirect = (to: string): Reply => ({ status: 302, headers: { location: to }, body: '' });

/** Starts the sandbox OAuth provider on `host:port` (loopback and a free port by default). */
export async function startOAuthSandbox(opts: { host?: string; port?: number; log?: Logger }): Promise<OAuthSandbox> {
  const controlToken = randomBytes(32).toString('base64url');
  const clients = new Map<string, Client>();
  const people = new Map<string, Person>();
  const signedIn = new Map<OAuthProviderName, string>();
  const codes = new Map<string, Code>();
  const tokens = new Map<string, Token>();
  let fault: SandboxFault | null = null;
  const key = (p: OAuthProviderName, id: string): string => `${p}\0${id}`;

  const faultNow = (mode: SandboxFault['mode'], provider: OAuthProviderName): SandboxFault | null => {
    if (!fault || fault.mode !== mode || (fault.provider && fault.provider !== provider)) return null;
    const f = fault;
    if (--f.left <= 0) fault = null;
    return f;
  };
  const sweep = (now: number): void => {
    for (const [c, v] of codes) if (v.expires <= now) codes.delete(c);
    for (const [t, v] of tokens) if (v.expires <= now) tokens.delete(t);
  };

  function authorize(p: OAuthProviderName, url: URL): Reply {
    const q = url.searchParams;
    const clientId = q.get('client_id') ?? '';
    const client = clients.get(key(p, clientId));
    if (!client) return text(400, `${p}: unknown client_id`);
    const given = q.get('redirect_uri');
    const redirectUri = given ?? (p === 'github' ? client.redirectUris[0]! : null);
    if (redirectUri === null) return text(400, `${p}: redirect_uri is required`);
    if (!client.redirectUris.includes(redirectUri)) return text(400, `${p}: redirect_uri_mismatch: ${redirectUri} is not registered for this client`);
    const back = (params: Record<string, string>): Reply => {
      const to = new URL(redirectUri);
      for (const [k, v] of Object.entries(params)) to.searchParams.set(k, v);
      const state = q.get('state');
      if (state !== null) to.searchParams.set('state', state);
      return redirect(to.href);
    };
    if (p !== 'github' && q.get('response_type') !== 'code') return back({ error: 'unsupported_response_type' });
    const challenge = q.get('code_challenge');
    const method = q.get('code_challenge_method') ?? (challenge === null ? null : p === 'github' ? 'S256' : 'plain');
    if (challenge !== null && !(method === 'S256' || (method === 'plain' && p !== 'github'))) {
      return back({ error: 'invalid_request', error_description: `code_challenge_method ${method} is not supported` });
    }
    if (challenge !== null && !/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) return back({ error: 'invalid_request', error_description: 'code_challenge is malformed' });
    const userId = signedIn.get(p);
    if (userId === undefined || !people.has(key(p, userId))) return text(401, `${p}: nobody is signed in at the sandbox provider (PUT /_sandbox/${p}/session)`);
    if (faultNow('deny', p)) return back({ error: 'access_denied', error_description: 'The user has denied your application access.' });
    if (codes.size >= MAX_GRANTS) return text(503, `${p}: too many codes outstanding; try again later`);
    const code = randomBytes(20).toString('hex');
    codes.set(code, {
      provider: p, clientId, userId, redirectUri, scope: (q.get('scope') ?? '').split(/[\s,]+/).filter(Boolean),
      challenge: challenge === null ? null : { value: challenge, method: method as 'S256' | 'plain' },
      expires: Date.now() + CODE_TTL_MS, used: false, token: null,
    });
    return back({ code });
  }

  function tokenError(p: OAuthProviderName, asJson: boolean, error: string, description: string, status = 400): Reply {
    if (p === 'github') {
      // GitHub says what went wrong in a 200 answer, in the format the client asked for.
      const body = { error, error_description: description, error_uri: 'https://docs.github.com/apps/troubleshooting-oauth-app-access-token-request-errors' };
      return asJson ? json(200, body) : { status: 200, headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, body: new URLSearchParams(body).toString() };
    }
    if (p === 'kakao') {
      const codes: Record<string, string> = { invalid_grant: 'KOE320', invalid_client: 'KOE010', redirect_uri_mismatch: 'KOE303', invalid_request: 'KOE010' };
      return json(status, { error, error_description: description, error_code: codes[error] ?? 'KOE000' });
    }
    return json(status, { error, error_description: description });
  }

  function token(p: OAuthProviderName, req: IncomingMessage, body: URLSearchParams): Reply {
    const asJson = p !== 'github' || (req.headers.accept ?? '').includes('application/json');
    const bad = (error: string, description: string, status?: number) => tokenError(p, asJson, error, description, status);
    let clientId = body.get('client_id');
    let secret = body.get('client_secret');
    const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (basic && p === 'google') {
      const [id, s] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').map((x) => decodeURIComponent(x));
      clientId = id ?? null;
      secret = s ?? null;
    }
    const client = clientId === null ? undefined : clients.get(key(p, clientId));
    if (!client || secret === null || !sameText(secret, client.clientSecret)) {
      return p === 'github' ? bad('incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.') : bad('invalid_client', 'Unauthorized', 401);
    }
    if (p !== 'github' && body.get('grant_type') !== 'authorization_code') return bad('unsupported_grant_type', 'grant_type must be authorization_code');
    const invalidCode = () => p === 'github'
      ? bad('bad_verification_code', 'The code passed is incorrect or expired.')
      : bad('invalid_grant', p === 'kakao' ? 'authorization code not found' : 'Bad Request');
    if (faultNow('bad_code', p)) return invalidCode();
    const codeText = body.get('code') ?? '';
    const code = codes.get(codeText);
    if (!code || code.provider !== p || code.expires <= Date.now()) return invalidCode();
    if (code.used) {
      if (code.token) tokens.delete(code.token);
      return invalidCode();
    }
    if (code.clientId !== clientId) return invalidCode();
    const redirectUri = body.get('redirect_uri');
    if (redirectUri !== code.redirectUri && !(p === 'github' && redirectUri === null)) {
      return bad('redirect_uri_mismatch', 'The redirect_uri MUST match the registered callback URL for this application.');
    }
    if (code.challenge) {
      const verifier = body.get('code_verifier');
      const derived = verifier === null ? null
        : code.challenge.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
      if (derived === null || !sameText(derived, code.challenge.value)) {
        return p === 'github' ? bad('bad_verification_code', 'The code_verifier does not match the code_challenge.') : bad('invalid_grant', 'Invalid code verifier.');
      }
    }
    if (tokens.size >= MAX_GRANTS) return bad('temporarily_unavailable', 'too many tokens outstanding', 503);
    code.used = true;
    const access = randomBytes(24).toString('base64url');
    code.token = access;
    tokens.set(access, { provider: p, userId: code.userId, scope: code.scope, expires: Date.now() + TOKEN_TTL_MS });
    const scope = code.scope.join(p === 'github' ? ',' : ' ');
    if (p === 'github') {
      const answer = { access_token: access, token_type: 'bearer', scope };
      return asJson ? json(200, answer) : { status: 200, headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' }, body: new URLSearchParams(answer).toString() };
    }
    const expiresIn = TOKEN_TTL_MS / 1000;
    return json(200, p === 'google'
      ? { access_token: access, expires_in: expiresIn - 1, token_type: 'Bearer', scope }
      : { token_type: 'bearer', access_token: access, expires_in: expiresIn, refresh_token: randomBytes(24).toString('base64url'), refresh_token_expires_in: 5_184_000, scope });
  }

  function userInfo(p: OAuthProviderName, which: 'user' | 'emails', req: IncomingMessage): Reply {
    if (p === 'github' && !req.headers['user-agent']) {
      return json(403, { message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header.' });
    }
    const m = /^(?:Bearer|token)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const t = m ? tokens.get(m[1]!) : undefined;
    if (!t || t.provider !== p || t.expires <= Date.now() || (p !== 'github' && !/^Bearer\s/i.test(req.headers.authorization!))) {
      if (p === 'github') return json(401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
      if (p === 'kakao') return json(401, { msg: 'this access token does not exist', code: -401 });
      return json(401, { error: 'invalid_token', error_description: 'Invalid Credentials' }, { 'www-authenticate': 'Bearer error="invalid_token"' });
    }
    const person = people.get(key(p, t.userId))!;
    const can = (s: string) => t.scope.includes(s);
    if (p === 'github') {
      if (which === 'emails') {
        if (!can('user:email') && !can('user')) return json(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
        return json(200, person.email === null ? [] : [{ email: person.email, primary: true, verified: person.verified, visibility: 'public' }]);
      }
      return json(200, { id: Number(person.id), login: person.login, email: person.email, type: 'User' });
    }
    if (p === 'google') {
      return json(200, can('email') && person.email !== null ? { sub: person.id, email: person.email, email_verified: person.verified } : { sub: person.id });
    }
    const account = can('account_email') && person.email !== null
      ? { has_email: true, email_needs_agreement: false, is_email_valid: true, is_email_verified: person.verified, email: person.email }
      : { has_email: person.email !== null, email_needs_agreement: person.email !== null };
    return json(200, { id: Number(person.id), connected_at: new Date(0).toISOString(), kakao_account: account });
  }

  async function control(method: string, path: string, req: IncomingMessage): Promise<Reply> {
    const bad = (message: string) => json(400, { code: 'bad_request', message });
    if (path === '/_sandbox/faults') {
      if (method === 'DELETE') {
        fault = null;
        return json(200, { ok: true });
      }
      const f = FaultBody.safeParse(await readJson(req));
      if (method !== 'PUT' || !f.success) return bad('PUT a fault {mode: deny|bad_code|slow_token, provider?, times?, delayMs?}');
      fault = { ...f.data, left: f.data.times ?? Infinity };
      return json(200, { ok: true });
    }
    const m = /^\/_sandbox\/(github|google|kakao)\/(?:(clients|users)\/([^/]+)|(session))$/.exec(path);
    if (!m || method !== 'PUT') {
      return json(404, {
        code: 'not_found',
        message: 'no such sandbox route; the routes: PUT /_sandbox/{github|google|kakao}/clients/{clientId} {clientSecret, redirectUris}, PUT /_sandbox/{provider}/users/{id} {email, verified?}, PUT /_sandbox/{provider}/session {userId}, PUT /_sandbox/faults {mode, provider?, times?, delayMs?}, DELETE /_sandbox/faults',
      });
    }
    const p = m[1] as OAuthProviderName;
    const id = m[3] === undefined ? '' : decodeURIComponent(m[3]);
    const body = await readJson(req);
    if (m[2] === 'clients') {
      const c = ClientBody.safeParse(body);
      if (!c.success) return bad('PUT a client {clientSecret, redirectUris}');
      clients.set(key(p, id), c.data);
      opts.log?.debug({ provider: p, clientId: id, redirectUris: c.data.redirectUris }, 'oauth sandbox: client registered');
      return json(200, { provider: p, clientId: id, redirectUris: c.data.redirectUris });
    }
    if (m[2] === 'users') {
      const u = UserBody.safeParse(body);
      if (!u.success) return bad('PUT a user {email, verified?, login?}');
      if (p !== 'google' && !/^[1-9][0-9]{0,15}$/.test(id)) return bad(`${p} user ids are numbers`);
      people.set(key(p, id), { id, email: u.data.email, verified: u.data.verified, login: u.data.login ?? `user${id}` });
      return json(200, { provider: p, id, email: u.data.email, verified: u.data.verified });
    }
    const s = SessionBody.safeParse(body);
    if (!s.success) return bad('PUT a session {userId}');
    if (s.data.userId === null) signedIn.delete(p);
    else if (!people.has(key(p, s.data.userId))) return bad(`no ${p} user ${s.data.userId}`);
    else signedIn.set(p, s.data.userId);
    return json(200, { provider: p, userId: s.data.userId });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = req.method ?? 'GET';
    sweep(Date.now());
    if (url.pathname.startsWith('/_sandbox/')) {
      const given = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (given === undefined || !sameText(given, controlToken)) {
        return send(res, json(401, { code: 'unauthorized', message: 'the sandbox\'s control routes need Authorization: Bearer <its token>' }, { 'www-authenticate': 'Bearer' }));
      }
      return send(res, await control(method, url.pathname, req));
    }
    for (const p of OAUTH_PROVIDERS) {
      const paths = PATHS[p];
      if (url.pathname === paths.authorize && method === 'GET') return send(res, authorize(p, url));
      if (url.pathname === paths.userInfo && (method === 'GET' || (p === 'kakao' && method === 'POST'))) return send(res, userInfo(p, 'user', req));
      if (url.pathname === paths.emails && method === 'GET') return send(res, userInfo(p, 'emails', req));
      if (url.pathname === paths.token && method === 'POST') {
        const slow = faultNow('slow_token', p);
        const reply = token(p, req, await readForm(req));
        if (!slow) return send(res, reply);
        const timer = setTimeout(() => send(res, reply), slow.delayMs ?? 30_000);
        res.once('close', () => clearTimeout(timer));
        return;
      }
    }
    send(res, json(404, { message: 'Not Found' }));
  }

  const server: Server = createServer((req, res) => {
    route(req, res).catch((e: Error) => {
      opts.log?.error({ err: e.message }, 'oauth sandbox: request failed');
      send(res, json(e instanceof TooLarge ? 413 : 500, { error: 'server_error' }));
    });
  });
  const url = await listenOn(server, { host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
  return {
    url,
    token: controlToken,
    endpoints: (p) => ({
      authorize: url + PATHS[p].authorize,
      token: url + PATHS[p].token,
      userInfo: url + PATHS[p].userInfo,
      emails: PATHS[p].emails === null ? null : url + PATHS[p].emails,
    }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

class TooLarge extends Error {}

function send(res: ServerResponse, r: Reply): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(r.status, { 'cache-control': 'no-store', ...r.headers }).end(r.body);
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new TooLarge('body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  try {
    const t = await readText(req);
    return t ? JSON.parse(t) : undefined;
  } catch (e) {
    if (e instanceof TooLarge) throw e;
    return undefined;
  }
}

/** The token endpoint's parameters: a form body, or JSON (which the three also take). */
async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const t = await readText(req);
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    try {
      const o = JSON.parse(t) as Record<string, unknown>;
      return new URLSearchParams(Object.entries(o).filter(([, v]) => typeof v === 'string') as [string, string][]);
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams(t);
}

