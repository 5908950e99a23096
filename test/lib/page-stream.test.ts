/** pageByPage: a page is read only once the one before it was taken, so a consumer that stops taking holds one page. */
import { Writable } from 'node:stream';
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

describe('pageByPage', () => {
  it('reads no page after one its consumer has not taken, and reads every page for one that takes them', async () => {
    const stalled = counted(100);
    // A consumer that takes its first write and then never finishes one, as a socket whose client stopped reading.
    let writes = 0;
    const source = pageByPage(stalled.gen);
    const sink = new Writable({ highWaterMark: 1, write() { writes++; } });
    source.pipe(sink);
    await expect.poll(() => writes).toBeGreaterThanOrEqual(1);
    // Whatever turns of the event loop pass, no further page is read while the first is not taken.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(stalled.read()).toBeLessThanOrEqual(2);
    source.destroy();
    await expect.poll(() => stalled.closed()).toBe(true);

    const all = counted(30);
    let bytes = 0;
    await new Promise<void>((resolve, reject) => {
      pageByPage(all.gen).pipe(new Writable({ write(chunk: Buffer, _enc, done) { bytes += chunk.length; done(); } })).on('finish', resolve).on('error', reject);
    });
    expect(bytes).toBe(30 * PAGE.length);
  });
});
