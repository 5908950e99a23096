import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../lib/log';
import { startRunner, type Runner } from '../../reconcilers/runner';
import { identityWatch, TerminalError, type Reconciler, type Result } from '../../reconcilers/types';
import { StoreUnavailableError, type Store } from '../../store/db';
import { onPostgres, openTestStore } from '../helpers/store';
import { changesSince, onChanges, recordChange, type Change, type ChangeKind } from '../../store/feed';
import { changes, feedConsumers } from '../../store/schema';
import { eq } from 'drizzle-orm';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A logger whose lines the test reads. */
function capturedLog() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const log = createLogger({ level: 'debug', destination: new Writable({ write: (c, _e, cb) => { lines.push(JSON.parse(String(c))); cb(); } }) });
  return { log, lines, messages: (msg: string) => lines.filter((l) => l.msg === msg) };
}

const change = (s: Store, kind: ChangeKind, key: string) => s.write(async (tx) => { await recordChange(s, tx, kind, key, new Date()); });

/** A reconciler of the keys of `zone` changes whose passes answer what `answer` says. */
function fakeReconciler(answer: (key: string, signal: AbortSignal) => Promise<Result> | Result, keys: () => Promise<string[]> = async () => []) {
  const runs: { key: string; at: number }[] = [];
  const r: Reconciler = {
    kind: 'fake',
    watches: [identityWatch('zone')],
    keys,
    reconcile: async (key, signal) => {
      runs.push({ key, at: Date.now() });
      return answer(key, signal);
    },
  };
  return { r, runs, keys: () => runs.map((x) => x.key) };
}

/** A reconciler whose watch of secret changes records each change it maps (its `keys` may query the store). */
function secretWatcher() {
  const mapped: string[] = [];
  const bundle: Reconciler = {
    kind: 'bundle',
    watches: [{ kind: 'secret', keys: async (project) => { mapped.push(project); return [`node-of-${project}`]; } }],
    keys: async () => [],
    reconcile: async () => ({}),
  };
  return { mapped, bundle };
}

describe('runner', () => {
  let store: Store;
  let runner: Runner | undefined;
  let logged: ReturnType<typeof capturedLog>;
  const start = async (reconcilers: Reconciler[], o: { pollMs?: number; resyncMs?: number } = {}) => {
    runner = await startRunner({ store, reconcilers, log: logged.log, pollMs: o.pollMs ?? HOUR, resyncMs: o.resyncMs ?? DAY });
    return runner;
  };
  const fakeTimers = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });

  beforeEach(async () => {
    store = await openTestStore(':memory:');
    logged = capturedLog();
    runner = undefined;
  });
  afterEach(async () => {
    await runner?.stop();
    store.close();
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('backs off exponentially up to a cap, and a success starts over', async () => {
    fakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    let failing = true;
    const f = fakeReconciler(() => {
      if (failing) throw new Error('nameserver down');
      return {};
    }, async () => ['a']);
    const r = await start([f.r]);
    await r.idle();
    // The clock moves by time, not from timer to timer: the fake timers are the store's too (the PostgreSQL pool's
    // for its idle connections), and the runs' times show any run between the deadlines.
    const backoffs = [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000];
    await vi.advanceTimersByTimeAsync(backoffs.reduce((a, b) => a + b));
    const gaps = (from: number) => f.runs.slice(from + 1).map((x, i) => x.at - f.runs[from + i]!.at);
    expect(gaps(0)).toEqual(backoffs);
    expect(logged.messages('reconcile failed; retrying').map((l) => l.retryInMs)).toEqual([...backoffs, 30_000]);

    failing = false;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(f.runs).toHaveLength(10);
    expect(r.pending()).toBe(0);

    failing = true;
    r.nudge('zone', 'a');
    await r.idle();
    await vi.advanceTimersByTimeAsync(500);
    expect(gaps(10)).toEqual([500]);
  });

  it('runs a requeue of 0 right after the pass, and idle() waits for it: a pass that leaves work to the next one', async () => {
    const answers: Result[] = [{ requeueAfterMs: 0 }, { requeueAfterMs: 0 }, {}];
    const f = fakeReconciler(async () => {
      await new Promise((res) => setImmediate(res));
      return answers.shift() ?? {};
    }, async () => ['a']);
    const r = await start([f.r]);
    await r.idle();
    expect(f.keys()).toEqual(['a', 'a', 'a']);
    expect(r.pending()).toBe(0);
  });

  it('runs a requeue once, at its time; an earlier requeue replaces a later one', async () => {
    fakeTimers();
    const answers: Result[] = [{ requeueAfterMs: 60_000 }, { requeueAfterMs: 1_000 }, { requeueAfterMs: 5_000 }, {}];
    const f = fakeReconciler(() => answers.shift() ?? {}, async () => ['a']);
    const r = await start([f.r]);
    await r.idle();
    expect(r.pending()).toBe(1);
    r.nudge('zone', 'a');
    await r.idle();
    expect(r.pending()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(f.runs).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(f.runs).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(f.runs.map((x) => x.at - f.runs[0]!.at)).toEqual([0, 0, 1_000, 6_000]);
    expect(r.pending()).toBe(0);
    // The 60 s requeue of the first pass was replaced, not kept beside.
    await vi.advanceTimersByTimeAsync(HOUR - 1);
    expect(f.runs).toHaveLength(4);
  });

  it('2,000 passes of one key leave one pending deadline, which runs one pass', async () => {
    fakeTimers();
    const f = fakeReconciler(() => ({ requeueAfterMs: 600_000 }));
    const r = await start([f.r]);
    const t0 = Date.now();
    for (let i = 0; i < 2_000; i++) {
      r.nudge('zone', 'k');
      await r.idle();
      // Later passes ask for later deadlines: those are dropped.
      if (i % 100 === 99) await vi.advanceTimersByTimeAsync(1_000);
    }
    expect(f.runs).toHaveLength(2_000);
    expect(r.pending()).toBe(1);
    // The key's deadline, the poll and the resync.
    expect(vi.getTimerCount()).toBe(3);
    await vi.advanceTimersByTimeAsync(t0 + 600_000 - Date.now());
    expect(f.runs).toHaveLength(2_001);
    expect(r.pending()).toBe(1);
  });

  it('does not retry a TerminalError until a new change of the key', async () => {
    fakeTimers();
    const f = fakeReconciler(() => { throw new TerminalError('the zone name is not ours to serve'); }, async () => ['a']);
    const r = await start([f.r]);
    await r.idle();
    expect(r.pending()).toBe(0);
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    expect(f.runs).toHaveLength(1);
    expect(logged.messages('reconcile failed for good; waiting for a new desired state')).toHaveLength(1);
    await change(store, 'zone', 'a');
    await r.idle();
    expect(f.keys()).toEqual(['a', 'a']);
  });

  it('routes a change through every watch to the keys it maps to', async () => {
    const bundles: string[] = [];
    const placedOn: Record<string, string[]> = { 7: ['node-a', 'node-b'] };
    const bundle: Reconciler = {
      kind: 'bundle',
      watches: [
        { kind: 'secret', keys: async (project) => placedOn[project] ?? [] },
        identityWatch('placement'),
      ],
      keys: async () => [],
      reconcile: async (key) => { bundles.push(key); return {}; },
    };
    const zones = fakeReconciler(() => ({}));
    const r = await start([bundle, zones.r]);
    await change(store, 'secret', '7');
    await r.idle();
    expect(bundles.sort()).toEqual(['node-a', 'node-b']);
    await change(store, 'zone', 'example.com');
    await change(store, 'placement', 'node-c');
    await change(store, 'secret', '8');
    await r.idle();
    expect(bundles.sort()).toEqual(['node-a', 'node-b', 'node-c']);
    expect(zones.keys()).toEqual(['example.com']);
  });

  it('a commit in this process wakes its watchers at once, without the poll; so does a nudge', async () => {
    const f = fakeReconciler(() => ({}));
    const r = await start([f.r], { pollMs: HOUR });
    await change(store, 'zone', 'example.com');
    await r.idle();
    expect(f.keys()).toEqual(['example.com']);
    r.nudge('zone', 'other.example');
    await r.idle();
    expect(f.keys()).toEqual(['example.com', 'other.example']);
  });

  it('gives a reconciler\'s spacing its burst: a quiet key\'s second change within the spacing runs at once', async () => {
    const f = fakeReconciler(() => ({}));
    const r = await start([{ ...f.r, spacingMs: HOUR, spacingBurst: 2 }]);
    await change(store, 'zone', 'example.com');
    await r.idle();
    // Without the burst, idle() would wait the hour's spacing for this one.
    await change(store, 'zone', 'example.com');
    await r.idle();
    expect(f.keys()).toEqual(['example.com', 'example.com']);
  });

  it('a nudge after a commit does not run a key a second time while its pass runs; a commit during the pass does', async () => {
    let release!: () => void;
    const f = fakeReconciler(async (key) => {
      if (key === 'slow.example') await new Promise<void>((res) => { release = res; });
      return {};
    });
    const r = await start([f.r], { pollMs: HOUR });
    await change(store, 'zone', 'slow.example');
    await vi.waitFor(() => expect(f.keys()).toEqual(['slow.example']));
    // The write's own nudge, once the pass that its commit started is running: nothing more to do.
    r.nudge('zone', 'slow.example');
    release();
    await r.idle();
    expect(f.keys()).toEqual(['slow.example']);
    // A change committed while a pass runs may not be seen by it: the pass runs again.
    await change(store, 'zone', 'slow.example');
    await vi.waitFor(() => expect(f.keys()).toHaveLength(2));
    await change(store, 'zone', 'slow.example');
    release();
    await vi.waitFor(() => expect(f.keys()).toHaveLength(3));
    release();
    await r.idle();
    expect(f.keys()).toEqual(['slow.example', 'slow.example', 'slow.example']);
  });

  it("maps a change this process committed once: the writer's nudge after its answer maps nothing again", async () => {
    const { mapped, bundle } = secretWatcher();
    const r = await start([bundle]);
    const nudged = async (key: string): Promise<void> => {
      r.nudge('secret', key);
      await r.idle();
    };
    // As a handler does: the write is answered once its commit is synced, and its nudge follows; here even a turn
    // of the event loop later, by when the pass its commit started has ended.
    await change(store, 'secret', '7');
    await r.idle();
    await new Promise((res) => setImmediate(res));
    await nudged('7');
    expect(mapped).toEqual(['7']);
    // A nudge for a change this process did not commit (another process's, seen early) is mapped.
    await nudged('8');
    expect(mapped).toEqual(['7', '8']);
    // Writes of one key committed together: each writer's nudge is its own.
    await Promise.all([change(store, 'secret', '9'), change(store, 'secret', '9')]);
    await r.idle();
    r.nudge('secret', '9');
    await nudged('9');
    expect(mapped.filter((k) => k === '9')).toHaveLength(onPostgres() ? 2 : 1);
  });

  it("maps a change once when the poll reads it before this process announces it: the writer's nudge maps nothing again", async () => {
    // PostgreSQL announces a commit a round trip after it is visible, and a poll (woken by another process's commit,
    // or by the listener's start) may read it in between. The wrapper holds the announcements and is the hint.
    const held: (() => void)[] = [];
    let holding = false;
    let hint: (() => void) | undefined;
    const late: Store = {
      ...store,
      onCommit: (l) => store.onCommit(() => (holding ? held.push(l) : l())),
      onOtherCommits: (l) => {
        hint = l;
        return () => undefined;
      },
    };
    const { mapped, bundle } = secretWatcher();
    runner = await startRunner({ store: late, reconcilers: [bundle], log: logged.log, pollMs: HOUR, resyncMs: DAY });
    holding = true;
    await change(late, 'secret', '7');
    hint!();
    await vi.waitFor(() => expect(mapped).toEqual(['7']));
    holding = false;
    for (const l of held.splice(0)) l();
    await runner.idle();
    runner.nudge('secret', '7');
    await runner.idle();
    expect(mapped).toEqual(['7']);
  });

  // The nudge bookkeeping is the runner's own, the same on both stores; the test steps polls by fake time, which
  // cannot wait for a PostgreSQL read's I/O (a poll not back yet is not stepped again: under load it failed there).
  it.skipIf(onPostgres())(`a commit's change takes one nudge of it for the writer's own, and only until the second poll after it${onPostgres() ? ' (skipped on PostgreSQL: fake time cannot wait for its reads)' : ''}`, async () => {
    fakeTimers();
    const { mapped, bundle } = secretWatcher();
    const r = await start([bundle], { pollMs: 1_000 });
    const nudged = async (key: string): Promise<void> => {
      r.nudge('secret', key);
      await r.idle();
    };
    await change(store, 'secret', '7');
    await r.idle();
    await vi.advanceTimersByTimeAsync(1_000);
    // One poll later: the first nudge is the writer's own, a second one another change's.
    await nudged('7');
    expect(mapped).toEqual(['7']);
    await nudged('7');
    expect(mapped).toEqual(['7', '7']);
    // A write that did not nudge: two polls later a nudge is another change's, mapped (not left to the poll).
    await change(store, 'secret', '7');
    await r.idle();
    await vi.advanceTimersByTimeAsync(2_000);
    await nudged('7');
    expect(mapped).toEqual(['7', '7', '7', '7']);
  });

  it('routes a commit at its announcement, before its writers are answered, and idle waits for the pass', async () => {
    const f = fakeReconciler(() => ({}));
    const r = await start([f.r]);
    let routedBeforeAnswer = false;
    await change(store, 'zone', 'example.com').then(() => { routedBeforeAnswer = f.runs.length > 0; });
    await r.idle();
    expect(routedBeforeAnswer).toBe(true);
    expect(f.keys()).toEqual(['example.com']);
  });

  it('a watch with a spacing maps a stream of changes of one key at most once per spacing, the last one included', async () => {
    fakeTimers();
    const mapped: { key: string; at: number }[] = [];
    const hostnames: Reconciler = {
      kind: 'hostname',
      watches: [{ kind: 'zone', keys: async (zone) => { mapped.push({ key: zone, at: Date.now() }); return [`www.${zone}`]; }, spacingMs: 250 }],
      keys: async () => [],
      reconcile: async () => ({}),
    };
    const r = await start([hostnames]);
    const t0 = Date.now();
    for (let i = 0; i < 20; i++) {
      await change(store, 'zone', 'example.com');
      await vi.advanceTimersByTimeAsync(10);
    }
    // Another zone is not held back by the first one's spacing.
    await change(store, 'zone', 'other.example');
    await vi.advanceTimersByTimeAsync(1);
    expect(mapped.map((m) => m.key)).toEqual(['example.com', 'other.example']);
    await vi.advanceTimersByTimeAsync(250);
    await r.idle();
    // The first change at once; the 19 after it within the spacing, once, at its end.
    expect(mapped.filter((m) => m.key === 'example.com').map((m) => m.at - t0)).toEqual([0, 250]);
  });

  /** `store` opened again on a data dir, and `other`, another process's store of the same data. */
  const besideAnother = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-runner-'));
    const other = await openTestStore(dir);
    store.close();
    store = await openTestStore(dir);
    return {
      other,
      close: async () => {
        await runner?.stop();
        other.close();
        store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };

  it("picks up another process's change from the poll, and does not run this process's change again for it", async () => {
    const { other, close } = await besideAnother();
    try {
      const f = fakeReconciler(() => ({}));
      const r = await start([f.r], { pollMs: 20 });
      await change(other, 'zone', 'from-other.example');
      await change(store, 'zone', 'from-this.example');
      await vi.waitFor(() => expect(f.keys()).toContain('from-other.example'), { timeout: 2_000 });
      // Several polls pass over both changes.
      await new Promise((done) => setTimeout(done, 150));
      await r.idle();
      expect(f.keys().sort()).toEqual(['from-other.example', 'from-this.example']);
    } finally {
      await close();
    }
  });

  it("reads the feed as soon as another process commits (its commit's hint, Store.onOtherCommits), not at the next poll", async () => {
    const { other, close } = await besideAnother();
    try {
      const f = fakeReconciler(() => ({}));
      await start([f.r]);
      const committed = Date.now();
      await change(other, 'zone', 'hinted.example');
      await vi.waitFor(() => expect(f.keys()).toEqual(['hinted.example']), { timeout: 5_000, interval: 10 });
      // The poll is an hour away: only the hint can have woken the read, well within a second (SQLite's hint is a
      // read of its data_version every 100 ms, PostgreSQL's a notification).
      expect(Date.now() - committed).toBeLessThan(1_000);
    } finally {
      await close();
    }
  });

  it('reports its feed position, and resyncs everything when changes were pruned before it read them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-runner-'));
    const other = await openTestStore(dir);
    store.close();
    store = await openTestStore(dir);
    fakeTimers();
    try {
      const f = fakeReconciler(() => ({}), async () => ['everything.example']);
      const r = await start([f.r], { pollMs: 1_000 });
      await vi.advanceTimersByTimeAsync(1_000);
      await r.idle();
      expect(await store.db.select().from(feedConsumers)).toEqual([expect.objectContaining({ seq: 0 })]);
      // Between two polls another process writes two changes, and the feed loses the first one unread.
      await change(other, 'zone', 'lost.example');
      await change(other, 'zone', 'kept.example');
      await other.write(async (tx) => { await tx.delete(changes).where(eq(changes.key, 'lost.example')); });
      await vi.advanceTimersByTimeAsync(1_001);
      await r.idle();
      // On PostgreSQL the poll's reads complete in real time, after the fake clock stopped: the resync it set for
      // at once runs at the clock's next step.
      await vi.advanceTimersByTimeAsync(0);
      await r.idle();
      expect(f.keys()).toEqual(['everything.example', 'kept.example', 'everything.example']);
      expect(logged.messages('changes were pruned before this process read them; resyncing')).toHaveLength(1);
    } finally {
      await runner?.stop();
      other.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stop leaves no timer and no running reconcile, and nothing wakes it after', async () => {
    fakeTimers();
    let running = 0;
    const f = fakeReconciler(async (key, signal) => {
      if (key !== 'slow') return { requeueAfterMs: 1_000 };
      running++;
      try {
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      } finally {
        running--;
      }
      return {};
    }, async () => ['fast', 'slow']);
    const r = await start([f.r], { pollMs: 100, resyncMs: 60_000 });
    expect(running).toBe(1);
    expect(r.pending()).toBe(1);
    // The store's own timers (the PostgreSQL pool's for its idle connections) stay: stop removes the runner's 3.
    const timers = vi.getTimerCount();
    await r.stop();
    expect(running).toBe(0);
    expect(r.pending()).toBe(0);
    expect(timers - vi.getTimerCount()).toBe(3);
    const passes = f.runs.length;
    await change(store, 'zone', 'fast');
    r.nudge('zone', 'slow');
    await vi.advanceTimersByTimeAsync(HOUR);
    await r.idle();
    expect(f.runs).toHaveLength(passes);
    expect(logged.lines.filter((l) => l.level >= 40)).toEqual([]);
  });

  it('logs a resync whose listing throws and retries it with backoff, never an unhandled rejection', async () => {
    fakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    let calls = 0;
    const f = fakeReconciler(() => ({}), async () => {
      calls++;
      if (calls <= 2 || calls === 4) throw new Error(`store busy ${calls}`);
      return ['a'];
    });
    const r = await start([f.r], { resyncMs: 60_000 });
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toBe(3);
    await r.idle();
    expect(f.keys()).toEqual(['a']);
    // The periodic resync fails too, and starts its backoff over.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(4);
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toBe(5);
    expect(logged.messages('listing keys to resync failed; retrying').map((l) => [l.attempt, l.retryInMs, l.err]))
      .toEqual([[1, 500, 'store busy 1'], [2, 1_000, 'store busy 2'], [1, 500, 'store busy 4']]);
  });

  it('resyncs a reconciler whose watch cannot map a change, after logging it', async () => {
    fakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    let listed = 0;
    const r1: Reconciler = {
      kind: 'bundle',
      watches: [
        { kind: 'secret', keys: async () => { throw new Error('placements unreadable'); } },
        { kind: 'placement', keys: () => { throw new Error('bad node id'); } },
      ],
      keys: async () => { listed++; return []; },
      reconcile: async () => ({}),
    };
    const r = await start([r1]);
    expect(listed).toBe(1);
    r.nudge('secret', '7');
    r.nudge('placement', 'x');
    await r.idle();
    expect(logged.messages('mapping a change to keys failed; resyncing').map((l) => l.err)).toEqual(['bad node id', 'placements unreadable']);
    // Both failures share one resync deadline.
    await vi.advanceTimersByTimeAsync(500);
    expect(listed).toBe(2);
    await vi.advanceTimersByTimeAsync(HOUR - 500);
    expect(listed).toBe(2);
  });

  it('passes what failed because the store was away as soon as the feed reads again, not at its backoff', async () => {
    fakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    let down = false;
    const away = (): StoreUnavailableError => new StoreUnavailableError('PostgreSQL at test is unavailable');
    // The store as a process sees it while PostgreSQL is stopped: every read of it fails.
    const flaky = new Proxy(store, { get: (t, p, r) => (p === 'db' && down ? (() => { throw away(); })() : Reflect.get(t, p, r)) });
    const f = fakeReconciler(() => {
      if (down) throw away();
      return {};
    }, async () => ['a', 'b']);
    runner = await startRunner({ store: flaky, reconcilers: [f.r], log: logged.log, pollMs: 400, resyncMs: DAY });
    await runner.idle();
    down = true;
    runner.nudge('zone', 'a');
    runner.nudge('zone', 'b');
    // Away for 20 s: each key's backoff has grown to 16 s; the feed is tried every second meanwhile.
    await vi.advanceTimersByTimeAsync(20_000);
    const failedRuns = f.runs.length;
    expect(logged.messages('reading the change feed failed; retrying').every((l) => (l.retryInMs as number) <= 1_000)).toBe(true);
    down = false;
    const back = Date.now();
    await vi.advanceTimersByTimeAsync(1_000);
    await runner.idle();
    const after = f.runs.slice(failedRuns);
    expect(after.map((x) => x.key).sort()).toEqual(['a', 'b']);
    expect(after.every((x) => x.at - back <= 1_000)).toBe(true);
    expect(logged.messages('the store answers again; passing at once what failed for it').map((l) => l.retried)).toEqual([2]);
    await vi.advanceTimersByTimeAsync(60_000);
    // Passed once each: their old backoff deadlines pass nothing twice.
    expect(f.runs.length - failedRuns).toBeLessThanOrEqual(4);
    expect(runner.pending()).toBe(0);
  });

  it('logs a failing feed poll and retries it with backoff', async () => {
    fakeTimers();
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const f = fakeReconciler(() => ({}));
    await start([f.r], { pollMs: 400 });
    store.close();
    for (let i = 0; i < 4; i++) await vi.advanceTimersToNextTimerAsync();
    expect(logged.messages('reading the change feed failed; retrying').map((l) => [l.attempt, l.retryInMs]))
      .toEqual([[1, 500], [2, 1_000], [3, 2_000], [4, 4_000]]);
  });
});

describe('commit notification', () => {
  it('announces the changes a commit kept, in seq order, and none that a savepoint rolled back', async () => {
    const store = await openTestStore(':memory:');
    try {
      const got: Change[][] = [];
      const off = onChanges(store, (batch) => got.push(batch));
      const now = new Date();
      const outcomes = await Promise.allSettled([
        store.write(async (tx) => { await recordChange(store, tx, 'zone', 'kept.example', now); }),
        store.write(async (tx) => { await recordChange(store, tx, 'zone', 'rolled-back.example', now); throw new Error('refused'); }),
        store.write(async (tx) => { await recordChange(store, tx, 'secret', '7', now); }),
        store.write(async (tx) => { await recordChange(store, tx, 'placement', 'node-a', now); throw new Error('refused'); }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
      const feed = await changesSince(store, 0);
      expect(feed.map((c) => c.key).sort()).toEqual(['7', 'kept.example']);
      // On PostgreSQL the writes commit each on its own connection, in the order they took the feed lock, and are
      // announced as their COMMITs' answers are read: two answers read in one turn may be announced in either order.
      const byFirstSeq = (batches: Change[][]): Change[][] => [...batches].sort((a, b) => a[0]!.seq - b[0]!.seq);
      expect(byFirstSeq(got)).toEqual(onPostgres() ? feed.map((c) => [c]) : [feed]);
      const heard = got.length;
      off();
      await store.write(async (tx) => { await recordChange(store, tx, 'zone', 'unheard.example', now); });
      expect(got).toHaveLength(heard);
    } finally {
      store.close();
    }
  });
});
