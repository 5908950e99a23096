/** The front end routes by Host to the project's current worker; a host no project here holds is 404
 * `unknown_hostname` with the API's error body. Two Host headers are 400; an absolute-form target routes by its
 * authority and reaches the worker in origin form. */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorityOf, frontend, hostOf } from '../../../agent/gate/frontend';
import { Supervisor } from '../../../agent/workers/supervisor';
import type { Worker } from '../../../agent/workers/worker-process';
import { bundleOf, captureLogger, fakeWorker, listenOnSocket, startFrontend, testGate } from '../../helpers/agent';

const dir = mkdtempSync(join(tmpdir(), 'hostplane-frontend-'));
const supervisor = new Supervisor({ dir, command: ['unused'], log: captureLogger().log, start: fakeWorker, retry: { baseMs: 60_000, maxMs: 60_000 } });
let fe: Awaited<ReturnType<typeof startFrontend>>;

beforeAll(async () => {
  await supervisor.apply(bundleOf('3', [
    { project: 'blog', hostnames: ['blog.hostplane.test', 'www.customer.test'] },
    { project: 'shop', hostnames: ['shop.hostplane.test'] },
    { project: 'broken', hostnames: ['broken.hostplane.test'], env: { FAIL: '1' } },
  ]));
  fe = await startFrontend(supervisor);
});
afterAll(async () => {
  await fe.close();
  await supervisor.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** fetch cannot set Host: node:http can. */
function send(host: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  const u = new URL(fe.url);
  return new Promise<{ status: number; headers: IncomingHttpHeaders; json(): unknown }>((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: '/some/path?q=1', method: init.method ?? 'GET', headers: { host, ...init.headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, json: () => JSON.parse(body) as unknown });
      });
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('front end', () => {
  it.each([
    ['blog.hostplane.test', 'blog'],
    ['BLOG.hostplane.test:8090', 'blog'],
    ['www.customer.test.', 'blog'],
    ['shop.hostplane.test', 'shop'],
  ])('routes Host %s to the worker of %s', async (host, project) => {
    const r = await send(host);
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ project, version: '3' });
  });

  it.each(['unknown.test', 'hostplane.test', '', '127.0.0.1'])('answers 404 unknown_hostname for Host %j', async (host) => {
    const r = await send(host, { headers: { 'x-request-id': 'req-1' } });
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.headers['x-request-id']).toBe('req-1');
    expect(r.json()).toEqual({ code: 'unknown_hostname', message: expect.any(String), requestId: 'req-1' });
  });

  it('answers 503 worker_unavailable with Retry-After for a project whose worker does not run', async () => {
    const r = await send('broken.hostplane.test');
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.json()).toMatchObject({ code: 'worker_unavailable' });
  });

  it('passes method, path and body through', async () => {
    const r = await send('blog.hostplane.test', { method: 'POST', body: 'x'.repeat(100_000) });
    expect(r.status).toBe(200);
  });

  it('hostOf normalizes the Host header', () => {
    expect(hostOf('Example.COM:80')).toBe('example.com');
    expect(hostOf('[::1]:8080')).toBe('::1');
    expect(hostOf('a.test.')).toBe('a.test');
    expect(hostOf(undefined)).toBe('');
  });

  it('authorityOf keeps a port of digits and refuses what is not an authority', () => {
    expect(authorityOf('Example.COM.:8080')).toEqual({ host: 'example.com', authority: 'example.com:8080' });
    expect(authorityOf('[::1]:80')).toEqual({ host: '::1', authority: '[::1]:80' });
    expect(authorityOf('[::1]')).toEqual({ host: '::1', authority: '[::1]' });
    expect(authorityOf('a.test')).toEqual({ host: 'a.test', authority: 'a.test' });
    expect(authorityOf('')).toEqual({ host: '', authority: '' });
    for (const bad of ['[pub.test]evil.example', '[pub.test]', '[::1]evil', '[::1]:', '[::1', 'pub.test:', 'pub.test:x', 'pub.test:80x', 'pub.test:123456', 'a:b:80', ':80', '.', 'a]b.test']) {
      expect(authorityOf(bad), bad).toBeNull();
      expect(hostOf(bad), bad).toBe('');
    }
  });
});

/** Which host a request is for (RFC 9112 3.2): one Host header, and an absolute-form target's authority over Host. */
describe('front end: the request target', () => {
  /** A worker that answers what it received: method, target and Host. */
  const echo = createServer((req, res) => {
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url, host: req.headers.host, forwardedHost: req.headers['x-forwarded-host'] }));
  });
  const routed: string[] = [];
  let url = '';
  let server: ReturnType<typeof createServer>;
  let closeEcho = async (): Promise<void> => undefined;
  beforeAll(async () => {
    const at = await listenOnSocket(echo);
    closeEcho = at.close;
    const worker = { id: 1, socketPath: at.socketPath, agent: new Agent({ keepAlive: false }) } as unknown as Worker;
    // Only shop.test is served here: a request routed by the wrong name is 404.
    const project = bundleOf('1', [{ project: 'shop', hostnames: ['shop.test'] }]).bundle.projects[0]!;
    server = createServer(frontend((host) => {
      routed.push(host);
      return host === 'shop.test' ? { kind: 'worker', key: 'acme/shop', project, worker, release: () => undefined } : { kind: 'unknown' };
    }, { gate: testGate() }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await Promise.all([new Promise((r) => server.close(r)), closeEcho()]);
  });

  /** Sends `head` (the request line and headers, CRLF-separated, without the blank line) as written. */
  function raw(head: string): Promise<{ status: number; body: string }> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const s = connect(Number(u.port), u.hostname, () => s.write(`${head}\r\nConnection: close\r\n\r\n`));
      let data = '';
      s.setEncoding('utf8').on('data', (c: string) => { data += c; }).on('error', reject).on('close', () => {
        const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
        if (!m) return reject(new Error(`no answer: ${JSON.stringify(data)}`));
        resolve({ status: Number(m[1]), body: data.slice(data.indexOf('\r\n\r\n') + 4) });
      });
    });
  }
  const jsonOf = (body: string): Record<string, unknown> => {
    // The echo answers with a body of a known length; a chunked one (errors) has its size line first.
    const start = body.indexOf('{');
    return JSON.parse(body.slice(start, body.lastIndexOf('}') + 1)) as Record<string, unknown>;
  };

  it('answers 400 bad_request to a request with two Host headers, routing it nowhere', async () => {
    routed.length = 0;
    for (const [first, second] of [['shop.test', 'other.test'], ['other.test', 'shop.test'], ['shop.test', 'shop.test']]) {
      const r = await raw(`GET / HTTP/1.1\r\nHost: ${first}\r\nHost: ${second}`);
      expect(r.status, `${first}, ${second}`).toBe(400);
      expect(jsonOf(r.body)).toMatchObject({ code: 'bad_request' });
    }
    expect(routed).toEqual([]);
  });

  it('routes an absolute-form request by its authority, not by Host, and forwards the path in origin form', async () => {
    const r = await raw('GET http://shop.test/a/b?c=1 HTTP/1.1\r\nHost: other.test');
    expect(r.status).toBe(200);
    expect(jsonOf(r.body)).toEqual({ url: '/a/b?c=1', host: 'shop.test', forwardedHost: 'shop.test' });
    // And the other way round: a Host this node serves does not route a target for another authority.
    const r2 = await raw('GET http://other.test/ HTTP/1.1\r\nHost: shop.test');
    expect(r2.status).toBe(404);
    expect(jsonOf(r2.body)).toMatchObject({ code: 'unknown_hostname' });
    const r3 = await raw('GET HTTP://Shop.Test:8080 HTTP/1.1\r\nHost: shop.test');
    expect(r3.status).toBe(200);
    expect(jsonOf(r3.body)).toMatchObject({ url: '/', host: 'shop.test:8080' });
  });

  it('answers 400 to an absolute target that is not an http(s) URL with a host', async () => {
    for (const target of ['ftp://shop.test/x', 'http:/x', 'mailto:a@shop.test']) {
      const r = await raw(`GET ${target} HTTP/1.1\r\nHost: shop.test`);
      expect(r.status, target).toBe(400);
    }
  });

  it('keeps an origin-form request as it is, its authority normalized', async () => {
    const r = await raw('GET /x?y HTTP/1.1\r\nHost: SHOP.test:80');
    expect(r.status).toBe(200);
    expect(jsonOf(r.body)).toEqual({ url: '/x?y', host: 'shop.test:80', forwardedHost: 'shop.test:80' });
  });

  it('gives the worker the normalized authority, never the raw Host', async () => {
    for (const [given, forwarded] of [['Shop.Test.', 'shop.test'], ['shop.test.:8443', 'shop.test:8443'], ['SHOP.TEST', 'shop.test']]) {
      const r = await raw(`GET / HTTP/1.1\r\nHost: ${given}`);
      expect(r.status, given).toBe(200);
      expect(jsonOf(r.body), given).toEqual({ url: '/', host: forwarded, forwardedHost: forwarded });
    }
  });

  it('answers 400 bad_request to a Host that is not an authority, routing it nowhere', async () => {
    routed.length = 0;
    for (const host of ['[shop.test]evil.example', '[shop.test]', 'shop.test:', 'shop.test:evil', 'shop.test:80:80', '[::1]evil.example']) {
      const r = await raw(`GET / HTTP/1.1\r\nHost: ${host}`);
      expect(r.status, host).toBe(400);
      expect(jsonOf(r.body), host).toMatchObject({ code: 'bad_request' });
    }
    expect(routed).toEqual([]);
  });
});

/** Request smuggling (issue 20 item 7): the worker receives exactly the requests the front end routed. */
describe('front end: a body is forwarded framed, whatever the method', () => {
  const received: { method: string; url: string; host: string; forwardedFor: string; body: string }[] = [];
  const recorder = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => {
      received.push({ method: req.method!, url: req.url!, host: req.headers.host!, forwardedFor: String(req.headers['x-forwarded-for']), body });
      res.end('ok');
    });
  });
  let url = '';
  let server: ReturnType<typeof createServer>;
  let closeRecorder = async (): Promise<void> => undefined;
  beforeAll(async () => {
    const at = await listenOnSocket(recorder);
    closeRecorder = at.close;
    const worker = { id: 1, socketPath: at.socketPath, agent: new Agent({ keepAlive: true }) } as unknown as Worker;
    const project = bundleOf('1', [{ project: 'shop', hostnames: ['shop.test'] }]).bundle.projects[0]!;
    server = createServer(frontend(() => ({ kind: 'worker', key: 'acme/shop', project, worker, release: () => undefined }), { gate: testGate() }));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await Promise.all([new Promise((r) => server.close(r)), closeRecorder()]);
  });

  /** Writes `text` as it is and reads until the front end closes. */
  function rawRequest(text: string): Promise<string> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const s = connect(Number(u.port), u.hostname, () => s.write(text));
      let data = '';
      s.setEncoding('utf8').on('data', (c: string) => { data += c; }).on('error', reject).on('close', () => resolve(data));
    });
  }

  const smuggled = 'GET /admin HTTP/1.1\r\nHost: victim.test\r\nX-Forwarded-For: 203.0.113.66\r\nX-Request-Id: forged\r\n\r\n';

  it.each(['GET', 'HEAD', 'DELETE', 'OPTIONS'])('a chunked %s whose body holds a second request reaches the worker as one request', async (method) => {
    received.length = 0;
    const chunk = `${Buffer.byteLength(smuggled).toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`;
    const answer = await rawRequest(`${method} /ok HTTP/1.1\r\nHost: shop.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk}`);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    // A request the worker took from the body would have been answered before the front end closed.
    expect(received).toEqual([{ method, url: '/ok', host: 'shop.test', forwardedFor: '127.0.0.1', body: smuggled }]);
  });

  it('a Content-Length body on a GET keeps its length: nothing after it reaches the worker', async () => {
    received.length = 0;
    const answer = await rawRequest(`GET /ok HTTP/1.1\r\nHost: shop.test\r\nContent-Length: ${Buffer.byteLength(smuggled)}\r\nConnection: close\r\n\r\n${smuggled}`);
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(received).toEqual([{ method: 'GET', url: '/ok', host: 'shop.test', forwardedFor: '127.0.0.1', body: smuggled }]);
  });

  it.each([
    ['Content-Length and Transfer-Encoding both', (c: string) => `Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n${c}`],
    ['two Content-Lengths that differ', () => `Content-Length: 0\r\nContent-Length: ${Buffer.byteLength(smuggled)}\r\n\r\n${smuggled}`],
    ['a Transfer-Encoding folded onto a second line', (c: string) => `X-Pad: a\r\n Transfer-Encoding: chunked\r\n\r\n${c}`],
    ['a Transfer-Encoding ending in something else', (c: string) => `Transfer-Encoding: chunked, identity\r\n\r\n${c}`],
    ['a Transfer-Encoding with a space before its colon', (c: string) => `Transfer-Encoding : chunked\r\n\r\n${c}`],
  ])('%s: the body never reaches the worker as a request of its own', async (_what, framing) => {
    received.length = 0;
    const chunk = `${Buffer.byteLength(smuggled).toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`;
    const answer = await rawRequest(`POST /ok HTTP/1.1\r\nHost: shop.test\r\nConnection: close\r\n${framing(chunk)}`);
    expect(answer).toMatch(/^HTTP\/1\.1 (200|400)/);
    expect(received.filter((r) => r.url !== '/ok')).toEqual([]);
  });
});
