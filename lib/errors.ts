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
