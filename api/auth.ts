/**
 * App sign-in group (spec 4.2): getAuth, grantAuth, updateAuthSettings, revokeAuth, setAuthProvider,
 * deleteAuthProvider. The user table lives in the project's database (hence 409 `database_required`), which the
 * control plane never reads. A client secret goes to the core to be sealed (as project secrets are, under
 * `auth/<provider>`) and never comes back out through this API; nodes get it in their bundle. Every change records a
 * 'project' change (store/auth.ts), which the bundle reconciler watches, and is nudged.
 */
import { z } from 'zod';
import { secretContext } from '../core/sealing';
import { AppError, conflict } from '../lib/errors';
import { clientSecretName, OAUTH_PROVIDERS, OAuthProvider, type OAuthProviderName } from '../rules/oauth-providers';
import { authState, deleteAuthProvider, grantAuth, revokeAuth, setAuthProvider, updateAuthSettings } from '../store/auth';
import { getProject, type Project, type ProjectWrite } from '../store/projects';
import { bodyTag, cacheable, checkBeforeWrite, notModifiedResponse, preconditionResponse, type Conditions } from './conditional';
import { defineOp, type AnyOp, type Deps, type OrgScope } from './ops';
import { ErrorSchema, NO_CORE, ProjectParams, errorResponses, storedText } from './schemas';

const SessionDays = z.number().int().min(1).max(365);
const PROVIDER_NAMES = OAUTH_PROVIDERS.map((p) => `\`${p}\``).join(', ');

const AuthSettings = z.object({
  sessionDays: SessionDays.meta({ description: 'how long a signed-in session lasts, in days (1 to 365, default 30); it also bounds the session table (150 MB ceiling)' }),
}).meta({ id: 'AuthSettings' });

const AuthStatus = z.object({
  granted: z.boolean().meta({ description: 'the project has sign-in: its node runs the sign-in worker under `/__service/auth/*`' }),
  settings: AuthSettings.nullable().meta({ description: 'null without a grant; a grant starts with the defaults' }),
  providers: z.array(z.object({ provider: OAuthProvider, clientId: z.string() })).meta({
    description: 'the registered providers by name, client id only (the client secret is never returned). They are the project\'s: a revoke keeps them, and a grant again uses them',
  }),
  hosts: z.array(z.string()).meta({
    description: 'the project\'s routable hostnames (default and active custom), by name: register `https://<host>/__service/auth/callback/<provider>` with each provider for each of them',
  }),
}).meta({ id: 'AuthStatus' });

const AuthSettingsPatch = z.strictObject({
  sessionDays: SessionDays.optional().meta({ description: '1 to 365; omitted: unchanged' }),
}).meta({ id: 'AuthSettingsPatch' });

// An empty value passes the shape and is refused by the spec's own code, `invalid_provider`.
const AuthProviderPut = z.strictObject({
  clientId: storedText('clientId', 512).meta({ description: 'the OAuth app\'s client id (not empty or blank, else 400 `invalid_provider`)' }),
  clientSecret: z.string().max(4096).meta({ description: 'the OAuth app\'s client secret (not empty or blank, else 400 `invalid_provider`): sealed, never returned, audited or listed among the secrets' }),
}).meta({ id: 'AuthProviderPut' });

const ProviderParams = ProjectParams.extend({
  provider: z.string().meta({ description: `one of ${PROVIDER_NAMES}; another name is 400 \`invalid_provider\` to setAuthProvider and 204 to deleteAuthProvider (nothing is registered under it)` }),
});

const PATH = '/v1/orgs/{orgSlug}/projects/{projectName}/auth';

const invalidProvider = (why: string): AppError => new AppError(400, 'invalid_provider', why);

/** setAuthProvider's provider name: one of OAUTH_PROVIDERS, else 400 `invalid_provider` (spec part 7). */
function providerOf(name: string): OAuthProviderName {
  const r = OAuthProvider.safeParse(name);
  if (!r.success) throw invalidProvider(`no sign-in provider ${JSON.stringify(name)}: the providers are ${OAUTH_PROVIDERS.join(', ')}`);
  return r.data;
}

async function writeOf(deps: Deps, scope: OrgScope, projectName: string): Promise<{ project: Project; write: ProjectWrite }> {
  const project = await getProject(deps.store, scope.org.id, projectName);
  return { project, write: { orgId: scope.org.id, projectId: project.id, projectName: project.name, actor: scope.actor } };
}

const PRECONDITION = preconditionResponse('`If-Match` does not name the sign-in state\'s current `ETag` (getAuth)');

/** `If-Match` against the sign-in state's tag, as getAuth answers it. */
const checkState = (c: { deps: Deps; conditions: Conditions }, project: Project): Promise<void> =>
  checkBeforeWrite(c.conditions, `the sign-in state of ${project.name}`, async () => bodyTag(await authState(c.deps.store, project.id)));

/** A write's answer: the state now, with its tag. */
async function answer(deps: Deps, projectId: number) {
  const body = await authState(deps.store, projectId);
  return { status: 200, body, headers: { ETag: bodyTag(body) } };
}

const statusResponse = (description: string) => ({ description, schema: AuthStatus, headers: ['ETag'] });

export const authOps: AnyOp[] = [
  defineOp({
    operationId: 'getAuth',
    tag: 'auth',
    method: 'get',
    path: PATH,
    summary: 'Read the sign-in grant: settings, registered providers (client ids only) and the hosts to register callbacks on',
    role: 'viewer',
    needsCore: true,
    params: ProjectParams,
    requestHeaders: ['IfNoneMatch'],
    responses: {
      200: statusResponse('the sign-in state (`granted: false` when never granted: not a 404)'),
      304: notModifiedResponse(),
      ...errorResponses(NO_CORE),
    },
    handler: async ({ deps, org, params, conditions }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      const body = await authState(deps.store, p.id);
      return cacheable(conditions, bodyTag(body), body);
    },
  }),
  defineOp({
    operationId: 'grantAuth',
    tag: 'auth',
    method: 'post',
    path: PATH,
    summary: 'Grant sign-in (idempotent): settings start at their defaults; again, settings and providers stay',
    role: 'member',
    needsCore: true,
    params: ProjectParams,
    requestHeaders: ['IfMatch'],
    responses: {
      200: statusResponse('granted (again: unchanged)'),
      409: { description: '`database_required`: the project has no database, where the user table lives', schema: ErrorSchema },
      412: PRECONDITION,
      ...errorResponses(NO_CORE),
    },
    handler: async (c) => {
      const { project, write } = await writeOf(c.deps, c, c.params.projectName);
      if (!project.database) {
        throw conflict('database_required', `project ${project.name} has no database, where sign-in keeps its users; a project gets one only when created (createProject with "database": true)`);
      }
      await checkState(c, project);
      const { granted } = await grantAuth(c.deps.store, write);
      if (granted) c.core.nudge('project', String(project.id));
      return answer(c.deps, project.id);
    },
  }),
  defineOp({
    operationId: 'updateAuthSettings',
    tag: 'auth',
    method: 'patch',
    path: PATH,
    summary: 'Change the sign-in settings sent; the others are kept',
    role: 'member',
    needsCore: true,
    params: ProjectParams,
    body: AuthSettingsPatch,
    requestHeaders: ['IfMatch'],
    responses: {
      200: statusResponse('the state with the settings as stored'),
      404: { description: '`not_granted`: the project has no sign-in grant; `not_found`: the organization or project does not exist', schema: ErrorSchema },
      412: PRECONDITION,
      ...errorResponses(NO_CORE),
    },
    handler: async (c) => {
      const { project, write } = await writeOf(c.deps, c, c.params.projectName);
      await checkState(c, project);
      const { changed } = await updateAuthSettings(c.deps.store, { ...write, patch: c.body });
      if (changed) c.core.nudge('project', String(project.id));
      return answer(c.deps, project.id);
    },
  }),
  defineOp({
    operationId: 'revokeAuth',
    tag: 'auth',
    method: 'delete',
    path: PATH,
    summary: 'Revoke sign-in (idempotent): the users stay in the project database, the providers stay registered',
    role: 'admin',
    needsCore: true,
    params: ProjectParams,
    requestHeaders: ['IfMatch'],
    responses: { 204: { description: 'not granted (any more); granting again lets the same people sign in' }, 412: PRECONDITION, ...errorResponses(NO_CORE) },
    handler: async (c) => {
      const { project, write } = await writeOf(c.deps, c, c.params.projectName);
      await checkState(c, project);
      const { revoked } = await revokeAuth(c.deps.store, write);
      if (revoked) c.core.nudge('project', String(project.id));
      return { status: 204 };
    },
  }),
  defineOp({
    operationId: 'setAuthProvider',
    tag: 'auth',
    method: 'put',
    path: `${PATH}/providers/{provider}`,
    summary: 'Register (or replace) the project\'s own OAuth app for a provider; the client secret is sealed and never returned',
    role: 'admin',
    needsCore: true,
    params: ProviderParams,
    body: AuthProviderPut,
    requestHeaders: ['IfMatch'],
    responses: {
      200: statusResponse('the state with the provider registered (with or without a grant)'),
      412: PRECONDITION,
      400: { description: `\`invalid_provider\`: the provider is none of ${PROVIDER_NAMES}, or \`clientId\` or \`clientSecret\` is empty; \`bad_request\`: a body of another shape`, schema: ErrorSchema },
      ...errorResponses([503, '`no_core`: the API runs without its core, which seals client secrets']),
    },
    handler: async (c) => {
      const provider = providerOf(c.params.provider);
      // Blank is empty: no provider issues an id or a secret of spaces, and one would only fail at sign-in.
      if (c.body.clientId.trim() === '' || c.body.clientSecret.trim() === '') throw invalidProvider('clientId and clientSecret must not be empty');
      const { project, write } = await writeOf(c.deps, c, c.params.projectName);
      await checkState(c, project);
      const sealed = await c.core.seal(secretContext(c.org.slug, project.name, clientSecretName(provider)), c.body.clientSecret);
      await setAuthProvider(c.deps.store, { ...write, provider, clientId: c.body.clientId, sealed });
      c.core.nudge('project', String(project.id));
      return answer(c.deps, project.id);
    },
  }),
  defineOp({
    operationId: 'deleteAuthProvider',
    tag: 'auth',
    method: 'delete',
    path: `${PATH}/providers/{provider}`,
    summary: 'Remove a provider (idempotent): its users stay, only their way in through it goes; registering it again restores it',
    role: 'admin',
    needsCore: true,
    params: ProviderParams,
    requestHeaders: ['IfMatch'],
    responses: {
      204: { description: 'the provider is not registered (any more); a name that never was, whatever it is, is 204 too' },
      412: PRECONDITION,
      ...errorResponses(NO_CORE),
    },
    handler: async (c) => {
      const { project, write } = await writeOf(c.deps, c, c.params.projectName);
      await checkState(c, project);
      const { deleted } = await deleteAuthProvider(c.deps.store, { ...write, provider: c.params.provider });
      if (deleted) c.core.nudge('project', String(project.id));
      return { status: 204 };
    },
  }),
];
