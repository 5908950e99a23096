/** Which store a process opens: PostgreSQL when given a database URL (flag, else environment), else SQLite. */
import { afterEach, describe, expect, it } from 'vitest';
import { databaseUrlOf, openStoreAt } from '../../store/open';
import { postgresMissing, startCluster } from '../../harness/postgres';
import { tempDir, removeTempDirs } from '../../harness/temp';

afterEach(() => {
  delete process.env.HOSTPLANE_DATABASE_URL;
});

describe('databaseUrlOf', () => {
  it('takes the flag first, then HOSTPLANE_DATABASE_URL, else none (SQLite)', () => {
    expect(databaseUrlOf(undefined)).toBeUndefined();
    process.env.HOSTPLANE_DATABASE_URL = 'postgres://env@localhost/db';
    expect(databaseUrlOf(undefined)).toBe('postgres://env@localhost/db');
    expect(databaseUrlOf('postgres://flag@localhost/db')).toBe('postgres://flag@localhost/db');
  });

  it('refuses the flag given empty instead of falling back to SQLite; an empty variable is no URL', () => {
    process.env.HOSTPLANE_DATABASE_URL = 'postgres://env@localhost/db';
    expect(() => databaseUrlOf('')).toThrow(/--database-url is empty/);
    expect(() => databaseUrlOf('', '--to')).toThrow(/--to is empty/);
    process.env.HOSTPLANE_DATABASE_URL = '';
    expect(databaseUrlOf(undefined)).toBeUndefined();
  });
});

describe('openStoreAt', () => {
  it('opens SQLite in the data dir without a URL', async () => {
    const s = await openStoreAt({ data: tempDir('hostplane-open-') });
    expect(s.dialect).toBe('sqlite');
    s.close();
    removeTempDirs();
  });

  const missing = postgresMissing();
  it.skipIf(missing)(`opens PostgreSQL with a URL${missing ? ` (skipped: ${missing})` : ''}`, async () => {
    const cluster = await startCluster();
    try {
      const url = await cluster.createDatabase();
      // As for a data dir without a store, the admin CLI's commands other than init refuse an empty database.
      await expect(openStoreAt({ data: '/nonexistent', databaseUrl: url }, { create: false })).rejects.toThrow(/no store in PostgreSQL .*admin init --database-url/);
      const s = await openStoreAt({ data: '/nonexistent', databaseUrl: url });
      expect(s.dialect).toBe('postgres');
      s.close();
      const again = await openStoreAt({ data: '/nonexistent', databaseUrl: url }, { create: false });
      again.close();
    } finally {
      await cluster.destroy();
    }
  }, 60_000);
});
