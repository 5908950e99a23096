/** The long-running commands: `serve` (everything in one process), `api` and `core` (the split). */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import client from 'prom-client';
import { createApp } from '../api/app';
import type { ApiConfig } from '../api/ops';
import { rateLimitFlag } from '../lib/http/rate-limit';
import { httpCore } from '../core/client';
import { localCore } from '../core/local';
import { filesOnlyNameserver } from '../providers/nameserver/files-only';
import { AddressInUseError, createKnotNameserver, findKnot } from '../providers/nameserver/knot';
import type { Nameserver } from '../providers/nameserver/port';
import { systemResolver } from '../providers/resolver';

import { exitAfterFlush, type Logger } from '../lib/log';
import type { Core, DnsInfo } from '../core/port';
import { openSealer } from '../core/sealing';
import { coreServer } from '../core/server';
import { openStore, type Store } from '../store/db';
import { startFeedPruning } from '../store/feed';
import { syncZoneNameservers, zoneConfigs } from '../store/zones';
import { startRunner } from '../reconcilers/runner';
import { zoneReconciler } from '../reconcilers/zones';
import { harden, listenOn } from '../lib/http/http-server';
import { lockDataDir } from '../lib/datadir-lock';
import { writeFileAtomic } from '../lib/files';
import {
  checkServerFlags, coreToken, domainSettings, edgeUrl, hostnameSettings, deferFileFrom, list, metricsListen, oauthProviders, plans, port, serverHardening, tlsFiles,
  tsigKey, type Flags,
} from './options';
import { httpEdge } from '../providers/edge/http';
import { startEdgeSandbox } from '../providers/edge/sandbox';
import { hostnameReconciler } from '../reconcilers/hostnames';
import { bundleReconciler } from '../reconcilers/bundles';
import { domainService } from '../sagas/domains';
import { domainReconciler } from '../reconcilers/domains';
import { httpRegistrar } from '../providers/registrar/http';
import { startRegistrarSandbox } from '../providers/registrar/sandbox';
import { httpPayments } from '../providers/payment/http';
import { startPaymentSandbox } from '../providers/payment/sandbox';
import { startOAuthSandbox } from '../providers/oauth/sandbox';
import { OAUTH_PROVIDERS, type ProviderEndpointTable } from '../rules/oauth-providers';
import type { ChangeKind } from '../store/feed';
import type { Sealer } from '../core/sealing';

/** The resolver the core's parts ask (delegations, hostname proofs): `--resolver`, or the system's. */
type Resolver = ReturnType<typeof systemResolver>;

/** Connections of the metrics listener: a scraper or two, not clients. Its descriptors come out of the reserve
 * that the API's caps leave (lib/http/http-server.ts). */
const METRICS_LIMITS = { maxConnections: 16, maxConnectionsPerAddress: 16, maxWaitingConnectionsPerAddress: 8 };

/** The metrics listener's only route: Prometheus text of `registry`. */
function metricsHandler(registry: client.Registry): RequestListener {
  return async (req, res) => {
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const error = (status: number, code: string, message: string): void => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ code, message, requestId }));
    };
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') return error(404, 'not_found', 'no such route');
    try {
      const text = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType }).end(text);
    } catch {
      error(500, 'internal', 'internal error');
    }
  };
}

const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'the port is in use',
  EADDRNOTAVAIL: 'the address is not one of this machine\'s',
  EACCES: 'permission denied',
};

/** Listens on `host:port` and answers the URL it listens on; `flag` names what set the address, for the error. */
async function bind(server: Server, at: { host: string; port: number }, flag: string): Promise<string> {
  return listenOn(server, at).catch((e: NodeJS.ErrnoException) => {
    throw new Error(`cannot listen on ${at.host}:${at.port} (${flag}): ${LISTEN_ERRORS[e.code ?? ''] ?? e.message}`, { cause: e });
  });
}

/** Listens on the API port and on --metrics-listen, both hardened against slow and flooding clients, prints the
 * `{"listening": URL, "metrics": URL | null}` line first on stdout, and on SIGTERM/SIGINT stops accepting,
 * lets in-flight requests finish, then runs `close` (reconcilers, knotd, the database) and exits. When it
 * cannot listen it throws, and the caller stops what it started. */
async function listen(handler: RequestListener | Server, registry: client.Registry, flags: Flags, log: Logger, close: () => Promise<void>): Promise<void> {
  // With --tls-cert and --tls-key the API port speaks HTTPS (the metrics listener stays on loopback, plain).
  const tls = tlsFiles(flags);
  if (tls && typeof handler !== 'function') throw new Error('TLS needs a request handler');
  const server = typeof handler === 'function' ? (tls ? createHttpsServer(tls, handler) : createServer(handler)) : handler;
  server.keepAliveTimeout = 65_000;
  let metrics: Server | null = null;
  let url: string;
  let metricsUrl: string | null = null;
  try {
    const hardening = serverHardening(flags);
    harden(server, hardening, log.child({ listener: 'api' }));
    const metricsAt = metricsListen(flags);
    if (metricsAt) {
      metrics = createServer(metricsHandler(registry));
      harden(metrics, { ...hardening, ...METRICS_LIMITS }, log.child({ listener: 'metrics' }));
    }
    url = await bind(server, { host: flags.host, port: port(flags) }, '--host, --port');
    if (metrics && metricsAt) metricsUrl = `${await bind(metrics, metricsAt, '--metrics-listen')}/metrics`;
    log.info({ url, metrics: metricsUrl, ...hardening }, 'listening');
  } catch (e) {
    server.close();
    metrics?.close();
    throw e;
  }
  process.stdout.write(`${JSON.stringify({ listening: url, metrics: metricsUrl })}\n`);

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
    metrics?.close();
    metrics?.closeAllConnections();
    const force = setTimeout(() => {
      log.warn('in-flight requests did not finish in 10 s; closing them');
      server.closeAllConnections();
    }, 10_000);
    force.unref();
    server.close(() => {
      void close().finally(() => {
        log.info('stopped');
        exitAfterFlush(log, 0);
      });
    });
    server.closeIdleConnections();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

const dnsInfo = (flags: Flags): DnsInfo => ({ configured: flags.dns === 'on', nameservers: list(flags.nameservers) });

const apiConfig = (flags: Flags): ApiConfig => ({
  appDomain: flags['app-domain'].toLowerCase(),
  plans: plans(flags),
  // The catalog zone is the nameserver's own: no tenant may hold its name.
  serviceDomains: [...list(flags['service-domains']), flags['catalog-zone']].map((d) => d.toLowerCase()),
  rateLimits: { perToken: rateLimitFlag(flags['rate-limit']) },
  fallbackOrigin: hostnameSettings(flags).fallbackOrigin,
});

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
    catalogZone: flags['catalog-zone'].toLowerCase(),
    tsig: tsigKey(flags),
    knotd: knot.knotd,
    knotc: knot.knotc,
    keymgr: knot.keymgr ?? undefined,
    logger: log.child({ component: 'knotd' }),
    // serve and core hold the data dir lock before they get here: a knotd still running on its directory
    // can only be one a previous holder left behind.
    takeOver: true,
  });
}

/** The custom hostnames' edge (`--edge-url`, or a sandbox on loopback) and reconciler. They run with or without
 * own DNS: proofs and the edge need none. */
async function startHostnames(store: Store, flags: Flags, log: Logger, resolver: Resolver) {
  const settings = hostnameSettings(flags);
  const url = edgeUrl(flags);
  const sandbox = url ? null : await startEdgeSandbox();
  if (sandbox) log.info({ url: sandbox.url }, 'no --edge-url: a sandbox edge provider runs on loopback');
  const reconciler = hostnameReconciler({
    store, resolver, edge: httpEdge(url ?? sandbox!.url), log: log.child({ component: 'hostnames' }),
    fallbackOrigin: settings.fallbackOrigin, edgeAddresses: settings.edgeAddresses, intervalMs: settings.intervalMs, pendingTtlMs: settings.pendingTtlMs,
    nameservers: list(flags.nameservers),
  });
  return { reconciler, close: async () => sandbox?.close() };
}

/** The nameserver (none with `--dns off`) and its zone reconciler. */
async function startDns(store: Store, flags: Flags, log: Logger, dns: DnsInfo, resolver: Resolver) {
  if (!dns.configured) return null;
  const renamed = await syncZoneNameservers(store, dns.nameservers);
  if (renamed.length > 0) log.info({ zones: renamed.length, nameservers: dns.nameservers }, 'zones\' NS set to --nameservers');
  const nameserver = createNameserver(flags, log);
  await nameserver.start(await zoneConfigs(store)).catch((e: Error) => {
    // A taken address is the operator's to fix: fail now rather than look healthy and serve no DNS.
    if (e instanceof AddressInUseError) throw e;
    log.error({ err: e.message }, 'the nameserver did not start; zone status will say so');
  });
  const reconciler = zoneReconciler({
    store, nameserver, resolver, nameservers: dns.nameservers, log, deferFileFrom: deferFileFrom(flags),
  });
  return { nameserver, reconciler };
}

/** The registrar and payment provider (`--registrar-url`, `--payment-url`, or sandboxes on loopback; none with
 * `--registrar off`), the domain operations over them and the domain reconciler. `nudge` is bound once the
 * runner exists. */
async function startDomains(store: Store, flags: Flags, log: Logger, sealer: Sealer, dns: DnsInfo, resolver: Resolver, registry?: client.Registry) {
  const settings = domainSettings(flags);
  const registrarSandbox = settings.registrar && !settings.registrarUrl ? await startRegistrarSandbox() : null;
  const paymentSandbox = settings.registrar && !settings.paymentUrl ? await startPaymentSandbox().catch(async (e: unknown) => {
    await registrarSandbox?.close();
    throw e;
  }) : null;
  if (registrarSandbox) log.info({ url: registrarSandbox.url }, 'no --registrar-url: a sandbox registrar runs on loopback');
  if (paymentSandbox) log.info({ url: paymentSandbox.url }, 'no --payment-url: a sandbox payment provider runs on loopback');
  let nudge: (kind: ChangeKind, key: string) => void = () => undefined;
  const service = domainService({
    store, sealer, dns, log: log.child({ component: 'domains' }),
    registrar: settings.registrar ? httpRegistrar(settings.registrarUrl ?? registrarSandbox!.url) : null,
    payments: settings.registrar ? httpPayments(settings.paymentUrl ?? paymentSandbox!.url) : null,
    delegation: (name) => resolver.ns(name),
    nudge: (kind, key) => nudge(kind, key),
  });
  const reconciler = domainReconciler({
    store, domains: service, log: log.child({ component: 'domains' }), registrar: settings.registrar, registry,
    abandonAfterMs: settings.abandonAfterMs, syncIntervalMs: settings.syncIntervalMs, renewBeforeMs: settings.renewBeforeMs,
  });
  return {
    service, reconciler,
    bind: (n: (kind: ChangeKind, key: string) => void) => { nudge = n; },
    close: async () => {
      await registrarSandbox?.close();
      await paymentSandbox?.close();
    },
  };
}

/** Where nodes reach the sign-in providers (`--oauth-providers`): the real ones, a file's, or a sandbox OAuth
 * provider of ours on loopback, started here and stopped by `close`. */
async function startOAuth(command: 'serve' | 'core', flags: Flags, log: Logger) {
  const setting = oauthProviders(command, flags);
  if (setting !== 'sandbox') return { endpoints: setting, close: async () => undefined };
  const sandbox = await startOAuthSandbox({ log: log.child({ component: 'oauth-sandbox' }) });
  // Its control routes' token: for whoever may read the data directory, never in a log line.
  const controlFile = join(flags.data, 'oauth-sandbox.json');
  writeFileAtomic(controlFile, `${JSON.stringify({ url: sandbox.url, token: sandbox.token })}\n`, 0o600);
  log.info({ url: sandbox.url, control: controlFile }, '--oauth-providers sandbox: a sandbox OAuth provider runs on loopback (its control token is in the file)');
  const endpoints = Object.fromEntries(OAUTH_PROVIDERS.map((p) => [p, sandbox.endpoints(p)])) as ProviderEndpointTable;
  return { endpoints, close: () => sandbox.close() };
}

/** The core component: the sealing key (created with mode 0600 on first start), the nameserver it supervises,
 * the edge, and the reconcilers converging them, in one runner. */
async function startCore(command: 'serve' | 'core', store: Store, flags: Flags, log: Logger, registry?: client.Registry): Promise<CoreRuntime> {
  const sealer = openSealer(flags.data);
  const dns = dnsInfo(flags);
  let zones: Awaited<ReturnType<typeof startDns>> = null;
  let hostnames: Awaited<ReturnType<typeof startHostnames>> | null = null;
  let domains: Awaited<ReturnType<typeof startDomains>> | null = null;
  let oauth: Awaited<ReturnType<typeof startOAuth>> | null = null;
  try {
    // The nameserver first: it binds the DNS port it was given before the sandboxes take free ports of their own,
    // one of which could otherwise be that very port.
    // One resolver (--resolver, or the system's) for delegation checks, hostname proofs and purchases.
    const resolver = systemResolver(list(flags.resolver));
    zones = await startDns(store, flags, log, dns, resolver);
    hostnames = await startHostnames(store, flags, log, resolver);
    domains = await startDomains(store, flags, log, sealer, dns, resolver, registry);
    oauth = await startOAuth(command, flags, log);
    // Nodes' bundles are built here: they carry secret values, which only the core can open.
    const bundles = bundleReconciler({ store, sealer, plans: plans(flags), oauthEndpoints: oauth.endpoints });
    const reconcilers = [hostnames.reconciler, bundles, domains.reconciler, ...(zones ? [zones.reconciler] : [])];
    const runner = await startRunner({ store, log: log.child({ component: 'reconcilers' }), registry, reconcilers });
    domains.bind((kind, key) => runner.nudge(kind, key));
    // A restarted knotd serves what its files and journal hold: every zone is checked again at once, not at the
    // next resync.
    zones?.nameserver.onRestarted?.(() => {
      zones!.reconciler.keys().then(
        (keys) => keys.forEach((k) => runner.nudge('zone', k)),
        (e: Error) => log.error({ err: e.message }, 'listing zones after a knotd restart failed'),
      );
    });
    const started = { hostnames, domains, zones, oauth };
    return {
      core: localCore({
        sealer, dns, verifyHostname: (name) => started.hostnames.reconciler.verify(name), nudge: (kind, key) => runner.nudge(kind, key),
        domains: domains.service,
      }),
      close: async () => {
        await runner.stop();
        await started.hostnames.close();
        await started.domains.close();
        await started.oauth.close();
        await started.zones?.nameserver.stop();
      },
    };
  } catch (e) {
    // The caller only learns how to stop what startCore returns.
    await hostnames?.close();
    await domains?.close();
    await oauth?.close();
    await zones?.nameserver.stop();
    throw e;
  }
}

type Stop = () => void | Promise<void>;

/** Starts a long-running command: `start` pushes how to stop each thing it starts, and its request handler is
 * then served by listen(). If any step fails, what was started stops again, last first, before the error
 * propagates: a supervised knotd or a reconciler timer would otherwise keep alive a process that serves
 * nothing. A started command stops the same way on SIGTERM. */
async function startServer(
  flags: Flags,
  log: Logger,
  start: (stops: Stop[]) => Promise<{ handler: RequestListener | Server; registry: client.Registry }>,
): Promise<void> {
  const stops: Stop[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (e) {
        log.error({ err: (e as Error).message }, 'could not stop cleanly');
      }
    }
  };
  try {
    const { handler, registry } = await start(stops);
    await listen(handler, registry, flags, log, stopAll);
  } catch (e) {
    await stopAll();
    throw e;
  }
}

/** What `serve` and `core` own: the data dir's lock, the store, the feed's pruning and the core with its
 * reconcilers, each undone by `stops` in reverse. */
async function startOwnedCore(command: 'serve' | 'core', flags: Flags, log: Logger, stops: (() => Promise<void> | void)[], registry: client.Registry) {
  const lock = lockDataDir(flags.data);
  stops.push(() => lock.release());
  const store = openStore(flags.data);
  stops.push(() => store.close());
  stops.push(startFeedPruning(store, log.child({ component: 'feed' })).stop);
  const rt = await startCore(command, store, flags, log, registry);
  stops.push(() => rt.close());
  return { store, core: rt.core };
}

export async function runServe(flags: Flags, log: Logger): Promise<void> {
  await checkServerFlags('serve', flags);
  await startServer(flags, log, async (stops) => {
    const registry = new client.Registry();
    const { store, core } = await startOwnedCore('serve', flags, log, stops, registry);
    const app = createApp({ store, core, config: apiConfig(flags) }, log, registry);
    return { handler: app.handler, registry };
  });
}

export async function runApi(flags: Flags, log: Logger): Promise<void> {
  await checkServerFlags('api', flags);
  await startServer(flags, log, async (stops) => {
    // The api shares the data dir with a core (the split deployment): it takes no lock.
    const store = openStore(flags.data);
    stops.push(() => store.close());
    const url = flags['core-url'];
    if (!url) log.warn('no --core-url: operations that need the core answer 503 no_core');
    const core = url ? httpCore(url, coreToken(flags)!) : null;
    const app = createApp({ store, core, config: apiConfig(flags) }, log);
    return { handler: app.handler, registry: app.registry };
  });
}

export async function runCore(flags: Flags, log: Logger): Promise<void> {
  await checkServerFlags('core', flags);
  await startServer(flags, log, async (stops) => {
    const registry = new client.Registry();
    client.collectDefaultMetrics({ register: registry });
    const { core } = await startOwnedCore('core', flags, log, stops, registry);
    return { handler: coreServer(core, coreToken(flags)!, { log }), registry };
  });
}
