/** lib/http/http-server.ts: the defaults derived from the descriptor limit, the flags that override them, and on an
 * in-process server each cap and timeout, the JSON answers to Node-level errors, and that a request being
 * answered (a long-poll) outlives every timeout. */
import { createServer, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { metricsListen, parse, serverHardening } from '../../../cli/options';
import {
  addressKey, connectionLimits, descriptorLimit, descriptorReserve, harden, parseDescriptorLimit, type HardeningOptions,
} from '../../../lib/http/http-server';

describe('defaults from the descriptor limit', () => {
  const limits = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

  it('reads the soft "Max open files" column', () => {
    expect(parseDescriptorLimit(limits)).toBe(1024);
    expect(parseDescriptorLimit(limits.replace('1024 ', 'unlimited'))).toBe(1_048_576);
    expect(parseDescriptorLimit('Max cpu time unlimited unlimited seconds\n')).toBeNull();
  });

  it("reads this process's limit", () => {
    expect(descriptorLimit()).toBe(parseDescriptorLimit(readFileSync('/proc/self/limits', 'utf8')));
  });

  it('keeps an eighth of the descriptors, at least 128 and at most 1024, out of the caps', () => {
    expect([256, 1024, 4096, 20_000, 1_048_576].map(descriptorReserve)).toEqual([128, 128, 512, 1024, 1024]);
  });

  it('derives the total, per-address and waiting-per-address caps', () => {
    expect(connectionLimits(1024)).toEqual({ maxConnections: 896, maxConnectionsPerAddress: 672, maxWaitingConnectionsPerAddress: 112 });
    expect(connectionLimits(20_000)).toEqual({ maxConnections: 18_976, maxConnectionsPerAddress: 14_232, maxWaitingConnectionsPerAddress: 1024 });
    expect(connectionLimits(256)).toEqual({ maxConnections: 128, maxConnectionsPerAddress: 96, maxWaitingConnectionsPerAddress: 16 });
    // Below the reserve one connection is still served.
    expect(connectionLimits(100)).toEqual({ maxConnections: 1, maxConnectionsPerAddress: 1, maxWaitingConnectionsPerAddress: 1 });
  });

  it('derives the per-address caps from a given total and keeps any given cap', () => {
    expect(connectionLimits(1024, { maxConnections: 100 })).toEqual({ maxConnections: 100, maxConnectionsPerAddress: 75, maxWaitingConnectionsPerAddress: 12 });
    expect(connectionLimits(1024, { maxWaitingConnectionsPerAddress: 5000 })).toMatchObject({ maxConnections: 896, maxWaitingConnectionsPerAddress: 5000 });
  });

  it('counts IPv4-mapped addresses as IPv4 and an IPv6 address by its /64', () => {
    expect(addressKey('::ffff:127.0.0.2')).toBe('127.0.0.2');
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:3::9')).toBe('2001:db8:1:3::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});

describe('flags', () => {
  const flags = (...argv: string[]) => parse(['serve', ...argv]).values;

  it('default to seconds-long timeouts and the derived caps', () => {
    expect(serverHardening(flags(), 1024)).toEqual({
      maxConnections: 896, maxConnectionsPerAddress: 672, maxWaitingConnectionsPerAddress: 112, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000,
    });
  });

  it('override the caps and timeouts', () => {
    const h = serverHardening(flags('--max-connections', '400', '--max-waiting-connections-per-address', '7', '--headers-timeout-ms', '2000', '--request-timeout-ms', '5000'), 1024);
    expect(h).toEqual({ maxConnections: 400, maxConnectionsPerAddress: 300, maxWaitingConnectionsPerAddress: 7, headersTimeoutMs: 2000, requestTimeoutMs: 5000 });
    expect(serverHardening(flags('--max-connections-per-address', '9'), 1024).maxConnectionsPerAddress).toBe(9);
  });

  it.each([
    ['--max-connections', '0'], ['--max-connections', '-5'], ['--max-connections', '1e3'], ['--max-connections', 'many'],
    ['--max-connections-per-address', '1.5'], ['--max-waiting-connections-per-address', ''], ['--headers-timeout-ms', '10s'],
    ['--request-timeout-ms', '0x10'],
  ])('refuse %s %j with the flag named', (name, value) => {
    expect(() => serverHardening(flags(`${name}=${value}`), 1024)).toThrow(new RegExp(`invalid ${name}`));
  });

  it('refuse a header timeout longer than the request timeout', () => {
    expect(() => serverHardening(flags('--headers-timeout-ms', '40000'), 1024)).toThrow(/--headers-timeout-ms 40000 exceeds --request-timeout-ms 30000/);
  });

  it('--metrics-listen takes HOST:PORT, [IPv6]:PORT or off', () => {
    expect(metricsListen(flags())).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(metricsListen(flags('--metrics-listen', '0.0.0.0:0'))).toEqual({ host: '0.0.0.0', port: 0 });
    expect(metricsListen(flags('--metrics-listen', '[::1]:9100'))).toEqual({ host: '::1', port: 9100 });
    expect(metricsListen(flags('--metrics-listen', 'off'))).toBeNull();
    for (const bad of ['9464', '127.0.0.1', '127.0.0.1:70000', '::1:9464', '127.0.0.1:x', '']) {
      expect(() => metricsListen(flags('--metrics-listen', bad)), bad).toThrow(/invalid --metrics-listen/);
    }
  });
});

// --- in-process servers -------------------------------------------------------------------------------------

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const BASE: HardeningOptions = {
  maxConnections: 100, maxConnectionsPerAddress: 100, maxWaitingConnectionsPerAddress: 100, headersTimeoutMs: 400, requestTimeoutMs: 800,
};

async function start(handler: RequestListener, opts: Partial<HardeningOptions> = {}): Promise<number> {
  const server = createServer(handler);
  harden(server, { ...BASE, ...opts });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

interface Reply { status: number; headers: Record<string, string>; body: string }

function parseReply(raw: string): Reply {
  const at = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = raw.slice(0, at).split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
  return { status: Number(statusLine.split(' ')[1]), headers, body: raw.slice(at + 4) };
}

/** A raw client connection: everything it received, and when the server closed it. */
interface Client {
  socket: Socket;
  received(): string;
  closed: Promise<number>;
  /** The next complete answer on this connection (keep-alive), by Content-Length. */
  next(): Promise<Reply>;
}

async function open(port: number, localAddress = '127.0.0.1'): Promise<Client> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  sockets.push(socket);
  const started = Date.now();
  let data = '';
  let consumed = 0;
  const waiters: (() => void)[] = [];
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => {
    data += c;
    for (const w of waiters.splice(0)) w();
  });
  socket.on('error', () => undefined);
  const closed = new Promise<number>((r) => socket.once('close', () => {
    for (const w of waiters.splice(0)) w();
    r(Date.now() - started);
  }));
  await new Promise<void>((r, j) => socket.once('connect', r).once('error', j));
  const next = async (): Promise<Reply> => {
    for (;;) {
      const rest = data.slice(consumed);
      const head = rest.indexOf('\r\n\r\n');
      if (head >= 0) {
        const length = Number(/content-length: *(\d+)/i.exec(rest.slice(0, head))?.[1] ?? 0);
        if (rest.length >= head + 4 + length) {
          consumed += head + 4 + length;
          return parseReply(rest.slice(0, head + 4 + length));
        }
      }
      if (socket.destroyed) throw new Error(`closed before a complete answer: ${JSON.stringify(rest)}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { socket, received: () => data, closed, next };
}

/** A connection that has been answered once and now waits, idle, as keep-alive. */
async function idle(port: number, localAddress?: string): Promise<Client> {
  const c = await open(port, localAddress);
  c.socket.write('GET / HTTP/1.1\r\nHost: t\r\n\r\n');
  expect((await c.next()).status).toBe(200);
  return c;
}

const ok: RequestListener = (_req, res) => { res.end('ok'); };

/** A handler whose answers wait for `release()`, like long-polls. */
function longPolls(): { handler: RequestListener; waiting: () => number; release: () => void } {
  const pending: (() => void)[] = [];
  return {
    handler: (_req, res) => { pending.push(() => res.end('polled')); },
    waiting: () => pending.length,
    release: () => { for (const p of pending.splice(0)) p(); },
  };
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function expectJsonError(r: Reply, status: number, code: string): void {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(r.headers.connection).toBe('close');
  const body = JSON.parse(r.body) as { code: string; message: string; requestId: string };
  expect(body.code).toBe(code);
  expect(body.message).toEqual(expect.any(String));
  expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(body.requestId).toBe(r.headers['x-request-id']);
}

async function expectOverloaded(c: Client): Promise<void> {
  await c.closed;
  const r = parseReply(c.received());
  expectJsonError(r, 503, 'overloaded');
  expect(r.headers['retry-after']).toMatch(/^\d+$/);
}

describe('connection caps', () => {
  it('with every connection answering, refuses more with 503 overloaded, and admits again once one closes', async () => {
    const polls = longPolls();
    const port = await start(polls.handler, { maxConnections: 3 });
    const held = await Promise.all(['127.0.0.1', '127.0.0.2', '127.0.0.3'].map(async (a) => {
      const c = await open(port, a);
      c.socket.write('GET /poll HTTP/1.1\r\nHost: t\r\n\r\n');
      return c;
    }));
    await until(() => polls.waiting() === 3);
    await expectOverloaded(await open(port, '127.0.0.4'));
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const admitted = await open(port, '127.0.0.4');
    admitted.socket.write('GET /poll HTTP/1.1\r\nHost: t\r\n\r\n');
    await until(() => polls.waiting() === 4);
    polls.release();
    expect((await admitted.next()).status).toBe(200);
  });

  it('with every connection taken, a new one takes the place of the longest waiting of the address that waits most', async () => {
    const port = await start(ok, { maxConnections: 4 });
    const flood = [await open(port, '127.0.0.2'), await open(port, '127.0.0.2'), await open(port, '127.0.0.2')];
    const other = await open(port, '127.0.0.3');
    const fresh = await idle(port, '127.0.0.1');
    await flood[0]!.closed;
    expect(flood[0]!.received()).toBe('');
    expect(flood[1]!.socket.destroyed || other.socket.destroyed).toBe(false);
    fresh.socket.destroy();
  });

  it('never hands a refused connection to the HTTP parser: a request it sent is not handled', async () => {
    const polls = longPolls();
    let handled = 0;
    const port = await start((req, res) => { handled++; polls.handler(req, res); }, { maxConnections: 1 });
    const busy = await open(port);
    busy.socket.write('GET /poll HTTP/1.1\r\nHost: t\r\n\r\n');
    await until(() => polls.waiting() === 1);
    const refused = await open(port, '127.0.0.2');
    refused.socket.write('POST /create HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n');
    await expectOverloaded(refused);
    expect(handled).toBe(1);
    polls.release();
  });

  it('counts a request whose body comes at a trickle as waiting, not answered', async () => {
    const port = await start((req, res) => { req.resume(); req.on('end', () => res.end('ok')); }, { maxWaitingConnectionsPerAddress: 2 });
    const slow = await open(port);
    slow.socket.write('POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nab');
    await open(port);
    await expectOverloaded(await open(port));
    await idle(port, '127.0.0.2');
  });

  it('caps the waiting connections of one address, not of others', async () => {
    const port = await start(ok, { maxWaitingConnectionsPerAddress: 2 });
    await idle(port);
    await open(port); // waiting for its headers
    await expectOverloaded(await open(port));
    await idle(port, '127.0.0.2');
  });

  it('does not count connections being answered as waiting: many long-polls from one address are served', async () => {
    const polls = longPolls();
    const port = await start(polls.handler, { maxWaitingConnectionsPerAddress: 2 });
    const clients: Client[] = [];
    for (let i = 0; i < 20; i++) {
      const c = await open(port);
      c.socket.write('GET /poll HTTP/1.1\r\nHost: t\r\n\r\n');
      await until(() => polls.waiting() === i + 1);
      clients.push(c);
    }
    polls.release();
    for (const c of clients) expect((await c.next()).body).toBe('polled');
    // Answered, all twenty now wait idle: a new one from that address is over its cap.
    await expectOverloaded(await open(port));
  });

  it('caps all connections of one address, busy or not', async () => {
    const polls = longPolls();
    const port = await start(polls.handler, { maxConnectionsPerAddress: 3 });
    for (let i = 0; i < 3; i++) {
      const c = await open(port);
      c.socket.write('GET /poll HTTP/1.1\r\nHost: t\r\n\r\n');
      await until(() => polls.waiting() === i + 1);
    }
    await expectOverloaded(await open(port));
    const other = await open(port, '127.0.0.2');
    other.socket.write('GET /poll HTTP/1.1\r\nHost: t\r\n\r\n');
    await until(() => polls.waiting() === 4);
    polls.release();
    expect((await other.next()).status).toBe(200);
  });
});

describe('timeouts', () => {
  it('answers 408 and closes a client that sends its headers slowly, at the header timeout', async () => {
    const port = await start(ok);
    const c = await open(port);
    c.socket.write('GET / HTTP/1.1\r\n');
    const trickle = setInterval(() => c.socket.writable && c.socket.write('X-Slow: 1\r\n'), 100);
    const at = await c.closed;
    clearInterval(trickle);
    expect(at).toBeGreaterThanOrEqual(350);
    expect(at).toBeLessThan(2000);
    expectJsonError(parseReply(c.received()), 408, 'request_timeout');
  });

  it('closes a connection that sends nothing within the header timeout', async () => {
    const port = await start(ok);
    const at = await (await open(port)).closed;
    expect(at).toBeGreaterThanOrEqual(350);
    expect(at).toBeLessThan(2000);
  });

  it('cuts a slow body at the request timeout, and the handler sees the request aborted', async () => {
    let aborted = false;
    const port = await start((req, res) => {
      req.on('error', () => { aborted = true; });
      req.on('end', () => res.end('got it'));
      req.resume();
    });
    const c = await open(port);
    c.socket.write('POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n');
    const trickle = setInterval(() => c.socket.writable && c.socket.write('a'), 100);
    const at = await c.closed;
    clearInterval(trickle);
    expect(at).toBeGreaterThanOrEqual(750);
    expect(at).toBeLessThan(2500);
    expectJsonError(parseReply(c.received()), 408, 'request_timeout');
    await until(() => aborted);
  });

  it('never cuts a request being answered: long-polls outlive both timeouts, on a kept-alive connection too', async () => {
    const port = await start((req, res) => {
      req.resume();
      setTimeout(() => res.end('late'), 1500);
    });
    const c = await open(port);
    c.socket.write('GET /poll HTTP/1.1\r\nHost: t\r\n\r\n');
    expect(await c.next()).toMatchObject({ status: 200, body: 'late' });
    c.socket.write('POST /poll HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}');
    expect(await c.next()).toMatchObject({ status: 200, body: 'late' });
    expect(c.socket.destroyed).toBe(false);
  });
});

describe('Node-level errors', () => {
  it('a malformed request line is 400 bad_request with the JSON body and X-Request-Id, and the input is not echoed', async () => {
    const port = await start(ok);
    const c = await open(port);
    c.socket.write('GARBAGE <script>echo-me</script>\r\n\r\n');
    await c.closed;
    const r = parseReply(c.received());
    expectJsonError(r, 400, 'bad_request');
    expect(c.received()).not.toContain('echo-me');
  });

  it('a 20 KB header is 431 request_header_fields_too_large', async () => {
    const port = await start(ok);
    const c = await open(port);
    c.socket.write(`GET / HTTP/1.1\r\nHost: t\r\nX-Big: ${'b'.repeat(20 * 1024)}\r\n\r\n`);
    await c.closed;
    expectJsonError(parseReply(c.received()), 431, 'request_header_fields_too_large');
  });

  it('a malformed request after an answered one on the same connection still gets its 400', async () => {
    const port = await start(ok);
    const c = await idle(port);
    c.socket.write('NOT HTTP\r\n\r\n');
    expectJsonError(await c.next(), 400, 'bad_request');
  });
});
