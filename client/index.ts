/**
 * The typed client of the /v1 API: paths, methods, parameters, bodies and answers come from client/schema.ts,
 * the types `npm run client:generate` makes from the OpenAPI document. A call names a path template and fills
 * it (`path`), and gets back the status it was answered with, narrowed by it:
 *
 * ```ts
 * const api = createClient({ baseUrl: 'http://127.0.0.1:8080', token });
 * const r = await api.POST('/v1/orgs/{orgSlug}/projects', { path: { orgSlug: 'acme' }, body: { name: 'blog' } });
 * if (r.status === 201) r.data.hostname;          // a Project
 * else r.error.code;                              // the spec's error body: code, message, details?, requestId
 * ```
 *
 * No retries, no redirects followed on the caller's behalf, no validation of the answer (the API tests check the
 * API against the document): one request, one answer. A failure to connect rejects, as `fetch` does. An answer
 * with a status the document does not list for the operation is returned as it came, though typed as documented.
 */
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';

/** The error body of every non-2xx answer (docs/api.md). */
export type ApiError = components['schemas']['Error'];

export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

/** The path templates that have an operation for `M`. */
export type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never }[keyof paths];

/** The operation behind `M` on `P`. */
export type Operation<P extends keyof paths, M extends Method> = paths[P] extends { [K in M]: infer Op } ? Op : never;

type Params<Op> = Op extends { parameters: infer T } ? T : object;

/** A property `As` of a call's options from `Obj[K]`: required when `K` is, absent when it is `never`. */
type Field<Obj, K extends PropertyKey, As extends string> = K extends keyof Obj
  ? [NonNullable<Obj[K]>] extends [never]
    ? { [_ in As]?: never }
    : object extends Pick<Obj, K> ? { [_ in As]?: NonNullable<Obj[K]> } : { [_ in As]: NonNullable<Obj[K]> }
  : { [_ in As]?: never };

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type BodyField<Op> = Op extends { requestBody: infer B } ? { body: JsonOf<B> }
  : Op extends { requestBody?: infer B } ? ([NonNullable<B>] extends [never] ? { body?: never } : { body?: JsonOf<NonNullable<B>> })
  : { body?: never };
type RequestHeaders<H> = ([NonNullable<H>] extends [never] ? unknown : NonNullable<H>) & Record<string, string>;
type HeadersField<Op> = Params<Op> extends { header: infer H } ? { headers: RequestHeaders<H> }
  : { headers?: RequestHeaders<Params<Op> extends { header?: infer H } ? H : never> };

/** What one call takes: the path parameters, the query, the JSON body, request headers (the documented ones,
 * such as `If-Match` or `Idempotency-Key`, typed; any other allowed) and an abort signal. */
export type CallOptions<Op> = Field<Params<Op>, 'path', 'path'> & Field<Params<Op>, 'query', 'query'> & BodyField<Op> & HeadersField<Op>
  & { signal?: AbortSignal };

type Responses<Op> = Op extends { responses: infer R } ? R : never;
type Content<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;

/** One documented answer: `data` for a 2xx, `error` for any other status; the response headers as sent. */
export type Answer<S, R> = `${S & number}` extends `2${string}`
  ? { status: S; ok: true; data: Content<R>; error?: undefined; headers: Headers }
  : { status: S; ok: false; data?: undefined; error: Content<R>; headers: Headers };

/** Every answer the document lists for `Op`, told apart by `status` (or by `ok`). */
export type Result<Op> = { [S in keyof Responses<Op>]: Answer<S, Responses<Op>[S]> }[keyof Responses<Op> & number];

type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** Options may be left out only when none of them is required. */
type Args<Op> = [RequiredKeys<CallOptions<Op>>] extends [never] ? [options?: CallOptions<Op>] : [options: CallOptions<Op>];

export interface ClientOptions {
  /** Scheme, host and port of the API (`http://127.0.0.1:8080`); a trailing slash is ignored. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` on every call (unless the call sets `Authorization` itself). */
  token?: string;
  /** Headers sent on every call (a call's own headers win). */
  headers?: Record<string, string>;
  /** The fetch to use; the global one by default. */
  fetch?: typeof fetch;
}

export interface Client {
  request<M extends Method, P extends PathsWith<M>>(method: M, path: P, ...args: Args<Operation<P, M>>): Promise<Result<Operation<P, M>>>;
  GET<P extends PathsWith<'get'>>(path: P, ...args: Args<Operation<P, 'get'>>): Promise<Result<Operation<P, 'get'>>>;
  PUT<P extends PathsWith<'put'>>(path: P, ...args: Args<Operation<P, 'put'>>): Promise<Result<Operation<P, 'put'>>>;
  POST<P extends PathsWith<'post'>>(path: P, ...args: Args<Operation<P, 'post'>>): Promise<Result<Operation<P, 'post'>>>;
  DELETE<P extends PathsWith<'delete'>>(path: P, ...args: Args<Operation<P, 'delete'>>): Promise<Result<Operation<P, 'delete'>>>;
  PATCH<P extends PathsWith<'patch'>>(path: P, ...args: Args<Operation<P, 'patch'>>): Promise<Result<Operation<P, 'patch'>>>;
}

/** `/v1/orgs/{orgSlug}/projects` with `{orgSlug: 'acme'}` → `/v1/orgs/acme/projects`, each value encoded. */
export function fillPath(template: string, values: Record<string, unknown> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || value === null || value === '') throw new Error(`${template}: no value for the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}

/** `?a=1&b=x&b=y`: undefined values left out, arrays repeated; '' when nothing is left. */
export function queryString(query: Record<string, unknown> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    for (const item of Array.isArray(v) ? v : [v]) if (item !== undefined && item !== null) q.append(k, String(item));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

interface LooseOptions { path?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal }

/** A client for the API at `baseUrl`; see the top of this file. */
export function createClient(opts: ClientOptions): Client {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;
  async function request(method: Method, template: string, o: LooseOptions = {}): Promise<unknown> {
    // Names are case-insensitive: later sets replace earlier ones, so a call's own headers win over all.
    const headers = new Headers();
    if (opts.token) headers.set('authorization', `Bearer ${opts.token}`);
    if (o.body !== undefined) headers.set('content-type', 'application/json');
    for (const given of [opts.headers, o.headers]) for (const [k, v] of Object.entries(given ?? {})) headers.set(k, v);
    const res = await doFetch(base + fillPath(template, o.path) + queryString(o.query), {
      method: method.toUpperCase(),
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      redirect: 'manual',
      signal: o.signal ?? null,
    });
    const text = await res.text();
    const json = text !== '' && /^application\/(.+\+)?json\b/i.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) as unknown : undefined;
    const ok = res.status >= 200 && res.status < 300;
    return { status: res.status, ok, ...(ok ? { data: json } : { error: json }), headers: res.headers };
  }
  // The typed signatures are the interface's; one untyped implementation serves them all.
  const call = request as unknown as Client['request'];
  const bound = (m: Method) => ((path: never, ...args: never[]) => call(m, path, ...args)) as never;
  return { request: call, GET: bound('get'), PUT: bound('put'), POST: bound('post'), DELETE: bound('delete'), PATCH: bound('patch') };
}
