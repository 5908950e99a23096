/** The edge port (issue 9 item 4): one contract, run against the fake and against the HTTP adapter over the sandbox
 * server; then the sandbox's faults (fail, hang, answer after the caller gave up) and certificate status. */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { httpEdge } from '../../../providers/edge/http';
import { EdgeError, type Edge } from '../../../providers/edge/port';
import { startEdgeSandbox, type EdgeSandbox } from '../../../providers/edge/sandbox';
import { FakeEdge } from '../../helpers/edge';

const sandboxes: EdgeSandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) await s.close();
});
const sandbox = async (certificateDelayMs = 0): Promise<EdgeSandbox> => {
  const s = await startEdgeSandbox({ certificateDelayMs });
  sandboxes.push(s);
  return s;
};

describe.each([
  ['FakeEdge', async (): Promise<Edge> => new FakeEdge()],
  ['httpEdge over the sandbox', async (): Promise<Edge> => httpEdge((await sandbox()).url)],
])('edge contract: %s', (_name, make) => {
  it('ensure is idempotent per ref: the same hostname again is the same edge hostname', async () => {
    const edge = await make();
    const a = await edge.ensure('www.customer.test', 'uid-1');
    const b = await edge.ensure('www.customer.test', 'uid-1');
    expect(b.id).toBe(a.id);
    expect(a).toMatchObject({ hostname: 'www.customer.test', ref: 'uid-1' });
  });

  it('ensure for another ref replaces a stale lifetime\'s hostname', async () => {
    const edge = await make();
    const old = await edge.ensure('www.customer.test', 'uid-old');
    const now = await edge.ensure('www.customer.test', 'uid-new');
    expect(now.id).not.toBe(old.id);
    expect(now.ref).toBe('uid-new');
  });

  it('remove takes only its own lifetime\'s hostname, and again is no error', async () => {
    const edge = await make();
    const kept = await edge.ensure('www.customer.test', 'uid-2');
    await edge.remove('www.customer.test', 'uid-1');
    expect((await edge.ensure('www.customer.test', 'uid-2')).id).toBe(kept.id);
    await edge.remove('www.customer.test', 'uid-2');
    await edge.remove('www.customer.test', 'uid-2');
  });
});

describe('the sandbox edge', () => {
  it('reports the certificate pending validation, then active', async () => {
    const s = await sandbox(300);
    const edge = httpEdge(s.url);
    expect((await edge.ensure('a.customer.test', 'r')).certificate).toBe('pending_validation');
    await sleep(350);
    expect((await edge.ensure('a.customer.test', 'r')).certificate).toBe('active');
  });

  it('fail: the call is an EdgeError naming the status, and nothing is created', async () => {
    const s = await sandbox();
    s.fault({ mode: 'fail', operations: ['create'] });
    await expect(httpEdge(s.url).ensure('b.customer.test', 'r')).rejects.toThrow(/answered 503 to the creation of b\.customer\.test/);
    expect(s.hostnames()).toEqual([]);
  });

  it('hang: the call gives up at its deadline with a message for people', async () => {
    const s = await sandbox();
    s.fault({ mode: 'hang' });
    const started = Date.now();
    const e = await httpEdge(s.url, { timeoutMs: 300 }).ensure('c.customer.test', 'r').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(EdgeError);
    expect((e as Error).message).toBe('the edge provider did not answer the lookup of c.customer.test within 0.3 s');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('late: the edge acted after the caller gave up; the retry finds it and creates nothing twice', async () => {
    const s = await sandbox();
    const edge = httpEdge(s.url, { timeoutMs: 300 });
    s.fault({ mode: 'late', operations: ['create'], delayMs: 5_000, times: 1 });
    await expect(edge.ensure('d.customer.test', 'r')).rejects.toThrow(/did not answer the creation/);
    expect(s.hostnames()).toHaveLength(1);
    const again = await edge.ensure('d.customer.test', 'r');
    expect(s.hostnames()).toEqual([expect.objectContaining({ id: again.id, hostname: 'd.customer.test', ref: 'r' })]);
    expect(s.calls.create).toBe(1);
  });

  it('faults are set and cleared over HTTP too', async () => {
    const s = await sandbox();
    const put = await fetch(`${s.url}/_sandbox/faults`, { method: 'PUT', body: JSON.stringify({ mode: 'fail' }) });
    expect(put.status).toBe(200);
    await expect(httpEdge(s.url).ensure('e.customer.test', 'r')).rejects.toThrow(EdgeError);
    await fetch(`${s.url}/_sandbox/faults`, { method: 'DELETE' });
    await expect(httpEdge(s.url).ensure('e.customer.test', 'r')).resolves.toMatchObject({ hostname: 'e.customer.test' });
  });

  it('an edge that is not there is an EdgeError, not a crash', async () => {
    const s = await sandbox();
    const { url } = s;
    await s.close();
    sandboxes.splice(sandboxes.indexOf(s), 1);
    await expect(httpEdge(url).remove('f.customer.test', 'r')).rejects.toThrow(/could not be reached/);
  });
});
