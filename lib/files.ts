/**
 * Atomic file replacement: synchronous and durable for small files written at start-up or rarely (the
 * sealing key file); asynchronous for files that reach megabytes while `serve` answers API requests on the
 * same thread, durable (knot.conf) or not (zone files, derived state rebuilt at every start).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, linkSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { link, open, rename, rm, writeFile } from 'node:fs/promises';
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
  place(): Promise<void>;
  /** After place(): lets the replaced file go. */
  keep(): Promise<void>;
  /** Leaves the file as it was before: the replaced one back in place (none: no file), the staged one gone. */
  undo(): Promise<void>;
}

/** Up to this size a staged file is written and moved synchronously: tens of microseconds in all, where each
 * trip through the thread pool costs the event loop about as much. */
const SYNC_STAGE_BYTES = 64 * 1024;

/**
 * {@link replaceFile} in steps, for a caller that must have the new file in place at a given moment and be able
 * to take it back: the writing goes on beside other work, and only renames remain for that moment.
 */
export async function stageFile(path: string, data: string | Uint8Array, mode = 0o644): Promise<StagedFile> {
  const io = Buffer.byteLength(data) <= SYNC_STAGE_BYTES
    ? {
      write: async (p: string) => writeFileSync(p, data, { mode, flag: 'wx' }),
      link: async (from: string, to: string) => linkSync(from, to),
      rename: async (from: string, to: string) => renameSync(from, to),
      remove: async (p: string) => rmSync(p, { force: true }),
    }
    : {
      write: (p: string) => writeFile(p, data, { mode, flag: 'wx' }),
      link,
      rename,
      remove: (p: string) => rm(p, { force: true }),
    };
  const tmp = tempBeside(path);
  const aside = tempBeside(path);
  try {
    await io.write(tmp);
  } catch (err) {
    await io.remove(tmp);
    throw err;
  }
  let placed = false;
  let replaced = false;
  return {
    place: async () => {
      try {
        await io.link(path, aside);
        replaced = true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
      await io.rename(tmp, path);
      placed = true;
    },
    keep: () => io.remove(aside),
    undo: async () => {
      if (!placed) await io.remove(tmp);
      else if (replaced) await io.rename(aside, path);
      else await io.remove(path);
      await io.remove(aside);
    },
  };
}

/** Deletes `path` if it exists and makes the deletion durable. */
export async function removeFileDurably(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncDir(dirname(path));
}
