import { describe, expect, it } from 'vitest';
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
    const q = keyedQueue(4, async () => {
      running++; runs++;
      maxRunning = Math.max(maxRunning, running);
      await tick();
      running--;
    });
    q.add('z');
    await new Promise((r) => setTimeout(r, 1));
    q.add('z');
    q.add('z');
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
