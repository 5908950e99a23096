/**
 * The node agent's side of the control plane's node endpoints (docs/api.md, Nodes), behind a small interface so
 * that the agent's loops are tested against a fake: the bundle long-poll, the report, and the redeem of a
 * deployment access code.
 */
import type { z } from 'zod';
import { createClient, type components } from '../../client/index';
import { etagVersion, NodeBundle } from './bundle';
import { nodeFetch } from './fetch';

/** The answer of one bundle request: a newer bundle, or the same version still (304 at the end of the wait). */
export type BundleAnswer = { kind: 'changed'; version: string; bundle: NodeBundle } | { kind: 'unchanged' };

/** What a node reports: the version whose every worker runs, and per placed project its usage, the version the
 * project runs at and why its worker does not run (docs/api.md, Nodes). */
export interface Report {
  bundleVersion: string;
  projects: { org: string; project: string; usedBytes: number; appliedVersion: string | null; failure: string | null }[];
}

/** The longest failure reason a report carries: the control plane keeps a short one per project (api/nodes.ts). */
export const MAX_FAILURE_CHARS = 200;

/** Who a redeemed access code lets in, where to, and their role in the organization now. */
export interface Redeemed {
  host: string;
  next: string;
  /** The user's email. */
  user: string;
  org: string;
  role: 'viewer' | 'member' | 'admin';
}

export interface ControlPlane {
  /** `GET /v1/nodes/{nodeId}/bundle`, with `If-None-Match: "<version>"` and `?wait=` when a version is held. */
  bundle(opts: { version: string | null; waitSeconds: number; signal?: AbortSignal }): Promise<BundleAnswer>;
  /** `POST /v1/nodes/{nodeId}/report`. */
  report(report: Report, signal?: AbortSignal): Promise<void>;
  /** `POST /v1/nodes/{nodeId}/access/redeem`: null when the code does not hold (unknown, expired, spent, or for
   * a host this node does not serve: 404). */
  redeem(code: string, signal?: AbortSignal): Promise<Redeemed | null>;
  close(): void;
}

/** A control plane that answered other than the contract says (a 401 for a wrong token, a 5xx): the agent
 * retries with backoff either way. The message has the status and error code, never a value. */
export class ControlPlaneError extends Error {
  override name = 'ControlPlaneError';
  constructor(readonly status: number, readonly code: string | undefined, message: string) {
    super(message);
  }
}

/** The API's bundle (client/schema.ts, generated from api/nodes.ts) parses as the agent's NodeBundle: checked
 * here at compile time, so that a change of the bundle's shape fails the build rather than the nodes. */
type ApiBundle = components['schemas']['Bundle'];
const apiBundleParses: ApiBundle extends z.input<typeof NodeBundle> ? true : never = true;
void apiBundleParses;

const failure = (what: string, r: { status: number; error?: { code?: string } | undefined }): ControlPlaneError => {
  const code = typeof r.error?.code === 'string' ? r.error.code : undefined;
  return new ControlPlaneError(r.status, code, `${what}: ${r.status}${code ? ` ${code}` : ''}`);
};

/** The control plane at `baseUrl` (http or https; `ca`: PEM certificates to trust besides the system's). */
export function httpControlPlane(opts: { baseUrl: string; nodeId: string; token: string; ca?: string }): ControlPlane {
  const transport = nodeFetch({ ca: opts.ca });
  const api = createClient({ baseUrl: opts.baseUrl, token: opts.token, fetch: transport.fetch });
  const path = { nodeId: opts.nodeId };
  return {
    async bundle({ version, waitSeconds, signal }) {
      const r = await api.GET('/v1/nodes/{nodeId}/bundle', {
        path,
        ...(version === null ? {} : { query: { wait: String(waitSeconds) }, headers: { 'If-None-Match': `"${version}"` } }),
        signal,
      });
      if (r.status === 304) return { kind: 'unchanged' };
      if (r.status !== 200) throw failure('bundle', r);
      const v = etagVersion(r.headers.get('etag'));
      if (v === null) throw new ControlPlaneError(r.status, undefined, 'bundle: the answer has no ETag');
      const parsed = NodeBundle.safeParse(r.data);
      if (!parsed.success) {
        // Paths only: an issue's message could quote a value.
        throw new ControlPlaneError(r.status, undefined, `bundle: unexpected shape at ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`);
      }
      return { kind: 'changed', version: v, bundle: parsed.data };
    },
    async report(report, signal) {
      // Versions are the control plane's change seq: a number, which the ETag carries as text.
      const number = (v: string): number => {
        if (!/^\d+$/.test(v)) throw new ControlPlaneError(0, undefined, `report: bundle version ${v} is not a number`);
        return Number(v);
      };
      const body = {
        bundleVersion: number(report.bundleVersion),
        projects: report.projects.map(({ appliedVersion, failure, ...p }) => ({
          ...p,
          ...(appliedVersion === null ? {} : { appliedVersion: number(appliedVersion) }),
          failure: failure === null ? null : failure.slice(0, MAX_FAILURE_CHARS),
        })),
      };
      const r = await api.POST('/v1/nodes/{nodeId}/report', { path, body, signal });
      if (!r.ok) throw failure('report', r);
    },
    async redeem(code, signal) {
      const r = await api.POST('/v1/nodes/{nodeId}/access/redeem', { path, body: { code }, signal });
      if (r.status === 404) return null;
      if (r.status !== 200) throw failure('redeem', r);
      return r.data;
    },
    close: () => transport.close(),
  };
}
