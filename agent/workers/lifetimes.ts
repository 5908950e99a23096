/**
 * Project lifetimes on the node. The bundle gives each project its lifetime (`uid`, store/schema.ts projects.uid):
 * a project deleted and created again under the name has another. The node keys what it keeps of a project by it:
 * its database directory (agent/layout.ts databaseDir) and its worker user (`users.json`, agent/workers/users.ts),
 * so a new project of an old name never gets the old one's database, nor its uid and with it the files that uid
 * owns. (Its storage directory is its prefix's, and a prefix is random per project: keyed by lifetime already.)
 *
 * Earlier agents keyed both by `org/project` alone. The lifetime that had them keeps them where they are: they are
 * not moved, since its worker may have the database open while the agent takes the bundle that first says `uid`.
 * That lifetime is known when a bundle with `uid` carries a project this agent has been running from a bundle
 * without (the name was placed here all along, so it is the one that had them), or at this agent's first start on
 * the directory, from the bundle the earlier agent left (adoptAtFirstRun): `D/lifetimes.json` (0600) records it as
 * the holder of the name-keyed places, once. Any other lifetime of the name (a project first seen with
 * `uid`, or one that follows a lifetime that had one) gets places of its own.
 *
 * Nothing here deletes: the places of a lifetime no longer in the bundle are kept, so a project unplaced by
 * mistake and placed again finds its database; the bundle does not say whether a project that left it was deleted.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../../lib/files';
import { databaseDir, databasePath, legacyDatabasePath, lifetimesPath, usersPath } from '../layout';
import { projectKey, type BundleProject } from '../sync/bundle';

const UID = /^[0-9a-f]{32}$/;

/** `D/lifetimes.json`: per `org/project`, the lifetime that holds its name-keyed places. */
function holders(dir: string): Record<string, string> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(lifetimesPath(dir), 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${lifetimesPath(dir)} cannot be read: ${(e as NodeJS.ErrnoException).code ?? 'not JSON'}`);
  }
  if (typeof raw !== 'object' || raw === null || Object.values(raw).some((v) => typeof v !== 'string' || !UID.test(v))) {
    throw new Error(`${lifetimesPath(dir)} is not a file the agent wrote`);
  }
  return raw as Record<string, string>;
}

/** The lifetime `p`'s places are keyed by, or null for the name-keyed ones (a bundle without `uid`, or the lifetime
 * that holds them). */
export function placeUid(dir: string, p: Pick<BundleProject, 'org' | 'project' | 'uid'>): string | null {
  if (!p.uid) return null;
  return holders(dir)[projectKey(p)] === p.uid ? null : p.uid;
}

/** Records `p`'s lifetime as the holder of its name's name-keyed places when the agent has been running the name
 * from a bundle without `uid` (`previous`, the project as last applied) and no lifetime holds them yet. */
export function adoptNameKeyed(dir: string, p: BundleProject, previous: BundleProject | undefined): void {
  if (!p.uid || !previous || previous.uid || projectKey(previous) !== projectKey(p)) return;
  const all = holders(dir);
  const key = projectKey(p);
  if (all[key] !== undefined) return;
  all[key] = p.uid;
  writeFileAtomic(lifetimesPath(dir), `${JSON.stringify(all)}\n`, 0o600);
}

/** Whether an earlier agent made places for `p`'s name: its database (either layout) or its worker user. */
function nameKeyedExists(dir: string, p: Pick<BundleProject, 'org' | 'project'>): boolean {
  if (existsSync(databaseDir(dir, p.org, p.project)) || existsSync(legacyDatabasePath(dir, p.org, p.project))) return true;
  try {
    const users = JSON.parse(readFileSync(usersPath(dir), 'utf8')) as { projects?: Record<string, unknown> };
    return typeof users.projects === 'object' && users.projects !== null && projectKey(p) in users.projects;
  } catch {
    return false;
  }
}

/**
 * At the start of the first agent on `dir` that knows lifetimes (no `lifetimes.json` yet): each project of the bundle
 * the earlier agent last wrote (`saved`, D/bundle.json) with a `uid` whose name has places of that agent keeps them.
 * That agent ran exactly those lifetimes there, whether its bundle said `uid` or not (it keeps fields it does not know
 * in bundle.json), so without this a control plane upgraded before its nodes would start every project on an empty
 * database at the nodes' upgrade. Writes `lifetimes.json` (empty when nothing is adopted), so that it happens once:
 * a lifetime first seen later, or from the control plane with no bundle.json left, gets places of its own.
 */
export function adoptAtFirstRun(dir: string, saved: BundleProject[]): void {
  if (existsSync(lifetimesPath(dir))) return;
  const adopted: Record<string, string> = {};
  for (const p of saved) if (p.uid && nameKeyedExists(dir, p)) adopted[projectKey(p)] = p.uid;
  writeFileAtomic(lifetimesPath(dir), `${JSON.stringify(adopted)}\n`, 0o600);
}

/** Where `p`'s lifetime has its things on the node: the key of its worker user in `users.json` and its database. */
export interface ProjectPlaces {
  /** The lifetime the places are keyed by; null: the name-keyed ones. */
  uid: string | null;
  userKey: string;
  databaseDir: string;
  databasePath: string;
}

export function placesOf(dir: string, p: Pick<BundleProject, 'org' | 'project' | 'uid'>): ProjectPlaces {
  const uid = placeUid(dir, p);
  return {
    uid,
    userKey: uid === null ? projectKey(p) : `${projectKey(p)}#${uid}`,
    databaseDir: databaseDir(dir, p.org, p.project, uid),
    databasePath: databasePath(dir, p.org, p.project, uid),
  };
}
