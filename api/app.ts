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
import { AppError } from '../lib/errors';
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
  app.proxy = false;
  // Koa's own error event would print stack traces to stderr; our error edge already logged what matters.
  app.silent = true;

  const requestLine = requestLineWriter(log);
  /** The request's id (the client's X-Request-Id when well-formed), set on the answer; its line is logged and
   * measured once the answer is out (or the connection gone), as pino-http does: the line's write and the
   * histogram then delay no answer, and the time covers sending it. */
  const begin = (req: IncomingMessage, res: ServerResponse, operation: () => string | undefined): string => {
    const started = process.hrtime.bigint();
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const op = operation() ?? 'none';
      const status = res.statusCode;
      duration.observe({ operation: op, status: String(status) }, seconds);
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      requestLine({
        reqId: id, method: req.method ?? 'GET', path: q === -1 ? url : url.slice(0, q), operation: op, status, ms: Math.round(seconds * 1e4) / 10,
        ...(!res.writableFinished && { aborted: true }),
      });
    });
    return id;
  };
  app.use(async (ctx, next) => {
    ctx.state.reqId = begin(ctx.req, ctx.res, () => undefined);
    await next();
  });
  app.use(errors());
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
  app.context.log = log;
  app.use(router.routes());
  // Sets 405 with an Allow header (or 501); the error edge then writes the body.
  app.use(router.allowedMethods());
  const rest = app.callback();

  // Bodies are parsed inside each operation, after authentication and the role check: a stranger's
  // oversized or malformed body gets 401, never a parse error.
  const dispatch = compileOps(ops, deps, readJsonBody);
  const serve = async (found: OpMatch, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let operationId: string | undefined;
    const ex = new Exchange(req, res, begin(req, res, () => operationId), log);
    try {
      if (found.kind === 'op') {
        operationId = found.operationId;
        await found.run(ex);
      } else {
        ex.set({ Allow: found.allow });
        if (found.status === 405) throw new AppError(405, 'method_not_allowed', `allowed: ${found.allow}`);
        if (found.status === 501) throw new AppError(501, 'not_implemented', 'method not implemented');
        ex.status = 200;
        ex.body = '';
      }
    } catch (e) {
      answerError(ex, e);
    }
    ex.send();
  };
  const handler: RequestListener = (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const found = dispatch.match(req.method ?? 'GET', q === -1 ? url : url.slice(0, q));
    if (found) void serve(found, req, res);
    else void rest(req, res);
  };
  return { handler, registry };
}
