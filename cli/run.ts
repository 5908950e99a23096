/** The long-running commands: `serve` (everything in one process), `api` and `core` (the split). */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import client from 'prom-client';
import { createApp } from '../api/app';
import { httpCore } from '../core/client';
import { badRequest } from '../core/errors';
import { localCore } from '../core/local';
import { filesOnlyNameserver } from '../core/nameserver/files-only';
import { createKnotNameserver, findKnot } from '../core/nameserver/knot';
import type { Nameserver } from '../core/nameserver/port';
import { systemResolver } from '../core/resolver';
import type { Logger } from '../core/log';
import type { Core, DnsInfo } from '../core/port';
import { openSealer } from '../core/sealing';
import { coreServer } from '../core/server';
import { openStore, type Store } from '../store/db';
import { allZoneNames, zoneByName } from '../store/zones';
import { startRunner } from '../reconcilers/runner';
import { zoneReconciler } from '../reconcilers/zones';
import { coreToken, incrementalFrom, list, plans, port, type Flags } from './options';

/** Listens, prints the `{"listening": URL}` line first on stdout, and on SIGTERM/SIGINT stops accepting,
 * lets in-flight requests finish, then runs `close` (reconcilers, knotd, the database) and exits. */
async function listen(handler: RequestListener | Server, flags: Flags, log: Logger, close: () => Promise<void>): Promise<void> {
  const server = typeof handler === 'function' ? createServer(handler) : handler;
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port(flags), flags.host, resolve);
  });
  const { port: actual } = server.address() as AddressInfo;
  const url = `http://${flags.host.includes(':') ? `[${flags.host}]` : flags.host}:${actual}`;
  process.stdout.write(`${JSON.stringify({ listening: url })}\n`);
  log.info({ url }, 'listening');

  let stopping = false;
  // Responses still being worked on: once stopping, each goes out with `Connection: close`, so a keep-alive
  // client's socket closes after its last answer instead of holding the shutdown until the force timer.
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (stopping && !res.headersSent) res.setHeader('connection', 'close');
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    for (const res of inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      log.warn('in-flight requests did not finish in 10 s; closing them');
      server.closeAllConnections();
    }, 10_000);
    force.unref();
    server.close(() => {
      void close().finally(() => {
        log.info('stopped');
        log.flush();
        process.exit(0);
      });
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

function dnsInfo(flags: Flags): DnsInfo {
  if (flags.dns !== 'on' && flags.dns !== 'off') throw badRequest(`--dns takes on or off, not ${flags.dns}`);
  return { configured: flags.dns === 'on', nameservers: list(flags.nameservers) };
}

const apiConfig = (flags: Flags) => ({ appDomain: flags['app-domain'].toLowerCase(), plans: plans(flags) });

interface CoreRuntime {
  core: Core;
  close(): Promise<void>;
}

function createNameserver(flags: Flags, log: Logger): Nameserver {
  const zonesDir = join(flags.data, 'zones');
  const knot = findKnot();
  if (!knot) {
    log.warn('knotd is not installed: zone files are rendered into the data dir but nothing serves them');
    return filesOnlyNameserver(zonesDir, 'knotd is not installed: zone files are rendered but nothing serves them');
  }
  return createKnotNameserver({
    dir: join(flags.data, 'knot'),
    zonesDir,
    listen: flags['dns-listen'],
    notify: list(flags.secondaries),
    knotd: knot.knotd,
    knotc: knot.knotc,
    keymgr: knot.keymgr ?? undefined,
    logger: log.child({ component: 'knotd' }),
  });
}

/** The core component: the sealing key (created with mode 0600 on first start), the nameserver it
 * supervises and the reconcilers converging it. */
async function startCore(store: Store, flags: Flags, log: Logger, registry?: client.Registry): Promise<CoreRuntime> {
  const sealer = openSealer(flags.data);
  const dns = dnsInfo(flags);
  if (!dns.configured) {
    return { core: localCore({ sealer, dns, nudge: () => undefined }), close: async () => undefined };
  }
  const nameserver = createNameserver(flags, log);
  const zones = await Promise.all((await allZoneNames(store)).map(async (name) => ({ name, dnssec: (await zoneByName(store, name))?.dnssec !== 'off' })));
  await nameserver.start(zones).catch((e: Error) => log.error({ err: e.message }, 'the nameserver did not start; zone status will say so'));
  const runner = await startRunner({
    store,
    log: log.child({ component: 'reconcilers' }),
    registry,
    reconcilers: [zoneReconciler({
      store, nameserver, resolver: systemResolver(), nameservers: dns.nameservers, log, incrementalFrom: incrementalFrom(flags),
    })],
  });
  return {
    core: localCore({ sealer, dns, nudge: (kind, key) => runner.nudge(kind, key) }),
    close: async () => {
      await runner.stop();
      await nameserver.stop();
    },
  };
}

export async function runServe(flags: Flags, log: Logger): Promise<void> {
  const store = openStore(flags.data);
  const registry = new client.Registry();
  const rt = await startCore(store, flags, log, registry);
  const app = createApp({ store, core: rt.core, config: apiConfig(flags) }, log, registry);
  await listen(app.koa.callback(), flags, log, async () => {
    await rt.close();
    store.close();
  });
}

export async function runApi(flags: Flags, log: Logger): Promise<void> {
  const store = openStore(flags.data);
  let core: Core | null = null;
  if (flags['core-url']) {
    const token = coreToken(flags);
    if (!token) throw badRequest('--core-url needs --core-token or HOSTPLANE_CORE_TOKEN');
    core = httpCore(flags['core-url'], token);
  } else {
    log.warn('no --core-url: operations that need the core answer 503 no_core');
  }
  const app = createApp({ store, core, config: apiConfig(flags) }, log);
  await listen(app.koa.callback(), flags, log, async () => store.close());
}

export async function runCore(flags: Flags, log: Logger): Promise<void> {
  const token = coreToken(flags);
  if (!token) throw badRequest('core needs --core-token or HOSTPLANE_CORE_TOKEN (shared with the api process)');
  const store = openStore(flags.data);
  const rt = await startCore(store, flags, log);
  await listen(coreServer(rt.core, token), flags, log, async () => {
    await rt.close();
    store.close();
  });
}
