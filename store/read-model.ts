/**
 * The reads that join several aggregates: what operators read of every reconciled resource (`admin status`:
 * zones, hostnames, nodes, domains, projects on no node or being deleted) and a project with its hostnames, grants and placements (getProject). They
 * live apart from the aggregate modules they read, which import status.ts and one another (nodes.ts reads the
 * access and sign-in sections of bundles), so that no import runs in a circle back to where it started.
 */
import { and, eq } from 'drizzle-orm';
import { isReady, type Condition } from '../lib/conditions';
import { notFound } from '../lib/errors';
import type { Store } from './db';
import { domainReconcileStatus } from './domains';
import { latestSeq } from './feed';
import { leadershipStatus, type LeadershipStatus } from './leader';
import { hostnameReconcileStatus, type HostnameFinalizer, type HostnameReconcileStatus } from './hostnames';
import { nodeStatuses, projectPlacements, unplacedProjects, type NodeStatus, type ProjectPlacement } from './nodes';
import { cleanupLeft, deletingProjects, type DeletingProject, type Project, type ProjectCleanup } from './projects';
import { resourceStatus, zones } from './schema';

export interface ProjectDetail extends Project {
  hostnames: { name: string; kind: 'default' | 'custom'; status: string }[];
  grants: { auth: boolean; storage: boolean };
  /** The nodes it is placed on, with how far each applied it (store/nodes.ts). */
  placements: ProjectPlacement[];
  /** Null unless it is being deleted. */
  cleanup: ProjectCleanup | null;
}

/** The project with its hostnames (by name), grants and placements (by node): getProject's read path, in raw
 * statements (the generic row mapping cost more than the reads). One statement with JSON aggregates was measured
 * slower than separate ones (29 us against 11); the grants are columns of the project's row, 0 or 1 (a bare
 * EXISTS is a boolean on PostgreSQL). The statements read one after another, each the latest commit, as on
 * PostgreSQL outside a transaction. Another org's project reads as missing. */
export async function getProjectDetail(s: Store, orgId: number, name: string): Promise<ProjectDetail> {
  type Row = { id: number; name: string; hostname: string; database: number; createdAt: string; deletingSince: string | null; auth: number; storage: number };
  const [row] = await s.raw<Row>('projectDetail',
    `SELECT p.id, p.name, h.name AS hostname, p.database, p.created_at AS "createdAt", p.deleting_since AS "deletingSince",
      CASE WHEN EXISTS (SELECT 1 FROM auth_grants a WHERE a.project_id = p.id) THEN 1 ELSE 0 END AS auth,
      CASE WHEN EXISTS (SELECT 1 FROM storage_grants g WHERE g.project_id = p.id) THEN 1 ELSE 0 END AS storage
      FROM projects p JOIN hostnames h ON h.project_id = p.id AND h.kind = 'default' WHERE p.org_id = ? AND p.name = ?`,
    [orgId, name]);
  if (!row) throw notFound(`project ${name}`);
  const hostnames = await s.raw<ProjectDetail['hostnames'][number]>('projectHostnames', 'SELECT name, kind, status FROM hostnames WHERE project_id = ? ORDER BY name', [row.id]);
  return {
    id: row.id, name: row.name, hostname: row.hostname, database: row.database === 1, createdAt: row.createdAt, deletingSince: row.deletingSince,
    hostnames,
    grants: { auth: row.auth === 1, storage: row.storage === 1 },
    placements: await projectPlacements(s, row.id),
    cleanup: row.deletingSince === null ? null : await cleanupLeft(s, s.db, row.id),
  };
}

export interface ZoneReconcileStatus {
  zone: string;
  generation: number;
  observedGeneration: number | null;
  /** Ready at the desired generation: what the nameserver serves was checked against it. */
  ready: boolean;
  conditions: Condition[];
  desiredSerial: number;
  servedSerial: number | null;
  /** What each configured secondary served at the last look (`--secondaries`). */
  secondaries: { address: string; serial: number | null }[];
  /** The whole failure, paths and the nameserver's words included: operators only. */
  lastError: string | null;
  reconciledAt: string | null;
}

export async function readStatus(s: Store): Promise<{
  changeSeq: number; leader: LeadershipStatus['leader']; processes: LeadershipStatus['processes']; zones: ZoneReconcileStatus[]; hostnames: HostnameReconcileStatus[]; hostnameFinalizers: HostnameFinalizer[]; nodes: NodeStatus[];
  domains: Awaited<ReturnType<typeof domainReconcileStatus>>;
  projects: { unplaced: { org: string; project: string }[]; deleting: DeletingProject[] };
}> {
  const rows = await s.db
    .select({ zone: zones.name, uid: zones.uid, generation: zones.generation, serial: zones.serial, st: resourceStatus })
    .from(zones)
    .leftJoin(resourceStatus, and(eq(resourceStatus.kind, 'zone'), eq(resourceStatus.key, zones.name), eq(resourceStatus.uid, zones.uid)))
    .orderBy(zones.name);
  return {
    changeSeq: await latestSeq(s),
    // Who runs the reconcilers now (null: none does), and each process's last heartbeat.
    ...await leadershipStatus(s),
    zones: rows.map((r) => ({
      zone: r.zone,
      generation: r.generation,
      observedGeneration: r.st?.observedGeneration ?? null,
      ready: isReady(r.st?.conditions ?? [], r.generation),
      conditions: r.st?.conditions ?? [],
      desiredSerial: r.serial,
      servedSerial: (r.st?.facts as { servedSerial?: number | null } | undefined)?.servedSerial ?? null,
      secondaries: (r.st?.facts as { secondaries?: ZoneReconcileStatus['secondaries'] } | undefined)?.secondaries ?? [],
      lastError: r.st?.lastError ?? null,
      reconciledAt: r.st?.reconciledAt ?? null,
    })),
    // Custom hostnames with their conditions, and deleted ones whose edge and record cleanup is not done.
    ...await hostnameReconcileStatus(s).then((h) => ({ hostnames: h.hostnames, hostnameFinalizers: h.finalizing })),
    // Per node: desired and applied bundle versions, the last report, Stale and Applied, secrets not yet running.
    nodes: await nodeStatuses(s),
    // Per domain: its state, expiry, last sync and conditions (a registrar outage shows here).
    domains: await domainReconcileStatus(s),
    // Projects no node runs (never placed, or their node removed), and deleted ones with what their cleanup waits for.
    projects: { unplaced: await unplacedProjects(s), deleting: await deletingProjects(s) },
  };
}
