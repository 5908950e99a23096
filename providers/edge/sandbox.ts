/**
 * The sandbox edge provider: a real HTTP server of ours with the custom-hostname API of the big CDNs
 * (Cloudflare's `/custom_hostnames`: create, list by hostname, get, delete, each hostname with `custom_metadata`
 * and the certificate status `ssl.status`, `pending_validation` until it is issued, then `active`). `serve` and
 * `core` start one on loopback unless `--edge-url` names a real edge; tests start their own.
 *
 * Fault injection, for tests of what the service does when the edge misbehaves: providers/sandbox-server.ts, with
 * the modes `fail`, `hang` and `late` (the edge acts, then answers when the caller has given up: its retry must not
 * act twice).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { startSandboxServer, type Answer, type SandboxRoute } from '../sandbox-server';

export type EdgeOperation = 'create' | 'list' | 'get' | 'delete';

export interface EdgeFault {
  mode: 'fail' | 'hang' | 'late';
  operations?: EdgeOperation[];
  /** Calls the fault applies to; unlimited when absent. */
  times?: number;
  /** `late`: how long after acting the answer is sent. Default 30 s. */
  delayMs?: number;
}

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

const OPERATIONS: EdgeOperation[] = ['create', 'list', 'get', 'delete'];
const error = (code: string, message: string) => ({ success: false, errors: [{ code, message }] });

/** Starts the sandbox edge on `host:port` (loopback and a free port by default). */
export async function startEdgeSandbox(o: EdgeSandboxOptions = {}): Promise<EdgeSandbox> {
  const held = new Map<string, Stored>();
  const certificateDelayMs = o.certificateDelayMs ?? 1_000;

  const view = (h: Stored) => ({
    id: h.id,
    hostname: h.hostname,
    custom_metadata: h.ref === undefined ? {} : { ref: h.ref },
    status: 'active',
    ssl: { status: Date.now() - h.createdAt >= certificateDelayMs ? 'active' : 'pending_validation', method: 'http', type: 'dv' },
    created_at: new Date(h.createdAt).toISOString(),
  });

  /** What an operation answers, having acted. */
  const act = (op: EdgeOperation, url: URL, id: string | undefined, body: unknown): Answer => {
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

  /** A route per operation: the method, on the collection or on one hostname (its id in the path). */
  const routes: SandboxRoute<EdgeOperation>[] = OPERATIONS.map((op) => ({
    match: (method, url) => {
      const m = /^\/v1\/custom_hostnames(?:\/([^/]+))?$/.exec(url.pathname);
      return m && opOf(method, m[1] !== undefined) === op ? { op, params: m[1] ? [m[1]] : [] } : undefined;
    },
    act: ([id], body, url) => act(op, url, id && decodeURIComponent(id), body),
    // Only a creation has a body; another call's is not read.
    ignoresBody: op !== 'create',
  }));

  const server = await startSandboxServer(routes, { host: o.host, port: o.port, error, operations: OPERATIONS, modes: ['fail', 'hang', 'late'], ok: { success: true }, who: 'edge' });
  return {
    url: server.url,
    fault: (f) => server.fault(f),
    hostnames: () => [...held.values()].map((h) => ({ id: h.id, hostname: h.hostname, ref: h.ref, certificate: view(h).ssl.status })),
    calls: server.calls as Record<EdgeOperation, number>,
    close: () => server.close(),
  };
}

/** The operation a method is on the collection (`withId` false) or on one hostname. */
function opOf(method: string, withId: boolean): EdgeOperation | undefined {
  if (!withId && method === 'GET') return 'list';
  if (!withId && method === 'POST') return 'create';
  if (withId && method === 'GET') return 'get';
  if (withId && method === 'DELETE') return 'delete';
  return undefined;
}
