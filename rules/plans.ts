/** The plan table (docs/api.md, Plans): one table, replaced as a whole by a JSON file. */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { conflict } from '../lib/errors';

const count = z.number().int().min(0);
export const PlanSchema = z.strictObject({
  projects: count,
  zones: count,
  rrsetsPerZone: count,
  zoneBytes: count,
  storageBytes: count,
  signInUsers: count,
  hostnames: count,
  secretValueBytes: count,
  secretBytes: count,
});
export type Plan = z.infer<typeof PlanSchema>;
export type Plans = Record<string, Plan>;
const PlansSchema = z.record(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/), PlanSchema)
  .refine((p) => Object.keys(p).length > 0, 'the table needs at least one plan');

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export const DEFAULT_PLANS: Plans = {
  free: {
    projects: 3, zones: 50, rrsetsPerZone: 5_000, zoneBytes: 5 * MiB, storageBytes: GiB, signInUsers: 5_000, hostnames: 20,
    secretValueBytes: 32 * KiB, secretBytes: 64 * KiB,
  },
  pro: {
    projects: 100, zones: 1_000, rrsetsPerZone: 200_000, zoneBytes: 100 * MiB, storageBytes: 100 * GiB, signInUsers: 50_000, hostnames: 1_000,
    secretValueBytes: 32 * KiB, secretBytes: 96 * KiB,
  },
};

/** Reads a plan table from a JSON file: `{"free": {"projects": 3, "zones": 50, ...}, ...}`, every limit given. */
export function readPlans(path: string): Plans {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`--plans ${path}: ${(e as Error).message}`);
  }
  const r = PlansSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new Error(`--plans ${path}: ${i.path.join('.') || 'the table'}: ${i.message}`);
  }
  return r.data;
}

/** A plan an organization is on that the table no longer has allows nothing, rather than everything. */
export const planOf = (plans: Plans, name: string): Plan =>
  plans[name] ?? { projects: 0, zones: 0, rrsetsPerZone: 0, zoneBytes: 0, storageBytes: 0, signInUsers: 0, hostnames: 0, secretValueBytes: 0, secretBytes: 0 };

export type Quota = 'zones' | 'rrsets_per_zone' | 'zone_bytes' | 'hostnames' | 'secret_bytes';

/** 409 `quota_exceeded` with the details docs/api.md (Plans) gives. `count` is the usage before the refused write. */
export function quotaExceeded(quota: Quota, limit: number, used: number, plan: string, what: string) {
  return conflict('quota_exceeded', `the ${plan} plan allows ${limit} ${what}`, { quota, limit, count: used, plan });
}
