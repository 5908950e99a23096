/**
 * The edge provider port: the CDN in front of the nodes that terminates TLS for customers' hostnames, in the
 * shape of the custom-hostname APIs of the big CDNs (Cloudflare for SaaS custom hostnames, Fastly TLS
 * subscriptions, CloudFront multi-tenant distributions): the service registers a hostname, the edge validates
 * and issues its certificate, and later the hostname is removed.
 *
 * Contract:
 * - Every edge hostname carries `ref`, the lifetime (uid) of the hostname row it was made for. The store is the
 *   truth about which lifetime holds a name; the edge is told, never asked, who owns it.
 * - `ensure` is idempotent: a hostname already held for `ref` is answered as it is, so a call whose answer was
 *   lost (the edge acted, then the caller gave up) and is sent again creates nothing twice. One held for another
 *   `ref` is stale (a lifetime whose cleanup was lost) and is replaced.
 * - `remove` is idempotent: nothing held for (hostname, ref) is no error. It never removes another lifetime's.
 * - A failure is EdgeError with a message for people (no credentials); the caller retries with backoff and
 *   shows it in the hostname's conditions. Nothing is lost: callers keep their desired rows and finalizers until
 *   a call succeeds.
 */

/** The certificate state the edge reports (Cloudflare's `ssl.status` values that matter here). */
export type CertificateStatus = 'pending_validation' | 'active';

export interface EdgeHostname {
  /** The edge's own id of the hostname. */
  id: string;
  hostname: string;
  ref: string;
  certificate: CertificateStatus;
}

export interface Edge {
  /** Makes the edge route `hostname` for the lifetime `ref`; answers what the edge holds for it. */
  ensure(hostname: string, ref: string): Promise<EdgeHostname>;
  /** Removes the edge's hostname of the lifetime `ref`, if it holds one. */
  remove(hostname: string, ref: string): Promise<void>;
}

/** The edge did not do what was asked: it did not answer in time, refused, or failed. */
export class EdgeError extends Error {
  override name = 'EdgeError';
}
