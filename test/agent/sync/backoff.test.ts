/** Retry delays: exponential, capped, with jitter that keeps at least half of each step. */
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../../agent/sync/backoff';

describe('backoffDelay', () => {
  const opts = (r: number) => ({ baseMs: 100, maxMs: 1000, random: () => r });
  it('doubles per attempt up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map((a) => backoffDelay(a, opts(0.999999)))).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });
  it('keeps at least half of each step', () => {
    expect([1, 2, 3, 4, 5].map((a) => backoffDelay(a, opts(0)))).toEqual([50, 100, 200, 400, 500]);
  });
});
