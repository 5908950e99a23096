/** A stream of text read a page at a time from an async source, as a client takes it. */
import { Readable } from 'node:stream';

/**
 * A stream of `pages`, each read only once the one before it has been taken: nothing is read ahead (`Readable.from`
 * reads up to 16 pages ahead of a client that stops reading), so an export held by a stalled client holds a page.
 */
export function pageByPage(pages: AsyncGenerator<string>): Readable {
  return new Readable({
    highWaterMark: 0,
    read() {
      pages.next().then(({ done, value }) => this.push(done ? null : value), (e: unknown) => this.destroy(e as Error));
    },
    destroy(err, callback) {
      // Ends the reading (its store reads) with the answer; a failure of the page being read is the stream's already.
      pages.return(undefined).then(() => callback(err), () => callback(err));
    },
  });
}
