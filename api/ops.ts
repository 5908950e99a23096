/**
 * Declarative operations: one `defineOp` per operationId carries its path, who may call it (`auth`, and the
 * minimum role in `{orgSlug}`), its need of the core, zod schemas and handler; the handler's context holds
 * what that scope resolved, an org only for operations in one. The same list is mounted on the router (`mountOps`)
 * and generates the OpenAPI document, so the two cannot drift apart.
 */
import type { Layer, Router, RouterContext } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { AppError } from '../lib/errors';
import type { Core } from '../core/port';
import {
  membership, nodePrincipalByToken, principalByToken, principalInOrg, roleAtLeast, type NodePrincipal, type Org, type Principal, type Role,
} from '../store/accounts';
import type { Store } from '../store/db';
import type { Plans } from '../rules/plans';
import { conditionsOf, type Conditions } from './conditional';
import type { Reply, ResponseSpec } from './reply';

export type { Reply, ResponseSpec } from './reply';
import { readTextBody } from './body';
import { fromZod, zodMessages } from './errors';
import { checkedKey, idempotency, idempotencyKeyOf } from './idempotency';
import { apiLimits, type RateLimits } from './limits';

export interface ApiConfig {
  /** Default hostnames are `<project>.<appDomain>`. */
  appDomain: string;
  /** The plan table: project, zone and per-zone limits. */
  plans: Plans;
  /** Domains the service itself uses besides the app domain and the nameservers' (`--service-domains`). */
  serviceDomains: string[];
  /** Failed authentications per address (on by default) and requests per token (off unless given): api/limits.ts. */
  rateLimits?: RateLimits;
  /** Where customers point a CNAME (`--fallback-origin`): the verify guidance and a proof. Default
   * `edge.` + the registrable domain of the default nameservers (api/hostnames.ts). */
  fallbackOrigin?: string;
  /** `--trust-proxy`: X-Forwarded-Proto and X-Forwarded-For are the TLS-terminating proxy's word (koa's `app.proxy`). */
  trustProxy?: boolean;
  /** An answer streamed as it is read (an export) whose client takes none of it for this long (up to twice as long:
   * Node's socket timer, api/app.ts) is ended: a client that stops reading would otherwise hold its connection and
   * what is read for it. Default 30 s. */
  stalledAnswerMs?: number;
  /** Whole-zone work (an export's page, an import, a restore, a change set of over 100 changes or 64 KiB: api/zone-changes.ts
   * `zoneWork`): how much runs at once in this process (default: its cores) and how much of an organization may wait
   * for it before the next is 429 (default 8). */
  zoneWork?: { slots?: number; waitingPerOrg?: number };
}

export interface Deps {
  store: Store;
  /** Null when the API runs without a core (`hostplane api` with no `--core-url`). */
  core: Core | null;
  config: ApiConfig;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnyObject = z.ZodObject<z.ZodRawShape>;

/** Who may call: a user's API token, a node's token (`admin node register`), or anyone. */
export type AuthMode = 'user' | 'node' | 'none';

export interface OpSpec<P extends AnyObject, Q extends AnyObject, B extends z.ZodType, C extends boolean, A extends AuthMode, R extends Role | null> {
  operationId: string;
  tag: string;
  method: Method;
  /** OpenAPI form: `/v1/orgs/{orgSlug}/projects`. */
  path: string;
  summary: string;
  /** Default `user`. */
  auth?: A;
  /** For user operations: the minimum role in `{orgSlug}`, which the path then has; absent or null for a
   * user-level operation, whose path has no `{orgSlug}`. Node and open operations have none. */
  role?: R;
  needsCore: C;
  params?: P;
  query?: Q;
  body?: B;
  /** The body as the document shows it, where `body` takes parts of it looser for the handler to judge each itself
   * (a change set names a change of the wrong shape among the other changes' refusals: api/zone-changes.ts). */
  documentedBody?: z.ZodType;
  /** The body's media type when it is not JSON (`text/dns`): `body` then validates its UTF-8 text. */
  bodyType?: string;
  responses: Record<number, ResponseSpec>;
  /** The answer carries a secret (a bypass secret, a transfer code): it is never stored, so on a POST the
   * `Idempotency-Key` is ignored and every call runs (docs/api.md; api/idempotency.ts). */
  secretAnswer?: boolean;
  /** Request headers the operation honours beyond those of every operation, by their name in the document's
   * components.parameters (`IfMatch`, `IfNoneMatch`: api/conditional.ts). */
  requestHeaders?: string[];
  handler: (c: OpContext<z.output<P>, z.output<Q>, z.output<B>, C, A, R>) => Promise<Reply>;
}

interface BaseContext<P, Q, B, C extends boolean> {
  params: P;
  query: Q;
  body: B;
  core: C extends true ? Core : Core | null;
  deps: Deps;
  /** The request and its answer. */
  http: Context;
  /** The request's `If-Match` and `If-None-Match` (api/conditional.ts): its header fields through the API, what the
   * console's form names through `invokeAs`; never the console's own request's. */
  conditions: Conditions;
}

/** A user operation: the caller, and its actor in audit records, `user:<email>`. */
export interface UserScope { principal: Principal; actor: string }
/** An operation in `{orgSlug}`: also the org and the caller's role in it. */
export interface OrgScope extends UserScope { org: Org; role: Role }
/** A node operation: the node of the token (the one of `{nodeId}` if the path has it); actor `node:<id>`. */
export interface NodeScope { node: NodePrincipal; actor: string }

type ScopeOf<A extends AuthMode, R> = A extends 'node' ? NodeScope : A extends 'none' ? unknown : R extends Role ? OrgScope : UserScope;

export type OpContext<P, Q, B, C extends boolean, A extends AuthMode, R extends Role | null> =
  BaseContext<P, Q, B, C> & ScopeOf<A, R>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOp = OpSpec<any, any, any, any, any, any>;

// The result is NoInfer: op lists are typed AnyOp, and inferring from that would type every handler's context
// as `any` parameters with no scope.
export function defineOp<
  P extends AnyObject, Q extends AnyObject, B extends z.ZodType, const C extends boolean, const A extends AuthMode = 'user', const R extends Role | null = null,
>(spec: OpSpec<P, Q, B, C, A, R>): NoInfer<OpSpec<P, Q, B, C, A, R>> {
  return spec;
}

/** The token of an `Authorization: Bearer <token>` header; the scheme is case-insensitive (RFC 9110 11.1). */
const bearer = (header: string): string | undefined => /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header)?.[1];

/** A 401 says where the token it wants comes from: a newcomer's first call is often one without it. */
const HOW_TO_GET = {
  'bearer token': 'Authorization: Bearer <token>; an operator makes one with `hostplane admin token create <email>`',
  'node token': 'Authorization: Bearer <node token>; an operator makes one with `hostplane admin node register <id>`',
} as const;
const unauthorized = (token: keyof typeof HOW_TO_GET): AppError => new AppError(401, 'unauthorized', `a valid ${token} is required (${HOW_TO_GET[token]})`);

const paramOf = (path: string, name: string): boolean => path.includes(`{${name}}`);

/** How an operation's path and its auth fit together, checked once at mounting: a handler's scope is then always
 * the one its type promises (an org for exactly the operations in `{orgSlug}`). */
function checkScope(op: AnyOp): void {
  const auth: AuthMode = op.auth ?? 'user';
  const inOrg = paramOf(op.path, 'orgSlug');
  const hasRole = op.role !== undefined && op.role !== null;
  const wrong = auth === 'user'
    ? inOrg !== hasRole && (inOrg ? 'has {orgSlug} but no role' : 'has a role but no {orgSlug} in its path')
    : (inOrg || hasRole) && `is a ${auth} operation: it can have neither {orgSlug} nor a role`;
  if (wrong) throw new Error(`operation ${op.operationId} ${wrong}`);
  // The router would take `{name}.json` as text and never match it.
  const partial = op.path.split('/').find((seg) => /[{}]/.test(seg) && !/^\{\w+\}$/.test(seg));
  if (partial) throw new Error(`operation ${op.operationId}: a parameter must be a whole path segment, not ${partial}`);
}

/**
 * The caller's scope, before any lookup of the target: a missing or unknown token, or one of the other kind
 * (a user's on a node operation, a node's on a user operation), is 401. In `{orgSlug}` a non-member reads
 * as 404 and a too-low role is 403; in `{nodeId}` another node reads as 404, whether or not it exists.
 */
async function authorize(
  op: AnyOp, deps: Deps, ctx: Context, path: Record<string, string>, limits: Limits,
): Promise<UserScope | OrgScope | NodeScope | Record<string, never>> {
  const auth: AuthMode = op.auth ?? 'user';
  if (auth === 'none') return {};
  // Every failed authentication counts against the client's address; past its limit a failure is 429, while a
  // good token is always let through (api/limits.ts).
  const token = bearer(ctx.get('authorization'));
  const failed = (what: keyof typeof HOW_TO_GET): AppError => {
    limits.authFailed(ctx);
    return unauthorized(what);
  };
  if (auth === 'node') {
    const node = token ? await nodePrincipalByToken(deps.store, token) : undefined;
    if (!node) throw failed('node token');
    limits.afterAuth(ctx, token!);
    if (path.nodeId !== undefined && path.nodeId !== node.nodeId) throw new AppError(404, 'not_found', `node ${path.nodeId} not found`);
    return { node, actor: `node:${node.nodeId}` };
  }
  if (!op.role) {
    const principal = token ? await principalByToken(deps.store, token) : undefined;
    if (!principal) throw failed('bearer token');
    limits.afterAuth(ctx, token!);
    return { principal, actor: `user:${principal.email}` } satisfies UserScope;
  }
  // The token and the membership in one statement; the checks still go in their order (401, 429, 404, 403).
  const found = token ? await principalInOrg(deps.store, token, path.orgSlug!) : undefined;
  if (!found) throw failed('bearer token');
  limits.afterAuth(ctx, token!);
  return inOrg({ operationId: op.operationId, role: op.role }, found.principal, found.member, path.orgSlug!);
}

/** A user's scope in `{orgSlug}`: a non-member reads as 404 (whether or not the org exists), a too-low role is 403. */
function inOrg(need: { operationId: string; role: Role }, principal: Principal, m: { org: Org; role: Role } | undefined, slug: string): OrgScope {
  if (!m) throw new AppError(404, 'not_found', `organization ${slug} not found`);
  if (!roleAtLeast(m.role, need.role)) throw new AppError(403, 'forbidden', `${need.operationId} needs the ${need.role} role or above`);
  return { principal, actor: `user:${principal.email}`, org: m.org, role: m.role };
}

/** The principal's scope in the organization `slug` for something that needs `need.role` there (an operation, or a
 * console page reading what its operations would): the API's own check, 404 for a non-member, 403 below the role. */
export async function memberScope(deps: Deps, principal: Principal, slug: string, need: { operationId: string; role: Role }): Promise<OrgScope> {
  return inOrg(need, principal, await membership(deps.store, slug, principal.userId), slug);
}

/** A path parameter holding U+0000 names nothing the API stores: 404 without a lookup, which PostgreSQL (whose text
 * cannot hold the character) would fail with a 500 where SQLite finds no row. After validation, so that a parameter
 * with a syntax of its own still answers 400. */
function refuseNul(path: Record<string, string>): void {
  const name = Object.keys(path).find((k) => path[k]!.includes('\0'));
  if (name !== undefined) throw new AppError(404, 'not_found', `${name} not found: no name holds U+0000`);
}

function parse<T extends z.ZodType>(schema: T | undefined, value: unknown, where: 'path' | 'query' | 'body'): z.output<T> {
  if (!schema) return undefined as z.output<T>;
  const r = schema.safeParse(value, { error: zodMessages });
  if (!r.success) throw fromZod(r.error, where);
  return r.data;
}

type Limits = ReturnType<typeof apiLimits>;

const needCore = (op: AnyOp, deps: Deps): void => {
  if (op.needsCore && !deps.core) throw new AppError(503, 'no_core', 'this API runs without its core component');
};

interface RawInput {
  params: Record<string, string>;
  query?: unknown;
  body?: unknown;
  /** Header fields the operation reads, by lower-case name: `if-match` with the ETag a console form was shown. */
  headers?: Record<string, string>;
  /** The Idempotency-Key of a console form (made when the form was shown), for an operation that honours one. */
  idempotencyKey?: string;
}

/** The operation's parameters, query and body, validated (400 naming where), the path free of U+0000 (404). */
function validInput(op: AnyOp, raw: RawInput): { params: unknown; query: unknown; body: unknown } {
  const input = { params: parse(op.params, raw.params, 'path'), query: op.query && parse(op.query, raw.query ?? {}, 'query'), body: parse(op.body, raw.body ?? {}, 'body') };
  refuseNul(raw.params);
  return input;
}

/**
 * Runs a user operation for a principal the console signed in: a console session is a credential of the API, so
 * the operation goes through the same scope (404 outside the org, 403 below its role), core check, validation and
 * handler, with the same actor in its audit records, as a request with the user's token. `ctx` is the console's
 * request. Errors are thrown as AppError, for the console to show.
 */
export async function invokeAs(op: AnyOp, deps: Deps, ctx: Context, principal: Principal, raw: RawInput): Promise<Reply> {
  if ((op.auth ?? 'user') !== 'user') throw new Error(`operation ${op.operationId} is not a user operation`);
  const scope: UserScope | OrgScope = op.role
    ? await memberScope(deps, principal, raw.params.orgSlug!, { operationId: op.operationId, role: op.role })
    : { principal, actor: `user:${principal.email}` };
  needCore(op, deps);
  const key = raw.idempotencyKey !== undefined && honoursIdempotencyKey(op) ? checkedKey(raw.idempotencyKey) : undefined;
  const input = validInput(op, raw);
  return answerOnce(keysOf(deps.store), ctx, { scope, key, operationId: op.operationId, body: raw.body },
    () => op.handler({ ...input, core: deps.core, deps, http: ctx, conditions: conditionsOf((name) => raw.headers?.[name] ?? ''), ...scope }));
}

type Keys = ReturnType<typeof idempotency>;
/** One store's keys, shared by the API and the console: a request running under a key is known to both. */
const keysByStore = new WeakMap<Store, Keys>();
const keysOf = (store: Store): Keys => {
  let keys = keysByStore.get(store);
  if (!keys) keysByStore.set(store, keys = idempotency(store));
  return keys;
};

/** Runs an operation once per Idempotency-Key (api/idempotency.ts): without a key it runs; with one it runs under
 * the key's claim and its answer is stored, or the stored answer is replayed. The key is looked at once the request
 * is known valid: a refused one is never stored. */
async function answerOnce(keys: Keys, ctx: Context, p: { scope: Partial<OrgScope & NodeScope>; key: string | undefined; operationId: string; body: unknown }, run: () => Promise<Reply>): Promise<Reply> {
  // Without a key nothing is claimed, nor is its scope made: an open operation has no caller to scope it.
  if (p.key === undefined) return run();
  const begun = await keys.begin(ctx, { scope: keyScope(p.scope), key: p.key, operationId: p.operationId, body: p.body });
  if (begun.kind === 'replayed') return begun.reply;
  let reply: Reply;
  try {
    reply = await run();
  } catch (e) {
    await begun.guard.failed(e);
    throw e;
  }
  await begun.guard.answered(ctx, reply.status, reply.json === undefined ? reply.body : JSON.parse(reply.json), reply.headers);
  return reply;
}

/** Whether the operation honours `Idempotency-Key`: every POST of a caller, but those whose answer carries a secret. */
export const honoursIdempotencyKey = (op: AnyOp): boolean => op.method === 'post' && !op.secretAnswer && (op.auth ?? 'user') !== 'none';

/** Whose keys an Idempotency-Key is among: the user in the org of the operation, the user, or the node. */
function keyScope(scope: Partial<OrgScope & NodeScope>): string {
  if (scope.node) return `node:${scope.node.nodeId}`;
  return `user:${scope.principal!.userId}${scope.org ? `/org:${scope.org.id}` : ''}`;
}

/** A route's segments as `1` for a literal and `0` for a parameter: of two routes matching one path, the one
 * with the greater rank has a literal where the other's first parameter is. */
const rankOf = (path: string): string => path.split('/').map((seg) => (seg.startsWith(':') ? '0' : '1')).join('');

const outranked = (layer: Layer, by: readonly Layer[]): boolean => {
  const rank = rankOf(String(layer.path));
  return by.some((other) => other !== layer && rankOf(String(other.path)) > rank);
};

/**
 * Between the router's routes and its `allowedMethods`: a path that a route matches with a literal segment
 * where another has a parameter (`POST .../domains/check` beside `GET .../domains/{domain}`) belongs to the
 * literal route alone, so its 405, `Allow` and OPTIONS name only that route's methods. The parameter route's
 * own middleware passes such a path on (see `mountOps`).
 */
export const literalsFirst: Middleware = async (ctx, next) => {
  const matched = (ctx as RouterContext).matched;
  if (matched && matched.length > 1) (ctx as RouterContext).matched = matched.filter((l) => !outranked(l, matched));
  await next();
};

/** The router's form of a path: `/v1/orgs/{orgSlug}` is `/v1/orgs/:orgSlug`. */
const routerPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * Registers every operation on `router` (paths case-insensitive, one trailing `/` optional, HEAD answered by
 * GET: the router's defaults), its handler wrapped in the rate limits and authentication and scope (see
 * `authorize`, api/limits.ts), the core check (503 `no_core`), input validation, and on POST the
 * `Idempotency-Key` (api/idempotency.ts). Throws for an operation whose path and auth do not fit together.
 */
export function mountOps(router: Router, ops: AnyOp[], deps: Deps, parseBody: (ctx: Context) => Promise<unknown>): void {
  for (const op of ops) checkScope(op);
  const limits = apiLimits(deps.config.rateLimits);
  const keys = keysOf(deps.store);
  const paths = ops.map((op) => routerPath(op.path));
  for (const op of ops) {
    const path = routerPath(op.path);
    // Another operation's path with a literal where this one has a parameter: such a request may be that one's.
    const shadowed = paths.some((other) => other.split('/').length === path.split('/').length && rankOf(other) > rankOf(path));
    const withKeys = honoursIdempotencyKey(op);
    const run: Middleware = async (ctx, next) => {
      const { matched, params } = ctx as RouterContext;
      if (shadowed && matched && outranked(matched.find((l) => l.path === path)!, matched)) return next();
      ctx.state.operationId = op.operationId;
      const scope = await authorize(op, deps, ctx, params, limits);
      needCore(op, deps);
      const key = withKeys ? idempotencyKeyOf(ctx) : undefined;
      let body: unknown;
      if (op.body) body = op.bodyType ? await readTextBody(ctx, op.bodyType) : await parseBody(ctx);
      const input = validInput(op, { params, query: ctx.query, body });
      const reply = await answerOnce(keys, ctx, { scope, key, operationId: op.operationId, body },
        () => op.handler({ ...input, core: deps.core, deps, http: ctx, conditions: conditionsOf((name) => ctx.get(name)), ...scope }));
      // Serialized here, before any of the answer's headers are set: a body JSON cannot hold is this request's
      // 500 from the error edge, without the headers meant for the answer.
      const json = reply.json ?? (reply.body === undefined ? undefined : JSON.stringify(reply.body));
      ctx.status = reply.status;
      if (reply.headers) ctx.set(reply.headers);
      if (json !== undefined) {
        ctx.type = 'application/json';
        ctx.body = json;
      } else if (reply.text) {
        ctx.type = reply.text.type;
        ctx.body = reply.text.body;
      }
    };
    router.register(path, [op.method], run, { name: op.operationId });
  }
}
