/** The public API: Koa with request ids, logs, metrics, one error edge, JSON bodies up to 1 MiB, and the
 * operations of every group. */
import Router from '@koa/router';
import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import client from 'prom-client';
import type { Logger } from '../lib/log';
import { accessOps } from './access';
import { auditOps } from './audit';
import { authOps } from './auth';
import { readJsonBody } from './body';
import { dnsOps } from './dns';
import { domainOps } from './domains';
import { errors } from './errors';
import { hostnameOps } from './hostnames';
import { nodeOps } from './nodes';
import { openApiDocument } from './openapi';
import { mount, type AnyOp, type Deps } from './ops';
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

/** Slashes of a request path or a route's template, a trailing one not counted. */
function depth(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length - 1; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

/** A template of plain segments and whole-segment parameters: it matches paths of its own depth alone. */
const PLAIN_TEMPLATE = /^(?:\/(?:[\w.-]+|:\w+))+$/;

/**
 * @koa/router tests every route's regexp on every request, about 110 of them. A route of plain segments and
 * whole-segment parameters matches only paths of its own depth (a parameter never spans a `/`; one trailing `/`
 * is optional), so the router's own match runs on the routes of the request's depth (and any other kind of
 * route) alone, in the router's order: the same answer, a few tests instead of all.
 */
function matchByDepth(router: Router): void {
  const match = router.match.bind(router);
  const stack = router.stack;
  // Built once: every route is mounted before this runs.
  const always = new Set(stack.filter((l) => typeof l.path !== 'string' || !PLAIN_TEMPLATE.test(l.path)));
  const byDepth = new Map<number, typeof stack>();
  for (const l of stack) {
    if (always.has(l)) continue;
    const d = depth(l.path as string);
    if (!byDepth.has(d)) byDepth.set(d, stack.filter((x) => always.has(x) || depth(x.path as string) === d));
  }
  const otherwise = [...always];
  router.match = (path: string, method: string) => {
    const layers = byDepth.get(depth(path)) ?? otherwise;
    router.stack = layers;
    try {
      return match(path, method);
    } finally {
      router.stack = stack;
    }
  };
}

export interface App {
  koa: Koa;
  registry: client.Registry;
}

/** `registry` may be shared with the reconcilers of the same process (`serve`), so that /metrics shows both;
 * it is served on its own listener (--metrics-listen), never on the public port. */
export function createApp(deps: Deps, log: Logger, registry = new client.Registry()): App {
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

  // The request line's fields are fixed scalars (never a header, a body or a token), so none of REDACT's paths
  // can match it: redaction, about 10 us a line, is skipped for it alone. Built once: a child per request costs more.
  const requestLog = log.child({}, { redact: { paths: [] } });
  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    const given = ctx.get('x-request-id');
    const id = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', id);
    ctx.state.reqId = id;
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const operation = (ctx.state.operationId as string | undefined) ?? 'none';
      duration.observe({ operation, status: String(ctx.status) }, seconds);
      // One flat line per request; a child logger per request cost more than the line itself.
      requestLog.info({ reqId: id, method: ctx.method, path: ctx.path, operation, status: ctx.status, ms: Math.round(seconds * 1e4) / 10 }, 'request');
    }
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
  // Bodies are parsed inside each operation, after authentication and the role check: a stranger's
  // oversized or malformed body gets 401, never a parse error.
  mount(router, allOps, deps, readJsonBody);
  matchByDepth(router);
  app.context.log = log;
  app.use(router.routes());
  // Sets 405 with an Allow header (or 501); the error edge then writes the body.
  app.use(router.allowedMethods());
  return { koa: app, registry };
}
