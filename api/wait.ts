/**
 * Convergence receipts: a write to a reconciled resource answers its new generation (`X-Generation`), and a GET
 * of the resource with `?waitGeneration=N&wait=S` holds until it is observed at N or later, or S seconds pass.
 *
 * What wakes a waiting request, never a timer that re-reads on its own:
 * - in this process, the commit of a status write (store/status.ts `onStatus`: a reconciler in `serve`) or of a
 *   desired change to the resource (store/feed.ts `onChanges`: the zone was deleted, a newer generation);
 * - another process's commit (`core` beside this `api`, another replica, or the admin CLI): the store's
 *   `onOtherCommits` (SQLite's data_version, PostgreSQL's notifications), listened to while anyone waits (and
 *   WATCH_LINGER_MS after) and never otherwise. Status writes are not in the change feed, so the feed's poll would
 *   not see them.
 * A wake re-reads the resource; one that finds it not yet observed waits again. A wait on a page of many (`*`) is
 * scoped to one organization: a change of this process wakes it only when store/org-scope.ts finds that it concerns
 * the organization (or cannot tell), and it re-reads at most once per `every` ms however many changes come.
 */
import type { Store } from '../store/db';
import { onChanges, type ChangeKind } from '../store/feed';
import { orgsConcerned, type Concerning } from '../store/org-scope';
import { onStatus } from '../store/status';

/** The longest `wait` (seconds); docs/reconcile.md, Waiting for convergence. */
export const MAX_WAIT_SECONDS = 30;
/**
 * The most waits one owner (an organization) holds at once in this process. A held wait holds a connection, and
 * the connection caps are per address, not per tenant: without this one organization could hold every
 * connection of the process with long-polls. Beyond it a wait is answered at once with the resource as it is
 * (the answer a wait that ends unobserved gives, so never an error): a client polls again, as it would after
 * `wait` seconds.
 */
export const MAX_HELD_WAITS_PER_ORG = 64;

interface Waiter { key: string; wake: () => void }

/** Waiters by key: a change wakes those of its key without passing over the others (thousands of nodes' long-polls). */
class Waiters {
  private readonly byKey = new Map<string, Set<Waiter>>();
  size = 0;
  /** Of them, the waits scoped to an organization: while there are none, no change is looked up. */
  scoped = 0;

  add(w: Waiter): void {
    let set = this.byKey.get(w.key);
    if (!set) this.byKey.set(w.key, (set = new Set()));
    if (set.has(w)) return;
    set.add(w);
    this.size++;
    if (w.key.startsWith(SCOPED)) this.scoped++;
  }

  delete(w: Waiter): void {
    const set = this.byKey.get(w.key);
    if (!set?.delete(w)) return;
    this.size--;
    if (w.key.startsWith(SCOPED)) this.scoped--;
    if (set.size === 0) this.byKey.delete(w.key);
  }

  /** Wakes the waiters of `key`, or every waiter. */
  wake(key?: string): void {
    const sets = key === undefined ? [...this.byKey.values()] : [this.byKey.get(key)];
    for (const set of sets) if (set) for (const x of [...set]) x.wake();
  }

  /** Wakes every wait scoped to an organization: a change that may concern any. */
  wakeScoped(): void {
    for (const [key, set] of [...this.byKey]) if (key.startsWith(SCOPED)) for (const x of [...set]) x.wake();
  }
}

interface Watch {
  waiters: Waiters;
  /** Stops the watch once its last waiter has been gone for WATCH_LINGER_MS. */
  linger?: NodeJS.Timeout;
  stop: () => void;
}

/** How long a watch outlives its last waiter. A node polls again as soon as it is answered: without this each poll
 * of a lone node would start the watch afresh (on PostgreSQL a connection and its LISTEN, whose first hint has the
 * waiter read again). */
export const WATCH_LINGER_MS = 10_000;

const watches = new WeakMap<Store, Watch>();
/** Stores whose waits are let go: the process is stopping, and a held request would hold its stop. */
const released = new WeakSet<Store>();

/** Answers every wait held on `s` now, and every later one at once, as a wait that ends unobserved (the resource
 * as it is; a node's bundle 304): at shutdown, so that long-polls do not keep the server from closing. */
export function releaseWaits(s: Store): void {
  released.add(s);
  watches.get(s)?.waiters.wake();
}

/** Whether the waits on `s` were let go (releaseWaits): a caller that loops over changeOrEnd stops. */
export const waitsReleased = (s: Store): boolean => released.has(s);

const keyOf = (kind: string, key: string): string => `${kind}\u0000${key}`;

/** What a wait watches: one resource's changes, or (`*`, for a page of many: the console's organization page) every
 * change of one organization, whose id is then the key; the waiter tells by its read whether one changed its page. */
export type Watched = ChangeKind | '*';
const SCOPED = keyOf('*', '');

/** The watch of a store, started with its first waiter and stopped a while after its last: no cost while nobody
 * waits. */
function watchOf(s: Store): Watch {
  let w = watches.get(s);
  if (w) {
    clearTimeout(w.linger);
    return w;
  }
  const waiters = new Waiters();
  // Changes waiting to be told whose they are, looked up a batch at a time: a burst of writes costs a few reads.
  const unscoped: Concerning[] = [];
  let scoping = false;
  const scopeAll = async (): Promise<void> => {
    scoping = true;
    try {
      while (unscoped.length > 0) {
        const orgs = await orgsConcerned(s, unscoped.splice(0)).catch(() => 'any' as const);
        if (orgs === 'any') waiters.wakeScoped();
        else for (const org of orgs) waiters.wake(keyOf('*', String(org)));
      }
    } finally {
      scoping = false;
    }
  };
  const changed = (kind: string, key: string): void => {
    waiters.wake(keyOf(kind, key));
    if (waiters.scoped === 0) return;
    unscoped.push({ kind, key });
    if (!scoping) void scopeAll();
  };
  const offStatus = onStatus(s, changed);
  const offChanges = onChanges(s, (batch) => {
    for (const c of batch) changed(c.kind, c.key);
  });
  // Another process's commit says nothing of what it changed.
  const offOthers = s.onOtherCommits(() => waiters.wake());
  w = {
    waiters,
    stop: () => {
      offOthers();
      offStatus();
      offChanges();
      watches.delete(s);
    },
  };
  watches.set(s, w);
  return w;
}

/** A waiter is done: the last one leaves the watch lingering. */
function leave(w: Watch, waiter: Waiter): void {
  w.waiters.delete(waiter);
  if (w.waiters.size > 0) return;
  clearTimeout(w.linger);
  w.linger = setTimeout(w.stop, WATCH_LINGER_MS);
  w.linger.unref();
}

/** The next change of (kind, key), armed before the read it follows so that no change falls in between. */
function nextChange(s: Store, kind: Watched, key: string): { changed: Promise<void>; cancel: () => void } {
  const w = watchOf(s);
  let resolve!: () => void;
  const changed = new Promise<void>((r) => { resolve = r; });
  const waiter: Waiter = { key: keyOf(kind, key), wake: () => resolve() };
  w.waiters.add(waiter);
  return {
    changed,
    cancel: () => leave(w, waiter),
  };
}

/** Waits held per owner, per store. */
const heldWaits = new WeakMap<Store, Map<string, number>>();

/** What holds a wait: until `deadline` (epoch ms) or `signal` aborts (the client went away); `owner` (the
 * organization) counts against MAX_HELD_WAITS_PER_ORG; `every`: ms at least between two reads, so that a burst of
 * changes is one read, not one per change. */
export interface Hold { deadline: number; signal?: AbortSignal; owner?: string; every?: number }

/**
 * Reads the resource with `read` until `done` says it is observed, the deadline passes or the signal aborts, and
 * answers the last read. A read that throws (the resource was deleted: 404) ends it. An owner that already holds
 * MAX_HELD_WAITS_PER_ORG waits gets one read, not held.
 *
 * Many waits woken by one write each read again: `read` is the resource's own row and status (small); what the
 * caller renders after (a page of rrsets) is its own, and could be shared by concurrent answers of one tag.
 */
export async function holdUntil<T>(s: Store, kind: Watched, key: string, o: Hold, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
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

/** Resolves after `ms`, or at once when `signal` aborts or `also` settles (when given). */
async function pause(ms: number, signal: AbortSignal | undefined, also?: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, ms));
      onAbort = resolve;
      signal?.addEventListener('abort', onAbort, { once: true });
      void also?.then(resolve);
    });
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

async function hold<T>(s: Store, kind: Watched, key: string, o: Hold, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let readAt: number | undefined;
  for (;;) {
    const next = nextChange(s, kind, key);
    try {
      // Armed before this pause: a change during it is in the read that follows, and wakes the wait after it again.
      if (readAt !== undefined && o.every) await pause(Math.min(readAt + o.every, o.deadline) - Date.now(), o.signal);
      readAt = Date.now();
      const v = await read();
      const left = o.deadline - Date.now();
      if (done(v) || left <= 0 || o.signal?.aborted || released.has(s)) return v;
      await pause(left, o.signal, next.changed);
    } finally {
      next.cancel();
    }
  }
}

/** Waiters on a store now, for tests: none are left behind. */
export const waiting = (s: Store): number => watches.get(s)?.waiters.size ?? 0;

/** What a lean wait listens to for its client going away: the answer's `res` (its 'close'). */
interface Closable { once(event: 'close', listener: () => void): unknown; off(event: 'close', listener: () => void): unknown }

/**
 * The next change of (kind, key) committed in this process (or any commit of another process, which the watch
 * cannot tell apart), `ms` passing or `conn` closing, whichever comes first; the caller reads again and decides.
 * Armed synchronously, so a read just before it misses no change. For many idle waits (nodes' long-polls for
 * their bundles): one waiter entry, one timer and one listener each, none of `holdUntil`'s per-wait machinery.
 */
export function changeOrEnd(s: Store, kind: ChangeKind, key: string, ms: number, conn: Closable): Promise<void> {
  if (released.has(s)) return Promise.resolve();
  const w = watchOf(s);
  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const done = (): void => {
      clearTimeout(timer);
      conn.off('close', done);
      leave(w, waiter);
      resolve();
    };
    const waiter: Waiter = { key: keyOf(kind, key), wake: done };
    w.waiters.add(waiter);
    timer = setTimeout(done, Math.max(0, ms));
    conn.once('close', done);
  });
}
