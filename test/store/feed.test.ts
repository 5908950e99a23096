/** Recording a change with the statements that go with it, and pruning the change feed: down to the slowest follower
 * heard from lately, never inside the retention window or the newest rows, never more than a bounded number of rows
 * per call, in transactions of `chunk` rows. */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { type Store } from '../../store/db';
import { auditStatement, latestSeq, listAudit, pruneFeed, recordChange, recordChangeSeq, reportFeedPosition, startFeedPruning, type FeedRetention } from '../../store/feed';
import { createLogger } from '../../lib/log';
import { openTestStore } from '../helpers/store';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const MIN = 60_000;
const R: FeedRetention = { keepMs: MIN, keepRows: 3, staleMs: 30_000, maxAgeMs: 60 * MIN, chunk: 4, maxRows: 100 };

const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

/** A store whose clock the test moves. */
async function fresh(): Promise<{ s: Store; at: (ms: number) => void }> {
  let now = T0;
  const s = await openTestStore(':memory:', { clock: () => new Date(now) });
  stores.push(s);
  return { s, at: (ms) => { now = ms; } };
}
/** `n` changes recorded at `ms`. */
const changesAt = (s: Store, n: number, ms: number) => s.write(async (tx) => {
  for (let i = 0; i < n; i++) await recordChange(s, tx, 'zone', `z${i}.example`, new Date(ms));
});
const seqs = async (s: Store): Promise<number[]> => (await s.raw<{ seq: number }>('test seqs', 'SELECT seq FROM changes ORDER BY seq')).map((r) => r.seq);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('recordChange with statements along', () => {
  const audited = (target: string) => auditStatement({ orgId: 1, event: 'test.along', actor: 'system', target, details: { n: 1 } }, new Date(T0));

  it('writes them with the feed row, their values mapped as the columns want (JSON details), in the write\'s transaction', async () => {
    const { s } = await fresh();
    await s.write(async (tx) => recordChange(s, tx, 'zone', 'a.example', new Date(T0), [audited('a'), audited('b')]));
    expect(await seqs(s)).toHaveLength(1);
    // In no order among themselves: PostgreSQL runs a statement's data-modifying CTEs in an order of its choosing.
    expect((await listAudit(s, 1, 10)).map((r) => [r.target, r.details]).sort()).toEqual([['a', { n: 1 }], ['b', { n: 1 }]]);
  });

  it('answers the seq of the row inside the write with recordChangeSeq, and writes the statements along with it', async () => {
    const { s } = await fresh();
    const seq = await s.write(async (tx) => recordChangeSeq(s, tx, 'zone', 'a.example', new Date(T0), [audited('a')]));
    expect(await seqs(s)).toEqual([seq]);
    expect((await listAudit(s, 1, 10)).map((r) => r.target)).toEqual(['a']);
  });

  it('leaves nothing when the write throws after them: neither their rows nor the feed row', async () => {
    const { s } = await fresh();
    await expect(s.write(async (tx) => {
      await recordChange(s, tx, 'zone', 'a.example', new Date(T0), [audited('a')]);
      throw new Error('refused after the change');
    })).rejects.toThrow('refused after the change');
    expect(await seqs(s)).toEqual([]);
    expect(await listAudit(s, 1, 10)).toEqual([]);
  });
});

describe('pruneFeed', () => {
  it('deletes rows older than the window, oldest first, in transactions of `chunk` rows; younger rows stay', async () => {
    const { s, at } = await fresh();
    await changesAt(s, 10, T0);
    await changesAt(s, 5, T0 + 2 * MIN);
    at(T0 + 2 * MIN + 1000);
    const commits = s.stats().commits;
    expect(await pruneFeed(s, R)).toBe(10);
    expect(await seqs(s)).toEqual(range(11, 15));
    // One transaction forgets old followers, then 4 + 4 + 2 rows.
    expect(s.stats().commits - commits).toBe(1 + 3);
  });

  it('keeps the newest `keepRows` however old: the feed head stays the store change sequence', async () => {
    const { s, at } = await fresh();
    await changesAt(s, 10, T0);
    at(T0 + 10 * MIN);
    expect(await pruneFeed(s, R)).toBe(7);
    expect(await seqs(s)).toEqual([8, 9, 10]);
    expect(await latestSeq(s)).toBe(10);
    await changesAt(s, 1, T0 + 10 * MIN);
    expect(await latestSeq(s)).toBe(11);
  });

  it('a follower heard from lately holds what it has not read; once quiet for `staleMs`, it holds nothing', async () => {
    const { s, at } = await fresh();
    await changesAt(s, 10, T0);
    at(T0 + 10 * MIN);
    await reportFeedPosition(s, 'core-a', 6);
    await reportFeedPosition(s, 'core-b', 2);
    await reportFeedPosition(s, 'core-b', 4);
    // The slowest one read up to 4.
    expect(await pruneFeed(s, R)).toBe(4);
    expect(await seqs(s)).toEqual(range(5, 10));
    at(T0 + 10 * MIN + R.staleMs - 1000);
    await reportFeedPosition(s, 'core-a', 6);
    at(T0 + 10 * MIN + R.staleMs + 1000);
    // core-b went quiet; core-a, heard from 2 s ago, read up to 6 and holds the rest.
    expect(await pruneFeed(s, R)).toBe(2);
    expect(await seqs(s)).toEqual(range(7, 10));
  });

  it('not even a live follower holds rows older than `maxAgeMs`, and followers quiet that long are forgotten', async () => {
    const { s, at } = await fresh();
    await changesAt(s, 6, T0);
    await changesAt(s, 6, T0 + 61 * MIN);
    at(T0 + 62 * MIN);
    await reportFeedPosition(s, 'stuck', 0);
    expect(await pruneFeed(s, R)).toBe(6);
    expect(await seqs(s)).toEqual(range(7, 12));
    at(T0 + 62 * MIN + R.maxAgeMs + 1000);
    await pruneFeed(s, R);
    expect(await s.raw('test consumers', 'SELECT id FROM feed_consumers')).toEqual([]);
  });

  it('deletes `maxRows` at most per call; the next call goes on', async () => {
    const { s, at } = await fresh();
    await changesAt(s, 20, T0);
    at(T0 + 10 * MIN);
    const bounded = { ...R, maxRows: 10 };
    expect(await pruneFeed(s, bounded)).toBe(10);
    expect(await pruneFeed(s, bounded)).toBe(7);
    expect(await pruneFeed(s, bounded)).toBe(0);
    expect(await seqs(s)).toEqual([18, 19, 20]);
  });
});

describe('startFeedPruning', () => {
  it('prunes on its timer until stopped, and logs a run that fails', async () => {
    const { s, at } = await fresh();
    await changesAt(s, 10, T0);
    at(T0 + 10 * MIN);
    const lines: { msg: string }[] = [];
    const log = createLogger({ destination: new Writable({ write: (c, _e, cb) => { lines.push(JSON.parse(String(c))); cb(); } }) });
    const pruning = startFeedPruning(s, log, 10, R);
    await expect.poll(() => seqs(s)).toEqual([8, 9, 10]);
    s.close();
    await expect.poll(() => lines.map((l) => l.msg)).toContain('pruning the change feed failed');
    await pruning.stop();
    const logged = lines.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(lines).toHaveLength(logged);
  });
});
