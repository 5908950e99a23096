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

export class Exchange {
  readonly method: string;
  readonly state: { reqId: string };
  status = 404;
  body: unknown = undefined;
  /** The answer's Content-Type; `application/json` for an object body when unset. */
  type: string | undefined;
  private parsedQuery: ParsedUrlQuery | undefined;

  /** `path` and `querystring`: the request target's two parts, split once by the listener (api/app.ts). */
  constructor(
    readonly req: IncomingMessage, readonly res: ServerResponse, readonly path: string, readonly querystring: string, reqId: string, readonly log: Logger,
  ) {
    this.method = req.method ?? 'GET';
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

  /** The peer's address, never a forwarding header's: those are the client's to write (the rate limits count
   * by address). */
  get ip(): string {
    return this.req.socket.remoteAddress ?? '';
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
    if (this.status === 204 || this.status === 304) {
      res.removeHeader('Content-Type');
      res.removeHeader('Content-Length');
      res.end();
      return;
    }
    if (body === undefined || body === null) {
      res.setHeader('Content-Length', 0);
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
