import { afterEach, describe, expect, it, vi } from 'vitest';
import { keyedQueue } from '../../reconcilers/queue';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('keyed queue', () => {
  it('runs a key queued twice before it starts only once', async () => {
    const runs: string[] = [];
    const q = keyedQueue(1, async (k) => { runs.push(k); await tick(); });
    q.add('busy');
    q.add('a');
    q.add('a');
    await q.onIdle();
    expect(runs).toEqual(['busy', 'a']);
  });

  it('never runs one key twice at once, and runs it again when it changed meanwhile', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    let release!: () => void;
    const first = new Promise<void>((r) => { release = r; });
    const q = keyedQueue(4, async () => {
      running++; runs++;
      maxRunning = Math.max(maxRunning, running);
      // The first run holds until the test has added the key again while it runs; later runs end at once.
      if (runs === 1) await first;
      running--;
    });
    q.add('z');
    await vi.waitFor(() => expect(running).toBe(1));
    q.add('z');
    q.add('z');
    release();
    await q.onIdle();
    await tick();
    await q.onIdle();
    expect(maxRunning).toBe(1);
    expect(runs).toBe(2);
  });

  it('runs different keys concurrently', async () => {
    let running = 0;
    let maxRunning = 0;
    const q = keyedQueue(4, async () => { running++; maxRunning = Math.max(maxRunning, running); await tick(); running--; });
    for (const k of ['a', 'b', 'c']) q.add(k);
    await q.onIdle();
    expect(maxRunning).toBe(3);
  });
});

describe('keyed queue deadlines', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps one deadline per key, the earliest asked', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runs: string[] = [];
    const q = keyedQueue(1, async (k) => { runs.push(k); });
    q.addAfter('k', 1_000);
    q.addAfter('k', 5_000);
    expect(q.waiting()).toBe(1);
    q.addAfter('k', 200);
    expect(q.waiting()).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(runs).toEqual(['k']);
    expect(q.waiting()).toBe(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toEqual(['k']);
  });

  it('clear drops queued keys and deadlines, lets a running key finish, and a cleared key can be queued again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const runs: string[] = [];
    let release!: () => void;
    const q = keyedQueue(1, async (k) => {
      runs.push(k);
      if (k === 'busy') await new Promise<void>((r) => { release = r; });
    });
    q.add('busy');
    q.add('a');
    q.add('busy');
    q.addAfter('b', 1_000);
    q.clear();
    expect(q.waiting()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    release();
    await q.onIdle();
    expect(runs).toEqual(['busy']);
    expect(q.busy()).toBe(false);
    q.add('a');
    await q.onIdle();
    expect(runs).toEqual(['busy', 'a']);
  });
});

describe('keyed queue spacing', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('starts a key at most once per spacing; adds meanwhile run once at its end, other keys at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const runs: { key: string; at: number }[] = [];
    const t0 = Date.now();
    const q = keyedQueue(4, async (k) => { runs.push({ key: k, at: Date.now() - t0 }); }, { spacingMs: 20 });
    q.add('z');
    await vi.advanceTimersByTimeAsync(1);
    for (let i = 0; i < 10; i++) {
      q.add('z');
      await vi.advanceTimersByTimeAsync(1);
    }
    q.add('other');
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([{ key: 'z', at: 0 }, { key: 'other', at: 11 }]);
    // Waiting out its spacing counts as queued.
    expect(q.busy()).toBe(true);
    await vi.advanceTimersByTimeAsync(20);
    expect(runs).toEqual([{ key: 'z', at: 0 }, { key: 'other', at: 11 }, { key: 'z', at: 20 }]);
    expect(q.busy()).toBe(false);
    // Idle for longer than the spacing: at once.
    await vi.advanceTimersByTimeAsync(100);
    q.add('z');
    await vi.advanceTimersByTimeAsync(0);
    expect(runs.at(-1)).toEqual({ key: 'z', at: 132 });
  });

  it('a run its deadline woke waits for no spacing and holds back no change after it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const runs: number[] = [];
    const t0 = performance.now();
    const q = keyedQueue(1, async () => { runs.push(Math.round(performance.now() - t0)); }, { spacingMs: 20 });
    q.add('z');
    q.addAfter('z', 5);
    await vi.advanceTimersByTimeAsync(6);
    q.add('z');
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toEqual([0, 5]);
    // The change's run at 6 was spaced from the run at 0, not from the deadline's at 5: it runs at 20.
    await vi.advanceTimersByTimeAsync(20);
    expect(runs).toEqual([0, 5, 20]);
    // A deadline's run after a quiet spell, then a change at once: both run at once.
    await vi.advanceTimersByTimeAsync(100);
    q.addAfter('z', 10);
    await vi.advanceTimersByTimeAsync(10);
    q.add('z');
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toEqual([0, 5, 20, 136, 136]);
  });

  it('with a burst of two, a quiet key starts twice at once, then once per spacing, and a quiet spell refills it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const runs: number[] = [];
    const t0 = performance.now();
    const q = keyedQueue(1, async () => { runs.push(Math.round(performance.now() - t0)); }, { spacingMs: 20, burst: 2 });
    for (let i = 0; i < 3; i++) {
      q.add('z');
      await vi.advanceTimersByTimeAsync(1);
    }
    expect(runs).toEqual([0, 1]);
    // A stream up to 32: one run a spacing, the third add's at 20, and one at 40 for everything added after it.
    for (let i = 0; i < 30; i++) {
      q.add('z');
      await vi.advanceTimersByTimeAsync(1);
    }
    expect(runs).toEqual([0, 1, 20]);
    await vi.advanceTimersByTimeAsync(100);
    expect(runs).toEqual([0, 1, 20, 40]);
    q.add('z');
    await vi.advanceTimersByTimeAsync(1);
    q.add('z');
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([0, 1, 20, 40, 133, 134]);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a burst of %s starts', (burst) => {
    expect(() => keyedQueue(1, async () => undefined, { spacingMs: 20, burst })).toThrow(RangeError);
  });

  it('onIdle waits for a run held back by the spacing, and clear drops it', async () => {
    const runs: string[] = [];
    const q = keyedQueue(1, async (k) => { runs.push(k); }, { spacingMs: 30 });
    q.add('z');
    await q.onIdle();
    q.add('z');
    await q.onIdle();
    expect(runs).toEqual(['z', 'z']);
    q.add('z');
    q.clear();
    await q.onIdle();
    expect(q.busy()).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    expect(runs).toEqual(['z', 'z']);
  });

  it('holds no key when the wall clock is set back, and spaces from a pass\'s start, not its queueing', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    vi.setSystemTime(new Date('2026-11-26T10:00:00Z'));
    const runs: number[] = [];
    const t0 = performance.now();
    const q = keyedQueue(1, async (k) => {
      runs.push(Math.round(performance.now() - t0));
      if (k === 'slow') await new Promise((r) => setTimeout(r, 50));
    }, { spacingMs: 20 });
    q.add('z');
    await vi.advanceTimersByTimeAsync(1);
    vi.setSystemTime(new Date('2026-11-26T09:59:00Z'));
    q.add('z');
    await vi.advanceTimersByTimeAsync(30);
    expect(runs).toEqual([0, 20]);
    // Queued behind a 50 ms pass of another key, y starts at 81: added again at 82, it waits from 81, not from 31.
    q.add('slow');
    q.add('y');
    await vi.advanceTimersByTimeAsync(51);
    q.add('y');
    await vi.advanceTimersByTimeAsync(30);
    expect(runs).toEqual([0, 20, 31, 81, 101]);
  });
});

