/**
 * What the HTTP stack alone costs a write at the cadence of bench/dns-latency.ts (one request on each 25 ms tick,
 * one at a time): CPU per request and latency of a bare `node:http` server and of Koa with @koa/router (43 routes, a
 * request-id middleware), each reading the JSON body of a putRRset and answering it, with no store, validation or
 * nameserver behind. Between two requests 25 ms apart the other processes have the cores, so each request runs
 * Node's HTTP code from cold caches: this is the floor under hostplane's CPU per change in that bench, to set against
 * PowerDNS's whole change there (HTTP, SQLite, and its DNS answers). One line per server:
 *
 *   npx tsx bench/http-floor.ts                  (also run by `npm run bench`)
 *   npx tsx bench/http-floor.ts --requests 200   (measured requests per server, 100 or more; default 400, after
 *                                                50 unmeasured ones: the servers are that warm, no more)
 *
 * Loopback only; every child is stopped at the end, also on failure.
 */
import Router from '@koa/router';
import Koa from 'koa';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ms, sleep, stats } from './dns-lib';
import { command, cpuSeconds, guard, spawnServer, TSX, wholeNumber, type ChildServer } from './lib';

const CADENCE_MS = 25;
const WARMUP = 50;
const WATCHDOG_MS = 120_000;
const KINDS = ['node:http', 'koa'] as const;
type Kind = (typeof KINDS)[number];
const PATH = '/v1/orgs/bench/dns/zones/latency.test/rrsets/c.latency.test/A';

/** The rrset as putRRset answers it, from the request's body. */
const answerOf = (body: string): string => {
  const { ttl, records } = JSON.parse(body) as { ttl: number; records: string[] };
  return JSON.stringify({ name: 'c.latency.test', type: 'A', ttl, records });
};

function serverOf(kind: Kind): Server {
  if (kind === 'node:http') {
    return createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
      });
      req.on('end', () => {
        const json = answerOf(body);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), 'x-request-id': 'bench' });
        res.end(json);
      });
    });
  }
  const app = new Koa();
  app.use(async (ctx, next) => {
    ctx.set('X-Request-Id', 'bench');
    await next();
  });
  // As many routes before it as hostplane's API has operations: the router tries them in order.
  const router = new Router({ prefix: '/v1' });
  for (let i = 0; i < 42; i++) router.get(`/orgs/:org/group${i}/:name`, (ctx) => {
    ctx.body = { i };
  });
  router.put('/orgs/:org/dns/zones/:zone/rrsets/:name/:type', async (ctx) => {
    let body = '';
    ctx.req.setEncoding('utf8');
    for await (const chunk of ctx.req) body += chunk as string;
    ctx.type = 'application/json';
    ctx.body = answerOf(body);
  });
  app.use(router.routes()).use(router.allowedMethods());
  return createServer(app.callback());
}

/** `count` PUTs, each on its 25 ms tick, or at once after the one before when that ended later; a tick missed is not
 * made up for, as in dns-sides.ts `changesAtCadence`. */
async function atCadence(count: number, put: (n: number) => Promise<number>): Promise<number[]> {
  let tick = performance.now();
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    tick += CADENCE_MS;
    const wait = tick - performance.now();
    if (wait > 0) await sleep(wait);
    latencies.push(await put(i));
    tick = Math.max(tick, performance.now() - CADENCE_MS);
  }
  return latencies;
}

async function measure(s: ChildServer, kind: Kind, requests: number): Promise<string> {
  const url = `${await s.ready}${PATH}`;
  const put = async (n: number): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ttl: 300, records: [`192.0.2.${n % 250}`] }) });
    await res.text();
    if (res.status !== 200) throw new Error(`${kind}: PUT answered ${res.status}`);
    return performance.now() - t0;
  };
  await atCadence(WARMUP, put);
  const before = cpuSeconds(s.child.pid!);
  const latencies = await atCadence(requests, put);
  const cpu = cpuSeconds(s.child.pid!) - before;
  const t = stats(latencies);
  return `http-floor ${kind} PUT every ${CADENCE_MS}ms, one at a time: cpu per request=${ms((cpu / requests) * 1000)} latency p50=${ms(t.p50)} p99=${ms(t.p99)} n=${t.n}`;
}

export async function main(opts: { requests?: number } = {}): Promise<number> {
  const requests = opts.requests ?? 400;
  if (!Number.isInteger(requests) || requests < 100) throw new Error(`--requests must be a whole number, 100 or more (got ${requests})`);
  const servers: ChildServer[] = [];
  const release = guard('http-floor', null, () => servers.map((s) => s.child), WATCHDOG_MS);
  try {
    for (const kind of KINDS) {
      const s = spawnServer(kind, process.execPath, ['--import', TSX, fileURLToPath(import.meta.url), '--server', kind]);
      servers.push(s);
      try {
        process.stdout.write(`${await measure(s, kind, requests)}\n`);
      } finally {
        await s.stop();
      }
    }
    return 0;
  } finally {
    release();
  }
}

command(import.meta.url, 'http-floor', async () => {
  const { values } = parseArgs({ options: { server: { type: 'string' }, requests: { type: 'string' } } });
  const kind = values.server as Kind | undefined;
  if (kind === undefined) return main({ requests: wholeNumber('requests', values.requests) });
  if (!KINDS.includes(kind)) throw new Error(`--server must be one of ${KINDS.join(', ')}`);
  const server = serverOf(kind);
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ listening: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
  return 0;
});
