/** Secrets group (spec 4.7): listSecrets, setSecret, deleteSecret. Values go to the core to be sealed and
 * never come back out through this API. */
import { sealedBytes, secretContext } from '../core/sealing';
import { z } from 'zod';
import { LOADER_RULES, loaderRule } from '../rules/env-names';
import { AppError, badRequest } from '../lib/errors';
import { planOf } from '../rules/plans';
import { getProject } from '../store/projects';
import { deleteSecret, listSecrets, secretMeta, setSecret, type SecretPrecondition, type SecretVersion } from '../store/secrets';
import { checkSecretFits, MAX_BUNDLE_BYTES, secretRollout } from '../store/nodes';
import type { Store } from '../store/db';
import { notFound } from '../lib/errors';
import { bodyTag, preconditionResponse, writePrecondition, type Conditions } from './conditional';
import { defineOp, type AnyOp } from './ops';
import { ErrorSchema, ListQuery, ProjectParams, Timestamp, errorResponses, pageOf, rolloutSchema } from './schemas';

/** Secret names (docs/api.md, Names): upper-case identifiers, at most 64 characters. */
export const SecretName = z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'a secret name matches ^[A-Z][A-Z0-9_]{0,63}$').meta({
  description: 'the environment variable the worker sees; `DB`, `ASSETS` and `SERVICE_*` are reserved (400 `reserved_name`). '
    + 'Names that change how a process loads or runs are refused (400 `bad_request`), since a worker would run what they say before its own code: '
    + `${LOADER_RULES.map((r) => `\`${r}\``).join(', ')} (a \`*\` stands for any ending)`,
});

/** A name that changes how a process loads or runs (rules/env-names.ts): 400 `bad_request` naming the rule. */
function checkLoader(name: string): void {
  const rule = loaderRule(name);
  if (rule === null) return;
  throw new AppError(400, 'bad_request', `${name} is refused: names that change how a process loads or runs (rule ${rule}) are not accepted as secrets`, { rule });
}

/** `DB` and `ASSETS` are the upper-case twins of the bindings env.db and env.assets; `SERVICE_` is the node's own prefix. */
export const isReservedSecretName = (name: string): boolean => name === 'DB' || name === 'ASSETS' || name.startsWith('SERVICE_');

// A name that was never set is 404, whatever its form: deleting one answers what it always did.
const SecretParams = ProjectParams.extend({ secretName: z.string().meta({ description: 'a secret\'s name; one that is not set is 404' }) });
const SetSecretParams = ProjectParams.extend({ secretName: SecretName });
/** 64 KiB per value: environment bindings, not a blob store. No NUL: an environment string ends at the first one, so
 * the node could start no worker with it (Node.js refuses it, ERR_INVALID_ARG_VALUE) and the rollout would stay pending. */
const SetSecretBody = z.strictObject({ value: z.string().max(65_536)
  .refine((v) => !v.includes('\0'), 'a secret value may not contain NUL (U+0000): a worker gets it as an environment string, which ends at the first NUL')
  .meta({
    description: 'at most 65,536 characters, and the plan\'s bytes per value in UTF-8 (32 KiB by default: a worker gets it as one environment string); '
      + 'no NUL (U+0000), which no environment string can hold; never answered back',
  }) });
const SecretMeta = z.object({ name: z.string(), version: z.number().int().min(1), updatedAt: Timestamp }).meta({ id: 'SecretMeta' });
/** A secret with where its current version runs (item 5 of issue 10: Fly's deployed / staged, per node). */
const SecretStatus = SecretMeta.extend({
  rollout: rolloutSchema('this version (or a later one)'),
}).meta({ id: 'SecretStatus' });

/**
 * A secret's tag: of its metadata, which a set always changes (the version), and its lifetime, since a secret
 * deleted and set again starts at version 1 again, maybe within the same second (`updatedAt` has seconds). A
 * secret set before lifetimes were recorded (uid '') keeps the tag it had.
 */
const secretTag = ({ name, version, updatedAt, uid }: SecretVersion): string =>
  bodyTag(uid === '' ? { name, version, updatedAt } : { name, version, updatedAt, uid });

function secretPrecondition(c: Conditions, name: string): SecretPrecondition | undefined {
  return writePrecondition(c, `secret ${name}`, secretTag);
}

function checkReserved(name: string): string {
  if (isReservedSecretName(name)) throw new AppError(400, 'reserved_name', `${name} is reserved (DB, ASSETS and SERVICE_*)`);
  return name;
}

/** The answer of setSecret and getSecret: the secret with its rollout, and its tag. */
async function secretStatus(store: Store, projectId: number, meta: SecretVersion) {
  const rollout = await secretRollout(store, projectId, meta.name, meta.version);
  return { status: 200 as const, body: { name: meta.name, version: meta.version, updatedAt: meta.updatedAt, rollout }, headers: { ETag: secretTag(meta) } };
}

/** The sealing context: binds a sealed value to the one row it was sealed for. */
export const secretOps: AnyOp[] = [
  defineOp({
    operationId: 'listSecrets',
    tag: 'secrets',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/projects/{projectName}/secrets',
    summary: 'List secret names and versions (never values)',
    role: 'member',
    needsCore: false,
    params: ProjectParams,
    query: ListQuery,
    responses: { 200: { description: 'names and versions', schema: pageOf(SecretMeta) }, ...errorResponses() },
    handler: async ({ deps, org, params, query }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      return { status: 200, body: await listSecrets(deps.store, p.id, query.limit, query.cursor) };
    },
  }),
  defineOp({
    operationId: 'setSecret',
    tag: 'secrets',
    method: 'put',
    path: '/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}',
    summary: 'Set a secret value; every call raises its version',
    role: 'member',
    needsCore: true,
    params: SetSecretParams,
    body: SetSecretBody,
    requestHeaders: ['IfMatch', 'IfNoneMatch'],
    responses: {
      200: { description: 'the new version and its rollout (at once: pending on every node); `ETag` is its tag', schema: SecretStatus, headers: ['ETag'] },
      412: preconditionResponse('`If-Match` does not name the secret\'s current `ETag` (or it is not set), or `If-None-Match: *` and it is set'),
      400: {
        description: '`bad_request` (name or body; a name that changes how a process loads or runs, `details.rule` naming the rule it breaks; a value with a NUL '
          + '(U+0000); a value over the plan\'s bytes per value, `details`: `limitBytes`, `bytes`) or `reserved_name`',
        schema: ErrorSchema,
      },
      ...errorResponses(
        [409, '`quota_exceeded`: the project\'s secrets (`NAME=value`, in bytes) would pass the plan\'s `secretBytes` (`details`: `quota` `secret_bytes`, `limit`, `count`, `plan`), '
          + `or the bundle of a node the project is placed on would pass its bound of ${MAX_BUNDLE_BYTES / 1024 / 1024} MiB (\`quota\` \`bundle_bytes\`, \`limit\`, \`count\`: its bytes now, \`plan\`)`],
        [503, '`no_core`: the API runs without its core, which seals values'],
      ),
    },
    handler: async ({ deps, core, org, params, body, actor, conditions }) => {
      const name = checkReserved(params.secretName);
      checkLoader(name);
      const p = await getProject(deps.store, org.id, params.projectName);
      const plan = planOf(deps.config.plans, org.plan);
      const bytes = Buffer.byteLength(body.value);
      // A value past what one environment string may hold (Linux: 128 KiB) would keep the worker from ever starting.
      if (bytes > plan.secretValueBytes) {
        throw badRequest(`the value is ${bytes} bytes; the ${org.plan} plan allows ${plan.secretValueBytes} bytes per secret value`, { limitBytes: plan.secretValueBytes, bytes });
      }
      // The entry as the bundle carries it, with room for any version.
      const entryBytes = Buffer.byteLength(JSON.stringify({ name, version: Number.MAX_SAFE_INTEGER, value: body.value })) + 1;
      await checkSecretFits(deps.store, { projectId: p.id, name, plan: org.plan, entryBytes, bytesOf: sealedBytes });
      const sealed = await core.seal(secretContext(org.slug, p.name, name), body.value);
      const precondition = secretPrecondition(conditions, name);
      const quota = { plan: org.plan, limit: plan.secretBytes, valueBytes: sealedBytes };
      const meta = await setSecret(deps.store, { orgId: org.id, projectId: p.id, projectName: p.name, name, sealed, actor, precondition, quota });
      return secretStatus(deps.store, p.id, meta);
    },
  }),
  defineOp({
    operationId: 'getSecret',
    tag: 'secrets',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}',
    summary: 'Read a secret\'s version and on which nodes it is applied or pending (never its value)',
    role: 'member',
    needsCore: false,
    params: SecretParams,
    responses: {
      200: {
        description: 'the secret and its rollout; `ETag` is the secret\'s tag for `If-Match` on setSecret and deleteSecret (it does not follow the rollout, so no 304 is answered)',
        schema: SecretStatus, headers: ['ETag'],
      },
      ...errorResponses(),
    },
    handler: async ({ deps, org, params }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      const meta = await secretMeta(deps.store, p.id, params.secretName);
      if (!meta) throw notFound(`secret ${params.secretName}`);
      return secretStatus(deps.store, p.id, meta);
    },
  }),
  defineOp({
    operationId: 'deleteSecret',
    tag: 'secrets',
    method: 'delete',
    path: '/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}',
    summary: 'Delete a secret',
    role: 'member',
    needsCore: false,
    params: SecretParams,
    requestHeaders: ['IfMatch'],
    responses: {
      204: { description: 'deleted' },
      412: preconditionResponse('`If-Match` does not name the secret\'s current `ETag`'),
      ...errorResponses(),
    },
    handler: async ({ deps, org, params, actor, conditions }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      const precondition = secretPrecondition(conditions, params.secretName);
      await deleteSecret(deps.store, { orgId: org.id, projectId: p.id, projectName: p.name, name: params.secretName, actor, precondition });
      return { status: 204 };
    },
  }),
];
