/** A tenant's secrets cannot take over its worker, and a worker cannot read what is not its own:
 * - secrets that change how a process loads or runs (`NODE_OPTIONS`, `LD_PRELOAD`, `PATH`, ...) never reach a
 *   worker, even when a bundle carries them; the agent logs their names, never their values;
 * - as root, each project's worker runs as a uid of its own (stable, kept in `D/users.json`), owning its storage
 *   and database directories, and cannot read `bundle.json`, the logs or another project's data;
 * - not root, the agent warns, and runs the projects of one organization at a time unless told otherwise. */
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAgent } from '../../agent/agent';
import { bindings, withheldSecrets } from '../../agent/workers/bindings';
import { writeBundleFile } from '../../agent/sync/bundle-file';
import type { BundleAnswer, ControlPlane } from '../../agent/sync/control';
import { LOADER_RULES, loaderRule } from '../../rules/env-names';
import { Supervisor } from '../../agent/workers/supervisor';
import { prepareDatabase, UserIndex, type WorkerUsers } from '../../agent/workers/users';
import { defaultWorkerCommand, type WorkerSpec } from '../../agent/workers/worker-process';
import { bundleOf, captureLogger, fakeWorker, get, startFrontend } from '../helpers/agent';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'hostplane-isolation-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

function setup(opts: { command?: string[]; fake?: boolean; users?: WorkerUsers } = {}) {
  const dir = tempDir();
  const logs = captureLogger();
  const supervisor = new Supervisor({
    dir, command: opts.command ?? defaultWorkerCommand(), log: logs.log, drainTimeoutMs: 2000,
    retry: { baseMs: 60_000, maxMs: 60_000 },
    ...(opts.fake ? { start: fakeWorker } : {}),
    ...(opts.users ? { users: opts.users } : {}),
  });
  cleanups.push(() => supervisor.stop());
  return { dir, logs, supervisor };
}

const LOADER_NAMES = [
  'NODE_OPTIONS', 'NODE_PATH', 'NODE_EXTRA_CA_CERTS', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES',
  'PATH', 'HOME', 'SHELL', 'BASH_ENV', 'ENV', 'IFS', 'PYTHONPATH', 'PYTHONSTARTUP', 'PYTHONHOME', 'PERL5OPT', 'PERL5LIB', 'PERLLIB',
  'RUBYOPT', 'RUBYLIB', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'GCONV_PATH', 'GLIBC_TUNABLES', 'TZDIR', 'LOCPATH',
  'OPENSSL_CONF', 'SHELLOPTS', 'PS4',
];
const PLAIN_NAMES = ['API_KEY', 'NODE_ENV', 'NODE', 'NODES_URL', 'PATHS', 'HOMEPAGE_URL', 'DATABASE_URL', 'STRIPE_KEY', 'SHELLY', 'ENVIRONMENT'];

describe('secrets that change how a process loads or runs', () => {
  it.each(LOADER_NAMES)('%s is one', (name) => {
    expect(loaderRule(name)).not.toBeNull();
    expect(LOADER_RULES).toContain(loaderRule(name));
  });
  it.each(PLAIN_NAMES)('%s is not', (name) => {
    expect(loaderRule(name)).toBeNull();
  });
  it('are each listed in docs/api.md', () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8').replace(/\s+/g, ' ');
    for (const rule of LOADER_RULES) expect(doc, rule).toContain(`\`${rule}\``);
  });

  it('names the rule: the prefix or the name', () => {
    expect(loaderRule('NODE_OPTIONS')).toBe('NODE_*');
    expect(loaderRule('PYTHONSTARTUP')).toBe('PYTHON*');
    expect(loaderRule('PATH')).toBe('PATH');
  });

  it('are left out of the bindings whatever the bundle says, and named as withheld', () => {
    const env = Object.fromEntries([...LOADER_NAMES, ...PLAIN_NAMES].map((n) => [n, `value-of-${n}`]));
    const p = bundleOf('1', [{ env }]).bundle.projects[0]!;
    expect(Object.keys(bindings(p, { storageDir: null, dbPath: null })).sort()).toEqual([...PLAIN_NAMES].sort());
    expect(withheldSecrets(p)).toEqual([...LOADER_NAMES].sort());
  });

  it('never reach a worker: NODE_OPTIONS with a data: import does not run in the built-in worker; the log names it, not its value', async () => {
    const { supervisor, logs } = setup();
    const fe = await startFrontend(supervisor);
    cleanups.push(() => fe.close());
    const attack = '--import=data:text/javascript,process.exit(7)';
    const result = await supervisor.apply(bundleOf('1', [{ env: { NODE_OPTIONS: attack, LD_PRELOAD: '/tmp/evil-loader-value.so', API_KEY: 'k' } }]));
    expect(result).toEqual({ failed: [] });
    const answer = JSON.parse((await get(fe.url, 'blog.hostplane.test')).body) as { bindings: Record<string, string> };
    expect(Object.keys(answer.bindings)).toEqual(['API_KEY']);
    const line = logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'secrets that change how a process loads or runs are not passed to the worker');
    expect(line).toMatchObject({ level: 40, project: 'acme/blog', names: ['LD_PRELOAD', 'NODE_OPTIONS'] });
    expect(logs.text()).not.toContain('process.exit(7)');
    expect(logs.text()).not.toContain('evil-loader-value');
  }, 30_000);
});

describe('worker users', () => {
  it('give each project a stable index, kept in D/users.json (0600) and never given again', () => {
    const dir = tempDir();
    const a = new UserIndex(dir);
    expect([a.indexOf('acme/blog'), a.indexOf('acme/shop'), a.indexOf('acme/blog')]).toEqual([0, 1, 0]);
    expect(statSync(join(dir, 'users.json')).mode & 0o777).toBe(0o600);
    const b = new UserIndex(dir);
    expect([b.indexOf('acme/shop'), b.indexOf('acme/blog'), b.indexOf('other/site')]).toEqual([1, 0, 2]);
    expect(new UserIndex(dir).indexOf('other/site')).toBe(2);
  });

  it('isolated: uid = gid = base + the project\'s index, the same for a new supervisor on the same dir', async () => {
    const { supervisor, dir } = setup({ fake: true, users: { mode: 'isolated', uidBase: 2_000_000_000 } });
    if (process.getuid?.() !== 0) return; // chown needs root
    await supervisor.apply(bundleOf('1', [{ project: 'blog', hostnames: ['b.test'] }, { project: 'shop', hostnames: ['s.test'] }]));
    expect(supervisor.userOf('acme/blog')).toEqual({ uid: 2_000_000_000, gid: 2_000_000_000 });
    expect(supervisor.userOf('acme/shop')).toEqual({ uid: 2_000_000_001, gid: 2_000_000_001 });
    const again = new Supervisor({ dir, command: ['unused'], log: captureLogger().log, start: fakeWorker, users: { mode: 'isolated', uidBase: 2_000_000_000 } });
    cleanups.push(() => again.stop());
    expect(again.userOf('acme/shop')).toEqual({ uid: 2_000_000_001, gid: 2_000_000_001 });
    expect(again.userOf('other/new')).toEqual({ uid: 2_000_000_002, gid: 2_000_000_002 });
  });

  it('key a project\'s database and uid by its lifetime; the one running when bundles first carry lifetimes keeps the name-keyed ones', async () => {
    const { supervisor, dir } = setup({ fake: true });
    const U1 = 'a'.repeat(32);
    const U2 = 'b'.repeat(32);
    const served = (s: Supervisor): { db: string; user: WorkerSpec['user'] } => {
      const r = s.route('b.test');
      if (r.kind !== 'worker') throw new Error(`no worker: ${r.kind}`);
      r.release();
      return { db: r.worker.spec.bindings.SERVICE_DB_PATH!, user: r.worker.spec.user };
    };
    const blog = (uid?: string) => ({ project: 'blog', hostnames: ['b.test'], database: true, ...(uid ? { uid } : {}) });
    // An earlier control plane's bundle: no lifetime, the name-keyed places of earlier agents.
    await supervisor.apply(bundleOf('1', [blog()]));
    const named = served(supervisor);
    expect(named.db).toBe(join(dir, 'databases', 'acme', 'blog', 'blog.sqlite'));
    writeFileSync(named.db, 'BLOG-DATA');
    // The first bundle with its lifetime: the project the node has been running keeps them, also after a restart.
    await supervisor.apply(bundleOf('2', [blog(U1)]));
    expect(served(supervisor)).toEqual(named);
    expect(JSON.parse(readFileSync(join(dir, 'lifetimes.json'), 'utf8'))).toEqual({ 'acme/blog': U1 });
    expect(statSync(join(dir, 'lifetimes.json')).mode & 0o777).toBe(0o600);
    await supervisor.stop();
    const again = new Supervisor({ dir, command: ['unused'], log: captureLogger().log, start: fakeWorker });
    cleanups.push(() => again.stop());
    await again.apply(bundleOf('3', [blog(U1)]));
    expect(served(again)).toEqual(named);
    // Another lifetime of the name (the project deleted and created again): a database and a uid of its own.
    await again.apply(bundleOf('4', [blog(U2)]));
    const fresh = served(again);
    expect(fresh.db).toBe(join(dir, 'databases', 'acme', `blog.${U2}`, 'blog.sqlite'));
    expect(readFileSync(fresh.db, 'utf8')).toBe('');
    if (named.user) expect(fresh.user!.uid).not.toBe(named.user.uid);
    expect(readFileSync(named.db, 'utf8')).toBe('BLOG-DATA');
    // Back to the first lifetime (say a bundle of another control plane replica): its own again.
    await again.apply(bundleOf('5', [blog(U1)]));
    expect(served(again)).toEqual(named);
  });

  it('never hand name-keyed places to a lifetime first seen with its uid (its project may be another of the name)', async () => {
    const { supervisor, dir } = setup({ fake: true });
    // What an earlier agent left of a project since deleted.
    const old = prepareDatabase(dir, 'acme', 'blog', null);
    writeFileSync(old, 'OLD-PROJECT-DATA');
    writeFileSync(join(dir, 'databases', 'acme', 'blog.sqlite'), 'OLDER-LAYOUT-DATA');
    await supervisor.apply(bundleOf('1', [{ project: 'blog', hostnames: ['b.test'], database: true, uid: 'c'.repeat(32) }]));
    const r = supervisor.route('b.test');
    if (r.kind !== 'worker') throw new Error(`no worker: ${r.kind}`);
    r.release();
    expect(r.worker.spec.bindings.SERVICE_DB_PATH).toBe(join(dir, 'databases', 'acme', `blog.${'c'.repeat(32)}`, 'blog.sqlite'));
    expect(readFileSync(r.worker.spec.bindings.SERVICE_DB_PATH!, 'utf8')).toBe('');
    expect(readFileSync(old, 'utf8')).toBe('OLD-PROJECT-DATA');
    expect(existsSync(join(dir, 'lifetimes.json'))).toBe(false);
  });
});

/** A worker that answers what it can read, list and write (paths in the query), and as whom it runs. */
const PROBE = `
const http = require('http'), fs = require('fs');
const attempt = (f) => { try { f(); return 'ok'; } catch (e) { return e.code; } };
http.createServer((req, res) => {
  const q = new URL(req.url, 'http://x').searchParams;
  const out = { uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(), read: {}, list: {}, write: {} };
  for (const p of q.getAll('read')) out.read[p] = attempt(() => fs.readFileSync(p));
  for (const p of q.getAll('list')) out.list[p] = attempt(() => fs.readdirSync(p));
  for (const p of q.getAll('write')) out.write[p] = attempt(() => fs.writeFileSync(p, 'x'));
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(out));
}).listen(process.env.SERVICE_SOCKET);
process.stdin.on('end', () => process.exit(0)).resume();
`;

interface Probe { uid: number; gid: number; groups: number[]; read: Record<string, string>; list: Record<string, string>; write: Record<string, string> }

function probe(socketPath: string, q: { read?: string[]; list?: string[]; write?: string[] }): Promise<Probe> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) for (const p of v) qs.append(k, p);
  return new Promise((resolve, reject) => {
    httpGet({ socketPath, path: `/?${qs}` }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => resolve(JSON.parse(body) as Probe));
    }).on('error', reject);
  });
}

describe.skipIf(process.getuid?.() !== 0)('as root, each project\'s worker runs as a user of its own', () => {
  it('cannot read bundle.json, users.json, the logs or another project\'s storage and database, and can use its own', async () => {
    const base = 2_000_100_000;
    const { supervisor, dir } = setup({ command: [process.execPath, '-e', PROBE], users: { mode: 'isolated', uidBase: base } });
    const b = bundleOf('1', [
      { org: 'acme', project: 'blog', hostnames: ['blog.test'], database: true, storage: { prefix: 'p-blog', quotaBytes: 1024 }, env: { KEY: 'blog-secret-value' } },
      { org: 'evil', project: 'thief', hostnames: ['thief.test'], database: true, storage: { prefix: 'p-thief', quotaBytes: 1024 } },
    ]);
    writeBundleFile(dir, b); // as the agent does before it applies
    // A file an earlier agent (running workers as root) left in the project's storage: given to its user.
    execFileSync('mkdir', ['-p', join(dir, 'storage', 'p-blog')]);
    writeFileSync(join(dir, 'storage', 'p-blog', 'private.txt'), 'blog-private-data', { mode: 0o600 });
    expect(await supervisor.apply(b)).toEqual({ failed: [] });
    const portOf = (host: string): string => {
      const r = supervisor.route(host);
      if (r.kind !== 'worker') throw new Error(`no worker for ${host}`);
      r.release();
      return r.worker.socketPath;
    };
    const blogStorage = join(dir, 'storage', 'p-blog');
    const thiefStorage = join(dir, 'storage', 'p-thief');
    const blogDb = join(dir, 'databases', 'acme', 'blog');
    const thiefDb = join(dir, 'databases', 'evil', 'thief');

    const thief = await probe(portOf('thief.test'), {
      read: [join(dir, 'bundle.json'), join(dir, 'users.json'), join(blogStorage, 'private.txt'), join(blogDb, 'blog.sqlite'), join(dir, 'logs', 'acme.blog.log')],
      list: [dir, join(dir, 'logs'), blogStorage, blogDb, join(dir, 'databases', 'acme'), join(dir, 'storage')],
      write: [join(thiefStorage, 'mine.txt'), join(thiefDb, 'thief.sqlite-journal'), join(dir, 'bundle.json'), join(blogStorage, 'planted.txt'), join(dir, 'storage', 'planted')],
    });
    expect(thief.uid).toBe(base + 1);
    expect(thief.gid).toBe(base + 1);
    expect(thief.groups).not.toContain(0);
    for (const [p, outcome] of Object.entries(thief.read)) expect(outcome, `read ${p}`).toBe('EACCES');
    for (const [p, outcome] of Object.entries(thief.list)) expect(outcome, `list ${p}`).toBe('EACCES');
    expect(thief.write).toEqual({
      [join(thiefStorage, 'mine.txt')]: 'ok', [join(thiefDb, 'thief.sqlite-journal')]: 'ok',
      [join(dir, 'bundle.json')]: 'EACCES', [join(blogStorage, 'planted.txt')]: 'EACCES', [join(dir, 'storage', 'planted')]: 'EACCES',
    });

    const blog = await probe(portOf('blog.test'), { read: [join(blogStorage, 'private.txt'), join(blogDb, 'blog.sqlite'), join(dir, 'bundle.json')] });
    expect(blog.uid).toBe(base);
    expect(blog.read).toEqual({ [join(blogStorage, 'private.txt')]: 'ok', [join(blogDb, 'blog.sqlite')]: 'ok', [join(dir, 'bundle.json')]: 'EACCES' });

    const owner = (p: string) => { const s = statSync(p); return { uid: s.uid, mode: s.mode & 0o777 }; };
    expect(owner(blogStorage)).toEqual({ uid: base, mode: 0o700 });
    expect(owner(join(blogStorage, 'private.txt')).uid).toBe(base); // what root left there is given to the worker's user
    expect(owner(blogDb)).toEqual({ uid: base, mode: 0o700 });
    expect(owner(join(blogDb, 'blog.sqlite'))).toEqual({ uid: base, mode: 0o600 });
    expect(owner(thiefStorage)).toEqual({ uid: base + 1, mode: 0o700 });
    expect(owner(join(dir, 'bundle.json'))).toEqual({ uid: 0, mode: 0o600 });
    expect(owner(join(dir, 'users.json'))).toEqual({ uid: 0, mode: 0o600 });
    expect(owner(join(dir, 'logs'))).toEqual({ uid: 0, mode: 0o700 });
    expect(owner(dir)).toEqual({ uid: 0, mode: 0o711 });
    // The worker's own output file stays the agent's.
    expect(owner(join(dir, 'logs', 'evil.thief.log'))).toEqual({ uid: 0, mode: 0o600 });
  }, 30_000);

  it('moves a database from where earlier agents kept it into the project\'s own directory', async () => {
    const { supervisor, dir } = setup({ fake: true, users: { mode: 'isolated', uidBase: 2_000_200_000 } });
    execFileSync('mkdir', ['-p', join(dir, 'databases', 'acme')]);
    writeFileSync(join(dir, 'databases', 'acme', 'blog.sqlite'), 'old-database');
    await supervisor.apply(bundleOf('1', [{ database: true }]));
    expect(existsSync(join(dir, 'databases', 'acme', 'blog.sqlite'))).toBe(false);
    const moved = join(dir, 'databases', 'acme', 'blog', 'blog.sqlite');
    expect(statSync(moved)).toMatchObject({ size: 'old-database'.length, uid: 2_000_200_000 });
  });
});

describe('the project database the agent prepares is the worker\'s directory: nothing planted there is followed', () => {
  const user = process.getuid?.() === 0 ? { uid: 2_000_300_000, gid: 2_000_300_000 } : null;

  it('a link where the database file was: refused, and the file it points to is untouched', () => {
    const dir = tempDir();
    const db = prepareDatabase(dir, 'acme', 'blog', user);
    // Another project's database, or any file of root's.
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'not yours', { mode: 0o644 });
    const before = statSync(victim);
    rmSync(db);
    symlinkSync(victim, db);
    expect(() => prepareDatabase(dir, 'acme', 'blog', user)).toThrow(/is a link/);
    const after = statSync(victim);
    expect({ uid: after.uid, mode: after.mode, size: after.size }).toEqual({ uid: before.uid, mode: before.mode, size: before.size });
    expect(readFileSync(victim, 'utf8')).toBe('not yours');
  });

  it('a link where a journal file was: refused, not given to the worker', () => {
    const dir = tempDir();
    const db = prepareDatabase(dir, 'acme', 'blog', user);
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'x', { mode: 0o644 });
    symlinkSync(victim, `${db}-wal`);
    expect(() => prepareDatabase(dir, 'acme', 'blog', user)).toThrow(/is a link/);
    expect(statSync(victim).uid).toBe(process.getuid!());
  });

  it.skipIf(user === null)('a hard link to a file of root\'s: refused, the file stays root\'s with its mode', () => {
    const dir = tempDir();
    const db = prepareDatabase(dir, 'acme', 'blog', user);
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'root only', { mode: 0o644 });
    rmSync(db);
    linkSync(victim, db);
    expect(() => prepareDatabase(dir, 'acme', 'blog', user)).toThrow(/another user/);
    expect(statSync(victim)).toMatchObject({ uid: 0, mode: 0o100644 });
  });

  it('an existing database of the worker is kept as it is', () => {
    const dir = tempDir();
    const db = prepareDatabase(dir, 'acme', 'blog', user);
    writeFileSync(db, 'data');
    expect(prepareDatabase(dir, 'acme', 'blog', user)).toBe(db);
    expect(readFileSync(db, 'utf8')).toBe('data');
    expect(statSync(db)).toMatchObject({ uid: user?.uid ?? process.getuid!(), mode: 0o100600 });
  });
});

describe('not root: workers share the agent\'s user', () => {
  const kindOf = (s: Supervisor, host: string): string => {
    const r = s.route(host);
    if (r.kind === 'worker') r.release();
    return r.kind;
  };
  const twoOrgs = (v: string) => bundleOf(v, [
    { org: 'acme', project: 'blog', hostnames: ['blog.test'] },
    { org: 'evil', project: 'thief', hostnames: ['thief.test'] },
  ]);

  it('runs the projects of one organization; another\'s is refused like a failed start, and the version is not applied', async () => {
    const { supervisor, logs } = setup({ fake: true, users: { mode: 'shared', allowSeveralOrgs: false } });
    expect(await supervisor.apply(twoOrgs('1'))).toEqual({ failed: ['evil/thief'] });
    expect(kindOf(supervisor, 'blog.test')).toBe('worker');
    expect(kindOf(supervisor, 'thief.test')).toBe('unavailable');
    expect(supervisor.appliedVersion()).toBeNull();
    // Reported to the control plane, which shows it to the tenant: not the other organization's name.
    expect(supervisor.projects().find((p) => p.key === 'evil/thief')).toMatchObject({ runningVersion: null, failure: 'refused: the node runs another organization\'s projects under the same user' });
    const line = logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'the worker was not started');
    expect(line).toMatchObject({ level: 40, project: 'evil/thief', bundleVersion: '1', reason: expect.stringMatching(/^refused: .*--allow-shared-user/) });

    // Once acme's project is no longer placed here, evil's runs.
    expect(await supervisor.apply(bundleOf('2', [{ org: 'evil', project: 'thief', hostnames: ['thief.test'] }]))).toEqual({ failed: [] });
    expect(kindOf(supervisor, 'thief.test')).toBe('worker');
    expect(supervisor.appliedVersion()).toBe('2');
  });

  it('runs several organizations with --allow-shared-user', async () => {
    const { supervisor } = setup({ fake: true, users: { mode: 'shared', allowSeveralOrgs: true } });
    expect(await supervisor.apply(twoOrgs('1'))).toEqual({ failed: [] });
    expect(supervisor.appliedVersion()).toBe('1');
  });

  it('the agent says so at start', async () => {
    for (const allowSeveralOrgs of [false, true]) {
      const logs = captureLogger();
      const control: ControlPlane = {
        bundle: ({ signal }) => new Promise<BundleAnswer>((resolve) => signal?.addEventListener('abort', () => resolve({ kind: 'unchanged' }))),
        report: () => Promise.resolve(),
        redeem: () => Promise.resolve(null),
        close: () => undefined,
      };
      const agent = await startAgent({
        dir: tempDir(), control, command: ['unused'], listen: { host: '127.0.0.1', port: 0 }, log: logs.log,
        users: { mode: 'shared', allowSeveralOrgs }, supervisor: { start: fakeWorker },
      });
      await agent.stop();
      const line = logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => typeof l.msg === 'string' && l.msg.startsWith('the agent does not run as root'));
      expect(line).toMatchObject({ level: 40, allowSharedUser: allowSeveralOrgs });
      expect(line!.msg).toContain('bundle.json');
      expect(line!.msg).toContain(allowSeveralOrgs ? 'several organizations run anyway' : 'one organization run at a time');
    }
  });
});
