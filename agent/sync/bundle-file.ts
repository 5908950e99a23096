/**
 * `D/bundle.json`: the last bundle the agent received, written atomically (a reader sees the old or the new
 * one, never a torn file) with mode 0600, since it holds secret values. At start the agent serves from it until
 * the control plane answers, so a node restarted during an outage of the control plane keeps serving.
 */
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../lib/files';
import { NodeBundle, type VersionedBundle } from './bundle';
import { bundlePath } from '../layout';

/** Writes `{"version", "bundle"}` to `D/bundle.json` (mode 0600, fsynced, renamed over the old one). */
export function writeBundleFile(dir: string, b: VersionedBundle): void {
  writeFileAtomic(bundlePath(dir), `${JSON.stringify({ version: b.version, bundle: b.bundle })}\n`, 0o600);
}

/** The bundle `D/bundle.json` holds; null when there is none. A file that does not parse throws, naming the
 * problem but none of its content. */
export function readBundleFile(dir: string): VersionedBundle | null {
  let text: string;
  try {
    text = readFileSync(bundlePath(dir), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  let raw: { version?: unknown; bundle?: unknown };
  try {
    raw = JSON.parse(text) as typeof raw;
  } catch {
    throw new Error(`${bundlePath(dir)} is not JSON`);
  }
  const parsed = NodeBundle.safeParse(raw.bundle);
  if (typeof raw.version !== 'string' || !parsed.success) throw new Error(`${bundlePath(dir)} is not a bundle the agent wrote`);
  return { version: raw.version, bundle: parsed.data };
}
