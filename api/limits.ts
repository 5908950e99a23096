/**
 * The API's rate limits (docs/api.md, Rate limits): failed authentications per client address, on by default (100 a
 * minute: a burst of 100, then 100 a minute; past it the address's failures are 429 instead of 401 until its
 * bucket refills). A good token is never refused for them: one bad script behind a shared NAT would otherwise
 * lock out everyone there, and tokens are 256 random bits, so the limit only slows a guesser, whose guesses fail
 * alike with or without it. Requests per token are limited only where configured (`serve --rate-limit N/s`).
 * Both answer 429 `rate_limited` with `Retry-After` and the IETF `RateLimit-Policy` / `RateLimit` fields
 * (lib/http/rate-limit.ts); with a per-token limit every answer to a token carries them. In-memory buckets: with several API processes each counts for itself (lib/http/rate-limit.ts).
 * Whole-zone work waiting for the process's slots is bounded per organization the same way (`zoneWorkRefused`).
 */
import type { Context } from 'koa';
import { AppError } from '../lib/errors';
import { addressKey } from '../lib/http/http-server';
import { rateLimitHeaders, TokenBuckets, type Concurrency, type Decision, type Rate } from '../lib/http/rate-limit';
import { hashToken } from '../store/accounts';

/** Failed authentications a client address may make: 100 a minute (docs/api.md). */
export const DEFAULT_FAILED_AUTH_RATE: Rate = { limit: 100, windowSeconds: 60 };

export interface RateLimits {
  /** Failed authentications per client address (IPv6: per /64); null turns the limit off. Default 100 a minute. */
  failedAuth?: Rate | null;
  /** Requests per token (user or node); absent or null: no limit. */
  perToken?: Rate | null;
}

const limited = (what: string, policy: string, rate: Rate | Concurrency, d: Decision): AppError => {
  const e = new AppError(429, 'rate_limited', `${what}; retry after ${d.retryAfter} s`);
  // The error edge sets an error's `headers` on its answer (api/errors.ts).
  return Object.assign(e, { headers: { 'Retry-After': String(d.retryAfter), ...rateLimitHeaders(policy, rate, d) } });
};

/** Failed authentications per client address at `rate` (null: not limited): the returned function counts one
 * against `address` and throws the 429 once the address is out of them (its caller answers 401 otherwise). The API's,
 * and the replica wire's (core/server.ts), which is served beside it and guarded by a token as well. */
export function failedAuthLimit(rate: Rate | null = DEFAULT_FAILED_AUTH_RATE, now: () => number = () => Date.now()): (address: string) => void {
  if (!rate) return () => undefined;
  const failures = new TokenBuckets(rate, now);
  return (address) => {
    const d = failures.take(addressKey(address));
    if (!d.ok) throw limited('too many failed authentications from this address', 'failed-auth', rate, d);
  };
}

export function apiLimits(config: RateLimits = {}, now: () => number = () => Date.now()) {
  const failed = failedAuthLimit(config.failedAuth === undefined ? DEFAULT_FAILED_AUTH_RATE : config.failedAuth, now);
  const tokenRate = config.perToken ?? null;
  const perToken = tokenRate ? new TokenBuckets(tokenRate, now) : null;
  return {
    /** A token was missing, unknown or of the other kind: counts against the address, and throws the 429 once
     * the address is out of failures (the caller answers 401 otherwise). */
    authFailed(ctx: Context): void {
      failed(ctx.ip);
    },
    /** After the token authenticated: its own request limit, when one is configured. */
    afterAuth(ctx: Context, token: string): void {
      if (!perToken || !tokenRate) return;
      const d = perToken.take(hashToken(token));
      if (!d.ok) throw limited('too many requests with this token', 'token', tokenRate, d);
      ctx.set(rateLimitHeaders('token', tokenRate, d));
    },
  };
}

/** Seconds a client refused for waiting whole-zone work is asked to wait: about the time of one unit of that work
 * (a 1 MiB import's 0.7 s), after which the organization's queue has moved. */
const ZONE_WORK_RETRY_S = 1;

/** The 429 of an organization with `waiting` whole-zone operations already waiting for the process's slots
 * (api/zone-changes.ts `zoneWork`). */
export function zoneWorkRefused(waiting: number): AppError {
  const d: Decision = { ok: false, remaining: 0, retryAfter: ZONE_WORK_RETRY_S, reset: ZONE_WORK_RETRY_S };
  return limited(`this organization has ${waiting} whole-zone operations (exports, imports, restores, large change sets) waiting`,
    'zone-work', { limit: waiting, unit: 'concurrent-requests' }, d);
}
