/**
 * Before any test: as root, the node tests run each project's worker (and its sign-in database helper) as a uid of
 * its own, loading the code from this checkout, so every directory from / down to it must be searchable by others
 * (0711 or 0755). Without that, dozens of tests fail with workers that cannot load; this says why at once instead.
 */
import { statSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresMissing, startCluster } from '../harness/postgres';
import { PG_SOCKET_ENV } from './helpers/store';
import { RUNNER_PRIORITY } from './setup-priority';

/** The PostgreSQL pass (HOSTPLANE_TEST_STORE=postgres): one cluster for the run, its socket dir handed to the test
 * processes (they start after this, with this environment); its teardown removes it. */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  checkSearchable();
  if (process.env.HOSTPLANE_TEST_STORE !== 'postgres') return runnerFirst();
  const missing = postgresMissing();
  if (missing) throw new Error(`HOSTPLANE_TEST_STORE=postgres, but ${missing}`);
  const cluster = await startCluster();
  process.env[PG_SOCKET_ENV] = cluster.socketDir;
  runnerFirst();
  return () => cluster.destroy();
}

/**
 * The test runner's own process a little ahead of everything else on a busy machine (as root only: a raised
 * priority needs it). Its workers' calls to it time out after 60 s, unanswered while it waits for a core behind
 * the workers, their servers and whatever else runs ("Timeout calling onTaskUpdate", failing a run whose tests all
 * passed). The workers it starts inherit the priority and give it back (test/setup-priority.ts).
 */
function runnerFirst(): undefined {
  try {
    setPriority(RUNNER_PRIORITY);
  } catch {
    // Not root: the runner competes as an equal, as it always did.
  }
  return undefined;
}

function checkSearchable(): void {
  if (process.getuid?.() !== 0) return;
  const closed: string[] = [];
  for (let dir = resolve(dirname(fileURLToPath(import.meta.url)), '..'); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) closed.push(dir);
    if (dirname(dir) === dir) break;
  }
  if (closed.length > 0) {
    throw new Error(`run as root, the tests start workers as other users, which must reach this checkout; not searchable by others: ${closed.join(', ')} `
      + `(chmod o+x them, or clone elsewhere, as .ci/run does)`);
  }
}
