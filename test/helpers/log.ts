import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../lib/log';

/** A logger at debug level whose lines are kept: what a test reads its log lines from. */
export function captureLogger(): { log: Logger; lines: string[]; text(): string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const log = createLogger({ level: 'debug', destination });
  return { log, lines, text: () => lines.join('') };
}
