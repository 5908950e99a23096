/** In each test worker: back to the ordinary priority that test/global-setup.ts raised for the runner, which the
 * worker inherited; the servers and tools a test starts then compete as they would anywhere. */
import { getPriority, setPriority } from 'node:os';

/** The runner's niceness (lower is sooner; 0 is everyone's). */
export const RUNNER_PRIORITY = -5;

if (getPriority() < 0) setPriority(0);
