/** Which store a process opens: PostgreSQL when a database URL is given (CONTRACT.md "Several machines"), else the
 * embedded SQLite store in the data dir. */
import { openStore, type OpenStoreOptions, type Store } from './db';
import { openPgStore } from './db-pg';

export interface StoreLocation {
  /** The data dir: the SQLite store's home when there is no database URL. */
  data: string;
  /** `postgres://…`: the store is that database. */
  databaseUrl?: string | undefined;
}

export async function openStoreAt(at: StoreLocation, opts: OpenStoreOptions = {}): Promise<Store> {
  if (at.databaseUrl) return openPgStore(at.databaseUrl, { ...(opts.clock ? { clock: opts.clock } : {}), ...(opts.create === false ? { create: false } : {}) });
  return openStore(at.data, opts);
}

/** The database URL a process was given: `--database-url`, else HOSTPLANE_DATABASE_URL (which keeps a password out
 * of the process's command line). */
export const databaseUrlOf = (flag: string | undefined): string | undefined => flag || process.env.HOSTPLANE_DATABASE_URL || undefined;
