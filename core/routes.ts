/**
 * The Core port on the wire: one entry per port method, read by the server (`core/server.ts`) to run a call
 * and by the client (`core/client.ts`) to make one, so that a new core operation is its method on the port
 * and one entry here.
 *
 * A call is `POST /internal/<method>` with the JSON body of its route, the shared core token and a request key
 * (`X-Core-Request-Key`, one per logical call, the same on its retries). The answer is 200 `{"result": ...}`,
 * or an error `{status, code, message, details?}` with the error's own status. `X-Core-Error` says whose
 * error it is: `operation` (the port method threw it: the client throws it again as it is) or `call` (the
 * call itself was refused: token, route, body or key; for the API that is a core it cannot use).
 */
import { z } from 'zod';
import { CHANGE_KINDS } from '../store/feed';
import { DOMAIN_OPS, type Core } from './port';

export const REQUEST_KEY_HEADER = 'x-core-request-key';
export const ERROR_HEADER = 'x-core-error';
export type ErrorSource = 'operation' | 'call';

/** A request key as the server accepts it: the client sends a UUID. */
export const RequestKey = z.string().regex(/^[\w-]{16,128}$/);

/** The body of an error answer: an AppError as it crosses the port. */
export const CoreErrorBody = z.object({
  status: z.number().int().min(400).max(599),
  code: z.string().min(1),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});

type Method = keyof Core;

export interface CoreRoute<N extends Method, B = unknown> {
  /** The body the server accepts. */
  body: z.ZodType<B>;
  /** The body of a call made with the port method's arguments. */
  encode: (...args: Parameters<Core[N]>) => B;
  run: (core: Core, body: B) => Promise<Awaited<ReturnType<Core[N]>>>;
  /** The result the client accepts: anything else is a core it cannot use. */
  result: z.ZodType<Awaited<ReturnType<Core[N]>>>;
  /** The port method returns nothing and never throws (a nudge): the client does not wait for the answer. */
  oneWay?: true;
}

// The table's type erases each body type; `route` checks an entry's encode, body and run against each other.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CoreRoutes = { [N in Method]: CoreRoute<N, any> };
const route = <N extends Method, B>(r: CoreRoute<N, B>): CoreRoute<N, B> => r;

export const CORE_ROUTES: CoreRoutes = {
  seal: route({
    body: z.strictObject({ context: z.string().min(1), plaintext: z.string() }),
    encode: (context, plaintext) => ({ context, plaintext }),
    run: (core, b) => core.seal(b.context, b.plaintext),
    result: z.string(),
  }),
  dns: route({
    body: z.strictObject({}),
    encode: () => ({}),
    run: (core) => core.dns(),
    result: z.object({ configured: z.boolean(), nameservers: z.array(z.string()) }),
  }),
  nudge: route({
    body: z.strictObject({ kind: z.enum(CHANGE_KINDS), key: z.string().min(1) }),
    encode: (kind, key) => ({ kind, key }),
    run: async (core, b) => core.nudge(b.kind, b.key),
    result: z.void(),
    oneWay: true,
  }),
  verifyHostname: route({
    body: z.strictObject({ name: z.string().min(1).max(253) }),
    encode: (name) => ({ name }),
    run: (core, b) => core.verifyHostname(b.name),
    // JSON has no undefined: a call that resolved answers {"result": null} or no result at all.
    result: z.null().optional().transform(() => undefined),
  }),
  openBundle: route({
    // A node id as `admin node register` takes it; a sealed bundle as the bundle reconciler writes it.
    body: z.strictObject({ nodeId: z.string().min(1).max(128), sealed: z.string().min(1) }),
    encode: (nodeId, sealed) => ({ nodeId, sealed }),
    run: (core, b) => core.openBundle(b.nodeId, b.sealed),
    result: z.string(),
  }),
  domain: route({
    // The input is the API's, already validated there; the core's domain service reads it by operation.
    body: z.strictObject({ op: z.enum(DOMAIN_OPS), input: z.record(z.string(), z.unknown()) }),
    encode: (op, input) => ({ op, input: input as Record<string, unknown> }),
    run: (core, b) => core.domain(b.op, b.input as never),
    result: z.record(z.string(), z.unknown()) as unknown as z.ZodType<Awaited<ReturnType<Core['domain']>>>,
  }),
};

export const isCoreMethod = (name: string): name is Method => Object.hasOwn(CORE_ROUTES, name);
