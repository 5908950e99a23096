/**
 * What the sandbox providers of the service (registrar, payment, edge) share: a real HTTP server on loopback whose
 * operations can be made to misbehave, for tests of what the service does then (in-process through `fault`, or
 * over HTTP with `PUT /_sandbox/faults` and `DELETE /_sandbox/faults`):
 * - `fail`: answer 503 without acting;
 * - `hang`: never answer, without acting (until the faults are cleared, then the connection is cut);
 * - `late`: act, then answer only after `delayMs`, when the caller has given up;
 * - `lost`: act, then cut the connection without an answer (the answer lost after the work was done).
 * A fault applies to the operations it names (all by default), `times` calls (unlimited by default).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOn } from '../lib/http/http-server';
import { z } from 'zod';

export type FaultMode = 'fail' | 'hang' | 'late' | 'lost';

export interface Fault<Op extends string = string> {
  mode: FaultMode;
  operations?: Op[];
  times?: number;
  /** `late`: how long after acting the answer is sent. Default 30 s. */
  delayMs?: number;
}

const MODES: readonly FaultMode[] = ['fail', 'hang', 'late', 'lost'];

/** The body of `PUT /_sandbox/faults`: a fault of one of `modes`, naming only `operations` when they are given. */
const faultBody = (modes: readonly FaultMode[], operations: readonly string[] | undefined) => z.strictObject({
  mode: z.enum(['fail', 'hang', 'late', 'lost']).refine((m) => modes.includes(m)),
  operations: z.array(z.string().refine((op) => !operations || operations.includes(op))).optional(),
  times: z.number().int().min(1).optional(),
  delayMs: z.number().int().min(0).max(600_000).optional(),
});

export interface Answer { status: number; body: unknown }

/** A route: which operation a request is (undefined: not this route), and what it answers having acted. */
export interface SandboxRoute<Op extends string> {
  match(method: string, url: URL): { op: Op; params: string[] } | undefined;
  act(params: string[], body: unknown, url: URL, req: IncomingMessage): Answer | Promise<Answer>;
  /** The request body is not read (`act` gets undefined, and a body that is not JSON is no error). */
  ignoresBody?: boolean;
}

export interface SandboxServer<Op extends string> {
  url: string;
  fault(f: Fault<Op> | null): void;
  /** Calls received, by operation (faulted ones included). */
  calls: Record<string, number>;
  close(): Promise<void>;
}

export interface SandboxServerOptions<Op extends string> {
  host?: string;
  port?: number;
  /** The provider's error body. */
  error: (code: string, message: string) => unknown;
  /** The operations there are: their calls counted from 0, and a fault set over HTTP may name only these. */
  operations?: readonly Op[];
  /** The fault modes that can be set over HTTP. Default all. */
  modes?: readonly FaultMode[];
  /** What `PUT` and `DELETE /_sandbox/faults` answer. Default `{ ok: true }`. */
  ok?: unknown;
  /** Who is unavailable in the answer to a `fail` fault. Default `provider`. */
  who?: string;
}

export async function startSandboxServer<Op extends string>(routes: SandboxRoute<Op>[], o: SandboxServerOptions<Op>): Promise<SandboxServer<Op>> {
  let fault: (Fault<Op> & { left: number }) | null = null;
  const hanging = new Set<ServerResponse>();
  const calls: Record<string, number> = Object.fromEntries((o.operations ?? []).map((op) => [op, 0]));
  const FaultBody = faultBody(o.modes ?? MODES, o.operations);
  const ok = o.ok ?? { ok: true };
  const send = (res: ServerResponse, a: Answer): void => {
    if (res.destroyed || res.headersSent) return;
    res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
  };
  const faultFor = (op: Op): Fault<Op> | null => {
    if (!fault || (fault.operations && !fault.operations.includes(op))) return null;
    const f = fault;
    if (--f.left <= 0) fault = null;
    return f;
  };
  const readBody = async (req: IncomingMessage): Promise<unknown> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text ? JSON.parse(text) : undefined;
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://sandbox');
      if (url.pathname === '/_sandbox/faults') {
        if (req.method === 'DELETE') {
          api.fault(null);
          return send(res, { status: 200, body: ok });
        }
        const f = FaultBody.safeParse(await readBody(req).catch(() => undefined));
        if (req.method !== 'PUT' || !f.success) return send(res, { status: 400, body: o.error('bad_request', 'PUT a fault {mode, operations?, times?, delayMs?}') });
        api.fault(f.data as Fault<Op>);
        return send(res, { status: 200, body: ok });
      }
      let hit: { op: Op; params: string[]; route: SandboxRoute<Op> } | undefined;
      for (const route of routes) {
        const m = route.match(req.method ?? 'GET', url);
        if (m) {
          hit = { ...m, route };
          break;
        }
      }
      if (!hit) return send(res, { status: 404, body: o.error('not_found', 'no such route') });
      calls[hit.op] = (calls[hit.op] ?? 0) + 1;
      let body: unknown;
      try {
        body = hit.route.ignoresBody ? undefined : await readBody(req);
      } catch {
        return send(res, { status: 400, body: o.error('bad_request', 'the body is not JSON') });
      }
      const f = faultFor(hit.op);
      if (f?.mode === 'fail') return send(res, { status: 503, body: o.error('unavailable', `the ${o.who ?? 'provider'} is unavailable (injected fault)`) });
      if (f?.mode === 'hang') {
        hanging.add(res);
        res.once('close', () => hanging.delete(res));
        return;
      }
      const answer = await hit.route.act(hit.params, body, url, req);
      if (f?.mode === 'lost') {
        res.destroy();
        return;
      }
      if (f?.mode === 'late') {
        const timer = setTimeout(() => send(res, answer), f.delayMs ?? 30_000);
        timer.unref();
        res.once('close', () => clearTimeout(timer));
        return;
      }
      send(res, answer);
    })().catch(() => send(res, { status: 500, body: o.error('internal', 'internal error') }));
  });
  const url = await listenOn(server, { host: o.host ?? '127.0.0.1', port: o.port ?? 0 });
  const api: SandboxServer<Op> = {
    url,
    fault(f) {
      fault = f ? { ...f, left: f.times ?? Infinity } : null;
      if (!f || f.mode !== 'hang') {
        // A hang ends when the fault does: the caller sees its connection cut, as when a provider restarts.
        for (const res of hanging) res.destroy();
        hanging.clear();
      }
    },
    calls,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}

/** A JSON call with a deadline, for the HTTP adapters: the status and the parsed body, or `fail` with words. */
export async function callJson(
  baseUrl: string, method: string, path: string, body: unknown, opts: { timeoutMs: number; headers?: Record<string, string> },
  fail: (message: string) => Error, who: string, what: string,
): Promise<{ status: number; json: unknown }> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(new URL(path, baseUrl), {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    text = await res.text();
  } catch (e) {
    const timedOut = (e as Error).name === 'TimeoutError';
    throw fail(timedOut
      ? `the ${who} did not answer ${what} within ${opts.timeoutMs / 1000} s`
      : `the ${who} could not be reached for ${what} (${(e as Error).cause instanceof Error ? ((e as Error).cause as Error).message : (e as Error).message})`);
  }
  try {
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  } catch {
    throw fail(`the ${who} answered ${what} with something that is not JSON (${res.status})`);
  }
}

/** `json` in the shape of `schema`, or `fail` saying that the `who` answered `what` with another shape. */
export function parseJson<T>(schema: z.ZodType<T>, json: unknown, fail: (message: string) => Error, who: string, what: string): T {
  const r = schema.safeParse(json);
  if (!r.success) throw fail(`the ${who} answered ${what} with a body of another shape`);
  return r.data;
}
