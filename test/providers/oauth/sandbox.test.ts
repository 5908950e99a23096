import { createHash, randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOAuthSandbox, type OAuthProviderName, type OAuthSandbox } from '../../../providers/oauth/sandbox';

let sandbox: OAuthSandbox;
const CALLBACK = 'https://app.example.test/__service/auth/callback';

const control = async (path: string, body: unknown, method = 'PUT', token = sandbox.token): Promise<Response> =>
  fetch(`${sandbox.url}/_sandbox/${path}`, { method, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });

const SCOPES: Record<OAuthProviderName, string> = { github: 'read:user user:email', google: 'openid email', kakao: 'account_email' };

/** Authorize as a client would: the 302's query, or the whole answer when it is not a redirect. */
async function authorize(p: OAuthProviderName, params: Record<string, string>): Promise<{ status: number; query: URLSearchParams; text: string }> {
  const u = new URL(sandbox.endpoints(p).authorize);
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: `${p}-client`, redirect_uri: `${CALLBACK}/${p}`, scope: SCOPES[p], state: 's1', ...params })) {
    if (v !== '') u.searchParams.set(k, v);
  }
  const res = await fetch(u, { redirect: 'manual' });
  const location = res.headers.get('location');
  return { status: res.status, query: location ? new URL(location).searchParams : new URLSearchParams(), text: await res.text() };
}

async function exchange(p: OAuthProviderName, form: Record<string, string>, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(sandbox.endpoints(p).token, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: `${p}-client`, client_secret: `${p}-secret`, redirect_uri: `${CALLBACK}/${p}`, ...form }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

beforeAll(async () => {
  sandbox = await startOAuthSandbox({});
});
afterAll(() => sandbox.close());

beforeEach(async () => {
  await control('faults', undefined, 'DELETE');
  for (const p of ['github', 'google', 'kakao'] as const) {
    expect((await control(`${p}/clients/${p}-client`, { clientSecret: `${p}-secret`, redirectUris: [`${CALLBACK}/${p}`] })).status).toBe(200);
    await control(`${p}/users/1001`, { email: 'ada@example.test', verified: true });
    await control(`${p}/users/1002`, { email: 'bob@example.test', verified: false });
    await control(`${p}/session`, { userId: '1001' });
  }
});

describe('the control routes', () => {
  it('need the sandbox\'s token: without it nobody can add a person with a verified email and sign in as them', async () => {
    for (const token of ['', 'wrong', `${sandbox.token}x`]) {
      const r = await control('github/users/666', { email: 'ada@example.test', verified: true }, 'PUT', token);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect((await control('github/session', { userId: '666' })).status).toBe(400);
  });

  it('takes a numeric userId for the session, and lists its routes on a 404', async () => {
    expect((await control('github/session', { userId: 1002 })).status).toBe(200);
    expect((await authorize('github', {})).status).toBe(302);
    const missing = await control('github/people/1', {});
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { message: string }).message).toContain('PUT /_sandbox/{provider}/users/{id}');
    await control('github/session', { userId: '1001' });
  });

  it('the consenting person is the one the control routes signed in: the authorize URL cannot name another', async () => {
    const a = await authorize('github', { sandbox_user: '1002' });
    expect(a.status).toBe(302);
    const t = await exchange('github', { code: a.query.get('code')! });
    const auth = { authorization: `Bearer ${t.body.access_token as string}`, 'user-agent': 'test' };
    expect(await (await fetch(sandbox.endpoints('github').userInfo, { headers: auth })).json()).toMatchObject({ id: 1001 });
  });
});

describe('the authorization-code flow of each provider', () => {
  it('github: redirects back with code and state, exchanges it with PKCE, answers /user and /user/emails', async () => {
    const { verifier, challenge } = pkce();
    const a = await authorize('github', { code_challenge: challenge, code_challenge_method: 'S256', state: 'xyz' });
    expect(a.status).toBe(302);
    expect(a.query.get('state')).toBe('xyz');
    const t = await exchange('github', { code: a.query.get('code')!, code_verifier: verifier });
    expect(t).toMatchObject({ status: 200, body: { token_type: 'bearer', scope: 'read:user,user:email' } });
    const auth = { authorization: `Bearer ${t.body.access_token as string}`, 'user-agent': 'test' };
    expect(await (await fetch(sandbox.endpoints('github').userInfo, { headers: auth })).json()).toMatchObject({ id: 1001, login: 'user1001', email: 'ada@example.test' });
    expect(await (await fetch(sandbox.endpoints('github').emails!, { headers: auth })).json()).toEqual([{ email: 'ada@example.test', primary: true, verified: true, visibility: 'public' }]);
  });

  it('google: answers userinfo with sub, email and email_verified, and takes HTTP basic client authentication', async () => {
    await control('google/session', { userId: '1002' });
    const a = await authorize('google', {});
    const basic = Buffer.from('google-client:google-secret').toString('base64');
    const t = await exchange('google', { code: a.query.get('code')!, client_id: '', client_secret: '' }, { authorization: `Basic ${basic}` });
    expect(t.status).toBe(200);
    const u = await fetch(sandbox.endpoints('google').userInfo, { headers: { authorization: `Bearer ${t.body.access_token as string}` } });
    expect(await u.json()).toEqual({ sub: '1002', email: 'bob@example.test', email_verified: false });
    expect(sandbox.endpoints('google').emails).toBeNull();
  });

  it('kakao: answers /v2/user/me with a numeric id and kakao_account', async () => {
    const { verifier, challenge } = pkce();
    const a = await authorize('kakao', { code_challenge: challenge, code_challenge_method: 'S256' });
    const t = await exchange('kakao', { code: a.query.get('code')!, code_verifier: verifier });
    expect(t.status).toBe(200);
    const u = await fetch(sandbox.endpoints('kakao').userInfo, { headers: { authorization: `Bearer ${t.body.access_token as string}` } });
    expect(await u.json()).toMatchObject({ id: 1001, kakao_account: { email: 'ada@example.test', is_email_verified: true, is_email_valid: true } });
  });

  it('github answers form-encoded unless asked for JSON, and says errors with status 200', async () => {
    const a = await authorize('github', {});
    const res = await fetch(sandbox.endpoints('github').token, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'github-client', client_secret: 'github-secret', code: a.query.get('code')! }),
    });
    expect(res.headers.get('content-type')).toMatch(/x-www-form-urlencoded/);
    expect(new URLSearchParams(await res.text()).get('token_type')).toBe('bearer');
    expect(await exchange('github', { code: 'nope' })).toMatchObject({ status: 200, body: { error: 'bad_verification_code' } });
  });
});

describe('what the providers refuse', () => {
  it('a redirect_uri not registered gets an error page, never a redirect carrying a code', async () => {
    for (const p of ['github', 'google', 'kakao'] as const) {
      const a = await authorize(p, { redirect_uri: `${CALLBACK}/${p}/other` });
      expect(a.status).toBe(400);
      expect(a.text).toMatch(/redirect_uri_mismatch/);
    }
  });

  it('a code is single use: the replay is invalid_grant and revokes the token issued for it', async () => {
    const a = await authorize('google', {});
    const first = await exchange('google', { code: a.query.get('code')! });
    expect(first.status).toBe(200);
    expect(await exchange('google', { code: a.query.get('code')! })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const u = await fetch(sandbox.endpoints('google').userInfo, { headers: { authorization: `Bearer ${first.body.access_token as string}` } });
    expect(u.status).toBe(401);
  });

  it('the token request must name the authorize redirect_uri, the right verifier and the client secret', async () => {
    const { challenge } = pkce();
    const a = await authorize('kakao', { code_challenge: challenge, code_challenge_method: 'S256' });
    const code = a.query.get('code')!;
    expect(await exchange('kakao', { code, code_verifier: pkce().verifier, redirect_uri: `${CALLBACK}/other` })).toMatchObject({ status: 400, body: { error: 'redirect_uri_mismatch', error_code: 'KOE303' } });
    expect(await exchange('kakao', { code, code_verifier: pkce().verifier })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await exchange('kakao', { code })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await exchange('kakao', { code, client_secret: 'wrong' })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  it('github takes only S256 challenges', async () => {
    const a = await authorize('github', { code_challenge: pkce().verifier, code_challenge_method: 'plain' });
    expect(a.query.get('error')).toBe('invalid_request');
    expect(a.query.get('code')).toBeNull();
  });

  it('user info needs a valid bearer token, and GitHub a User-Agent', async () => {
    expect((await fetch(sandbox.endpoints('kakao').userInfo, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    // fetch always sends a User-Agent ("node"); node:http sends none unless told.
    const noAgent = await new Promise<number>((resolve, reject) => {
      get(sandbox.endpoints('github').userInfo, { headers: { authorization: 'Bearer nope' } }, (res) => resolve(res.resume().statusCode!)).on('error', reject);
    });
    expect(noAgent).toBe(403);
    expect((await fetch(sandbox.endpoints('github').userInfo, { headers: { authorization: 'Bearer nope', 'user-agent': 't' } })).status).toBe(401);
  });

  it('without a signed-in user there is no consent', async () => {
    await control('kakao/session', { userId: null });
    expect((await authorize('kakao', {})).status).toBe(401);
  });
});

describe('faults', () => {
  it('are set in the shape every sandbox takes ({mode, ...}), and another shape is refused naming it', async () => {
    const old = await control('faults', { kind: 'deny' });
    expect(old.status).toBe(400);
    expect(((await old.json()) as { message: string }).message).toContain('{mode: deny|bad_code|slow_token');
    expect((await control('faults', { mode: 'deny', times: 1 })).status).toBe(200);
    expect((await authorize('github', {})).query.get('error')).toBe('access_denied');
  });

  it('deny: the redirect carries error=access_denied and the state, and no code', async () => {
    await control('faults', { mode: 'deny', provider: 'github', times: 1 });
    const a = await authorize('github', { state: 'st' });
    expect(a.status).toBe(302);
    expect(Object.fromEntries(a.query)).toMatchObject({ error: 'access_denied', state: 'st' });
    expect(a.query.get('code')).toBeNull();
    expect((await authorize('github', {})).query.get('code')).toBeTruthy();
  });

  it('bad_code: the token endpoint refuses a good code', async () => {
    await control('faults', { mode: 'bad_code' });
    const a = await authorize('google', {});
    expect(await exchange('google', { code: a.query.get('code')! })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('slow_token: the token endpoint answers only after delayMs', async () => {
    await control('faults', { mode: 'slow_token', delayMs: 400 });
    const a = await authorize('kakao', {});
    const started = Date.now();
    expect((await exchange('kakao', { code: a.query.get('code')! })).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
  });

  it('refuses a fault of another kind', async () => {
    expect((await control('faults', { mode: 'explode' })).status).toBe(400);
  });
});
