/**
 * Where the node agent keeps things under its `--dir`: `bundle.json` (the last bundle, mode 0600), a directory per
 * storage prefix under `storage/` (a prefix is random and the project's lifetime's alone), a directory per project
 * lifetime with a database under `databases/<org>/<project>.<uid>/` (`<uid>`: the bundle's `uid`, the project's
 * lifetime: a project deleted and created again under the name has another, so it never sees the old one's file)
 * holding its SQLite file (a directory of its own, so that its worker can create SQLite's journal beside the
 * file, and no other), each worker's output under `logs/` (a worker's output is its own: it may print its
 * values, so it never goes to the agent's log), `users.json`, the index of each project lifetime's worker user
 * (agent/workers/users.ts), `lifetimes.json`, which lifetime has each directory of the earlier, name-keyed layout
 * (agent/workers/lifetimes.ts), and the node's keys, `access.key` (deployment access sessions,
 * agent/gate/access-session.ts) and `signin.key` (sign-in's login cookies, agent/signin/service.ts).
 *
 * Earlier agents kept a project's database in `databases/<org>/<project>/`, by name alone. Such a directory is
 * kept where it is and used by the one lifetime that had it (agent/workers/lifetimes.ts), never by another
 * project of that name. A bundle without `uid` (an earlier control plane) has its projects in the name-keyed
 * places, as earlier agents did.
 *
 * `run/` holds the workers' Unix sockets (agent/workers/worker-process.ts): a directory per project, `run/<id>/` (`<id>`: the
 * first 24 hex digits of the SHA-256 of `org/project`, short whatever the names, since a socket's path is at most
 * 107 bytes), where its worker binds `<n>.sock`; and `run/agent/`, the agent's own, with a hard link to each
 * running worker's socket, which the front end connects through.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

export const bundlePath = (dir: string): string => join(dir, 'bundle.json');

/** A storage prefix as a relative path: its `/`-separated segments, each made safe as a file name (no `..`, no
 * separators, nothing hidden), so that no prefix reaches outside `storage/`. */
export function prefixPath(prefix: string): string {
  const segments = prefix.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0) throw new Error('an empty storage prefix');
  return join(...segments.map((s) => (s === '..' || !/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(s) ? `_${encodeURIComponent(s).replace(/\./g, '%2E')}` : s)));
}

export const storageDir = (dir: string, prefix: string): string => join(dir, 'storage', prefixPath(prefix));
export const databasesRoot = (dir: string): string => join(dir, 'databases');
/** The database directory of project `org/project`'s lifetime `uid`; without one (null), the name-keyed directory of
 * earlier agents. A project name has no dot, so the two never meet. */
export const databaseDir = (dir: string, org: string, project: string, uid: string | null = null): string =>
  join(dir, 'databases', org, uid === null ? project : `${project}.${uid}`);
export const databasePath = (dir: string, org: string, project: string, uid: string | null = null): string =>
  join(databaseDir(dir, org, project, uid), `${project}.sqlite`);
/** Where earlier agents kept a project's SQLite file (moved to databasePath at the project's next start). */
export const legacyDatabasePath = (dir: string, org: string, project: string): string => join(dir, 'databases', org, `${project}.sqlite`);
export const storageRoot = (dir: string): string => join(dir, 'storage');
export const logsDir = (dir: string): string => join(dir, 'logs');
export const usersPath = (dir: string): string => join(dir, 'users.json');
export const lifetimesPath = (dir: string): string => join(dir, 'lifetimes.json');
export const workerLogPath = (dir: string, org: string, project: string): string => join(dir, 'logs', `${org}.${project}.log`);
/** The directory a project's worker binds its sockets in (its own uid's, as root). */
export const socketDir = (dir: string, org: string, project: string): string =>
  join(dir, 'run', createHash('sha256').update(`${org}/${project}`).digest('hex').slice(0, 24));
/** The agent's own directory of links to the workers' sockets (never a worker's). */
export const pinDir = (dir: string): string => join(dir, 'run', 'agent');
