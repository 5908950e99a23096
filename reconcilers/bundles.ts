/**
 * The bundle reconciler: per node, its convergence bundle (docs/api.md, Nodes). One pass builds the node's
 * bundle from the desired state of the projects placed on it (routable hostnames, secrets opened with the
 * sealing key, storage with the plan's quota, access, sign-in), compares it with the stored one, and only when
 * it differs stores it sealed under a new version (the change-feed seq of its 'node' change, so versions only
 * rise and long-polls of that node, and of no other, wake at its commit). A second pass over an unchanged state
 * writes nothing. It runs in the core: the bundle holds secret values, and only the core has the key.
 *
 * A node's bundle is bounded (MAX_BUNDLE_BYTES): a pass whose bundle would pass the bound holds back the projects
 * that grew, largest growth first, at what the node has of them (a project new to the node: left out), until it
 * fits, and records `WithinBound` False naming them; the others go on, and so do other nodes. setSecret refuses
 * most such growth before it is stored (api/secrets.ts); this covers the rest (placements, hostnames, writes that
 * raced).
 *
 * Watches: a secret, project (also an access policy, store/access.ts, and sign-in, store/auth.ts) or storage change
 * concerns the nodes its project is placed on; a placement change
 * its node; a hostname change the nodes of the project holding the name now and of those whose bundles carried
 * it (a deleted name has no holder left to ask).
 */
import { clientSecretName, REAL_ENDPOINTS, type ProviderEndpointTable } from '../rules/oauth-providers';
import { planOf, type Plans } from '../rules/plans';
import { bundleContext, secretContext, type Sealer } from '../core/sealing';
import type { Store } from '../store/db';
import {
  accessDigest, allNodeIds, BUNDLE_STATUS, bundleSources, MAX_BUNDLE_BYTES, nodesOfProject, projectOfHostname, storedBundle, storeBundle,
  type BundleProject, type BundleSource,
} from '../store/nodes';
import type { BundleSection } from '../store/schema';
import { recordStatus, statusOf, type Judged } from '../store/status';
import type { Reconciler, Result, Watch } from './types';


export interface BundleReconcilerDeps {
  store: Store;
  sealer: Sealer;
  /** The plan table: each project's storage quota and sign-in user limit. */
  plans: Plans;
  /** Where nodes reach each sign-in provider (`--oauth-providers`); default the real providers' public endpoints. */
  oauthEndpoints?: ProviderEndpointTable;
  /** The bound of a node's bundle, in bytes (default MAX_BUNDLE_BYTES). */
  maxBundleBytes?: number;
}

/** A project's part of the bundle, values opened. */
export function bundleProject(src: BundleSource, sealer: Sealer, plans: Plans, endpoints: ProviderEndpointTable): BundleProject {
  const plan = planOf(plans, src.plan);
  return {
    org: src.org,
    project: src.project,
    uid: src.uid,
    hostnames: src.hostnames,
    database: src.database,
    secrets: src.secrets.map((x) => ({ name: x.name, version: x.version, value: sealer.open(secretContext(src.org, src.project, x.name), x.sealed) })),
    storage: src.storage && { prefix: src.storage.prefix, quotaBytes: plan.storageBytes },
    access: {
      mode: src.access.mode, passwordHash: src.access.passwordHash, bypassHash: src.access.bypassHash, version: src.access.version, membersVersion: src.membersVersion,
    },
    signIn: src.signIn && {
      grant: src.signIn.grant,
      settings: src.signIn.settings,
      maxUsers: plan.signInUsers,
      providers: src.signIn.providers.map((x) => ({
        provider: x.provider,
        clientId: x.clientId,
        clientSecret: sealer.open(secretContext(src.org, src.project, clientSecretName(x.provider)), x.sealed),
        endpoints: endpoints[x.provider],
      })),
    },
  };
}

const projectKey = (p: { org: string; project: string }): string => `${p.org}/${p.project}`;

const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));

/**
 * The projects of a bundle within `max` bytes: while the whole passes it, the project that grew most against
 * `before` (its part as the node has it, by key; none: it grew by all of it) is taken back to that part, or left
 * out when the node has none. Answers the parts, in order, and the keys held back. A bundle whose growers are all
 * held back is no larger than the one the node has, so it is kept even over the bound (a bound lowered since).
 */
export function withinBound<T extends BundleProject>(built: { src: BundleSource; p: T }[], before: Map<string, T>, max: number): {
  kept: { src: BundleSource; p: T }[]; held: string[];
} {
  const growers = built.map((b) => {
    const had = before.get(projectKey(b.p));
    return { key: projectKey(b.p), by: bytes(b.p) - (had ? bytes(had) : 0) };
  }).filter((g) => g.by > 0).sort((x, y) => y.by - x.by);
  const held = new Set<string>();
  const keep = () => built.flatMap((b) => {
    const key = projectKey(b.p);
    if (!held.has(key)) return [b];
    const had = before.get(key);
    return had ? [{ src: b.src, p: had }] : [];
  });
  let kept = built;
  for (const g of growers) {
    if (bytes(kept.map((k) => k.p)) <= max) break;
    held.add(g.key);
    kept = keep();
  }
  return { kept, held: [...held] };
}

export function bundleReconciler(d: BundleReconcilerDeps): Reconciler {
  const endpoints = d.oauthEndpoints ?? REAL_ENDPOINTS;
  /** Which nodes' last built bundles carry each hostname: a deleted name maps to them. */
  const carriers = new Map<string, Set<string>>();
  const carriedBy = new Map<string, string[]>();
  const remember = (nodeId: string, hosts: string[]): void => {
    for (const h of carriedBy.get(nodeId) ?? []) carriers.get(h)?.delete(nodeId);
    for (const h of hosts) {
      let set = carriers.get(h);
      if (!set) carriers.set(h, (set = new Set()));
      set.add(nodeId);
    }
    carriedBy.set(nodeId, hosts);
  };
  const ofProject = (changeKey: string): Promise<string[]> => nodesOfProject(d.store, Number(changeKey));
  const watches: Watch[] = [
    { kind: 'secret', keys: ofProject },
    { kind: 'project', keys: ofProject },
    { kind: 'storage', keys: ofProject },
    { kind: 'placement', keys: (nodeId) => [nodeId] },
    {
      kind: 'hostname',
      keys: async (name) => {
        const holder = await projectOfHostname(d.store, name);
        const now = holder === undefined ? [] : await nodesOfProject(d.store, holder);
        return [...new Set([...now, ...(carriers.get(name) ?? [])])];
      },
    },
  ];
  return {
    kind: 'bundle',
    watches,
    keys: () => allNodeIds(d.store),
    async reconcile(nodeId): Promise<Result> {
      const [sources, old] = await Promise.all([bundleSources(d.store, nodeId), storedBundle(d.store, nodeId)]);
      const oldText = old ? d.sealer.open(bundleContext(nodeId), old.sealed) : '[]';
      const had = new Map((JSON.parse(oldText) as BundleProject[]).map((p) => [projectKey(p), p]));
      const max = d.maxBundleBytes ?? MAX_BUNDLE_BYTES;
      const { kept, held } = withinBound(sources.map((src) => ({ src, p: bundleProject(src, d.sealer, d.plans, endpoints) })), had, max);
      const built = kept.map((k) => k.p);
      const text = JSON.stringify(built);
      remember(nodeId, built.flatMap((p) => p.hostnames));
      const bound: Judged = held.length === 0
        ? { type: 'WithinBound', status: 'True', reason: 'UnderBound', message: `the bundle is ${Buffer.byteLength(text)} bytes of at most ${max}` }
        : {
          type: 'WithinBound', status: 'False', reason: 'ProjectsHeldBack',
          message: `the bundle would pass ${max} bytes: ${held.join(', ')} held at what the node has (a project new to it: not sent) until it fits; place projects on other nodes`,
        };
      // A node never held back has no status: the bound is news only when it bites, and once it did, when it no longer does.
      const judge = async (generation: number): Promise<void> => {
        if (held.length > 0 || await statusOf(d.store, BUNDLE_STATUS.kind, nodeId)) await recordStatus(d.store, BUNDLE_STATUS, nodeId, { uid: nodeId, generation, set: [bound] });
      };
      if (oldText === text) {
        await judge(old?.version ?? 0);
        return {};
      }
      const before = new Map([...had].map(([key, p]) => [key, JSON.stringify(p)]));
      const version = await storeBundle(d.store, nodeId, (version) => {
        const sections: Record<string, BundleSection> = {};
        kept.forEach(({ src, p }) => {
          const prev = old?.sections[String(src.projectId)];
          const same = prev !== undefined && before.get(projectKey(p)) === JSON.stringify(p);
          const secrets: BundleSection['secrets'] = {};
          for (const x of p.secrets) {
            const had = prev?.secrets[x.name];
            secrets[x.name] = { version: x.version, since: had && had.version === x.version ? had.since : version, bytes: bytes(x) };
          }
          const digest = accessDigest(p.access);
          const access = { digest, since: prev?.access?.digest === digest ? prev.access.since : version };
          sections[String(src.projectId)] = { version: same ? prev.version : version, secrets, access };
        });
        return { sealed: d.sealer.seal(bundleContext(nodeId), text), sections };
      });
      await judge(version);
      return {};
    },
  } satisfies Reconciler;
}
