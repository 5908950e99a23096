/** The data dir lock: one holder at a time, in this process and across processes, and free again the moment its
 * holder dies, however it dies. */
import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../lib/datadir-lock';
import { cleanup, ROOT, tempDir } from '../helpers/proc';

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await cleanup();
});

/** Another process that tries to take the lock on `dir`: `line` is 'held' or why it could not. One that got it
 * holds it until killed. */
async function otherProcess(dir: string): Promise<{ pid: number; line: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, [
    '--import', join(ROOT, 'node_modules/tsx/dist/esm/index.mjs'), '--input-type=module', '-e',
    `const { lockDataDir } = await import(${JSON.stringify(join(ROOT, 'lib/datadir-lock.ts'))});
     try { lockDataDir(process.argv[1]); console.log('held'); setInterval(() => {}, 1000); } catch (e) { console.log(e.message); }`,
    dir,
  ], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    void exited.then(() => reject(new Error('the other process exited without a word')));
  });
  return { pid: child.pid!, line, exited };
}

describe('lockDataDir', () => {
  it('creates the data dir with mode 0700', () => {
    const dir = join(tempDir('hostplane-lock-'), 'data');
    const lock = lockDataDir(dir);
    lock.release();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a second holder in the same process, naming this pid, until released', () => {
    const dir = tempDir('hostplane-lock-');
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir)).toThrow(`in use by pid ${process.pid}`);
    lock.release();
    lockDataDir(dir).release();
  });

  it('refuses while another process holds it, naming its pid; free once that process is SIGKILLed', async () => {
    const dir = tempDir('hostplane-lock-');
    const other = await otherProcess(dir);
    expect(other.line).toBe('held');
    let refused: unknown;
    try {
      lockDataDir(dir).release();
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(DataDirLockedError);
    expect((refused as DataDirLockedError).holder).toBe(other.pid);
    expect((refused as Error).message).toMatch(new RegExp(`^the data dir ${dir} is in use by pid ${other.pid} `));

    process.kill(other.pid, 'SIGKILL');
    await other.exited;
    // No stale lock to detect: the kernel dropped it with its process.
    const lock = lockDataDir(dir);
    lock.release();
  });

  it('the holder in this process keeps the lock however often another process is refused', async () => {
    const dir = tempDir('hostplane-lock-');
    const lock = lockDataDir(dir);
    try {
      for (let i = 0; i < 2; i++) expect((await otherProcess(dir)).line).toContain(`in use by pid ${process.pid}`);
    } finally {
      lock.release();
    }
  });
});
