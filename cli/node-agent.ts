/** `hostplane node-agent`: the reference node (agent/agent.ts). Its flags are checked before anything starts; it
 * prints `{"listening": URL}` (the front end; `"redirect": URL` adds the `--http-listen` listener's) as its first
 * stdout line, like the servers, and stops its workers on SIGTERM or SIGINT. The node token comes from
 * `--token-file`, HOSTPLANE_NODE_TOKEN (taken out of the environment once read) or `--token`, and reaches no log
 * line; `--token` is refused where workers run as their own users, since every one of them could read it in the
 * agent's command line (/proc/<pid>/cmdline is world-readable). */
import { badRequest } from '../lib/errors';
import { exitAfterFlush, type Logger } from '../lib/log';
import { startAgent } from '../agent/agent';
import { createSignInService } from '../agent/signin/service';
import { httpControlPlane } from '../agent/sync/control';
import { defaultWorkerUsers, MAX_WORKER_UID, runsAsRoot, type WorkerUsers } from '../agent/workers/users';
import { defaultWorkerCommand, shellCommand } from '../agent/workers/worker-process';
import { DURATION_UNITS, durationMs, httpUrlFlag, listenAddress, readFlagFile, tlsFiles, type Flags } from './options';

export interface NodeAgentSettings {
  nodeId: string;
  token: string;
  dir: string;
  control: string;
  ca: string | undefined;
  command: string[];
  listen: { host: string; port: number };
  /** The front end's certificate and key (HTTPS), and the redirecting plain HTTP listener. */
  tls: { cert: Buffer; key: Buffer } | undefined;
  httpListen: { host: string; port: number } | undefined;
  dashboardUrl: string | undefined;
  sessionTtlMs: number;
  reportIntervalMs: number;
  /** Who workers run as: as root, each project its own uid from `--worker-uid-base`; otherwise the agent's
   * user, one organization at a time unless `--allow-shared-user`. */
  users: WorkerUsers;
}

/** The node token: from `--token-file`, the environment (deleted from `env` once read, so no child inherits it)
 * or `--token`, which is refused where workers are isolated (`isolated`: the agent runs as root). */
function nodeToken(flags: Flags, env: NodeJS.ProcessEnv, isolated: boolean): string {
  const fromEnv = env.HOSTPLANE_NODE_TOKEN;
  delete env.HOSTPLANE_NODE_TOKEN;
  const given = [flags['token-file'] !== undefined && '--token-file', fromEnv !== undefined && 'HOSTPLANE_NODE_TOKEN', flags.token !== undefined && '--token'].filter(Boolean);
  if (given.length > 1) throw badRequest(`node-agent takes one node token, but has ${given.join(' and ')}`);
  if (flags.token !== undefined && isolated) {
    throw badRequest('--token puts the node token in the agent\'s command line, which every worker can read (/proc/<pid>/cmdline): give --token-file FILE or HOSTPLANE_NODE_TOKEN');
  }
  const token = flags['token-file'] !== undefined ? readFlagFile('token-file', flags['token-file']).toString('utf8').trim() : fromEnv ?? flags.token;
  if (!token) throw badRequest('node-agent needs --token-file FILE or HOSTPLANE_NODE_TOKEN (the token `admin node register` printed)');
  return token;
}

/** The node agent's settings from its flags; a usage error (400) names the first wrong one. */
export function nodeAgentSettings(flags: Flags, env: NodeJS.ProcessEnv = process.env, isolated = runsAsRoot()): NodeAgentSettings {
  const nodeId = flags.node;
  if (!nodeId) throw badRequest('node-agent needs --node ID (the id `admin node register` made)');
  const dir = flags.dir;
  if (!dir) throw badRequest('node-agent needs --dir D (where it keeps the bundle, storage and databases)');
  const control = flags.control;
  if (!control) throw badRequest('node-agent needs --control URL (the control plane)');
  httpUrlFlag('control', control);
  let ca: string | undefined;
  if (flags.ca !== undefined) {
    ca = readFlagFile('ca', flags.ca).toString('utf8');
    if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw badRequest(`--ca ${flags.ca} holds no PEM certificate`);
  }
  const listen = listenAddress(flags.listen);
  if (!listen) throw badRequest(`invalid --listen ${flags.listen}; expected HOST:PORT or [IPv6]:PORT`);
  const tls = tlsFiles(flags) ?? undefined;
  let httpListen: NodeAgentSettings['httpListen'];
  if (flags['http-listen'] !== undefined) {
    if (!tls) throw badRequest('--http-listen needs --tls-cert and --tls-key: without them --listen serves plain HTTP itself');
    httpListen = listenAddress(flags['http-listen']) ?? undefined;
    if (!httpListen) throw badRequest(`invalid --http-listen ${flags['http-listen']}; expected HOST:PORT or [IPv6]:PORT`);
  }
  const dashboardUrl = flags['dashboard-url'];
  if (dashboardUrl !== undefined) httpUrlFlag('dashboard-url', dashboardUrl);
  const sessionTtlMs = durationMs(flags['access-session']) ?? 0;
  if (sessionTtlMs < DURATION_UNITS.m! || sessionTtlMs > 365 * DURATION_UNITS.d!) {
    throw badRequest(`invalid --access-session ${flags['access-session']}; expected a number and m, h or d, from 1m to 365d, as 24h`);
  }
  const interval = flags['report-interval-ms'];
  if (!/^\d+$/.test(interval) || Number(interval) < 100) throw badRequest(`invalid --report-interval-ms ${interval}; expected milliseconds, at least 100`);
  if (flags.worker !== undefined && flags.worker.trim() === '') throw badRequest('--worker needs a command');
  const uidBase = flags['worker-uid-base'];
  if (!/^\d{1,10}$/.test(uidBase) || Number(uidBase) < 1000 || Number(uidBase) > MAX_WORKER_UID - 65_536) {
    throw badRequest(`invalid --worker-uid-base ${uidBase}; expected a uid from 1000 to ${MAX_WORKER_UID - 65_536}`);
  }
  // Last: the other flags' mistakes are named whichever way the token is given.
  const token = nodeToken(flags, env, isolated);
  return {
    nodeId, token, dir, control, ca,
    command: flags.worker === undefined ? defaultWorkerCommand() : shellCommand(flags.worker),
    listen, tls, httpListen, dashboardUrl, sessionTtlMs,
    reportIntervalMs: Number(interval),
    users: defaultWorkerUsers({ uidBase: Number(uidBase), allowSharedUser: flags['allow-shared-user'] === true }),
  };
}

/** Runs the agent until SIGTERM or SIGINT; throws when it cannot start (its front end's address taken). The settings
 * are read once (nodeAgentSettings takes the token out of the environment). */
export async function runNodeAgent(s: NodeAgentSettings, log: Logger): Promise<void> {
  const control = httpControlPlane({ baseUrl: s.control, nodeId: s.nodeId, token: s.token, ca: s.ca });
  const agentLog = log.child({ node: s.nodeId });
  const signIn = createSignInService({ dir: s.dir, log: agentLog.child({ component: 'signin' }) });
  const agent = await startAgent({
    dir: s.dir, control, command: s.command, listen: s.listen, log: agentLog, reportIntervalMs: s.reportIntervalMs, users: s.users,
    tls: s.tls, httpListen: s.httpListen,
    access: { dashboardUrl: s.dashboardUrl, sessionTtlMs: s.sessionTtlMs },
    services: signIn,
  }).catch((e: NodeJS.ErrnoException & { address?: string; port?: number }) => {
    signIn.close();
    control.close();
    if (e.code !== 'EADDRINUSE') throw e;
    const [flag, at] = s.httpListen && e.port === s.httpListen.port && e.port !== s.listen.port ? ['http-listen', s.httpListen] : ['listen', s.listen];
    throw new Error(`cannot listen on ${at.host}:${at.port} (--${flag}): the port is in use`);
  });
  // The control plane's origin only: a URL may carry credentials.
  agentLog.info({ url: agent.url, redirect: agent.httpUrl, control: new URL(s.control).origin, dir: s.dir }, 'node agent listening');
  process.stdout.write(`${JSON.stringify({ listening: agent.url, ...(agent.httpUrl ? { redirect: agent.httpUrl } : {}) })}\n`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    agentLog.info({ signal }, 'stopping: draining workers');
    const force = setTimeout(() => process.exit(1), 40_000);
    force.unref();
    void agent.stop().finally(() => {
      agentLog.info('stopped');
      exitAfterFlush(log, 0);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
