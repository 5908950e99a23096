/** The front end routes by Host to the project's current worker; a host no project here holds is 404
 * `unknown_hostname` with the API's error body. */
import { mkdtempSync, rmSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostOf } from '../../agent/frontend';
import { Supervisor } from '../../agent/supervisor';
import { bundleOf, captureLogger, fakeWorker, startFrontend } from '../helpers/agent';

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
});
