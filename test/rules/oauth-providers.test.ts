/**
 * Provider endpoints (rules/oauth-providers.ts) and `--oauth-providers` (cli/options.ts): the real providers' public
 * endpoints by default, a file naming some providers replacing only theirs, every field checked; `serve` defaults to
 * the sandbox and `core` to the real providers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { oauthProviders, parse } from '../../cli/options';
import { parseProviderEndpoints, REAL_ENDPOINTS } from '../../rules/oauth-providers';

const dir = mkdtempSync(join(tmpdir(), 'hostplane-oauth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SANDBOX_GITHUB = { authorize: 'http://127.0.0.1:9/a', token: 'http://127.0.0.1:9/t', userInfo: 'http://127.0.0.1:9/u', emails: null };

describe('parseProviderEndpoints', () => {
  it('the real endpoints are the providers\' public ones', () => {
    expect(REAL_ENDPOINTS.github).toEqual({
      authorize: 'https://github.com/login/oauth/authorize', token: 'https://github.com/login/oauth/access_token',
      userInfo: 'https://api.github.com/user', emails: 'https://api.github.com/user/emails',
    });
    expect(REAL_ENDPOINTS.google.emails).toBeNull();
    expect(REAL_ENDPOINTS.kakao.userInfo).toBe('https://kapi.kakao.com/v2/user/me');
  });

  it('a provider the file names gets its endpoints; the others keep the real ones', () => {
    expect(parseProviderEndpoints(JSON.stringify({ github: SANDBOX_GITHUB }))).toEqual({ ...REAL_ENDPOINTS, github: SANDBOX_GITHUB });
    expect(parseProviderEndpoints('{}')).toEqual(REAL_ENDPOINTS);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['an unknown provider', JSON.stringify({ facebook: SANDBOX_GITHUB }), /facebook|unrecognized/i],
    ['a missing field', JSON.stringify({ google: { authorize: 'https://a.test', token: 'https://a.test', userInfo: 'https://a.test' } }), /google\.emails/],
    ['an unknown field', JSON.stringify({ google: { ...SANDBOX_GITHUB, scope: 'x' } }), /google/],
    ['a URL of another scheme', JSON.stringify({ kakao: { ...SANDBOX_GITHUB, token: 'ftp://a.test/t' } }), /kakao\.token/],
    ['a string that is no URL', JSON.stringify({ kakao: { ...SANDBOX_GITHUB, userInfo: 'user' } }), /kakao\.userInfo/],
  ])('refuses %s, naming it', (_what, text, message) => {
    expect(() => parseProviderEndpoints(text)).toThrow(message);
  });
});

describe('--oauth-providers', () => {
  const flags = (...argv: string[]) => parse(argv).values;

  it('serve defaults to the sandbox, core to the real providers', () => {
    expect(oauthProviders('serve', flags())).toBe('sandbox');
    expect(oauthProviders('core', flags())).toEqual(REAL_ENDPOINTS);
    expect(oauthProviders('serve', flags('--oauth-providers', 'real'))).toEqual(REAL_ENDPOINTS);
    expect(oauthProviders('core', flags('--oauth-providers', 'sandbox'))).toBe('sandbox');
  });

  it('a file gives the endpoints it names; a missing or invalid one is a usage error naming the flag', () => {
    const file = join(dir, 'endpoints.json');
    writeFileSync(file, JSON.stringify({ github: SANDBOX_GITHUB }));
    expect(oauthProviders('core', flags('--oauth-providers', file))).toEqual({ ...REAL_ENDPOINTS, github: SANDBOX_GITHUB });
    expect(() => oauthProviders('core', flags('--oauth-providers', join(dir, 'missing.json')))).toThrow(/--oauth-providers.*ENOENT/);
    writeFileSync(file, JSON.stringify({ github: { ...SANDBOX_GITHUB, token: 'nope' } }));
    expect(() => oauthProviders('serve', flags('--oauth-providers', file))).toThrow(/--oauth-providers.*github\.token/);
  });
});
