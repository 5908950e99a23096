/** An HTTP proxy that notes when each request arrived, for a test to know which process called what, and when. */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival { at: number; method: string; path: string }

/** A proxy on loopback to `target`: a URL, or a function answering it at each request, for a target that listens only
 * after the proxy's own URL was handed out. */
export async function countingProxy(target: string | (() => string)) {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    arrivals.push({ at: Date.now(), method: req.method ?? '', path: req.url ?? '' });
    const upstream = request(new URL(req.url ?? '/', typeof target === 'string' ? target : target()), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
export type CountingProxy = Awaited<ReturnType<typeof countingProxy>>;
