/**
 * A real `hostplane serve` under a descriptor limit of 1024 while 2,000 connections from 127.0.0.2 send their
 * headers slowly (slowloris): the connection caps, not the kernel, refuse them, so a client on 127.0.0.1 is
 * served, reconciles write their zone files and knotd serves the change, and nothing logs EMFILE. Also: the
 * metrics are on their own loopback listener, not on the public port.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionLimits, descriptorLimit } from '../../lib/http/http-server';
import { query } from '../../harness/dns';
import { freePort, hasKnot, knotTitle } from '../helpers/knot';
import { bootstrapWithCli, cleanup, http, startHostplane, tempDir, type Running } from '../helpers/proc';

const LIMIT = 1024;
const FLOOD = 2000;
const ATTACKER = '127.0.0.2';
/** The server runs with this descriptor limit (both soft and hard, so Node cannot raise it). */
const LOW_LIMIT = ['bash', '-c', `ulimit -n ${LIMIT} && exec "$@"`, '--'];
// The slow connections must stay open through every check, however loaded the machine: the default header
// timeout (10 s) is tested in test/lib/http/http-server.test.ts.
const HOLD = ['--headers-timeout-ms', '30000'];

// This process holds the 2,000 client sockets itself.
const canFlood = descriptorLimit() >= FLOOD + 500;
function floodTitle(title: string): string {
  if (canFlood) return title;
  process.stderr.write(`SKIPPED "${title}": this process may open ${descriptorLimit()} descriptors, the flood needs ${FLOOD + 500}\n`);
  return `${title} (skipped: descriptor limit too low for the client side)`;
}

interface Flood {
  /** Connections the server still holds open. */
  held(): number;
  /** What each connection the server closed received. */
  answers(): string[];
  end(): void;
}

/** Opens `count` connections from `localAddress`, each sending a partial request header, then a header line a
 * second, never finishing. */
async function flood(url: string, count: number, localAddress: string): Promise<Flood> {
  const port = Number(new URL(url).port);
  const sockets: Socket[] = [];
  const received = new Map<Socket, string>();
  for (let i = 0; i < count; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, count - i) }, () => new Promise<void>((resolve) => {
      const s = connect({ host: '127.0.0.1', port, localAddress });
      sockets.push(s);
      received.set(s, '');
      s.setEncoding('utf8');
      s.on('data', (c: string) => received.set(s, received.get(s) + c));
      s.on('error', () => undefined);
      s.once('close', () => resolve());
      s.once('connect', () => {
        s.write('GET /healthz HTTP/1.1\r\nHost: flood\r\n');
        resolve();
      });
    })));
  }
  const trickle = setInterval(() => {
    for (const s of sockets) if (s.writable) s.write('X-Slow: 1\r\n');
  }, 1000);
  return {
    held: () => sockets.filter((s) => !s.destroyed).length,
    answers: () => sockets.filter((s) => s.destroyed).map((s) => received.get(s)!),
    end: () => {
      clearInterval(trickle);
      for (const s of sockets) s.destroy();
    },
  };
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function eventually<T>(fn: () => Promise<T>, check: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last = await fn().catch(() => undefined);
  while (last === undefined || !check(last)) {
    if (Date.now() > deadline) throw new Error(`not converged within ${ms} ms: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await fn().catch(() => undefined);
  }
  return last;
}

/** Refused connections got the 503 `overloaded` answer, or (when many were refused at once and the oldest were
 * closed early) nothing at all: never anything else. */
function expectRefusedAsOverloaded(answers: string[]): void {
  expect(answers.length).toBeGreaterThan(0);
  for (const a of answers) if (a) expect(a).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
  const full = answers.find((a) => a.includes('\r\n\r\n'))!;
  expect(full).toMatch(/\r\nRetry-After: \d+\r\n/);
  expect(full).toMatch(/\r\nX-Request-Id: [0-9a-f-]{36}\r\n/);
  expect(JSON.parse(full.slice(full.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'overloaded' });
}

function descriptorsOf(serve: Running): { limit: number; open: number } {
  const limits = readFileSync(`/proc/${serve.proc.pid}/limits`, 'utf8');
  return { limit: Number(/^Max open files\s+(\d+)/m.exec(limits)?.[1]), open: readdirSync(`/proc/${serve.proc.pid}/fd`).length };
}

const expectNoEmfile = (serve: Running): void => {
  expect(serve.stderr()).not.toMatch(/EMFILE|ENFILE/);
  expect(serve.proc.exitCode).toBeNull();
};

describe.skipIf(!canFlood)(floodTitle('hostplane serve with 1024 descriptors and 2,000 slow connections from one address'), () => {
  let serve: Running;
  let token: string;
  beforeAll(async () => {
    const dir = tempDir();
    token = await bootstrapWithCli(dir);
    serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns', 'off', ...HOLD], { prefix: LOW_LIMIT });
    expect(descriptorsOf(serve).limit).toBe(LIMIT);
  });
  afterAll(cleanup);

  it('serves /metrics on its own loopback listener only', async () => {
    expect((await http(serve.url, 'GET', '/v1/orgs/acme/projects', { token })).status).toBe(200);
    expect(serve.metrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const r = await fetch(serve.metrics!);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await r.text();
    expect(text).toContain('# TYPE hostplane_http_request_duration_seconds histogram');
    expect(text).toMatch(/^hostplane_http_request_duration_seconds_bucket\{[^}]*operation="listProjects"[^}]*\} \d+$/m);
    const api = await http(serve.url, 'GET', '/metrics');
    expect(api.status).toBe(404);
    expect(api.body.code).toBe('not_found');
    const other = await http(new URL(serve.metrics!).origin, 'GET', '/v1/orgs/acme/projects', { token });
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ code: 'not_found', requestId: other.headers.get('x-request-id') });
  });

  it('holds only its waiting cap of the flood, refuses the rest with 503, and serves 127.0.0.1 meanwhile', async () => {
    const cap = connectionLimits(LIMIT).maxWaitingConnectionsPerAddress;
    const f = await flood(serve.url, FLOOD, ATTACKER);
    try {
      await until(() => f.held() <= cap, 10_000, 'refused connections closed');
      expect(f.held()).toBe(cap);
      expectRefusedAsOverloaded(f.answers());

      expect((await http(serve.url, 'GET', '/healthz')).status).toBe(200);
      const created = await http(serve.url, 'POST', '/v1/orgs/acme/projects', { token, body: { name: 'during-flood' } });
      expect(created.status, created.text).toBe(201);
      expect(f.held()).toBe(cap);
      expect(descriptorsOf(serve).open).toBeLessThan(LIMIT / 2);
      expectNoEmfile(serve);
    } finally {
      f.end();
    }
  });
});

describe.skipIf(!canFlood || !hasKnot())(knotTitle(floodTitle('DNS changes reach knotd during a flood, with 1024 descriptors')), () => {
  let token: string;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    token = await bootstrapWithCli(dir);
  });
  afterAll(cleanup);

  const startServe = async (...args: string[]): Promise<{ serve: Running; dns: { host: string; port: number } }> => {
    const dns = { host: '127.0.0.1', port: await freePort() };
    const serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns-listen', `127.0.0.1:${dns.port}`, ...HOLD, ...args], { prefix: LOW_LIMIT });
    expect(descriptorsOf(serve).limit).toBe(LIMIT);
    return { serve, dns };
  };

  const served = (dns: { host: string; port: number }, name: string, address: string) => eventually(
    () => query(dns, name, 'A'),
    (r) => (r.answers ?? []).some((a) => a.type === 'A' && (a as { data: unknown }).data === address),
  );

  it('with the default caps: createZone and putRRset from 127.0.0.1 are answered by knotd', async () => {
    const { serve, dns } = await startServe();
    const f = await flood(serve.url, FLOOD, ATTACKER);
    try {
      await until(() => f.held() <= connectionLimits(LIMIT).maxWaitingConnectionsPerAddress, 10_000, 'refused connections closed');
      expect((await http(serve.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: 'flood.example' } })).status).toBe(200);
      const put = await http(serve.url, 'PUT', '/v1/orgs/acme/dns/zones/flood.example/rrsets/www.flood.example/A', {
        token, body: { records: [{ content: '192.0.2.1' }], ttl: 300 },
      });
      expect(put.status, put.text).toBe(200);
      await served(dns, 'www.flood.example', '192.0.2.1');
      expectNoEmfile(serve);
    } finally {
      f.end();
      await serve.stop();
    }
  });

  it('with the flood filling every connection the caps allow: a new client takes a waiting one\'s place, and the reserve keeps reconciles and knotd working', async () => {
    const { serve, dns } = await startServe('--max-waiting-connections-per-address', '5000', '--max-connections-per-address', '5000');
    // One kept-alive connection from 127.0.0.1, opened before the flood takes every other one.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const call = (method: string, path: string, body?: unknown) => new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
      const req = request(serve.url + path, {
        method, agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      }, (res) => {
        res.resume().on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket }));
      });
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
    expect((await call('GET', '/healthz')).status).toBe(200);
    const f = await flood(serve.url, FLOOD, ATTACKER);
    try {
      const total = connectionLimits(LIMIT).maxConnections;
      await until(() => f.held() <= total - 1, 10_000, 'evicted connections closed');
      expect(f.held()).toBeGreaterThan(total - 20);
      // Past the total, each new flood connection took the place of the flood's longest-waiting one (closed
      // without an answer), and so does a new client from any address: it is served, not refused.
      expect(f.answers().filter((a) => a !== '')).toEqual([]);
      const fresh = await http(serve.url, 'GET', '/healthz');
      expect(fresh.status).toBe(200);

      const zone = await call('POST', '/v1/orgs/acme/dns/zones', { name: 'full.example' });
      expect(zone).toEqual({ status: 200, reused: true });
      expect((await call('PUT', '/v1/orgs/acme/dns/zones/full.example/rrsets/www.full.example/A', { records: [{ content: '192.0.2.2' }], ttl: 300 })).status).toBe(200);
      await served(dns, 'www.full.example', '192.0.2.2');
      expect(descriptorsOf(serve).open).toBeLessThan(LIMIT);
      expectNoEmfile(serve);
    } finally {
      f.end();
      agent.destroy();
      await serve.stop();
    }
  });
});
