/** The store's WAL checkpoints (store/checkpointer.ts): never inside a commit on the serving connection, but on a
 * connection of a worker thread once the WAL holds enough uncopied frames; SQLite's own again should the worker fail. */
import { copyFileSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHECKPOINT_FRAMES, startCheckpointer } from '../../store/checkpointer';
import { openStore, STORE_FILE, type Store } from '../../store/db';
import { orgs } from '../../store/schema';
import { rawSqlite } from '../helpers/sqlite';

const dirs: string[] = [];
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hostplane-checkpoint-'));
  dirs.push(dir);
  return dir;
}

function fresh(checkpointFrames?: number): { s: Store; file: string } {
  const dir = tempDir();
  const s = openStore(dir, { checkpointFrames });
  closers.push(() => s.close());
  return { s, file: join(dir, STORE_FILE) };
}

/** Orgs `from`..`from + n - 1`, one write each (each a commit of a few WAL frames). */
async function writeOrgs(s: Store, from: number, n: number): Promise<void> {
  for (let i = from; i < from + n; i++) {
    await s.write((tx) => tx.insert(orgs).values({ slug: `org-${i}`, plan: 'free', createdAt: '2026-11-30T00:00:00Z' }), { durable: false });
  }
}

/** The orgs the database file holds without its WAL (none before a checkpoint copied the table's creation into it):
 * what checkpoints copied. */
function orgsInDatabaseFile(file: string): number {
  const copy = join(tempDir(), 'copy.db');
  copyFileSync(file, copy);
  const db = new Database(copy);
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'orgs'").get()) return 0;
    return (db.prepare('SELECT count(*) AS n FROM orgs').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('WAL checkpoints', () => {
  it('are never run by a commit of the serving connection', async () => {
    const { s, file } = fresh(10 ** 9);
    expect(rawSqlite(s).pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // Well past SQLite's own 1,000 frames, at which a commit would have copied them into the database file.
    await writeOrgs(s, 0, 1200);
    expect(orgsInDatabaseFile(file)).toBe(0);
    expect(s.stats().checkpoints).toBe(0);
  });

  it('are run off the loop once the WAL holds the frames given, and copy them into the database file', async () => {
    const { s, file } = fresh(50);
    await writeOrgs(s, 0, 100);
    await vi.waitFor(() => expect(s.stats().checkpoints).toBeGreaterThanOrEqual(1), { timeout: 10_000 });
    expect(orgsInDatabaseFile(file)).toBeGreaterThan(0);
    // Once copied, the WAL is written over from its start: writes go on, and so do checkpoints.
    const before = s.stats().checkpoints;
    await writeOrgs(s, 100, 100);
    await vi.waitFor(() => expect(s.stats().checkpoints).toBeGreaterThan(before), { timeout: 10_000 });
    await vi.waitFor(() => expect(orgsInDatabaseFile(file)).toBeGreaterThan(100), { timeout: 10_000 });
  });

  it('are SQLite\'s own again when the worker fails', async () => {
    const dir = tempDir();
    const file = join(dir, 'x.db');
    const db = new Database(file);
    closers.push(() => db.close());
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (v TEXT)');
    const set = vi.fn();
    const checkpointer = startCheckpointer(file, set, 1);
    closers.push(() => checkpointer.close());
    expect(set).toHaveBeenLastCalledWith(0);
    // The worker's connection finds no database there (its -shm, which says a checkpoint is due, stays).
    renameSync(file, join(dir, 'moved.db'));
    checkpointer.committed();
    await vi.waitFor(() => expect(set).toHaveBeenLastCalledWith(CHECKPOINT_FRAMES), { timeout: 10_000 });
    expect(checkpointer.count()).toBe(0);
  });
});
