/** The better-sqlite3 connection under a store, for tests that look below drizzle (pragmas, triggers, raw bytes). */
import type Database from 'better-sqlite3';
import type { Store } from '../../store/db';

export const rawSqlite = (s: Store): Database.Database => (s.db as unknown as { $client: Database.Database }).$client;
