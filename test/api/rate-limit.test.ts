/** Rate limits (CONTRACT.md conventions; api/limits.ts, lib/http/rate-limit.ts): failed authentications per address,
 * on by default, and requests per token when configured; 429 `rate_limited` with Retry-After and the IETF
 * RateLimit-Policy / RateLimit fields. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_FAILED_AUTH_RATE } from '../../api/limits';
import { parseRate, TokenBuckets } from '../../lib/http/rate-limit';
import { startTestApi, type TestApi } from '../helpers/app';

const PROJECTS = '/v1/orgs/acme/projects';
let t: TestApi | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await t?.close();
  t = undefined;
});

describe('failed authentications per address', () => {
  it('are limited by default to 100 a minute: then failures are 429 with Retry-After and RateLimit fields, and good tokens still pass', async () => {
    t = await startTestApi();
    expect(DEFAULT_FAILED_AUTH_RATE).toEqual({ limit: 100, windowSeconds: 60 });
    // The clock stands still: the bucket regains nothing while the test sends (100 a minute is one each 0.6 s).
    vi.useFakeTimers({ toFake: ['Date'] });
    for (let i = 0; i < 100; i++) {
      const r = await t.call('GET', PROJECTS, { token: i % 2 ? null : `hp_wrong-${i}` });
      expect(r.status, `attempt ${i + 1}`).toBe(401);
    }
    const over = await t.call('GET', PROJECTS, { token: 'hp_wrong-again' });
    expect([over.status, over.body.code]).toEqual([429, 'rate_limited']);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get('ratelimit-policy')).toBe('"failed-auth";q=100;w=60');
    expect(over.headers.get('ratelimit')).toMatch(/^"failed-auth";r=0;t=\d+$/);
    expect((await t.call('GET', PROJECTS, { token: null })).status).toBe(429);
    // Good tokens from the address still pass: everyone behind one NAT is not locked out by one bad script.
    for (const role of ['admin', 'member', 'viewer'] as const) expect((await t.call('GET', PROJECTS, { token: t.tokens[role] })).status).toBe(200);
    expect((await t.call('GET', PROJECTS, { token: 'hp_wrong-still' })).status).toBe(429);
    // Operations without authentication are not limited.
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  });

  it('a successful authentication does not count, and a configured limit applies', async () => {
    t = await startTestApi({ config: { rateLimits: { failedAuth: { limit: 3, windowSeconds: 60 } } } });
    for (let i = 0; i < 10; i++) expect((await t.call('GET', PROJECTS)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await t.call('POST', PROJECTS, { token: null, body: { name: 'x' } })).status).toBe(401);
    const over = await t.call('POST', PROJECTS, { token: null, body: { name: 'x' } });
    expect(over.status).toBe(429);
    expect(over.headers.get('ratelimit-policy')).toBe('"failed-auth";q=3;w=60');
    // 3 a minute: one comes back after 20 s.
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(15);
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(20);
  });

  it('null turns it off', async () => {
    t = await startTestApi({ config: { rateLimits: { failedAuth: null } } });
    for (let i = 0; i < 150; i++) expect((await t.call('GET', PROJECTS, { token: null })).status).toBe(401);
  });
});

describe('requests per token', () => {
  it('are not limited unless configured, and carry no RateLimit fields', async () => {
    t = await startTestApi();
    const answers = await Promise.all(Array.from({ length: 200 }, () => t!.call('GET', PROJECTS)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers[0]!.headers.get('ratelimit')).toBeNull();
  });

  it('when configured: every answer says the state, the one over it is 429, other tokens are unaffected, and it refills', async () => {
    t = await startTestApi({ config: { rateLimits: { perToken: { limit: 3, windowSeconds: 1 } } } });
    // The clock stands still while the test sends (a slow run would otherwise refill the bucket as it goes).
    vi.useFakeTimers({ toFake: ['Date'] });
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await t.call('GET', PROJECTS);
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit-policy')).toBe('"token";q=3;w=1');
      seen.push(r.headers.get('ratelimit')!.replace(/;t=\d+$/, ''));
    }
    expect(seen).toEqual(['"token";r=2', '"token";r=1', '"token";r=0']);
    const over = await t.call('POST', PROJECTS, { body: { name: 'limited' } });
    expect([over.status, over.body.code]).toEqual([429, 'rate_limited']);
    expect(over.headers.get('retry-after')).toBe('1');
    expect(over.headers.get('ratelimit')).toMatch(/^"token";r=0;t=1$/);
    expect((await t.call('GET', `${PROJECTS}/limited`, { token: t.tokens.viewer })).status).toBe(404);
    expect((await t.call('GET', PROJECTS, { token: t.tokens.member })).status).toBe(200);
    vi.setSystemTime(Date.now() + 400);
    expect((await t.call('GET', PROJECTS)).status).toBe(200);
  });
});

describe('token buckets', () => {
  it('let a burst of the limit through, then the limit per window', () => {
    let now = 0;
    const b = new TokenBuckets({ limit: 4, windowSeconds: 2 }, () => now);
    expect([1, 2, 3, 4].map(() => b.take('a').ok)).toEqual([true, true, true, true]);
    expect(b.take('a')).toEqual({ ok: false, remaining: 0, retryAfter: 1, reset: 2 });
    expect(b.take('b').ok).toBe(true);
    now = 500;
    expect(b.take('a')).toMatchObject({ ok: true, remaining: 0 });
    now = 10_000;
    expect(b.take('a')).toEqual({ ok: true, remaining: 3, retryAfter: 0, reset: 1 });
  });

  it('stay within their key bound', () => {
    let now = 0;
    const b = new TokenBuckets({ limit: 1, windowSeconds: 3600 }, () => now, 20_000);
    for (let i = 0; i < 30_000; i++) {
      now++;
      b.take(`k${i}`);
    }
    expect(b.size).toBeLessThanOrEqual(20_001);
  });

  it.each([
    ['50/s', { limit: 50, windowSeconds: 1 }],
    ['600/min', { limit: 600, windowSeconds: 60 }],
    ['10/m', { limit: 10, windowSeconds: 60 }],
    ['1000/h', { limit: 1000, windowSeconds: 3600 }],
  ])('parse %s', (text, rate) => expect(parseRate(text)).toEqual(rate));

  it.each(['', '0/s', '-1/s', '5', '5/d', 'x/s', '1.5/s'])('refuse %j', (text) => expect(() => parseRate(text)).toThrow(/invalid rate/));
});
