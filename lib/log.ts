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
 * Writes the request line of an answer as `log.info(fields, 'request')` would, in the logger's own format: its
 * level number, time function and bindings (pino's), then the fields, then `msg`. pino's generic writer (hooks,
 * serializers, redaction, key checks) cost 8 us an answer, about a tenth of a getProject's CPU (bench/api.ts);
 * this costs half that. The fields are the API's own scalars and the path, each JSON-encoded, so nothing to
 * redact can be among them.
 */
export function requestLineWriter(log: Logger): (line: RequestLine) => void {
  const stream = (log as unknown as Record<symbol, { write(s: string): void }>)[pino.symbols.streamSym]!;
  const time = (log as unknown as Record<symbol, () => string>)[pino.symbols.timeSym]!;
  const bindings = (log as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? '';
  const head = `{"level":${log.levels.values.info}`;
  return (l) => {
    if (!log.isLevelEnabled('info')) return;
    stream.write(`${head}${time()}${bindings},"reqId":${JSON.stringify(l.reqId)},"method":${JSON.stringify(l.method)},"path":${JSON.stringify(l.path)},`
      + `"operation":${JSON.stringify(l.operation)},"status":${l.status},"ms":${l.ms}${l.aborted ? ',"aborted":true' : ''},"msg":"request"}\n`);
  };
}
export type { Logger };
