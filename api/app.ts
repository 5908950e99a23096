/** The public API: one Koa application with request ids, request lines, metrics, one error edge (api/errors.ts),
 * JSON bodies up to 1 MiB, and on its router the operations of every group (api/ops.ts `mountOps`), / (where to go
 * next), /healthz, /openapi.json and /docs, and the web console under /console (console/routes.ts). */
import Router from '@koa/router';
import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import client from 'prom-client';
import { consoleErrorPage } from './console/kit';
import { mountConsole, type ConsoleOptions } from './console/routes';
import { badRequest } from '../lib/errors';
import { requestLineWriter, type Logger } from '../lib/log';
import { accessOps } from './access';
import { auditOps } from './audit';
import { authOps } from './auth';
import { readJsonBody } from './body';
import { dnsOps } from './dns';
import { zoneChangeOps } from './zone-changes';
import { zoneFileOps } from './zone-files';
import { domainOps } from './domains';
import { errors } from './errors';
import { hostnameOps } from './hostnames';
import { nodeOps } from './nodes';
import { openApiDocument } from './openapi';
import { literalsFirst, mountOps, type AnyOp, type Deps } from './ops';
import { projectOps } from './projects';
import { secretOps } from './secrets';
import { storageOps } from './storage';

/** Every operation of the public API, in the order of the spec's groups. */
export const allOps: AnyOp[] = [...dnsOps, ...zoneChangeOps, ...zoneFileOps, ...authOps, ...domainOps, ...accessOps, ...hostnameOps, ...storageOps, ...secretOps, ...projectOps, ...auditOps, ...nodeOps];

/** The OpenAPI document of the operations, as GET /openapi.json serves it (scripts/client-schema.ts makes the
 * typed client from it). */
export const apiDocument = (): Record<string, unknown> => openApiDocument(allOps, { title: 'hostplane control API', version: '1' });

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** How long a streamed answer may wait for its client to take any of it (ApiConfig.stalledAnswerMs). */
const STALLED_ANSWER_MS = 30_000;

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
  /** The request listener of the Koa application. */
  handler: RequestListener;
  registry: client.Registry;
}

/** `registry` may be shared with the reconcilers of the same process (`serve`), so that /metrics shows both;
 * it is served on its own listener (--metrics-listen), never on the public port. `ops`: the operations served
 * (tests serve operations of their own). */
export function createApp(deps: Deps, log: Logger, registry = new client.Registry(), ops: AnyOp[] = allOps, consoleOptions?: ConsoleOptions): App {
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
  if (deps.config.trustProxy) {
    app.proxy = true;
    // The proxy appends the address it saw to X-Forwarded-For: the entries before it are the client's to write.
    app.maxIpsCount = 1;
  }

  const requestLine = requestLineWriter(log);
  /** The request's id (the client's X-Request-Id when well-formed), set on the answer; its line is logged and
   * measured once the answer is out (or the connection gone), as pino-http does: the line's write and the
   * histogram then delay no answer, and the time covers sending it. */
  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    const given = ctx.get('x-request-id');
    const id = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', id);
    ctx.state.reqId = id;
    let path = ctx.url;
    try {
      path = ctx.path;
    } catch {
      // A target the URL parser refuses (`http://[::1/x`) is logged as sent, and answered 400 below the error edge.
    }
    const { res } = ctx;
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const operation = (ctx.state.operationId as string | undefined) ?? 'none';
      // The client went away before the answer was out (it may not even be decided yet): 499, as nginx logs it.
      const status = res.writableFinished ? res.statusCode : 499;
      duration.observe({ operation, status: String(status) }, seconds);
      requestLine({
        reqId: id, method: ctx.method, path, operation, status, ms: Math.round(seconds * 1e4) / 10,
        ...(status === 499 && { aborted: true }),
      });
    });
    await next();
    // The socket's idle timer runs while writes are pending; a streamed answer is its longest write. At its expiry Node
    // starts it once more if the pending write moved since the last: the answer ends 1 to 2 times `ms` after the
    // client last took some of it.
    if (ctx.body instanceof Readable) {
      const ms = deps.config.stalledAnswerMs ?? STALLED_ANSWER_MS;
      res.setTimeout(ms, () => {
        log.warn({ reqId: id, operation: ctx.state.operationId as string | undefined, ms }, 'the client took nothing of a streamed answer for a while: connection closed');
        res.destroy();
      });
    }
  });
  app.use(errors(log, consoleErrorPage));
  app.use(async (ctx, next) => {
    try {
      void ctx.path;
    } catch {
      throw badRequest('the request target is not a valid URL');
    }
    await next();
  });
  const router = new Router();
  // Where a person or a client who opened the server's address goes next.
  router.get('/', (ctx) => {
    ctx.body = { service: 'hostplane', api: '/v1', console: '/console', docs: '/docs', openapi: '/openapi.json', health: '/healthz' };
  });
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
  // Bodies are parsed inside each operation, after authentication and the role check: a stranger's
  // oversized or malformed body gets 401, never a parse error.
  mountOps(router, ops, deps, readJsonBody);
  mountConsole(router, deps, registry, consoleOptions);
  app.use(router.routes());
  // Sets 405 with an Allow header, 200 with it for OPTIONS, or 501; the error edge then writes the body.
  app.use(router.allowedMethods());
  app.use(literalsFirst);
  return { handler: app.callback(), registry };
}
