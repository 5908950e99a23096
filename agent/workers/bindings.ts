/**
 * A placed project's env bindings, as docs/api.md (Names) names them: secret `NAME` as environment variable `NAME`; the
 * node's own bindings under the reserved prefix `SERVICE_`: `SERVICE_STORAGE_DIR` and
 * `SERVICE_STORAGE_QUOTA_BYTES` when storage is granted, `SERVICE_DB_PATH` for a project with a database, and
 * with a sign-in grant `SERVICE_AUTH_GRANT` and `SERVICE_AUTH_SESSION_DAYS`, which a worker reading the sessions
 * in its database needs to count the ones the node counts (docs/deployment.md, Sign-in on the node).
 * Pure: where the directories live is decided by the caller (agent/layout.ts).
 */
import { createHash } from 'node:crypto';
import type { BundleProject } from '../sync/bundle';
import { loaderRule } from '../../rules/env-names';

/** Secret names the control plane accepts (docs/api.md, Names); anything else is not passed on, and never `SERVICE_*`. */
const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;

export interface Places {
  /** The project's storage directory, when storage is granted. */
  storageDir: string | null;
  /** The project's SQLite file, when it has a database. */
  dbPath: string | null;
}

/** The secrets of `p` that are never passed to its worker because they change how a process loads or runs
 * (rules/env-names.ts): their names only, for the log. */
export function withheldSecrets(p: BundleProject): string[] {
  return p.secrets.map((s) => s.name).filter((name) => loaderRule(name) !== null).sort();
}

/** The bindings of one project: the environment its worker gets besides what the supervisor adds to run it.
 * A secret whose name changes how a process loads or runs (`NODE_OPTIONS`, `LD_PRELOAD`, `PATH`, ...) is left
 * out, whatever the bundle says. */
export function bindings(p: BundleProject, places: Places): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { name, value } of [...p.secrets].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (SECRET_NAME.test(name) && !name.startsWith('SERVICE_') && loaderRule(name) === null) env[name] = value;
  }
  if (p.storage && places.storageDir) {
    env.SERVICE_STORAGE_DIR = places.storageDir;
    env.SERVICE_STORAGE_QUOTA_BYTES = String(p.storage.quotaBytes);
  }
  if (p.database && places.dbPath) env.SERVICE_DB_PATH = places.dbPath;
  if (p.database && places.dbPath && p.signIn) {
    env.SERVICE_AUTH_GRANT = p.signIn.grant;
    env.SERVICE_AUTH_SESSION_DAYS = String(p.signIn.settings.sessionDays);
  }
  return env;
}

/** SHA-256 (hex) of a binding's value: what the built-in worker shows instead of the value. */
export const bindingHash = (value: string): string => createHash('sha256').update(value).digest('hex');

/** A digest of everything a worker is started with: two specs with the same digest run the same worker, so a
 * bundle that changes nothing of a project leaves its worker alone. */
export function specDigest(command: readonly string[], env: Record<string, string>, user: { uid: number; gid: number } | null = null): string {
  const h = createHash('sha256');
  h.update(JSON.stringify(command));
  if (user) h.update(`\0user\0${user.uid}:${user.gid}`);
  for (const name of Object.keys(env).sort()) h.update(`\0${name}\0${env[name]}`);
  return h.digest('hex');
}
