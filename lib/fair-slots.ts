/**
 * A few slots for CPU-heavy work, shared by many keys (organizations) in turn. Work waits for a slot in its key's
 * queue; a freed slot goes to the key whose turn it is (round robin: a key goes to the back of the turns once
 * served), so a key with 50 waiting delays another key's first by one unit of work, not by 50. A key's queue is
 * bounded: past it, new work is refused at once, never queued without bound.
 */

/** Gives the slot back; a second call does nothing. */
export type Release = () => void;

export interface Acquire {
  /** Aborts the wait (the client went away): the work leaves its queue, and no slot is spent on it. */
  signal?: AbortSignal;
  /** The next unit of work already let in (an export's next page): queued even past the key's bound, since refusing it
   * would cut an answer begun. */
  continuing?: boolean;
}

type Waiter = (release: Release) => void;

export class FairSlots {
  private running = 0;
  /** Waiting work by key, in the order of the keys' turns (Map order: a served key is put back at the end). */
  private readonly turns = new Map<string, Waiter[]>();

  constructor(readonly size: number, readonly waitingPerKey: number) {}

  /**
   * Resolves with the slot's release once it is `key`'s; null at once when `key` has `waitingPerKey` waiting (but for
   * `continuing` work). Rejects with the signal's reason when it aborts before the slot is given.
   */
  acquire(key: string, o: Acquire = {}): Promise<Release | null> {
    if (o.signal?.aborted) return Promise.reject(o.signal.reason);
    if (this.running < this.size && this.turns.size === 0) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    const queue = this.turns.get(key) ?? [];
    if (queue.length >= this.waitingPerKey && !o.continuing) return Promise.resolve(null);
    return new Promise<Release>((resolve, reject) => {
      const { signal } = o;
      const leave = (): void => {
        const i = queue.indexOf(waiter);
        if (i >= 0) queue.splice(i, 1);
        if (queue.length === 0 && this.turns.get(key) === queue) this.turns.delete(key);
        reject(signal!.reason);
      };
      const waiter: Waiter = (release) => {
        signal?.removeEventListener('abort', leave);
        resolve(release);
      };
      signal?.addEventListener('abort', leave, { once: true });
      queue.push(waiter);
      if (!this.turns.has(key)) this.turns.set(key, queue);
    });
  }

  /** Runs `work` in a slot of `key`'s; null without running it when `key`'s queue is full (see `acquire`). */
  async run<T>(key: string, work: () => Promise<T>, o: Acquire = {}): Promise<{ value: T } | null> {
    const release = await this.acquire(key, o);
    if (!release) return null;
    try {
      return { value: await work() };
    } finally {
      release();
    }
  }

  /** Slots taken, and work waiting by key in the order of their turns (for tests and logs). */
  get load(): { running: number; waiting: [string, number][] } {
    return { running: this.running, waiting: [...this.turns].map(([key, q]) => [key, q.length]) };
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.handOver();
    };
  }

  /** Hands a freed slot to the first waiter of the key whose turn it is (running stays as it is), or frees it. */
  private handOver(): void {
    const next = this.turns.entries().next();
    if (next.done) {
      this.running--;
      return;
    }
    const [key, queue] = next.value;
    const waiter = queue.shift()!;
    this.turns.delete(key);
    if (queue.length > 0) this.turns.set(key, queue);
    waiter(this.releaser());
  }
}
