/** An idempotency key is claimed by one request at a time, also when its retries arrive at once on PostgreSQL. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Store } from '../../store/db';
import { claimKey, type ClaimRequest } from '../../store/idempotency';
import { idempotencyKeys } from '../../store/schema';
import { openTestStore } from '../helpers/store';

let s: Store;
beforeEach(async () => {
  s = await openTestStore(':memory:');
});
afterEach(() => s.close());

const request: ClaimRequest = {
  scope: 'user:1', key: 'retry-me', operation: 'POST /v1/orgs/acme/projects', fingerprint: 'f1', leaseMs: 60_000, ttlMs: 86_400_000, maxKeys: 100,
};

describe('claimKey', () => {
  it('the same new key sent several times at once: one request runs, the others find it running', async () => {
    // Reads at once first, as a loaded server has: on PostgreSQL each claim then starts on an open connection.
    await Promise.all(Array.from({ length: 5 }, () => s.db.select().from(idempotencyKeys)));
    const claims = await Promise.all(Array.from({ length: 5 }, () => claimKey(s, request)));
    expect(claims.map((c) => c.kind).sort()).toEqual(['run', 'running', 'running', 'running', 'running']);
  });
});
