/**
 * The convergence bundle as the node agent reads it (docs/api.md, Nodes): per placed project its routable
 * hostnames, env bindings (secret values), storage (prefix, quota) and whether it has a project database; the
 * access and sign-in sections are carried through to bundle.json untouched. The bundle's version is its ETag.
 *
 * The shape is checked here with zod, leniently (unknown fields pass): the agent must keep working when the
 * control plane adds sections that only later nodes use.
 */
import { z } from 'zod';

const Storage = z.object({ prefix: z.string().min(1), quotaBytes: z.number().int().nonnegative() }).loose();

/** A secret binding: reaches the worker as environment variable `name`. */
const Secret = z.object({ name: z.string().min(1), version: z.number().int(), value: z.string() }).loose();

/** One placed project as the agent needs it (api/nodes.ts BundleProject; access and sign-in are kept as given). */
export const BundleProject = z.object({
  org: z.string().min(1),
  project: z.string().min(1),
  hostnames: z.array(z.string().min(1)),
  database: z.boolean().default(false),
  secrets: z.array(Secret).default([]),
  storage: Storage.nullable().default(null),
}).loose();
export type BundleProject = z.infer<typeof BundleProject>;

export const NodeBundle = z.object({ projects: z.array(BundleProject) }).loose();
export type NodeBundle = z.infer<typeof NodeBundle>;

/** A bundle with the version it was served with (its ETag). */
export interface VersionedBundle {
  version: string;
  bundle: NodeBundle;
}

/** `"12"`, `W/"12"` or `12` → `12`. */
export function etagVersion(etag: string | null | undefined): string | null {
  if (!etag) return null;
  const m = /^(?:W\/)?"?([^"]*)"?$/.exec(etag.trim());
  return m && m[1] ? m[1] : null;
}

/** The key a project is supervised and reported under. */
export const projectKey = (p: { org: string; project: string }): string => `${p.org}/${p.project}`;
