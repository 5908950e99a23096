/**
 * The Core port: everything `api/` needs from the core component. In `serve` it is the in-process core;
 * in `api --core-url` an HTTP client of a separate `core` process; without a core URL it is absent and the
 * operations that need it answer 503 `no_core`.
 *
 * A method fails with an AppError, which reaches the API's caller as it was thrown in the core (status, code,
 * message, details), in-process or over HTTP; over HTTP a core that does not answer is 503 `core_unavailable`,
 * and a call is never run twice for one call of a method (`core/routes.ts`). A new method needs its route there.
 *
 * With several processes on one store, the methods whose work calls a provider (`domain`, `verifyHostname`) run in
 * the leader's process only (core/replicas.ts): a follower sends them to the leader over the same wire, and answers
 * 503 `core_unavailable` with Retry-After while none leads or the leader does not answer. A new method that calls a
 * provider (or writes what only the leader may) belongs on that list too.
 */
import type { Availability, Contact } from '../providers/registrar/port';
import type { ChangeKind } from '../store/feed';

export interface DnsInfo {
  /** False when the deployment runs no own DNS (`serve --dns off`): DNS operations answer 503 `dns_not_configured`. */
  configured: boolean;
  /** The public nameserver host names delegations must point to. */
  nameservers: string[];
}

export interface PurchaseInput { orgId: number; plan: string; zoneLimit: number; name: string; years: number; contact: Contact; paymentMethod: string; actor: string }

/** What the API asks of the core about domains; each throws AppErrors with the spec's codes. */
export interface DomainCalls {
  check: { in: { names: string[] }; out: { results: Availability[] } };
  purchase: { in: PurchaseInput; out: { created: boolean } };
  renew: { in: { orgId: number; name: string; years: number; actor: string }; out: { ok: true } };
  lock: { in: { orgId: number; name: string; locked: boolean; actor: string }; out: { ok: true } };
  authCode: { in: { orgId: number; name: string; actor: string }; out: { authCode: string; transferLockedUntil: string | null } };
  sync: { in: { orgId: number; name: string }; out: { ok: true } };
}
export type DomainOp = keyof DomainCalls;
export const DOMAIN_OPS = ['check', 'purchase', 'renew', 'lock', 'authCode', 'sync'] as const satisfies readonly DomainOp[];

/** What answers `Core.domain` in the core's process: the domain saga and registrar calls (sagas/domains.ts). */
export interface DomainHandler {
  call<K extends DomainOp>(op: K, input: DomainCalls[K]['in']): Promise<DomainCalls[K]['out']>;
}

/** A nudge names a change: the reconcilers that watch its kind wake as they would for it in the feed. */
export type NudgeKind = ChangeKind;

export interface Core {
  /** Seals a secret value under the current key, with `context` bound as additional authenticated data. */
  seal(context: string, plaintext: string): Promise<string>;
  dns(): Promise<DnsInfo>;
  /** Wakes the reconcilers watching a change of (kind, key) now instead of at the next poll of the feed.
   * Never throws: a lost nudge only delays convergence until the poll picks the change up. */
  nudge(kind: ChangeKind, key: string): void;
  /** verifyHostname (spec 4.5 rule 4): judges the custom hostname `name` now, as the minute loop does, and
   * records the outcome (active, pending with `lastError`, or released when another organization's zone overrules
   * the row) before it resolves. Bounded by the resolver's
   * timeout: a resolver that does not answer is a `lastError`, never a failure of this call. */
  verifyHostname(name: string): Promise<void>;
  /** Opens the sealed bundle of node `nodeId` (store/nodes.ts, sealed by the bundle reconciler with context
   * `bundle/<nodeId>`) and answers its plain JSON text, for that node's own GET of it. It holds secret values:
   * never log it. A bundle sealed for another node does not open (500). */
  openBundle(nodeId: string, sealed: string): Promise<string>;
  /** The domain operations that ask the registrar or the payment provider now (spec 4.3; sagas/domains.ts): check,
   * purchase (the saga, resumed by sending again), renew, lock, auth code, sync. They fail with the spec's codes:
   * 402 `payment_failed`, 409 `domain_taken` / `domain_unavailable`, 502 `registrar_error` / `saga_incomplete`,
   * 503 `registrar_not_configured` / `dns_not_configured`. The contact and an auth code cross here only. */
  domain<K extends DomainOp>(op: K, input: DomainCalls[K]['in']): Promise<DomainCalls[K]['out']>;
}
