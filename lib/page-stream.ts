/** A stream of text read a page at a time from an async source, as a client takes it. */
import { Readable } from 'node:stream';

/**
 * A stream of `pages`, each read only once the one before it has been taken: nothing is read ahead (`Readable.from`,
 * of highWaterMark 1, reads and holds the page after the one its client stopped taking).
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
