/**
 * FairSlots: work waits for a few slots in its key's queue, served key by key in turn (round robin), a key's queue
 * bounded (past it refused at once, but for continuing work); work whose signal aborts leaves its queue. Told as
 * tables of steps: no timing, only the order in which slots are given.
 */
import { describe, expect, it } from 'vitest';
import { FairSlots, type Release } from '../../lib/fair-slots';

/** `A1`: work 1 of key A asks for a slot; `+A5`: continuing work; `-A1`: A1 gives its slot back; `!B1`: B1's client goes away. */
type Step = string;

interface Case {
  name: string;
  size: number;
  bound: number;
  steps: Step[];
  /** Work given a slot, in that order. */
  granted: string[];
  /** Work refused at once (its key's queue full). */
  refused?: string[];
  /** Work that left its queue. */
  left?: string[];
}

const flush = () => new Promise((r) => setImmediate(r));

async function play(c: Case): Promise<{ granted: string[]; refused: string[]; left: string[]; load: FairSlots['load'] }> {
  const slots = new FairSlots(c.size, c.bound);
  const granted: string[] = [];
  const refused: string[] = [];
  const left: string[] = [];
  const releases = new Map<string, Release>();
  const aborts = new Map<string, AbortController>();
  for (const step of c.steps) {
    const [op, label] = /^[-+!]/.test(step) ? [step[0], step.slice(1)] : ['', step];
    if (op === '-') releases.get(label!)!();
    else if (op === '!') aborts.get(label!)!.abort(new Error('gone'));
    else {
      const abort = new AbortController();
      aborts.set(label!, abort);
      slots.acquire(label![0]!, { signal: abort.signal, continuing: op === '+' }).then((release) => {
        if (!release) refused.push(label!);
        else {
          granted.push(label!);
          releases.set(label!, release);
        }
      }, () => left.push(label!));
    }
    await flush();
  }
  return { granted, refused, left, load: slots.load };
}

const cases: Case[] = [
  {
    name: 'one slot: a key with many waiting delays another key\'s first by one unit, not by all of them',
    size: 1, bound: 8,
    steps: ['A1', 'A2', 'A3', 'A4', 'A5', 'B1', '-A1', '-A2', '-B1', '-A3', '-A4'],
    granted: ['A1', 'A2', 'B1', 'A3', 'A4', 'A5'],
  },
  {
    name: 'three keys take turns, each served key going to the back',
    size: 1, bound: 8,
    steps: ['A1', 'A2', 'A3', 'B1', 'B2', 'C1', '-A1', '-A2', '-B1', '-C1', '-A3'],
    granted: ['A1', 'A2', 'B1', 'C1', 'A3', 'B2'],
  },
  {
    name: 'two slots: work runs at once while a slot is free, then in turn',
    size: 2, bound: 8,
    steps: ['A1', 'A2', 'A3', 'A4', 'B1', '-A1', '-A2', '-A3'],
    granted: ['A1', 'A2', 'A3', 'B1', 'A4'],
  },
  {
    name: 'past its bound a key\'s new work is refused at once, another key\'s is not; continuing work queues past it',
    size: 1, bound: 2,
    steps: ['A1', 'A2', 'A3', 'A4', 'B1', 'B2', '+A5', '-A1', '-A2', '-B1', '-A3', '-B2'],
    granted: ['A1', 'A2', 'B1', 'A3', 'B2', 'A5'],
    refused: ['A4'],
  },
  {
    name: 'a refused key has room again once its work is given slots',
    size: 1, bound: 1,
    steps: ['A1', 'A2', 'A3', '-A1', 'A4', '-A2'],
    granted: ['A1', 'A2', 'A4'],
    refused: ['A3'],
  },
  {
    name: 'work whose client went away leaves its queue: no slot is given to it, and its place is free',
    size: 1, bound: 1,
    steps: ['A1', 'B1', '!B1', 'B2', '-A1', '-B2'],
    granted: ['A1', 'B2'],
    left: ['B1'],
  },
  {
    name: 'a key whose only waiting work went away loses its turn to the next key',
    size: 1, bound: 8,
    steps: ['A1', 'B1', 'C1', '!B1', '-A1', '-C1'],
    granted: ['A1', 'C1'],
    left: ['B1'],
  },
  {
    name: 'a slot given back twice is given back once',
    size: 1, bound: 8,
    steps: ['A1', 'B1', 'C1', '-A1', '-A1', '-B1'],
    granted: ['A1', 'B1', 'C1'],
  },
];

describe('FairSlots', () => {
  it.each(cases)('$name', async (c) => {
    const r = await play(c);
    expect(r.granted).toEqual(c.granted);
    expect(r.refused).toEqual(c.refused ?? []);
    expect(r.left).toEqual(c.left ?? []);
  });

  it('tells its slots taken and work waiting by key, in the order of their turns', async () => {
    const r = await play({ name: '', size: 1, bound: 8, steps: ['A1', 'A2', 'B1', 'A3', 'C1'], granted: [] });
    expect(r.load).toEqual({ running: 1, waiting: [['A', 2], ['B', 1], ['C', 1]] });
    const after = await play({ name: '', size: 2, bound: 8, steps: ['A1', 'B1', 'A2', '-A1', '-B1', '-A2'], granted: [] });
    expect(after.load).toEqual({ running: 0, waiting: [] });
  });

  it('refuses at once work whose client is gone before it asks', async () => {
    const slots = new FairSlots(1, 8);
    const gone = new AbortController();
    gone.abort(new Error('gone'));
    await expect(slots.acquire('A', { signal: gone.signal })).rejects.toThrow('gone');
    expect(slots.load).toEqual({ running: 0, waiting: [] });
  });

  it('runs work in a slot and gives it back when the work fails', async () => {
    const slots = new FairSlots(1, 0);
    await expect(slots.run('A', async () => { throw new Error('failed'); })).rejects.toThrow('failed');
    expect(await slots.run('A', async () => 'ran')).toEqual({ value: 'ran' });
    const held = await slots.acquire('A');
    expect(await slots.run('B', async () => 'ran')).toBeNull();
    held!();
  });
});
