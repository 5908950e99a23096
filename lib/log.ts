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

/** How long a line may wait in the buffer before it is written. */
export const LOG_FLUSH_MS = 100;

/** Exits once the log's lines are out (`log.flush`), or after `ms` whatever stderr does. */
export function exitAfterFlush(log: Logger, code: number, ms = 2_000): void {
  setTimeout(() => process.exit(code), ms).unref();
  log.flush(() => process.exit(code));
}

/**
 * Standard error, every line through one buffer: written once 4 KiB have gathered, every LOG_FLUSH_MS, at
 * `log.flush(cb)` (which calls back once the writes under way are done) and at exit (pino's own exit handler),
 * so lines keep their time order. A write per line cost each API answer a system call on the thread pool
 * (bench/api.ts).
 */
const stderrDestination = (): pino.DestinationStream =>
  pino.destination({ fd: 2, sync: false, minLength: 4096, periodicFlush: LOG_FLUSH_MS });

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
    opts.destination ?? stderrDestination(),
  );
}

/** What the API logs of each answer (api/app.ts). */
export interface RequestLine {
  reqId: string;
  method: string;
  path: string;
  operation: string;
  status: number;
  ms: number;
  aborted?: boolean;
}

/**
 * Writes the request line of an answer, as `log.info(fields, 'request')`. Without redaction: the fields are the
 * API's own scalars and the path, so none of REDACT's paths can match them, and pino's redaction cost a request
 * line about two thirds of its time (18 of 28 us, on this machine under load).
 */
export function requestLineWriter(log: Logger): (line: RequestLine) => void {
  const plain = log.child({}, { redact: { paths: [] } });
  return (l) => plain.info(l, 'request');
}
export type { Logger };
