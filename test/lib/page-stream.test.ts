/** pageByPage: a page is read only once the one before it was taken, so a consumer that stops taking holds one page. */
import { Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { pageByPage } from '../../lib/page-stream';

const PAGE = 'x'.repeat(64 * 1024);

function counted(pages: number): { gen: AsyncGenerator<string>; read: () => number; closed: () => boolean } {
  let read = 0;
  let closed = false;
  async function* gen(): AsyncGenerator<string> {
    try {
      for (; read < pages;) {
        read++;
        yield PAGE;
      }
    } finally {
      closed = true;
    }
  }
  return { gen: gen(), read: () => read, closed: () => closed };
}

/** Turns of the event loop, each after every promise and tick the one before queued: time for a stream to read ahead. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

describe('pageByPage', () => {
  it('reads no page after one its consumer has not taken (Readable.from reads the next one)', async () => {
    // The consumer of a socket whose client stopped reading: it takes the first page and asks for nothing more.
    const stopAfterOne = async (make: (pages: AsyncGenerator<string>) => Readable) => {
      const pages = counted(100);
      const source = make(pages.gen);
      await new Promise((r) => source.once('data', () => r(source.pause())));
      await turns(20);
      const read = pages.read();
      source.destroy();
      await expect.poll(() => pages.closed()).toBe(true);
      return read;
    };
    expect(await stopAfterOne(pageByPage)).toBe(1);
    // What pageByPage spares: Readable.from (highWaterMark 1 object on Node 20) reads a page ahead and holds it.
    expect(await stopAfterOne((g) => Readable.from(g))).toBe(2);
  });

  it('reads no page after one a stalled writer has not finished, as a socket whose client stopped reading', async () => {
    const stalled = counted(100);
    let writes = 0;
    const source = pageByPage(stalled.gen);
    source.pipe(new Writable({ highWaterMark: 1, write() { writes++; } }));
    await expect.poll(() => writes).toBe(1);
    await turns(20);
    expect(stalled.read()).toBe(1);
    source.destroy();
    await expect.poll(() => stalled.closed()).toBe(true);
  });

  it('reads every page for a consumer that takes them', async () => {
    const all = counted(30);
    let bytes = 0;
    await new Promise<void>((resolve, reject) => {
      pageByPage(all.gen).pipe(new Writable({ write(chunk: Buffer, _enc, done) { bytes += chunk.length; done(); } })).on('finish', resolve).on('error', reject);
    });
    expect(bytes).toBe(30 * PAGE.length);
  });
});
