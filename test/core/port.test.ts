/** The Core port over HTTP (issue 7 item 7): errors carried whole from the core to the API's caller, the route
 * table both sides read, transport failures as 503 `core_unavailable`, and request keys that keep a retried
 * call from acting twice. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createTcpServer, connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app';
import { coreUnavailable, httpCore } from '../../core/client';
import type { Core, DnsInfo } from '../../core/port';
import { CORE_ROUTES, REQUEST_KEY_HEADER } from '../../core/routes';
import { failedAuthLimit } from '../../api/limits';
import { coreListener, coreServer, ReplayCache, type CoreServerOptions, type Replay } from '../../core/server';
import { AppError } from '../../lib/errors';
import { createLogger } from '../../lib/log';
import { DEFAULT_PLANS } from '../../rules/plans';
import { createOrg, createUser, issueToken, setMembership } from '../../store/accounts';
import { type Store } from '../../store/db';
import { openTestStore } from '../helpers/store';

const TOKEN = 'core-token-of-the-port-test';
const DNS: DnsInfo = { configured: true, nameservers: ['ns1.port.test', 'ns2.port.test'] };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function listen(handler: RequestListener | Server): Promise<string> {
  const server = typeof handler === 'function' ? createServer(handler) : handler;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A core whose methods the test replaces; `calls` counts how often each acted. */
function fakeCore(over: Partial<Core> = {}): Core & { calls: Record<string, number>; nudges: string[] } {
  const calls: Record<string, number> = {};
  const nudges: string[] = [];
  const count = (m: string): number => (calls[m] = (calls[m] ?? 0) + 1);
  return {
    calls,
    nudges,
    seal: async (context, plaintext) => `sealed:${context}:${plaintext}:${count('seal')}`,
    dns: async () => {
      count('dns');
      return DNS;
    },
    nudge: (kind, key) => {
      count('nudge');
      nudges.push(`${kind}/${key}`);
    },
    verifyHostname: async () => {
      count('verifyHostname');
    },
    openBundle: async (nodeId, sealed) => {
      count('openBundle');
      return `opened:${nodeId}:${sealed}`;
    },
    domain: async () => {
      count('domain');
      throw new AppError(503, 'registrar_not_configured', 'no registrar in this test');
    },
    ...over,
  };
}

async function served(core: Core, opts: CoreServerOptions = {}): Promise<string> {
  return listen(coreServer(core, TOKEN, opts));
}

const refusal = (code: string, status = 503) => expect.objectContaining({ status, code });

/** A raw core call, as the client makes it, with the key given. */
function raw(url: string, method: string, body: unknown, key: string, token = TOKEN): Promise<Response> {
  return fetch(`${url}/internal/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', [REQUEST_KEY_HEADER]: key },
    body: JSON.stringify(body),
  });
}

describe('errors cross the port whole', () => {
  it.each([
    [402, 'payment_required', { amountCents: 1200, currency: 'USD' }],
    [409, 'quota_exceeded', { quota: 'zones', limit: 50, count: 50, plan: 'free' }],
    [502, 'registrar_failed', undefined],
    [404, 'not_found', undefined],
  ])('an AppError %i %s thrown in the core is thrown by the client with the same status, code, message and details', async (status, code, details) => {
    const url = await served(fakeCore({ seal: async () => { throw new AppError(status, code, `the core says ${code}`, details); } }));
    const e = await httpCore(url, TOKEN).seal('a/b/C', 'x').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect({ ...(e as AppError), message: (e as AppError).message }).toEqual({ name: 'AppError', status, code, message: `the core says ${code}`, details });
  });

  it('an unexpected error in the core is 500 internal, without its message; the core logs it', async () => {
    const lines: string[] = [];
    const log = createLogger({ destination: new Writable({ write(c, _e, cb) { lines.push(String(c)); cb(); } }) });
    const url = await served(fakeCore({ dns: async () => { throw new Error('cannot read /var/lib/hostplane/secret-path'); } }), { log });
    const e = (await httpCore(url, TOKEN).dns().catch((x: unknown) => x)) as AppError;
    expect(e).toBeInstanceOf(AppError);
    expect([e.status, e.code, e.message]).toEqual([500, 'internal', 'internal error']);
    expect(JSON.stringify(e)).not.toContain('secret-path');
    expect(lines.join('')).toContain('secret-path');
  });
});

describe('through the API: the caller gets what the core threw, in-process or behind `hostplane core`', () => {
  let dir: string;
  let store: Store;
  let userToken: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hostplane-port-'));
    store = await openTestStore(dir);
    await createOrg(store, 'acme', 'free');
    await createUser(store, 'owner@acme.test');
    await setMembership(store, 'acme', 'owner@acme.test', 'admin');
    userToken = await issueToken(store, 'owner@acme.test');
  });
  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function api(core: Core): Promise<string> {
    const app = createApp({ store, core, config: { appDomain: 'port.test', plans: DEFAULT_PLANS, serviceDomains: [] } }, createLogger({ level: 'silent' }));
    return listen(app.handler);
  }
  async function setSecret(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const call = (method: string, path: string, body: unknown) => fetch(url + path, {
      method, headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    await call('POST', '/v1/orgs/acme/projects', { name: 'blog' });
    const r = await call('PUT', '/v1/orgs/acme/projects/blog/secrets/API_KEY', { value: 'v' });
    const { requestId, ...body } = (await r.json()) as Record<string, unknown>;
    expect(requestId).toEqual(expect.any(String));
    return { status: r.status, body };
  }

  it('402 with its details, the same from both', async () => {
    const failing = fakeCore({ seal: async () => { throw new AppError(402, 'payment_required', 'pay first', { amountCents: 500 }); } });
    const expected = { status: 402, body: { code: 'payment_required', message: 'pay first', details: { amountCents: 500 } } };
    expect(await setSecret(await api(failing))).toEqual(expected);
    expect(await setSecret(await api(httpCore(await served(failing), TOKEN)))).toEqual(expected);
  });

  it('an unexpected error is 500 internal from both, its message in neither', async () => {
    const failing = fakeCore({ seal: async () => { throw new TypeError('key file /data/sealing-keys.json unreadable'); } });
    const expected = { status: 500, body: { code: 'internal', message: 'internal error' } };
    expect(await setSecret(await api(failing))).toEqual(expected);
    expect(await setSecret(await api(httpCore(await served(failing), TOKEN)))).toEqual(expected);
  });

  it('a core that does not answer is 503 core_unavailable', async () => {
    const url = await listen(() => undefined);
    const r = await setSecret(await api(httpCore(url, TOKEN, { timeoutMs: 200 })));
    expect(r).toEqual({ status: 503, body: { code: 'core_unavailable', message: expect.any(String) } });
  });

  it('core_unavailable carries Retry-After to the caller: the core\'s own (a follower whose leader is away) over HTTP too', async () => {
    const away = fakeCore({ seal: async () => { throw coreUnavailable('no process leads at the moment; retry'); } });
    const silent = await listen(() => undefined);
    await fetch(`${await api(away)}/v1/orgs/acme/projects`, {
      method: 'POST', headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'blog' }),
    });
    for (const core of [away, httpCore(await served(away), TOKEN), httpCore(silent, TOKEN, { timeoutMs: 200 })]) {
      const r = await fetch(`${await api(core)}/v1/orgs/acme/projects/blog/secrets/API_KEY`, {
        method: 'PUT', headers: { authorization: `Bearer ${userToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ value: 'v' }),
      });
      expect([r.status, ((await r.json()) as { code: string }).code, r.headers.get('retry-after')]).toEqual([503, 'core_unavailable', '1']);
    }
  });
});

describe('transport failures stay 503 core_unavailable', () => {
  it('connection refused', async () => {
    const url = await listen(() => undefined);
    await closers.pop()!();
    await expect(httpCore(url, TOKEN).dns()).rejects.toEqual(refusal('core_unavailable'));
  });

  it('no answer within the timeout, after one retry with the same request key', async () => {
    const keys: (string | undefined)[] = [];
    const url = await listen((req) => { keys.push(req.headers[REQUEST_KEY_HEADER] as string | undefined); });
    const started = Date.now();
    await expect(httpCore(url, TOKEN, { timeoutMs: 200 }).seal('a/b/C', 'x')).rejects.toEqual(refusal('core_unavailable'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
  });

  it.each([
    ['a 200 that is not JSON', 200, 'text/plain', 'hello', {}],
    ['a 502 page of a proxy', 502, 'text/html', '<html>bad gateway</html>', {}],
    ['an error body without the core\'s mark', 409, 'application/json', JSON.stringify({ status: 409, code: 'x', message: 'y' }), {}],
    ['a marked error that is not an error body', 409, 'application/json', JSON.stringify({ nope: true }), { 'x-core-error': 'operation' }],
    ['a 200 whose result is not of the call\'s shape', 200, 'application/json', JSON.stringify({ result: 42 }), {}],
  ])('%s', async (_what, status, type, text, headers) => {
    const url = await listen((_req, res) => { res.writeHead(status, { 'content-type': type, ...headers }).end(text); });
    await expect(httpCore(url, TOKEN).seal('a/b/C', 'x')).rejects.toEqual(refusal('core_unavailable'));
  });

  it('a wrong core token: the core refuses the call, the API cannot use it', async () => {
    const core = fakeCore();
    const url = await served(core);
    await expect(httpCore(url, 'not-the-token').seal('a/b/C', 'x')).rejects.toEqual(refusal('core_unavailable'));
    expect(core.calls.seal).toBeUndefined();
  });

  it('a nudge never throws, even with no core to take it', async () => {
    const url = await listen(() => undefined);
    await closers.pop()!();
    expect(() => httpCore(url, TOKEN).nudge('zone', 'example.com')).not.toThrow();
    await sleep(50);
  });
});

describe('one route table for server and client', () => {
  it('every method of the port is a route, and each answers over HTTP what the core answers', async () => {
    const core = fakeCore();
    const client = httpCore(await served(core), TOKEN);
    expect(Object.keys(CORE_ROUTES).sort()).toEqual(['dns', 'domain', 'nudge', 'openBundle', 'seal', 'verifyHostname']);
    for (const m of Object.keys(CORE_ROUTES)) expect(typeof client[m as keyof Core]).toBe('function');
    expect(await client.seal('acme/blog/API_KEY', 'plain')).toBe('sealed:acme/blog/API_KEY:plain:1');
    expect(await client.dns()).toEqual(DNS);
    expect(await client.openBundle('node-1', 'v1.k1.sealed')).toBe('opened:node-1:v1.k1.sealed');
    // A domain operation's typed error (402, 409, 502 ...) crosses whole, as the others' do.
    await expect(client.domain('check', { names: ['a.com'] })).rejects.toMatchObject({ status: 503, code: 'registrar_not_configured' });
    const answering = httpCore(await served(fakeCore({ domain: (async (op: string, input: unknown) => ({ op, input })) as Core['domain'] })), TOKEN);
    expect(await answering.domain('sync', { orgId: 1, name: 'a.com' })).toEqual({ op: 'sync', input: { orgId: 1, name: 'a.com' } });
    client.nudge('zone', 'example.com');
    await expect.poll(() => core.nudges).toEqual(['zone/example.com']);
  });

  it('the server refuses calls it cannot take, marked as the call\'s and not the operation\'s', async () => {
    const core = fakeCore();
    const url = await served(core);
    const key = 'key-of-the-refusal-test-0001';
    const cases: [Promise<Response>, number, string][] = [
      [raw(url, 'seal', { context: 'a', plaintext: 'x' }, key, 'wrong'), 401, 'unauthorized'],
      [raw(url, 'toString', {}, key), 404, 'not_found'],
      [raw(url, 'open', {}, key), 404, 'not_found'],
      [fetch(`${url}/internal/dns`, { headers: { authorization: `Bearer ${TOKEN}`, [REQUEST_KEY_HEADER]: key } }), 404, 'not_found'],
      [fetch(`${url}/internal/dns`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: '{}' }), 400, 'bad_request'],
      [raw(url, 'seal', { context: '', plaintext: 'x' }, key), 400, 'bad_request'],
      [raw(url, 'nudge', { kind: 'planet', key: 'x' }, key), 400, 'bad_request'],
    ];
    for (const [call, status, code] of cases) {
      const r = await call;
      expect([r.status, r.headers.get('x-core-error')]).toEqual([status, 'call']);
      expect(await r.json()).toMatchObject({ status, code, message: expect.any(String) });
    }
    expect(core.calls).toEqual({});
  });
});

/** A TCP proxy that passes the first connection's call to `target` and drops its answer (the core has acted by
 * then), closing the connection instead; later connections pass both ways. */
async function losingFirstAnswer(target: string): Promise<string> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const proxy = createTcpServer((client) => {
    const first = sockets.size === 0;
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    if (first) upstream.once('data', () => client.destroy());
    else upstream.pipe(client);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => {
    proxy.close(() => r());
    for (const s of sockets) s.destroy();
  }));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

describe('request keys: a retried call never acts twice', () => {
  it('the first answer is lost after the core acted: the retry gets that answer, and the core acted once', async () => {
    const core = fakeCore();
    const url = await losingFirstAnswer(await served(core));
    expect(await httpCore(url, TOKEN).seal('acme/blog/API_KEY', 'v')).toBe('sealed:acme/blog/API_KEY:v:1');
    expect(core.calls.seal).toBe(1);
  });

  it('the call outlasts the client\'s timeout: the retry waits for the running call instead of starting another', async () => {
    const core = fakeCore();
    let running = 0;
    core.seal = async (context, plaintext) => {
      running += 1;
      await sleep(750);
      return `sealed:${context}:${plaintext}:${running}`;
    };
    const client = httpCore(await served(core), TOKEN, { timeoutMs: 500 });
    expect(await client.seal('a/b/C', 'slow')).toBe('sealed:a/b/C:slow:1');
    expect(running).toBe(1);
  });

  it('each logical call has its own key: two calls with the same arguments both act', async () => {
    const core = fakeCore();
    const client = httpCore(await served(core), TOKEN);
    await client.seal('a/b/C', 'x');
    await client.seal('a/b/C', 'x');
    expect(core.calls.seal).toBe(2);
  });

  it('a repeated key is answered again, operation errors included; a 5xx is not kept', async () => {
    let outcome: 'ok' | 'conflict' | 'crash' = 'ok';
    const core = fakeCore();
    const seal = core.seal;
    core.seal = async (c, p) => {
      if (outcome === 'conflict') throw new AppError(409, 'taken', 'already there', { n: core.calls.seal });
      if (outcome === 'crash') throw new Error('boom');
      return seal(c, p);
    };
    const url = await served(core);
    const body = { context: 'a/b/C', plaintext: 'x' };
    const twice = async (key: string) => {
      const answers = [];
      for (let i = 0; i < 2; i += 1) {
        const r = await raw(url, 'seal', body, key);
        answers.push({ status: r.status, source: r.headers.get('x-core-error'), body: await r.json() });
      }
      return answers;
    };
    const [a, b] = await twice('key-of-a-successful-call-01');
    expect(a).toEqual({ status: 200, source: null, body: { result: 'sealed:a/b/C:x:1' } });
    expect(b).toEqual(a);
    outcome = 'conflict';
    const [c, d] = await twice('key-of-a-refused-call-00001');
    expect(c).toEqual({ status: 409, source: 'operation', body: { status: 409, code: 'taken', message: 'already there', details: { n: 1 } } });
    expect(d).toEqual(c);
    outcome = 'crash';
    const [e, f] = await twice('key-of-a-crashing-call-0001');
    expect([e!.status, f!.status]).toEqual([500, 500]);
    let crashes = 0;
    core.seal = async () => {
      crashes += 1;
      throw new Error('boom');
    };
    await twice('key-of-a-crashing-call-0002');
    expect(crashes).toBe(2);
  });

  it('a key used again for another call is refused, and nothing acts', async () => {
    const core = fakeCore();
    const url = await served(core);
    expect((await raw(url, 'seal', { context: 'a/b/C', plaintext: 'x' }, 'key-used-twice-00000001')).status).toBe(200);
    for (const [method, body] of [['seal', { context: 'a/b/C', plaintext: 'y' }], ['dns', {}]] as const) {
      const r = await raw(url, method, body, 'key-used-twice-00000001');
      expect([r.status, r.headers.get('x-core-error')]).toEqual([422, 'call']);
      expect(await r.json()).toMatchObject({ code: 'request_key_reused' });
    }
    expect(core.calls).toEqual({ seal: 1 });
  });

  it('the server forgets a key after its time, and holds at most its bound of keys', async () => {
    let now = 0;
    const replays = new ReplayCache<Replay>({ max: 3, ttlMs: 1000, now: () => now });
    const core = fakeCore();
    const url = await served(core, { replays });
    const call = async (key: string) => (await raw(url, 'seal', { context: 'a/b/C', plaintext: 'x' }, key)).json();
    const first = await call('key-that-expires-00000001');
    now = 999;
    expect(await call('key-that-expires-00000001')).toEqual(first);
    now = 1000;
    expect(await call('key-that-expires-00000001')).not.toEqual(first);
    expect(core.calls.seal).toBe(2);
    for (const k of ['key-bound-0000000000001', 'key-bound-0000000000002', 'key-bound-0000000000003']) await call(k);
    expect(replays.get('key-that-expires-00000001')).toBeUndefined();
    expect(replays.get('key-bound-0000000000001')).toBeDefined();
  });
});

describe('several callers, each by its token (coreListener: `core` answers its api and its replicas)', () => {
  it('a call runs on the Core of the token it carries; a key sent again under the other token is another call, refused', async () => {
    const api = fakeCore();
    const replicas = fakeCore();
    const url = await listen(coreListener([{ token: TOKEN, core: api }, { token: 'replica-token-of-the-port-test', core: replicas }]));
    await httpCore(url, TOKEN).dns();
    await httpCore(url, 'replica-token-of-the-port-test').dns();
    await httpCore(url, 'replica-token-of-the-port-test').dns();
    expect([api.calls.dns, replicas.calls.dns]).toEqual([1, 2]);
    expect((await raw(url, 'dns', {}, 'key-of-the-grant-test-1')).status).toBe(200);
    const again = await raw(url, 'dns', {}, 'key-of-the-grant-test-1', 'replica-token-of-the-port-test');
    expect([again.status, ((await again.json()) as { code: string }).code]).toEqual([422, 'request_key_reused']);
    expect((await raw(url, 'dns', {}, 'key-of-the-grant-test-2', 'a-token-of-neither')).status).toBe(401);
    expect([api.calls.dns, replicas.calls.dns]).toEqual([2, 2]);
  });
});

describe('failed authentications on the wire (api/limits.ts failedAuthLimit, as the API counts them)', () => {
  it('counts a missing or wrong token against the address: 401 until the limit, then 429 with Retry-After; a good token is never refused', async () => {
    const core = fakeCore();
    const url = await served(core, { authFailed: failedAuthLimit({ limit: 3, windowSeconds: 60 }) });
    const statuses: number[] = [];
    for (const [i, token] of ['wrong-1', '', 'wrong-2'].entries()) statuses.push((await raw(url, 'dns', {}, `key-of-the-limit-test-${i}`, token)).status);
    expect(statuses).toEqual([401, 401, 401]);
    const limited = await raw(url, 'dns', {}, 'key-of-the-limit-test-3', 'wrong-3');
    expect([limited.status, ((await limited.json()) as { code: string }).code]).toEqual([429, 'rate_limited']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await raw(url, 'dns', {}, 'key-of-the-limit-test-4')).status).toBe(200);
    expect(core.calls.dns).toBe(1);
  });
});
