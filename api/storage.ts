/**
 * Storage group (spec 4.6): getStorage, grantStorage, revokeStorage. The prefix belongs to the project and the
 * quota to the plan (neither is the caller's to choose); `usedBytes` is the nodes' last report, so it lags and
 * may pass the quota, which the object store, not the control plane, enforces: the answer says so in a
 * condition. Nodes take a grant or revoke at their next convergence (the bundle reconciler watches 'storage').
 */
import { z } from 'zod';
import type { Condition } from '../lib/conditions';
import { planOf } from '../rules/plans';
import { iso } from '../store/db';
import { getProject } from '../store/projects';
import { grantStorage, revokeStorage, storageState, type StorageGrantState, type StoragePrecondition } from '../store/storage';
import { digest, etag, preconditionResponse, writePrecondition, type Conditions } from './conditional';
import { defineOp, type AnyOp, type Deps } from './ops';
import { ConditionSchema, NO_CORE, ProjectParams, Timestamp, errorResponses } from './schemas';
import type { Org } from '../store/accounts';

const StorageStatus = z.object({
  granted: z.boolean(),
  prefix: z.string().nullable().meta({ description: 'the project\'s object key prefix, assigned at its first grant and kept for good (also after a revoke: its objects stay); null before' }),
  quotaBytes: z.number().int().min(0).nullable().meta({ description: 'the plan\'s storage quota while granted; null otherwise' }),
  usedBytes: z.number().int().min(0).nullable().meta({ description: 'as the node last reported it (null: never); lags by the reporting period and may pass the quota' }),
  usedBytesAt: Timestamp.nullable().meta({ description: 'when `usedBytes` was reported' }),
  conditions: z.array(ConditionSchema).meta({ description: '`WithinQuota`: False once the reported usage passes the quota (the object store enforces it), Unknown before a report' }),
}).meta({ id: 'StorageStatus' });

const quotaOf = (deps: Deps, org: Org, st: StorageGrantState): number | null => st.granted ? planOf(deps.config.plans, org.plan).storageBytes : null;

/**
 * The grant state's tag, of what is stored (the grant, the prefix, the quota and the last report), never of the
 * answer's `WithinQuota` condition, whose time before a report is the time of the answer.
 */
const storageTag = (st: StorageGrantState, quotaBytes: number | null): string =>
  etag(digest(JSON.stringify([st.granted, st.prefix, quotaBytes, st.usedBytes, st.usedBytesAt])));

/** `If-Match` of a grant or revoke, against getStorage's tag, judged inside the write. */
const storagePrecondition = (deps: Deps, org: Org, conditions: Conditions, projectName: string): StoragePrecondition | undefined =>
  writePrecondition<StorageGrantState>(conditions, `the storage grant of ${projectName}`, (st) => storageTag(st, quotaOf(deps, org, st)));

const PRECONDITION = preconditionResponse('`If-Match` does not name the grant state\'s current `ETag` (getStorage)');

/** A storage answer: the state now, with its tag. */
async function answer(deps: Deps, org: Org, projectId: number) {
  const st = await storageState(deps.store, projectId);
  const quotaBytes = quotaOf(deps, org, st);
  return { status: 200, body: status(deps, st, quotaBytes), headers: { ETag: storageTag(st, quotaBytes) } };
}

function status(deps: Deps, st: StorageGrantState, quotaBytes: number | null): z.output<typeof StorageStatus> {
  const conditions: Condition[] = [];
  if (quotaBytes !== null) {
    const at = st.usedBytesAt ?? iso(deps.store.clock());
    const over = st.usedBytes !== null && st.usedBytes > quotaBytes;
    conditions.push(st.usedBytes === null
      ? { type: 'WithinQuota', status: 'Unknown', reason: 'NotReported', message: 'no node has reported usage yet', observedGeneration: 0, lastTransitionTime: at }
      : {
        type: 'WithinQuota', status: over ? 'False' : 'True', reason: over ? 'OverQuota' : 'UnderQuota',
        message: `${st.usedBytes} of ${quotaBytes} bytes used${over ? ': writes may be refused by the object store' : ''}`, observedGeneration: 0, lastTransitionTime: at,
      });
  }
  return { ...st, quotaBytes, conditions };
}

export const storageOps: AnyOp[] = [
  defineOp({
    operationId: 'getStorage',
    tag: 'storage',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/projects/{projectName}/storage',
    summary: 'Read the storage grant: prefix, quota and last reported usage',
    role: 'viewer',
    needsCore: true,
    params: ProjectParams,
    responses: {
      200: { description: 'the grant state; `ETag` is its tag for `If-Match` on grantStorage and revokeStorage', schema: StorageStatus, headers: ['ETag'] },
      ...errorResponses(NO_CORE),
    },
    handler: async ({ deps, org, params }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      return answer(deps, org, p.id);
    },
  }),
  defineOp({
    operationId: 'grantStorage',
    tag: 'storage',
    method: 'post',
    path: '/v1/orgs/{orgSlug}/projects/{projectName}/storage',
    summary: 'Grant object storage (idempotent): the prefix is assigned once, the quota is the plan\'s',
    role: 'member',
    needsCore: true,
    params: ProjectParams,
    requestHeaders: ['IfMatch'],
    responses: {
      200: { description: 'granted (again: unchanged)', schema: StorageStatus, headers: ['ETag'] },
      412: PRECONDITION,
      ...errorResponses(NO_CORE),
    },
    handler: async ({ deps, core, org, params, actor, conditions }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      const quotaBytes = planOf(deps.config.plans, org.plan).storageBytes;
      const precondition = storagePrecondition(deps, org, conditions, p.name);
      const { granted } = await grantStorage(deps.store, { orgId: org.id, projectId: p.id, projectName: p.name, actor, quotaBytes, precondition });
      if (granted) core.nudge('storage', String(p.id));
      return answer(deps, org, p.id);
    },
  }),
  defineOp({
    operationId: 'revokeStorage',
    tag: 'storage',
    method: 'delete',
    path: '/v1/orgs/{orgSlug}/projects/{projectName}/storage',
    summary: 'Revoke the storage grant (idempotent); objects under the prefix are kept',
    role: 'admin',
    needsCore: true,
    params: ProjectParams,
    requestHeaders: ['IfMatch'],
    responses: { 204: { description: 'not granted (any more); the objects and the prefix stay' }, 412: PRECONDITION, ...errorResponses(NO_CORE) },
    handler: async ({ deps, core, org, params, actor, conditions }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      const precondition = storagePrecondition(deps, org, conditions, p.name);
      const { revoked } = await revokeStorage(deps.store, { orgId: org.id, projectId: p.id, projectName: p.name, actor, precondition });
      if (revoked) core.nudge('storage', String(p.id));
      return { status: 204 };
    },
  }),
];
