/** The public API: the operations on their own dispatcher (api/ops.ts `compileOps`, api/exchange.ts) and Koa for
 * /healthz, /openapi.json and /docs, with request ids, logs, metrics and one error answer (api/errors.ts) for both;
 * JSON bodies up to 1 MiB. */
import Router from '@koa/router';
import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import client from 'prom-client';
import { requestLineWriter, type Logger } from '../lib/log';
import { accessOps } from './access';
import { auditOps } from './audit';
import { authOps } from './auth';
import { readJsonBody } from './body';
import { dnsOps } from './dns';
import { domainOps } from './domains';
import { answerError, errors } from './errors';
import { Exchange } from './exchange';
import { hostnameOps } from './hostnames';
import { nodeOps } from './nodes';
import { openApiDocument } from './openapi';
import { compileOps, type AnyOp, type Deps, type OpMatch } from './ops';
import { projectOps } from './projects';
import { secretOps } from './secrets';
import { storageOps } from './storage';

/** Every operation of the public API, in the order of the spec's groups. */
export const allOps: AnyOp[] = [...dnsOps, ...authOps, ...domainOps, ...accessOps, ...hostnameOps, ...storageOps, ...secretOps, ...projectOps, ...auditOps, ...nodeOps];

/** The OpenAPI document of the operations, as GET /openapi.json serves it (scripts/client-schema.ts makes the
 * typed client from it). */
export const apiDocument = (): Record<string, unknown> => openApiDocument(allOps, { title: 'hostplane control API', version: '1' });

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** A request target's path and query, as Koa's parseurl reads them: the absolute form
 * (`GET http://host/v1/...`, RFC 9112 3.2.2) by its path, and a `#` and what follows it dropped. */
export function requestTarget(url: string): { path: string; querystring: string } {
  // Scheme and authority cut off, the rest kept as sent: a URL parser would also resolve `..` and `\`, which a
  // target in origin form never gets (a proxy's path filter must see what the API matches).
  let target = url.replace(/^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i, '');
  if (target === '') target = '/';
  const hash = target.indexOf('#');
  if (hash !== -1) target = target.slice(0, hash);
  const q = target.indexOf('?');
  return q === -1 ? { path: target, querystring: '' } : { path: target.slice(0, q), querystring: target.slice(q + 1) };
}

/** /docs: Swagger UI from its npm package, served by this API itself: the page loads nothing from elsewhere. */
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const DOCS_ASSETS: Record<string, string> = { 'swagger-ui.css': 'text/css; charset=utf-8', 'swagger-ui-bundle.js': 'text/javascript; charset=utf-8' };
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>hostplane control API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;
// `validatorUrl: null`: Swagger UI would otherwise send the document to validator.swagger.io for a badge.
const DOCS_INIT = 'window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true, validatorUrl: null });\n';
// The page's own policy: scripts, styles and fetches from this origin only (Swagger UI sets inline styles).
const DOCS_POLICY = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
  + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface App {
  /** The request listener: the operations on their own dispatcher (api/ops.ts `compileOps`), the rest
   * (/healthz, /openapi.json, /docs, unknown routes) on Koa. */
  handler: RequestListener;
  registry: client.Registry;
}

/** `registry` may be shared with the reconcilers of the same process (`serve`), so that /metrics shows both;
 * it is served on its own listener (--metrics-listen), never on the public port. `ops`: the operations served
 * (tests serve operations of their own). */
export function createApp(deps: Deps, log: Logger, registry = new client.Registry(), ops: AnyOp[] = allOps): App {
  client.collectDefaultMetrics({ register: registry });
  const duration = new client.Histogram({
    name: 'hostplane_http_request_duration_seconds',
    help: 'API request duration by operation and status',
    labelNames: ['operation', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
    registers: [registry],
  });

  const spec = apiDocument();
  const app = new Koa();
  // Koa's own error event would print stack traces to stderr; our error edge already logged what matters.
  app.silent = true;

  const requestLine = requestLineWriter(log);
  /** The request's id (the client's X-Request-Id when well-formed), set on the answer; its line is logged and
   * measured once the answer is out (or the connection gone), as pino-http does: the line's write and the
   * histogram then delay no answer, and the time covers sending it. */
  const begin = (req: IncomingMessage, res: ServerResponse, path: string, operation = 'none'): string => {
    const started = process.hrtime.bigint();
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The client went away before the answer was out (it may not even be decided yet): 499, as nginx logs it.
      const status = res.writableFinished ? res.statusCode : 499;
      duration.observe({ operation, status: String(status) }, seconds);
      requestLine({
        reqId: id, method: req.method ?? 'GET', path, operation, status, ms: Math.round(seconds * 1e4) / 10,
        ...(status === 499 && { aborted: true }),
      });
    });
    return id;
  };
  app.use(async (ctx, next) => {
    // Not ctx.path: Koa's URL parser throws on some targets (`http://[::1/x`), which the error edge then never sees.
    ctx.state.reqId = begin(ctx.req, ctx.res, requestTarget(ctx.url).path);
    await next();
  });
  app.use(errors(log));
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { ok: true };
  });
  router.get('/openapi.json', (ctx) => {
    ctx.body = spec;
  });
  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', DOCS_POLICY);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = DOCS_PAGE;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = DOCS_INIT;
  });
  for (const [file, type] of Object.entries(DOCS_ASSETS)) {
    router.get(`/docs/${file}`, (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.type = type;
      ctx.body = createReadStream(join(SWAGGER_UI, file));
    });
  }
  app.use(router.routes());
  // Sets 405 with an Allow header (or 501); the error edge then writes the body.
  app.use(router.allowedMethods());
  const rest = app.callback();

  // Bodies are parsed inside each operation, after authentication and the role check: a stranger's
  // oversized or malformed body gets 401, never a parse error.
  const dispatch = compileOps(ops, deps, readJsonBody);
  const serve = async (found: OpMatch, ex: Exchange): Promise<void> => {
    try {
      await found.run(ex);
    } catch (e) {
      answerError(ex, e, log);
    }
    try {
      ex.send();
    } catch (e) {
      // An answer that cannot be written (a body JSON cannot hold) is this request's 500, never the process's end,
      // and without the headers the handler meant for its answer (a cache must not keep the 500 by them).
      for (const h of ex.res.getHeaderNames()) if (h !== 'x-request-id') ex.res.removeHeader(h);
      ex.type = undefined;
      answerError(ex, e, log);
      try {
        ex.send();
      } catch {
        ex.res.destroy();
      }
    }
  };
  const handler: RequestListener = (req, res) => {
    const { path, querystring } = requestTarget(req.url ?? '/');
    const found = dispatch.match(req.method ?? 'GET', path);
    if (!found) {
      void rest(req, res);
      return;
    }
    void serve(found, new Exchange(req, res, path, querystring, begin(req, res, path, found.operationId), log));
  };
  return { handler, registry };
}
