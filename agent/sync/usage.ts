/** `usedBytes` of a storage directory on the reference node: the sizes of the files under it, measured. */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The total size of the regular files under `dir` (symbolic links count as themselves, never followed); a
 * directory that does not exist (yet) holds 0 bytes, and a file removed while it is walked counts nothing. */
export async function usedBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return 0;
    throw e;
  }
  let total = 0;
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      total += await usedBytes(path);
      continue;
    }
    try {
      total += (await lstat(path)).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return total;
}
