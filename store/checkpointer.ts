/**
 * SQLite's checkpoints of the store's WAL, on a connection of their own in a worker thread. SQLite runs one by
 * itself inside the COMMIT that takes the WAL past 1,000 pages: the commit then copies those pages into the
 * database file and syncs it, 2 to 6 ms on the API's event loop every few dozen writes (about 13 pages each),
 * which the write being committed and every request behind it wait for. Here the serving connection does not
 * checkpoint by itself: once a commit left 1,000 frames not copied yet, this thread's connection copies what it can
 * (PASSIVE: it waits for no reader and no writer) while the loop goes on.
 *
 * SQLite starts the WAL over only at a write that finds every frame of it copied, and a checkpoint on another
 * connection leaves none such while commits land as it copies: under writes that never pause, 20,000 of them took
 * the WAL to 254 MiB (3.9 MiB with SQLite's own checkpoints). So once the WAL holds WAL_LIMIT times the frames a
 * checkpoint is due at, the serving connection copies the fewer left (after the worker's answer, those committed
 * while it copied) itself, and the next write starts the WAL over. That bounds the WAL unless every checkpoint of the
 * worker sees 1,000 frames committed while it copies (4 MB in the few ms it takes).
 *
 * Should the worker fail (it cannot start, or its connection errs), the serving connection checkpoints as SQLite
 * does by default again.
 */
import type Database from 'better-sqlite3';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { endianness } from 'node:os';
import { Worker } from 'node:worker_threads';

/** SQLite's `wal_autocheckpoint` default, which it compares with the WAL's frames (pages); here a checkpoint is due once
 * this many of them are not copied yet. It is put back should the worker fail. */
export const CHECKPOINT_FRAMES = 1000;
/** How many times the frames a checkpoint is due at the WAL may hold, copied or not, before the serving connection
 * copies what the worker left so that it starts over: on the loop, fewer than 1,000 frames at most once per 4,000,
 * where SQLite copied 1,000 or more every 1,000. */
export const WAL_LIMIT = 4;
/** The wal-index (the -shm file, sqlite.org/walformat.html), as native-endian u32s: its version, whose layout the
 * offsets below are (a wal-index of another version puts SQLite's own checkpoints back), whether the header is
 * initialized (a byte: not while SQLite makes it anew), the WAL's last valid frame (mxFrame, in the header's first
 * copy) and the frames already copied into the database (nBackfill). */
const WAL_INDEX_VERSION = 3007000;
const IS_INIT_AT = 12;
const MX_FRAME_AT = 16;
const N_BACKFILL_AT = 96;
const readU32 = endianness() === 'LE' ? (b: Buffer, at: number): number => b.readUInt32LE(at) : (b: Buffer, at: number): number => b.readUInt32BE(at);

/** Plain JavaScript, evaluated in the worker: neither tsx nor vitest transform a worker's own file. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
parentPort.on('message', () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true });
  } catch (e) {
    parentPort.postMessage({ ok: false, error: String(e && e.message) });
  }
});
`;

export interface Checkpointer {
  /** After a commit: asks for a checkpoint when one is due and none is under way. */
  committed(): void;
  /** Checkpoints the worker ran. */
  count(): number;
  /** Once the serving connection is closed: ends the worker, whose connection closes after the checkpoint under way
   * (SQLite's call is not interrupted). */
  close(): void;
}

/**
 * The checkpointer of the store whose serving connection is `serving`; it turns that connection's automatic
 * checkpoints off. The worker starts at the first checkpoint due, so a store that never grows its WAL that far (a
 * CLI command, most tests) costs no thread. Whether one is due is read from the wal-index, one read of a page SQLite
 * keeps mapped: the WAL file's size says nothing once SQLite writes it over from the start after a checkpoint.
 */
export function startCheckpointer(serving: Database.Database, frames = CHECKPOINT_FRAMES): Checkpointer {
  const file = serving.name;
  const autocheckpoint = (pages: number): void => {
    serving.pragma(`wal_autocheckpoint = ${pages}`);
  };
  autocheckpoint(0);
  const index = Buffer.alloc(N_BACKFILL_AT + 4);
  let shmFd: number | null = null;
  /** The WAL's frames and how many of them are copied; null while SQLite makes the wal-index anew. */
  const wal = (): { frames: number; copied: number } | null => {
    shmFd ??= openSync(`${file}-shm`, 'r');
    if (readSync(shmFd, index, 0, index.length, 0) < index.length || index[IS_INIT_AT] === 0) return null;
    const version = readU32(index, 0);
    if (version !== WAL_INDEX_VERSION) throw new Error(`${file}-shm: a wal-index of version ${version}, not ${WAL_INDEX_VERSION}`);
    return { frames: readU32(index, MX_FRAME_AT), copied: readU32(index, N_BACKFILL_AT) };
  };
  /**
   * Closes the -shm's descriptor once SQLite has removed the file (at the close of its last connection), and
   * otherwise leaves it open for the life of the process: closing any descriptor of a file drops every POSIX lock
   * the process holds on it, those of its connections still open on the store included (another store's, or the
   * worker's while it copies), and another process could then take the wal-index, checkpoint or start the WAL over
   * under them (sqlite.org/howtocorrupt.html, 2.2).
   */
  const release = (): void => {
    if (shmFd !== null && fstatSync(shmFd).nlink === 0) closeSync(shmFd);
    shmFd = null;
  };
  let worker: Worker | null = null;
  let exited = false;
  let failed = false;
  let underWay = false;
  let closed = false;
  let completed = 0;
  const fail = (): void => {
    if (failed) return;
    failed = true;
    underWay = false;
    if (!closed) autocheckpoint(CHECKPOINT_FRAMES);
    void worker?.terminate();
  };
  /** After a commit, and after the worker's answer: the checkpoint due, if any, where it is due. */
  const due = (): void => {
    if (closed || failed || underWay) return;
    try {
      const now = wal();
      if (!now || now.copied >= now.frames) return;
      if (now.frames - now.copied >= frames) {
        underWay = true;
        worker ??= start();
        worker.postMessage('checkpoint');
      } else if (now.frames >= WAL_LIMIT * frames) {
        serving.pragma('wal_checkpoint(PASSIVE)');
      }
    } catch {
      fail();
    }
  };
  const start = (): Worker => {
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver: createRequire(import.meta.url).resolve('better-sqlite3') } });
    // Nothing it does is worth keeping the process for: a checkpoint not taken is taken by whoever opens the store next.
    w.unref();
    w.on('message', (m: { ok: boolean }) => {
      underWay = false;
      if (!m.ok) return fail();
      completed++;
      due();
    });
    w.on('error', fail);
    // better-sqlite3 closes a thread's connections as the thread ends.
    w.on('exit', () => {
      exited = true;
      if (closed) release();
      else fail();
    });
    return w;
  };
  return {
    committed: due,
    count: () => completed,
    close() {
      closed = true;
      if (worker && !exited) void worker.terminate();
      else release();
    },
  };
}
