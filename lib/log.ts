/** Structured JSON logs on stderr (stdout carries the `{"listening": ...}` line and CLI answers). */
import pino, { type Logger } from 'pino';

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

export function createLogger(opts: { level?: string; destination?: pino.DestinationStream } = {}): Logger {
  return pino(
    { level: opts.level ?? process.env.HOSTPLANE_LOG_LEVEL ?? 'info', redact: { paths: REDACT, censor: '[redacted]' }, base: { svc: 'hostplane' } },
    opts.destination ?? pino.destination({ fd: 2, sync: false }),
  );
}
export type { Logger };
