/**
 * Where the node agent keeps things under its `--dir`: `bundle.json` (the last bundle, mode 0600), a directory per
 * storage prefix under `storage/`, a SQLite file per project with a database under `databases/`, and each
 * worker's output under `logs/` (a worker's output is its own: it may print its values, so it never goes to the
 * agent's log).
 */
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
export const databasePath = (dir: string, org: string, project: string): string => join(dir, 'databases', org, `${project}.sqlite`);
export const workerLogPath = (dir: string, org: string, project: string): string => join(dir, 'logs', `${org}.${project}.log`);
