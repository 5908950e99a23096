/** The long-running commands: `serve` (everything in one process), `api` and `core` (the split). */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/app';
import { httpCore } from '../core/client';
import { badRequest } from '../core/errors';
import { localCore } from '../core/local';
import type { Logger } from '../core/log';
import type { Core, DnsInfo } from '../core/port';
import { openSealer } from '../core/sealing';
import { coreServer } from '../core/server';
import { openStore, type Store } from '../store/db';
import { coreToken, list, plans, port, type Flags } from './options';

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
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
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

/** The core component: sealing key (created with mode 0600 on first start) and, later, the reconcilers. */
async function startCore(store: Store, flags: Flags, _log: Logger): Promise<CoreRuntime> {
  const sealer = openSealer(flags.data);
  const core = localCore({ sealer, dns: dnsInfo(flags), nudge: () => undefined });
  return { core, close: async () => undefined };
}

export async function runServe(flags: Flags, log: Logger): Promise<void> {
  const store = openStore(flags.data);
  const rt = await startCore(store, flags, log);
  const app = createApp({ store, core: rt.core, config: apiConfig(flags) }, log);
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
