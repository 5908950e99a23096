/**
 * The sandbox edge provider: a real HTTP server of ours with the custom-hostname API of the big CDNs
 * (Cloudflare's `/custom_hostnames`: create, list by hostname, get, delete, each hostname with `custom_metadata`
 * and the certificate status `ssl.status`, `pending_validation` until it is issued, then `active`). `serve` and
 * `core` start one on loopback unless `--edge-url` names a real edge; tests start their own.
 *
 * Fault injection, for tests of what the service does when the edge misbehaves (in-process through `faults`, or
 * over HTTP with `PUT /_sandbox/faults` and `DELETE /_sandbox/faults`):
 * - `fail`: answer 503 without acting;
 * - `hang`: never answer (until the faults are cleared, then the connection is cut);
 * - `late`: act, then answer only after `delayMs`, when the caller has given up: its retry must not act twice.
 * A fault applies to the operations it names (all by default), `times` calls (unlimited by default).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

export type EdgeOperation = 'create' | 'list' | 'get' | 'delete';

export interface EdgeFault {
  mode: 'fail' | 'hang' | 'late';
  operations?: EdgeOperation[];
  /** Calls the fault applies to; unlimited when absent. */
  times?: number;
  /** `late`: how long after acting the answer is sent. Default 30 s. */
  delayMs?: number;
}

const Fault = z.strictObject({
  mode: z.enum(['fail', 'hang', 'late']),
  operations: z.array(z.enum(['create', 'list', 'get', 'delete'])).optional(),
  times: z.number().int().min(1).optional(),
  delayMs: z.number().int().min(0).max(600_000).optional(),
});
const CreateBody = z.object({
  hostname: z.string().min(1).max(253),
  custom_metadata: z.object({ ref: z.string().max(200) }).partial().optional(),
  ssl: z.unknown().optional(),
});

interface Stored { id: string; hostname: string; ref: string | undefined; createdAt: number }

export interface EdgeSandbox {
  url: string;
  /** Sets the fault every matching call meets from now on (replacing any other); `null` clears it. */
  fault(f: EdgeFault | null): void;
  /** The hostnames held now, with their refs. */
  hostnames(): { id: string; hostname: string; ref: string | undefined; certificate: string }[];
  /** Calls received, by operation (faulted ones included). */
  calls: Record<EdgeOperation, number>;
  close(): Promise<void>;
}

export interface EdgeSandboxOptions {
  host?: string;
  port?: number;
  /** How long after creation a hostname's certificate reads `active` (validation and issuance). Default 1 s. */
  certificateDelayMs?: number;
}

/** Starts the sandbox edge on `host:port` (loopback and a free port by default). */
export async function startEdgeSandbox(o: EdgeSandboxOptions = {}): Promise<EdgeSandbox> {
  const held = new Map<string, Stored>();
  const calls: Record<EdgeOperation, number> = { create: 0, list: 0, get: 0, delete: 0 };
  const certificateDelayMs = o.certificateDelayMs ?? 1_000;
  let fault: (EdgeFault & { left: number }) | null = null;
  const hanging = new Set<ServerResponse>();

  const view = (h: Stored) => ({
    id: h.id,
    hostname: h.hostname,
    custom_metadata: h.ref === undefined ? {} : { ref: h.ref },
    status: 'active',
    ssl: { status: Date.now() - h.createdAt >= certificateDelayMs ? 'active' : 'pending_validation', method: 'http', type: 'dv' },
    created_at: new Date(h.createdAt).toISOString(),
  });
  const send = (res: ServerResponse, status: number, body: unknown): void => {
    if (res.destroyed || res.headersSent) return;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const error = (code: string, message: string) => ({ success: false, errors: [{ code, message }] });

  /** The fault this call meets, counted; null when none applies. */
  const faultFor = (op: EdgeOperation): EdgeFault | null => {
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

  /** What an operation answers, having acted. */
  const act = (op: EdgeOperation, url: URL, id: string | undefined, body: unknown): { status: number; body: unknown } => {
    switch (op) {
      case 'list': {
        const hostname = url.searchParams.get('hostname');
        return { status: 200, body: { success: true, result: [...held.values()].filter((h) => hostname === null || h.hostname === hostname).map(view) } };
      }
      case 'get': {
        const h = held.get(id!);
        return h ? { status: 200, body: { success: true, result: view(h) } } : { status: 404, body: error('not_found', 'no such custom hostname') };
      }
      case 'delete': {
        if (!held.delete(id!)) return { status: 404, body: error('not_found', 'no such custom hostname') };
        return { status: 200, body: { success: true, result: { id } } };
      }
      case 'create': {
        const parsed = CreateBody.safeParse(body);
        if (!parsed.success) return { status: 400, body: error('bad_request', 'hostname is required') };
        const hostname = parsed.data.hostname.toLowerCase();
        if ([...held.values()].some((h) => h.hostname === hostname)) {
          return { status: 409, body: error('duplicate_hostname', `${hostname} is already a custom hostname`) };
        }
        const h: Stored = { id: randomUUID(), hostname, ref: parsed.data.custom_metadata?.ref, createdAt: Date.now() };
        held.set(h.id, h);
        return { status: 201, body: { success: true, result: view(h) } };
      }
    }
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://sandbox');
      if (url.pathname === '/_sandbox/faults') {
        if (req.method === 'DELETE') {
          api.fault(null);
          return send(res, 200, { success: true });
        }
        const f = Fault.safeParse(await readBody(req).catch(() => undefined));
        if (req.method !== 'PUT' || !f.success) return send(res, 400, error('bad_request', 'PUT a fault {mode, operations?, times?, delayMs?}'));
        api.fault(f.data);
        return send(res, 200, { success: true });
      }
      const m = /^\/v1\/custom_hostnames(?:\/([^/]+))?$/.exec(url.pathname);
      let op: EdgeOperation | undefined;
      if (m && !m[1] && req.method === 'GET') op = 'list';
      else if (m && !m[1] && req.method === 'POST') op = 'create';
      else if (m?.[1] && req.method === 'GET') op = 'get';
      else if (m?.[1] && req.method === 'DELETE') op = 'delete';
      if (!op) return send(res, 404, error('not_found', 'no such route'));
      calls[op]++;
      let body: unknown;
      try {
        body = op === 'create' ? await readBody(req) : undefined;
      } catch {
        return send(res, 400, error('bad_request', 'the body is not JSON'));
      }
      const f = faultFor(op);
      if (f?.mode === 'fail') return send(res, 503, error('unavailable', 'the edge is unavailable (injected fault)'));
      if (f?.mode === 'hang') {
        hanging.add(res);
        res.once('close', () => hanging.delete(res));
        return;
      }
      const answer = act(op, url, m?.[1] && decodeURIComponent(m[1]), body);
      if (f?.mode === 'late') {
        const timer = setTimeout(() => send(res, answer.status, answer.body), f.delayMs ?? 30_000);
        timer.unref();
        res.once('close', () => clearTimeout(timer));
        return;
      }
      send(res, answer.status, answer.body);
    })().catch(() => send(res, 500, error('internal', 'internal error')));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = o.host ?? '127.0.0.1';

  const api: EdgeSandbox = {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    fault(f) {
      fault = f ? { ...f, left: f.times ?? Infinity } : null;
      if (!f || f.mode !== 'hang') {
        // A hang ends when the fault does: the caller sees its connection cut, as when an edge restarts.
        for (const res of hanging) res.destroy();
        hanging.clear();
      }
    },
    hostnames: () => [...held.values()].map((h) => ({ id: h.id, hostname: h.hostname, ref: h.ref, certificate: view(h).ssl.status })),
    calls,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}
