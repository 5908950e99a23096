/**
 * Custom hostnames end to end (issue 9): a real `serve` with its resolver pointed at a DNS server this test runs on
 * loopback and its edge at a sandbox this test controls. The minute loop (shortened) activates a name with no
 * verify call; an edge outage during activation and during delete converges once the edge is back; `admin status`
 * lists hostnames with their conditions and the finalizers not done.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeSandbox, type EdgeSandbox } from '../../providers/edge/sandbox';
import { adminJson, bootstrapWithCli, cleanup, http, startHostplane, tempDir, type Running } from '../helpers/proc';
import { startStubResolver, type StubResolver } from '../helpers/stub-resolver';

const HOSTS = '/v1/orgs/acme/projects/blog/hostnames';
let stub: StubResolver;
let edge: EdgeSandbox;
let serve: Running;
let token: string;
let dir: string;

beforeAll(async () => {
  stub = await startStubResolver();
  edge = await startEdgeSandbox({ certificateDelayMs: 0 });
  dir = tempDir();
  token = await bootstrapWithCli(dir);
  serve = await startHostplane([
    'serve', '--port', '0', '--data', dir, '--dns', 'off', '--resolver', stub.address, '--edge-url', edge.url,
    '--verify-interval-ms', '300', '--fallback-origin', 'edge.hostplane.test',
  ]);
  expect((await http(serve.url, 'POST', '/v1/orgs/acme/projects', { token, body: { name: 'blog' } })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await cleanup();
  await edge.close();
  await stub.close();
});

/** Polls listHostnames until `done` holds for the named row. */
async function until(name: string, done: (h: any) => boolean, ms = 15_000): Promise<any> {
  const end = Date.now() + ms;
  let last: any;
  while (Date.now() < end) {
    const r = await http(serve.url, 'GET', HOSTS, { token });
    last = r.body.items?.find((h: { name: string }) => h.name === name);
    if (last && done(last)) return last;
    await sleep(100);
  }
  throw new Error(`${name} never got there; last seen ${JSON.stringify(last)}`);
}
const cond = (h: { conditions: { type: string }[] }, type: string) => h.conditions.find((c) => c.type === type) as any;

describe('serve with a sandbox edge and a loopback resolver', () => {
  it('the background loop activates a name with no verify call, through an edge outage during activation', async () => {
    const added = await http(serve.url, 'POST', HOSTS, { token, body: { name: 'www.shop.test' } });
    expect(added.status).toBe(200);
    const pending = await until('www.shop.test', (h) => h.lastError !== null);
    expect(pending.status).toBe('pending_dns');
    expect(pending.lastError).toMatch(/^no TXT record with the token '[0-9a-f]+' at _service-verify\.www\.shop\.test;/);
    edge.fault({ mode: 'fail', operations: ['create'] });
    stub.set('_service-verify.www.shop.test', 'TXT', [{ type: 'TXT', name: '_service-verify.www.shop.test', data: added.body.verify[0].value }]);
    const stuck = await until('www.shop.test', (h) => h.status === 'active' && cond(h, 'EdgeConfigured')?.status === 'False');
    expect(stuck.lastError).toMatch(/the edge provider answered 503 to the creation of www\.shop\.test/);
    expect(edge.hostnames()).toEqual([]);
    edge.fault(null);
    const ready = await until('www.shop.test', (h) => cond(h, 'Ready')?.status === 'True');
    expect(cond(ready, 'CertificateReady')).toMatchObject({ status: 'True', reason: 'Issued' });
    expect(edge.hostnames()).toEqual([expect.objectContaining({ hostname: 'www.shop.test' })]);
    const status = await adminJson<{ hostnames: { hostname: string; status: string; ready: boolean; conditions: unknown[] }[] }>(dir, 'status', '--json');
    expect(status.hostnames.find((h) => h.hostname === 'www.shop.test')).toMatchObject({ status: 'active', ready: true, conditions: expect.arrayContaining([expect.objectContaining({ type: 'Ready' })]) });
  }, 40_000);

  it('an edge outage during delete: the finalizer waits, and the edge hostname goes once the edge is back', async () => {
    const added = await http(serve.url, 'POST', HOSTS, { token, body: { name: 'old.shop.test' } });
    stub.set('old.shop.test', 'CNAME', [{ type: 'CNAME', name: 'old.shop.test', data: added.body.verify[1].value }]);
    await until('old.shop.test', (h) => cond(h, 'Ready')?.status === 'True');
    expect(added.body.status).toBe('pending_dns');
    edge.fault({ mode: 'hang' });
    expect((await http(serve.url, 'DELETE', `${HOSTS}/old.shop.test`, { token })).status).toBe(204);
    await sleep(1_000);
    const during = await adminJson<{ hostnameFinalizers: { name: string }[] }>(dir, 'status', '--json');
    expect(during.hostnameFinalizers.map((f) => f.name)).toEqual(['old.shop.test']);
    expect(edge.hostnames().map((h) => h.hostname)).toContain('old.shop.test');
    edge.fault(null);
    const end = Date.now() + 30_000;
    while (edge.hostnames().some((h) => h.hostname === 'old.shop.test') && Date.now() < end) await sleep(100);
    expect(edge.hostnames().map((h) => h.hostname)).not.toContain('old.shop.test');
    const after = await adminJson<{ hostnameFinalizers: unknown[] }>(dir, 'status', '--json');
    expect(after.hostnameFinalizers).toEqual([]);
  }, 60_000);
});
