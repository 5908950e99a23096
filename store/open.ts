/** Which store a process opens: PostgreSQL when a database URL is given (CONTRACT.md "Several machines"), else the
 * embedded SQLite store in the data dir. */
import { badRequest } from '../lib/errors';
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
 * of the process's command line). The flag given empty (`--database-url "$URL"` with the variable unset) is refused:
 * taken as absent, the process would run on a new SQLite store in the data dir while its operator meant a database. */
export function databaseUrlOf(flag: string | undefined, name = '--database-url'): string | undefined {
  if (flag === '') throw badRequest(`${name} is empty: give a database URL (postgres://user:password@host:port/database) or leave the flag out`);
  return flag ?? (process.env.HOSTPLANE_DATABASE_URL || undefined);
}
