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

/** How long a request line may wait in the buffer before it is written. */
export const LOG_FLUSH_MS = 100;

/** Exits once the log's lines are out (`log.flush`), or after `ms` whatever stderr does. */
export function exitAfterFlush(log: Logger, code: number, ms = 2_000): void {
  setTimeout(() => process.exit(code), ms).unref();
  log.flush(() => process.exit(code));
}

/** A destination that also takes lines which may wait (`writeBatched`): the request line of each answer. */
interface BatchingDestination extends pino.DestinationStream {
  writeBatched(line: string): void;
}

/**
 * Standard error. pino's lines (starts, warnings, errors) go out at once, after the request lines gathered
 * before them; the request lines of answers (requestLineWriter) in batches: once 4 KiB have gathered, or
 * LOG_FLUSH_MS after the first of them, and at exit. A write per request line cost each API answer a system call on the thread pool (bench/api.ts).
 */
function stderrDestination(): BatchingDestination {
  let batch: string[] = [];
  let size = 0;
  let due: NodeJS.Timeout | undefined;
  // Registered before pino's own exit handler (pino.destination below), which then writes out what this adds.
  process.once('exit', () => drain());
  const out = pino.destination({ fd: 2, sync: false });
  const drain = (): void => {
    clearTimeout(due);
    due = undefined;
    if (batch.length === 0) return;
    out.write(batch.join(''));
    batch = [];
    size = 0;
  };
  return {
    // The batch goes first: lines keep their time order (a request line never follows the `stopped` after it).
    write(line: string): void {
      drain();
      out.write(line);
    },
    writeBatched(line: string): void {
      batch.push(line);
      size += line.length;
      if (size >= 4096) drain();
      else due ??= setTimeout(drain, LOG_FLUSH_MS).unref();
    },
    // `log.flush(cb)` (at a shutdown) writes the batch too, and calls back once stderr took everything: sonic-boom
    // would call back at once, with a write still under way that `process.exit` then cuts (seen with a slow reader).
    flush(cb?: (err?: Error) => void): void {
      drain();
      const state = out as unknown as { _writing?: boolean; _len?: number };
      if (cb && (state._writing || (state._len ?? 0) > 0)) out.once('drain', () => cb());
      else cb?.();
    },
  } as BatchingDestination;
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
 * Writes the request line of an answer as `log.info(fields, 'request')` would, in the logger's own format: its
 * level number, time function and bindings (pino's), then the fields, then `msg`; in a batch where the
 * destination takes one (stderrDestination). pino's generic writer (hooks, serializers, redaction, key checks)
 * cost 8 us an answer, about a tenth of a getProject's CPU (bench/api.ts); this costs half that. The fields are
 * the API's own scalars and the path, each JSON-encoded, so nothing to redact can be among them.
 */
export function requestLineWriter(log: Logger): (line: RequestLine) => void {
  const internals = log as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as Partial<BatchingDestination> & pino.DestinationStream;
  const write = stream.writeBatched?.bind(stream) ?? stream.write.bind(stream);
  const time = internals[pino.symbols.timeSym] as () => string;
  const bindings = (internals[pino.symbols.chindingsSym] as string | undefined) ?? '';
  const head = `{"level":${log.levels.values.info}`;
  return (l) => {
    if (!log.isLevelEnabled('info')) return;
    write(`${head}${time()}${bindings},"reqId":${JSON.stringify(l.reqId)},"method":${JSON.stringify(l.method)},"path":${JSON.stringify(l.path)},`
      + `"operation":${JSON.stringify(l.operation)},"status":${l.status},"ms":${l.ms}${l.aborted ? ',"aborted":true' : ''},"msg":"request"}\n`);
  };
}
export type { Logger };
