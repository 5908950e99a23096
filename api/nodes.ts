/**
 * Nodes group (docs/api.md, Nodes): what nodes call with their own token (`admin node register`), never API
 * clients. getNodeBundle answers the node's convergence bundle, built and sealed by the core's bundle
 * reconciler (reconcilers/bundles.ts) and opened by the core for this answer only; reportNode records what the
 * node observed. A node token reads only its own bundle: another node's id is 404, whether it exists or not.
 */
import { z } from 'zod';
import { OAuthProvider, ProviderEndpointsSchema } from '../rules/oauth-providers';
import { AppError } from '../lib/errors';
import type { Store } from '../store/db';
import { NO_STORE, notModified } from './conditional';
import { defineOp, type AnyOp } from './ops';
import { ErrorSchema, NodeParams, storedText, WaitSeconds } from './schemas';
import { changeOrEnd, MAX_WAIT_SECONDS, waitsReleased } from './wait';
import { bundleVersion, recordReport, storedBundle, type Bundle } from '../store/nodes';
import { nodeTokenHolds } from '../store/accounts';

const BundleQuery = z.object({
  wait: WaitSeconds.optional()
    .meta({ description: `with \`If-None-Match\` naming the current version: hold the request until a newer bundle exists or this many seconds (0 to ${MAX_WAIT_SECONDS}) pass, then 304` }),
});

const BundleSecret = z.object({
  name: z.string().meta({ description: 'the environment variable the worker gets it as' }),
  version: z.number().int().min(1),
  value: z.string().meta({ description: 'the secret value: the bundle is the one place it leaves the core' }),
});

/** One project placed on the node, as the node must run it. */
export const BundleProjectSchema = z.object({
  org: z.string(),
  project: z.string(),
  uid: z.string().regex(/^[0-9a-f]{32}$/).meta({ description: 'the project\'s lifetime (16 random bytes, hex): a project deleted and created again under the name has another, and the node gives it a database and a worker user of its own' }),
  hostnames: z.array(z.string()).meta({ description: 'routable hostnames: the default one and the active custom ones; any other Host is 404 `unknown_hostname`' }),
  database: z.boolean().meta({ description: 'the project has a database: `SERVICE_DB_PATH`, a SQLite file on the node' }),
  secrets: z.array(BundleSecret).meta({ description: 'env bindings, by name: each as the environment variable of its name' }),
  storage: z.object({
    prefix: z.string().meta({ description: 'the project\'s object key prefix (ends with `/`): `SERVICE_STORAGE_DIR` on the reference node' }),
    quotaBytes: z.number().int().min(0).meta({ description: '`SERVICE_STORAGE_QUOTA_BYTES`, the plan\'s; the object store enforces it' }),
  }).nullable().meta({ description: 'null without a storage grant' }),
  access: z.object({
    mode: z.enum(['public', 'org', 'password']),
    passwordHash: z.string().nullable().meta({ description: 'the shared password as a scrypt PHC string (`$scrypt$ln=17,r=8,p=1$salt$key`); null: none' }),
    bypassHash: z.string().nullable().meta({ description: 'SHA-256 (hex) of the bypass secret sent as `Service-Access-Bypass`; null: none' }),
    version: z.number().int().min(0).meta({ description: 'the policy version: rises with the mode or the password; sessions made under an older one end (0: never set)' }),
    membersVersion: z.number().int().min(0).meta({ description: 'the organization\'s members version: rises when a member\'s role changes or a member leaves; `org`-mode sessions made under an older one end' }),
  }).meta({ description: 'deployment access (setAccess); `public` at version 0 when never set' }),
  signIn: z.object({
    grant: z.string().regex(/^[0-9a-f]{32}$/).meta({ description: 'the grant\'s id, new at each grant (16 random bytes, hex): a session made under another grant does not count, so a revoke and a grant again end sessions' }),
    settings: z.object({ sessionDays: z.number().int().min(1).max(365).meta({ description: 'how long a session lasts, in days' }) }),
    maxUsers: z.number().int().min(0).meta({ description: 'the plan\'s sign-in users per project: sign-ups beyond it are refused by the node' }),
    providers: z.array(z.object({
      provider: OAuthProvider,
      clientId: z.string(),
      clientSecret: z.string().meta({ description: 'the project\'s OAuth client secret: the bundle is the one place it leaves the core' }),
      endpoints: ProviderEndpointsSchema.meta({ description: 'where the node reaches the provider, as the operator configured it (`--oauth-providers`: the real providers, a sandbox or a file)' }),
    })).meta({ description: 'the registered providers, by name; callbacks come to `https://<host>/__service/auth/callback/<provider>`' }),
  }).nullable().meta({ description: 'end-user sign-in; null without a grant' }),
}).meta({ id: 'BundleProject' });

export const BundleSchema = z.object({
  nodeId: z.string(),
  version: z.number().int().min(0).meta({ description: 'the bundle version, also its `ETag`; it only rises. 0: nothing built for the node yet' }),
  projects: z.array(BundleProjectSchema).meta({ description: 'the projects placed on the node, by org and name' }),
}).meta({ id: 'Bundle' });

export const NodeReportSchema = z.strictObject({
  bundleVersion: z.number().int().min(0).meta({ description: 'the bundle version whose every worker runs on the node (0: none yet); without a project\'s own `appliedVersion`, the version that project runs at' }),
  projects: z.array(z.strictObject({
    org: z.string().max(64),
    project: z.string().max(63),
    usedBytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({ description: 'bytes under the project\'s storage prefix, as measured now' }),
    appliedVersion: z.number().int().min(0).optional().meta({
      description: 'the newest bundle version the node runs this project as that bundle has it: rollouts of the project are judged by it, so a co-tenant whose worker cannot start holds only its own. Absent: `bundleVersion`',
    }),
    failure: storedText('failure', 500).nullable().optional().meta({
      description: 'why the project\'s wanted worker does not run on the node, in a few words its tenant may read (no path, no value); null or absent: it runs',
    }),
  })).max(10_000).meta({ description: 'per placed project; projects not placed on the node are ignored' }),
}).meta({ id: 'NodeReport' });

export const NodeReportAnswerSchema = z.object({
  desiredVersion: z.number().int().min(0).meta({ description: 'the version of the node\'s current bundle' }),
  ignored: z.array(z.object({ org: z.string(), project: z.string() })).meta({ description: 'reported projects not placed on this node: not recorded' }),
}).meta({ id: 'NodeReportAnswer' });

// Type-level check that the document's schema and the store's bundle agree.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const bundleShapeAgrees: Same<z.output<typeof BundleSchema>, Bundle> = true;
void bundleShapeAgrees;

const etagOf = (version: number): string => `"${version}"`;

/** Bundle long-polls one node may have held at once: its agent holds one, and one more covers a poll that
 * replaces a connection not yet seen gone. Past it a poll is 429, so a stolen or looping token cannot pin an
 * unbounded number of held answers (and connections) on the control plane. */
export const MAX_HELD_POLLS_PER_NODE = 4;

/** Held long-polls per node, per store (each API instance counts its own). */
const held = new WeakMap<Store, Map<string, number>>();
const heldOf = (store: Store): Map<string, number> => {
  let m = held.get(store);
  if (!m) held.set(store, (m = new Map()));
  return m;
};

/** How many bundle long-polls of `nodeId` are held now (for tests and status). */
export const heldBundlePolls = (store: Store, nodeId: string): number => held.get(store)?.get(nodeId) ?? 0;

const tooManyPolls = (nodeId: string): AppError => Object.assign(
  new AppError(429, 'rate_limited', `node ${nodeId} already has ${MAX_HELD_POLLS_PER_NODE} bundle long-polls held; retry after 1 s`),
  // The error edge sets an error's `headers` on its answer (api/errors.ts).
  { headers: { 'Retry-After': '1' } },
);

export const nodeOps: AnyOp[] = [
  defineOp({
    operationId: 'getNodeBundle',
    tag: 'nodes',
    method: 'get',
    path: '/v1/nodes/{nodeId}/bundle',
    summary: 'The node\'s convergence bundle; long-poll with `If-None-Match` and `wait`',
    auth: 'node',
    needsCore: true,
    params: NodeParams,
    query: BundleQuery,
    requestHeaders: ['IfNoneMatch'],
    responses: {
      200: { description: 'the bundle; `ETag` is its version. `Cache-Control: no-store`: it carries secret values', schema: BundleSchema, headers: ['ETag', 'Cache-Control'] },
      304: { description: '`If-None-Match` names the current version (after `wait`, if given, passed without a newer one); no body', headers: ['ETag', 'Cache-Control'] },
      400: { description: '`bad_request`: an invalid `wait`', schema: ErrorSchema },
      404: { description: 'another node\'s id (`not_found`)', schema: ErrorSchema },
      429: {
        description: `or a long-poll while the node already has its most (${MAX_HELD_POLLS_PER_NODE}) held; \`Retry-After\` says when to try again`,
        schema: ErrorSchema, headers: ['Retry-After'],
      },
      503: { description: '`no_core`: the API runs without its core, which opens bundles', schema: ErrorSchema },
    },
    handler: async ({ deps, core, query, http, conditions, node }) => {
      const id = node.nodeId;
      let version = await bundleVersion(deps.store, id);
      if (query.wait && notModified(conditions, etagOf(version))) {
        // Held until a commit of a newer bundle of this node (a 'node' change: store/nodes.ts storeBundle), the
        // wait's end or the client going away. Idle long-polls are most of what a control plane of many nodes
        // holds, so this wait is the lean one (api/wait.ts changeOrEnd), one waiter each. At shutdown the waits
        // are let go (releaseWaits): the node is answered at once and polls again.
        const polls = heldOf(deps.store);
        const n = polls.get(id) ?? 0;
        if (n >= MAX_HELD_POLLS_PER_NODE) throw tooManyPolls(id);
        polls.set(id, n + 1);
        try {
          const seen = version;
          const deadline = Date.now() + query.wait * 1000;
          while (version === seen && Date.now() < deadline && !http.res.destroyed && !waitsReleased(deps.store)) {
            await changeOrEnd(deps.store, 'node', id, deadline - Date.now(), http.res);
            // A removed node or a rotated token (a 'node' change too) ends the wait: a leaked token holds nothing open.
            if (!(await nodeTokenHolds(deps.store, node))) throw new AppError(401, 'unauthorized', 'the node token was revoked');
            version = await bundleVersion(deps.store, id);
          }
        } finally {
          const left = (polls.get(id) ?? 1) - 1;
          if (left > 0) polls.set(id, left);
          else polls.delete(id);
        }
      }
      const headers = { ...NO_STORE, ETag: etagOf(version) };
      if (notModified(conditions, headers.ETag)) return { status: 304, headers };
      const stored = await storedBundle(deps.store, id);
      const text = stored ? await core.openBundle(id, stored.sealed) : '[]';
      // The bundle as stored names its version (a newer one may have been built since the version was read).
      return { status: 200, json: `{"nodeId":${JSON.stringify(id)},"version":${stored?.version ?? 0},"projects":${text}}`, headers: { ...NO_STORE, ETag: etagOf(stored?.version ?? 0) } };
    },
  }),
  defineOp({
    operationId: 'reportNode',
    tag: 'nodes',
    method: 'post',
    path: '/v1/nodes/{nodeId}/report',
    summary: 'Record what the node observed: the bundle version it applied, and per project the version it runs, why its worker does not run, and the storage it uses',
    auth: 'node',
    needsCore: false,
    params: NodeParams,
    body: NodeReportSchema,
    responses: {
      200: { description: 'recorded', schema: NodeReportAnswerSchema },
      400: { description: '`bad_request`: an invalid body, or a bundle version the node was never given', schema: ErrorSchema },
      404: { description: 'another node\'s id (`not_found`)', schema: ErrorSchema },
    },
    handler: async ({ deps, body, node }) => ({ status: 200, body: await recordReport(deps.store, node.nodeId, body) }),
  }),
];
