/**
 * Provider calls across a failover (issue 23 item 2 and its faults; CONTRACT.md "Several machines": the leader alone
 * runs every call to a provider). Two `serve` processes on one PostgreSQL share one sandbox registrar, payment
 * provider and edge, run in this test so that their counts are the installation's. Each process reaches them
 * through a counting proxy of its own, so the test knows which process made a call and when it arrived.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';
import { startEdgeSandbox, type EdgeSandbox } from '../../providers/edge/sandbox';
import { startPaymentSandbox, type PaymentSandbox } from '../../providers/payment/sandbox';
import { startRegistrarSandbox, type RegistrarSandbox } from '../../providers/registrar/sandbox';
import { countingProxy, type Arrival, type CountingProxy } from '../helpers/counting-proxy';
import { purchaseBody } from '../helpers/domains';
import { cleanup, http, runHostplane, startHostplane, tempDir, until, type Running } from '../helpers/proc';
import { startStubResolver, type StubResolver } from '../helpers/stub-resolver';

const skipped = process.env.HOSTPLANE_TEST_STORE === 'postgres'
  ? postgresMissing()
  : 'two replicas need PostgreSQL: this file runs in the PostgreSQL pass (HOSTPLANE_TEST_STORE=postgres)';
const LEASE_MS = 15_000;
const HOSTS = '/v1/orgs/acme/projects/shop/hostnames';

describe.skipIf(skipped)(`provider calls of two serve processes on one PostgreSQL${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let cluster: Cluster;
  let database: string;
  let keyFile: string;
  let token: string;
  let registrar: RegistrarSandbox;
  let payments: PaymentSandbox;
  let edge: EdgeSandbox;
  let stub: StubResolver;
  const url = (): string => `postgres://hostplane@localhost/${database}?host=${encodeURIComponent(cluster.socketDir)}`;
  const admin = async (...args: string[]) => {
    const r = await runHostplane(['admin', '--data', tempDir('hostplane-providers-admin-'), '--database-url', url(), ...args]);
    if (r.code !== 0) throw new Error(`admin ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, string>;
  };

  beforeAll(async () => {
    cluster = await startCluster();
    database = new URL(await cluster.createDatabase()).pathname.slice(1);
    keyFile = join(tempDir('hostplane-providers-key-'), 'sealing.key');
    registrar = await startRegistrarSandbox();
    payments = await startPaymentSandbox();
    edge = await startEdgeSandbox({ certificateDelayMs: 0 });
    stub = await startStubResolver();
    await admin('init');
    await admin('org', 'create', 'acme');
    await admin('user', 'create', 'owner@acme.test');
    await admin('member', 'add', 'acme', 'owner@acme.test', 'admin');
    token = (await admin('token', 'create', 'owner@acme.test')).token!;
  }, 120_000);

  const started: Running[] = [];
  const proxies: CountingProxy[] = [];
  afterEach(async () => {
    registrar.fault(null);
    for (const r of started.splice(0)) {
      r.proc.kill('SIGCONT');
      await r.stop();
    }
    for (const p of proxies.splice(0)) await p.close();
  });
  afterAll(async () => {
    await cleanup();
    await Promise.all([registrar?.close(), payments?.close(), edge?.close(), stub?.close()]);
    await cluster?.destroy();
  });

  /** `serve` reaching the shared sandboxes through proxies of its own; answers it with its proxies' arrivals. */
  const serve = async (...extra: string[]) => {
    const [r, p, e] = await Promise.all([countingProxy(registrar.url), countingProxy(payments.url), countingProxy(edge.url)]);
    proxies.push(r, p, e);
    const running = await startHostplane([
      'serve', '--port', '0', '--data', tempDir('hostplane-providers-serve-'), '--database-url', url(), '--sealing-key', keyFile,
      '--dns-listen', '127.0.0.1:0', '--nameservers', 'ns1.hostplane.test,ns2.hostplane.test', '--resolver', stub.address,
      '--registrar-url', r.url, '--payment-url', p.url, '--edge-url', e.url, '--fallback-origin', 'edge.hostplane.test',
      '--verify-interval-ms', '300', '--purchase-abandon-after', '1s', ...extra,
    ], { timeoutMs: 60_000 });
    started.push(running);
    return { running, calls: (): Arrival[] => [...r.arrivals, ...p.arrivals, ...e.arrivals] };
  };
  const leads = async (r: Running): Promise<boolean> => {
    const text = await (await fetch(r.metrics!)).text();
    return text.split('\n').some((l) => l === 'hostplane_leader 1');
  };
  /** Two `serve`, the first of which leads: the second starts once it does, since a lease left by an earlier test's
   * process (one frozen, then stopped) may take its 15 s to pass. */
  const pair = async (...extra: string[]) => {
    const a = await serve(...extra);
    await until('the first process to lead', () => leads(a.running), LEASE_MS + 5_000, 50);
    return [a, await serve(...extra)] as const;
  };
  /** Sends the purchase of `name` through `through` and kills the leader `a` once the registrar has registered it and
   * holds its answer: the saga on `a` is between the registration and its record. Answers the purchase's answer. */
  const purchaseCutByDeath = async (a: Running, through: Running, name: string) => {
    registrar.fault({ mode: 'late', operations: ['register'], times: 1, delayMs: 120_000 });
    const pending = http(through.url, 'POST', '/v1/orgs/acme/domains', { token, body: purchaseBody(name) }).catch(() => null);
    await until('the registration at the registrar', () => registrar.domains().some((d) => d.name === name));
    expect(chargesOf(name)).toHaveLength(1);
    await a.stop('SIGKILL');
    return pending;
  };
  const domain = async (through: Running, name: string) => (await http(through.url, 'GET', `/v1/orgs/acme/domains/${name}`, { token })).body;
  const chargesOf = (name: string) => payments.charges().filter((c) => c.description.startsWith(`${name},`));
  /** Attaches `name` to the project and proves it by TXT: the leader's hostname loop then registers it at the edge. */
  const attach = async (through: Running, name: string): Promise<void> => {
    const added = await http(through.url, 'POST', HOSTS, { token, body: { name } });
    expect(added.status, added.text).toBe(200);
    stub.set(`_service-verify.${name}`, 'TXT', [{ type: 'TXT', name: `_service-verify.${name}`, data: added.body.verify[0].value }]);
    await until(`${name} at the edge`, () => edge.hostnames().some((h) => h.hostname === name), 30_000);
  };

  it('a purchase saga in flight when the leader is killed finishes exactly once: one registration, one charge', async () => {
    const [a, b] = await pair();
    const name = 'failover-purchase.com';
    const registrationsBefore = registrar.registrations;
    await purchaseCutByDeath(a.running, a.running, name);
    // b leads once a's lease passes, and its domain reconciler finishes the abandoned purchase.
    await until('b to lead', () => leads(b.running), LEASE_MS + 5_000, 50);
    await until('the purchase finished by the new leader', async () => (await domain(b.running, name))?.status === 'active', 30_000);
    const again = await http(b.running.url, 'POST', '/v1/orgs/acme/domains', { token, body: purchaseBody(name) });
    expect(again.status, again.text).toBe(200);
    expect(registrar.registrations - registrationsBefore).toBe(1);
    expect(registrar.domains().filter((d) => d.name === name)).toHaveLength(1);
    expect(chargesOf(name)).toEqual([expect.objectContaining({ refunded: false })]);
    expect(payments.refunds).toBe(0);
  }, 180_000);

  it('a leader frozen past its lease (SIGSTOP) makes no provider call once it wakes, while the new leader\'s purchase and edge calls are each made once', async () => {
    const [c, d] = await pair();
    expect((await http(d.running.url, 'POST', '/v1/orgs/acme/projects', { token, body: { name: 'shop' } })).status).toBe(201);
    // An active name is judged again every 300 ms: c's loop has a pass of it due whenever it wakes.
    await attach(d.running, 'www.shop.test');
    await until('c to judge the name again and again', () => c.calls().filter((x) => x.path === '/v1/custom_hostnames?hostname=www.shop.test').length >= 4);

    c.running.proc.kill('SIGSTOP');
    await until('d to lead while c is frozen', () => leads(d.running), LEASE_MS + 5_000, 50);
    const name = 'while-frozen.com';
    const bought = await http(d.running.url, 'POST', '/v1/orgs/acme/domains', { token, body: purchaseBody(name) });
    expect(bought.status, bought.text).toBe(201);
    await attach(d.running, 'api.shop.test');

    const wokeAt = Date.now();
    c.running.proc.kill('SIGCONT');
    await until('c to follow again', async () => !(await leads(c.running)) && (await fetch(c.running.metrics!)).ok, 10_000);
    // c's loop was due for both names many times over while frozen: give a pass that was to run time to.
    await until('d to judge the names again after c woke', () => d.calls().filter((x) => x.at > wokeAt + 2_000 && x.path.startsWith('/v1/custom_hostnames')).length >= 4, 20_000);
    expect(c.calls().filter((x) => x.at >= wokeAt)).toEqual([]);
    expect(await leads(d.running)).toBe(true);
    expect(registrar.domains().filter((x) => x.name === name)).toHaveLength(1);
    expect(chargesOf(name)).toHaveLength(1);
    expect(edge.hostnames().map((h) => h.hostname).sort()).toEqual(['api.shop.test', 'www.shop.test']);
  }, 180_000);

  it('a follower sends check, purchase, renew, lock, auth code, sync and verifyHostname to the leader: each answered, each provider call the leader\'s', async () => {
    const [a, b] = await pair();
    const name = 'through-follower.com';
    const D = '/v1/orgs/acme/domains';
    /** `method path` sent to the follower b: answered `status`, after the leader a called a provider for it. */
    const viaFollower = async (status: number, method: string, path: string, body?: unknown) => {
      const before = a.calls().length;
      const r = await http(b.running.url, method, path, { token, body });
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
      expect(a.calls().length, `${method} ${path} at the leader's providers`).toBeGreaterThan(before);
      return r.body;
    };
    expect(await viaFollower(200, 'POST', `${D}/check`, { names: [name] })).toMatchObject({ results: [{ name, available: true }] });
    expect(await viaFollower(201, 'POST', D, purchaseBody(name))).toMatchObject({ name, status: 'active' });
    const expiresAt = registrar.domains().find((d) => d.name === name)!.expiresAt;
    const charges = payments.charges().length;
    expect(new Date((await viaFollower(200, 'POST', `${D}/${name}/renew`, { years: 1 })).expiresAt).getTime()).toBeGreaterThan(Date.parse(expiresAt));
    expect(payments.charges().length - charges).toBe(1);
    expect(await viaFollower(200, 'POST', `${D}/${name}/lock`, { locked: false })).toMatchObject({ locked: false });
    expect(registrar.domains().find((d) => d.name === name)!.locked).toBe(false);
    expect(await viaFollower(200, 'POST', `${D}/${name}/auth-code`)).toMatchObject({ authCode: expect.any(String) });
    expect(await viaFollower(200, 'POST', `${D}/${name}/sync`)).toMatchObject({ name, locked: false });
    expect(registrar.domains().filter((d) => d.name === name)).toHaveLength(1);

    expect((await http(b.running.url, 'POST', '/v1/orgs/acme/projects', { token, body: { name: 'forwarded' } })).status).toBe(201);
    const host = 'www.forwarded.test';
    const added = await http(b.running.url, 'POST', '/v1/orgs/acme/projects/forwarded/hostnames', { token, body: { name: host } });
    expect(added.status, added.text).toBe(200);
    stub.set(`_service-verify.${host}`, 'TXT', [{ type: 'TXT', name: `_service-verify.${host}`, data: added.body.verify[0].value }]);
    const verified = await http(b.running.url, 'POST', `/v1/orgs/acme/projects/forwarded/hostnames/${host}/verify`, { token });
    expect([verified.status, verified.body.status], verified.text).toEqual([200, 'active']);
    await until(`${host} at the edge`, () => edge.hostnames().some((h) => h.hostname === host), 30_000);
    expect(b.calls()).toEqual([]);
  }, 180_000);

  it('with the leader frozen (SIGSTOP), the follower answers 503 core_unavailable with Retry-After within the request timeout, calling no provider', async () => {
    const [a, b] = await pair('--request-timeout-ms', '9000', '--headers-timeout-ms', '5000');
    a.running.proc.kill('SIGSTOP');
    const sentAt = Date.now();
    const r = await http(b.running.url, 'POST', '/v1/orgs/acme/domains/check', { token, body: { names: ['while-leader-frozen.com'] } });
    expect([r.status, r.body.code], r.text).toEqual([503, 'core_unavailable']);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(Date.now() - sentAt).toBeLessThan(9_000);
    expect(b.calls()).toEqual([]);
  }, 120_000);

  it('a purchase sent to a follower whose leader dies mid-saga, sent again through it once it leads: one registration, one charge', async () => {
    const [a, b] = await pair();
    const name = 'forwarded-failover.com';
    const registrationsBefore = registrar.registrations;
    const cut = await purchaseCutByDeath(a.running, b.running, name);
    expect([cut?.status, cut?.body.code], cut?.text).toEqual([503, 'core_unavailable']);
    expect(b.calls()).toEqual([]);
    await until('b to lead', () => leads(b.running), LEASE_MS + 5_000, 50);
    const again = await http(b.running.url, 'POST', '/v1/orgs/acme/domains', { token, body: purchaseBody(name) });
    expect([200, 201], again.text).toContain(again.status);
    await until('the purchase finished', async () => (await domain(b.running, name))?.status === 'active', 30_000);
    expect(registrar.registrations - registrationsBefore).toBe(1);
    expect(registrar.domains().filter((d) => d.name === name)).toHaveLength(1);
    expect(chargesOf(name)).toEqual([expect.objectContaining({ refunded: false })]);
  }, 180_000);
});
