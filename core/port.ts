/**
 * The Core port: everything `api/` needs from the core component. In `serve` it is the in-process core;
 * in `api --core-url` an HTTP client of a separate `core` process; without a core URL it is absent and the
 * operations that need it answer 503 `no_core`.
 */
export interface DnsInfo {
  /** False when the deployment runs no own DNS (`serve --dns off`): DNS operations answer 503 `dns_not_configured`. */
  configured: boolean;
  /** The public nameserver host names delegations must point to. */
  nameservers: string[];
}

export type NudgeKind = 'zone' | 'node';

export interface Core {
  /** Seals a secret value under the current key, with `context` bound as additional authenticated data. */
  seal(context: string, plaintext: string): Promise<string>;
  dns(): Promise<DnsInfo>;
  /** Wakes the reconciler of (kind, key) now instead of at its next resync. Never throws: a lost nudge only
   * delays convergence until the change feed poll picks the change up. */
  nudge(kind: NudgeKind, key: string): void;
}
