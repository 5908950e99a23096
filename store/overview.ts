/**
 * What the console's organization page shows (issue 24 item 3): each reconciled resource of an organization with
 * its generation and stored conditions, for counts by state and a "needs attention" list. One statement per kind,
 * joined with resource_status, so an organization with 10,000 zones costs a scan of its rows, not 10,000 reads; and
 * the resources that are plainly ready (observed at their generation, every condition True: most of them) are only
 * counted in SQL, not read, so the page's cost follows what needs looking at.
 */
import { and, asc, count, eq, not, sql, type AnyColumn, type SQL } from 'drizzle-orm';
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

/** Whether a resource of generation `generation` is observed at it with every condition True (SQL; the status row
 * of a left join may be missing, and then it is not). */
function plainlyReady(s: Store, generation: AnyColumn): SQL {
  const anyNotTrue = s.dialect === 'postgres'
    ? sql`EXISTS (SELECT 1 FROM jsonb_array_elements(${resourceStatus.conditions}::jsonb) AS c WHERE c->>'status' <> 'True')`
    : sql`EXISTS (SELECT 1 FROM json_each(${resourceStatus.conditions}) WHERE json_extract(value, '$.status') <> 'True')`;
  return sql`(${resourceStatus.observedGeneration} IS NOT NULL AND ${resourceStatus.observedGeneration} >= ${generation} AND NOT ${anyNotTrue})`;
}

export interface Overview {
  /** The resources that are not plainly ready (those are in `ready`), and every project. */
  items: OverviewItem[];
  /** How many of each kind are observed at their generation with every condition True. */
  ready: Record<OverviewKind, number>;
}

/** The zones, custom hostnames, domains and projects of the organization that may need looking at, with their stored
 * status, by name; the others counted. */
export async function orgOverview(s: Store, orgId: number): Promise<Overview> {
  const status = { observedGeneration: resourceStatus.observedGeneration, conditions: resourceStatus.conditions };
  const zoneStatus = statusOf('zone', zones.name, zones.uid);
  const hostStatus = statusOf('hostname', hostnames.name, hostnames.uid);
  const domainStatus = statusOf('domain', domains.name, domains.uid);
  const ofOrg = { zone: eq(zones.orgId, orgId), hostname: and(eq(projects.orgId, orgId), eq(hostnames.kind, 'custom')), domain: eq(domains.orgId, orgId) };
  const readyOf = { zone: plainlyReady(s, zones.generation), hostname: plainlyReady(s, hostnames.generation), domain: plainlyReady(s, domains.generation) };
  const [zoneRows, hostRows, deletedHosts, domainRows, projectRows, [readyZones], [readyHosts], [readyDomains]] = await Promise.all([
    s.db.select({ name: zones.name, generation: zones.generation, ...status }).from(zones)
      .leftJoin(resourceStatus, zoneStatus)
      .where(and(ofOrg.zone, not(readyOf.zone))).orderBy(asc(zones.name)),
    s.db.select({ name: hostnames.name, generation: hostnames.generation, ...status }).from(hostnames)
      .innerJoin(projects, eq(projects.id, hostnames.projectId))
      .leftJoin(resourceStatus, hostStatus)
      .where(and(ofOrg.hostname, not(readyOf.hostname))).orderBy(asc(hostnames.name)),
    s.db.select({ name: hostnameFinalizers.name, deletedAt: hostnameFinalizers.deletedAt }).from(hostnameFinalizers)
      .where(eq(hostnameFinalizers.orgId, orgId)).orderBy(asc(hostnameFinalizers.name)),
    s.db.select({ name: domains.name, generation: domains.generation, ...status }).from(domains)
      .leftJoin(resourceStatus, domainStatus)
      .where(and(ofOrg.domain, not(readyOf.domain))).orderBy(asc(domains.name)),
    s.db.select({ name: projects.name, generation: projects.generation, deletingSince: projects.deletingSince }).from(projects)
      .where(eq(projects.orgId, orgId)).orderBy(asc(projects.name)),
    s.db.select({ n: count() }).from(zones).innerJoin(resourceStatus, zoneStatus).where(and(ofOrg.zone, readyOf.zone)),
    s.db.select({ n: count() }).from(hostnames).innerJoin(projects, eq(projects.id, hostnames.projectId)).innerJoin(resourceStatus, hostStatus)
      .where(and(ofOrg.hostname, readyOf.hostname)),
    s.db.select({ n: count() }).from(domains).innerJoin(resourceStatus, domainStatus).where(and(ofOrg.domain, readyOf.domain)),
  ]);
  return {
    items: [
      ...zoneRows.map((r) => item('zone', r)),
      ...hostRows.map((r) => item('hostname', r)),
      // A deleted name whose edge and records are still being cleaned up: shown as deleting until they are.
      ...deletedHosts.map((r) => item('hostname', { name: r.name, generation: 0, observedGeneration: null, conditions: [] }, r.deletedAt)),
      ...domainRows.map((r) => item('domain', r)),
      // Projects have no status of their own (their rollouts are per node, on the project's page): present or deleting.
      ...projectRows.map((r) => item('project', { ...r, observedGeneration: r.generation, conditions: [] }, r.deletingSince)),
    ],
    ready: { zone: Number(readyZones?.n ?? 0), hostname: Number(readyHosts?.n ?? 0), domain: Number(readyDomains?.n ?? 0), project: 0 },
  };
}
