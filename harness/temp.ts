/** Temp dirs of a test file or a benchmark run (daemons' configs, data dirs), removed together at its end. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs: string[] = [];

/** A fresh temp dir, removed by `removeTempDirs()`. */
export function tempDir(prefix = 'hostplane-e2e-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Removes every dir `tempDir` made so far; call it once the processes that used them have ended. */
export function removeTempDirs(): void {
  // A knotd whose serve was just killed may still be writing its last files under the dir (ENOTEMPTY seen under
  // load): rmSync's own retries walk the tree again until it is gone.
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
}
