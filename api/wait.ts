/**
 * Convergence receipts: a write to a reconciled resource answers its new generation (`X-Generation`), and a GET
 * of the resource with `?waitGeneration=N&wait=S` holds until it is observed at N or later, or S seconds pass.
 *
 * What wakes a waiting request, never a timer that re-reads on its own:
 * - in this process, the commit of a status write (store/status.ts `onStatus`: a reconciler in `serve`) or of a
 *   desired change to the resource (store/feed.ts `onChanges`: the zone was deleted, a newer generation);
 * - another process's commit (`core` beside this `api`, or the admin CLI): SQLite's `PRAGMA data_version`, which
 *   moves when another connection commits, read every OTHER_PROCESS_POLL_MS while anyone waits and never
 *   otherwise. Status writes are not in the change feed, so the feed's poll would not see them.
 * A wake re-reads the resource; one that finds it not yet observed waits again.
 */
import type { Store } from '../store/db';
import { onChanges, type ChangeKind } from '../store/feed';
import { onStatus } from '../store/status';

/** The longest `wait` (seconds), CONTRACT.md. */
export const MAX_WAIT_SECONDS = 30;
/** How often another process's commits are looked for while a request waits. */
export const OTHER_PROCESS_POLL_MS = 100;
/**
 * The most waits one owner (an organization) holds at once in this process. A held wait holds a connection, and
 * the connection caps are per address, not per tenant: without this one organization could hold every
 * connection of the process with long-polls. Beyond it a wait is answered at once with the resource as it is
 * (the answer a wait that ends unobserved gives, so never an error): a client polls again, as it would after
 * `wait` seconds.
 */
export const MAX_HELD_WAITS_PER_ORG = 64;

interface Waiter { key: string; wake: () => void }

interface Watch {
  waiters: Set<Waiter>;
  stop: () => void;
}

const watches = new WeakMap<Store, Watch>();
const keyOf = (kind: string, key: string): string => `${kind}\u0000${key}`;

/** The watch of a store, started with its first waiter and stopped with its last: no cost while nobody waits. */
function watchOf(s: Store): Watch {
  let w = watches.get(s);
  if (w) return w;
  const waiters = new Set<Waiter>();
  const wake = (key?: string): void => {
    for (const x of [...waiters]) if (key === undefined || x.key === key) x.wake();
  };
  const offStatus = onStatus(s, (kind, key) => wake(keyOf(kind, key)));
  const offChanges = onChanges(s, (batch) => {
    for (const c of batch) wake(keyOf(c.kind, c.key));
  });
  const version = s.prepared('dataVersion', (_db, sqlite) => sqlite.prepare('PRAGMA data_version').pluck());
  let seen = version.get() as number;
  const timer = setInterval(() => {
    let now: number;
    try {
      now = version.get() as number;
    } catch {
      return;
    }
    if (now !== seen) {
      seen = now;
      wake();
    }
  }, OTHER_PROCESS_POLL_MS);
  timer.unref();
  w = {
    waiters,
    stop: () => {
      clearInterval(timer);
      offStatus();
      offChanges();
      watches.delete(s);
    },
  };
  watches.set(s, w);
  return w;
}

/** The next change of (kind, key), armed before the read it follows so that no change falls in between. */
function nextChange(s: Store, kind: ChangeKind, key: string): { changed: Promise<void>; cancel: () => void } {
  const w = watchOf(s);
  let resolve!: () => void;
  const changed = new Promise<void>((r) => { resolve = r; });
  const waiter: Waiter = { key: keyOf(kind, key), wake: () => resolve() };
  w.waiters.add(waiter);
  return {
    changed,
    cancel: () => {
      w.waiters.delete(waiter);
      if (w.waiters.size === 0) w.stop();
    },
  };
}

/** Waits held per owner, per store. */
const heldWaits = new WeakMap<Store, Map<string, number>>();

/**
 * Reads the resource with `read` until `done` says it is observed, `deadline` (epoch ms) passes or `signal` aborts
 * (the client went away), and answers the last read. A read that throws (the resource was deleted: 404) ends it.
 * An `owner` (the organization) that already holds MAX_HELD_WAITS_PER_ORG waits gets one read, not held.
 *
 * Many waits woken by one write each read again: `read` is the resource's own row and status (small); what the
 * caller renders after (a page of rrsets) is its own, and could be shared by concurrent answers of one tag.
 */
export async function holdUntil<T>(s: Store, kind: ChangeKind, key: string, o: { deadline: number; signal?: AbortSignal; owner?: string },
  read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  if (o.owner === undefined) return hold(s, kind, key, o, read, done);
  let held = heldWaits.get(s);
  if (!held) heldWaits.set(s, held = new Map());
  const n = held.get(o.owner) ?? 0;
  if (n >= MAX_HELD_WAITS_PER_ORG) return read();
  held.set(o.owner, n + 1);
  try {
    return await hold(s, kind, key, o, read, done);
  } finally {
    const left = (held.get(o.owner) ?? 1) - 1;
    if (left > 0) held.set(o.owner, left);
    else held.delete(o.owner);
  }
}

async function hold<T>(s: Store, kind: ChangeKind, key: string, o: { deadline: number; signal?: AbortSignal },
  read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (;;) {
    const next = nextChange(s, kind, key);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const v = await read();
      const left = o.deadline - Date.now();
      if (done(v) || left <= 0 || o.signal?.aborted) return v;
      await new Promise<void>((resolve) => {
        timer = setTimeout(resolve, left);
        onAbort = resolve;
        o.signal?.addEventListener('abort', onAbort, { once: true });
        void next.changed.then(resolve);
      });
    } finally {
      clearTimeout(timer);
      if (onAbort) o.signal?.removeEventListener('abort', onAbort);
      next.cancel();
    }
  }
}

/** Waiters on a store now, for tests: none are left behind. */
export const waiting = (s: Store): number => watches.get(s)?.waiters.size ?? 0;
