/**
 * The reference node (`hostplane node-agent`): long-polls its bundle from the control plane, writes it to
 * `D/bundle.json`, converges its workers to it (workers/supervisor.ts), serves them behind the front end (gate/frontend.ts)
 * and reports the applied version and each project's storage usage. The front end serves HTTPS when given a
 * certificate, with a plain HTTP listener beside it that only redirects; every request for a known host passes
 * the access gate (gate/access-gate.ts) first.
 *
 * Unreachable control plane: the node keeps serving the last bundle it has (the one in memory, or at start the
 * one in `D/bundle.json`) and retries with backoff; the report loop does the same on its own schedule.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createHttpsServer } from 'node:https';
import { connectionLimits, DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, descriptorLimit, harden, listenOn } from '../lib/http/http-server';
import type { Logger } from '../lib/log';
import { accessGate, type AccessGateOptions } from './gate/access-gate';
import { loadAccessKey } from './gate/access-session';
import { backoffDelay, DEFAULT_BACKOFF, sleep, type BackoffOptions } from './sync/backoff';
import { olderVersion, type VersionedBundle } from './sync/bundle';
import { readBundleFile, writeBundleFile } from './sync/bundle-file';
import type { ControlPlane, Report } from './sync/control';
import { frontend, httpsRedirect } from './gate/frontend';
import type { NodeService } from './gate/services';
import { Supervisor, type SupervisorOptions } from './workers/supervisor';
import { usedBytes } from './sync/usage';
import { adoptAtFirstRun } from './workers/lifetimes';
import { defaultWorkerUsers, type WorkerUsers } from './workers/users';

export interface AgentOptions {
  dir: string;
  control: ControlPlane;
  /** The workers' argv. */
  command: readonly string[];
  /** Where the front end listens (port 0: a free one). */
  listen: { host: string; port: number };
  /** PEM certificate chain and key: the front end serves HTTPS. Without them plain HTTP, where projects in
   * `org` or `password` mode answer 403 `https_required`. */
  tls?: { cert: Buffer; key: Buffer };
  /** With `tls`: a plain HTTP listener that redirects to the front end. */
  httpListen?: { host: string; port: number };
  /** The access gate's settings (the dashboard, the session lifetime, its limits). */
  access?: Omit<AccessGateOptions, 'key' | 'redeem' | 'log' | 'dashboardUrl'> & { dashboardUrl?: string };
  /** The node's services under `/__service/` (the sign-in handler), after the gate; told each applied bundle. */
  services?: NodeService;
  log: Logger;
  /** Seconds a bundle request waits for a change (`?wait=`, default 30). */
  waitSeconds?: number;
  /** Reports go out after each applied bundle and at least this often (default 10 s). */
  reportIntervalMs?: number;
  /** Delays between attempts when the control plane cannot be reached. */
  backoff?: BackoffOptions;
  /** Who workers run as (default: each project its own uid when the agent runs as root; agent/workers/users.ts). */
  users?: WorkerUsers;
  /** Passed to the supervisor (tests start fake workers). */
  supervisor?: Partial<SupervisorOptions>;
}

export interface RunningAgent {
  /** The front end's URL (https with `tls`). */
  url: string;
  /** The redirecting plain HTTP listener's URL, when there is one. */
  httpUrl: string | null;
  supervisor: Supervisor;
  /** Sends a report now (also what the report loop does). */
  reportNow(): Promise<void>;
  /** Stops polling and reporting, closes the front end and stops every worker. */
  stop(): Promise<void>;
}

/** A listener facing the internet, with the API's timeouts and connection caps (lib/http/http-server.ts). */
function hardened(server: Server, log: Logger, listener: string): Server {
  server.keepAliveTimeout = 65_000;
  harden(server, { ...connectionLimits(descriptorLimit()), headersTimeoutMs: DEFAULT_HEADERS_TIMEOUT_MS, requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS }, log.child({ listener }));
  return server;
}

const closeServer = (server: Server): Promise<void> => new Promise<void>((resolve) => {
  server.close(() => resolve());
  server.closeIdleConnections();
});

export async function startAgent(o: AgentOptions): Promise<RunningAgent> {
  const log = o.log;
  mkdirSync(o.dir, { recursive: true, mode: 0o700 });
  const stopper = new AbortController();
  const stopped = stopper.signal;
  const waitSeconds = o.waitSeconds ?? 30;
  const users = o.users ?? defaultWorkerUsers();
  if (users.mode === 'isolated') {
    log.info({ uidBase: users.uidBase }, 'each project\'s worker runs as a user of its own (uid base + the project\'s index in users.json)');
  } else {
    log.warn(
      { allowSharedUser: users.allowSeveralOrgs },
      users.allowSeveralOrgs
        ? 'the agent does not run as root: every worker runs as the agent\'s user and can read the other workers\' data and bundle.json (every project\'s secret values) and the node\'s keys (access.key, signin.key: access sessions can be forged); --allow-shared-user: projects of several organizations run anyway'
        : 'the agent does not run as root: every worker runs as the agent\'s user and can read the other workers\' data and bundle.json (every project\'s secret values) and the node\'s keys (access.key, signin.key: access sessions can be forged); projects of one organization run at a time (--allow-shared-user lifts this)',
    );
  }
  // A report is wanted at once (a bundle was applied): the report loop's sleep is cut short, or skipped.
  let reportWanted = false;
  let wakeReports: (() => void) | null = null;
  const supervisor = new Supervisor({
    dir: o.dir, command: o.command, log, users,
    onApplied: (version) => {
      log.info({ bundleVersion: version }, 'bundle applied');
      reportWanted = true;
      wakeReports?.();
    },
    onProjectChange: () => {
      reportWanted = true;
      wakeReports?.();
    },
    ...o.supervisor,
  });

  // Applies the newest bundle received; bundles that arrive while one is applied are coalesced to the last.
  let next: VersionedBundle | null = null;
  let applying = false;
  const applyLatest = (b: VersionedBundle): void => {
    next = b;
    if (applying) return;
    applying = true;
    void (async () => {
      while (next && !stopped.aborted) {
        const b2 = next;
        next = null;
        try {
          await supervisor.apply(b2);
        } catch (e) {
          log.error({ err: (e as Error).message, bundleVersion: b2.version }, 'applying the bundle failed');
        }
        // Whatever the workers did: the services follow the bundle (sign-in stops the helpers of revoked grants).
        o.services?.apply(b2.bundle.projects);
      }
      applying = false;
    })();
  };

  let version: string | null = null;
  let last: VersionedBundle | null = null;
  try {
    last = readBundleFile(o.dir);
  } catch (e) {
    log.warn({ err: (e as Error).message }, 'the bundle file cannot be read: waiting for the control plane');
  }
  // Before any bundle is applied, also when none can be read: a later start must not take a bundle this agent wrote
  // for an earlier agent's.
  adoptAtFirstRun(o.dir, last?.bundle.projects ?? []);
  if (last) {
    version = last.version;
    log.info({ bundleVersion: last.version, projects: last.bundle.projects.length }, 'serving the last bundle written until the control plane answers');
    applyLatest(last);
  }

  const route = (host: string) => supervisor.route(host);
  const gate = accessGate({
    ...o.access,
    key: loadAccessKey(o.dir),
    dashboardUrl: o.access?.dashboardUrl ?? null,
    redeem: (code, signal) => o.control.redeem(code, AbortSignal.any([stopped, signal])),
    log: log.child({ component: 'access' }),
  });
  if (!o.tls) log.warn('the front end serves plain HTTP: projects in org or password mode answer 403 https_required (--tls-cert, --tls-key)');
  const handler = frontend(route, { gate, services: o.services?.handle });
  const server = hardened(o.tls ? createHttpsServer({ cert: o.tls.cert, key: o.tls.key }, handler) : createServer(handler), log, 'frontend');
  let url: string;
  let httpServer: Server | null = null;
  let httpUrl: string | null = null;
  try {
    url = await listenOn(server, o.listen);
    if (o.tls && o.httpListen) {
      httpServer = hardened(createServer(httpsRedirect(route, (server.address() as AddressInfo).port)), log, 'http-redirect');
      httpUrl = await listenOn(httpServer, o.httpListen);
    }
  } catch (e) {
    if (server.listening) await closeServer(server);
    await supervisor.stop();
    throw e;
  }

  const poll = (async () => {
    let attempt = 0;
    while (!stopped.aborted) {
      try {
        const answer = await o.control.bundle({
          version, waitSeconds,
          signal: AbortSignal.any([stopped, AbortSignal.timeout((waitSeconds + 15) * 1000)]),
        });
        if (answer.kind === 'changed' && version !== null && olderVersion(answer.version, version)) {
          // Versions only rise (the control plane's change seq): a lower one is a deposed leader's or a stale
          // replica's, never newer desired state. Kept out like a failed poll, so that it is not asked for in a loop.
          attempt++;
          const delay = backoffDelay(attempt, o.backoff ?? DEFAULT_BACKOFF);
          log.warn({ served: answer.version, bundleVersion: version, retryInMs: delay }, 'the control plane served an older bundle than the one applied: ignored');
          await sleep(delay, stopped);
          continue;
        }
        if (attempt > 0) log.info({ attempts: attempt }, 'the control plane answers again');
        attempt = 0;
        if (answer.kind === 'changed' && answer.version !== version) {
          writeBundleFile(o.dir, answer);
          version = answer.version;
          log.info({ bundleVersion: version, projects: answer.bundle.projects.length }, 'bundle written');
          applyLatest(answer);
        }
      } catch (e) {
        if (stopped.aborted) break;
        attempt++;
        const delay = backoffDelay(attempt, o.backoff ?? DEFAULT_BACKOFF);
        log.warn({ err: (e as Error).message, attempts: attempt, retryInMs: delay, bundleVersion: version }, 'cannot get the bundle: serving the last one, retrying');
        await sleep(delay, stopped);
      }
    }
  })();

  const reportNow = async (): Promise<void> => {
    const applied = supervisor.appliedVersion();
    const placed = supervisor.projects();
    if (applied === null && placed.length === 0) return;
    const projects: Report['projects'] = [];
    for (const p of placed) {
      projects.push({ org: p.org, project: p.project, usedBytes: p.storageDir ? await usedBytes(p.storageDir) : 0, appliedVersion: p.appliedVersion, failure: p.failure });
    }
    // Until every worker of some bundle runs, the node as a whole has applied none (0); each project says its own.
    await o.control.report({ bundleVersion: applied ?? '0', projects }, AbortSignal.any([stopped, AbortSignal.timeout(15_000)]));
  };

  const reports = (async () => {
    let attempt = 0;
    while (!stopped.aborted) {
      let delay = o.reportIntervalMs ?? 10_000;
      reportWanted = false;
      try {
        await reportNow();
        attempt = 0;
      } catch (e) {
        if (stopped.aborted) break;
        attempt++;
        delay = Math.min(delay, backoffDelay(attempt, o.backoff ?? DEFAULT_BACKOFF));
        log.warn({ err: (e as Error).message, attempts: attempt, retryInMs: delay }, 'the report was not accepted: retrying');
      }
      if (reportWanted && attempt === 0) continue;
      const wake = new AbortController();
      wakeReports = () => wake.abort();
      await sleep(delay, AbortSignal.any([stopped, wake.signal]));
      wakeReports = null;
    }
  })();

  return {
    url,
    httpUrl,
    supervisor,
    reportNow,
    stop: async () => {
      stopper.abort();
      await Promise.all([poll, reports]);
      await Promise.all([closeServer(server), httpServer && closeServer(httpServer)]);
      await supervisor.stop();
      o.services?.close();
      o.control.close();
    },
  };
}
