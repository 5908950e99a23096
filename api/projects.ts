/** Projects group (spec 4.8): listProjects, createProject, getProject; and deleteProject, beyond the spec. */
import { z } from 'zod';
import { createProject, deleteProject, listProjects } from '../store/projects';
import { getProjectDetail } from '../store/read-model';
import { AppError } from '../lib/errors';
import { planOf } from '../rules/plans';
import { bodyTag, digest, etag, notModified, notModifiedResponse } from './conditional';
import { defineOp, type AnyOp } from './ops';
import { ErrorSchema, ListQuery, OrgParams, pageOf, ProjectParams, Timestamp, errorResponses } from './schemas';

export const ProjectName = z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'a project name is a DNS label: a-z, 0-9 and inner hyphens, at most 63')
  .meta({ description: 'a DNS label, the first label of the default hostname `<name>.<app domain>`' });

const CreateProjectBody = z.strictObject({ name: ProjectName, database: z.boolean().default(false).meta({ description: 'whether the project gets a database binding' }) });

const Project = z.object({
  name: z.string(), hostname: z.string(), database: z.boolean(), createdAt: Timestamp,
  deletingSince: Timestamp.nullable().meta({
    description: 'when its deletion was asked (deleteProject); null while it lives. A project being deleted keeps its name and its place in the plan\'s project count until its cleanup is done, then reads as 404',
  }),
}).meta({ id: 'Project' });
const ProjectDetail = Project.extend({
  hostnames: z.array(z.object({ name: z.string(), kind: z.enum(['default', 'custom']), status: z.string() })),
  grants: z.object({ auth: z.boolean(), storage: z.boolean() }),
  placements: z.array(z.object({
    nodeId: z.string(),
    createdAt: Timestamp,
    version: z.number().int().min(0).nullable().meta({ description: 'the node\'s bundle version that carries the project as it is now; null until the node\'s bundle takes it' }),
    appliedVersion: z.number().int().min(0).nullable().meta({ description: 'the bundle version the node last reported running the project at; null: it never reported' }),
    applied: z.boolean().meta({ description: 'the node runs the project as it is now (`appliedVersion` ≥ `version`)' }),
    failure: z.string().nullable().meta({ description: 'why the node does not run the project\'s wanted worker, as it last reported; null: it runs, or the node did not say' }),
    reportedAt: Timestamp.nullable().meta({ description: 'the node\'s last report' }),
  })).meta({ description: 'the nodes the project is placed on; empty until its first deploy' }),
  cleanup: z.object({
    hostnames: z.array(z.string()).meta({ description: 'custom hostnames whose edge hostname or managed records are still being removed' }),
    nodes: z.array(z.string()).meta({ description: 'nodes whose bundle still carries the project: they stop its workers at their next bundle' }),
  }).nullable().meta({ description: 'while the project is being deleted: what its deletion still waits for; null otherwise' }),
}).meta({ id: 'ProjectDetail' });

const publicProject = <T extends { id: number }>({ id: _id, ...rest }: T): Omit<T, 'id'> => rest;

export const projectOps: AnyOp[] = [
  defineOp({
    operationId: 'listProjects',
    tag: 'projects',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/projects',
    summary: 'List the organization\'s projects',
    role: 'viewer',
    needsCore: false,
    params: OrgParams,
    query: ListQuery,
    responses: { 200: { description: 'the projects, by name', schema: pageOf(Project) }, ...errorResponses() },
    handler: async ({ deps, org, query }) => {
      const page = await listProjects(deps.store, org.id, query.limit, query.cursor);
      return { status: 200, body: { items: page.items.map(publicProject), nextCursor: page.nextCursor } };
    },
  }),
  defineOp({
    operationId: 'createProject',
    tag: 'projects',
    method: 'post',
    path: '/v1/orgs/{orgSlug}/projects',
    summary: 'Create a project and issue its default hostname',
    role: 'member',
    needsCore: false,
    params: OrgParams,
    body: CreateProjectBody,
    responses: {
      201: { description: 'created; `Location` is its path, `ETag` the tag getProject answers for it', schema: Project, headers: ['Location', 'ETag'] },
      400: { description: 'invalid body (`bad_request`)', schema: ErrorSchema },
      ...errorResponses([409, '`project_name_taken`, `hostname_taken` or `project_limit` (details: limit, count, plan)']),
    },
    handler: async ({ deps, org, body, actor }) => {
      const limit = planOf(deps.config.plans, org.plan).projects;
      const p = await createProject(deps.store, {
        orgId: org.id, plan: org.plan, limit, name: body.name, database: body.database,
        hostname: `${body.name}.${deps.config.appDomain}`, actor,
      });
      const tag = bodyTag(publicProject(await getProjectDetail(deps.store, org.id, p.name)));
      return { status: 201, body: publicProject(p), headers: { Location: `/v1/orgs/${org.slug}/projects/${p.name}`, ETag: tag } };
    },
  }),
  defineOp({
    operationId: 'getProject',
    tag: 'projects',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/projects/{projectName}',
    summary: 'Read a project with its hostnames and placements',
    role: 'viewer',
    needsCore: false,
    params: ProjectParams,
    requestHeaders: ['IfNoneMatch'],
    responses: {
      200: { description: 'the project', schema: ProjectDetail, headers: ['ETag'] },
      304: notModifiedResponse(),
      ...errorResponses(),
    },
    handler: async ({ deps, org, params, conditions }) => {
      // Serialized once, for both the answer and its tag (bodyTag's digest of the same text).
      const json = JSON.stringify(publicProject(await getProjectDetail(deps.store, org.id, params.projectName)));
      const tag = etag(digest(json));
      if (notModified(conditions, tag)) return { status: 304, headers: { ETag: tag } };
      return { status: 200, json, headers: { ETag: tag } };
    },
  }),
  defineOp({
    operationId: 'deleteProject',
    tag: 'projects',
    method: 'delete',
    path: '/v1/orgs/{orgSlug}/projects/{projectName}',
    summary: 'Delete a project with its hostnames, secrets, grants, access and sign-in settings and placements (beyond the spec)',
    role: 'admin',
    needsCore: false,
    params: ProjectParams,
    responses: {
      202: {
        description: 'being deleted: the project as getProject answers it now, `cleanup` saying what was left at the delete\'s commit (the reconcilers may have done some of it since); getProject answers so until the cleanup is done, then 404. Sending the delete again answers the same',
        schema: ProjectDetail,
      },
      204: { description: 'deleted: nothing was left to clean up, and its name and its place in the plan\'s project count are free' },
      ...errorResponses(),
    },
    handler: async ({ deps, core, org, params, actor }) => {
      const d = await deleteProject(deps.store, { orgId: org.id, name: params.projectName, actor });
      for (const nodeId of d.released.nodes) core?.nudge('placement', nodeId);
      for (const name of d.released.hostnames) core?.nudge('hostname', name);
      core?.nudge('project', String(d.id));
      if (!d.left) return { status: 204 };
      // The project reconciler may have finalized it since the write: then it is gone, as a 204 says.
      const detail = await getProjectDetail(deps.store, org.id, params.projectName).catch((e: unknown) => {
        if (e instanceof AppError && e.status === 404) return null;
        throw e;
      });
      // The cleanup is the write's own: the bundle reconciler woken by its commit may already have rebuilt a node's
      // bundle without the project, and the answer would then not name the node the deletion had to wait for.
      return detail ? { status: 202, body: { ...publicProject(detail), cleanup: d.left } } : { status: 204 };
    },
  }),
];
