/**
 * The edge port over the custom-hostname HTTP API the sandbox serves (providers/edge/sandbox.ts), which follows
 * Cloudflare's `/custom_hostnames` resource: list by `hostname`, create with `custom_metadata`, delete by id.
 * Every call has a deadline; `ensure` and `remove` are made idempotent here by looking before acting, keyed on
 * `custom_metadata.ref`.
 */
import { z } from 'zod';
import { callJson, parseJson } from '../sandbox-server';
import { EdgeError, type Edge, type EdgeHostname } from './port';

const EDGE_TIMEOUT_MS = 5_000;

const CustomHostname = z.object({
  id: z.string(),
  hostname: z.string(),
  custom_metadata: z.object({ ref: z.string() }).partial().optional(),
  ssl: z.object({ status: z.string() }),
});
type CustomHostname = z.infer<typeof CustomHostname>;
const One = z.object({ result: CustomHostname });
const Many = z.object({ result: z.array(CustomHostname) });

const toPort = (c: CustomHostname): EdgeHostname => ({
  id: c.id, hostname: c.hostname, ref: c.custom_metadata?.ref ?? '', certificate: c.ssl.status === 'active' ? 'active' : 'pending_validation',
});

export interface HttpEdgeOptions {
  /** Per call, from sending it to the end of its answer. */
  timeoutMs?: number;
}

/** The edge at `baseUrl` (`--edge-url`, or the sandbox `serve` starts). */
export function httpEdge(baseUrl: string, opts: HttpEdgeOptions = {}): Edge {
  const timeoutMs = opts.timeoutMs ?? EDGE_TIMEOUT_MS;
  const fail = (message: string): EdgeError => new EdgeError(message);
  const call = (what: string, method: string, path: string, body?: unknown) =>
    callJson(baseUrl, method, path, body, { timeoutMs }, fail, 'edge provider', what);
  const failed = (what: string, status: number, json: unknown): EdgeError => {
    const message = (json as { errors?: { message?: string }[] } | undefined)?.errors?.[0]?.message;
    return new EdgeError(`the edge provider answered ${status} to ${what}${message ? `: ${message}` : ''}`);
  };
  const parse = <T>(schema: z.ZodType<T>, what: string, json: unknown): T => parseJson(schema, json, fail, 'edge provider', what);

  const list = async (hostname: string): Promise<EdgeHostname[]> => {
    const what = `the lookup of ${hostname}`;
    const r = await call(what, 'GET', `/v1/custom_hostnames?hostname=${encodeURIComponent(hostname)}`);
    if (r.status !== 200) throw failed(what, r.status, r.json);
    return parse(Many, what, r.json).result.map(toPort).filter((h) => h.hostname === hostname);
  };
  const drop = async (h: EdgeHostname): Promise<void> => {
    const what = `the removal of ${h.hostname}`;
    const r = await call(what, 'DELETE', `/v1/custom_hostnames/${encodeURIComponent(h.id)}`);
    // Gone already: a removal whose answer was lost, sent again.
    if (r.status !== 200 && r.status !== 404) throw failed(what, r.status, r.json);
  };

  return {
    async ensure(hostname, ref) {
      for (const h of await list(hostname)) {
        if (h.ref === ref) return h;
        await drop(h);
      }
      const what = `the creation of ${hostname}`;
      const r = await call(what, 'POST', '/v1/custom_hostnames', { hostname, custom_metadata: { ref }, ssl: { method: 'http', type: 'dv' } });
      if (r.status === 409) {
        // Created meanwhile, by a call of ours that gave up before its answer came.
        const mine = (await list(hostname)).find((h) => h.ref === ref);
        if (mine) return mine;
      }
      if (r.status !== 200 && r.status !== 201) throw failed(what, r.status, r.json);
      return toPort(parse(One, what, r.json).result);
    },
    async remove(hostname, ref) {
      for (const h of await list(hostname)) if (h.ref === ref) await drop(h);
    },
  };
}
