/**
 * Deployment access group (spec 4.4, docs/api.md): getAccess, setAccess, newAccessBypass, revokeAccessBypass,
 * authorizeAccess, and the node's redeem of authorizeAccess's one-time code. The password and the bypass secret
 * are hashed here (lib/access-hash.ts) and only their hashes are stored and carried in the node's bundle; no
 * answer, audit record or log holds either. Nodes enforce the policy from their bundle: every change records a
 * 'project' change, which the bundle reconciler watches, and is nudged.
 */
import { z } from 'zod';
import { AppError, notFound } from '../lib/errors';
import { bypassHash, hashPassword, newBypassSecret } from '../lib/access-hash';
import { isSafeNext, MAX_NEXT } from '../rules/safe-next';
import { membership } from '../store/accounts';
import {
  ACCESS_MODES, accessPolicy, issueAccessCode, knownHost, redeemAccessCode, revokeBypass, setAccessPolicy, setBypass, type AccessPolicyState,
} from '../store/access';
import type { Store } from '../store/db';
import { accessRollout } from '../store/nodes';
import { getProject } from '../store/projects';
import { NO_STORE, bodyTag, cacheable, checkBeforeWrite, notModifiedResponse, preconditionResponse, type Conditions } from './conditional';
import { defineOp, type AnyOp } from './ops';
import { ErrorSchema, NO_CORE, NodeParams, ProjectParams, Timestamp, errorResponses, rolloutSchema } from './schemas';


const AccessPolicy = z.object({
  mode: z.enum(ACCESS_MODES as [string, ...string[]]).meta({ description: '`public`: anyone; `org`: members of the project\'s organization (member role or above); `password`: one shared password' }),
  hasPassword: z.boolean().meta({ description: 'a password is stored (as a slow hash; it is never returned)' }),
  hasBypass: z.boolean().meta({ description: 'a bypass secret is set (`Service-Access-Bypass` header; stored as a hash)' }),
  updatedAt: Timestamp.nullable().meta({ description: 'null: never set (the project is `public`)' }),
  rollout: rolloutSchema('this policy (mode, password, bypass secret, and the organization\'s members as they are now)'),
}).meta({ id: 'AccessPolicy' });

const AccessPut = z.strictObject({
  mode: z.enum(['public', 'org', 'password']),
  // NIST SP 800-63B's floor for a chosen secret: the node's per-address attempt limit slows guessing, it cannot
  // make a one-character password safe.
  password: z.string().min(8).max(1024).optional().meta({ description: 'a new shared password, 8 to 1,024 characters; omitted: the stored one is kept. `password` mode with none sent nor stored is 400' }),
}).meta({ id: 'AccessPut' });

const AccessBypass = z.object({
  secret: z.string().meta({ description: 'send as `Service-Access-Bypass: <secret>`; shown only here, and the previous one stops working at once' }),
}).meta({ id: 'AccessBypass' });

const AccessAuthorizeRequest = z.strictObject({
  to: z.string().min(1).max(253).meta({ description: 'the hostname of the deployment: a default or an active custom hostname the service routes, else 404' }),
  next: z.string().max(MAX_NEXT).refine(isSafeNext, 'next must be a path on the same host: one leading `/` not followed by `/` or `\\`, printable ASCII only, also after one percent-decoding')
    .meta({ description: 'where to go after sign-in: a path only (`/dash?x=1`); an absolute or protocol-relative address is 400' }),
  state: z.string().regex(/^[A-Za-z0-9_-]{22,128}$/, 'state is the value the node sent the browser with, unchanged').optional()
    .meta({ description: 'the `state` the node sent the browser to the dashboard with, passed on unchanged: it comes back in `redirect`, and the node admits the callback only in the browser that started the round trip (the reference node requires it)' }),
}).meta({ id: 'AccessAuthorizeRequest' });

const AccessAuthorize = z.object({
  redirect: z.string().meta({ description: '`https://<to>/__service/access/callback?code=...&next=...[&state=...]`: the code is single use, valid 60 s, bound to host, user and `next`' }),
}).meta({ id: 'AccessAuthorize' });

const RedeemRequest = z.strictObject({ code: z.string().min(1).max(128) }).meta({ id: 'AccessRedeemRequest' });
const Redeemed = z.object({
  host: z.string(),
  next: z.string(),
  user: z.string().meta({ description: 'the user\'s email' }),
  org: z.string(),
  role: z.enum(['viewer', 'member', 'admin']).meta({ description: 'the user\'s role in the org now; in `org` mode the node admits member and admin' }),
}).meta({ id: 'AccessRedeemed' });


/** The policy as answered, with where it is enforced (a new bypass secret and a revoke show there too). */
async function view(store: Store, projectId: number, st: AccessPolicyState): Promise<z.output<typeof AccessPolicy>> {
  const rollout = await accessRollout(store, projectId);
  return { mode: st.mode, hasPassword: st.hasPassword, hasBypass: st.hasBypass, updatedAt: st.updatedAt, rollout };
}

const PATH = '/v1/orgs/{orgSlug}/projects/{projectName}/access';

/** `If-Match` of a write of the policy or its bypass secret: against the policy's tag, as getAccess answers it. */
const checkPolicy = (store: Store, conditions: Conditions, p: { id: number; name: string }): Promise<void> =>
  checkBeforeWrite(conditions, `the access policy of ${p.name}`, async () => bodyTag(await view(store, p.id, await accessPolicy(store, p.id))));

const PRECONDITION = preconditionResponse('`If-Match` does not name the policy\'s current `ETag` (getAccess)');

export const accessOps: AnyOp[] = [
  defineOp({
    operationId: 'getAccess',
    tag: 'access',
    method: 'get',
    path: PATH,
    summary: 'Read the deployment access policy; a project never set reads `public`',
    role: 'viewer',
    needsCore: true,
    params: ProjectParams,
    requestHeaders: ['IfNoneMatch'],
    responses: {
      200: { description: 'the policy (`public` when never set: not a 404)', schema: AccessPolicy, headers: ['ETag'] },
      304: notModifiedResponse(),
      ...errorResponses(NO_CORE),
    },
    handler: async ({ deps, org, params, conditions }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      const body = await view(deps.store, p.id, await accessPolicy(deps.store, p.id));
      return cacheable(conditions, bodyTag(body), body);
    },
  }),
  defineOp({
    operationId: 'setAccess',
    tag: 'access',
    method: 'put',
    path: PATH,
    summary: 'Set the access mode; an omitted password keeps the stored one',
    role: 'admin',
    needsCore: true,
    params: ProjectParams,
    body: AccessPut,
    requestHeaders: ['IfMatch'],
    responses: {
      200: { description: 'the policy as stored', schema: AccessPolicy, headers: ['ETag'] },
      400: { description: '`bad_request`: an invalid body, or mode `password` with no password sent and none stored', schema: ErrorSchema },
      412: PRECONDITION,
      ...errorResponses(NO_CORE),
    },
    handler: async ({ deps, core, org, params, body, actor, conditions }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      await checkPolicy(deps.store, conditions, p);
      const passwordHash = body.password === undefined ? undefined : await hashPassword(body.password);
      const st = await setAccessPolicy(deps.store, { orgId: org.id, projectId: p.id, projectName: p.name, actor, mode: body.mode, passwordHash });
      core.nudge('project', String(p.id));
      const out = await view(deps.store, p.id, st);
      return { status: 200, body: out, headers: { ETag: bodyTag(out) } };
    },
  }),
  defineOp({
    operationId: 'newAccessBypass',
    tag: 'access',
    method: 'post',
    path: `${PATH}/bypass`,
    summary: 'Create the bypass secret (shown once); the previous one stops working at once',
    role: 'admin',
    needsCore: true,
    params: ProjectParams,
    secretAnswer: true,
    requestHeaders: ['IfMatch'],
    responses: {
      200: { description: 'the new secret, in this answer only (`Cache-Control: no-store`)', schema: AccessBypass, headers: ['Cache-Control'] },
      412: PRECONDITION,
      ...errorResponses(NO_CORE),
    },
    handler: async ({ deps, core, org, params, actor, conditions }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      await checkPolicy(deps.store, conditions, p);
      const secret = newBypassSecret();
      await setBypass(deps.store, { orgId: org.id, projectId: p.id, projectName: p.name, actor, bypassHash: bypassHash(secret) });
      core.nudge('project', String(p.id));
      return { status: 200, body: { secret }, headers: NO_STORE };
    },
  }),
  defineOp({
    operationId: 'revokeAccessBypass',
    tag: 'access',
    method: 'delete',
    path: `${PATH}/bypass`,
    summary: 'Remove the bypass secret (idempotent); the policy is unchanged',
    role: 'admin',
    needsCore: true,
    params: ProjectParams,
    requestHeaders: ['IfMatch'],
    responses: { 204: { description: 'no bypass secret (any more)' }, 412: PRECONDITION, ...errorResponses(NO_CORE) },
    handler: async ({ deps, core, org, params, actor, conditions }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      await checkPolicy(deps.store, conditions, p);
      const { revoked } = await revokeBypass(deps.store, { orgId: org.id, projectId: p.id, projectName: p.name, actor });
      if (revoked) core.nudge('project', String(p.id));
      return { status: 204 };
    },
  }),
  defineOp({
    operationId: 'authorizeAccess',
    tag: 'access',
    method: 'post',
    path: '/v1/access/authorize',
    summary: 'Sign-in round trip to an `org`-protected deployment: a redirect to its callback with a one-time code',
    needsCore: true,
    body: AccessAuthorizeRequest,
    secretAnswer: true,
    responses: {
      200: { description: 'where to move the browser (`Cache-Control: no-store`)', schema: AccessAuthorize, headers: ['Cache-Control'] },
      400: { description: '`bad_request`: `next` is not a path on the same host, or an invalid body', schema: ErrorSchema },
      403: { description: '`forbidden`: the caller is no member of the host\'s organization (viewer is enough)', schema: ErrorSchema },
      404: { description: '`not_found`: `to` is no hostname the service routes', schema: ErrorSchema },
      503: { description: NO_CORE[1], schema: ErrorSchema },
    },
    handler: async ({ deps, body, principal }) => {
      const host = await knownHost(deps.store, body.to.toLowerCase());
      if (!host) throw notFound(`hostname ${body.to}`);
      const m = await membership(deps.store, host.orgSlug, principal.userId);
      if (!m) throw new AppError(403, 'forbidden', 'you are no member of the organization of this hostname');
      const code = await issueAccessCode(deps.store, { host, userId: principal.userId, next: body.next });
      const state = body.state === undefined ? '' : `&state=${body.state}`;
      const redirect = `https://${host.host}/__service/access/callback?code=${encodeURIComponent(code)}&next=${encodeURIComponent(body.next)}${state}`;
      return { status: 200, body: { redirect }, headers: NO_STORE };
    },
  }),
  defineOp({
    operationId: 'redeemAccessCode',
    tag: 'nodes',
    method: 'post',
    path: '/v1/nodes/{nodeId}/access/redeem',
    summary: 'Redeem an authorizeAccess code, once, on a node that serves its host',
    auth: 'node',
    needsCore: false,
    params: NodeParams,
    body: RedeemRequest,
    secretAnswer: true,
    responses: {
      200: { description: 'who was let in, where to, and their role now', schema: Redeemed, headers: ['Cache-Control'] },
      400: { description: '`bad_request`: an invalid body', schema: ErrorSchema },
      404: { description: '`not_found`: another node\'s id; or the code is unknown, expired, already redeemed, or for a host this node does not serve', schema: ErrorSchema },
    },
    handler: async ({ deps, body, node }) => ({ status: 200, body: await redeemAccessCode(deps.store, node.nodeId, body.code), headers: NO_STORE }),
  }),
];
