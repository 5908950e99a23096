/** Projects, their hostnames and placements. */
import { randomBytes } from 'node:crypto';
import { and, asc, count, eq, gt, isNotNull, sql, type SQL } from 'drizzle-orm';
import { AppError, conflict, notFound } from '../lib/errors';
import { iso, type Db, type Store, type Tx } from './db';
import { appendAudit, recordChange } from './feed';
import { releaseCustomHostnames, unfinalizedHostnamesOf } from './hostnames';
import { decodeCursor, toPage, type Page } from './paging';
import {
  accessCodes, accessPolicies, authGrants, authProviders, hostnames, nodeBundles, nodes, orgs, placements, projects, projectUsage, secrets, storageGrants,
  storagePrefixes,
} from './schema';

/** Who writes a per-project grant or policy (sign-in, storage, access), in which org and project: the audit
 * record's actor and target. */
export interface ProjectWrite { orgId: number; projectId: number; projectName: string; actor: string }

export interface Project {
  id: number; name: string; hostname: string; database: boolean; createdAt: string;
  /** When its deletion was asked; null while it lives. */
  deletingSince: string | null;
}

/** What the deletion of a project still waits for: its custom hostnames whose edge hostname or managed records
 * are not removed yet, and the nodes whose bundle as last built still carries it. */
export interface ProjectCleanup { hostnames: string[]; nodes: string[] }

const projectColumns = {
  id: projects.id,
  name: projects.name,
  hostname: hostnames.name,
  database: projects.database,
  createdAt: projects.createdAt,
  deletingSince: projects.deletingSince,
};
const withDefaultHostname = and(eq(hostnames.projectId, projects.id), eq(hostnames.kind, 'default'));

export interface CreateProject {
  orgId: number;
  plan: string;
  limit: number;
  name: string;
  database: boolean;
  hostname: string;
  actor: string;
}

/**
 * Creates the project and its default hostname. The count runs inside the write transaction, under the
 * organization's lock, so concurrent creations can never pass the plan's limit.
 */
export async function createProject(s: Store, p: CreateProject): Promise<Project> {
  const now = s.clock();
  return s.write(async (tx) => {
    await tx.lock(`org/${p.orgId}`);
    const [named] = await tx.select({ deletingSince: projects.deletingSince }).from(projects).where(and(eq(projects.orgId, p.orgId), eq(projects.name, p.name)));
    if (named) {
      throw conflict('project_name_taken', named.deletingSince === null
        ? `project ${p.name} already exists`
        : `project ${p.name} is being deleted: its name is free once its cleanup is done`);
    }
    const [held] = await tx.select({ name: hostnames.name }).from(hostnames).where(eq(hostnames.name, p.hostname));
    if (held) throw conflict('hostname_taken', `hostname ${p.hostname} is held by another project`);
    const [counted] = await tx.select({ n: count() }).from(projects).where(eq(projects.orgId, p.orgId));
    const n = counted?.n ?? 0;
    if (n >= p.limit) {
      throw conflict('project_limit', `the ${p.plan} plan allows ${p.limit} projects`, { limit: p.limit, count: n, plan: p.plan });
    }
    const createdAt = iso(now);
    const [created] = await tx.insert(projects)
      .values({ orgId: p.orgId, name: p.name, uid: randomBytes(16).toString('hex'), database: p.database, generation: 1, createdAt })
      .returning({ id: projects.id });
    const { id } = created!;
    await tx.insert(hostnames).values({ name: p.hostname, projectId: id, kind: 'default', status: 'active', createdAt });
    await recordChange(s, tx, 'project', String(id), now);
    await appendAudit(tx, { orgId: p.orgId, event: 'project.create', actor: p.actor, target: p.name, details: { hostname: p.hostname, database: p.database } }, now);
    return { id, name: p.name, hostname: p.hostname, database: p.database, createdAt, deletingSince: null };
  });
}

export async function listProjects(s: Store, orgId: number, limit: number, cursor?: string): Promise<Page<Project>> {
  const after = cursor === undefined ? undefined : gt(projects.name, decodeCursor(cursor));
  const rows = await s.db.select(projectColumns).from(projects).innerJoin(hostnames, withDefaultHostname)
    .where(and(eq(projects.orgId, orgId), after)).orderBy(asc(projects.name)).limit(limit + 1);
  return toPage(rows, limit, (r) => r.name);
}

/** The project of this org by name, to act on; another org's project reads as missing, and so does one being
 * deleted: what it had is gone or going, and nothing may be added to it. */
export async function getProject(s: Store, orgId: number, name: string): Promise<Project> {
  const [row] = await s.prepared('getProject', (db) => db.select(projectColumns).from(projects).innerJoin(hostnames, withDefaultHostname)
    .where(and(eq(projects.orgId, sql.placeholder('orgId')), eq(projects.name, sql.placeholder('name')))).prepare())
    .execute({ orgId, name });
  if (!row) throw notFound(`project ${name}`);
  if (row.deletingSince !== null) throw new AppError(404, 'not_found', `project ${name} is being deleted`);
  return row;
}


/** Operator placement of a project on a node (the deploy path's job; until then, the CLI's). */
export async function setPlacement(s: Store, orgId: number, projectName: string, nodeId: string): Promise<void> {
  const p = await getProject(s, orgId, projectName);
  const now = s.clock();
  await s.write(async (tx) => {
    const [node] = await tx.select({ id: nodes.id }).from(nodes).where(eq(nodes.id, nodeId));
    if (!node) throw notFound(`node ${nodeId}`);
    await tx.insert(placements).values({ projectId: p.id, nodeId, createdAt: iso(now) }).onConflictDoNothing();
    await recordChange(s, tx, 'placement', nodeId, now);
  });
}

/** Takes the project off the node: its next bundle drops it. False when it was not placed there; 404 when the node
 * does not exist (a mistyped id is not "not placed there"). */
export async function removePlacement(s: Store, orgId: number, projectName: string, nodeId: string): Promise<boolean> {
  const p = await getProject(s, orgId, projectName);
  const now = s.clock();
  return s.write(async (tx) => {
    const [node] = await tx.select({ id: nodes.id }).from(nodes).where(eq(nodes.id, nodeId));
    if (!node) throw notFound(`node ${nodeId}`);
    const gone = await tx.delete(placements).where(and(eq(placements.projectId, p.id), eq(placements.nodeId, nodeId))).returning({ nodeId: placements.nodeId });
    if (gone.length > 0) await recordChange(s, tx, 'placement', nodeId, now);
    return gone.length > 0;
  });
}

/** Whether a bundle's sections (a JSON object in text) have a section for the project: SQLite reads the text with
 * json_type, PostgreSQL casts it to jsonb. */
const carries = (d: Pick<Store, 'dialect'>, projectId: number): SQL => d.dialect === 'postgres'
  ? sql`(${nodeBundles.sections})::jsonb -> ${String(projectId)}::text IS NOT NULL`
  : sql`json_type(${nodeBundles.sections}, ${`$."${projectId}"`}) IS NOT NULL`;

export async function cleanupLeft(d: Pick<Store, 'dialect'>, q: Db, projectId: number): Promise<ProjectCleanup> {
  const carrying = await q.select({ nodeId: nodeBundles.nodeId }).from(nodeBundles)
    .where(carries(d, projectId)).orderBy(asc(nodeBundles.nodeId));
  return { hostnames: await unfinalizedHostnamesOf(q, projectId), nodes: carrying.map((r) => r.nodeId) };
}

/**
 * Everything of a project being deleted but its row, its default hostname and its storage prefix, in the write
 * of `tx`: placements (each node's bundle is built again without it), custom hostnames (each with the finalizer
 * deleteHostname leaves), secrets, grants, sign-in providers, access policy and codes, usage. Run by every
 * finalizing pass as well: a write that read the project just before its deletion may have added a row since.
 */
async function release(s: Store, tx: Tx, p: { id: number; orgId: number }, now: Date): Promise<{ nodes: string[]; hostnames: string[] }> {
  const unplaced = await tx.delete(placements).where(eq(placements.projectId, p.id)).returning({ nodeId: placements.nodeId });
  for (const { nodeId } of unplaced) await recordChange(s, tx, 'placement', nodeId, now);
  const released = await releaseCustomHostnames(s, tx, p.id, p.orgId, now);
  await tx.delete(secrets).where(eq(secrets.projectId, p.id));
  await tx.delete(authGrants).where(eq(authGrants.projectId, p.id));
  await tx.delete(authProviders).where(eq(authProviders.projectId, p.id));
  await tx.delete(storageGrants).where(eq(storageGrants.projectId, p.id));
  await tx.delete(accessPolicies).where(eq(accessPolicies.projectId, p.id));
  await tx.delete(accessCodes).where(eq(accessCodes.projectId, p.id));
  await tx.delete(projectUsage).where(eq(projectUsage.projectId, p.id));
  return { nodes: unplaced.map((r) => r.nodeId), hostnames: released };
}

/** Releases what is left and, when nothing outside the store holds the project any more, removes its row, its
 * default hostname and its storage prefix: its name and its place in the plan's count are free. Answers what it
 * still waits for, or null once it is gone. */
async function releaseOrFinish(s: Store, tx: Tx, p: { id: number; orgId: number }, now: Date): Promise<{ left: ProjectCleanup | null; released: { nodes: string[]; hostnames: string[] } }> {
  const released = await release(s, tx, p, now);
  const left = await cleanupLeft(s, tx, p.id);
  if (left.hostnames.length > 0 || left.nodes.length > 0) return { left, released };
  await tx.delete(hostnames).where(eq(hostnames.projectId, p.id));
  await tx.delete(storagePrefixes).where(eq(storagePrefixes.projectId, p.id));
  await tx.delete(projects).where(eq(projects.id, p.id));
  await recordChange(s, tx, 'project', String(p.id), now);
  return { left: null, released };
}

export interface DeletedProject {
  id: number;
  /** What its cleanup waits for as this write left it; null when nothing was: the project is gone already. The
   * reconcilers its commit wakes may have done some of it before the caller reads the project again. */
  left: ProjectCleanup | null;
  /** The nodes it was taken off and the custom hostnames given up by this call, for nudges. */
  released: { nodes: string[]; hostnames: string[] };
}

/**
 * deleteProject (beyond the spec; docs/api.md): marks the project as being deleted and releases what it had
 * (`release`); the project reconciler finalizes it once its hostnames are cleaned up and no node's bundle
 * carries it, and then its name and its place in the plan's count are free. Audit `project.delete` on the first
 * call; a call for a project already being deleted writes nothing new and answers as the first did.
 */
export async function deleteProject(s: Store, p: { orgId: number; name: string; actor: string }): Promise<DeletedProject> {
  const now = s.clock();
  return s.write(async (tx) => {
    await tx.lock(`org/${p.orgId}`);
    const [row] = await tx.select({ id: projects.id, deletingSince: projects.deletingSince }).from(projects)
      .where(and(eq(projects.orgId, p.orgId), eq(projects.name, p.name)));
    if (!row) throw notFound(`project ${p.name}`);
    if (row.deletingSince === null) {
      await tx.update(projects).set({ deletingSince: iso(now), generation: sql`${projects.generation} + 1` }).where(eq(projects.id, row.id));
      await recordChange(s, tx, 'project', String(row.id), now);
      await appendAudit(tx, { orgId: p.orgId, event: 'project.delete', actor: p.actor, target: p.name }, now);
    }
    const { left, released } = await releaseOrFinish(s, tx, { id: row.id, orgId: p.orgId }, now);
    return { id: row.id, left, released };
  });
}

/** What `admin status` shows of a project being deleted. */
export interface DeletingProject { org: string; project: string; deletingSince: string; cleanup: ProjectCleanup }

/** The projects being deleted, by org and name, each with what its deletion waits for. */
export async function deletingProjects(s: Store): Promise<DeletingProject[]> {
  const rows = await s.db.select({ id: projects.id, org: orgs.slug, project: projects.name, deletingSince: projects.deletingSince }).from(projects)
    .innerJoin(orgs, eq(orgs.id, projects.orgId)).where(isNotNull(projects.deletingSince)).orderBy(asc(orgs.slug), asc(projects.name));
  return Promise.all(rows.map(async ({ id, deletingSince, ...r }) => ({ ...r, deletingSince: deletingSince!, cleanup: await cleanupLeft(s, s.db, id) })));
}

/** The projects being deleted: the project reconciler's keys. */
export async function deletingProjectIds(s: Store): Promise<string[]> {
  return (await s.db.select({ id: projects.id }).from(projects).where(isNotNull(projects.deletingSince))).map((r) => String(r.id));
}

/** One finalizing pass over project `id` (the project reconciler's): null when it is not being deleted or is gone
 * now, else what it still waits for. */
export async function finalizeProject(s: Store, id: number): Promise<ProjectCleanup | null> {
  const [marked] = await s.db.select({ orgId: projects.orgId, deletingSince: projects.deletingSince }).from(projects).where(eq(projects.id, id)).limit(1);
  if (!marked || marked.deletingSince === null) return null;
  const now = s.clock();
  return s.write(async (tx) => {
    await tx.lock(`org/${marked.orgId}`);
    const [still] = await tx.select({ deletingSince: projects.deletingSince }).from(projects).where(eq(projects.id, id));
    if (!still || still.deletingSince === null) return null;
    return (await releaseOrFinish(s, tx, { id, orgId: marked.orgId }, now)).left;
  });
}
