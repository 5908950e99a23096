/** How the node reads a token endpoint's refusal: about the code (the person starts again) or about the project's
 * client (its developer must fix setAuthProvider), never from what the person signing in can choose. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeCode, ProviderError, type ProviderConfig } from '../../../agent/signin/providers';

let server: Server;
let answer = { status: 400, error: 'invalid_grant' };
let config: ProviderConfig;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: answer.error }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  config = { provider: 'google', clientId: 'id', clientSecret: 'secret', endpoints: { authorize: `${base}/a`, token: `${base}/t`, userInfo: `${base}/u`, emails: null } };
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('a token endpoint\'s refusal', () => {
  it.each([
    [400, 'invalid_grant', 'refused'],
    [400, 'redirect_uri_mismatch', 'refused'],
    [401, 'invalid_client', 'misconfigured'],
    [400, 'unauthorized_client', 'misconfigured'],
    [200, 'incorrect_client_credentials', 'misconfigured'],
    [503, 'temporarily_unavailable', 'unavailable'],
  ])('%i %s is %s', async (status, error, kind) => {
    answer = { status, error };
    const e = await exchangeCode(config, { code: 'c', redirectUri: 'https://h/cb', verifier: 'v' }, 2_000).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).kind).toBe(kind);
  });
});
