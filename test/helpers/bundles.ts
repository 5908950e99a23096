/** A store, sealer and bundle reconciler in a fresh directory, for the bundle reconciler's tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEY_FILE, openSealer, type Sealer } from '../../core/sealing';
import { DEFAULT_PLANS } from '../../rules/plans';
import { bundleContext } from '../../core/sealing';
import { bundleReconciler } from '../../reconcilers/bundles';
import type { Reconciler } from '../../reconcilers/types';
import { type Store } from '../../store/db';
import { openTestStore } from './store';
import { storedBundle, type BundleProject } from '../../store/nodes';

export interface BundleEnv { dir: string; s: Store; sealer: Sealer; r: Reconciler }

export async function openBundleEnv(prefix: string): Promise<BundleEnv> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const s = await openTestStore(dir);
  const sealer = openSealer(join(dir, KEY_FILE));
  return { dir, s, sealer, r: bundleReconciler({ store: s, sealer, plans: DEFAULT_PLANS }) };
}

export function closeBundleEnv(e: Pick<BundleEnv, 'dir' | 's'>): void {
  e.s.close();
  rmSync(e.dir, { recursive: true, force: true });
}

/** The node's stored bundle, opened. */
export const openedBundle = async (s: Store, sealer: Sealer, node: string): Promise<BundleProject[]> =>
  JSON.parse(sealer.open(bundleContext(node), (await storedBundle(s, node))!.sealed)) as BundleProject[];
