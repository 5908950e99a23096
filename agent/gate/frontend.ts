/**
 * The node's HTTP front end: routes each request by its `Host` to the current worker of the project that holds
 * the hostname, over a keep-alive connection to the worker's Unix socket (agent/workers/worker-process.ts). Errors are the API's JSON error body
 * (`{"code", "message", "requestId"}`, with `X-Request-Id`): a host no project placed here routes → 404
 * `unknown_hostname`; a project whose worker is not running (yet) → 503 `worker_unavailable` with
 * `Retry-After`; a worker that fails mid-request → 502 `bad_gateway`.
 *
 * Which host a request is for (RFC 9112 3.2): a request with two `Host` headers is 400 `bad_request`; a request
 * whose target is in absolute form (`GET http://shop.test/path`) is for the target's authority, whatever its
 * `Host` says (3.2.2: Host is then ignored), and reaches the worker in origin form (`/path`) with `Host` set to
 * that authority. An absolute target that is not an http(s) URL with a host is 400 too, and so is an authority
 * that is not a name or bracketed IP literal with at most a `:port` of digits after it (`[a.test]evil.test`,
 * `a.test:`, `a.test:x`). The worker gets the authority normalized (lower case, no trailing dot, the port kept), never
 * the raw header, as `Host` and `X-Forwarded-Host`.
 *
 * A request's body reaches the worker framed as it came (chunked stays chunked, on every method), so the worker
 * receives exactly the requests the front end routed, never one smuggled in a body.
 *
 * A request for a known host goes to the access gate first (agent/gate/access-gate.ts), then to the node's services
 * (`/__service/...`, agent/gate/services.ts), and only then to the worker; the gate answers before a 503 too, so
 * that a protected project says nothing about its worker to whoever it does not admit.
 */
import { randomUUID } from 'node:crypto';
import { request, type IncomingMessage, type OutgoingHttpHeaders, type RequestListener, type ServerResponse } from 'node:http';
import type { ServiceHandler } from './services';
import type { Route } from '../workers/supervisor';

/** Hop-by-hop headers (RFC 9110 7.6.1): they describe one connection, not the message, and are not forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);

/** A request's authority: `host`, what routes it (lower case, without port, brackets or trailing dot), and
 * `authority`, the same with the port it had (`Example.COM.:8080` → `example.com` and `example.com:8080`;
 * `[::1]:80` → `::1` and `[::1]:80`). An empty one is `''` (routes nowhere); null when it is not an authority: a
 * bracket that is not an IP literal or has anything but `:port` after it, a port that is not 1 to 5 digits
 * (`a.test:` too), a second `:` outside brackets, no name. */
export function authorityOf(header: string | undefined): { host: string; authority: string } | null {
  const h = (header ?? '').trim().toLowerCase();
  if (h === '') return { host: '', authority: '' };
  let name: string;
  let port: string;
  let bracketed = false;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    if (end < 0) return null;
    name = h.slice(1, end);
    port = h.slice(end + 1);
    bracketed = true;
    if (!/^[0-9a-f:.]+$/.test(name) || !name.includes(':')) return null;
  } else {
    const colon = h.indexOf(':');
    if (colon >= 0 && h.indexOf(':', colon + 1) >= 0) return null;
    name = colon < 0 ? h : h.slice(0, colon);
    port = colon < 0 ? '' : h.slice(colon);
    name = name.replace(/\.$/, '');
  }
  if (port !== '' && !/^:\d{1,5}$/.test(port)) return null;
  if (name === '' || /[\s\[\]]/.test(name)) return null;
  return { host: name, authority: `${bracketed ? `[${name}]` : name}${port}` };
}

/** `Example.COM:8080` → `example.com`; `[::1]:80` → `::1`; a trailing dot dropped; `''` for what is not an
 * authority (authorityOf), so that it routes nowhere. */
export function hostOf(header: string | undefined): string {
  return authorityOf(header)?.host ?? '';
}

const BAD_AUTHORITY = 'the request\'s host is a name or a bracketed IP address, with at most a :port of digits after it';

/** Answers with the API's JSON error body. */
export function sendError(res: ServerResponse, requestId: string, status: number, code: string, message: string, extra: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, 'cache-control': 'no-store', ...extra });
  res.end(JSON.stringify({ code, message, requestId }));
}

/** The authority and origin-form target a request is for, or why it is a bad request. */
export function targetOf(req: Pick<IncomingMessage, 'url' | 'headers' | 'rawHeaders'>): { host: string; path: string } | { bad: string } {
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return { bad: 'a request has one Host header' };
  const target = req.url ?? '/';
  if (target.startsWith('/') || target === '*') return { host: req.headers.host ?? '', path: target };
  // Absolute form: its authority wins over Host (RFC 9112 3.2.2).
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return { bad: 'the request target is neither a path nor an absolute URL' };
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.host === '' || !/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    return { bad: 'an absolute request target is an http or https URL with a host' };
  }
  return { host: u.host, path: `${u.pathname || '/'}${u.search}` };
}

/** `authority`: the request's, normalized (authorityOf), never the raw Host. */
function forwardedHeaders(req: IncomingMessage, requestId: string, authority: string): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  const listed = new Set((req.headers.connection ?? '').split(',').map((s) => s.trim().toLowerCase()));
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && !listed.has(k)) out[k] = v;
  const addr = req.socket.remoteAddress ?? '';
  out['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${addr}` : addr;
  out['x-forwarded-proto'] = 'encrypted' in req.socket ? 'https' : 'http';
  // The authority the request is for: an absolute-form target's, which replaces Host (RFC 9112 3.2.2).
  out.host = authority;
  out['x-forwarded-host'] = authority;
  out['x-request-id'] = requestId;
  // A chunked body is forwarded chunked, whatever the method: node:http frames none of a GET, HEAD, DELETE or
  // OPTIONS by itself, and its bytes would reach the worker as requests of their own, with a Host,
  // X-Forwarded-For and X-Request-Id the front end never saw. (A Content-Length body keeps its header.)
  if (req.headers['transfer-encoding'] !== undefined) out['transfer-encoding'] = 'chunked';
  return out;
}

export interface FrontendOptions {
  /** Decides every request for a known host first: answers (true) what it refuses and its own paths. */
  gate: ServiceHandler;
  /** The node's services, for what the gate lets through. */
  services?: ServiceHandler;
}

/** One year, this host only: a project's other names may not have certificates here. */
export const HSTS = 'max-age=31536000';

const requestIdOf = (req: IncomingMessage): string => {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,200}$/.test(given) ? given : randomUUID();
};

/** The front end's request handler over `route` (Supervisor.route). */
export function frontend(route: (host: string) => Route, o: FrontendOptions): RequestListener {
  return (req, res) => {
    const requestId = requestIdOf(req);
    const target = targetOf(req);
    if ('bad' in target) {
      req.resume();
      return sendError(res, requestId, 400, 'bad_request', target.bad, { connection: 'close' });
    }
    const a = authorityOf(target.host);
    if (!a) {
      req.resume();
      return sendError(res, requestId, 400, 'bad_request', BAD_AUTHORITY, { connection: 'close' });
    }
    const host = a.host;
    const r = route(host);
    if (r.kind === 'unknown') {
      req.resume();
      return sendError(res, requestId, 404, 'unknown_hostname', 'no project on this node serves this hostname');
    }
    const ctx = { project: r.project, host, path: target.path, requestId };
    // A browser that reached a host here over HTTPS keeps to HTTPS (a worker's own header replaces this one).
    if ('encrypted' in req.socket) res.setHeader('strict-transport-security', HSTS);
    if (o.gate(req, res, ctx) || o.services?.(req, res, ctx)) {
      if (r.kind === 'worker') r.release();
      return;
    }
    if (r.kind === 'unavailable') {
      req.resume();
      return sendError(res, requestId, 503, 'worker_unavailable', 'the project\'s worker is not running; retry shortly', { 'retry-after': '1' });
    }
    const upstream = request({
      socketPath: r.worker.socketPath, method: req.method, path: target.path, headers: forwardedHeaders(req, requestId, a.authority), agent: r.worker.agent,
    }, (up) => {
      const headers: OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) headers[k] = v;
      res.writeHead(up.statusCode ?? 502, up.statusMessage, headers);
      up.pipe(res);
      up.once('error', () => res.destroy());
    });
    upstream.once('error', () => {
      r.release();
      sendError(res, requestId, 502, 'bad_gateway', 'the project\'s worker did not answer');
    });
    res.once('close', () => {
      r.release();
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };
}

/**
 * The plain HTTP listener beside an HTTPS front end: a request for a host a project here serves is sent (308,
 * method and body kept) to the same host and target over HTTPS on `httpsPort`; anything else is answered as the
 * front end would (400, 404), so the listener redirects to nobody else's site.
 */
export function httpsRedirect(route: (host: string) => Route, httpsPort: number): RequestListener {
  return (req, res) => {
    req.resume();
    const requestId = requestIdOf(req);
    const target = targetOf(req);
    if ('bad' in target) return sendError(res, requestId, 400, 'bad_request', target.bad, { connection: 'close' });
    const a = authorityOf(target.host);
    if (!a) return sendError(res, requestId, 400, 'bad_request', BAD_AUTHORITY, { connection: 'close' });
    const host = a.host;
    const r = route(host);
    if (r.kind === 'worker') r.release();
    if (r.kind === 'unknown') return sendError(res, requestId, 404, 'unknown_hostname', 'no project on this node serves this hostname');
    // The secret crossed the network in clear already: a redirect would have the client send it again, and
    // automation that is never told keeps using an exposed secret.
    if (req.headers['service-access-bypass'] !== undefined) {
      return sendError(res, requestId, 400, 'https_required', 'Service-Access-Bypass was sent over plain HTTP: send it over HTTPS only, and make a new secret (newAccessBypass), since this one was exposed');
    }
    const path = target.path.startsWith('/') ? target.path : '/';
    res.writeHead(308, { location: `https://${host}${httpsPort === 443 ? '' : `:${httpsPort}`}${path}`, 'content-length': '0', 'x-request-id': requestId });
    res.end();
  };
}
