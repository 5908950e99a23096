/**
 * The convergence bundle as the node agent reads it (docs/api.md, Nodes): per placed project its routable
 * hostnames, env bindings (secret values), storage (prefix, quota), whether it has a project database and
 * sign-in (agent/signin/); the access section is carried through to bundle.json untouched. The bundle's version
 * is its ETag.
 *
 * The shape is checked here with zod, leniently (unknown fields pass): the agent must keep working when the
 * control plane adds sections that only later nodes use.
 */
import { z } from 'zod';

const Storage = z.object({ prefix: z.string().min(1), quotaBytes: z.number().int().nonnegative() }).loose();

/** A secret binding: reaches the worker as environment variable `name`. */
const Secret = z.object({ name: z.string().min(1), version: z.number().int(), value: z.string() }).loose();

/** Browsers are sent to the authorize URL: nothing but a web address. */
const HttpUrl = z.url({ protocol: /^https?$/ });

/** A sign-in provider the project registered. A provider name this node does not know is kept, and not served. */
const SignInProvider = z.object({
  provider: z.string().min(1),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  endpoints: z.object({ authorize: HttpUrl, token: HttpUrl, userInfo: HttpUrl, emails: HttpUrl.nullable().default(null) }).loose(),
}).loose();

/** End-user sign-in (spec 4.2): null without a grant, when `/__service/auth/*` goes to the worker. */
const SignIn = z.object({
  /** The grant's id (16 bytes, hex): new at each grant, so a session made under another grant does not count. */
  grant: z.string().regex(/^[0-9a-f]{32}$/),
  settings: z.object({ sessionDays: z.number().int().min(1).max(365).default(30) }).loose(),
  /** The plan's sign-in users per project: sign-ups beyond it are refused. */
  maxUsers: z.number().int().nonnegative(),
  providers: z.array(SignInProvider).default([]),
}).loose();
export type BundleSignIn = z.infer<typeof SignIn>;

/** One placed project as the agent needs it (api/nodes.ts BundleProject; access is kept as given). */
export const BundleProject = z.object({
  org: z.string().min(1),
  project: z.string().min(1),
  /** The project's lifetime (16 bytes, hex): a project deleted and created again under the name has another
   * (agent/workers/lifetimes.ts). Absent from an earlier control plane's bundles. */
  uid: z.string().regex(/^[0-9a-f]{32}$/).optional(),
  hostnames: z.array(z.string().min(1)),
  database: z.boolean().default(false),
  secrets: z.array(Secret).default([]),
  storage: Storage.nullable().default(null),
  signIn: SignIn.nullable().default(null),
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

/** Whether bundle version `a` is below `b`. Versions are the control plane's change seqs, decimal and only rising;
 * one that is not a number is not comparable, so never older. */
export function olderVersion(a: string, b: string): boolean {
  const decimal = /^\d+$/;
  return decimal.test(a) && decimal.test(b) && BigInt(a) < BigInt(b);
}

/** The key a project is supervised and reported under. */
export const projectKey = (p: { org: string; project: string }): string => `${p.org}/${p.project}`;

/** The key of a project's lifetime: a project deleted and created again under the name has another. */
export const lifetimeKey = (p: { org: string; project: string; uid?: string }): string => (p.uid ? `${projectKey(p)}#${p.uid}` : projectKey(p));
