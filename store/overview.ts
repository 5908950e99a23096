/**
 * What the console's organization page shows (issue 24 item 3): each reconciled resource of an organization with
 * its generation and stored conditions, for counts by state and a "needs attention" list. One statement per kind,
 * joined with resource_status, so an organization with 10,000 zones costs a scan of its rows, not 10,000 reads.
 */
import { and, asc, eq } from 'drizzle-orm';
import type { Condition } from '../lib/conditions';
import type { Store } from './db';
import { domains, hostnameFinalizers, hostnames, projects, resourceStatus, zones } from './schema';

export type OverviewKind = 'zone' | 'hostname' | 'domain' | 'project';

export interface OverviewItem {
  kind: OverviewKind;
  name: string;
  generation: number;
  /** Null: no reconciler has recorded a status for it yet. */
  observedGeneration: number | null;
  conditions: Condition[];
  /** Since when it is being deleted; null when it is not. */
  deletingSince: string | null;
}

type Row = { name: string; generation: number; observedGeneration: number | null; conditions: Condition[] | null };
const item = (kind: OverviewKind, r: Row, deletingSince: string | null = null): OverviewItem =>
  ({ kind, name: r.name, generation: r.generation, observedGeneration: r.observedGeneration, conditions: r.conditions ?? [], deletingSince });

const statusOf = (kind: string, key: typeof zones.name | typeof hostnames.name | typeof domains.name, uid: typeof zones.uid | typeof hostnames.uid | typeof domains.uid) =>
  and(eq(resourceStatus.kind, kind), eq(resourceStatus.key, key), eq(resourceStatus.uid, uid));

/** Every zone, custom hostname, domain and project of the organization, with their stored status, by name. */
export async function orgOverview(s: Store, orgId: number): Promise<OverviewItem[]> {
  const status = { observedGeneration: resourceStatus.observedGeneration, conditions: resourceStatus.conditions };
  const [zoneRows, hostRows, deletedHosts, domainRows, projectRows] = await Promise.all([
    s.db.select({ name: zones.name, generation: zones.generation, ...status }).from(zones)
      .leftJoin(resourceStatus, statusOf('zone', zones.name, zones.uid))
      .where(eq(zones.orgId, orgId)).orderBy(asc(zones.name)),
    s.db.select({ name: hostnames.name, generation: hostnames.generation, ...status }).from(hostnames)
      .innerJoin(projects, eq(projects.id, hostnames.projectId))
      .leftJoin(resourceStatus, statusOf('hostname', hostnames.name, hostnames.uid))
      .where(and(eq(projects.orgId, orgId), eq(hostnames.kind, 'custom'))).orderBy(asc(hostnames.name)),
    s.db.select({ name: hostnameFinalizers.name, deletedAt: hostnameFinalizers.deletedAt }).from(hostnameFinalizers)
      .where(eq(hostnameFinalizers.orgId, orgId)).orderBy(asc(hostnameFinalizers.name)),
    s.db.select({ name: domains.name, generation: domains.generation, ...status }).from(domains)
      .leftJoin(resourceStatus, statusOf('domain', domains.name, domains.uid))
      .where(eq(domains.orgId, orgId)).orderBy(asc(domains.name)),
    s.db.select({ name: projects.name, generation: projects.generation, deletingSince: projects.deletingSince }).from(projects)
      .where(eq(projects.orgId, orgId)).orderBy(asc(projects.name)),
  ]);
  return [
    ...zoneRows.map((r) => item('zone', r)),
    ...hostRows.map((r) => item('hostname', r)),
    // A deleted name whose edge and records are still being cleaned up: shown as deleting until they are.
    ...deletedHosts.map((r) => item('hostname', { name: r.name, generation: 0, observedGeneration: null, conditions: [] }, r.deletedAt)),
    ...domainRows.map((r) => item('domain', r)),
    // Projects have no status of their own (their rollouts are per node, on the project's page): present or deleting.
    ...projectRows.map((r) => item('project', { ...r, observedGeneration: r.generation, conditions: [] }, r.deletingSince)),
  ];
}

