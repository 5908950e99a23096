/**
 * A bound on what is spent for clients not yet admitted (the node's access gate, the console's sign-in). A password
 * verification is scrypt at N = 2^17 (lib/access-hash.ts): 128 MiB of memory and a quarter of a second of a libuv
 * thread each, so a flood of attempts, from one address or many, must not start them without limit.
 */

/** At most `size` tasks at once and `queue` waiting for one; past that a request is refused at once, never
 * queued without bound. */
export class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number, readonly queue: number) {}

  /** Resolves with the function that gives the slot back, or null at once when every slot and queue place is
   * taken. */
  async acquire(): Promise<(() => void) | null> {
    if (this.running < this.size) {
      this.running++;
    } else if (this.waiting.length < this.queue) {
      // The slot is handed over by release(): running stays as it is.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      return null;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
  }

  /** Tasks running and waiting (for tests and logs). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
