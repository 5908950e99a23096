/**
 * The node's HTTP front end: routes each request by its `Host` to the current worker of the project that holds
 * the hostname, over a keep-alive connection to the worker's loopback port. Errors are the API's JSON error body
 * (`{"code", "message", "requestId"}`, with `X-Request-Id`): a host no project placed here routes → 404
 * `unknown_hostname`; a project whose worker is not running (yet) → 503 `worker_unavailable` with
 * `Retry-After`; a worker that fails mid-request → 502 `bad_gateway`.
 */
import { randomUUID } from 'node:crypto';
import { request, type IncomingMessage, type OutgoingHttpHeaders, type RequestListener, type ServerResponse } from 'node:http';
import type { Route } from './supervisor';

/** Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection, not the message, and are not forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);

/** `Example.COM:8080` → `example.com`; `[::1]:80` → `::1`; a trailing dot dropped. */
export function hostOf(header: string | undefined): string {
  if (!header) return '';
  const h = header.trim().toLowerCase();
  const bare = h.startsWith('[') ? h.slice(1, h.indexOf(']')) : h.replace(/:\d*$/, '');
  return bare.replace(/\.$/, '');
}

function error(res: ServerResponse, requestId: string, status: number, code: string, message: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, 'cache-control': 'no-store', ...extra });
  res.end(JSON.stringify({ code, message, requestId }));
}

function forwardedHeaders(req: IncomingMessage, requestId: string): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const listed = new Set((req.headers.connection ?? '').split(',').map((s) => s.trim().toLowerCase()));
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && !listed.has(k)) out[k] = v;
  const addr = req.socket.remoteAddress ?? '';
  out['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${addr}` : addr;
  out['x-forwarded-proto'] = 'encrypted' in req.socket ? 'https' : 'http';
  out['x-forwarded-host'] = req.headers.host ?? '';
  out['x-request-id'] = requestId;
  return out;
}

/** The front end's request handler over `route` (Supervisor.route). */
export function frontend(route: (host: string) => Route): RequestListener {
  return (req, res) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && /^[\w.:-]{1,200}$/.test(given) ? given : randomUUID();
    const host = hostOf(req.headers.host);
    const r = route(host);
    if (r.kind === 'unknown') {
      req.resume();
      return error(res, requestId, 404, 'unknown_hostname', 'no project on this node serves this hostname');
    }
    if (r.kind === 'unavailable') {
      req.resume();
      return error(res, requestId, 503, 'worker_unavailable', 'the project\'s worker is not running; retry shortly', { 'retry-after': '1' });
    }
    const upstream = request({
      host: '127.0.0.1', port: r.worker.port, method: req.method, path: req.url, headers: forwardedHeaders(req, requestId), agent: r.worker.agent,
    }, (up) => {
      const headers: OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
      res.writeHead(up.statusCode ?? 502, up.statusMessage, headers);
      up.pipe(res);
      up.once('error', () => res.destroy());
    });
    upstream.once('error', () => {
      r.release();
      error(res, requestId, 502, 'bad_gateway', 'the project\'s worker did not answer');
    });
    res.once('close', () => {
      r.release();
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };
}
