/**
 * The reconciler contract (controller-runtime's): a request carries only a key; the reconciler re-reads
 * desired and observed state, converges, records what it observed. Returning normally means converged
 * (optionally check again later); throwing means retry with backoff; `TerminalError` means record and stop
 * until the desired state changes.
 */
import type { ChangeKind } from '../store/feed';

export interface Result { requeueAfterMs?: number }

/** Which changes wake a reconciler, and which of its keys each one concerns. */
export interface Watch {
  kind: ChangeKind;
  /** The reconciler's keys that a change of `kind` at `changeKey` may affect (a secret of a project: the
   * bundles of the nodes the project is placed on). A failure here costs a resync of the reconciler. */
  keys(changeKey: string): Promise<string[]> | string[];
  /** Maps each change key at most once per this time; its changes meanwhile are mapped once at the end
   * (reconcilers/queue.ts). For a mapping that reads the store, under a stream of changes to one key. */
  spacingMs?: number;
}

/** A watch for a reconciler whose keys are the change keys of `kind` themselves (a zone change: that zone). */
export const identityWatch = (kind: ChangeKind): Watch => ({ kind, keys: (changeKey) => [changeKey] });

export interface Reconciler {
  /** The reconciler's name, in logs and metric labels ("zone", "bundle"). */
  readonly kind: string;
  readonly watches: readonly Watch[];
  /** Passes of this reconciler at once (the runner's default otherwise): one waiting on DNS answers takes more. */
  readonly concurrency?: number;
  /** Each key starts once per this time over a stream (a quiet one up to `spacingBurst` times within it); changes
   * meanwhile are taken by one run at its end (reconcilers/queue.ts). For a pass that costs the same however many
   * changes it takes. */
  readonly spacingMs?: number;
  /** Starts within the spacing a key that was quiet may take at once (reconcilers/queue.ts `burst`; default 1). */
  readonly spacingBurst?: number;
  /** Work its passes start and do not wait for (./zones/looks.ts: lookups that may take seconds). */
  readonly background?: Background;
  /** Every key that may need work: run at start and on each resync. */
  keys(): Promise<string[]>;
  /** Level-triggered and idempotent: a second run over converged state changes nothing. */
  reconcile(key: string, signal: AbortSignal): Promise<Result>;
}

/** A reconciler's work beside its passes: the runner attaches it once with `pass`, which queues a pass of a key as a
 * change of it does; idle() waits for it, stop() stops it. */
export interface Background {
  attach(pass: (key: string) => void): void;
  busy(): boolean;
  onIdle(): Promise<void>;
  stop(): Promise<void>;
}

export class TerminalError extends Error {
  override name = 'TerminalError';
}
