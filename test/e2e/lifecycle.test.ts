/**
 * How `serve` (and `core`) start and refuse to: a start that cannot succeed prints one line on stderr and exits
 * non-zero at once, leaving no process and no knotd behind; and one serve or core per data dir, a second refused
 * without disturbing the first, a successor taking over from one that was SIGKILLed.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../harness/dns';
import { freePort, hasKnot, knotTitle } from '../helpers/knot';
import { adminJson, bootstrapWithCli, cleanup, http, runHostplane, startHostplane, tempDir, type CliResult, type Running } from '../helpers/proc';

afterAll(cleanup);

/** Pids of the processes whose command line names `dir`: a hostplane given `--data dir`, and its knotd. */
function processesOn(dir: string): Promise<number[]> {
  return new Promise((resolve) => {
    execFile('pgrep', ['-f', dir], (_err, stdout) => resolve(stdout.split('\n').filter(Boolean).map(Number)));
  });
}

/** The knotd serving `dir` (its configuration is in `dir/knot`). */
const knotdOf = (dir: string): Promise<number[]> => processesOn(join(dir, 'knot', 'knot.conf'));

/** Runs a command that must fail to start; answers its result and how long it took. */
async function failedStart(args: string[]): Promise<CliResult & { ms: number }> {
  const started = Date.now();
  const r = await runHostplane(args);
  return { ...r, ms: Date.now() - started };
}

/** Its stderr, once the JSON log lines are set aside: what an operator reads. */
const message = (stderr: string): string[] => stderr.split('\n').filter((l) => l && !l.startsWith('{"level":'));

describe('a start that cannot succeed', () => {
  const badFlags: [string, string[], RegExp][] = [
    ['an unknown option', ['--bogus'], /^hostplane: unknown flag --bogus \(hostplane serve --help lists the flags\)$/],
    ['a bad --catalog-zone', ['--catalog-zone', 'catalog'], /^hostplane serve: invalid --catalog-zone catalog: it has one label/],
    ['a --tsig-key file that is not there', ['--tsig-key', '/nonexistent/key'], /^hostplane serve: --tsig-key \/nonexistent\/key cannot be read: ENOENT$/],
    ['a bad --resolver', ['--resolver', 'resolver.example'], /^hostplane serve: invalid --resolver: expected ip:port/],
    ['an argument', ['now'], /^hostplane serve: serve takes no arguments, got now$/],
    ['a port out of range', ['--port', '70000'], /^hostplane serve: invalid --port 70000$/],
    ['an unknown host', ['--host', 'no-such-host.invalid'], /^hostplane serve: invalid --host no-such-host\.invalid: no such host$/],
    ['a plans file that is not there', ['--plans', '/nonexistent/plans.json'], /^hostplane serve: --plans \/nonexistent\/plans\.json: ENOENT/],
    ['a bad --defer-file-from', ['--defer-file-from', 'many'], /^hostplane serve: invalid --defer-file-from many$/],
    ['a bad --dns-listen', ['--dns-listen', 'localhost'], /^hostplane serve: invalid --dns-listen: expected ip:port/],
    ['a bad --secondaries', ['--secondaries', '192.0.2.1'], /^hostplane serve: invalid --secondaries: expected ip:port/],
    ['no --nameservers', ['--nameservers', ','], /^hostplane serve: --nameservers needs at least one name/],
    ['a bad --app-domain', ['--app-domain', 'app..example'], /^hostplane serve: invalid --app-domain "app\.\.example": it has an empty label$/],
    ['a bad --metrics-listen', ['--metrics-listen', '9464'], /^hostplane serve: invalid --metrics-listen 9464/],
    ['a bad --max-connections', ['--max-connections', '0'], /^hostplane serve: invalid --max-connections 0/],
    ['--host 0.0.0.0 on PostgreSQL without --advertise-url', ['--host', '0.0.0.0', '--database-url', 'postgres://hp@127.0.0.1:5432/hp'], /^hostplane serve: --host 0\.0\.0\.0 listens on every address, .* give --advertise-url /],
  ];

  it.concurrent.each(badFlags)('serve with %s: exit 2 with one line, nothing created, nothing started', async (_label, args, expected) => {
    const dir = join(tempDir('hostplane-lifecycle-'), 'data');
    const dnsPort = await freePort();
    const r = await failedStart(['serve', '--data', dir, '--port', '0', '--metrics-listen', '127.0.0.1:0', '--dns-listen', `127.0.0.1:${dnsPort}`, ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr.trimEnd()).toMatch(expected);
    expect(r.ms).toBeLessThan(15_000);
    expect(existsSync(dir)).toBe(false);
    expect(await processesOn(dir)).toEqual([]);
  });

  it.concurrent.each([
    ['core without a token', ['core'], /^hostplane core: core needs --core-token/],
    ['api with a --core-url that is not one', ['api', '--core-url', 'core:8081', '--core-token', 't'], /^hostplane api: invalid --core-url core:8081/],
  ])('%s: exit 2 with one line', async (_label, args, expected) => {
    const dir = join(tempDir('hostplane-lifecycle-'), 'data');
    const r = await failedStart([...args, '--data', dir, '--port', '0', '--metrics-listen', '127.0.0.1:0']);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd()).toMatch(expected);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(existsSync(dir)).toBe(false);
  });

  describe('a port in use', () => {
    let holder: Server;
    let taken: number;
    beforeAll(async () => {
      holder = createServer();
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      taken = (holder.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

    it.each([
      ['the API port', (p: number) => ['--port', String(p), '--metrics-listen', '127.0.0.1:0'], '--host, --port'],
      ['the metrics port', (p: number) => ['--port', '0', '--metrics-listen', `127.0.0.1:${p}`], '--metrics-listen'],
    ])('%s: exit 1 with one line that says so, before starting anything or leaving a data dir', async (_label, ports, flag) => {
      const dir = join(tempDir('hostplane-lifecycle-'), 'data');
      const r = await failedStart(['serve', '--data', dir, '--dns-listen', '127.0.0.1:0', ...ports(taken)]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(message(r.stderr)).toEqual([`hostplane serve: cannot listen on 127.0.0.1:${taken} (${flag}): the port is in use`]);
      expect(r.ms).toBeLessThan(15_000);
      expect(await processesOn(dir)).toEqual([]);
      expect(existsSync(dir)).toBe(false);
    });

    it.skipIf(!hasKnot())('the DNS port: exit 1 with one line that says so, instead of serving no DNS', async () => {
      const dir = join(tempDir('hostplane-lifecycle-'), 'data');
      const r = await failedStart(['serve', '--data', dir, '--port', '0', '--metrics-listen', '127.0.0.1:0', '--dns-listen', `127.0.0.1:${taken}`]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(message(r.stderr)).toEqual([`hostplane serve: the DNS address 127.0.0.1:${taken} (--dns-listen) is in use`]);
      expect(await processesOn(dir)).toEqual([]);
      expect(existsSync(dir)).toBe(false);
    });

    it.skipIf(!hasKnot())('every taken address at once, in one line, before knotd or any sandbox starts', async () => {
      const dir = join(tempDir('hostplane-lifecycle-'), 'data');
      const at = `127.0.0.1:${taken}`;
      const r = await failedStart(['serve', '--data', dir, '--port', String(taken), '--metrics-listen', at, '--dns-listen', at]);
      expect(r.code).toBe(1);
      expect(message(r.stderr)).toEqual([`hostplane serve: cannot listen on ${at} (--host, --port): the port is in use; `
        + `cannot listen on ${at} (--metrics-listen): the port is in use; the DNS address ${at} (--dns-listen) is in use`]);
      // Nothing was started: no sandbox said where it runs, no knotd ran.
      expect(r.stderr).not.toMatch(/sandbox|knotd/);
      expect(await processesOn(dir)).toEqual([]);
      expect(existsSync(dir)).toBe(false);
    });
  });
});

describe('products side by side on one machine', () => {
  const DEFAULT_METRICS = { host: '127.0.0.1', port: 9464 };
  let holder: Server | null = null;
  beforeAll(async () => {
    // The default metrics address taken, as by a process started before: by this one, or by whoever holds it.
    holder = await new Promise<Server | null>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(null));
      s.listen(DEFAULT_METRICS.port, DEFAULT_METRICS.host, () => resolve(s));
    });
  });
  afterAll(() => new Promise<void>((resolve) => (holder ? holder.close(() => resolve()) : resolve())));

  it('api and core with the default --metrics-listen both start, their metrics on other ports, with a warning', async () => {
    const dir = tempDir('hostplane-lifecycle-');
    const core = await startHostplane(['core', '--port', '0', '--data', dir, '--core-token', 'shared', '--dns', 'off'], { defaultMetrics: true });
    const api = await startHostplane(['api', '--port', '0', '--data', dir, '--core-url', core.url, '--core-token', 'shared'], { defaultMetrics: true });
    for (const p of [core, api]) {
      expect(p.metrics).not.toBe(`http://127.0.0.1:${DEFAULT_METRICS.port}/metrics`);
      expect((await fetch(p.metrics!)).status).toBe(200);
      expect(p.stderr()).toContain('the default metrics address is in use');
    }
    expect(core.metrics).not.toBe(api.metrics);
    expect((await api.stop()).code).toBe(0);
    expect((await core.stop()).code).toBe(0);
  });
});

describe('stopping', () => {
  it('serve with nodes attached stops at once: their held long-polls are answered (304), not cut after 10 s', async () => {
    const dir = tempDir('hostplane-lifecycle-');
    const serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns', 'off']);
    const { token: nodeToken } = await adminJson<{ token: string }>(dir, 'node', 'register', 'edge-1');
    const bundle = (headers: Record<string, string> = {}, query = '') =>
      fetch(`${serve.url}/v1/nodes/edge-1/bundle${query}`, { headers: { authorization: `Bearer ${nodeToken}`, ...headers } });
    const etag = (await bundle()).headers.get('etag')!;
    const polls = [1, 2, 3].map(() => bundle({ 'if-none-match': etag }, '?wait=30').then((r) => r.status, (e: Error) => e));
    // Answered after the long-polls were sent, on a connection of its own: by then serve has read them.
    expect((await bundle()).status).toBe(200);
    const signalled = Date.now();
    expect((await serve.stop()).code).toBe(0);
    expect(await Promise.all(polls)).toEqual([304, 304, 304]);
    expect(serve.stderr()).not.toContain('did not finish in 10 s');
    // The force timer's 10 s: a stop that waited for it took at least that (not a fine timing of the stop).
    expect(Date.now() - signalled).toBeLessThan(10_000);
  });
});

describe.skipIf(!hasKnot())(knotTitle('one serve or core per data dir'), () => {
  let dir: string;
  let first: Running;
  /** The serve running now: its knotd answers on a port its start picked (`--dns-listen 127.0.0.1:0`). */
  let serving: Running;
  let token: string;
  const serveArgs = (): string[] => ['serve', '--port', '0', '--data', dir, '--dns-listen', '127.0.0.1:0', '--nameservers', 'ns1.hostplane.test,ns2.hostplane.test'];
  const soa = async (): Promise<string> => (await query(serving.dns!, 'example.com', 'SOA', { timeoutMs: 500 })).rcode;
  async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!(await check().catch(() => false))) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 50));
    }
    return true;
  }

  beforeAll(async () => {
    dir = tempDir('hostplane-lifecycle-');
    // serve makes the store; the CLI bootstraps beside it.
    first = serving = await startHostplane(serveArgs());
    token = await bootstrapWithCli(dir);
    expect((await http(first.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: 'example.com' } })).status).toBe(200);
    expect(await eventually(async () => (await soa()) === 'NOERROR')).toBe(true);
  }, 60_000);

  it('a second serve is refused at once, naming the first one\'s pid; the first serves on, its knotd untouched', async () => {
    const knotd = await knotdOf(dir);
    expect(knotd).toHaveLength(1);
    const r = await failedStart(serveArgs().concat('--metrics-listen', '127.0.0.1:0'));
    expect(r.code).toBe(1);
    expect(message(r.stderr)).toEqual([
      `hostplane serve: the data dir ${dir} is in use by pid ${first.proc.pid} (a hostplane serve or core); only one may run on a data dir`,
    ]);
    expect(r.ms).toBeLessThan(15_000);

    expect(await knotdOf(dir)).toEqual(knotd);
    expect(await soa()).toBe('NOERROR');
    expect((await http(first.url, 'GET', '/v1/orgs/acme/dns/zones/example.com', { token })).status).toBe(200);
    expect(first.stderr()).not.toMatch(/exited unexpectedly|left running/);
  });

  it('so is a core', async () => {
    const r = await failedStart(['core', '--core-token', 'shared', '--port', '0', '--metrics-listen', '127.0.0.1:0', '--data', dir, '--dns-listen', '127.0.0.1:0']);
    expect(r.code).toBe(1);
    expect(message(r.stderr)).toEqual([expect.stringMatching(new RegExp(`^hostplane core: the data dir .* is in use by pid ${first.proc.pid} `))]);
    expect(await soa()).toBe('NOERROR');
  });

  it('an api shares the data dir (the split deployment)', async () => {
    const api = await startHostplane(['api', '--port', '0', '--data', dir]);
    const listed = await http(api.url, 'GET', '/v1/orgs/acme/projects', { token });
    expect((await api.stop()).code).toBe(0);
    expect(listed.status).toBe(200);
  });

  it('once the holder is SIGKILLed, a new serve takes the data dir over and serves the same zones', async () => {
    const knotd = await knotdOf(dir);
    await first.stop('SIGKILL');
    const next = serving = await startHostplane(serveArgs());
    expect((await http(next.url, 'GET', '/v1/orgs/acme/dns/zones/example.com', { token })).status).toBe(200);
    expect(await eventually(async () => (await soa()) === 'NOERROR')).toBe(true);
    const now = await knotdOf(dir);
    expect(now).toHaveLength(1);
    expect(now).not.toEqual(knotd);
    expect((await next.stop()).code).toBe(0);
    expect(await processesOn(dir)).toEqual([]);
  }, 30_000);
});
