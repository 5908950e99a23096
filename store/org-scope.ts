/**
 * Which organizations a batch of changes concerns, for waits scoped to one (api/wait.ts: the console's pages of
 * many). The change feed and status writes name a resource, not its organization: the resource's row says whose it
 * is. A change whose organization cannot be told (a resource already deleted, a placement, a node without projects)
 * concerns every organization: waking a page that did not change costs it a read, missing one would leave it stale.
 */
import { eq, inArray } from 'drizzle-orm';
import type { Store } from './db';
import { domains, hostnameFinalizers, hostnames, placements, projects, zones } from './schema';

export interface Concerning { kind: string; key: string }

/** Keys of one kind looked up at once at most: a larger burst concerns any organization, rather than one statement
 * with thousands of parameters. */
const MAX_KEYS = 500;

type OrgsOf = (s: Store, keys: string[]) => Promise<{ key: string; orgId: number }[]>;

/** The organizations whose rows a kind's keys name, as (key, orgId) pairs, for the kinds told apart. */
const byKind = new Map<string, OrgsOf>(Object.entries({
  zone: (s, keys) => s.db.select({ key: zones.name, orgId: zones.orgId }).from(zones).where(inArray(zones.name, keys)),
  domain: (s, keys) => s.db.select({ key: domains.name, orgId: domains.orgId }).from(domains).where(inArray(domains.name, keys)),
  // A deleted custom hostname is its finalizer's organization's until its cleanup is done.
  hostname: async (s, keys) => [
    ...await s.db.select({ key: hostnames.name, orgId: projects.orgId }).from(hostnames).innerJoin(projects, eq(projects.id, hostnames.projectId))
      .where(inArray(hostnames.name, keys)),
    ...await s.db.select({ key: hostnameFinalizers.name, orgId: hostnameFinalizers.orgId }).from(hostnameFinalizers).where(inArray(hostnameFinalizers.name, keys)),
  ],
  project: (s, keys) => projectOrgs(s, keys),
  secret: (s, keys) => projectOrgs(s, keys),
  storage: (s, keys) => projectOrgs(s, keys),
  // A node's bundle and its status show on the pages of the organizations whose projects it runs.
  node: (s, keys) => nodeOrgs(s, keys),
  bundle: (s, keys) => nodeOrgs(s, keys),
} satisfies Record<string, OrgsOf>));

async function projectOrgs(s: Store, keys: string[]): Promise<{ key: string; orgId: number }[]> {
  const ids = keys.map(Number).filter(Number.isSafeInteger);
  return (await s.db.select({ id: projects.id, orgId: projects.orgId }).from(projects).where(inArray(projects.id, ids)))
    .map((r) => ({ key: String(r.id), orgId: r.orgId }));
}

const nodeOrgs = (s: Store, keys: string[]): Promise<{ key: string; orgId: number }[]> =>
  s.db.selectDistinct({ key: placements.nodeId, orgId: projects.orgId }).from(placements).innerJoin(projects, eq(projects.id, placements.projectId))
    .where(inArray(placements.nodeId, keys));

/** The organizations `changes` concern, or `'any'` when one of them may concern any. */
export async function orgsConcerned(s: Store, changes: readonly Concerning[]): Promise<Set<number> | 'any'> {
  const keysOf = new Map<string, Set<string>>();
  for (const c of changes) {
    if (!byKind.has(c.kind)) return 'any';
    let keys = keysOf.get(c.kind);
    if (!keys) keysOf.set(c.kind, keys = new Set());
    keys.add(c.key);
    if (keys.size > MAX_KEYS) return 'any';
  }
  const orgs = new Set<number>();
  for (const [kind, keys] of keysOf) {
    const found = await byKind.get(kind)!(s, [...keys]);
    if (new Set(found.map((r) => r.key)).size < keys.size) return 'any';
    for (const r of found) orgs.add(r.orgId);
  }
  return orgs;
}
