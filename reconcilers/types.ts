/**
 * The reconciler contract (controller-runtime's): a request carries only a key; the reconciler re-reads
 * desired and observed state, converges, records what it observed. Returning normally means converged
 * (optionally check again later); throwing means retry with backoff; `TerminalError` means record and stop
 * until the desired state changes.
 */
export type Kind = 'zone';

export interface Result { requeueAfterMs?: number }

export interface Reconciler {
  readonly kind: Kind;
  /** Every key that may need work: run at start and on each resync. */
  keys(): Promise<string[]>;
  /** Level-triggered and idempotent: a second run over converged state changes nothing. */
  reconcile(key: string, signal: AbortSignal): Promise<Result>;
}

export class TerminalError extends Error {
  override name = 'TerminalError';
}
