/** The one place where failures become HTTP answers with the spec's body `{code, message, details?}`. */
import type { Middleware } from 'koa';
import type { Logger } from '../lib/log';
import { z } from 'zod';
import { AppError, type ErrorBody } from '../lib/errors';
import { ZoneValidationError } from '../zonefiles';

/** Turns a zod failure into 400 `bad_request` with the invalid fields listed (`details.issues`). */
export function fromZod(e: z.ZodError, where: 'path' | 'query' | 'body'): AppError {
  const issues = e.issues.map((i) => ({ path: [where, ...i.path.map(String)].join('.'), message: i.message }));
  return new AppError(400, 'bad_request', `invalid request ${where}: ${issues[0]?.path} ${issues[0]?.message}`, { issues });
}

/** Status codes that http-errors style exceptions (body parser, router) carry, and our code for each. */
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
  if (e instanceof ZoneValidationError) {
    return { status: 400, body: { code: 'bad_request', message: e.message, details: { issues: e.issues } }, unexpected: false };
  }
  const status = typeof e === 'object' && e !== null && 'status' in e ? Number((e as { status: unknown }).status) : 500;
  const code = CODES[status];
  if (code) {
    // Messages of library errors are generic by construction (e.g. "request entity too large"); never echo input.
    const message = status === 400 ? 'request body is not valid JSON' : code.replace(/_/g, ' ');
    return { status, body: { code, message }, unexpected: false };
  }
  return { status: 500, body: { code: 'internal', message: 'internal error' }, unexpected: true };
}

/** Outermost error middleware: everything thrown below ends here; unknown errors are logged and answered 500
 * without any internal message or stack. */
export const errors = (): Middleware => async (ctx, next) => {
  try {
    await next();
    if (ctx.body === undefined || ctx.body === null) {
      if (ctx.status === 404) throw new AppError(404, 'not_found', 'no such route');
      if (ctx.status === 405) throw new AppError(405, 'method_not_allowed', `allowed: ${ctx.response.get('Allow')}`);
      if (ctx.status === 501) throw new AppError(501, 'not_implemented', 'method not implemented');
    }
  } catch (e) {
    const { status, body, unexpected } = toErrorBody(e);
    if (unexpected) (ctx as { log?: Logger }).log?.error({ err: e, reqId: ctx.state.reqId }, 'unexpected error');
    ctx.status = status;
    // RFC 6750: a 401 names the scheme that would be accepted.
    if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
    ctx.body = { ...body, requestId: ctx.state.reqId as string };
  }
};
