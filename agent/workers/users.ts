/**
 * Who a node's workers run as.
 *
 * - `isolated` (the agent runs as root): each project's worker runs under a user and group of its own, uid = gid =
 *   `uidBase` + the project's index. Indexes are kept in `D/users.json` (root, 0600): given once per project
 *   lifetime (agent/workers/lifetimes.ts: `org/project#uid`, or `org/project` for the places of earlier agents), in
 *   order, and never given again to another, so a project keeps its uid across restarts and bundles and a new
 *   project, also one of a deleted one's name, never inherits the files of an old one. The project's storage directory and database directory
 *   are owned by its uid, mode 0700; `D` and the directories above them are root's, mode 0711 (searchable, not
 *   listable); `bundle.json`, `users.json` and `logs/` stay root's, 0600 / 0700. A worker reads its own data and
 *   nothing of the agent's or another project's.
 * - `shared` (the agent is not root): workers run as the agent's user and could read each other's data and
 *   `D/bundle.json`, which holds every project's secret values on the node. The agent warns at start and, unless
 *   `allowSeveralOrgs` (`--allow-shared-user`), runs the projects of one organization at a time.
 */
import { chmodSync, closeSync, existsSync, fchmodSync, fchownSync, constants as fsConstants, fstatSync, lchownSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../../lib/files';
import { bundlePath, databaseDir, databasePath, databasesRoot, legacyDatabasePath, logsDir, storageRoot, usersPath } from '../layout';

export type WorkerUsers = { mode: 'isolated'; uidBase: number } | { mode: 'shared'; allowSeveralOrgs: boolean };

/** The default `--worker-uid-base`: far above the uids of people and system services, below 2^31. */
export const DEFAULT_WORKER_UID_BASE = 2_000_000_000;
/** The highest uid a worker may get (spawn takes an int32; 2^31 and above are best avoided on Linux anyway). */
export const MAX_WORKER_UID = 2_147_483_646;

export const runsAsRoot = (): boolean => process.getuid?.() === 0;

/** Isolated when the agent runs as root, shared (one organization at a time) otherwise. */
export function defaultWorkerUsers(o: { uidBase?: number; allowSharedUser?: boolean } = {}): WorkerUsers {
  return runsAsRoot()
    ? { mode: 'isolated', uidBase: o.uidBase ?? DEFAULT_WORKER_UID_BASE }
    : { mode: 'shared', allowSeveralOrgs: o.allowSharedUser ?? false };
}

/** The per-project indexes of `D/users.json`: stable, never reused. */
export class UserIndex {
  private readonly indexes = new Map<string, number>();
  private next = 0;

  constructor(private readonly dir: string) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(usersPath(dir), 'utf8'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new Error(`${usersPath(dir)} cannot be read: ${(e as NodeJS.ErrnoException).code ?? 'not JSON'}`);
    }
    const r = raw as { next?: unknown; projects?: Record<string, unknown> };
    if (typeof r.next !== 'number' || typeof r.projects !== 'object' || r.projects === null) throw new Error(`${usersPath(dir)} is not a file the agent wrote`);
    this.next = r.next;
    for (const [key, i] of Object.entries(r.projects)) {
      if (typeof i !== 'number' || !Number.isInteger(i) || i < 0) throw new Error(`${usersPath(dir)} is not a file the agent wrote`);
      this.indexes.set(key, i);
      this.next = Math.max(this.next, i + 1);
    }
  }

  /** The index of `key` (a lifetime's, agent/workers/lifetimes.ts placesOf), given now when it has none (and written before it is used). */
  indexOf(key: string): number {
    let i = this.indexes.get(key);
    if (i !== undefined) return i;
    i = this.next++;
    this.indexes.set(key, i);
    writeFileAtomic(usersPath(this.dir), `${JSON.stringify({ next: this.next, projects: Object.fromEntries(this.indexes) })}\n`, 0o600);
    return i;
  }
}

/** Gives `path` and everything under it (links themselves, never followed) to `uid`:`gid`, when `path` is not
 * theirs already (what is under a directory of theirs is taken as theirs: the tree is not walked each time). */
export function chownTree(path: string, uid: number, gid: number): void {
  const st = lstatSync(path);
  if (st.uid === uid && st.gid === gid) return;
  lchownSync(path, uid, gid);
  if (!st.isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), uid, gid);
}

/** Isolated mode: `D` and the shared directories searchable by the workers but not listable; what is the agent's
 * alone (the bundle, the user index, the logs) its alone. */
export function hardenDir(dir: string): void {
  chmodSync(dir, 0o711);
  for (const d of [storageRoot(dir), databasesRoot(dir)]) {
    mkdirSync(d, { recursive: true, mode: 0o711 });
    chmodSync(d, 0o711);
  }
  mkdirSync(logsDir(dir), { recursive: true, mode: 0o700 });
  chmodSync(logsDir(dir), 0o700);
  for (const f of [bundlePath(dir), usersPath(dir)]) if (existsSync(f)) chmodSync(f, 0o600);
}

/** The project's storage directory: created with the directories above it (0711 when isolated, 0700 when not),
 * itself mode 0700 and, with `user`, owned by it (files an earlier worker user left there too). */
export function prepareStorage(path: string, user: { uid: number; gid: number } | null): void {
  mkdirSync(dirname(path), { recursive: true, mode: user ? 0o711 : 0o700 });
  mkdirSync(path, { recursive: true, mode: 0o700 });
  chmodSync(path, 0o700);
  if (user) chownTree(path, user.uid, user.gid);
}

/** The database directory and SQLite file of the project's lifetime `uid` (null: the name-keyed ones of earlier
 * agents, agent/workers/lifetimes.ts), an empty file being an empty SQLite database; for the name-keyed one, a file
 * where still earlier agents kept it is moved in first, with its journal files. Returns the file's path.
 *
 * The directory is the worker's: what is in it may have been put there to make root write elsewhere. So no path
 * in it is followed: the file and its journal files are opened without following a link (and without waiting on a
 * FIFO), checked on the descriptor, and changed through it; one that is not a regular file, or is another user's
 * (say a hard link to a file of root's or of another project), is refused with an error. */
export function prepareDatabase(dir: string, org: string, project: string, user: { uid: number; gid: number } | null, uid: string | null = null): string {
  const dbDir = databaseDir(dir, org, project, uid);
  const dbPath = databasePath(dir, org, project, uid);
  mkdirSync(dirname(dbDir), { recursive: true, mode: user ? 0o711 : 0o700 });
  if (user) chmodSync(dirname(dbDir), 0o711);
  mkdirSync(dbDir, { recursive: true, mode: 0o700 });
  chmodSync(dbDir, 0o700);
  const legacy = legacyDatabasePath(dir, org, project);
  if (uid === null && !existsSync(dbPath) && existsSync(legacy)) {
    for (const suffix of ['-wal', '-shm', '-journal', '']) if (existsSync(legacy + suffix)) renameSync(legacy + suffix, dbPath + suffix);
  }
  if (user) {
    const st = lstatSync(dbDir);
    if (st.uid !== user.uid || st.gid !== user.gid) lchownSync(dbDir, user.uid, user.gid);
  }
  for (const suffix of ['', '-wal', '-shm', '-journal']) adoptFile(dbPath + suffix, user, suffix === '');
  return dbPath;
}

/** Gives the file at `path` to `user` (mode 0600 for the database itself), creating it when `create`; a missing
 * journal file is left missing. See prepareDatabase. */
function adoptFile(path: string, user: { uid: number; gid: number } | null, create: boolean): void {
  const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fsConstants;
  let fd: number;
  try {
    fd = openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new Error(`${path} is a link: the project database is not used through one`);
    if (code !== 'ENOENT') throw e;
    if (!create) return;
    fd = openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${path} is not a regular file`);
    const owner = user?.uid ?? process.getuid?.();
    // The agent's own file (made by it, or by an earlier agent) is the worker's to have, unless it has other names.
    if (st.uid !== owner && (st.uid !== process.getuid?.() || st.nlink !== 1)) throw new Error(`${path} belongs to another user`);
    if (create) fchmodSync(fd, 0o600);
    if (user && (st.uid !== user.uid || st.gid !== user.gid)) fchownSync(fd, user.uid, user.gid);
  } finally {
    closeSync(fd);
  }
}
