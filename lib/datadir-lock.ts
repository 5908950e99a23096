/**
 * The data dir belongs to one core at a time: `serve` and `core` supervise its knotd, rotate its sealing key and
 * reconcile its zone files, and two of them on one directory fight over all three (the second used to stop the
 * first one's knotd, which the first restarted, in a loop). `api` processes share the directory and take no lock.
 *
 * The lock is a kernel one: SQLite's POSIX advisory lock on `DIR/lock`, held by a connection in exclusive
 * locking mode. Node has no flock, and a pid file cannot be trusted when stale: a pid is reused, and in another
 * container the holder's pid means nothing here. The kernel drops this lock when its process dies however it
 * dies, SIGKILL included, and it is not inherited by children (knotd). The holder records its pid as the file's
 * user_version, read raw (the header is not locked) only to say who holds it.
 */
import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync, readSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'lock';
/** Where SQLite's file header keeps user_version: 4 bytes, big-endian (sqlite.org/fileformat.html). */
const USER_VERSION_OFFSET = 60;

/** Directories this process holds, by real path. Closing any descriptor of a file drops every POSIX lock the
 * process has on it, so this process must not open its own lock file a second time. */
const held = new Set<string>();

export interface DataDirLock {
  /** Lets the next serve or core take the directory; the process's exit does the same. */
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(readonly dir: string, readonly holder: number | null) {
    super(`the data dir ${dir} is in use by ${holder ? `pid ${holder}` : 'another process'} (a hostplane serve or core); only one may run on a data dir`);
  }
}

/** Takes `dir` (created with mode 0700 if missing) for this process, or throws {@link DataDirLockedError}
 * at once when another holds it. */
export function lockDataDir(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const real = realpathSync(dir);
  if (held.has(real)) throw new DataDirLockedError(dir, process.pid);
  const path = join(real, LOCK_FILE);
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { timeout: 0 });
    // The first write in exclusive locking mode takes SQLite's EXCLUSIVE lock and keeps it until close.
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.pragma(`user_version = ${process.pid}`);
    db.exec('COMMIT');
  } catch (err) {
    db?.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirLockedError(dir, holderPid(path));
    throw new Error(`cannot lock the data dir ${dir} (${path}): ${(err as Error).message}`, { cause: err });
  }
  const lock = db;
  held.add(real);
  return {
    release: () => {
      if (!lock.open) return;
      lock.close();
      held.delete(real);
    },
  };
}

/** The pid the holder recorded. A holder that has just taken the lock may not have committed it yet: then the
 * file names its predecessor, or nobody (null). */
function holderPid(path: string): number | null {
  const buf = Buffer.alloc(4);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    return readSync(fd, buf, 0, 4, USER_VERSION_OFFSET) === 4 ? buf.readUInt32BE(0) || null : null;
  } finally {
    closeSync(fd);
  }
}
