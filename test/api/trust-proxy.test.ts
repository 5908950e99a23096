/**
 * `--trust-proxy` (docs/deployment.md, Behind a proxy that terminates TLS): with it, a proxy's `X-Forwarded-Proto:
 * https` makes the console's cookies `__Host-` prefixed and Secure, and the last address of `X-Forwarded-For` is the
 * client whose failed sign-ins are counted; without it both headers are ignored, whoever sent them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignInLimits } from '../../api/console/limits';
import { startTestApi, type TestApi } from '../helpers/app';
import { Browser } from '../helpers/console-browser';

const HTTPS = { 'x-forwarded-proto': 'https' };

describe.each([true, false])('with trustProxy %s', (trustProxy) => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi({ config: { trustProxy }, console: { limits: new SignInLimits({ limit: 2, windowSeconds: 60 }) } });
  }, 60_000);
  afterAll(async () => { await t.close(); });

  it(trustProxy ? 'sets __Host- Secure cookies when the proxy says https' : 'ignores X-Forwarded-Proto: plain cookies, not Secure', async () => {
    const b = new Browser(t.url);
    const r = await b.go('GET', '/console/sign-in', undefined, HTTPS);
    expect(r.status).toBe(200);
    const [cookie] = r.headers.getSetCookie();
    if (trustProxy) {
      expect(cookie).toMatch(/^__Host-hostplane_sign_in=/);
      expect(cookie!.toLowerCase()).toContain('; secure');
    } else {
      expect(cookie).toMatch(/^hostplane_sign_in=/);
      expect(cookie!.toLowerCase()).not.toContain('secure');
    }
  });

  it(trustProxy ? 'counts failed sign-ins by the address the proxy appended, not by what the client wrote before it'
    : 'counts failed sign-ins by the connection\'s address, whatever X-Forwarded-For says', async () => {
    // Three failures from "different clients" (as X-Forwarded-For says), each for its own email; two are allowed a minute.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const b = new Browser(t.url);
      const headers = { 'x-forwarded-for': `198.51.100.7, 203.0.113.${i + 1}` };
      const form = await b.go('GET', '/console/sign-in', undefined, headers);
      const r = await b.go('POST', '/console/sign-in', { csrf: Browser.csrf(form), next: '/console', email: `nobody${i}@acme.test`, password: 'not the password' }, headers);
      statuses.push(r.status);
    }
    // Trusted: three addresses, none over its limit. Ignored: one address (the test's), refused the third time.
    expect(statuses).toEqual(trustProxy ? [401, 401, 401] : [401, 401, 429]);
  }, 60_000);
});
