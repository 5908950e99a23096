/**
 * `npx tsx bench/node-access.ts` (also run by `npm run bench`): what the node's front end adds to a request in
 * each deployment access mode, side by side with a request straight to a worker, in one run (issue 11). One line
 * per case on stdout, latency p50 and p99 at concurrency 1 and 8 over keep-alive connections, the added p50
 * against the direct request beside it, then the verdict. Aim: under 0.5 ms added at p50, concurrency 1, in
 * every mode.
 *
 * Cases: `direct` (a worker on its own port, plain HTTP); `public, http` (a node without TLS); then through a
 * node with TLS: `public`, `password` (its session cookie), `org` (its session cookie, from the callback) and
 * `bypass` (the `Service-Access-Bypass` header). So the TLS hop and the gate's own cost show apart.
 *
 * Two real `hostplane node-agent` processes run against a stand-in control plane of this process (one bundle,
 * long-polls held, reports taken, every code redeemed for the org host); their workers and the direct one are the
 * same one-line node HTTP server. Bounded (a watchdog ends it after 3 minutes); children and the temp dir are
 * removed at the end, also on failure. Exits non-zero when a request fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { bypassHash, hashPassword } from '../lib/access-hash';
import { cookiesOf } from '../harness/cookies';
import { makePki } from '../harness/tls';
import { ms, sleep, stats, type Stats } from './dns-lib';
import { freePort } from '../harness/ports';
import { command, guard, REPO, spawnServer, type ChildServer } from './lib';

const REQUESTS = { 1: 4000, 8: 16_000 } as const;
const WARMUP = 500;
const AIM_ADDED_P50_MS = 0.5;
const WATCHDOG_MS = 180_000;
const PASSWORD = 'bench-password';
const BYPASS = 'bench-bypass-secret';
// On the node's SERVICE_SOCKET; the direct one (no node) on SERVICE_PORT, as a client would reach an app itself.
const WORKER = "const e=process.env,w=require('http').createServer((q,s)=>{q.resume();s.end('ok')});"
  + "e.SERVICE_SOCKET?w.listen(e.SERVICE_SOCKET):w.listen(+e.SERVICE_PORT,e.SERVICE_HOST)";

interface Answer { status: number; headers: IncomingHttpHeaders; body: string }

function send(url: string, agent: HttpAgent, host: string, o: { path?: string; method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const u = new URL(url);
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request({
      host: u.hostname, port: u.port, path: o.path ?? '/', method: o.method ?? 'GET', headers: { host, ...o.headers }, agent, servername: 'localhost',
    }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** The stand-in control plane: the same bundle for every node, held long-polls, taken reports and redeems. */
function controlPlane(bundle: unknown, redeemed: unknown): Server {
  const body = JSON.stringify(bundle);
  return createServer((req, res) => {
    req.resume();
    const url = req.url ?? '';
    if (/\/bundle(\?|$)/.test(url)) {
      if (req.headers['if-none-match']) {
        const t = setTimeout(() => res.writeHead(304).end(), 25_000);
        res.once('close', () => clearTimeout(t));
        return;
      }
      return void res.writeHead(200, { 'content-type': 'application/json', etag: '"1"' }).end(body);
    }
    if (url.endsWith('/report')) return void res.writeHead(204).end();
    if (url.endsWith('/access/redeem')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(redeemed));
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":"not_found","message":"no"}');
  });
}

/** `connections` loops sending REQUESTS[connections] in all, after a warm-up; each request's latency. */
async function measure(url: string, agent: HttpAgent, host: string, headers: Record<string, string>, connections: 1 | 8): Promise<Stats & { failed: number }> {
  let failed = 0;
  const latencies: number[] = [];
  const loop = async (n: number, keep: boolean): Promise<void> => {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const a = await send(url, agent, host, { headers });
      if (keep) latencies.push(performance.now() - t0);
      if (a.status !== 200) failed++;
    }
  };
  await Promise.all(Array.from({ length: connections }, () => loop(Math.ceil(WARMUP / connections), false)));
  await Promise.all(Array.from({ length: connections }, () => loop(REQUESTS[connections] / connections, true)));
  return { ...stats(latencies), failed };
}

export async function main(): Promise<number> {
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-bench-access-'));
  // As root each worker runs as a uid of its own and binds its socket under the node's dir: the way there must
  // be searchable by it (docs/deployment.md).
  chmodSync(tmp, 0o711);
  const children: ChildServer[] = [];
  let direct: ChildProcess | undefined;
  const release = guard('node-access', tmp, () => [...children.map((c) => c.child), direct], WATCHDOG_MS);
  let control: Server | undefined;
  try {
    const pki = makePki(tmp);
    const project = (name: string, access: Record<string, unknown>) => ({
      org: 'bench', project: name, hostnames: [`${name}.bench.test`], database: false, secrets: [], storage: null, signIn: null,
      access: { passwordHash: null, bypassHash: null, version: 1, ...access },
    });
    const bundle = {
      nodeId: 'n', version: 1,
      projects: [
        project('public', { mode: 'public' }),
        project('password', { mode: 'password', passwordHash: await hashPassword(PASSWORD), bypassHash: bypassHash(BYPASS) }),
        project('org', { mode: 'org' }),
      ],
    };
    control = controlPlane(bundle, { host: 'org.bench.test', next: '/', user: 'ops@bench.test', org: 'bench', role: 'member' });
    await new Promise<void>((r) => control!.listen(0, '127.0.0.1', r));
    const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;

    const env = { ...process.env, HOSTPLANE_LOG_LEVEL: 'warn', HOSTPLANE_NODE_TOKEN: 'bench-node-token' };
    const agentArgs = (node: string, tls: boolean): string[] => [
      'node-agent', '--node', node, '--dir', join(tmp, node), '--control', controlUrl, '--listen', '127.0.0.1:0', '--worker', `exec '${process.execPath}' -e "${WORKER}"`,
      '--dashboard-url', 'https://dash.bench.test/access', ...(tls ? ['--tls-cert', pki.certPath, '--tls-key', pki.keyPath] : []),
    ];
    const secure = spawnServer('node-agent (tls)', join(REPO, 'bin', 'hostplane'), agentArgs('n1', true), { env });
    const plain = spawnServer('node-agent (plain)', join(REPO, 'bin', 'hostplane'), agentArgs('n2', false), { env });
    children.push(secure, plain);
    const [tlsUrl, plainUrl] = await Promise.all([secure.ready, plain.ready]);

    const directPort = await freePort();
    direct = spawn(process.execPath, ['-e', WORKER], { env: { ...process.env, SERVICE_HOST: '127.0.0.1', SERVICE_PORT: String(directPort) }, stdio: 'ignore' });
    const directUrl = `http://127.0.0.1:${directPort}`;

    const tlsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 8, ca: pki.ca });
    const plainAgent = new HttpAgent({ keepAlive: true, maxSockets: 8 });
    // Until both nodes' workers and the direct one answer.
    for (const [url, agent, host] of [[tlsUrl, tlsAgent, 'public.bench.test'], [plainUrl, plainAgent, 'public.bench.test'], [directUrl, plainAgent, 'direct']] as const) {
      for (let i = 0; ; i++) {
        if ((await send(url, agent, host).catch(() => null))?.status === 200) break;
        if (i > 400) throw new Error(`${url} does not answer 200`);
        await sleep(50);
      }
    }

    const form = await send(tlsUrl, tlsAgent, 'password.bench.test');
    const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const login = await send(tlsUrl, tlsAgent, 'password.bench.test', {
      method: 'POST', path: '/__service/access/login', body: new URLSearchParams({ password: PASSWORD, csrf, next: '/' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookiesOf(form) },
    });
    // The org round trip: the node's state (from its redirect to the dashboard) comes back with the code.
    const toDashboard = await send(tlsUrl, tlsAgent, 'org.bench.test');
    const state = new URL(toDashboard.headers.location ?? 'https://x/').searchParams.get('state') ?? '';
    const callback = await send(tlsUrl, tlsAgent, 'org.bench.test', {
      path: `/__service/access/callback?code=${'b'.repeat(43)}&next=%2F&state=${state}`, headers: { cookie: cookiesOf(toDashboard) },
    });
    if (login.status !== 303 || callback.status !== 302) throw new Error(`sign-in: password ${login.status}, org ${callback.status}`);

    const cases: [name: string, url: string, agent: HttpAgent, host: string, headers: Record<string, string>][] = [
      ['direct worker', directUrl, plainAgent, 'direct', {}],
      ['public, http', plainUrl, plainAgent, 'public.bench.test', {}],
      ['public, https', tlsUrl, tlsAgent, 'public.bench.test', {}],
      ['password cookie, https', tlsUrl, tlsAgent, 'password.bench.test', { cookie: cookiesOf(login) }],
      ['org cookie, https', tlsUrl, tlsAgent, 'org.bench.test', { cookie: cookiesOf(callback) }],
      ['bypass header, https', tlsUrl, tlsAgent, 'password.bench.test', { 'service-access-bypass': BYPASS }],
    ];
    const results = new Map<string, Record<1 | 8, Stats & { failed: number }>>();
    for (const c of [1, 8] as const) {
      for (const [name, url, agent, host, headers] of cases) {
        const r = await measure(url, agent, host, headers, c);
        results.set(name, { ...results.get(name)!, [c]: r });
      }
    }
    const base = results.get('direct worker')!;
    let failed = 0;
    let worst = 0;
    for (const [name] of cases) {
      const r = results.get(name)!;
      failed += r[1].failed + r[8].failed;
      const added = (c: 1 | 8): string => (name === 'direct worker' ? '' : ` (+${ms(r[c].p50 - base[c].p50)})`);
      if (name !== 'direct worker') worst = Math.max(worst, r[1].p50 - base[1].p50);
      process.stdout.write(`node-access ${name.padEnd(23)} c1 p50 ${ms(r[1].p50)}${added(1)} p99 ${ms(r[1].p99)}; c8 p50 ${ms(r[8].p50)}${added(8)} p99 ${ms(r[8].p99)}\n`);
    }
    process.stdout.write(`node-access verdict: most added at p50, concurrency 1: ${ms(worst)} (aim < ${AIM_ADDED_P50_MS}ms: ${worst < AIM_ADDED_P50_MS ? 'met' : 'missed'}); `
      + `failed requests ${failed}; ${cpus().length} cpus, load ${loadavg()[0]!.toFixed(1)}\n`);
    tlsAgent.destroy();
    plainAgent.destroy();
    return failed > 0 ? 1 : 0;
  } finally {
    direct?.kill();
    await Promise.all(children.map((c) => c.stop()));
    control?.closeAllConnections();
    control?.close();
    release();
    rmSync(tmp, { recursive: true, force: true });
  }
}

command(import.meta.url, 'node-access', main);
