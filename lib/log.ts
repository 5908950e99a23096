/** Structured JSON logs on stderr (stdout carries the `{"listening": ...}` line and CLI answers). */
import pino, { type Logger } from 'pino';
import { badRequest } from './errors';

/** Credentials and secret values must never reach a log line, whatever object gets logged. */
export const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["service-access-bypass"]',
  'headers.authorization',
  '*.password',
  '*.value',
  '*.plaintext',
  '*.token',
  '*.secret',
  '*.clientSecret',
  '*.authCode',
  '*.contact',
];

/** What HOSTPLANE_LOG_LEVEL may say. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The level `HOSTPLANE_LOG_LEVEL` asks for (`info` when unset); any other value is a usage error naming the
 * levels, rather than pino's bare "unknown level". */
export function logLevel(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.HOSTPLANE_LOG_LEVEL;
  if (given === undefined || given === '') return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(given)) {
    throw badRequest(`unknown HOSTPLANE_LOG_LEVEL ${JSON.stringify(given)} (one of ${LOG_LEVELS.join(', ')})`);
  }
  return given;
}

/** How long a logged line may wait in the buffer before it is written. */
export const LOG_FLUSH_MS = 100;

/**
 * Standard error, written in batches: a line goes out once 4 KiB have gathered, or LOG_FLUSH_MS after the first
 * line of the batch, whichever comes first (pino writes what is left when the process exits). A write per line,
 * the default, cost each API answer a system call on the thread pool for its request line (bench/api.ts).
 */
function batchedStderr(): pino.DestinationStream {
  const out = pino.destination({ fd: 2, sync: false, minLength: 4096 });
  let due: NodeJS.Timeout | undefined;
  return {
    write(line: string): void {
      out.write(line);
      due ??= setTimeout(() => {
        due = undefined;
        out.flush();
      }, LOG_FLUSH_MS).unref();
    },
  };
}

/** JSON lines with an ISO 8601 `time` (`"time":"2026-11-26T12:00:00.000Z"`): read by people and collectors
 * alike, where epoch milliseconds need converting. */
export function createLogger(opts: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino(
    {
      level: opts.level ?? logLevel(),
      redact: { paths: REDACT, censor: '[redacted]' },
      base: { svc: 'hostplane' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    opts.destination ?? batchedStderr(),
  );
}
export type { Logger };
