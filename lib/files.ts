/**
 * Atomic file replacement: synchronous and durable for small files written at start-up or rarely (the
 * sealing key file); asynchronous for files that reach megabytes while `serve` answers API requests on the
 * same thread, durable (knot.conf) or not (zone files, derived state rebuilt at every start); and staged, for a
 * small zone file that must be in place at a given moment and can be taken back.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Write to a temp file, fsync it, rename over the target and fsync the directory: readers see the old
 * or the new content, never a torn file, and the rename survives a crash. */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', mode);
  try {
    fchmodSync(fd, mode);
    writeFileSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes a hidden temp file beside `path`, fsyncs it, renames it over `path` and fsyncs the directory:
 * a reader (knotd) sees the old or the new file, never a torn one, and the rename survives a crash. */
export async function writeFileDurably(path: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  await replace(path, data, mode, true);
  await syncDir(dirname(path));
}

/** Like {@link writeFileDurably} (a reader sees the old or the new file, never a torn one) but without the
 * fsyncs, which cost milliseconds on a busy disk: after a crash of the machine the old content, or none, may
 * come back. Only for derived files that whoever depends on them rebuilds and checks after a restart (zone
 * files: the zone reconciler renders and compares every zone at start). */
export function replaceFile(path: string, data: string | Uint8Array, mode = 0o644): Promise<void> {
  return replace(path, data, mode, false);
}

async function replace(path: string, data: string | Uint8Array, mode: number, durable: boolean): Promise<void> {
  const tmp = tempBeside(path);
  try {
    const handle = await open(tmp, 'wx', mode);
    try {
      await handle.writeFile(data);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Hidden and randomized: never a name knotd would take for a zone file, never shared by two writers. */
const tempBeside = (path: string): string => join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);

/** A replacement of a file ({@link replaceFile}: not fsynced), written beside it, to be put in place later. */
export interface StagedFile {
  /** Renames it over the file, which is kept aside (a hard link) until keep() or undo(). */
  place(): void;
  /** After place(): lets the replaced file go. */
  keep(): void;
  /** Leaves the file as it was before: the replaced one back in place (none: no file), the staged one gone. */
  undo(): void;
}

/**
 * {@link replaceFile} in steps, for a caller that must have a small file in place at a given moment and be able to
 * take it back. Synchronous: for a few kilobytes tens of microseconds in all, where each trip through the thread
 * pool costs the event loop about as much; a large file blocks the thread for as long as it takes to write.
 */
export function stageFile(path: string, data: string | Uint8Array, mode = 0o644): StagedFile {
  const tmp = tempBeside(path);
  const aside = tempBeside(path);
  try {
    writeFileSync(tmp, data, { mode, flag: 'wx' });
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  let placed = false;
  let replaced = false;
  return {
    place: () => {
      try {
        linkSync(path, aside);
        replaced = true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      renameSync(tmp, path);
      placed = true;
    },
    keep: () => rmSync(aside, { force: true }),
    undo: () => {
      if (!placed) rmSync(tmp, { force: true });
      else if (replaced) renameSync(aside, path);
      else rmSync(path, { force: true });
      rmSync(aside, { force: true });
    },
  };
}

/** Deletes `path` if it exists and makes the deletion durable. */
export async function removeFileDurably(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncDir(dirname(path));
}
