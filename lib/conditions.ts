/** Conditions (Kubernetes' shape): how a reconciler reports what it checked, one model for every kind. */

/** One aspect of a resource's status, as its reconciler last checked it (stored in `resource_status.conditions`). */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

/**
 * `list` with `c` in place of the condition of its type. `lastTransitionTime` moves only when the status
 * flips: a condition that stays False for an hour says so since the hour began.
 */
export function setCondition(list: Condition[], c: Omit<Condition, 'lastTransitionTime'>, now: string): Condition[] {
  const old = list.find((x) => x.type === c.type);
  const next: Condition = { ...c, lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : now };
  return [...list.filter((x) => x.type !== c.type), next].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

export const conditionOf = (list: Condition[], type: string): Condition | undefined => list.find((c) => c.type === type);

/** Ready means the target was checked against what was desired at `generation`. */
export const isReady = (list: Condition[], generation: number): boolean => {
  const r = conditionOf(list, 'Ready');
  return r?.status === 'True' && r.observedGeneration === generation;
};
