/**
 * The one typed error of the service. Store, core and API code throw it; only `api/errors.ts` turns it into
 * an HTTP answer, so the status travels with the error instead of being decided in each handler.
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
}

export const notFound = (what: string): AppError => new AppError(404, 'not_found', `${what} not found`);
export const conflict = (code: string, message: string, details?: Record<string, unknown>): AppError =>
  new AppError(409, code, message, details);
export const badRequest = (message: string, details?: Record<string, unknown>, code = 'bad_request'): AppError =>
  new AppError(400, code, message, details);
