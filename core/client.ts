/** The Core port over HTTP, for `hostplane api --core-url URL`: a separate `core` process serves it. */
import { AppError } from '../lib/errors';
import type { Core, DnsInfo } from './port';

export function httpCore(baseUrl: string, token: string): Core {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(new URL(path, baseUrl), {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      throw new AppError(503, 'core_unavailable', 'the core component does not answer');
    }
    if (!res.ok) throw new AppError(503, 'core_unavailable', `the core component answered ${res.status}`);
    return (await res.json()) as T;
  };
  return {
    seal: async (context, plaintext) => (await call<{ sealed: string }>('POST', '/internal/seal', { context, plaintext })).sealed,
    dns: () => call<DnsInfo>('GET', '/internal/dns'),
    nudge: (kind, key) => {
      call('POST', '/internal/nudge', { kind, key }).catch(() => undefined);
    },
  };
}
