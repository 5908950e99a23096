/**
 * One request and its answer, for the operations: the part of Koa's context they use (`get`, `set`, `status`,
 * `body`, `type`, `query`, `is`, ...), with the same meanings, and `send`, which writes the answer as Koa's
 * `respond` does (an object as JSON, no body on HEAD, 204 and 304). The operations run on it without Koa: the
 * context, delegates, compose and the router's layers cost more per request than a getProject's reads
 * (bench/api.ts, GET project: 84 us of server CPU an answer through Koa, 63-67 on this).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';
import type { Logger } from '../lib/log';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The media type of a Content-Type value, without parameters, lower case. */
const mediaType = (value: string): string => value.split(';', 1)[0]!.trim().toLowerCase();

export class Exchange {
  readonly method: string;
  readonly path: string;
  readonly querystring: string;
  /** The path's parameters, decoded (a parameter whose percent-encoding is broken stays as sent). */
  params: Record<string, string> = {};
  readonly state: { reqId: string; operationId?: string };
  status = 404;
  body: unknown = undefined;
  /** The answer's Content-Type; `application/json` for an object body when unset. */
  type: string | undefined;
  private parsedQuery: ParsedUrlQuery | undefined;

  constructor(readonly req: IncomingMessage, readonly res: ServerResponse, reqId: string, readonly log: Logger) {
    this.method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q === -1 ? url : url.slice(0, q);
    this.querystring = q === -1 ? '' : url.slice(q + 1);
    this.state = { reqId };
  }

  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }

  /** A request header, '' when absent (Koa's `ctx.get`). */
  get(name: string): string {
    const v = this.req.headers[name.toLowerCase()];
    return v === undefined ? '' : Array.isArray(v) ? v.join(', ') : v;
  }

  /** Sets answer headers: one, or each of an object's. */
  set(name: string | Record<string, string>, value?: string): void {
    if (typeof name === 'string') this.res.setHeader(name, value!);
    else for (const [k, v] of Object.entries(name)) this.res.setHeader(k, v);
  }

  /** The query string parsed as Koa's `ctx.query` is (a repeated name gives a list). */
  get query(): ParsedUrlQuery {
    this.parsedQuery ??= parseQuery(this.querystring);
    return this.parsedQuery;
  }

  /** The peer's address: this API trusts no forwarding header (Koa's `proxy = false`). */
  get ip(): string {
    return this.req.socket.remoteAddress ?? '';
  }

  /** The request body's declared length (Content-Length), undefined without one. */
  get length(): number | undefined {
    const v = this.req.headers['content-length'];
    return v === undefined || v === '' ? undefined : Number(v);
  }

  /** The request's charset parameter, '' without one. */
  get charset(): string {
    return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(this.req.headers['content-type'] ?? '')?.[1] ?? '';
  }

  /** Whether the request's Content-Type is `type` (parameters aside). */
  is(type: string): boolean {
    return mediaType(this.req.headers['content-type'] ?? '') === type;
  }

  /** Writes the answer, as Koa's `respond` would: no body for HEAD, 204 and 304; an object as JSON. */
  send(): void {
    const { res } = this;
    if (res.headersSent || res.destroyed) return;
    res.statusCode = this.status;
    let body = this.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !Buffer.isBuffer(body)) {
      body = JSON.stringify(body);
      this.type ??= 'application/json';
    }
    if (this.status === 204 || this.status === 304 || body === undefined || body === null) {
      res.removeHeader('Content-Type');
      res.removeHeader('Content-Length');
      res.end();
      return;
    }
    const text = body as string | Buffer;
    res.setHeader('Content-Type', this.type === 'application/json' ? JSON_TYPE : (this.type ?? 'text/plain; charset=utf-8'));
    res.setHeader('Content-Length', Buffer.byteLength(text));
    if (this.method === 'HEAD') res.end();
    else res.end(text);
  }
}
