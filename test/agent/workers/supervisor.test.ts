/** The supervisor swaps a project's worker with no downtime (real worker processes, requests through the front
 * end throughout), keeps the old worker when the new one fails, and logs no value. */
import { processAlive } from '../../../lib/process-alive';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bindingHash } from '../../../agent/workers/bindings';
import { databasePath } from '../../../agent/layout';
import { reportedFailure, Supervisor } from '../../../agent/workers/supervisor';
import { defaultWorkerCommand, shellCommand, WorkerStartError } from '../../../agent/workers/worker-process';
import { bundleOf, captureLogger, fakeWorker, get, hammer, startFrontend } from '../../helpers/agent';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup(opts: { command?: string[]; fake?: boolean; onProjectChange?: () => void } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'hostplane-agent-'));
  const logs = captureLogger();
  const supervisor = new Supervisor({
    dir, command: opts.command ?? defaultWorkerCommand(), log: logs.log, drainTimeoutMs: 5000,
    retry: { baseMs: 60_000, maxMs: 60_000 }, onProjectChange: opts.onProjectChange,
    ...(opts.fake ? { start: fakeWorker } : {}),
  });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => supervisor.stop());
  return { dir, logs, supervisor };
}

const HOST = 'blog.hostplane.test';
const pidOf = (s: Supervisor): number | undefined => {
  const r = s.route(HOST);
  if (r.kind !== 'worker') return undefined;
  r.release();
  return r.worker.pid;
};

describe('supervisor', () => {
  it('replaces a worker with no downtime: the new one answers before the old one is drained and stopped', async () => {
    // Workers that take a while to start, as real ones do: the old one serves meanwhile.
    const { supervisor, logs } = setup({ command: shellCommand(`sleep 0.5; exec ${defaultWorkerCommand().map((a) => `'${a}'`).join(' ')}`) });
    const fe = await startFrontend(supervisor);
    cleanups.push(() => fe.close());
    expect(await supervisor.apply(bundleOf('1', [{ env: { API_KEY: 'first-secret-value' } }]))).toEqual({ failed: [] });
    const first = JSON.parse((await get(fe.url, HOST)).body) as { bundleVersion: string; bindings: Record<string, string> };
    expect(first).toMatchObject({ org: 'acme', project: 'blog', bundleVersion: '1', bindings: { API_KEY: bindingHash('first-secret-value') } });
    const oldPid = pidOf(supervisor)!;

    const load = hammer(fe.url, HOST);
    await new Promise((r) => setTimeout(r, 100));
    const swapStart = Date.now();
    expect(await supervisor.apply(bundleOf('2', [{ env: { API_KEY: 'second-secret-value' } }]))).toEqual({ failed: [] });
    const swapped = Date.now();
    // The old worker is drained and stopped while requests keep coming.
    const deadline = Date.now() + 10_000;
    while (processAlive(oldPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    await load.stop();

    expect(processAlive(oldPid)).toBe(false);
    expect(load.failures).toEqual([]);
    const versionOf = (a: { body: string }) => (JSON.parse(a.body) as { bundleVersion: string }).bundleVersion;
    const during = load.answers.filter((a) => a.at >= swapStart);
    expect(new Set(during.map(versionOf))).toEqual(new Set(['1', '2']));
    // No downtime: while the new worker was starting (its 0.5 s), the old one answered what was sent meanwhile. What
    // matters is that requests were answered in that window, not how many a busy machine let the hammer send.
    expect(during.some((a) => a.sent < swapped && versionOf(a) === '1')).toBe(true);
    // Once the new one serves, the old one gets no more requests.
    const after = load.answers.filter((a) => a.sent > swapped).map(versionOf);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((v) => v === '2')).toBe(true);
    expect(JSON.parse((await get(fe.url, HOST)).body)).toMatchObject({ bundleVersion: '2', bindings: { API_KEY: bindingHash('second-secret-value') } });
    expect(supervisor.appliedVersion()).toBe('2');
    expect(logs.text()).not.toMatch(/first-secret-value|second-secret-value/);
  }, 60_000);

  it('keeps the old worker serving when the new one fails to start, and says so in a log line without the value', async () => {
    // The worker fails whenever API_KEY is the bad one.
    const [node, ...args] = defaultWorkerCommand();
    const cmd = `test "$API_KEY" != "bad-secret-value" || exit 3; exec ${[node!, ...args].map((a) => `'${a}'`).join(' ')}`;
    const { supervisor, logs } = setup({ command: shellCommand(cmd) });
    const fe = await startFrontend(supervisor);
    cleanups.push(() => fe.close());
    await supervisor.apply(bundleOf('1', [{ env: { API_KEY: 'good-secret-value' } }]));
    const pid = pidOf(supervisor);

    const load = hammer(fe.url, HOST, 2);
    expect(await supervisor.apply(bundleOf('2', [{ env: { API_KEY: 'bad-secret-value' } }]))).toEqual({ failed: ['acme/blog'] });
    await load.stop();
    expect(load.failures).toEqual([]);
    expect(pidOf(supervisor)).toBe(pid);
    expect(JSON.parse((await get(fe.url, HOST)).body)).toMatchObject({ bundleVersion: '1', bindings: { API_KEY: bindingHash('good-secret-value') } });
    expect(supervisor.appliedVersion()).toBe('1');
    expect(supervisor.projects()).toEqual([expect.objectContaining({ key: 'acme/blog', runningVersion: '1', failure: expect.stringMatching(/exited \(code 3\) before it was ready/) })]);
    const line = logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'the new worker failed to start: the old one keeps serving');
    expect(line).toMatchObject({ level: 40, project: 'acme/blog', bundleVersion: '2', serving: '1' });
    expect(logs.text()).not.toMatch(/good-secret-value|bad-secret-value/);
  }, 60_000);

  it('starts a worker again when it dies', async () => {
    const { supervisor, logs } = setup({ command: defaultWorkerCommand() });
    (supervisor as unknown as { opts: { retry: object } }).opts.retry = { baseMs: 10, maxMs: 10 };
    const fe = await startFrontend(supervisor);
    cleanups.push(() => fe.close());
    await supervisor.apply(bundleOf('1', [{ env: { A: 'x' } }]));
    const pid = pidOf(supervisor)!;
    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 10_000;
    while ((pidOf(supervisor) ?? pid) === pid && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(pidOf(supervisor)).not.toBe(pid);
    expect((await get(fe.url, HOST)).status).toBe(200);
    expect(logs.text()).toContain('the worker exited: starting it again');
  }, 30_000);

  it('a worker that keeps exiting soon after it starts is started again after growing delays, not in a tight loop', async () => {
    const crashing = `${JSON.stringify(process.execPath)} -e "require('http').createServer((q, s) => s.end('ok')).listen(process.env.SERVICE_SOCKET, () => setTimeout(() => process.exit(1), 200))"`;
    const { supervisor, logs } = setup({ command: shellCommand(crashing) });
    (supervisor as unknown as { opts: { retry: object } }).opts.retry = { baseMs: 300, maxMs: 10_000, random: () => 1 };
    await supervisor.apply(bundleOf('1', [{}]));
    const delays = (): number[] => logs.lines.map((l) => JSON.parse(l) as { msg: string; retryInMs?: number })
      .filter((l) => l.msg === 'the worker exited: starting it again').map((l) => l.retryInMs!);
    const deadline = Date.now() + 15_000;
    while (delays().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(delays().slice(0, 3)).toEqual([0, 300, 600]);
  }, 30_000);

  it('leaves a worker alone when a bundle changes nothing of its project, and stops the worker of a project no longer placed', async () => {
    const { supervisor } = setup({ fake: true });
    await supervisor.apply(bundleOf('1', [{ env: { A: 'x' } }]));
    const r1 = supervisor.route(HOST);
    r1.kind === 'worker' && r1.release();
    await supervisor.apply(bundleOf('2', [{ env: { A: 'x' }, hostnames: [HOST, 'www.example.test'] }]));
    const r2 = supervisor.route('www.example.test');
    expect(r2.kind).toBe('worker');
    if (r2.kind === 'worker' && r1.kind === 'worker') {
      r2.release();
      expect(r2.worker.id).toBe(r1.worker.id);
    }
    expect(supervisor.appliedVersion()).toBe('2');
    await supervisor.apply(bundleOf('3', []));
    expect(supervisor.route(HOST)).toEqual({ kind: 'unknown' });
    if (r1.kind === 'worker') await r1.worker.exited;
  });

  it('a project whose database is a planted link fails alone: the others start, the version is not applied', async () => {
    const { supervisor, dir, logs } = setup({ fake: true });
    const db = databasePath(dir, 'acme', 'shop');
    mkdirSync(dirname(db), { recursive: true });
    writeFileSync(join(dir, 'elsewhere'), 'not the project\'s');
    symlinkSync(join(dir, 'elsewhere'), db);
    const b = bundleOf('1', [{}, { project: 'shop', hostnames: ['shop.hostplane.test'], database: true }]);
    expect(await supervisor.apply(b)).toEqual({ failed: ['acme/shop'] });
    expect(supervisor.route(HOST).kind).toBe('worker');
    expect(supervisor.route('shop.hostplane.test').kind).toBe('unavailable');
    expect(supervisor.appliedVersion()).toBeNull();
    // Reported to the control plane, whose tenant reads it: no node path.
    expect(supervisor.projects().find((p) => p.key === 'acme/shop')!.failure).toBe('the node could not prepare the project\'s storage or database');
    expect(logs.text()).toContain('refused: ');
    expect(readFileSync(join(dir, 'elsewhere'), 'utf8')).toBe('not the project\'s');
    expect(logs.text()).toContain('acme/shop');
  });

  it('applies each project at its own version: one whose worker cannot start holds back only its own', async () => {
    let changes = 0;
    const { supervisor } = setup({ fake: true, onProjectChange: () => changes++ });
    const shop = { project: 'shop', hostnames: ['shop.hostplane.test'] };
    await supervisor.apply(bundleOf('1', [{ env: { A: 'x' } }, { ...shop, env: { B: 'one' } }]));
    const state = () => supervisor.projects().map((p) => [p.key, p.appliedVersion, p.failure]);
    expect(state()).toEqual([['acme/blog', '1', null], ['acme/shop', '1', null]]);

    changes = 0;
    expect(await supervisor.apply(bundleOf('2', [{ env: { A: 'x', FAIL: 'y' } }, { ...shop, env: { B: 'two' } }]))).toEqual({ failed: ['acme/blog'] });
    expect(state()).toEqual([['acme/blog', '1', 'the worker could not be started (the node\'s log says why)'], ['acme/shop', '2', null]]);
    expect(supervisor.appliedVersion()).toBe('1');
    expect(changes).toBeGreaterThan(0);
    // A bundle that changes only the other project: it follows, the failing one stays where it runs.
    await supervisor.apply(bundleOf('3', [{ env: { A: 'x', FAIL: 'y' } }, { ...shop, env: { B: 'three' } }]));
    expect(state()).toEqual([['acme/blog', '1', expect.any(String)], ['acme/shop', '3', null]]);
    // Back to what runs: applied at the newest bundle, and so is the node.
    await supervisor.apply(bundleOf('4', [{ env: { A: 'x' } }, { ...shop, env: { B: 'three' } }]));
    expect(state()).toEqual([['acme/blog', '4', null], ['acme/shop', '4', null]]);
    expect(supervisor.appliedVersion()).toBe('4');
  });

  it('reports a failed start without the node\'s paths: the project\'s tenant reads it', () => {
    expect(reportedFailure(new WorkerStartError('/srv/node/sock/x is not a directory', 'the node could not make the worker\'s socket'))).toBe('the node could not make the worker\'s socket');
    expect(reportedFailure(new WorkerStartError('the worker exited (code 3) before it was ready'))).toBe('the worker exited (code 3) before it was ready');
    expect(reportedFailure(Object.assign(new Error('spawn E2BIG /bin/sh'), { code: 'E2BIG' }))).toBe('the worker could not be started: E2BIG');
    expect(reportedFailure(new Error('/srv/node/users.json cannot be read'))).toBe('the worker could not be started (the node\'s log says why)');
  });

  it('gives storage a directory per prefix and a database a SQLite file, both as bindings', async () => {
    const { supervisor, dir } = setup({ fake: true });
    await supervisor.apply(bundleOf('1', [{ database: true, storage: { prefix: 'acme/blog-1f3a/', quotaBytes: 1024 }, env: { SERVICE_X: 'no', lower: 'no', OK: 'yes' } }]));
    const r = supervisor.route(HOST);
    if (r.kind !== 'worker') throw new Error('no worker');
    r.release();
    const b = r.worker.spec.bindings;
    expect(Object.keys(b).sort()).toEqual(['OK', 'SERVICE_DB_PATH', 'SERVICE_STORAGE_DIR', 'SERVICE_STORAGE_QUOTA_BYTES']);
    expect(b.SERVICE_STORAGE_DIR).toBe(join(dir, 'storage', 'acme', 'blog-1f3a'));
    expect(b.SERVICE_STORAGE_QUOTA_BYTES).toBe('1024');
    expect(statSync(b.SERVICE_STORAGE_DIR!).isDirectory()).toBe(true);
    expect(existsSync(b.SERVICE_DB_PATH!)).toBe(true);
    expect(statSync(b.SERVICE_DB_PATH!).mode & 0o777).toBe(0o600);
  });
});
