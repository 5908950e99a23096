/**
 * One word for where a reconciled resource stands, as the console counts them (issue 24 item 3, after Argo CD's
 * health: Healthy, Progressing, Degraded): `deleting` while its deletion is pending; `progressing` until its
 * reconciler has acted on its generation, or while a condition waits on something that takes time by design (a
 * proof, a certificate, a parent's DS, caches); `failing` when a condition is False or Unknown for any other
 * reason; else `ready`. The reasons are those of docs/reconcile.md.
 */
import type { Condition } from '../lib/conditions';

export type ResourceState = 'ready' | 'progressing' | 'failing' | 'deleting';
export const RESOURCE_STATES: readonly ResourceState[] = ['ready', 'progressing', 'failing', 'deleting'];

/** Reasons of a condition that is not True yet while the resource is on its way, not stuck. */
export const WAITING_REASONS: ReadonlySet<string> = new Set([
  'KeysPending', 'WaitingForParent', 'WaitingForCaches',
  'PendingVerification', 'WaitingForCleanup', 'Activating', 'CertificatePending', 'PendingValidation',
]);

export interface Judgeable {
  generation: number;
  observedGeneration: number | null;
  conditions: readonly Condition[];
  deletingSince: string | null;
}

export function resourceState(r: Judgeable): ResourceState {
  if (r.deletingSince !== null) return 'deleting';
  const notTrue = r.conditions.filter((c) => c.status !== 'True');
  if (notTrue.some((c) => !WAITING_REASONS.has(c.reason))) return 'failing';
  if (r.observedGeneration === null || r.observedGeneration < r.generation || notTrue.length > 0) return 'progressing';
  return 'ready';
}

/** Orders conditions by when they last changed, longest ago first. */
export const sinceLongest = (a: Condition, b: Condition): number =>
  (a.lastTransitionTime < b.lastTransitionTime ? -1 : a.lastTransitionTime > b.lastTransitionTime ? 1 : 0);

/** The conditions that are not True, longest so first: what the "needs attention" list shows of a resource. */
export const attentionOf = (conditions: readonly Condition[]): Condition[] => conditions.filter((c) => c.status !== 'True').sort(sinceLongest);
