/** Flags shared by the `serve`, `api`, `core` and `admin` commands, with their defaults. */
import { lookup } from 'node:dns/promises';
import { parseArgs } from 'node:util';
import { badRequest } from '../lib/errors';
import { connectionLimits, DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, descriptorLimit, type HardeningOptions } from '../lib/http-server';
import { DEFAULT_PLANS, readPlans, type Plans } from '../lib/plans';
import { parseHostPort } from '../providers/nameserver/knot-config';
import { checkName } from '../zonefiles/names';

export const OPTIONS = {
  port: { type: 'string', default: '8080' },
  host: { type: 'string', default: '127.0.0.1' },
  data: { type: 'string', default: './data' },
  'app-domain': { type: 'string', default: 'hostplane.app' },
  plans: { type: 'string' },
  plan: { type: 'string' },
  'core-url': { type: 'string' },
  'core-token': { type: 'string' },
  dns: { type: 'string', default: 'on' },
  'dns-listen': { type: 'string', default: '127.0.0.1:8053' },
  nameservers: { type: 'string', default: 'ns1.hostplane.net,ns2.hostplane.net' },
  secondaries: { type: 'string', default: '' },
  'service-domains': { type: 'string', default: '' },
  'incremental-from': { type: 'string', default: '5000' },
  'metrics-listen': { type: 'string', default: '127.0.0.1:9464' },
  'max-connections': { type: 'string' },
  'max-connections-per-address': { type: 'string' },
  'max-waiting-connections-per-address': { type: 'string' },
  'headers-timeout-ms': { type: 'string', default: String(DEFAULT_HEADERS_TIMEOUT_MS) },
  'request-timeout-ms': { type: 'string', default: String(DEFAULT_REQUEST_TIMEOUT_MS) },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parse(argv: string[]) {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  return { values, positionals };
}

export type Flags = ReturnType<typeof parse>['values'];

export function port(flags: Flags): number {
  const n = Number(flags.port);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw badRequest(`invalid --port ${flags.port}`);
  return n;
}

/** `--plans FILE`: a JSON plan table replacing the default one as a whole. */
export function plans(flags: Flags): Plans {
  if (!flags.plans) return DEFAULT_PLANS;
  try {
    return readPlans(flags.plans);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
}

/** The shared secret between `api` and `core`: `--core-token` or HOSTPLANE_CORE_TOKEN. */
export function coreToken(flags: Flags): string | undefined {
  return flags['core-token'] ?? process.env.HOSTPLANE_CORE_TOKEN;
}

export const list = (s: string): string[] => s.split(',').map((x) => x.trim()).filter(Boolean);

/** `--incremental-from N`: zones with at least N rrsets are changed in the nameserver incrementally. */
export function incrementalFrom(flags: Flags): number {
  const n = Number(flags['incremental-from']);
  if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid --incremental-from ${flags['incremental-from']}`);
  return n;
}

type HardeningFlag = 'max-connections' | 'max-connections-per-address' | 'max-waiting-connections-per-address' | 'headers-timeout-ms' | 'request-timeout-ms';

function positive(flags: Flags, name: HardeningFlag): number | undefined {
  const given = flags[name];
  if (given === undefined) return undefined;
  const n = Number(given);
  if (!/^\d+$/.test(given) || !Number.isSafeInteger(n) || n < 1) throw badRequest(`invalid --${name} ${given}; expected a positive integer`);
  return n;
}

/** Timeouts and connection caps of the HTTP listeners: the caps not given derive from the descriptor limit. */
export function serverHardening(flags: Flags, descriptors = descriptorLimit()): HardeningOptions {
  const headersTimeoutMs = positive(flags, 'headers-timeout-ms') ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeoutMs = positive(flags, 'request-timeout-ms') ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (headersTimeoutMs > requestTimeoutMs) {
    throw badRequest(`--headers-timeout-ms ${headersTimeoutMs} exceeds --request-timeout-ms ${requestTimeoutMs}: headers are part of the request`);
  }
  const limits = connectionLimits(descriptors, {
    maxConnections: positive(flags, 'max-connections'),
    maxConnectionsPerAddress: positive(flags, 'max-connections-per-address'),
    maxWaitingConnectionsPerAddress: positive(flags, 'max-waiting-connections-per-address'),
  });
  return { ...limits, headersTimeoutMs, requestTimeoutMs };
}

/** `--metrics-listen HOST:PORT` (`[v6]:PORT` for IPv6), or null for `off`. */
export function metricsListen(flags: Flags): { host: string; port: number } | null {
  const given = flags['metrics-listen'];
  if (given === 'off') return null;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(given);
  const port = Number(m?.[3]);
  if (!m || port > 65535) throw badRequest(`invalid --metrics-listen ${given}; expected HOST:PORT, [IPv6]:PORT or off`);
  return { host: (m[1] ?? m[2])!, port };
}

export type ServerCommand = 'serve' | 'api' | 'core';

function hostNames(flag: 'app-domain' | 'nameservers' | 'service-domains', given: string[]): void {
  for (const name of given) {
    const r = checkName(name, false);
    if (!r.ok) throw badRequest(`invalid --${flag} ${JSON.stringify(name)}: it ${r.reason}`);
  }
}

function hostPorts(flag: 'dns-listen' | 'secondaries', given: string[]): void {
  for (const value of given) {
    try {
      parseHostPort(value);
    } catch (e) {
      throw badRequest(`invalid --${flag}: ${(e as Error).message}`);
    }
  }
}

/** Checks every flag of a long-running command before it starts anything: a mistake found once knotd, the
 * store or the reconcilers are up leaves a half-started process to tear down, and files in the data dir.
 * Throws a bad request naming the first bad flag. The API host is resolved here too; whether its port is free
 * is only known by listening. */
export async function checkServerFlags(command: ServerCommand, flags: Flags): Promise<void> {
  port(flags);
  if (!flags.data) throw badRequest('--data must name a directory');
  hostNames('app-domain', [flags['app-domain']]);
  plans(flags);
  hostNames('service-domains', list(flags['service-domains']));
  metricsListen(flags);
  serverHardening(flags);
  if (command === 'api') {
    const url = flags['core-url'];
    if (url !== undefined) {
      if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw badRequest(`invalid --core-url ${url}; expected an http or https URL`);
      if (!coreToken(flags)) throw badRequest('--core-url needs --core-token or HOSTPLANE_CORE_TOKEN');
    }
  } else {
    if (command === 'core' && !coreToken(flags)) throw badRequest('core needs --core-token or HOSTPLANE_CORE_TOKEN (shared with the api process)');
    if (flags.dns !== 'on' && flags.dns !== 'off') throw badRequest(`--dns takes on or off, not ${flags.dns}`);
    hostPorts('dns-listen', [flags['dns-listen']]);
    hostPorts('secondaries', list(flags.secondaries));
    const nameservers = list(flags.nameservers);
    if (nameservers.length === 0) throw badRequest('--nameservers needs at least one name: zones get them as NS and SOA MNAME');
    hostNames('nameservers', nameservers);
    incrementalFrom(flags);
  }
  try {
    await lookup(flags.host);
  } catch (e) {
    throw badRequest(`invalid --host ${flags.host}: ${(e as NodeJS.ErrnoException).code === 'ENOTFOUND' ? 'no such host' : (e as Error).message}`);
  }
}
