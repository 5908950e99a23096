/** The check a per-project write makes inside its transaction: its caller read the project before the write,
 * and deleteProject may have run in between. */
import { eq } from 'drizzle-orm';
import { AppError, notFound } from '../lib/errors';
import type { Tx } from './db';
import { projects } from './schema';

/**
 * Throws 404 `not_found` when the project is gone or being deleted: a row written for a gone project would break
 * its foreign key (a 500), and one written for a project being deleted would outlive what its deletion released.
 */
export async function checkLiveProject(tx: Tx, p: { projectId: number; projectName: string }): Promise<void> {
  const [row] = await tx.select({ deletingSince: projects.deletingSince }).from(projects).where(eq(projects.id, p.projectId));
  if (!row) throw notFound(`project ${p.projectName}`);
  if (row.deletingSince !== null) throw new AppError(404, 'not_found', `project ${p.projectName} is being deleted`);
}
