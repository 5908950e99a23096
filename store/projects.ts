/** Projects, their hostnames and placements (a project's whole detail is read in store/read-model.ts). */
import { and, asc, count, eq, gt, sql } from 'drizzle-orm';
import { conflict, notFound } from '../lib/errors';
import { iso, type Store } from './db';
import { appendAudit, recordChange } from './feed';
import { decodeCursor, toPage, type Page } from './paging';
import { hostnames, nodes, placements, projects } from './schema';

/** Who writes a per-project grant or policy (sign-in, storage, access), in which org and project: the audit
 * record's actor and target. */
export interface ProjectWrite { orgId: number; projectId: number; projectName: string; actor: string }

export interface Project { id: number; name: string; hostname: string; database: boolean; createdAt: string }
const projectColumns = {
  id: projects.id,
  name: projects.name,
  hostname: hostnames.name,
  database: projects.database,
  createdAt: projects.createdAt,
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
    const [named] = await tx.select({ id: projects.id }).from(projects).where(and(eq(projects.orgId, p.orgId), eq(projects.name, p.name)));
    if (named) throw conflict('project_name_taken', `project ${p.name} already exists`);
    const [held] = await tx.select({ name: hostnames.name }).from(hostnames).where(eq(hostnames.name, p.hostname));
    if (held) throw conflict('hostname_taken', `hostname ${p.hostname} is held by another project`);
    const [counted] = await tx.select({ n: count() }).from(projects).where(eq(projects.orgId, p.orgId));
    const n = counted?.n ?? 0;
    if (n >= p.limit) {
      throw conflict('project_limit', `the ${p.plan} plan allows ${p.limit} projects`, { limit: p.limit, count: n, plan: p.plan });
    }
    const createdAt = iso(now);
    const [created] = await tx.insert(projects)
      .values({ orgId: p.orgId, name: p.name, database: p.database, generation: 1, createdAt })
      .returning({ id: projects.id });
    const { id } = created!;
    await tx.insert(hostnames).values({ name: p.hostname, projectId: id, kind: 'default', status: 'active', createdAt });
    await recordChange(s, tx, 'project', String(id), now);
    await appendAudit(tx, { orgId: p.orgId, event: 'project.create', actor: p.actor, target: p.name, details: { hostname: p.hostname, database: p.database } }, now);
    return { id, name: p.name, hostname: p.hostname, database: p.database, createdAt };
  });
}

export async function listProjects(s: Store, orgId: number, limit: number, cursor?: string): Promise<Page<Project>> {
  const after = cursor === undefined ? undefined : gt(projects.name, decodeCursor(cursor));
  const rows = s.db.select(projectColumns).from(projects).innerJoin(hostnames, withDefaultHostname)
    .where(and(eq(projects.orgId, orgId), after)).orderBy(asc(projects.name)).limit(limit + 1).all();
  return toPage(rows, limit, (r) => r.name);
}

/** The project of this org by name; another org's project reads as missing. */
export async function getProject(s: Store, orgId: number, name: string): Promise<Project> {
  const row = s.prepared('getProject', (db) => db.select(projectColumns).from(projects).innerJoin(hostnames, withDefaultHostname)
    .where(and(eq(projects.orgId, sql.placeholder('orgId')), eq(projects.name, sql.placeholder('name')))).prepare())
    .get({ orgId, name });
  if (!row) throw notFound(`project ${name}`);
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
