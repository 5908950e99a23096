/**
 * A throw-away PostgreSQL cluster for tests and benchmarks: initdb in a temp dir, the server on a Unix socket in
 * that dir only (no TCP port to collide with anything), fsync off unless asked. As root, initdb and the server
 * run as the `postgres` user, which PostgreSQL requires.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The directory of PostgreSQL's server programs (Debian keeps them per major version), or undefined. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresMissing(): string | undefined {
  if (!postgresBin()) return 'PostgreSQL server programs not found under /usr/lib/postgresql (Debian package `postgresql`)';
  if (userInfo().uid === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no `postgres` user to run the server as';
  return undefined;
}

export interface Cluster {
  /** The URL of `database` (default `postgres`) on this cluster. */
  url(database?: string): string;
  /** A new empty database, answered as its URL. */
  createDatabase(name?: string, options?: string): Promise<string>;
  /** Stops the server (fast shutdown; `immediate`: as if killed, nothing written out on the way down); `start`
   * starts it again on the same files and socket. */
  stop(o?: { immediate?: boolean }): Promise<void>;
  start(): Promise<void>;
  /** Stops the server for good and removes its files. */
  destroy(): Promise<void>;
  readonly socketDir: string;
}

export interface ClusterOptions {
  /** PostgreSQL's fsync: off by default, since a test cluster need not survive a power cut. */
  fsync?: boolean;
  /** Extra server settings (`-c name=value`). */
  settings?: Record<string, string>;
}

let databases = 0;

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const bin = postgresBin();
  if (!bin) throw new Error(postgresMissing());
  // Not under a 0700 temp dir of root's: the server runs as `postgres` and must reach its files.
  const dir = mkdtempSync('/tmp/hostplane-pg-');
  // Spawned as that user directly (not through runuser), so that our signals reach the server itself.
  const as = userInfo().uid === 0
    ? { uid: Number(spawnSync('id', ['-u', 'postgres']).stdout.toString().trim()), gid: Number(spawnSync('id', ['-g', 'postgres']).stdout.toString().trim()) }
    : {};
  if (as.uid !== undefined) chownSync(dir, as.uid, as.gid!);
  const data = join(dir, 'data');
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'hostplane', '-E', 'UTF8', '--no-sync', '--locale=C'], { encoding: 'utf8', cwd: dir, ...as });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);

  const settings: Record<string, string> = {
    listen_addresses: '',
    unix_socket_directories: dir,
    fsync: opts.fsync ? 'on' : 'off',
    full_page_writes: opts.fsync ? 'on' : 'off',
    max_connections: '500',
    ...opts.settings,
  };
  let server: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const args = ['-D', data, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
    const p = spawn(join(bin, 'postgres'), args, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir, ...as });
    server = p;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      p.stderr!.on('data', (b: Buffer) => {
        log += b.toString();
        if (log.includes('database system is ready to accept connections')) resolve();
      });
      p.once('exit', (code) => reject(new Error(`postgres exited (${code}) before it was ready:\n${log}`)));
    });
    p.stderr!.resume();
  };
  const stop = async (o: { immediate?: boolean } = {}): Promise<void> => {
    const p = server;
    server = undefined;
    if (!p || p.exitCode !== null) return;
    const exited = new Promise((resolve) => p.once('exit', resolve));
    // Fast shutdown: sessions are ended, and what committed is on disk for the next start. Immediate: every process
    // quits at once, WAL still in shared memory is lost, and the next start recovers from what reached the files.
    p.kill(o.immediate ? 'SIGQUIT' : 'SIGINT');
    await exited;
  };
  await start();
  // The socket's name carries the port (.s.PGSQL.<port>).
  const port = settings.port === undefined ? '' : `:${settings.port}`;
  const url = (database = 'postgres'): string => `postgres://hostplane@localhost${port}/${database}?host=${encodeURIComponent(dir)}`;
  return {
    socketDir: dir,
    url,
    start,
    stop,
    createDatabase: async (name = `t${process.pid}_${++databases}`, options = '') => {
      const c = new pg.Client({ host: dir, port: settings.port === undefined ? undefined : Number(settings.port), user: 'hostplane', database: 'postgres' });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE "${name}" ${options}`);
      } finally {
        await c.end();
      }
      return url(name);
    },
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    },
  };
}
