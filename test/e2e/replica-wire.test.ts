/**
 * The replica wire on `serve`'s API listener (`/internal/`, docs/deployment.md "The replica token"): outside the API's
 * operations and their limits, so it guards itself: nothing without the installation's replica token, and a wrong
 * token counted against the caller's address as the API counts one (100 a minute), without refusing the right one.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_KEY_HEADER } from '../../core/routes';
import { replicaToken } from '../../core/sealing';
import { cleanup, http, startHostplane, tempDir, type Running } from '../helpers/proc';

describe('/internal/ on the API listener', () => {
  let data: string;
  let serve: Running;
  beforeAll(async () => {
    data = tempDir('hostplane-replica-wire-');
    serve = await startHostplane(['serve', '--port', '0', '--data', data, '--dns', 'off']);
  }, 60_000);
  afterAll(cleanup);

  let keys = 0;
  const call = (token: string | null, path = '/internal/dns'): Promise<Response> => fetch(`${serve.url}${path}`, {
    method: 'POST',
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), 'content-type': 'application/json', [REQUEST_KEY_HEADER]: `key-of-the-wire-test-${++keys}` },
    body: '{}',
  });

  it('answers nothing without the replica token; wrong tokens are 401 up to the failed-authentication limit, then 429, while the replica token still gets through', async () => {
    const token = replicaToken(join(data, 'sealing.key'));
    expect((await call(null)).status).toBe(401);
    expect((await call(null, '/internal/no-such-call')).status).toBe(401);
    // 100 a minute with a burst of 100, two of them spent above; the bucket refills while the loop runs.
    let failures = 2;
    let limited = await call('wrong-0');
    while (limited.status === 401 && failures < 200) limited = await call(`wrong-${++failures}`);
    expect(limited.status).toBe(429);
    expect(failures).toBeGreaterThanOrEqual(100);
    expect(await limited.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const good = await call(token);
    expect(good.status, await good.clone().text()).toBe(200);
    expect(await good.json()).toMatchObject({ result: expect.any(Object) });
    // The API's operations count their own failures: the wire's guesses do not lock a client out of them.
    expect((await http(serve.url, 'GET', '/v1/orgs/acme/audit', { token: 'wrong' })).status).toBe(401);
  }, 60_000);
});
