/** Helpers of the node agent's tests: a logger that keeps its lines, in-process fake workers, a front end on a
 * free port, and a client that sends many requests through it. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { captureLogger } from './log';
import { accessGate, type AccessGateOptions } from '../../agent/gate/access-gate';
import { frontend } from '../../agent/gate/frontend';
import type { ServiceHandler } from '../../agent/gate/services';
import type { Supervisor } from '../../agent/workers/supervisor';
import type { Worker, WorkerSpec } from '../../agent/workers/worker-process';
import type { NodeBundle, VersionedBundle } from '../../agent/sync/bundle';

export { captureLogger };
export { cookiesOf } from '../../harness/cookies';

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let fakeIds = 10_000;

/** `server` listening on a Unix socket in a directory of its own, as a worker does (agent/workers/worker-process.ts):
 * its path, and how to close it and remove the directory. */
export async function listenOnSocket(server: Server): Promise<{ socketPath: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'hp-w-'));
  const socketPath = join(dir, 'http.sock');
  await new Promise<void>((r) => server.listen(socketPath, r));
  return {
    socketPath,
    close: async () => {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Starts an in-process "worker" answering `{"version", "bindings": names}` for `spec`; fails for a spec with
 * the binding FAIL set. */
export async function fakeWorker(spec: WorkerSpec): Promise<Worker> {
  if (spec.bindings.FAIL) throw new Error('the worker exited (code 1) before it was ready');
  const server = createServer((req, res) => {
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ version: spec.version, project: spec.project, bindings: Object.keys(spec.bindings).sort() }));
  });
  const at = await listenOnSocket(server);
  let exit!: (e: { code: number | null; signal: NodeJS.Signals | null }) => void;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => { exit = r; });
  const agent = new Agent({ keepAlive: true });
  return {
    id: fakeIds++, spec, socketPath: at.socketPath, pid: undefined, agent, exited,
    stop: async () => {
      agent.destroy();
      await at.close();
      exit({ code: 0, signal: null });
    },
  };
}

/** An access gate with a fresh key, no dashboard and a control plane that redeems no code, unless `o` says
 * otherwise. */
export const testGate = (o: Partial<AccessGateOptions> = {}): ServiceHandler => accessGate({
  key: randomBytes(32), dashboardUrl: null, redeem: () => Promise.resolve(null), log: captureLogger().log, ...o,
});

/** A front end over `supervisor` on a free port. */
export async function startFrontend(supervisor: Supervisor): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(frontend((h) => supervisor.route(h), { gate: testGate() }));
  const url = await listen(server);
  return {
    url,
    close: () => new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    }),
  };
}

export interface Answer { status: number; body: string }

/** One GET through the front end with `Host: host`, over `agent`. */
export function get(url: string, host: string, agent?: Agent, path = '/'): Promise<Answer> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, headers: { host }, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends requests with `concurrency` loops until stop() and keeps every answer (or failure) with the times it
 * was sent and answered. */
export function hammer(url: string, host: string, concurrency = 8): { answers: (Answer & { sent: number; at: number })[]; failures: string[]; stop(): Promise<void> } {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const answers: (Answer & { sent: number; at: number })[] = [];
  const failures: string[] = [];
  let running = true;
  const loops = Array.from({ length: concurrency }, async () => {
    while (running) {
      try {
        const sent = Date.now();
        const a = await get(url, host, agent);
        answers.push({ ...a, sent, at: Date.now() });
        if (a.status !== 200) failures.push(`${a.status} ${a.body}`);
      } catch (e) {
        failures.push((e as Error).message);
      }
    }
  });
  return {
    answers, failures,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}

type ProjectInput = Partial<NodeBundle['projects'][number]> & { env?: Record<string, string> };

/** A bundle of these projects (`env`: the secrets as name → value; acme/blog at blog.hostplane.test by default). */
export function bundleOf(version: string, projects: ProjectInput[]): VersionedBundle {
  return {
    version,
    bundle: {
      projects: projects.map(({ env = {}, ...p }) => ({
        org: 'acme', project: 'blog', hostnames: ['blog.hostplane.test'], database: false, storage: null, signIn: null,
        secrets: Object.entries(env).map(([name, value]) => ({ name, version: 1, value })), ...p,
      })),
    },
  };
}

export interface TlsAnswer { status: number; headers: IncomingHttpHeaders; body: string }

/** One request to an HTTPS (or, for an http URL, plain) front end with `Host: host`, trusting `ca`; the
 * answer whole. `localAddress` sends it from another loopback address (127.0.0.2): another client. */
export function send(url: string, o: {
  host: string; path?: string; method?: string; headers?: Record<string, string>; body?: string; ca?: string; localAddress?: string;
}): Promise<TlsAnswer> {
  const u = new URL(url);
  const options = {
    host: u.hostname, port: u.port, path: o.path ?? '/', method: o.method ?? 'GET', headers: { host: o.host, ...o.headers },
    // The certificate is for localhost (test/helpers/tls.ts); without a servername Node would check it against Host.
    ca: o.ca, servername: 'localhost', localAddress: o.localAddress, agent: false,
  } as const;
  return new Promise((resolve, reject) => {
    const req = (u.protocol === 'https:' ? httpsRequest : request)(options, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** `next` values that must never become a redirect: other hosts, schemes, encodings that decode to one, control
 * characters, non-ASCII, malformed escapes, too long. The API's list (test/api/access.test.ts) and more. */
export const HOSTILE_NEXT = [
  '', 'dash', '//evil.example', '//evil.example/', '/\\evil.example', '\\\\evil.example', '/\\/evil.example',
  'https://evil.example', 'http://evil.example/x', 'javascript:alert(1)', 'data:text/html,x', ' /dash', '/dash x',
  '/dash\ttab', '/dash\nLocation: x', '/dash\r\n', '/%2F/evil.example', '/%2f%2fevil.example', '/%5Cevil.example',
  '/%5cevil.example', '%2F%2Fevil.example', '/%0d%0aSet-Cookie:x', '/%09', '/%E2%80%AE', '/caf\u00e9', '/\u2215evil',
  '/%zz', '/%', '/x%2', `/${'a'.repeat(2048)}`, '/%20', '/\u0000', '///evil.example', '/\\\\evil.example', 'HTTPS://evil.example',
  '/%2F%2Fevil.example', '/\u3002evil.example', './/evil.example', '/.//evil.example', '/a/..//evil.example', '/%2e//evil.example',
  '/a/%2E%2E//evil.example', '/..', '/a/.?x=1',
];
