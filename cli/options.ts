/** Flags shared by the `serve`, `api`, `core` and `admin` commands, with their defaults. */
import { parseArgs } from 'node:util';
import { badRequest } from '../core/errors';

export const DEFAULT_PLANS: Record<string, number> = { free: 3, pro: 100 };

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
  'incremental-from': { type: 'string', default: '5000' },
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

/** `--plans free=3,pro=100` overrides the project limits per plan. */
export function plans(flags: Flags): Record<string, number> {
  if (!flags.plans) return DEFAULT_PLANS;
  const out: Record<string, number> = {};
  for (const part of flags.plans.split(',')) {
    const [name, limit] = part.split('=');
    const n = Number(limit);
    if (!name || !Number.isInteger(n) || n < 0) throw badRequest(`invalid --plans entry ${part}; expected name=limit`);
    out[name] = n;
  }
  return out;
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
