/**
 * Declarative operations: one `defineOp` per operationId carries its path, minimum role, need of the core,
 * zod schemas and handler. The same list registers the Koa routes and generates the OpenAPI document, so
 * the two cannot drift apart.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { AppError } from '../lib/errors';
import type { Core } from '../core/port';
import { membership, principalByToken, roleAtLeast, type Org, type Principal, type Role } from '../store/accounts';
import type { Store } from '../store/db';
import type { Plans } from '../lib/plans';
import { fromZod } from './errors';

export interface ApiConfig {
  /** Default hostnames are `<project>.<appDomain>`. */
  appDomain: string;
  /** The plan table: project, zone and per-zone limits. */
  plans: Plans;
  /** Domains the service itself uses besides the app domain and the nameservers' (`--service-domains`). */
  serviceDomains: string[];
}

export interface Deps {
  store: Store;
  /** Null when the API runs without a core (`hostplane api` with no `--core-url`). */
  core: Core | null;
  config: ApiConfig;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnyObject = z.ZodObject<z.ZodRawShape>;

export interface ResponseSpec { description: string; schema?: z.ZodType }

export interface OpSpec<P extends AnyObject, Q extends AnyObject, B extends z.ZodType, C extends boolean> {
  operationId: string;
  tag: string;
  method: Method;
  /** OpenAPI form: `/v1/orgs/{orgSlug}/projects`. */
  path: string;
  summary: string;
  /** Minimum role in `{orgSlug}`; the path must then have an `orgSlug` parameter. Null: any signed-in user. */
  role: Role | null;
  needsCore: C;
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, ResponseSpec>;
  handler: (c: OpContext<z.output<P>, z.output<Q>, z.output<B>, C>) => Promise<Reply>;
}

export interface OpContext<P, Q, B, C extends boolean> {
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  /** `user:<email>`, the actor written to audit records. */
  actor: string;
  org: Org;
  role: Role;
  core: C extends true ? Core : Core | null;
  deps: Deps;
  koa: Context;
}

export interface Reply { status: number; body?: unknown; headers?: Record<string, string> }

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOp = OpSpec<any, any, any, any>;

export function defineOp<P extends AnyObject, Q extends AnyObject, B extends z.ZodType, const C extends boolean>(
  spec: OpSpec<P, Q, B, C>,
): OpSpec<P, Q, B, C> {
  return spec;
}

const bearer = (ctx: Context): string | undefined => {
  const h = ctx.get('authorization');
  return h.startsWith('Bearer ') ? h.slice(7).trim() : undefined;
};

/** Resolves the caller. 401 before anything else: no lookup of any resource happens for a stranger. */
async function authenticate(deps: Deps, ctx: Context): Promise<Principal> {
  const token = bearer(ctx);
  const principal = token ? await principalByToken(deps.store, token) : undefined;
  if (!principal) throw new AppError(401, 'unauthorized', 'a valid bearer token is required');
  return principal;
}

function parse<T extends z.ZodType>(schema: T | undefined, value: unknown, where: 'path' | 'query' | 'body'): z.output<T> {
  if (!schema) return undefined as z.output<T>;
  const r = schema.safeParse(value);
  if (!r.success) throw fromZod(r.error, where);
  return r.data;
}

const koaPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** Registers every operation on the router, wrapping its handler in authentication, the org and role check
 * (non-member reads as 404, a too-low role is 403, both before any lookup of the target), the core check
 * (503 `no_core`) and input validation. */
export function mount(router: Router, ops: AnyOp[], deps: Deps, parseBody: (ctx: Context) => Promise<unknown>): void {
  for (const op of ops) {
    router[op.method](op.operationId, koaPath(op.path), async (ctx: Context) => {
      ctx.state.operationId = op.operationId;
      const principal = await authenticate(deps, ctx);
      const slug = (ctx.params as Record<string, string>).orgSlug;
      let org: Org = { id: 0, slug: '', plan: '' };
      let role: Role = 'viewer';
      if (slug !== undefined) {
        const m = await membership(deps.store, slug, principal.userId);
        if (!m) throw new AppError(404, 'not_found', `organization ${slug} not found`);
        ({ org, role } = m);
        if (op.role && !roleAtLeast(role, op.role)) {
          throw new AppError(403, 'forbidden', `${op.operationId} needs the ${op.role} role or above`);
        }
      }
      if (op.needsCore && !deps.core) throw new AppError(503, 'no_core', 'this API runs without its core component');
      let body: unknown;
      if (op.body) {
        if (ctx.request.length && !ctx.is('application/json')) {
          throw new AppError(415, 'unsupported_media_type', 'request bodies must be application/json');
        }
        body = await parseBody(ctx);
      }
      const reply = await op.handler({
        params: parse(op.params, ctx.params, 'path'),
        query: parse(op.query, ctx.query, 'query'),
        body: parse(op.body, body ?? {}, 'body'),
        principal,
        actor: `user:${principal.email}`,
        org,
        role,
        core: deps.core,
        deps,
        koa: ctx,
      });
      ctx.status = reply.status;
      if (reply.headers) ctx.set(reply.headers);
      if (reply.body !== undefined) ctx.body = reply.body;
    });
  }
}
