/**
 * TLS to PostgreSQL (store/db-pg.ts): libpq's `sslmode`, `sslrootcert`, `sslcert` and `sslkey` in --database-url,
 * against a throw-away cluster that takes TCP connections only over TLS, with a certificate of a private CA.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { AppError } from '../../lib/errors';
import { checkDatabaseUrl, describeUrl, openPgStore } from '../../store/db-pg';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';
import { onFreshPort } from '../../harness/secondaries';
import { hasOpenssl, makePki, type TestPki } from '../../harness/tls';

const refusal = (url: string): string => {
  try {
    checkDatabaseUrl(url);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).message;
  }
  throw new Error(`${url} was taken`);
};

describe('TLS parameters of --database-url', () => {
  it.each([
    ['sslmode=prefer (it would fall back to no TLS, unsaid)', '?sslmode=prefer', /sslmode=prefer is not supported.*fall back/],
    ['sslmode=allow', '?sslmode=allow', /sslmode=allow is not supported/],
    ['an sslmode libpq does not know', '?sslmode=strict', /sslmode=strict is not supported/],
    ['sslrootcert without a mode that uses it', '?sslrootcert=/ca.pem', /sslrootcert needs sslmode=require, verify-ca or verify-full/],
    ['sslrootcert with sslmode=disable', '?sslmode=disable&sslrootcert=/ca.pem', /sslrootcert needs sslmode/],
    ['a client certificate without its key', '?sslmode=require&sslcert=/c.pem', /sslcert and sslkey go together/],
    ['a parameter it would ignore', '?sslcompression=1', /the URL parameter sslcompression is not supported \(only host, sslmode, sslrootcert, sslcert, sslkey\)/],
  ])('refuses %s, without the password', (_what, query, message) => {
    const text = refusal(`postgres://u:s3cret-pw@db.internal/hp${query}`);
    expect(text).toMatch(message);
    expect(text).not.toContain('s3cret-pw');
  });

  it('names the TLS mode where it says where the store is', () => {
    expect(describeUrl('postgres://u:pw@db.internal:6432/hp?sslmode=verify-full')).toBe('db.internal:6432 database hp (TLS, sslmode=verify-full)');
    expect(describeUrl('postgres://u:pw@db.internal/hp')).toBe('db.internal:5432 database hp');
  });
});

const missing = postgresMissing() ?? (hasOpenssl() ? undefined : 'openssl is not installed');

describe.skipIf(missing)(`a store over TLS${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let cluster: Cluster;
  let port: number;
  let pki: TestPki;
  let otherCa: TestPki;
  let dir: string;
  let database: string;

  beforeAll(async () => {
    // Readable by the server, which runs as `postgres`; its key must be its own and private.
    dir = mkdtempSync('/tmp/hostplane-pg-tls-');
    chmodSync(dir, 0o755);
    pki = makePki(dir);
    otherCa = makePki(mkdtempSync(join(dir, 'other-')));
    if (userInfo().uid === 0) {
      const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres']).stdout.toString().trim());
      chownSync(pki.keyPath, id('-u'), id('-g'));
    }
    chmodSync(pki.keyPath, 0o600);
    chmodSync(pki.certPath, 0o644);
    const hba = join(dir, 'pg_hba.conf');
    writeFileSync(hba, 'local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n');
    chmodSync(hba, 0o644);
    cluster = await onFreshPort(undefined, async (p) => {
      port = p;
      return startCluster({ settings: { listen_addresses: '127.0.0.1', port: String(p), ssl: 'on', ssl_cert_file: pki.certPath, ssl_key_file: pki.keyPath, hba_file: hba } });
    });
    database = new URL(await cluster.createDatabase()).pathname;
  }, 120_000);
  afterAll(async () => {
    await cluster?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const tcpUrl = (host: string, query: string): string => `postgres://hostplane@${host}:${port}${database}?${query}`;
  const overTls = async (url: string): Promise<boolean> => {
    const s = await openPgStore(url);
    try {
      const { rows } = await (s.db as unknown as NodePgDatabase).execute<{ ssl: boolean }>(sql`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`);
      return rows[0]!.ssl;
    } finally {
      s.close();
    }
  };

  it.each([
    ['verify-full against its CA, by address', '127.0.0.1', () => `sslmode=verify-full&sslrootcert=${encodeURIComponent(pki.caPath)}`],
    ['verify-full against its CA, by name', 'localhost', () => `sslmode=verify-full&sslrootcert=${encodeURIComponent(pki.caPath)}`],
    ['verify-ca', '127.0.0.1', () => `sslmode=verify-ca&sslrootcert=${encodeURIComponent(pki.caPath)}`],
    ['require, checking nothing', '127.0.0.1', () => 'sslmode=require'],
  ])('opens the store over TLS with %s', async (_what, host, query) => {
    expect(await overTls(tcpUrl(host, query()))).toBe(true);
  }, 60_000);

  it('refuses a server whose certificate its CA did not sign, saying where and why', async () => {
    await expect(openPgStore(tcpUrl('127.0.0.1', `sslmode=verify-full&sslrootcert=${encodeURIComponent(otherCa.caPath)}`)))
      .rejects.toThrow(/PostgreSQL at 127\.0\.0\.1:\d+ database \S+ \(TLS, sslmode=verify-full\) cannot be used: .*certificate/i);
  }, 60_000);

  it('connects without TLS when no sslmode asks for it (the server here refuses that)', async () => {
    await expect(openPgStore(tcpUrl('127.0.0.1', 'sslmode=disable'))).rejects.toThrow(/no encryption|pg_hba\.conf rejects/);
  }, 60_000);

  it('names an sslrootcert it cannot read', async () => {
    await expect(openPgStore(tcpUrl('127.0.0.1', 'sslmode=verify-full&sslrootcert=%2Fnowhere%2Fca.pem'))).rejects.toThrow('--database-url: sslrootcert=/nowhere/ca.pem cannot be read (ENOENT)');
  });
});
