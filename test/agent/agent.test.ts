/** The node agent's loops against a fake control plane: it serves the last bundle it wrote while the control
 * plane is down, retries with backoff, and once answered writes, applies and reports the new bundle. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAgent, type RunningAgent } from '../../agent/agent';
import { readBundleFile, writeBundleFile } from '../../agent/sync/bundle-file';
import type { BundleAnswer, ControlPlane, Report } from '../../agent/sync/control';
import { bundleOf, captureLogger, fakeWorker, get } from '../helpers/agent';

const HOST = 'blog.hostplane.test';
const agents: RunningAgent[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.stop()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A control plane whose answers a test decides: `down` makes every call fail as an unreachable one does. */
class FakeControlPlane implements ControlPlane {
  down = true;
  calls: { at: number; version: string | null; waitSeconds: number }[] = [];
  reports: Report[] = [];
  next: BundleAnswer | null = null;
  bundle(opts: { version: string | null; waitSeconds: number; signal?: AbortSignal }): Promise<BundleAnswer> {
    this.calls.push({ at: Date.now(), version: opts.version, waitSeconds: opts.waitSeconds });
    if (this.down) return Promise.reject(new Error('fetch failed: connect ECONNREFUSED 127.0.0.1:9'));
    const answer = this.next;
    this.next = null;
    if (answer) return Promise.resolve(answer);
    // A long-poll with nothing new: held until the agent stops (or a while).
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve({ kind: 'unchanged' }), 200);
      opts.signal?.addEventListener('abort', () => { clearTimeout(t); resolve({ kind: 'unchanged' }); });
    });
  }
  report(r: Report): Promise<void> {
    if (this.down) return Promise.reject(new Error('fetch failed'));
    this.reports.push(r);
    return Promise.resolve();
  }
  redeem(): Promise<null> {
    return Promise.resolve(null);
  }
  close(): void {}
}

async function start(control: ControlPlane, dir: string) {
  const logs = captureLogger();
  const agent = await startAgent({
    dir, control, command: ['unused'], listen: { host: '127.0.0.1', port: 0 }, log: logs.log,
    reportIntervalMs: 50, backoff: { baseMs: 20, maxMs: 160, random: () => 0.999 },
    supervisor: { start: fakeWorker, retry: { baseMs: 60_000, maxMs: 60_000 } },
  });
  agents.push(agent);
  return { agent, logs };
}

const until = async (check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('node agent', () => {
  it('serves the last bundle while the control plane is down, retrying with growing delays, and catches up when it is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-agent-'));
    dirs.push(dir);
    writeBundleFile(dir, bundleOf('4', [{ env: { KEY: 'kept-secret-value' } }]));
    const control = new FakeControlPlane();
    const { agent, logs } = await start(control, dir);

    await until(() => agent.supervisor.appliedVersion() === '4');
    expect(JSON.parse((await get(agent.url, HOST)).body)).toMatchObject({ version: '4' });
    await until(() => control.calls.length >= 7);
    // It asked with the version it holds; the gaps grow (20, 40, 80 ms...) up to the cap (160).
    expect(control.calls.every((c) => c.version === '4')).toBe(true);
    const gaps = control.calls.slice(1).map((c, i) => c.at - control.calls[i]!.at);
    expect(gaps[0]!).toBeGreaterThanOrEqual(15);
    expect(gaps[2]!).toBeGreaterThanOrEqual(70);
    expect(Math.max(...gaps)).toBeLessThan(400);
    expect(gaps.slice(4).every((g) => g >= 140)).toBe(true);
    // Still serving throughout.
    expect((await get(agent.url, HOST)).status).toBe(200);
    expect(logs.text()).toContain('cannot get the bundle: serving the last one, retrying');

    control.next = { kind: 'changed', version: '5', bundle: bundleOf('5', [{ env: { KEY: 'new-secret-value' } }]).bundle };
    control.down = false;
    await until(() => agent.supervisor.appliedVersion() === '5');
    expect(readBundleFile(dir)?.version).toBe('5');
    expect(JSON.parse((await get(agent.url, HOST)).body)).toMatchObject({ version: '5' });
    await until(() => control.reports.some((r) => r.bundleVersion === '5'));
    expect(control.reports.at(-1)).toEqual({ bundleVersion: '5', projects: [{ org: 'acme', project: 'blog', usedBytes: 0, appliedVersion: '5', failure: null }] });
    // Long-polls with the new version from then on.
    await until(() => control.calls.at(-1)?.version === '5');
    expect(control.calls.at(-1)?.waitSeconds).toBe(30);
    expect(logs.text()).not.toMatch(/kept-secret-value|new-secret-value/);
  });

  it('at its first start on a node an earlier agent ran, keeps that agent\'s database for each project of the bundle it left, which may already name lifetimes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-agent-'));
    dirs.push(dir);
    const U1 = '1'.repeat(32);
    const U2 = '2'.repeat(32);
    // What an earlier agent left: the bundle of a control plane upgraded first (it keeps `uid`, a field it does not
    // know), and the database of that project where earlier agents kept it.
    writeBundleFile(dir, bundleOf('4', [{ database: true, uid: U1 }]));
    const named = join(dir, 'databases', 'acme', 'blog', 'blog.sqlite');
    mkdirSync(dirname(named), { recursive: true });
    writeFileSync(named, 'BLOG-DATA');
    const dbOf = (agent: RunningAgent): string => {
      const r = agent.supervisor.route(HOST);
      if (r.kind !== 'worker') throw new Error(`no worker: ${r.kind}`);
      r.release();
      return r.worker.spec.bindings.SERVICE_DB_PATH!;
    };
    const first = (await start(new FakeControlPlane(), dir)).agent;
    await until(() => first.supervisor.appliedVersion() === '4');
    expect(dbOf(first)).toBe(named);
    await first.stop();
    // Once only: a lifetime first seen later, in a bundle this agent wrote, gets a database of its own.
    writeBundleFile(dir, bundleOf('5', [{ database: true, uid: U2 }]));
    const second = (await start(new FakeControlPlane(), dir)).agent;
    await until(() => second.supervisor.appliedVersion() === '5');
    expect(dbOf(second)).toBe(join(dir, 'databases', 'acme', `blog.${U2}`, 'blog.sqlite'));
    expect(readFileSync(named, 'utf8')).toBe('BLOG-DATA');
  });

  it('ignores a bundle version below the one it applied (a deposed leader\'s or a stale replica\'s), and takes the next higher one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-agent-'));
    dirs.push(dir);
    writeBundleFile(dir, bundleOf('12', [{ env: { KEY: 'current' } }]));
    const control = new FakeControlPlane();
    control.down = false;
    const { agent, logs } = await start(control, dir);
    await until(() => agent.supervisor.appliedVersion() === '12');

    control.next = { kind: 'changed', version: '9', bundle: bundleOf('9', [{ env: { KEY: 'stale' } }]).bundle };
    const served = control.calls.length;
    // Asked again after the old answer: it had its chance to be applied.
    await until(() => control.next === null && control.calls.length >= served + 2);
    expect(agent.supervisor.appliedVersion()).toBe('12');
    expect(readBundleFile(dir)?.version).toBe('12');
    expect(control.calls.at(-1)?.version).toBe('12');
    expect(JSON.parse((await get(agent.url, HOST)).body)).toMatchObject({ version: '12' });
    expect(logs.text()).toContain('served an older bundle than the one applied');

    control.next = { kind: 'changed', version: '13', bundle: bundleOf('13', [{ env: { KEY: 'newer' } }]).bundle };
    await until(() => agent.supervisor.appliedVersion() === '13');
    expect(readBundleFile(dir)?.version).toBe('13');
  });

  it('starts with nothing to serve when there is no bundle yet: every host is unknown until the first arrives', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-agent-'));
    dirs.push(dir);
    const control = new FakeControlPlane();
    const { agent } = await start(control, dir);
    const r = await get(agent.url, HOST);
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'unknown_hostname' });
    await until(() => control.calls.length >= 2);
    expect(control.calls[0]!.version).toBeNull();
    expect(control.reports).toEqual([]);
  });
});
