/** The one place where failures become HTTP answers with the spec's body `{code, message, details?}`. */
import type { Context, Middleware } from 'koa';
import type { Logger } from '../lib/log';
import { z } from 'zod';
import { AppError, framesOf, reasonOf, type ErrorBody } from '../lib/errors';
import { ZoneValidationError, type Issue } from '../zonefiles';
import { causeOf, isTextRefused, StoreUnavailableError } from '../store/db';

/** Marks a message our error map wrote, to be prefixed with its field's path; a schema's own message is kept whole. */
const OURS = '\u0000';

/** A field's path in one style: `records[0].content`. */
export const fieldPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, seg) => (typeof seg === 'number' ? `${out}[${seg}]` : out ? `${out}.${String(seg)}` : String(seg)), '');

const TYPES: Record<string, string> = {
  string: 'a string', number: 'a number', int: 'a whole number', boolean: 'true or false', array: 'a list', object: 'an object',
  tuple: 'a list', record: 'an object', null: 'null', bigint: 'a whole number', date: 'a date',
};
const FORMATS: Record<string, string> = {
  datetime: 'an RFC 3339 date-time', date: 'a date (YYYY-MM-DD)', email: 'an email address', url: 'a URL', uuid: 'a UUID',
  ipv4: 'an IPv4 address', ipv6: 'an IPv6 address', base64url: 'base64url text', regex: 'of the expected form',
};
const list = (values: readonly unknown[]): string => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

/**
 * Our wording of zod's issues, used where a schema says nothing of its own (a schema's message wins over this
 * map): "is required", "must be a string", "must be at least 60". The field's path is put in front by `fromZod`,
 * which knows the whole path.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const zodMessages = (iss: any): string => {
  const say = (text: string): string => OURS + text;
  const { origin } = iss as { origin?: string };
  const size = (n: number | bigint, what: string): string => (origin === 'string' ? `${n} characters` : origin === 'array' || origin === 'set' ? `${n} ${what}` : String(n));
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return say('is required');
      return say(`must be ${TYPES[iss.expected as string] ?? iss.expected}`);
    case 'invalid_value':
      return say(iss.values.length === 1 ? `must be ${list(iss.values)}` : `must be one of ${list(iss.values)}`);
    case 'too_small':
      if (origin === 'string' && Number(iss.minimum) === 1) return say('must not be empty');
      if (origin === 'array' && Number(iss.minimum) === 1) return say('must not be empty');
      return say(iss.inclusive ? `must be at least ${size(iss.minimum, 'entries')}` : `must be more than ${size(iss.minimum, 'entries')}`);
    case 'too_big':
      return say(iss.inclusive ? `must be at most ${size(iss.maximum, 'entries')}` : `must be less than ${size(iss.maximum, 'entries')}`);
    case 'invalid_format':
      return say(`must be ${FORMATS[iss.format as string] ?? `a valid ${iss.format as string}`}`);
    case 'not_multiple_of':
      return say(`must be a multiple of ${String(iss.divisor)}`);
    case 'unrecognized_keys':
      return say('is not a field of this request');
    case 'invalid_union':
      return say('matches none of the allowed forms');
    default:
      return say('is invalid');
  }
};

/**
 * Turns a zod failure into 400 `bad_request` with each invalid field listed (`details.issues`, `{path, message}`):
 * paths as `body.records[0].content`, our own wording ("body.name is required", "the body must be a JSON
 * object"), one issue per unknown field. Parse with `{ error: zodMessages }` for the wording.
 */
export function fromZod(e: z.ZodError, where: 'path' | 'query' | 'body'): AppError {
  const issues = zodIssues(e.issues, where);
  return new AppError(400, 'bad_request', `invalid request ${where}: ${issues[0]?.message}`, { issues });
}

/** zod's issues as `{path, message}` in our wording (see `fromZod`), their paths under `where` when given. */
export function zodIssues(issues: readonly z.core.$ZodIssue[], where?: 'path' | 'query' | 'body'): Issue[] {
  return issues.flatMap((i) => {
    const at = (path: readonly PropertyKey[]): string => [where, fieldPath(path)].filter(Boolean).join('.');
    const label = (path: readonly PropertyKey[]): string => (path.length === 0 ? `the ${where ?? 'value'}` : fieldPath(path));
    if (i.code === 'unrecognized_keys') {
      return i.keys.map((k) => ({ path: at([...i.path, k]), message: i.message.startsWith(OURS) ? `${label([...i.path, k])} is not a field of this request` : i.message }));
    }
    if (!i.message.startsWith(OURS)) return [{ path: at(i.path), message: i.message }];
    const text = i.message.slice(OURS.length);
    // The whole body of the wrong type: valid JSON, but not an object.
    if (i.path.length === 0 && where === 'body' && i.code === 'invalid_type') return [{ path: 'body', message: 'the body must be a JSON object' }];
    return [{ path: at(i.path), message: `${label(i.path)} ${text}` }];
  });
}

/** Seconds a client waits before retrying while the store is unavailable: a database failover takes about that. */
const STORE_RETRY_AFTER_S = 2;
/** While the store is unavailable every request answers 503: the operator needs its reason, once in a while, not a
 * line per request. */
const STORE_WARN_EVERY_MS = 10_000;

/** Status codes that http-errors style exceptions (raw-body, Koa and its router) carry, and our code for each. */
const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

export function toErrorBody(e: unknown): { status: number; body: ErrorBody; unexpected: boolean } {
  if (e instanceof AppError) {
    return { status: e.status, body: e.toBody(), unexpected: false };
  }
  if (causeOf(e, StoreUnavailableError)) {
    return { status: 503, body: { code: 'store_unavailable', message: 'the store is unavailable for a moment; retry' }, unexpected: false };
  }
  if (isTextRefused(e)) {
    return { status: 400, body: { code: 'bad_request', message: 'a text field holds U+0000, which the store cannot keep' }, unexpected: false };
  }
  if (e instanceof ZoneValidationError) {
    return { status: 400, body: { code: 'bad_request', message: e.message, details: { issues: e.issues } }, unexpected: false };
  }
  const status = typeof e === 'object' && e !== null && 'status' in e ? Number((e as { status: unknown }).status) : 500;
  const code = CODES[status];
  if (code) {
    // Messages of library errors are generic by construction (e.g. "request entity too large"); never echo input.
    const message = status === 400 ? 'the request could not be read' : code.replace(/_/g, ' ');
    return { status, body: { code, message }, unexpected: false };
  }
  return { status: 500, body: { code: 'internal', message: 'internal error' }, unexpected: true };
}

/** A path of the API asked with a method it lacks: 405 naming those it has (the Allow header is the caller's). */
const methodNotAllowed = (allow: string): AppError => new AppError(405, 'method_not_allowed', `allowed: ${allow}`);
/** A method this API implements nowhere. */
const notImplemented = (): AppError => new AppError(501, 'not_implemented', 'method not implemented');

/** Writes an error's answer as a page when the request is a browser's (the console's): true when it did, false for
 * the spec's JSON body. */
export type ErrorPage = (ctx: Context, status: number, message: string) => boolean;

/** Outermost error middleware: everything thrown below, and the router's bodiless 404, 405 and 501, become the
 * spec's error body with this request's id; an unknown error is logged and answered 500 without any internal
 * message or stack. */
export const errors = (log: Logger, page?: ErrorPage): Middleware => {
  let storeWarnedAt = -Infinity;
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw new AppError(404, 'not_found', 'no such route');
        if (ctx.status === 405) throw methodNotAllowed(ctx.response.get('Allow'));
        if (ctx.status === 501) throw notImplemented();
      }
    } catch (e) {
      const { status, body, unexpected } = toErrorBody(e);
      if (unexpected) log.error({ err: { type: (e as Error)?.constructor?.name, message: reasonOf(e), stack: framesOf(e) }, reqId: ctx.state.reqId }, 'unexpected error');
      ctx.status = status;
      // Headers an error brings for its answer (a 429's Retry-After and RateLimit fields: api/limits.ts).
      const extra = e instanceof AppError ? (e as AppError & { headers?: Record<string, string> }).headers : undefined;
      if (extra) ctx.set(extra);
      const unavailable = causeOf(e, StoreUnavailableError);
      if (unavailable) {
        ctx.set('Retry-After', String(STORE_RETRY_AFTER_S));
        if (Date.now() - storeWarnedAt >= STORE_WARN_EVERY_MS) {
          storeWarnedAt = Date.now();
          log.warn({ reason: reasonOf(unavailable), reqId: ctx.state.reqId }, 'the store is unavailable: requests answer 503 store_unavailable');
        }
      }
      if (page?.(ctx, status, body.message)) return;
      // RFC 6750: a 401 names the scheme that would be accepted.
      if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
      ctx.body = { ...body, requestId: ctx.state.reqId as string };
    }
  };
};
