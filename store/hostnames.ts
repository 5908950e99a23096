/**
 * Custom hostnames (spec 4.5): the rows the API writes and the hostname reconciler converges. A name is held
 * once, globally (the primary key of `hostnames`), from the moment it is added; each added row is a lifetime
 * (`uid`) whose deletion leaves a finalizer until the edge provider's hostname and the managed records are gone.
 */
import { and, asc, eq, gt, like, or, sql } from 'drizzle-orm';
import { randomBytes, randomUUID } from 'node:crypto';
import { AppError, conflict, notFound } from '../lib/errors';
import { iso, type Db, type Store, type Tx } from './db';
import { checkLiveProject } from './live-project';
import { appendAudit, recordChange } from './feed';
import { decodeCursor, toPage, type Page } from './paging';
import { isReady, type Condition } from '../lib/conditions';
import { quotaExceeded } from '../rules/plans';
import { hostnameFinalizers, hostnames, orgs, projects, resourceStatus, rrsets, zones } from './schema';
import { toResourceStatus, type ResourceStatus, type StatusKind } from './status';

export type HostnameState = 'pending_dns' | 'active';
/** Which ownership proof passed (spec 4.5 rule 4). */
export type Proof = 'zone' | 'txt' | 'cname';

export interface HostnameRow {
  name: string;
  projectId: number;
  kind: 'default' | 'custom';
  status: HostnameState;
  createdAt: string;
  uid: string;
  token: string | null;
  generation: number;
  verifiedAt: string | null;
  proof: Proof | null;
}

/** What the hostname reconciler observes of a custom hostname besides its conditions. */
export interface HostnameFacts {
  /** The edge provider's id of the hostname and the certificate state it reports; null before it has one. */
  edge: { id: string; certificate: string } | null;
  /** The managed rrsets written for the hostname in a zone of the organization (`zone`, types); null: none. */
  record: { zone: string; types: string[] } | null;
}

export type HostnameStatus = ResourceStatus<HostnameFacts>;
/** Custom hostname status as the hostname reconciler records it (store/status.ts recordStatus). */
export const HOSTNAME_STATUS: StatusKind<HostnameFacts> = { kind: 'hostname', facts: { edge: null, record: null } };
export interface HostnameWithStatus extends HostnameRow { observed: HostnameStatus | null }

/** A delete's precondition (If-Match: api/conditional.ts), called inside the write with the row as it is. */
export type HostnamePrecondition = (current: HostnameWithStatus) => void;

const columns = {
  name: hostnames.name, projectId: hostnames.projectId, kind: hostnames.kind, status: hostnames.status, createdAt: hostnames.createdAt,
  uid: hostnames.uid, token: hostnames.token, generation: hostnames.generation, verifiedAt: hostnames.verifiedAt, proof: hostnames.proof,
};
const statusJoin = and(eq(resourceStatus.kind, 'hostname'), eq(resourceStatus.key, hostnames.name), eq(resourceStatus.uid, hostnames.uid));

type Joined = Omit<HostnameRow, 'status' | 'proof'> & { status: string; proof: string | null; st: typeof resourceStatus.$inferSelect | null };
const withStatus = (r: Joined): HostnameWithStatus => ({
  ...r,
  status: r.status as HostnameState,
  proof: r.proof as Proof | null,
  observed: r.st && toResourceStatus<HostnameFacts>(r.st),
});

/** The tokens of TXT proofs: 128 random bits, hex. */
const newToken = (): string => randomBytes(16).toString('hex');

/** A project's hostnames, default and custom, by name, each with its status. */
export async function listHostnames(s: Store, projectId: number, limit: number, cursor?: string): Promise<Page<HostnameWithStatus>> {
  const after = cursor === undefined ? undefined : gt(hostnames.name, decodeCursor(cursor));
  const rows = await s.db.select({ ...columns, st: resourceStatus }).from(hostnames).leftJoin(resourceStatus, statusJoin)
    .where(and(eq(hostnames.projectId, projectId), after)).orderBy(asc(hostnames.name)).limit(limit + 1);
  return toPage(rows.map(withStatus), limit, (r) => r.name);
}

/** A custom hostname with the name of the project that holds it. */
export type OrgHostname = HostnameWithStatus & { projectName: string };

/** The organization's custom hostnames across its projects, by name, each with its status (the console's list). */
export async function listOrgHostnames(s: Store, orgId: number, limit: number, cursor?: string): Promise<Page<OrgHostname>> {
  const after = cursor === undefined ? undefined : gt(hostnames.name, decodeCursor(cursor));
  const rows = await s.db.select({ ...columns, st: resourceStatus, projectName: projects.name }).from(hostnames)
    .innerJoin(projects, eq(projects.id, hostnames.projectId)).leftJoin(resourceStatus, statusJoin)
    .where(and(eq(projects.orgId, orgId), eq(hostnames.kind, 'custom'), after)).orderBy(asc(hostnames.name)).limit(limit + 1);
  return toPage(rows.map((r) => ({ ...withStatus(r), projectName: r.projectName })), limit, (r) => r.name);
}

/** The hostname `name` of the project; another project's (or none) reads as missing. */
export async function hostnameOfProject(s: Store, projectId: number, name: string): Promise<HostnameWithStatus> {
  const [row] = await s.db.select({ ...columns, st: resourceStatus }).from(hostnames).leftJoin(resourceStatus, statusJoin)
    .where(and(eq(hostnames.name, name), eq(hostnames.projectId, projectId))).limit(1);
  if (!row) throw notFound(`hostname ${name}`);
  return withStatus(row);
}

async function inTx(tx: Tx, name: string): Promise<HostnameWithStatus | undefined> {
  const [row] = await tx.select({ ...columns, st: resourceStatus }).from(hostnames).leftJoin(resourceStatus, statusJoin).where(eq(hostnames.name, name));
  return row && withStatus(row);
}

export interface AddHostname {
  orgId: number; projectId: number; projectName: string; name: string; actor: string;
  /** The plan's custom hostnames per organization (rules/plans.ts); absent: no limit. */
  quota?: { plan: string; limit: number };
}

/**
 * Holds `name` for the project at once, as `pending_dns` with a fresh token. Idempotent for the same project:
 * its row comes back unchanged (same token, same `createdAt`: a TXT record already placed stays right) and no
 * audit record is written. Another project's row is 409 `hostname_taken`: whether a row of another organization
 * must give way to the zone's owner is the hostname reconciler's to judge (releaseHostname), since only public DNS
 * says whether a zone here is the real one. The primary key decides concurrent adds: one row, whoever comes second
 * gets the first's answer or the 409. Over the plan's custom hostnames, counted in the write, 409 `quota_exceeded`.
 */
export async function addHostname(s: Store, p: AddHostname): Promise<{ hostname: HostnameWithStatus; created: boolean }> {
  const now = s.clock();
  return s.write(async (tx) => {
    await checkLiveProject(tx, p);
    // The quota counts the organization's names: concurrent adds of other names must count one after another
    // (PostgreSQL runs them at once). Before the name's lock, in the order a project's deletion takes them.
    if (p.quota) await tx.lock(`org/${p.orgId}`);
    await tx.lock(`hostname/${p.name}`);
    const existing = await inTx(tx, p.name);
    if (existing) {
      if (existing.projectId === p.projectId) return { hostname: existing, created: false };
      throw conflict('hostname_taken', `hostname ${p.name} is held by another project`);
    }
    if (p.quota) {
      const [held] = await tx.select({ count: sql<number>`count(*)` }).from(hostnames).innerJoin(projects, eq(projects.id, hostnames.projectId))
        .where(and(eq(projects.orgId, p.orgId), eq(hostnames.kind, 'custom')));
      const count = Number(held?.count ?? 0);
      if (count >= p.quota.limit) throw quotaExceeded('hostnames', p.quota.limit, count, p.quota.plan, 'custom hostnames per organization');
    }
    const row: HostnameRow = {
      name: p.name, projectId: p.projectId, kind: 'custom', status: 'pending_dns', createdAt: iso(now), uid: randomUUID(), token: newToken(),
      generation: 1, verifiedAt: null, proof: null,
    };
    await tx.insert(hostnames).values(row);
    await recordChange(s, tx, 'hostname', p.name, now);
    await appendAudit(tx, { orgId: p.orgId, event: 'hostname.add', actor: p.actor, target: p.name, details: { project: p.projectName } }, now);
    return { hostname: { ...row, observed: null }, created: true };
  });
}

/** Removes a custom row in the write of `tx` and leaves its finalizer: the name is free at once, its cleanup
 * (edge hostname, managed records) is the reconciler's, however long it takes. */
async function removeRow(s: Store, tx: Tx, h: HostnameRow, orgId: number, now: Date): Promise<void> {
  await tx.delete(hostnames).where(eq(hostnames.name, h.name));
  // The status belongs to this lifetime: a row added again under the name must not inherit it.
  await tx.delete(resourceStatus).where(and(eq(resourceStatus.kind, 'hostname'), eq(resourceStatus.key, h.name)));
  await tx.insert(hostnameFinalizers).values({ uid: h.uid, name: h.name, orgId, deletedAt: iso(now), projectId: h.projectId });
  await recordChange(s, tx, 'hostname', h.name, now);
}

/** A project being deleted (store/projects.ts) gives up its custom hostnames in the write of `tx`, each as
 * deleteHostname removes one: with a finalizer, for the hostname reconciler to clean up. Answers their names. */
export async function releaseCustomHostnames(s: Store, tx: Tx, projectId: number, orgId: number, now: Date): Promise<string[]> {
  const rows = await tx.select(columns).from(hostnames).where(and(eq(hostnames.projectId, projectId), eq(hostnames.kind, 'custom')));
  for (const h of rows) {
    await tx.lock(`hostname/${h.name}`);
    await removeRow(s, tx, { ...h, status: h.status as HostnameState, proof: h.proof as Proof | null }, orgId, now);
  }
  return rows.map((h) => h.name);
}

/** The names of a project whose edge hostname or managed records are not cleaned up yet, by name. */
export async function unfinalizedHostnamesOf(q: Db, projectId: number): Promise<string[]> {
  const rows = await q.selectDistinct({ name: hostnameFinalizers.name }).from(hostnameFinalizers)
    .where(eq(hostnameFinalizers.projectId, projectId)).orderBy(asc(hostnameFinalizers.name));
  return rows.map((r) => r.name);
}

/** Spec 4.5 rule 3: a default hostname is 400 (the deployment decides it); a custom one goes with a finalizer. */
export async function deleteHostname(s: Store, p: {
  orgId: number; projectId: number; projectName: string; name: string; actor: string; precondition?: HostnamePrecondition;
}): Promise<void> {
  const now = s.clock();
  await s.write(async (tx) => {
    await tx.lock(`hostname/${p.name}`);
    const h = await inTx(tx, p.name);
    if (!h || h.projectId !== p.projectId) throw notFound(`hostname ${p.name}`);
    if (h.kind === 'default') {
      throw new AppError(400, 'bad_request', `${p.name} is the project's default hostname: the deployment decides it, and without it the project has no route until the next deploy`);
    }
    p.precondition?.(h);
    await removeRow(s, tx, h, p.orgId, now);
    await appendAudit(tx, { orgId: p.orgId, event: 'hostname.delete', actor: p.actor, target: p.name, details: { project: p.projectName, status: h.status } }, now);
  });
}

/** A custom hostname with its organization, for the reconciler. */
export interface HostnameToReconcile extends HostnameRow { orgId: number }

export async function hostnameByName(s: Store, name: string): Promise<HostnameToReconcile | undefined> {
  const [row] = await s.prepared('hostnameByName', (db) => db.select({ ...columns, orgId: projects.orgId }).from(hostnames)
    .innerJoin(projects, eq(projects.id, hostnames.projectId)).where(eq(hostnames.name, sql.placeholder('name'))).prepare()).execute({ name });
  return row && { ...row, status: row.status as HostnameState, proof: row.proof as Proof | null };
}

/**
 * `pending_dns` → `active` for the lifetime `uid` (a proof passed): the row's generation rises, the change feed
 * says so (routing follows), and the audit log records which proof, actor `system`. False when the row is not
 * that lifetime or not pending any more. There is no other way to `active`.
 */
export async function activateHostname(s: Store, p: { name: string; uid: string; proof: Proof }): Promise<boolean> {
  return whileLifetime(s, p, 'pending_dns', async (tx, h, now) => {
    await tx.update(hostnames).set({ status: 'active', verifiedAt: iso(now), proof: p.proof, generation: h.generation + 1 }).where(eq(hostnames.name, p.name));
    await recordChange(s, tx, 'hostname', p.name, now);
    await appendAudit(tx, { orgId: h.orgId, event: 'hostname.activate', actor: 'system', target: p.name, details: { proof: p.proof } }, now);
  });
}

/**
 * A row of another organization than the zone's, inside a zone here that public DNS delegates to the service, which
 * the zone's records no longer prove (the hostname reconciler judges that), is deleted with its finalizer, whatever its
 * status: the zone's owner decides the names in it. So is an active row whose zone proof went with its zone. False
 * when the row is not that lifetime any more. Audit `hostname.release`, actor `system`, with the zone and why.
 */
export async function releaseHostname(s: Store, p: { name: string; uid: string; zone: string | null; why: string }): Promise<boolean> {
  return whileLifetime(s, p, null, async (tx, h, now) => {
    await removeRow(s, tx, h, h.orgId, now);
    await appendAudit(tx, { orgId: h.orgId, event: 'hostname.release', actor: 'system', target: p.name, details: { zone: p.zone, status: h.status, why: p.why } }, now);
  });
}

/** A pending row never verified within its time is deleted (with its finalizer), so names cannot be squatted;
 * false when the row is not that lifetime or no longer pending. Audit `hostname.expire`, actor `system`. */
export async function expireHostname(s: Store, p: { name: string; uid: string }): Promise<boolean> {
  return whileLifetime(s, p, 'pending_dns', async (tx, h, now) => {
    await removeRow(s, tx, h, h.orgId, now);
    await appendAudit(tx, { orgId: h.orgId, event: 'hostname.expire', actor: 'system', target: p.name, details: { createdAt: h.createdAt } }, now);
  });
}

/** In one write, with the name locked: `then` moves on the lifetime `p.uid` of `p.name` while it is still there (and
 * in `status`, when one is given); false, and nothing done, when the row is not that lifetime or not in that status. */
async function whileLifetime(
  s: Store, p: { name: string; uid: string }, status: HostnameState | null, then: (tx: Tx, h: HostnameToReconcile, now: Date) => Promise<void>,
): Promise<boolean> {
  const now = s.clock();
  return s.write(async (tx) => {
    await tx.lock(`hostname/${p.name}`);
    const [h] = await tx.select({ ...columns, orgId: projects.orgId }).from(hostnames).innerJoin(projects, eq(projects.id, hostnames.projectId))
      .where(eq(hostnames.name, p.name));
    if (!h || h.uid !== p.uid || (status !== null && h.status !== status)) return false;
    await then(tx, { ...h, status: h.status as HostnameState, proof: h.proof as Proof | null }, now);
    return true;
  });
}

/** Every name the hostname reconciler may have work for: custom rows and deleted lifetimes not finalized. */
export async function allHostnameKeys(s: Store): Promise<string[]> {
  const names = (await s.db.select({ name: hostnames.name }).from(hostnames).where(eq(hostnames.kind, 'custom'))).map((r) => r.name);
  const finalizing = (await s.db.selectDistinct({ name: hostnameFinalizers.name }).from(hostnameFinalizers)).map((r) => r.name);
  return [...new Set([...names, ...finalizing])].sort();
}

/** Custom hostnames at or under `zone`: those a change of the zone may concern (proofs, managed records). */
export async function hostnamesUnder(s: Store, zone: string): Promise<string[]> {
  // LIKE only narrows: `_` is a LIKE wildcard and may be in a zone name. Every zone change asks: prepared once.
  return (await s.prepared('hostnamesUnder', (db) => db.select({ name: hostnames.name }).from(hostnames)
    .where(and(eq(hostnames.kind, 'custom'), or(eq(hostnames.name, sql.placeholder('zone')), like(hostnames.name, sql.placeholder('suffix'))))).prepare())
    .execute({ zone, suffix: `%.${zone}` }))
    .map((r) => r.name).filter((n) => n === zone || n.endsWith(`.${zone}`));
}

export interface HostnameFinalizer { uid: string; name: string; orgId: number; deletedAt: string }

/** What `admin status` shows of a custom hostname. */
export interface HostnameReconcileStatus {
  hostname: string;
  org: string;
  project: string;
  status: HostnameState;
  generation: number;
  observedGeneration: number | null;
  /** Routed over HTTPS: the Ready condition is True at the current generation. */
  ready: boolean;
  conditions: Condition[];
  lastError: string | null;
  reconciledAt: string | null;
}

/** Every custom hostname with its status, by name, and the deleted ones whose cleanup is not done: for operators. */
export async function hostnameReconcileStatus(s: Store): Promise<{ hostnames: HostnameReconcileStatus[]; finalizing: HostnameFinalizer[] }> {
  const rows = await s.db.select({ ...columns, st: resourceStatus, org: orgs.slug, project: projects.name }).from(hostnames)
    .innerJoin(projects, eq(projects.id, hostnames.projectId)).innerJoin(orgs, eq(orgs.id, projects.orgId))
    .leftJoin(resourceStatus, statusJoin).where(eq(hostnames.kind, 'custom')).orderBy(asc(hostnames.name));
  return {
    hostnames: rows.map((r) => ({
      hostname: r.name, org: r.org, project: r.project, status: r.status as HostnameState, generation: r.generation,
      observedGeneration: r.st?.observedGeneration ?? null, ready: isReady(r.st?.conditions ?? [], r.generation),
      conditions: r.st?.conditions ?? [], lastError: r.st?.lastError ?? null, reconciledAt: r.st?.reconciledAt ?? null,
    })),
    finalizing: await s.db.select().from(hostnameFinalizers).orderBy(asc(hostnameFinalizers.deletedAt)),
  };
}

/** The names a project serves: its default hostname and its active custom ones (the node bundle's). */
export async function routableHostnames(s: Store, projectId: number): Promise<string[]> {
  return (await s.db.select({ name: hostnames.name }).from(hostnames)
    .where(and(eq(hostnames.projectId, projectId), eq(hostnames.status, 'active'))).orderBy(asc(hostnames.name))).map((r) => r.name);
}

/** The deepest zone of the service holding `name` (any organization's), or undefined. */
export async function zoneHolding(s: Store, name: string): Promise<{ name: string; uid: string; orgId: number } | undefined> {
  const q = s.prepared('zoneHolding', (db) => db.select({ name: zones.name, uid: zones.uid, orgId: zones.orgId }).from(zones)
    .where(eq(zones.name, sql.placeholder('name'))).prepare());
  // From the name itself up: the first zone found is the deepest (one prepared lookup per label, on the key).
  const labels = name.split('.');
  for (let i = 0; i < labels.length; i++) {
    const [z] = await q.execute({ name: labels.slice(i).join('.') });
    if (z) return z;
  }
  return undefined;
}

/** The rrsets at `name` in `zone`, with who manages each (null: the customer). */
export async function rrsetsAtName(s: Store, zone: string, name: string): Promise<{ type: string; managedBy: string | null }[]> {
  return s.db.select({ type: rrsets.type, managedBy: rrsets.managedBy }).from(rrsets).where(and(eq(rrsets.zone, zone), eq(rrsets.name, name)));
}
