/**
 * Nodes' side of the store: what a node's bundle is built from, the bundle as last built (sealed: it carries
 * secret values), and what nodes report (the bundle version applied, storage used per project). Operators read
 * per node its desired and applied versions and whether it went silent (`nodeStatuses`); an org's users read
 * per project its placements (`projectPlacements`) and per secret where its version runs (`secretRollout`).
 */
import { and, asc, eq, gt, inArray, isNull, notExists, sql } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import { AppError, conflict, notFound } from '../lib/errors';
import type { Condition } from '../lib/conditions';
import { iso, type Db, type Store } from './db';
import { accessForBundle, type AccessForBundle } from './access';
import { authForBundle, type AuthForBundle, type AuthSettings } from './auth';
import type { OAuthProviderName, ProviderEndpoints } from '../rules/oauth-providers';
import { recordChange, recordChangeSeq } from './feed';
import { decodeCursor, toPage, type Page } from './paging';
import { hostnames, nodeBundles, nodeReports, nodes, orgs, placements, projects, projectUsage, resourceStatus, secrets, storageGrants, type BundleSection } from './schema';
import type { StatusKind } from './status';

/**
 * The bound of a node's bundle, in bytes of its projects' JSON. The node agent takes the bundle whole (one body,
 * parsed and checked in memory, written to bundle.json at each version), the core opens and seals it whole at
 * each change of any project on the node, and every such change sends all of it to the node again. A Kubernetes
 * Secret stops at 1 MiB; a bundle carries every project on a node, so a few times that: 8 MiB holds 85 projects
 * at the pro plan's full 96 KiB of secrets (most carry a few KiB), and keeps one version's open, seal, transfer
 * and parse in the tens of milliseconds and one agent's copies of it in tens of MiB.
 */
export const MAX_BUNDLE_BYTES = 8 * 1024 * 1024;

/** The bundle reconciler's status of a node (key: the node id): `WithinBound` (MAX_BUNDLE_BYTES). */
export const BUNDLE_STATUS: StatusKind<Record<string, never>> = { kind: 'bundle', facts: {} };

/** A node that has not reported for this long is Stale in `admin status` (a node reports after each bundle it
 * applies and at least every minute: docs/api.md, Nodes). */
export const NODE_STALE_AFTER_MS = 3 * 60_000;

/** The access section of a bundle (store/access.ts): a project never set is `public` at version 0; `version`
 * rises with the mode or the password, so sessions made under an older one end. */
export type BundleAccess = AccessForBundle & { membersVersion: number };
/** The sign-in section: the grant's id and settings, the plan's user limit, and per registered provider the
 * project's app (client secret opened) with the endpoints the operator configured (rules/oauth-providers.ts). */
export interface BundleSignIn {
  /** New at each grant (store/auth.ts): the node honours a session only under the grant it was made under. */
  grant: string;
  settings: AuthSettings;
  /** The plan's `signInUsers`: the node refuses sign-ups beyond it. */
  maxUsers: number;
  providers: { provider: OAuthProviderName; clientId: string; clientSecret: string; endpoints: ProviderEndpoints }[];
}

/** One placed project in a node's bundle. Secrets carry their values: the bundle is sealed at rest and opened
 * only by the core, for the node itself. */
export interface BundleProject {
  org: string;
  project: string;
  /** The project's lifetime (store/schema.ts projects.uid): a project deleted and created again under the name has
   * another, so the node gives the new one a database and a worker user of its own. */
  uid: string;
  /** Routable hostnames: the default one and the active custom ones, by name. */
  hostnames: string[];
  /** Whether the project has a database (`SERVICE_DB_PATH` on the node). */
  database: boolean;
  /** Secrets by name; each reaches the worker as the environment variable of its name. */
  secrets: { name: string; version: number; value: string }[];
  /** `SERVICE_STORAGE_DIR` (the prefix) and `SERVICE_STORAGE_QUOTA_BYTES`; null without a grant. */
  storage: { prefix: string; quotaBytes: number } | null;
  access: BundleAccess;
  signIn: BundleSignIn | null;
}

/** The bundle as a node reads it: `version` is its ETag. */
export interface Bundle { nodeId: string; version: number; projects: BundleProject[] }

/** What a placed project's part of a bundle is made of, as stored (secret values still sealed). */
export interface BundleSource {
  projectId: number;
  org: string;
  plan: string;
  project: string;
  uid: string;
  database: boolean;
  hostnames: string[];
  secrets: { name: string; version: number; sealed: string }[];
  storage: { prefix: string } | null;
  /** Null without a grant; client secrets still sealed. */
  signIn: AuthForBundle | null;
  access: AccessForBundle;
  /** The org's members version (store/accounts.ts): `org`-mode sessions are bound to it. */
  membersVersion: number;
}

/** A project whose policy was never set. */
const PUBLIC_ACCESS: AccessForBundle = { mode: 'public', passwordHash: null, bypassHash: null, version: 0 };

/** What `admin node list` shows of a node. */
export type NodeListing = { nodeId: string; createdAt: string; projects: string[]; lastReportAt: string | null };

/** Every node by id, with the projects placed on it (`org/project`, by name) and its last report. */
export async function listNodes(s: Store): Promise<NodeListing[]> {
  const rows = await s.db.select({ nodeId: nodes.id, createdAt: nodes.createdAt, lastReportAt: nodeReports.reportedAt }).from(nodes)
    .leftJoin(nodeReports, eq(nodeReports.nodeId, nodes.id)).orderBy(asc(nodes.id));
  const placed = await placedProjects(s.db);
  return rows.map((r) => ({ ...r, projects: placed.filter((p) => p.nodeId === r.nodeId).map((p) => `${p.org}/${p.project}`) }));
}

const placedProjects = (q: Db, nodeId?: string) => q.select({ nodeId: placements.nodeId, org: orgs.slug, project: projects.name }).from(placements)
  .innerJoin(projects, eq(projects.id, placements.projectId)).innerJoin(orgs, eq(orgs.id, projects.orgId))
  .where(nodeId === undefined ? undefined : eq(placements.nodeId, nodeId)).orderBy(asc(orgs.slug), asc(projects.name));

/**
 * Removes the node: its token authenticates no more from the commit on (its held long-polls are woken by the
 * 'node' change and answered 401), and the projects placed on it are taken off it, each left on its other nodes
 * or on none (`admin status` lists projects placed nowhere). Answers those projects, `org/project`.
 */
export async function removeNode(s: Store, nodeId: string): Promise<string[]> {
  const now = s.clock();
  return s.write(async (tx) => {
    const [node] = await tx.select({ id: nodes.id }).from(nodes).where(eq(nodes.id, nodeId));
    if (!node) throw notFound(`node ${nodeId}`);
    const unplaced = (await placedProjects(tx, nodeId)).map((p) => `${p.org}/${p.project}`);
    await tx.delete(placements).where(eq(placements.nodeId, nodeId));
    await tx.delete(projectUsage).where(eq(projectUsage.nodeId, nodeId));
    await tx.delete(nodeBundles).where(eq(nodeBundles.nodeId, nodeId));
    await tx.delete(nodeReports).where(eq(nodeReports.nodeId, nodeId));
    await tx.delete(resourceStatus).where(and(eq(resourceStatus.kind, BUNDLE_STATUS.kind), eq(resourceStatus.key, nodeId)));
    await tx.delete(nodes).where(eq(nodes.id, nodeId));
    await recordChange(s, tx, 'node', nodeId, now);
    return unplaced;
  });
}

/** Projects that live (not being deleted) and are placed on no node, by org and name: what `admin status` lists. */
export async function unplacedProjects(s: Store): Promise<{ org: string; project: string }[]> {
  return s.db.select({ org: orgs.slug, project: projects.name }).from(projects).innerJoin(orgs, eq(orgs.id, projects.orgId))
    .where(and(isNull(projects.deletingSince), notExists(s.db.select({ one: sql`1` }).from(placements).where(eq(placements.projectId, projects.id)))))
    .orderBy(asc(orgs.slug), asc(projects.name));
}

export async function allNodeIds(s: Store): Promise<string[]> {
  return (await s.db.select({ id: nodes.id }).from(nodes).orderBy(asc(nodes.id))).map((r) => r.id);
}

/** The nodes a project is placed on. */
export async function nodesOfProject(s: Store, projectId: number): Promise<string[]> {
  return (await s.prepared('nodesOfProject', (db) => db.select({ nodeId: placements.nodeId }).from(placements)
    .where(eq(placements.projectId, sql.placeholder('id'))).prepare()).execute({ id: projectId })).map((r) => r.nodeId);
}

/** The project holding the hostname `name`, if any. */
export async function projectOfHostname(s: Store, name: string): Promise<number | undefined> {
  const [row] = await s.prepared('projectOfHostname', (db) => db.select({ id: hostnames.projectId }).from(hostnames)
    .where(eq(hostnames.name, sql.placeholder('name'))).prepare()).execute({ name });
  return row?.id;
}

/** Everything the bundle of `nodeId` is made of, by org and project name. */
export async function bundleSources(s: Store, nodeId: string): Promise<BundleSource[]> {
  const placed = await s.db.select({ projectId: projects.id, org: orgs.slug, plan: orgs.plan, membersVersion: orgs.membersVersion, project: projects.name, uid: projects.uid, database: projects.database })
    .from(placements).innerJoin(projects, eq(projects.id, placements.projectId)).innerJoin(orgs, eq(orgs.id, projects.orgId))
    .where(eq(placements.nodeId, nodeId)).orderBy(asc(orgs.slug), asc(projects.name));
  if (placed.length === 0) return [];
  const ids = placed.map((p) => p.projectId);
  const group = <T extends { projectId: number }>(rows: T[]): Map<number, T[]> => {
    const m = new Map<number, T[]>();
    for (const r of rows) m.set(r.projectId, [...(m.get(r.projectId) ?? []), r]);
    return m;
  };
  // At once, not one after another: on PostgreSQL each is a round trip on a connection of its own, and a secret set
  // through one replica reaches a node long-polling another only once the leader has built this (issue 23 item 4).
  const [hostRows, secretRows, storageRows, auth, access] = await Promise.all([
    s.db.select({ projectId: hostnames.projectId, name: hostnames.name }).from(hostnames)
      .where(and(inArray(hostnames.projectId, ids), eq(hostnames.status, 'active'))).orderBy(asc(hostnames.name)),
    s.db.select({ projectId: secrets.projectId, name: secrets.name, version: secrets.version, sealed: secrets.sealed }).from(secrets)
      .where(inArray(secrets.projectId, ids)).orderBy(asc(secrets.name)),
    s.db.select({ projectId: storageGrants.projectId, prefix: storageGrants.prefix }).from(storageGrants).where(inArray(storageGrants.projectId, ids)),
    authForBundle(s, ids),
    accessForBundle(s, ids),
  ]);
  const hosts = group(hostRows);
  const sealed = group(secretRows);
  const storage = new Map(storageRows.map((r) => [r.projectId, r]));
  return placed.map((p) => ({
    ...p,
    hostnames: (hosts.get(p.projectId) ?? []).map((h) => h.name),
    secrets: (sealed.get(p.projectId) ?? []).map(({ name, version, sealed: v }) => ({ name, version, sealed: v })),
    storage: storage.has(p.projectId) ? { prefix: storage.get(p.projectId)!.prefix } : null,
    signIn: auth.get(p.projectId) ?? null,
    access: access.get(p.projectId) ?? PUBLIC_ACCESS,
  }));
}

export interface StoredBundle { version: number; sealed: string; sections: Record<string, BundleSection>; builtAt: string }

/** The bundle of `nodeId` as last built; undefined: none yet (the empty bundle, version 0). */
export async function storedBundle(s: Store, nodeId: string): Promise<StoredBundle | undefined> {
  const [bundle] = await s.prepared('storedBundle', (db) => db.select({ version: nodeBundles.version, sealed: nodeBundles.sealed, sections: nodeBundles.sections, builtAt: nodeBundles.builtAt })
    .from(nodeBundles).where(eq(nodeBundles.nodeId, sql.placeholder('id'))).prepare()).execute({ id: nodeId });
  return bundle;
}

/** The version of the bundle of `nodeId` (0: none built yet): what a long-poll compares, without the bundle. */
export async function bundleVersion(s: Store, nodeId: string): Promise<number> {
  const [row] = await s.raw<{ version: number }>('bundleVersion', 'SELECT version FROM node_bundles WHERE node_id = ?', [nodeId]);
  return row?.version ?? 0;
}

/**
 * Stores a new bundle of `nodeId`: its version is the change-feed seq of the 'node' change recorded with it, so
 * versions only rise and every long-poll of the node wakes at its commit. `make` gets the version and answers
 * the sealed bundle and its sections. Answers the version.
 */
export async function storeBundle(s: Store, nodeId: string, make: (version: number) => { sealed: string; sections: Record<string, BundleSection> }): Promise<number> {
  const now = s.clock();
  return s.write(async (tx) => {
    const version = await recordChangeSeq(s, tx, 'node', nodeId, now);
    const { sealed, sections } = make(version);
    const row = { version, sealed, sections, builtAt: iso(now) };
    await tx.insert(nodeBundles).values({ nodeId, ...row }).onConflictDoUpdate({ target: nodeBundles.nodeId, set: row });
    return version;
  });
}

/** A node's report. `bundleVersion` is the version whose every worker runs; a project's `appliedVersion` is the
 * version the node runs that project at, which one project's worker failing to start does not hold back for the
 * others. Without it (an older agent) the project counts as applied at `bundleVersion`. */
/**
 * Refuses (409 `quota_exceeded`, quota `bundle_bytes`) a secret write that could take the bundle of some node the
 * project is placed on past MAX_BUNDLE_BYTES, judged against the bundle as last built: it grows by at most
 * `entryBytes` (the secret's entry as JSON) less the entry it replaces in that bundle (as the bundle's section
 * has it; none when the bundle does not carry the secret yet). `bytesOf` tells a sealed text's plaintext bytes
 * (core/sealing.ts sealedBytes: the seal's format is the core's). A write that passes this and still does not fit
 * (it raced another) is held back by the bundle reconciler.
 */
export async function checkSecretFits(s: Store, w: { projectId: number; name: string; plan: string; entryBytes: number; bytesOf: (sealed: string) => number }): Promise<void> {
  const [old] = await s.db.select({ sealed: secrets.sealed }).from(secrets).where(and(eq(secrets.projectId, w.projectId), eq(secrets.name, w.name)));
  const bundles = await s.db.select({ nodeId: nodeBundles.nodeId, sealed: nodeBundles.sealed, sections: nodeBundles.sections }).from(nodeBundles)
    .innerJoin(placements, eq(placements.nodeId, nodeBundles.nodeId)).where(eq(placements.projectId, w.projectId)).orderBy(asc(nodeBundles.nodeId));
  for (const b of bundles) {
    const entry = b.sections[String(w.projectId)]?.secrets[w.name];
    // A section built before entries' bytes were kept: the value's bytes, which its entry is at least.
    const freed = entry ? entry.bytes ?? (old ? w.bytesOf(old.sealed) : 0) : 0;
    const now = w.bytesOf(b.sealed);
    if (now + w.entryBytes - freed > MAX_BUNDLE_BYTES) {
      throw conflict('quota_exceeded', `node ${b.nodeId}, which runs the project, would get a bundle past its bound of ${MAX_BUNDLE_BYTES} bytes (it is ${now}); smaller values, or the project on another node (an operator's placement)`, {
        quota: 'bundle_bytes', limit: MAX_BUNDLE_BYTES, count: now, plan: w.plan,
      });
    }
  }
}

export interface NodeReport {
  bundleVersion: number;
  projects: { org: string; project: string; usedBytes: number; appliedVersion?: number; failure?: string | null }[];
}

/**
 * Records a node's report: the bundle version it applied, and per project the storage it uses, the version
 * applied for it and why its worker does not run. Only projects placed on the node are recorded; the others are
 * answered as `ignored`. A version the node was never given (above its bundle's) is 400.
 */
export async function recordReport(s: Store, nodeId: string, r: NodeReport): Promise<{ desiredVersion: number; ignored: { org: string; project: string }[] }> {
  const now = iso(s.clock());
  const placed = await s.db.select({ projectId: projects.id, org: orgs.slug, project: projects.name }).from(placements)
    .innerJoin(projects, eq(projects.id, placements.projectId)).innerJoin(orgs, eq(orgs.id, projects.orgId))
    .where(eq(placements.nodeId, nodeId));
  const byName = new Map(placed.map((p) => [`${p.org}/${p.project}`, p.projectId]));
  const ignored: { org: string; project: string }[] = [];
  const reported = new Map<number, { usedBytes: number; appliedVersion: number | null; failure: string | null }>();
  for (const p of r.projects) {
    const id = byName.get(`${p.org}/${p.project}`);
    if (id === undefined) ignored.push({ org: p.org, project: p.project });
    else reported.set(id, { usedBytes: p.usedBytes, appliedVersion: p.appliedVersion ?? null, failure: p.failure ?? null });
  }
  const newest = Math.max(r.bundleVersion, ...[...reported.values()].map((p) => p.appliedVersion ?? 0));
  const desiredVersion = await s.write(async (tx) => {
    const [b] = await tx.select({ version: nodeBundles.version }).from(nodeBundles).where(eq(nodeBundles.nodeId, nodeId));
    const desired = b?.version ?? 0;
    if (newest > desired) {
      throw new AppError(400, 'bad_request', `bundle version ${newest} was never issued to node ${nodeId} (its bundle is at ${desired})`);
    }
    await tx.insert(nodeReports).values({ nodeId, appliedVersion: r.bundleVersion, reportedAt: now })
      .onConflictDoUpdate({ target: nodeReports.nodeId, set: { appliedVersion: r.bundleVersion, reportedAt: now } });
    for (const [projectId, p] of reported) {
      const row = { ...p, reportedAt: now };
      await tx.insert(projectUsage).values({ projectId, nodeId, ...row })
        .onConflictDoUpdate({ target: [projectUsage.projectId, projectUsage.nodeId], set: row });
    }
    return desired;
  });
  return { desiredVersion, ignored };
}

export interface ProjectPlacement {
  nodeId: string;
  createdAt: string;
  /** The bundle version that carries the project as it is now (null: the node's bundle has not taken it yet). */
  version: number | null;
  /** The bundle version the node last reported running the project at (null: it never reported). */
  appliedVersion: number | null;
  /** The node runs the project as it is now: it applied `version` or a later bundle. */
  applied: boolean;
  /** Why the node does not run the project's wanted worker, as it last reported (null: it runs, or it did not say). */
  failure: string | null;
  reportedAt: string | null;
}

/** The version a node runs a project at: its whole-node version is reached by every project on it, and the
 * project's own, when the node reports one, may be later (another project's worker failing holds only that one). */
const appliedFor = (nodeVersion: number | null, projectVersion: number | null): number | null =>
  nodeVersion === null ? projectVersion : projectVersion === null ? nodeVersion : Math.max(nodeVersion, projectVersion);

/** The nodes a project is placed on, each with the project's section of the node's bundle as last built (none
 * yet: undefined) and what the node last reported of the project; read and parsed once for the placements and
 * the rollouts. */
async function placedSections(s: Store, projectId: number): Promise<{
  nodeId: string; createdAt: string; section: BundleSection | undefined; appliedVersion: number | null; failure: string | null; reportedAt: string | null;
}[]> {
  type Row = { nodeId: string; createdAt: string; sections: string | null; nodeApplied: number | null; projectApplied: number | null; failure: string | null; reportedAt: string | null };
  const rows = await s.raw<Row>('projectPlacements',
    `SELECT p.node_id AS "nodeId", p.created_at AS "createdAt", b.sections AS sections, r.applied_version AS "nodeApplied",
       u.applied_version AS "projectApplied", u.failure AS failure, r.reported_at AS "reportedAt"
     FROM placements p LEFT JOIN node_bundles b ON b.node_id = p.node_id LEFT JOIN node_reports r ON r.node_id = p.node_id
       LEFT JOIN project_usage u ON u.project_id = p.project_id AND u.node_id = p.node_id
     WHERE p.project_id = ? ORDER BY p.node_id`,
    [projectId]);
  return rows.map(({ sections, nodeApplied, projectApplied, ...r }) => ({
    ...r,
    appliedVersion: appliedFor(nodeApplied, projectApplied),
    section: sections === null ? undefined : (JSON.parse(sections) as Record<string, BundleSection>)[String(projectId)],
  }));
}

/** The nodes a project is placed on, with how far each has applied it; nothing of other projects. */
export async function projectPlacements(s: Store, projectId: number): Promise<ProjectPlacement[]> {
  return (await placedSections(s, projectId)).map((r) => {
    const version = r.section?.version ?? null;
    return {
      nodeId: r.nodeId, createdAt: r.createdAt, version, appliedVersion: r.appliedVersion,
      applied: version !== null && r.appliedVersion !== null && r.appliedVersion >= version, failure: r.failure, reportedAt: r.reportedAt,
    };
  });
}

export interface SecretRollout {
  nodeId: string;
  state: 'applied' | 'pending';
  /** Why the node does not run the project's wanted worker, as it last reported; null: it runs, or it did not say. */
  failure: string | null;
}

/** What identifies a project's access section in a bundle: the bundle reconciler records it with the first
 * version that carried it, and the access policy's rollout compares it with the policy now. */
export const accessDigest = (a: BundleAccess): string =>
  createHash('sha256').update(JSON.stringify([a.mode, a.passwordHash, a.bypassHash, a.version, a.membersVersion])).digest('base64url');

/**
 * Where a project's access policy as it is now (mode, password, bypass, the org's members version) is enforced:
 * per node the project is placed on, `applied` once the node reported a bundle version at or after the first
 * one that carried it, else `pending`.
 */
export async function accessRollout(s: Store, projectId: number): Promise<SecretRollout[]> {
  const [row] = await s.db.select({ membersVersion: orgs.membersVersion }).from(projects).innerJoin(orgs, eq(orgs.id, projects.orgId)).where(eq(projects.id, projectId)).limit(1);
  const access = (await accessForBundle(s, [projectId])).get(projectId) ?? PUBLIC_ACCESS;
  const digest = accessDigest({ ...access, membersVersion: row?.membersVersion ?? 0 });
  return (await placedSections(s, projectId)).map((p) => {
    const entry = p.section?.access;
    const applied = entry !== undefined && entry.digest === digest && p.appliedVersion !== null && p.appliedVersion >= entry.since;
    return { nodeId: p.nodeId, state: applied ? 'applied' : 'pending', failure: p.failure };
  });
}

/**
 * Where version `version` of a project's secret runs: per node the project is placed on, `applied` once the
 * node reported a bundle version at or after the first one that carried this secret version (or a later one of
 * it), else `pending` (the bundle is not built yet, or the node has not applied it).
 */
export async function secretRollout(s: Store, projectId: number, name: string, version: number): Promise<SecretRollout[]> {
  return (await placedSections(s, projectId)).map((p) => {
    const entry = p.section?.secrets[name];
    const applied = entry !== undefined && entry.version >= version && p.appliedVersion !== null && p.appliedVersion >= entry.since;
    return { nodeId: p.nodeId, state: applied ? 'applied' : 'pending', failure: p.failure };
  });
}

export interface NodeStatus {
  nodeId: string;
  /** The version of its current bundle (0: none built). */
  desiredVersion: number;
  appliedVersion: number | null;
  lastReportAt: string | null;
  /** `Stale` (silent for NODE_STALE_AFTER_MS, or never reported), `Applied` (runs its current bundle) and, once
   * the bundle reconciler judged it, `WithinBound` (MAX_BUNDLE_BYTES: False names the projects held back). */
  conditions: Condition[];
  /** Per placed project: its secrets whose current version the node does not run yet. */
  pendingSecrets: { org: string; project: string; name: string; version: number }[];
}

/** A node's `Applied` (it runs its current bundle) and `Stale` (silent for `staleAfterMs`, or never reported), judged
 * at `now`: the one rule of both `admin status` and the console's nodes page. */
function nodeConditions(r: { desiredVersion: number; appliedVersion: number | null; reportedAt: string | null; createdAt: string }, now: Date, staleAfterMs: number): Condition[] {
  const { desiredVersion } = r;
  const silentMs = r.reportedAt === null ? Infinity : now.getTime() - Date.parse(r.reportedAt);
  const stale = silentMs > staleAfterMs;
  const at = iso(now);
  return [
    {
      type: 'Applied', status: r.appliedVersion !== null && r.appliedVersion >= desiredVersion ? 'True' : 'False',
      reason: r.appliedVersion === null ? 'NeverReported' : r.appliedVersion >= desiredVersion ? 'CurrentBundle' : 'OlderBundle',
      message: r.appliedVersion === null ? 'the node has not reported an applied bundle' : `the node runs bundle ${r.appliedVersion} of ${desiredVersion}`,
      observedGeneration: desiredVersion, lastTransitionTime: r.reportedAt ?? at,
    },
    {
      type: 'Stale', status: stale ? 'True' : 'False', reason: r.reportedAt === null ? 'NeverReported' : stale ? 'Silent' : 'Reporting',
      message: r.reportedAt === null ? 'the node has never reported' : stale
        ? `no report for ${Math.round(silentMs / 1000)} s (stale after ${Math.round(staleAfterMs / 1000)} s)`
        : `last report ${Math.round(silentMs / 1000)} s ago`,
      observedGeneration: desiredVersion, lastTransitionTime: r.reportedAt ?? r.createdAt,
    },
  ];
}

/** Every node with its versions and conditions, judged at the store's clock: what `admin status` prints. */
export async function nodeStatuses(s: Store, staleAfterMs = NODE_STALE_AFTER_MS): Promise<NodeStatus[]> {
  const now = s.clock();
  type Row = { nodeId: string; createdAt: string; version: number | null; sections: string | null; appliedVersion: number | null; reportedAt: string | null };
  const rows = await s.raw<Row>('nodeStatuses', `SELECT n.id AS "nodeId", n.created_at AS "createdAt", b.version AS version, b.sections AS sections,
    r.applied_version AS "appliedVersion", r.reported_at AS "reportedAt"
    FROM nodes n LEFT JOIN node_bundles b ON b.node_id = n.id LEFT JOIN node_reports r ON r.node_id = n.id ORDER BY n.id`);
  const current = await s.db.select({ projectId: secrets.projectId, name: secrets.name, version: secrets.version, org: orgs.slug, project: projects.name })
    .from(secrets).innerJoin(projects, eq(projects.id, secrets.projectId)).innerJoin(orgs, eq(orgs.id, projects.orgId))
    // A join with placements would give a secret once per node its project is placed on.
    .where(inArray(secrets.projectId, s.db.select({ id: placements.projectId }).from(placements)));
  const bound = new Map((await s.db.select({ nodeId: resourceStatus.key, conditions: resourceStatus.conditions }).from(resourceStatus)
    .where(eq(resourceStatus.kind, BUNDLE_STATUS.kind))).map((r) => [r.nodeId, r.conditions]));
  const placedOn = await s.db.select({ nodeId: placements.nodeId, projectId: placements.projectId, appliedVersion: projectUsage.appliedVersion }).from(placements)
    .leftJoin(projectUsage, and(eq(projectUsage.projectId, placements.projectId), eq(projectUsage.nodeId, placements.nodeId)));
  return rows.map((r) => {
    const desiredVersion = r.version ?? 0;
    const sections = r.sections === null ? {} : (JSON.parse(r.sections) as Record<string, BundleSection>);
    const conditions: Condition[] = [
      ...nodeConditions({ desiredVersion, appliedVersion: r.appliedVersion, reportedAt: r.reportedAt, createdAt: r.createdAt }, now, staleAfterMs),
      ...(bound.get(r.nodeId) ?? []),
    ];
    const projectsHere = new Map(placedOn.filter((p) => p.nodeId === r.nodeId).map((p) => [p.projectId, appliedFor(r.appliedVersion, p.appliedVersion)]));
    const pendingSecrets = current.filter((c) => projectsHere.has(c.projectId)).filter((c) => {
      const entry = sections[String(c.projectId)]?.secrets[c.name];
      const applied = projectsHere.get(c.projectId)!;
      return !entry || entry.version < c.version || applied === null || applied < entry.since;
    }).map(({ org, project, name, version }) => ({ org, project, name, version }));
    return { nodeId: r.nodeId, desiredVersion, appliedVersion: r.appliedVersion, lastReportAt: r.reportedAt, conditions, pendingSecrets };
  });
}

/** A node as an organization's admins see it: its versions, last report, `Applied` and `Stale`; nothing of what the
 * node runs for other organizations (its `WithinBound` names their projects). */
export type OrgNodeStatus = Omit<NodeStatus, 'pendingSecrets'>;

/** The nodes that carry a project of the organization, by id, a page at a time, judged at the store's clock as
 * `nodeStatuses` judges them. */
export async function orgNodeStatuses(s: Store, orgId: number, limit: number, cursor?: string, staleAfterMs = NODE_STALE_AFTER_MS): Promise<Page<OrgNodeStatus>> {
  const now = s.clock();
  const carrying = s.db.select({ id: placements.nodeId }).from(placements).innerJoin(projects, eq(projects.id, placements.projectId)).where(eq(projects.orgId, orgId));
  const rows = await s.db.select({ nodeId: nodes.id, createdAt: nodes.createdAt, version: nodeBundles.version, appliedVersion: nodeReports.appliedVersion, reportedAt: nodeReports.reportedAt })
    .from(nodes).leftJoin(nodeBundles, eq(nodeBundles.nodeId, nodes.id)).leftJoin(nodeReports, eq(nodeReports.nodeId, nodes.id))
    .where(and(inArray(nodes.id, carrying), cursor === undefined ? undefined : gt(nodes.id, decodeCursor(cursor))))
    .orderBy(asc(nodes.id)).limit(limit + 1);
  const page = toPage(rows, limit, (r) => r.nodeId);
  return {
    nextCursor: page.nextCursor,
    items: page.items.map((r) => {
      const desiredVersion = r.version ?? 0;
      return {
        nodeId: r.nodeId, desiredVersion, appliedVersion: r.appliedVersion, lastReportAt: r.reportedAt,
        conditions: nodeConditions({ desiredVersion, appliedVersion: r.appliedVersion, reportedAt: r.reportedAt, createdAt: r.createdAt }, now, staleAfterMs),
      };
    }),
  };
}
