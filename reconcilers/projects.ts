/**
 * The project reconciler: finalizes deleted projects (deleteProject, store/projects.ts). A project being deleted
 * keeps its row, so its name and its place in the plan's count, until what it had outside the store is gone:
 * its custom hostnames' edge hostnames and managed records (the hostname reconciler's finalizers) and its part
 * of node bundles (the bundle reconciler builds them again without it). One pass releases whatever was added to
 * the project since (a write that read it just before its deletion), and removes the project once nothing is
 * left to wait for.
 *
 * Watches: a 'project' change of the project (its deletion). Neither a hostname finalizer's end nor a bundle
 * built says which project it concerned, so a project still waiting is looked at again every `pollMs`.
 */
import type { Store } from '../store/db';
import { deletingProjectIds, finalizeProject } from '../store/projects';
import { identityWatch, type Reconciler, type Result } from './types';

/** How often a project being deleted is looked at again while it waits. */
export const FINALIZE_POLL_MS = 2_000;

export function projectReconciler(d: { store: Store; pollMs?: number }): Reconciler {
  const pollMs = d.pollMs ?? FINALIZE_POLL_MS;
  return {
    kind: 'project',
    watches: [identityWatch('project')],
    keys: () => deletingProjectIds(d.store),
    async reconcile(key): Promise<Result> {
      const left = await finalizeProject(d.store, Number(key));
      return left === null ? {} : { requeueAfterMs: pollMs };
    },
  } satisfies Reconciler;
}
