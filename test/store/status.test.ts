/** The one status writer (recordStatus): merges a pass's observation into the stored status, stamps the judged
 * generation on its conditions, and writes nothing when only the time would change. */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Store } from '../../store/db';
import { onPostgres, openTestStore } from '../helpers/store';
import { onStatus, recordStatus, statusOf, type StatusKind } from '../../store/status';

interface Facts { seen: number | null; other?: string }
const KIND: StatusKind<Facts> = { kind: 'thing', facts: { seen: null } };
const ready = { type: 'Ready', status: 'True' as const, reason: 'Done', message: 'done' };

describe('recordStatus', () => {
  let s: Store;
  let now: number;
  let writes: number;
  beforeEach(async () => {
    now = Date.parse('2026-11-26T12:00:00Z');
    s = await openTestStore(':memory:', { clock: () => new Date(now) });
    writes = 0;
    onStatus(s, () => writes++);
  });
  afterEach(() => s.close());
  const read = () => statusOf<Facts>(s, 'thing', 'k');

  it('stamps the judged generation once, on the status and on each condition it sets', async () => {
    expect(await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 3, set: [ready], lastError: null })).toBe(true);
    expect(await read()).toEqual({
      uid: 'u1', observedGeneration: 3, lastError: null, reconciledAt: '2026-11-26T12:00:00Z', facts: { seen: null },
      conditions: [{ ...ready, observedGeneration: 3, lastTransitionTime: '2026-11-26T12:00:00Z' }],
    });
  });

  it('writes nothing when only the time would change: reconciledAt is when the status last changed', async () => {
    await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 3, set: [ready], facts: { seen: 7 }, lastError: null });
    now += 60_000;
    expect(await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 3, set: [{ message: 'done', reason: 'Done', status: 'True', type: 'Ready' }], facts: { seen: 7 }, lastError: null })).toBe(false);
    expect(writes).toBe(1);
    expect((await read())!.reconciledAt).toBe('2026-11-26T12:00:00Z');
    now += 60_000;
    expect(await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 3, facts: { seen: 8 } })).toBe(true);
    expect(await read()).toMatchObject({ reconciledAt: '2026-11-26T12:02:00Z', facts: { seen: 8 }, lastError: null, conditions: [expect.objectContaining({ type: 'Ready' })] });
  });

  it('moves lastTransitionTime only when a condition flips, and drops what no longer applies', async () => {
    await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 1, set: [ready, { type: 'Extra', status: 'True', reason: 'X', message: 'x' }] });
    now += 60_000;
    await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 2, set: [{ ...ready, message: 'done again' }], drop: ['Extra'] });
    expect((await read())!.conditions).toEqual([{ ...ready, message: 'done again', observedGeneration: 2, lastTransitionTime: '2026-11-26T12:00:00Z' }]);
    now += 60_000;
    await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 2, set: [{ ...ready, status: 'False' }] });
    expect((await read())!.conditions[0]!.lastTransitionTime).toBe('2026-11-26T12:02:00Z');
  });

  it('a pass that did not act keeps the observedGeneration it had (0 before any), its conditions judged at the new one', async () => {
    await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 1, acted: false, set: [{ ...ready, status: 'False' }], lastError: 'boom' });
    expect(await read()).toMatchObject({ observedGeneration: 0, lastError: 'boom', conditions: [expect.objectContaining({ observedGeneration: 1 })] });
    await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 1, set: [ready], lastError: null });
    await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 2, acted: false, set: [{ ...ready, status: 'False' }] });
    expect(await read()).toMatchObject({ observedGeneration: 1, conditions: [expect.objectContaining({ status: 'False', observedGeneration: 2 })] });
  });

  it('replaces whole a status left by another lifetime of the key', async () => {
    await recordStatus(s, KIND, 'k', { uid: 'old', generation: 9, set: [ready], facts: { seen: 1, other: 'x' }, lastError: 'old failure' });
    await recordStatus(s, KIND, 'k', { uid: 'new', generation: 1, facts: { seen: 2 } });
    expect(await read()).toEqual({ uid: 'new', observedGeneration: 1, conditions: [], facts: { seen: 2 }, lastError: null, reconciledAt: '2026-11-26T12:00:00Z' });
  });

  it.skipIf(!onPostgres())(`costs a read and one round trip for the write on PostgreSQL${onPostgres() ? '' : ' (skipped: SQLite pass)'}`, async () => {
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      // The stored status, then BEGIN, the row, NOTIFY and COMMIT.
      expect(await recordStatus(s, KIND, 'k', { uid: 'u1', generation: 3, set: [ready], facts: { seen: 1, other: "it's" }, lastError: null })).toBe(true);
      expect(query.mock.calls.length).toBe(2);
    } finally {
      query.mockRestore();
    }
    expect((await read())!.facts).toEqual({ seen: 1, other: "it's" });
  });
});
