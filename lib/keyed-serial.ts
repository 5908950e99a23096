/** Runs work one at a time per key (a domain name, a hostname), in the order asked; work of other keys runs
 * beside it. A failure of one run does not stop the next. */
export function keyedSerial(): <T>(key: string, fn: () => Promise<T>) => Promise<T> {
  const running = new Map<string, Promise<unknown>>();
  return async (key, fn) => {
    for (let r = running.get(key); r; r = running.get(key)) await r.catch(() => undefined);
    const run = fn();
    running.set(key, run);
    try {
      return await run;
    } finally {
      if (running.get(key) === run) running.delete(key);
    }
  };
}
