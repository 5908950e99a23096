/** The Core port over HTTP, for `hostplane api --core-url URL`: a separate `core` process serves it
 * (`core/server.ts`); the wire is `core/routes.ts`. */
import { randomUUID } from 'node:crypto';
import { AppError } from '../lib/errors';
import type { Core } from './port';
import { CORE_ROUTES, CoreErrorBody, ERROR_HEADER, REQUEST_KEY_HEADER, type CoreRoute } from './routes';

export interface HttpCoreOptions {
  /** Per attempt, from sending the call to the end of its answer. */
  timeoutMs?: number;
}

const CORE_TIMEOUT_MS = 10_000;
/** Attempts after the first one that failed in transport (no answer, a reset, a timeout). */
const RETRIES = 1;

/** How long a caller told `core_unavailable` waits before it sends again: a core restarts, and a leader is elected
 * (core/replicas.ts), within seconds. */
const RETRY_AFTER_S = 1;

/** 503 `core_unavailable` with the Retry-After the API's error answer sends on (api/errors.ts). */
export const coreUnavailable = (message: string): AppError =>
  Object.assign(new AppError(503, 'core_unavailable', message), { headers: { 'Retry-After': String(RETRY_AFTER_S) } });

const unavailable = (why: string): AppError => coreUnavailable(`the core component ${why}`);

/**
 * Errors a port method threw in the core are thrown here as they were (status, code, message, details). A call
 * that gets no answer is retried once with the same request key, which the core answers without acting again;
 * after that, and for anything that is not an answer of the core (another status without its error mark, a
 * body that is not JSON or not of the call's shape), the call is 503 `core_unavailable`.
 */
export function httpCore(baseUrl: string, token: string, opts: HttpCoreOptions = {}): Core {
  const timeoutMs = opts.timeoutMs ?? CORE_TIMEOUT_MS;

  const attempt = async (method: string, body: string, key: string): Promise<{ res: Response; text: string }> => {
    const res = await fetch(new URL(`/internal/${method}`, baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', [REQUEST_KEY_HEADER]: key },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { res, text: await res.text() };
  };

  const call = async (method: keyof Core, route: CoreRoute<keyof Core>, args: unknown[]): Promise<unknown> => {
    const key = randomUUID();
    const body = JSON.stringify((route.encode as (...a: unknown[]) => unknown)(...args));
    let answer: { res: Response; text: string } | undefined;
    for (let tries = 0; !answer; tries += 1) {
      try {
        answer = await attempt(method, body, key);
      } catch {
        if (tries >= RETRIES) throw unavailable('does not answer');
      }
    }
    const { res, text } = answer;
    const operationError = !res.ok && res.headers.get(ERROR_HEADER) === 'operation';
    if (!res.ok && !operationError) throw unavailable(`refused the call (${res.status})`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw unavailable('answered something that is not JSON');
    }
    if (operationError) {
      const e = CoreErrorBody.safeParse(json);
      if (!e.success) throw unavailable(`answered ${res.status} without an error body`);
      // A core that is a follower whose leader is away says so (core/replicas.ts): its Retry-After does not cross the wire.
      if (e.data.status === 503 && e.data.code === 'core_unavailable') throw coreUnavailable(e.data.message);
      throw new AppError(e.data.status, e.data.code, e.data.message, e.data.details);
    }
    const result = route.result.safeParse((json as { result?: unknown } | null)?.result);
    if (!result.success) throw unavailable(`answered ${method} with something else than its result`);
    return result.data;
  };

  const port = Object.fromEntries(Object.entries(CORE_ROUTES).map(([name, route]) => {
    const method = name as keyof Core;
    const r = route as CoreRoute<keyof Core>;
    const fn = r.oneWay
      ? (...args: unknown[]) => { call(method, r, args).catch(() => undefined); }
      : (...args: unknown[]) => call(method, r, args);
    return [method, fn];
  }));
  // CoreRoutes has a route for every method of the port, and each became the method of its name.
  return port as unknown as Core;
}
