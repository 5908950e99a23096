import { DrizzleQueryError } from 'drizzle-orm';
/** The body of every error answer (`details` optional): the API's, and the Core port's besides its status. */
export interface ErrorBody { code: string; message: string; details?: Record<string, unknown> }

/**
 * The one typed error of the service. Store, core and API code throw it; only the edges turn it into an HTTP
 * answer (`api/errors.ts`, and `core/server.ts`, whose client throws it again whole on the API's side), so the
 * status travels with the error instead of being decided in each handler.
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

export const notFound = (what: string): AppError => new AppError(404, 'not_found', `${what} not found`);
export const conflict = (code: string, message: string, details?: Record<string, unknown>): AppError =>
  new AppError(409, code, message, details);
export const badRequest = (message: string, details?: Record<string, unknown>, code = 'bad_request'): AppError =>
  new AppError(400, code, message, details);

/** A query's failure in words fit for a log line or stderr: the driver's reason and the statement, never its
 * parameters (values from a request: an email, a sealed secret, a token's hash), which drizzle's message carries. */
const queryReason = (e: DrizzleQueryError): string => `${e.cause?.message ?? 'the query failed'} (in: ${e.query.replace(/\s+/g, ' ').slice(0, 200)})`;

/** `e` and the errors it was caused by, outermost first, as far as they are errors (drizzle wraps a driver's error
 * in one of its own, and the store wraps that again): a few levels, never a cycle. */
export function causesOf(e: unknown): Error[] {
  const out: Error[] = [];
  for (let c = e; c instanceof Error && out.length < 5; c = c.cause) out.push(c);
  return out;
}

/** The messages of an error and its causes, outermost first (the driver's reason is the innermost), each query
 * error by its reason and statement without its parameters. */
export function reasonOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const out: string[] = [];
  for (const c of causesOf(e)) {
    if (c instanceof DrizzleQueryError) {
      out.push(queryReason(c));
      break;
    }
    out.push(c.message);
  }
  return out.join(': ');
}

/** The message of `e` itself, a query error's without its parameters. */
export const messageOf = (e: unknown): string =>
  (e instanceof DrizzleQueryError ? queryReason(e) : e instanceof Error ? e.message : String(e));

/** The stack frames of `e` without its message, which may hold a failed query's parameters. */
export const framesOf = (e: unknown): string | undefined =>
  e instanceof Error ? e.stack?.split('\n').filter((l) => l.trimStart().startsWith('at ')).join('\n') : undefined;
