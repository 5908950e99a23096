/** Helpers of the node agent's tests: a logger that keeps its lines, in-process fake workers, a front end on a
 * free port, and a client that sends many requests through it. */
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../lib/log';
import { frontend } from '../../agent/frontend';
import type { Supervisor } from '../../agent/supervisor';
import type { Worker, WorkerSpec } from '../../agent/worker-process';
import type { NodeBundle, VersionedBundle } from '../../agent/bundle';

/** A logger writing JSON lines into `lines`. */
export function captureLogger(): { log: Logger; lines: string[]; text(): string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const log = createLogger({ level: 'debug', destination });
  return { log, lines, text: () => lines.join('') };
}

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let fakeIds = 10_000;

/** Starts an in-process "worker" answering `{"version", "bindings": names}` for `spec`; fails for a spec with
 * the binding FAIL set. */
export async function fakeWorker(spec: WorkerSpec): Promise<Worker> {
  if (spec.bindings.FAIL) throw new Error('the worker exited (code 1) before it was ready');
  const server = createServer((req, res) => {
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ version: spec.version, project: spec.project, bindings: Object.keys(spec.bindings).sort() }));
  });
  const url = await listen(server);
  let exit!: (e: { code: number | null; signal: NodeJS.Signals | null }) => void;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => { exit = r; });
  const agent = new Agent({ keepAlive: true });
  return {
    id: fakeIds++, spec, port: Number(new URL(url).port), pid: undefined, agent, exited,
    stop: async () => {
      agent.destroy();
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      exit({ code: 0, signal: null });
    },
  };
}

/** A front end over `supervisor` on a free port. */
export async function startFrontend(supervisor: Supervisor): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(frontend((h) => supervisor.route(h)));
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
        org: 'acme', project: 'blog', hostnames: ['blog.hostplane.test'], database: false, storage: null,
        secrets: Object.entries(env).map(([name, value]) => ({ name, version: 1, value })), ...p,
      })),
    },
  };
}
