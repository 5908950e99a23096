/** A worker is reached on a Unix socket only its project's uid (and root) can reach, never on a TCP port
 * (agent/workers/worker-process.ts):
 * - as root, a worker gets `SERVICE_SOCKET` in its project's socket directory (its uid's, 0700, under `D/run`, root's
 *   0711) and no `SERVICE_HOST`/`SERVICE_PORT`; no worker uid has a listening TCP socket; another project's worker
 *   cannot connect to its socket, nor to the agent's link to it (EACCES);
 * - the front end connects through the agent's own hard link to the socket the worker bound: a worker that puts a
 *   link to another project's socket in its socket's place, before it is ready or after, reaches nothing;
 * - what is at the socket's place is never followed (a link there is refused), a socket path over 107 bytes fails the
 *   start with a clear message, and a worker's sockets go when it exits. */
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer, get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pinDir, socketDir } from '../../../agent/layout';
import { Supervisor } from '../../../agent/workers/supervisor';
import { shellCommand, startWorker, WorkerStartError, type WorkerSpec } from '../../../agent/workers/worker-process';
import { bundleOf, captureLogger, get, startFrontend } from '../../helpers/agent';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'hp-sock-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const ROOT = process.getuid?.() === 0;
const NOT_ROOT = ROOT ? '' : ` (skipped: these tests run as uid ${process.getuid?.()}, and workers get uids of their own only when the agent is root)`;

/** A worker that answers as whom it runs, its environment's names and `SERVICE_SOCKET`; `?connect=PATH` (repeated)
 * tries to connect to each Unix socket, `?connect=tcp:PORT` to a loopback port; `?swap=PATH` moves its socket
 * aside and puts a link to PATH in its place. It listens on `SERVICE_SOCKET`, or on `SERVICE_PORT` when an agent
 * gives one (as agents did before: this test fails on them). */
const PROBE = `
const http = require('http'), net = require('net'), fs = require('fs');
const env = process.env;
const server = http.createServer((req, res) => {
  req.resume();
  const q = new URL(req.url, 'http://x').searchParams;
  const base = { uid: process.getuid(), env: Object.keys(env).sort(), socket: env.SERVICE_SOCKET ?? null };
  const done = (out) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ ...base, ...out })); };
  if (q.get('swap')) {
    fs.renameSync(env.SERVICE_SOCKET, env.SERVICE_SOCKET + '.moved');
    fs.symlinkSync(q.get('swap'), env.SERVICE_SOCKET);
    res.setHeader('connection', 'close');
    return done({ swapped: true });
  }
  const targets = q.getAll('connect');
  const connect = {};
  let left = targets.length;
  if (left === 0) return done({});
  for (const t of targets) {
    const s = t.startsWith('tcp:') ? net.connect(Number(t.slice(4)), '127.0.0.1') : net.connect(t);
    const settle = (outcome) => { if (t in connect) return; connect[t] = outcome; s.destroy(); if (--left === 0) done({ connect }); };
    s.once('connect', () => settle('ok'));
    s.once('error', (e) => settle(e.code));
  }
});
if (env.SERVICE_SOCKET) server.listen(env.SERVICE_SOCKET); else server.listen(Number(env.SERVICE_PORT), env.SERVICE_HOST);
process.stdin.on('end', () => process.exit(0)).resume();
`;

interface ProbeAnswer { uid: number; env: string[]; socket: string | null; connect?: Record<string, string>; swapped?: boolean }

/** One GET through the front end, on a connection of its own. */
async function ask(url: string, host: string, q: Record<string, string | string[]> = {}): Promise<ProbeAnswer> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) for (const x of [v].flat()) qs.append(k, x);
  const a = await get(url, host, undefined, `/?${qs}`);
  if (a.status !== 200) throw new Error(`${host}: ${a.status} ${a.body}`);
  return JSON.parse(a.body) as ProbeAnswer;
}

/** The listening TCP sockets (IPv4 and IPv6) of the network namespace, with their owners' uids and ports. */
function tcpListeners(): { uid: number; port: number }[] {
  const out: { uid: number; port: number }[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 8 || f[3] !== '0A') continue; // 0A: LISTEN
      out.push({ uid: Number(f[7]), port: parseInt(f[1]!.split(':')[1]!, 16) });
    }
  }
  return out;
}

const modeOf = (p: string): { uid: number; mode: number } => {
  const s = lstatSync(p);
  return { uid: s.uid, mode: s.mode & 0o7777 };
};

function setup(base: number) {
  const dir = tempDir();
  const supervisor = new Supervisor({
    dir, command: [process.execPath, '-e', PROBE], log: captureLogger().log, drainTimeoutMs: 2000,
    retry: { baseMs: 60_000, maxMs: 60_000 }, users: { mode: 'isolated', uidBase: base },
  });
  cleanups.push(() => supervisor.stop());
  return { dir, supervisor };
}

const TWO = bundleOf('1', [
  { org: 'acme', project: 'blog', hostnames: ['blog.test'] },
  { org: 'evil', project: 'thief', hostnames: ['thief.test'] },
]);

describe.skipIf(!ROOT)(`as root, a worker is reached on its own socket only${NOT_ROOT}`, () => {
  it('gets SERVICE_SOCKET in its uid\'s 0700 directory and no port; no worker listens on TCP; another worker\'s uid cannot connect to it', async () => {
    const base = 2_000_300_000;
    const { dir, supervisor } = setup(base);
    const fe = await startFrontend(supervisor);
    cleanups.push(() => fe.close());
    expect(await supervisor.apply(TWO)).toEqual({ failed: [] });

    const blog = await ask(fe.url, 'blog.test');
    expect(blog.uid).toBe(base);
    expect(blog.env).not.toContain('SERVICE_PORT');
    expect(blog.env).not.toContain('SERVICE_HOST');
    expect(blog.env).toContain('SERVICE_SOCKET');
    expect(dirname(blog.socket!)).toBe(socketDir(dir, 'acme', 'blog'));
    expect(basename(blog.socket!)).toMatch(/^\d+\.sock$/);
    expect(lstatSync(blog.socket!).isSocket()).toBe(true);
    expect(modeOf(blog.socket!).uid).toBe(base);

    // No worker uid has a listening TCP socket: there is no port to reach one on.
    const uids = new Set([base, base + 1]);
    const listening = tcpListeners().filter((l) => uids.has(l.uid));
    expect(listening).toEqual([]);

    // The thief (another project's worker, another uid) tries the blog worker's socket, the agent's link to it,
    // and its own (which it reaches: the refusals are not a wrong path).
    const r = supervisor.route('blog.test');
    if (r.kind !== 'worker') throw new Error('no blog worker');
    r.release();
    const pinned = r.worker.socketPath;
    expect(pinned.startsWith(`${pinDir(dir)}/`)).toBe(true);
    const thief = await ask(fe.url, 'thief.test', { connect: [blog.socket!, pinned] });
    expect(thief.uid).toBe(base + 1);
    const own = await ask(fe.url, 'thief.test', { connect: [(await ask(fe.url, 'thief.test')).socket!] });
    expect(thief.connect).toEqual({ [blog.socket!]: 'EACCES', [pinned]: 'EACCES' });
    expect(Object.values(own.connect!)).toEqual(['ok']);

    // The directories: D/run root's 0711, each project's its uid's 0700, the agent's links root's 0700.
    expect(modeOf(join(dir, 'run'))).toEqual({ uid: 0, mode: 0o711 });
    expect(modeOf(socketDir(dir, 'acme', 'blog'))).toEqual({ uid: base, mode: 0o700 });
    expect(modeOf(socketDir(dir, 'evil', 'thief'))).toEqual({ uid: base + 1, mode: 0o700 });
    expect(modeOf(pinDir(dir))).toEqual({ uid: 0, mode: 0o700 });
    expect(lstatSync(pinned).isSocket()).toBe(true);
  }, 30_000);

  it('a worker that swaps its socket for a link to another project\'s still reaches only itself', async () => {
    const base = 2_000_310_000;
    const { supervisor } = setup(base);
    const fe = await startFrontend(supervisor);
    cleanups.push(() => fe.close());
    expect(await supervisor.apply(TWO)).toEqual({ failed: [] });
    const blog = await ask(fe.url, 'blog.test');
    const swapped = await ask(fe.url, 'thief.test', { swap: blog.socket! });
    expect(swapped.swapped).toBe(true);
    // The front end reaches the thief's own socket, over new connections too, never the blog worker.
    for (let i = 0; i < 5; i++) expect((await ask(fe.url, 'thief.test')).uid).toBe(base + 1);
    expect((await ask(fe.url, 'blog.test')).uid).toBe(base);
  }, 30_000);

  it('a worker that puts a link to another project\'s socket where its own goes is never connected to', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o711); // as the agent hardens D: the worker can reach its directory
    // Another project's worker: a server of root's on a socket in a directory no worker reaches.
    const hits: string[] = [];
    const victim = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('victim');
    });
    mkdirSync(join(dir, 'victim'), { mode: 0o700 });
    const victimSocket = join(dir, 'victim', 'v.sock');
    await new Promise<void>((r) => victim.listen(victimSocket, r));
    cleanups.push(() => new Promise<void>((r) => victim.close(() => r())));

    const spec: WorkerSpec = {
      key: 'evil/thief', org: 'evil', project: 'thief', version: '1', bindings: { TARGET: victimSocket }, digest: 'x',
      command: shellCommand('ln -s "$TARGET" "$SERVICE_SOCKET" && exec sleep 30'),
      logPath: join(dir, 'logs', 'evil.thief.log'), socketDir: socketDir(dir, 'evil', 'thief'), pinDir: pinDir(dir),
      user: { uid: 2_000_320_000, gid: 2_000_320_000 },
    };
    const started = startWorker(spec, { readyTimeoutMs: 1500 });
    await expect(started).rejects.toThrow(WorkerStartError);
    await expect(started).rejects.toThrow(/did not answer on its socket/);
    expect(hits).toEqual([]);
    // Nothing of the agent's names the victim's socket.
    expect(readdirSync(pinDir(dir))).toEqual([]);
  }, 30_000);

  it('refuses a link in the place of the project\'s socket directory, and leaves what it points to alone', async () => {
    const dir = tempDir();
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o755 });
    mkdirSync(join(dir, 'run'), { mode: 0o711 });
    symlinkSync(elsewhere, socketDir(dir, 'acme', 'blog'));
    const spec: WorkerSpec = {
      key: 'acme/blog', org: 'acme', project: 'blog', version: '1', bindings: {}, digest: 'x', command: ['/bin/true'],
      logPath: join(dir, 'logs', 'acme.blog.log'), socketDir: socketDir(dir, 'acme', 'blog'), pinDir: pinDir(dir),
      user: { uid: 2_000_330_000, gid: 2_000_330_000 },
    };
    await expect(startWorker(spec)).rejects.toThrow(/is not a directory/);
    expect(modeOf(elsewhere)).toEqual({ uid: 0, mode: 0o755 });
  });
});

describe('a worker\'s socket', () => {
  const specIn = (dir: string, command: string[]): WorkerSpec => ({
    key: 'acme/blog', org: 'acme', project: 'blog', version: '1', bindings: {}, digest: 'x', command,
    logPath: join(dir, 'logs', 'acme.blog.log'), socketDir: socketDir(dir, 'acme', 'blog'), pinDir: pinDir(dir), user: null,
  });

  it('over 107 bytes fails the start with a clear message, and nothing is started', async () => {
    const dir = join(tempDir(), 'x'.repeat(80));
    const marker = join(tmpdir(), `hp-sock-started-${process.pid}`);
    const spec = specIn(dir, shellCommand(`touch '${marker}'`));
    await expect(startWorker(spec)).rejects.toThrow(/bytes, more than the 107 a Unix socket's may be: give the agent a --dir with a shorter path/);
    expect(existsSync(marker)).toBe(false);
  });

  it('is a new one each start, in the project\'s directory, and goes with its worker (the agent\'s link too)', async () => {
    const dir = tempDir();
    // A worker of the agent's own user here (or of root's): what a worker that answers HTTP on its socket needs.
    const cmd = [process.execPath, '-e', "require('http').createServer((q,s)=>s.end('ok')).listen(process.env.SERVICE_SOCKET);process.stdin.resume().on('end',()=>process.exit(0))"];
    const a = await startWorker(specIn(dir, cmd));
    const b = await startWorker(specIn(dir, cmd));
    expect(a.socketPath).not.toBe(b.socketPath);
    expect(readdirSync(socketDir(dir, 'acme', 'blog')).sort()).toEqual([`${a.id}.sock`, `${b.id}.sock`].sort());
    for (const w of [a, b]) {
      const body = await new Promise<string>((resolve, reject) => {
        httpGet({ socketPath: w.socketPath, path: '/' }, (res) => {
          let s = '';
          res.setEncoding('utf8').on('data', (c: string) => { s += c; }).on('end', () => resolve(s));
        }).on('error', reject);
      });
      expect(body).toBe('ok');
    }
    await a.stop();
    await b.stop();
    await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(socketDir(dir, 'acme', 'blog'))).toEqual([]);
    expect(readdirSync(pinDir(dir))).toEqual([]);
    expect(statSync(socketDir(dir, 'acme', 'blog')).mode & 0o777).toBe(0o700);
  }, 30_000);

  it('a stale socket in its place is removed; anything else there is refused and left alone', async () => {
    const dir = tempDir();
    const cmd = [process.execPath, '-e', "require('http').createServer((q,s)=>s.end('ok')).listen(process.env.SERVICE_SOCKET);process.stdin.resume().on('end',()=>process.exit(0))"];
    // The ids rise: learn the next by starting one, then put things where the following ones go.
    const first = await startWorker(specIn(dir, cmd));
    await first.stop();
    const at = (n: number): string => join(socketDir(dir, 'acme', 'blog'), `${first.id + n}.sock`);
    // A socket an earlier worker left (bound, its server gone): moved into place.
    const old = await startWorker(specIn(dir, cmd));
    expect(old.id).toBe(first.id + 1);
    const kept = join(dir, 'kept.sock');
    renameSync(join(socketDir(dir, 'acme', 'blog'), `${old.id}.sock`), kept);
    await old.stop();
    renameSync(kept, at(2));
    const next = await startWorker(specIn(dir, cmd));
    expect(next.id).toBe(first.id + 2);
    await next.stop();
    // A link where the next one goes: refused, not followed, left there.
    symlinkSync(join(dir, 'elsewhere'), at(3));
    await expect(startWorker(specIn(dir, cmd))).rejects.toThrow(/is in the way of the worker's socket and is not a socket/);
    expect(lstatSync(at(3)).isSymbolicLink()).toBe(true);
    expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
  }, 30_000);
});
