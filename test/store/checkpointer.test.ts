/** The store's WAL checkpoints (store/checkpointer.ts): never inside a commit on the serving connection, but on a
 * connection of a worker thread once the WAL holds enough uncopied frames; SQLite's own again should the worker fail.
 * The WAL still starts over under writes that never pause, and closing the store drops no lock that a connection of
 * the process still holds. */
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHECKPOINT_FRAMES, startCheckpointer, WAL_LIMIT } from '../../store/checkpointer';
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
    // Another checkpoint may be copying as the file is read: a torn copy is read again.
    await vi.waitFor(() => expect(orgsInDatabaseFile(file)).toBeGreaterThan(0), { timeout: 10_000 });
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
    db.exec('CREATE TABLE t (v TEXT)');
    const checkpointer = startCheckpointer(db, 1);
    closers.push(() => checkpointer.close());
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    // The worker's connection finds no database there (its -shm, which says a checkpoint is due, stays).
    renameSync(file, join(dir, 'moved.db'));
    checkpointer.committed();
    await vi.waitFor(() => expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(CHECKPOINT_FRAMES), { timeout: 10_000 });
    expect(checkpointer.count()).toBe(0);
  });

  /** A connection in rollback-journal mode, which leaves its -shm alone, with the wal-index header `header` there. */
  function servingWithIndex(header: { version: number; isInit: number; frames: number }): Database.Database {
    const file = join(tempDir(), 'x.db');
    const db = new Database(file);
    closers.push(() => db.close());
    const shm = Buffer.alloc(136);
    const u32 = (at: number, v: number) => (endianness() === 'LE' ? shm.writeUInt32LE(v, at) : shm.writeUInt32BE(v, at));
    u32(0, header.version);
    shm[12] = header.isInit;
    u32(16, header.frames);
    writeFileSync(`${file}-shm`, shm);
    return db;
  }

  it('are SQLite\'s own again where the wal-index is of a version other than the one read', () => {
    // A later SQLite's, whose header says that 5,000 frames are not copied.
    const db = servingWithIndex({ version: 3007001, isInit: 1, frames: 5000 });
    const checkpointer = startCheckpointer(db, 1);
    closers.push(() => checkpointer.close());
    checkpointer.committed();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(CHECKPOINT_FRAMES);
    expect(checkpointer.count()).toBe(0);
  });

  it('wait while SQLite makes the wal-index anew (its header zeroed, not initialized yet)', () => {
    const db = servingWithIndex({ version: 0, isInit: 0, frames: 0 });
    const checkpointer = startCheckpointer(db, 1);
    closers.push(() => checkpointer.close());
    checkpointer.committed();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
  });
});

/** The POSIX locks this process holds on the file `ino` (Linux's /proc/locks), as `TYPE start-end`. */
function locksOf(ino: number): string[] {
  return readFileSync('/proc/locks', 'utf8').split('\n').map((l) => l.trim().split(/\s+/))
    .filter((f) => f[4] === String(process.pid) && f[5]?.endsWith(`:${ino}`))
    .map((f) => `${f[3]} ${f[6]}-${f[7]}`);
}

/** SQLite's lock that says a connection has the -shm open (its DMS slot, sqlite.org/walformat.html): held shared
 * by every process with a connection to the store, it keeps another process from taking the wal-index for its own. */
const DMS = 'READ 128-128';
/** The lock a checkpoint holds while it copies the WAL into the database file. */
const CKPT = 'WRITE 121-121';

/** The WAL header's checkpoint sequence number: SQLite counts each start of the WAL over (sqlite.org/fileformat.html). */
function walSequence(file: string): number {
  const header = Buffer.alloc(16);
  // SQLite locks no byte of the WAL file (its locks are the -shm's): a descriptor of it is closed without harm.
  const fd = openSync(`${file}-wal`, 'r');
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(12);
}

describe('the WAL', () => {
  it('starts over under writes that never pause, though commits land as each checkpoint of the worker copies', async () => {
    const { s, file } = fresh();
    const start = walSequence(file);
    // A write adds 3 frames or so: past the limit within 2,000 writes, and started over at the worker's next answer.
    for (let i = 0; walSequence(file) === start; i++) {
      expect(i).toBeLessThan(3 * WAL_LIMIT * CHECKPOINT_FRAMES);
      await writeOrgs(s, i, 1);
    }
    expect(s.stats().checkpoints).toBeGreaterThan(0);
  });
});

describe.skipIf(!existsSync('/proc/locks'))('closing the store', () => {
  // Closing any descriptor of a file drops every POSIX lock the process holds on it (sqlite.org/howtocorrupt.html,
  // 2.2): another process could then take the wal-index, checkpoint or start the WAL over under a connection of this
  // one that still reads and copies it.
  it('keeps the locks another connection of the process holds on the -shm', async () => {
    const { s, file } = fresh(10 ** 9);
    await writeOrgs(s, 0, 1);
    const other = new Database(file);
    closers.push(() => other.close());
    other.prepare('SELECT count(*) FROM orgs').get();
    const shm = statSync(`${file}-shm`).ino;
    expect(locksOf(shm)).toContain(DMS);
    s.close();
    expect(locksOf(shm)).toContain(DMS);
  });

  it('keeps the -shm locked while the worker\'s connection still copies the WAL', async () => {
    const { s, file } = fresh();
    const many = (from: number) => s.write(async (tx) => {
      for (let i = from; i < from + 4_000; i++) await tx.insert(orgs).values({ slug: `org-${i}-${'x'.repeat(3_000)}`, plan: 'free', createdAt: '2026-11-30T00:00:00Z' });
    }, { durable: false });
    // One commit, one checkpoint: once it is answered, the worker's connection is open and nothing is under way.
    await many(0);
    await vi.waitFor(() => expect(s.stats().checkpoints).toBe(1), { timeout: 10_000 });
    // Thousands of frames, and the store closes while the worker copies them (it holds SQLite's checkpoint lock).
    await many(4_000);
    const shm = statSync(`${file}-shm`).ino;
    await vi.waitFor(() => expect(locksOf(shm)).toContain(CKPT), { timeout: 10_000, interval: 1 });
    s.close();
    const held = locksOf(shm);
    // SQLite removes the WAL before it lets go of the -shm's locks, at the close of the last connection: a WAL still
    // there after the locks were read means a connection of this process (the worker's) had the store open then.
    const open = existsSync(`${file}-wal`);
    expect(open && !held.includes(DMS)).toBe(false);
  });

  it('leaves no descriptor of its files open once its connections are closed', async () => {
    const { s, file } = fresh(50);
    await writeOrgs(s, 0, 100);
    await vi.waitFor(() => expect(s.stats().checkpoints).toBeGreaterThanOrEqual(1), { timeout: 10_000 });
    const real = realpathSync(file);
    s.close();
    const ours = (): string[] => readdirSync('/proc/self/fd').map((fd) => { try { return readlinkSync(`/proc/self/fd/${fd}`); } catch { return ''; } }).filter((p) => p.startsWith(real));
    await vi.waitFor(() => expect(ours()).toEqual([]), { timeout: 10_000 });
  });
});
