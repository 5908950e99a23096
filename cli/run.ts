/** The long-running commands: `serve` (everything in one process), `api` and `core` (the split). */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { existsSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import client from 'prom-client';
import { createApp } from '../api/app';
import { releaseWaits } from '../api/wait';
import { failedAuthLimit } from '../api/limits';
import type { ApiConfig } from '../api/ops';
import { rateLimitFlag } from '../lib/http/rate-limit';
import { httpCore } from '../core/client';
import { localCore } from '../core/local';
import { filesOnlyNameserver } from '../providers/nameserver/files-only';
import { addressInUse, AddressInUseError, createKnotNameserver, findKnot } from '../providers/nameserver/knot';
import { formatHostPort, knotPaths, parseHostPort } from '../providers/nameserver/knot-config';
import type { Nameserver } from '../providers/nameserver/port';
import { systemResolver } from '../providers/resolver';

import { reasonOf } from '../lib/errors';
import { exitAfterFlush, type Logger } from '../lib/log';
import type { Core, DnsInfo } from '../core/port';
import { checkSealingKey, defaultKeyPath, openSealer, replicaToken } from '../core/sealing';
import { coreListener, type CoreGrant } from '../core/server';
import { leaderCore, type Leading } from '../core/replicas';
import type { Store } from '../store/db';
import { databaseUrlOf, openStoreAt } from '../store/open';
import { startFeedPruning } from '../store/feed';
import { pruneRRsetTombstones } from '../store/rrset-tombstones';
import { pruneZoneRevisions } from '../store/zone-revisions';
import { syncZoneNameservers, zoneConfigs } from '../store/zones';
import { startRunner, type Runner } from '../reconcilers/runner';
import type { Reconciler } from '../reconcilers/types';
import { startHeartbeat, startLeadership, type Leadership } from '../reconcilers/leadership';
import { fencedStore, holderOf, liveLease, readLease, SOLE_CANDIDATE_LEASE, soleCandidate } from '../store/leader';
import { keysToImport } from '../reconcilers/zones/keys';
import { zoneReconciler } from '../reconcilers/zones';
import { catalogReconciler } from '../reconcilers/zones/catalog';
import { harden, listenOn } from '../lib/http/http-server';
import { lockDataDir } from '../lib/datadir-lock';
import { writeFileAtomic } from '../lib/files';
import {
  advertiseUrl, checkServerFlags, coreToken, domainSettings, edgeUrl, hostnameSettings, deferFileFrom, list, metricsListen, oauthProviders, plans, port, serverHardening, tlsFiles,
  tsigKey, type FlagName, type Flags, type ServerCommand,
} from './options';
import { httpEdge } from '../providers/edge/http';
import { leaderOnly } from '../providers/leader-only';
import { startEdgeSandbox } from '../providers/edge/sandbox';
import { hostnameReconciler } from '../reconcilers/hostnames';
import { bundleReconciler } from '../reconcilers/bundles';
import { projectReconciler } from '../reconcilers/projects';
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
/** Whether this process still leads a term (Leadership.holds), for the provider clients. */
type Holds = (term: number) => boolean;

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

/** Why `at` cannot be listened on (a port in use, ...), or null when it can: tried by listening and closing. */
async function cannotListen(at: { host: string; port: number }): Promise<string | null> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', (e: NodeJS.ErrnoException) => resolve(LISTEN_ERRORS[e.code ?? ''] ?? e.message));
    probe.listen(at.port, at.host, () => probe.close(() => resolve(null)));
  });
}

/** Every address this start would listen on and cannot, named in one error before anything but the data dir's
 * lock is taken (no store, no knotd, no sandbox): an operator fixes them all at once. The metrics address only
 * counts when --metrics-listen was given; its default, taken, is not fatal (bindMetrics). The DNS address counts
 * when knotd will bind it and no knotd may be left running on the data dir (its control socket is there): that
 * one holds the address until knot's start() stops it, and checks the address itself then. */
async function checkAddresses(command: ServerCommand, flags: Flags, given: ReadonlySet<FlagName>): Promise<void> {
  const api = { host: flags.host, port: port(flags) };
  const metricsAt = metricsListen(flags);
  const checks: Promise<string | null>[] = [
    cannotListen(api).then((why) => why && `cannot listen on ${formatHostPort(api)} (--host, --port): ${why}`),
  ];
  if (metricsAt && given.has('metrics-listen')) {
    checks.push(cannotListen(metricsAt).then((why) => why && `cannot listen on ${formatHostPort(metricsAt)} (--metrics-listen): ${why}`));
  }
  const dns = command !== 'api' && flags.dns === 'on' && findKnot() ? parseHostPort(flags['dns-listen'], true) : null;
  if (dns && dns.port !== 0 && !existsSync(knotPaths(join(flags.data, 'knot')).socket)) {
    checks.push(addressInUse(dns).then((taken) => (taken ? `the DNS address ${flags['dns-listen']} (--dns-listen) is in use` : null)));
  }
  const taken = (await Promise.all(checks)).filter((why): why is string => typeof why === 'string');
  if (taken.length > 0) throw new Error(taken.join('; '));
}

/** Listens on `host:port` and answers the URL it listens on; `flag` names what set the address, for the error. */
async function bind(server: Server, at: { host: string; port: number }, flag: string): Promise<string> {
  return listenOn(server, at).catch((e: NodeJS.ErrnoException) => {
    throw new Error(`cannot listen on ${formatHostPort(at)} (${flag}): ${LISTEN_ERRORS[e.code ?? ''] ?? e.message}`, { cause: e });
  });
}

/** Listens on --metrics-listen. Its default taken (by `api` beside a `core`, or a second `serve`) is not fatal:
 * the listener takes a free port of the same host instead, which the warning and the first stdout line name. */
async function bindMetrics(metrics: Server, at: { host: string; port: number }, given: ReadonlySet<FlagName>, log: Logger): Promise<string> {
  try {
    return await bind(metrics, at, '--metrics-listen');
  } catch (e) {
    if (given.has('metrics-listen') || ((e as Error).cause as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') throw e;
    const url = await bind(metrics, { ...at, port: 0 }, '--metrics-listen');
    log.warn({ default: formatHostPort(at), metrics: `${url}/metrics` }, 'the default metrics address is in use: metrics are served on another port (--metrics-listen chooses one)');
    return url;
  }
}

/** What a started command serves, and what listen() does at its start and stop. */
interface Started {
  handler: RequestListener | Server;
  registry: client.Registry;
  /** Where its knotd answers DNS (`dns` in the first stdout line), for `serve` and `core`; null when none does. */
  dns?: string | null;
  /** Answers held requests (long-polls) at once: called when stopping, so that they do not hold the stop. */
  release?: () => void;
  /** Called once the API listens, before the listening line is printed, with the URL the other processes reach it at
   * (--advertise-url, else the listening URL: the leader lease names it) and the URL it listens on. */
  listening?: (advertised: string, url: string) => Promise<void>;
  /** Called at once when stopping, before in-flight requests finish: a leader resigns so that another leads now. */
  stepDown?: () => Promise<void>;
}

/** Listens on the API port and on --metrics-listen, both hardened against slow and flooding clients, prints the
 * `{"listening": URL, "metrics": URL | null, "dns": "HOST:PORT" | null}` line first on stdout (`dns` for `serve`
 * and `core`), and on SIGTERM/SIGINT stops accepting, answers held long-polls, lets in-flight requests finish,
 * then runs `close` (reconcilers, knotd, the database) and exits. When it cannot listen it throws, and the caller
 * stops what it started. */
async function listen(started: Started, flags: Flags, given: ReadonlySet<FlagName>, log: Logger, close: () => Promise<void>): Promise<void> {
  const { handler, registry } = started;
  // With --tls-cert and --tls-key the API port speaks HTTPS (the metrics listener stays on loopback, plain).
  const tls = tlsFiles(flags);
  if (tls && typeof handler !== 'function') throw new Error('TLS needs a request handler');
  const server = typeof handler === 'function' ? (tls ? createHttpsServer(tls, handler) : createServer(handler)) : handler;
  server.keepAliveTimeout = 65_000;
  let metrics: Server | null = null;
  let url: string;
  let metricsUrl: string | null = null;
  const dns = started.dns === undefined ? {} : { dns: started.dns };
  try {
    const hardening = serverHardening(flags);
    harden(server, hardening, log.child({ listener: 'api' }));
    const metricsAt = metricsListen(flags);
    if (metricsAt) {
      metrics = createServer(metricsHandler(registry));
      harden(metrics, { ...hardening, ...METRICS_LIMITS }, log.child({ listener: 'metrics' }));
    }
    url = await bind(server, { host: flags.host, port: port(flags) }, '--host, --port');
    if (metrics && metricsAt) metricsUrl = `${await bindMetrics(metrics, metricsAt, given, log)}/metrics`;
    const advertised = advertiseUrl(flags) ?? url;
    log.info({ url, advertised, metrics: metricsUrl, ...dns, ...hardening }, 'listening');
    await started.listening?.(advertised, url);
  } catch (e) {
    server.close();
    metrics?.close();
    throw e;
  }
  process.stdout.write(`${JSON.stringify({ listening: url, metrics: metricsUrl, ...dns })}\n`);

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
    // A node's long-poll is held for up to 30 s: answered now, it polls again (another process, or this one
    // once restarted) instead of holding the stop until the force timer.
    started.release?.();
    void started.stepDown?.();
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
  trustProxy: flags['trust-proxy'] === true,
});

interface CoreRuntime {
  /** The Core the API asks (and `core`'s `api` callers): a follower's provider calls go to the leader. */
  core: Core;
  /** The Core served to the other processes' forwarded calls: refuses, never forwards, when this one does not lead. */
  replicas: Core;
  /** Where its knotd answers DNS, `host:port`; null without one. */
  dns: string | null;
  /** Starts bidding for the leader lease as the process whose API the others reach at `url`; the reconcilers run while it leads. */
  lead(url: string): Promise<void>;
  /** Stops leading (resigning) and bidding. */
  stepDown(): Promise<void>;
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
async function startHostnames(store: Store, flags: Flags, log: Logger, resolver: Resolver, holds: Holds) {
  const settings = hostnameSettings(flags);
  const url = edgeUrl(flags);
  const sandbox = url ? null : await startEdgeSandbox();
  if (sandbox) log.info({ url: sandbox.url }, 'no --edge-url: a sandbox edge provider runs on loopback');
  const reconciler = hostnameReconciler({
    store, resolver, edge: leaderOnly(httpEdge(url ?? sandbox!.url), holds), log: log.child({ component: 'hostnames' }),
    fallbackOrigin: settings.fallbackOrigin, edgeAddresses: settings.edgeAddresses, intervalMs: settings.intervalMs, pendingTtlMs: settings.pendingTtlMs,
    nameservers: list(flags.nameservers),
  });
  return { reconciler, close: async () => sandbox?.close() };
}

/** The nameserver (none with `--dns off`) and its zone reconciler. */
async function startDns(store: Store, flags: Flags, log: Logger, dns: DnsInfo, resolver: Resolver, sealer: Sealer) {
  if (!dns.configured) return null;
  const renamed = await syncZoneNameservers(store, dns.nameservers);
  if (renamed.length > 0) log.info({ zones: renamed.length, nameservers: dns.nameservers }, 'zones\' NS set to --nameservers');
  const nameserver = createNameserver(flags, log);
  const catalogZone = flags['catalog-zone'].toLowerCase();
  // Another process leads or led last: what this knotd served before may be older than what that one served since.
  const lease = await readLease(store);
  if (lease && lease.holder !== holderOf(flags.data)) await nameserver.standBy?.();
  await nameserver.start(await zoneConfigs(store)).catch((e: Error) => {
    // A taken address is the operator's to fix: fail now rather than look healthy and serve no DNS.
    if (e instanceof AddressInUseError) throw e;
    log.error({ err: e.message }, 'the nameserver did not start; zone status will say so');
  });
  return {
    nameserver,
    /** The zone and catalog reconcilers for one leadership term: they assume nothing served that they did not apply
     * themselves. */
    reconcilers: (tookOver = false) => ({
      zone: zoneReconciler({
        store, nameserver, resolver, nameservers: dns.nameservers, log, deferFileFrom: deferFileFrom(flags), sealer, tookOver, catalogZone,
        soleLeader: soleCandidate(store),
      }),
      catalog: catalogReconciler({ store, nameserver, catalogZone, log: log.child({ component: 'catalog' }) }),
    }),
    /** Makes this process's knotd the hidden primary, with the stored DNSSEC keys, before any zone pass; answers
     * whether it took over from another process's. */
    lead: async (): Promise<boolean> => {
      const configs = await zoneConfigs(store);
      return (await nameserver.lead?.(configs, await keysToImport({ store, sealer }, configs.filter((z) => z.dnssec).map((z) => z.name)))) ?? false;
    },
  };
}

/** The registrar and payment provider (`--registrar-url`, `--payment-url`, or sandboxes on loopback; none with
 * `--registrar off`), the domain operations over them and the domain reconciler. `nudge` is bound once the
 * runner exists. */
async function startDomains(store: Store, flags: Flags, log: Logger, sealer: Sealer, dns: DnsInfo, resolver: Resolver, holds: Holds, registry?: client.Registry) {
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
    registrar: settings.registrar ? leaderOnly(httpRegistrar(settings.registrarUrl ?? registrarSandbox!.url), holds) : null,
    payments: settings.registrar ? leaderOnly(httpPayments(settings.paymentUrl ?? paymentSandbox!.url), holds) : null,
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

/** The core component: with its sealing key (startOwnedCore), the nameserver it supervises, the edge, and the
 * reconcilers converging them, in one runner. */
async function startCore(command: 'serve' | 'core', store: Store, sealer: Sealer, token: string, flags: Flags, log: Logger, registry?: client.Registry): Promise<CoreRuntime> {
  const dns = dnsInfo(flags);
  let zones: Awaited<ReturnType<typeof startDns>> = null;
  let hostnames: Awaited<ReturnType<typeof startHostnames>> | null = null;
  let domains: Awaited<ReturnType<typeof startDomains>> | null = null;
  let oauth: Awaited<ReturnType<typeof startOAuth>> | null = null;
  let leadership: Leadership | null = null;
  // A reconcile pass's provider calls go out only while this process holds the pass's term (providers/leader-only.ts).
  const holds: Holds = (term) => leadership?.holds(term) ?? false;
  try {
    // The nameserver first: it binds the DNS port it was given before the sandboxes take free ports of their own,
    // one of which could otherwise be that very port.
    // One resolver (--resolver, or the system's) for delegation checks, hostname proofs and purchases.
    const resolver = systemResolver(list(flags.resolver));
    zones = await startDns(store, flags, log, dns, resolver, sealer);
    hostnames = await startHostnames(store, flags, log, resolver, holds);
    domains = await startDomains(store, flags, log, sealer, dns, resolver, holds, registry);
    oauth = await startOAuth(command, flags, log);
    // Nodes' bundles are built here: they carry secret values, which only the core can open.
    const bundles = bundleReconciler({ store, sealer, plans: plans(flags), oauthEndpoints: oauth.endpoints });
    const projects = projectReconciler({ store });
    let zoneRec: Reconciler | undefined;
    // The reconcilers run only while this process leads (reconcilers/leadership.ts); a follower's nudges go nowhere,
    // since the leader's feed poll finds the same changes.
    let runner: Runner | null = null;
    let closing = false;
    const nudge = (kind: ChangeKind, key: string): void => runner?.nudge(kind, key);
    domains.bind(nudge);
    // A restarted knotd serves what its files and journal hold: every zone is checked again at once, not at the
    // next resync.
    zones?.nameserver.onRestarted?.(() => {
      if (runner && zoneRec) zoneRec.keys().then(
        (keys) => keys.forEach((k) => nudge('zone', k)),
        (e: Error) => log.error({ err: reasonOf(e) }, 'listing zones after a knotd restart failed'),
      );
    });
    const started = { hostnames, domains, zones, oauth };
    const local = localCore({
      sealer, dns, verifyHostname: (name) => started.hostnames.reconciler.verify(name), nudge,
      domains: domains.service,
    });
    const leading: Leading = {
      self: holderOf(flags.data),
      held: () => {
        const term = leadership?.term() ?? null;
        return term !== null && holds(term) ? term : null;
      },
      leader: () => liveLease(store),
    };
    // Both attempts of a forwarded call (httpCore retries once) end within the request's own timeout: a leader
    // that does not answer is the client's 503, not a request cut without one.
    const forwardTimeoutMs = Math.floor(serverHardening(flags).requestTimeoutMs / 3);
    return {
      core: leaderCore(local, leading, (url) => httpCore(url, token, { timeoutMs: forwardTimeoutMs })),
      replicas: leaderCore(local, leading),
      dns: zones?.nameserver.address ? formatHostPort(zones.nameserver.address()) : null,
      lead: async (url) => {
        leadership = await startLeadership({
          store, candidate: { holder: holderOf(flags.data), url, sole: soleCandidate(store) }, log: log.child({ component: 'leader' }), registry,
          ...(soleCandidate(store) ? SOLE_CANDIDATE_LEASE : {}),
          lead: async (term, lost) => {
            const dnsRecs = zones?.reconcilers(await zones.lead());
            zoneRec = dnsRecs?.zone;
            const reconcilers = [hostnames!.reconciler, bundles, projects, domains!.reconciler, ...(dnsRecs ? [dnsRecs.zone, dnsRecs.catalog] : [])];
            const r = await startRunner({ store, log: log.child({ component: 'reconcilers', term }), registry, reconcilers, term, onFenced: lost });
            runner = r;
            return async () => {
              if (runner === r) runner = null;
              await r.stop();
              // A follower's knotd serves nothing: the next leader's is the primary. Not when this process stops:
              // its knotd stops too, and serves its zones at once when it comes back as the leader.
              if (!closing) await zones?.nameserver.standBy?.();
            };
          },
        });
      },
      stepDown: async () => {
        closing = true;
        await leadership?.stop();
      },
      close: async () => {
        closing = true;
        await leadership?.stop();
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

/** Starts a long-running command: `start` checks its addresses (checkAddresses), pushes how to stop each thing
 * it starts onto `stops` and what only a failed start takes back (a data dir it made) onto `undo`, and what it
 * returns is then served by listen(). If any step fails, what was started stops
 * again, last first, before the error propagates: a supervised knotd or a reconciler timer would otherwise
 * keep alive a process that serves nothing. A started command stops the same way on SIGTERM. */
async function startServer(
  command: ServerCommand,
  flags: Flags,
  given: ReadonlySet<FlagName>,
  log: Logger,
  start: (stops: Stop[], undo: Stop[]) => Promise<Started>,
): Promise<void> {
  await checkServerFlags(command, flags);
  const stops: Stop[] = [];
  const undo: Stop[] = [];
  const run = async (list: Stop[]): Promise<void> => {
    for (const stop of list.splice(0).reverse()) {
      try {
        await stop();
      } catch (e) {
        log.error({ err: reasonOf(e) }, 'could not stop cleanly');
      }
    }
  };
  try {
    await listen(await start(stops, undo), flags, given, log, () => run(stops));
  } catch (e) {
    await run(stops);
    await run(undo);
    throw e;
  }
}

/** What `serve` and `core` own: the data dir's lock, the store, the sealing key (refused when it does not open
 * the store's sealed values), the feed's pruning and the core with its reconcilers, each undone by `stops` in
 * reverse. A data dir this start made is removed by `undo` (after the lock is let go) when the start fails: the
 * next try starts afresh, not on a half-made store. The lock comes before the addresses: a second serve on a
 * data dir is told that, not that the first one's ports are taken. */
async function startOwnedCore(command: 'serve' | 'core', flags: Flags, given: ReadonlySet<FlagName>, log: Logger, stops: Stop[], undo: Stop[], registry: client.Registry) {
  const made = !existsSync(flags.data);
  const lock = lockDataDir(flags.data);
  // Only once the lock is ours: a start refused by another's lock must not remove the directory it made.
  if (made) undo.push(() => rmSync(flags.data, { recursive: true, force: true }));
  stops.push(() => lock.release());
  await checkAddresses(command, flags, given);
  const opened = await openStoreAt({ data: flags.data, databaseUrl: databaseUrlOf(flags['database-url']) });
  stops.push(() => opened.close());
  // A reconcile pass's writes are refused once its term no longer leads, wherever the code that writes lives.
  const store = fencedStore(opened);
  // Before anything writes (the feed's pruning, knotd, the listener): a process given another installation's key
  // file stops here, with the store and the file as they were.
  const keyFile = flags['sealing-key'] ?? defaultKeyPath(flags.data);
  await checkSealingKey(store, keyFile);
  const sealer = openSealer(keyFile);
  const token = replicaToken(keyFile);
  stops.push(startFeedPruning(store, log.child({ component: 'feed' }), undefined, undefined, [pruneZoneRevisions, pruneRRsetTombstones]).stop);
  const rt = await startCore(command, store, sealer, token, flags, log, registry);
  stops.push(() => rt.close());
  // The other processes' calls forwarded to this one when it leads (core/replicas.ts).
  const replicas: CoreGrant = { token, core: rt.replicas };
  return { store, core: rt.core, replicas, dns: rt.dns, listening: rt.lead, stepDown: rt.stepDown };
}

export async function runServe(flags: Flags, given: ReadonlySet<FlagName>, log: Logger): Promise<void> {
  await startServer('serve', flags, given, log, async (stops, undo) => {
    const registry = new client.Registry();
    const { store, core, replicas, dns, listening, stepDown } = await startOwnedCore('serve', flags, given, log, stops, undo, registry);
    const app = createApp({ store, core, config: apiConfig(flags) }, log, registry);
    // The leader row names this listener's URL: the other processes' forwarded calls arrive on it, beside the API.
    const wire = coreListener([replicas], { log, authFailed: failedAuthLimit() });
    const handler: RequestListener = (req, res) => (req.url?.startsWith('/internal/') ? wire(req, res) : app.handler(req, res));
    return { handler, registry, dns, release: () => releaseWaits(store), listening, stepDown };
  });
}

export async function runApi(flags: Flags, given: ReadonlySet<FlagName>, log: Logger): Promise<void> {
  await startServer('api', flags, given, log, async (stops) => {
    await checkAddresses('api', flags, given);
    // The api shares the data dir with a core (the split deployment): it takes no lock.
    const store = await openStoreAt({ data: flags.data, databaseUrl: databaseUrlOf(flags['database-url']) });
    stops.push(() => store.close());
    const url = flags['core-url'];
    if (!url) log.warn('no --core-url: operations that need the core answer 503 no_core');
    const core = url ? httpCore(url, coreToken(flags)!) : null;
    const app = createApp({ store, core, config: apiConfig(flags) }, log);
    // Several api processes may share a host and a data dir: each is named by the URL it listens on.
    const listening = async (advertised: string, url: string): Promise<void> => {
      stops.push(startHeartbeat(store, { holder: `${hostname()}:api:${url}`, url: advertised }, log.child({ component: 'heartbeat' })));
    };
    return { handler: app.handler, registry: app.registry, release: () => releaseWaits(store), listening };
  });
}

export async function runCore(flags: Flags, given: ReadonlySet<FlagName>, log: Logger): Promise<void> {
  await startServer('core', flags, given, log, async (stops, undo) => {
    const registry = new client.Registry();
    client.collectDefaultMetrics({ register: registry });
    const { core, replicas, dns, listening, stepDown } = await startOwnedCore('core', flags, given, log, stops, undo, registry);
    const wire = coreListener([{ token: coreToken(flags)!, core }, replicas], { log, authFailed: failedAuthLimit() });
    return { handler: createServer(wire), registry, dns, listening, stepDown };
  });
}
