/**
 * Request rate limits as in-memory token buckets, and their IETF header fields.
 *
 * A bucket per key (a client address, a token) holds up to `limit` units and regains them at `limit` per
 * `windowSeconds`, continuously: a burst of `limit` passes at once, then `limit` a window. The buckets live in
 * this process only: in the split deployment, or with several API replicas behind a balancer, each replica
 * counts for itself, so a client may get up to (replicas × limit) through. A restart forgets them.
 *
 * Header fields: draft-ietf-httpapi-ratelimit-headers (-08 to -11, the form since October 2024), both
 * Structured Fields lists of one item named by the policy:
 *   RateLimit-Policy: "<name>";q=<limit>;w=<windowSeconds>
 *   RateLimit: "<name>";r=<remaining units>;t=<seconds until the bucket is full again>
 * or, for a bound on work at once (api/limits.ts, whole-zone work), `q` the work at once and `qu="concurrent-requests"`.
 * with `Retry-After` (RFC 9110) on a 429: the seconds until one unit is back.
 */
export interface Rate {
  /** Units (requests, failures) per window; also the burst a full bucket lets through. */
  limit: number;
  windowSeconds: number;
}

export interface Decision {
  /** Whether the unit was taken. */
  ok: boolean;
  /** Whole units left after this decision. */
  remaining: number;
  /** Seconds until one unit is back: 0 when `remaining` > 0. */
  retryAfter: number;
  /** Seconds until the bucket is full again. */
  reset: number;
}

const UNITS: Record<string, number> = { s: 1, sec: 1, second: 1, m: 60, min: 60, minute: 60, h: 3600, hour: 3600 };

/** `N/s`, `N/min` (or `m`, `minute`), `N/h` (or `hour`): N a positive whole number. Throws on anything else. */
export function parseRate(text: string): Rate {
  const m = /^\s*(\d{1,9})\s*\/\s*([a-z]+)\s*$/.exec(text);
  const limit = Number(m?.[1]);
  const windowSeconds = m ? UNITS[m[2]!] : undefined;
  if (!m || windowSeconds === undefined || limit < 1) throw new Error(`invalid rate ${JSON.stringify(text)}; expected N/s, N/min or N/h with N ≥ 1`);
  return { limit, windowSeconds };
}

interface Bucket { tokens: number; at: number }

/** Keys kept before idle (full again) buckets are swept; a full bucket is the same as none. */
const SWEEP_AT = 10_000;

/** One token bucket per key, at one rate (see the module's header); `now` in milliseconds, injectable for tests. */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  /** Units regained per millisecond. */
  private readonly perMs: number;
  private nextSweep = 0;

  /** `maxKeys` bounds the memory: past it, the oldest buckets are dropped (they forget what they counted). */
  constructor(readonly rate: Rate, private readonly now: () => number = () => Date.now(), private readonly maxKeys = 100_000) {
    this.perMs = rate.limit / (rate.windowSeconds * 1000);
  }

  private level(key: string, t: number): Bucket {
    const b = this.buckets.get(key);
    if (!b) return { tokens: this.rate.limit, at: t };
    return { tokens: Math.min(this.rate.limit, b.tokens + Math.max(0, t - b.at) * this.perMs), at: t };
  }

  private decision(tokens: number, ok: boolean): Decision {
    const missing = this.rate.limit - tokens;
    return {
      ok,
      remaining: Math.floor(tokens),
      retryAfter: tokens >= 1 ? 0 : Math.ceil((1 - tokens) / this.perMs / 1000),
      reset: Math.ceil(missing / this.perMs / 1000),
    };
  }

  /** Takes a unit from `key`'s bucket if it has one. */
  take(key: string): Decision {
    const t = this.now();
    const b = this.level(key, t);
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    this.buckets.delete(key);
    this.buckets.set(key, b);
    if (this.buckets.size > SWEEP_AT) this.sweep(t);
    return this.decision(b.tokens, ok);
  }

  /** What `take` would decide now, without taking: for a limit that must refuse before the attempt is judged. */
  peek(key: string): Decision {
    const b = this.level(key, this.now());
    return this.decision(b.tokens, b.tokens >= 1);
  }

  /** Buckets held now (for tests). */
  get size(): number {
    return this.buckets.size;
  }

  private sweep(t: number): void {
    if (t >= this.nextSweep) {
      // At most once a window: a full sweep is linear in the keys.
      this.nextSweep = t + this.rate.windowSeconds * 1000;
      for (const [key, b] of this.buckets) if (b.tokens + (t - b.at) * this.perMs >= this.rate.limit) this.buckets.delete(key);
    }
    // Map order is least recently used first (take re-inserts).
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxKeys) break;
      this.buckets.delete(key);
    }
  }
}

/** A quota of work at once rather than a rate: the draft's quota unit (`qu`) `concurrent-requests`, without a window. */
export interface Concurrency {
  limit: number;
  unit: 'concurrent-requests';
}

/** The policy's `RateLimit-Policy` and `RateLimit` fields for a decision (see the module's header). */
export function rateLimitHeaders(policy: string, rate: Rate | Concurrency, d: Decision): Record<string, string> {
  const per = 'unit' in rate ? `qu="${rate.unit}"` : `w=${rate.windowSeconds}`;
  return {
    'RateLimit-Policy': `"${policy}";q=${rate.limit};${per}`,
    RateLimit: `"${policy}";r=${d.remaining};t=${d.reset}`,
  };
}

/** `serve --rate-limit` / `api --rate-limit`: the per-token limit, or null when the flag is absent. Throws a
 * message naming the flag. */
export function rateLimitFlag(given: string | undefined): Rate | null {
  if (given === undefined) return null;
  try {
    return parseRate(given);
  } catch (e) {
    throw new Error(`invalid --rate-limit: ${(e as Error).message}`);
  }
}
