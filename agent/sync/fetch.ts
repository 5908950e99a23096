/**
 * A `fetch` over node:http and node:https for the node agent's typed client: keep-alive connections (a long-poll
 * every 30 s should not pay a TLS handshake each time) and, for an https control plane behind a private CA, that
 * CA trusted besides the system's (`--ca`), which the global fetch cannot be given without a dependency.
 * It implements what client/index.ts uses: method, headers, a string body, an abort signal; redirects are not
 * followed.
 */
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { rootCertificates } from 'node:tls';

export interface NodeFetchOptions {
  /** PEM certificates to trust besides the system's roots. */
  ca?: string;
}

/** The largest answer read, in bytes: twice the control plane's bound of a bundle (store/nodes.ts
 * MAX_BUNDLE_BYTES, 8 MiB), so any bundle it builds fits with room. An answer read whole and then parsed costs
 * the agent a few times its size in memory; past this it is not one the control plane made (a broken or
 * impersonated one), and the request fails as an unreachable control plane would: the node keeps its bundle. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** Statuses whose answers have no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

export interface NodeFetch {
  fetch: typeof fetch;
  /** Closes the kept-alive connections. */
  close(): void;
}

export function nodeFetch(opts: NodeFetchOptions = {}): NodeFetch {
  const http = new HttpAgent({ keepAlive: true, maxSockets: 8 });
  const https = new HttpsAgent({ keepAlive: true, maxSockets: 8, ...(opts.ca ? { ca: [...rootCertificates, opts.ca] } : {}) });
  const doFetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new TypeError(`unsupported protocol ${url.protocol}`));
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => { headers[k] = v; });
    const body = init.body === undefined || init.body === null ? undefined : String(init.body);
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const signal = init.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(url, { method: init.method ?? 'GET', headers, agent: url.protocol === 'https:' ? https : http, signal }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let read = 0;
        res.on('data', (c: Buffer) => {
          read += c.length;
          if (read > MAX_ANSWER_BYTES) {
            req.destroy();
            reject(new Error(`the answer passes ${MAX_ANSWER_BYTES} bytes: not read`));
            return;
          }
          chunks.push(c);
        });
        res.once('error', reject);
        res.once('end', () => {
          const status = res.statusCode ?? 500;
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v === undefined) continue;
            for (const item of Array.isArray(v) ? v : [v]) h.append(k, item);
          }
          resolve(new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage ?? '', headers: h }));
        });
      });
      req.once('error', reject);
      req.end(body);
    });
  };
  return {
    fetch: doFetch as typeof fetch,
    close: () => {
      http.destroy();
      https.destroy();
    },
  };
}
