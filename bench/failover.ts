/**
 * Several `serve` on one PostgreSQL (issue 23, Speed): three processes a, b, c on a cluster this bench starts (fsync
 * on), one shared sealing key, each connecting as a role of its own. One line per case:
 *   - cross-replica bundle wake: a node long-polls b's bundle endpoint while its project's secret is set through c;
 *     the leader a builds the bundle. Write start → the long-poll's answer carrying the value, p50/p99 (aim: p99 ≤
 *     250 ms);
 *   - write throughput: setSecret at 8 connections per replica, through b alone, then through b and c at once;
 *   - clean handover: SIGTERM of the leader → another leads (metric `hostplane_leader`), → its first reconcile pass
 *     (`hostplane_reconcile_duration_seconds_count`, first above 0; its runner's start passes every key);
 *   - failover: SIGKILL of that leader → the last one leads, → its first reconcile pass; also counted from the killed
 *     leader's last renewal, which is where its lease ran from.
 * `--trials N` runs instead the SIGSTOP/SIGCONT trial of test/e2e/leader.test.ts N times in a loop (not in CI: about
 * 30 s each): the leader frozen past its lease under writes through the other, which takes over, then woken; the
 * database counts every row the frozen one's role changed from its successor's term on to the trial's end: 0 is the
 * aim.
 *
 *   npx tsx bench/failover.ts [--writes 100] [--seconds 4] | [--trials 200]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { postgresMissing, startCluster, type Cluster } from '../harness/postgres';
import { countWritesByRole, leaderRow, leadsAt, metricSum, writesOf } from '../harness/replicas';
import { command, fmt, guard, REPO, run as runLoad, runJson, spawnServer, summarize, until, type ChildServer, type Slice } from './lib';

const HOSTPLANE = join(REPO, 'bin', 'hostplane');
const ORG = 'bench';
const LEASE_MS = 15_000;
const ROLES = ['hp_a', 'hp_b', 'hp_c'] as const;

interface Replica { role: string; server: ChildServer; url: string; metrics: string }

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

interface Installation {
  cluster: Cluster;
  sql: pg.Client;
  token: string;
  nodeToken: string;
  admin(...args: string[]): Promise<Record<string, unknown>>;
  serve(role: string): Promise<Replica>;
  servers: ChildServer[];
}

/** The cluster, its roles, an org with its admin's token, node n1, and how to start a replica on it. */
async function install(tmp: string): Promise<Installation> {
  const cluster = await startCluster({ fsync: true });
  const database = new URL(await cluster.createDatabase('failover')).pathname.slice(1);
  const urlAs = (role: string): string => `postgres://${role}@localhost/${database}?host=${encodeURIComponent(cluster.socketDir)}`;
  const sql = new pg.Client({ host: cluster.socketDir, user: 'hostplane', database });
  await sql.connect();
  for (const role of ROLES) await sql.query(`CREATE ROLE ${role} LOGIN SUPERUSER`);
  const admin = (...args: string[]) => runJson(HOSTPLANE, ['admin', '--data', join(tmp, 'admin'), '--database-url', urlAs('hostplane'), ...args]);
  await admin('init');
  await admin('org', 'create', ORG, '--plan', 'pro');
  await admin('user', 'create', `owner@${ORG}.test`);
  await admin('member', 'add', ORG, `owner@${ORG}.test`, 'admin');
  const { token: nodeToken } = await admin('node', 'register', 'n1') as { token: string };
  const { token } = await admin('token', 'create', `owner@${ORG}.test`) as { token: string };
  const servers: ChildServer[] = [];
  const serve = async (role: string): Promise<Replica> => {
    const server = spawnServer(role, HOSTPLANE, [
      'serve', '--port', '0', '--data', join(tmp, role), '--dns', 'off', '--metrics-listen', '127.0.0.1:0',
      '--database-url', urlAs(role), '--sealing-key', join(tmp, 'sealing.key'),
    ], { env: { ...process.env, HOSTPLANE_LOG_LEVEL: 'warn' }, timeoutMs: 60_000 });
    servers.push(server);
    return { role, server, url: await server.ready, metrics: (await server.metrics)! };
  };
  return { cluster, sql, token, nodeToken, admin, serve, servers };
}

async function call(url: string, token: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) as Record<string, unknown> : {};
}

/** A project placed on n1: each of its secret writes has the leader build n1's bundle again. */
async function placedProject(inst: Installation, through: Replica, name: string): Promise<void> {
  await call(through.url, inst.token, 'POST', `/v1/orgs/${ORG}/projects`, { name });
  await inst.admin('placement', 'set', ORG, name, 'n1');
}

const secretPath = (project: string): string => `/v1/orgs/${ORG}/projects/${project}/secrets/API_KEY`;
let values = 0;
const setSecret = async (inst: Installation, through: Replica, project: string): Promise<string> => {
  const value = `value-${++values}`;
  await call(through.url, inst.token, 'PUT', secretPath(project), { value });
  return value;
};

/** n1's bundle from `at`, long-polled past `etag` (wait 20 s). */
async function bundle(inst: Installation, at: Replica, etag?: string): Promise<{ etag: string; text: string }> {
  const res = await fetch(`${at.url}/v1/nodes/n1/bundle${etag ? '?wait=20' : ''}`, {
    headers: { authorization: `Bearer ${inst.nodeToken}`, ...(etag ? { 'if-none-match': etag } : {}) },
  });
  return { etag: res.headers.get('etag')!, text: await res.text() };
}

const leading = async (among: Replica[]): Promise<Replica | undefined> => {
  for (const r of among) if (await leadsAt(r.metrics).catch(() => false)) return r;
  return undefined;
};
const passes = (r: Replica): Promise<number> => metricSum(r.metrics, 'hostplane_reconcile_duration_seconds_count');

/** From `since` (performance.now()): ms until one of `among` leads, and until its first reconcile pass. */
async function takeover(among: Replica[], since: number, timeoutMs: number): Promise<{ leader: Replica; leadMs: number; passMs: number }> {
  let leader: Replica | undefined;
  await until('another replica to lead', timeoutMs, async () => (leader = await leading(among)) !== undefined, 5);
  const leadMs = performance.now() - since;
  await until('the new leader\'s first reconcile pass', timeoutMs, async () => (await passes(leader!)) > 0, 5);
  return { leader: leader!, leadMs, passMs: performance.now() - since };
}

async function cases(inst: Installation, writes: number, seconds: number): Promise<number> {
  const a = await inst.serve('hp_a');
  await until('a to lead', 20_000, () => leadsAt(a.metrics));
  const [b, c] = [await inst.serve('hp_b'), await inst.serve('hp_c')];
  await placedProject(inst, a, 'blog');
  await call(a.url, inst.token, 'POST', `/v1/orgs/${ORG}/projects`, { name: 'load' });

  // Each write follows the long-poll at once, as a node's next poll follows its last answer.
  const wakes: number[] = [];
  const answers: number[] = [];
  let { etag } = await bundle(inst, b);
  for (let i = 0; i < writes; i++) {
    const polled = bundle(inst, b, etag);
    const started = performance.now();
    const value = await setSecret(inst, c, 'blog');
    answers.push(performance.now() - started);
    let got = await polled;
    while (!got.text.includes(value)) got = await bundle(inst, b, got.etag);
    wakes.push(performance.now() - started);
    etag = got.etag;
  }
  wakes.sort((x, y) => x - y);
  answers.sort((x, y) => x - y);
  const p99 = pct(wakes, 99);
  out(`failover cross-replica bundle wake (write via follower c, long-poll on follower b, leader a builds): n=${writes} p50=${pct(wakes, 50).toFixed(1)}ms p99=${p99.toFixed(1)}ms max=${wakes.at(-1)!.toFixed(1)}ms, of which setSecret's answer p50=${pct(answers, 50).toFixed(1)}ms p99=${pct(answers, 99).toFixed(1)}ms (aim p99 <= 250 ms: ${p99 <= 250 ? 'met' : 'not met'})`);

  const load = (r: Replica): Promise<Slice> => runLoad({
    url: r.url, method: 'PUT', path: secretPath('load'), connections: 8, seconds,
    bodies: [JSON.stringify({ value: 'load-1' }), JSON.stringify({ value: 'load-2' })],
    headers: { authorization: `Bearer ${inst.token}`, 'content-type': 'application/json' },
  });
  const one = summarize([await load(b)]);
  const both = (await Promise.all([load(b), load(c)])).map((slice) => summarize([slice]));
  const sum = both[0]!.rps + both[1]!.rps;
  out(`failover write throughput setSecret c8, 1 replica: ${fmt(one)}`);
  out(`failover write throughput setSecret c8 per replica, 2 replicas: ${Math.round(sum)} req/s (${(sum / one.rps).toFixed(2)}x of 1) b: ${fmt(both[0]!)}; c: ${fmt(both[1]!)}`);

  const termAt = performance.now();
  a.server.child.kill('SIGTERM');
  const handover = await takeover([b, c], termAt, 10_000);
  out(`failover clean handover (SIGTERM of the leader): another leads in ${handover.leadMs.toFixed(0)} ms, its first reconcile pass at ${handover.passMs.toFixed(0)} ms`);

  const survivor = handover.leader === b ? c : b;
  const lastRenewal = Number((await leaderRow(inst.sql)).expires_ms) - LEASE_MS;
  const killedAt = performance.now();
  const killedAtDb = Date.now();
  handover.leader.server.child.kill('SIGKILL');
  const failover = await takeover([survivor], killedAt, LEASE_MS + 10_000);
  out(`failover SIGKILL of the leader: another leads in ${failover.leadMs.toFixed(0)} ms, its first reconcile pass at ${failover.passMs.toFixed(0)} ms (${(failover.passMs + killedAtDb - lastRenewal).toFixed(0)} ms from the killed leader's last renewal; lease ${LEASE_MS} ms)`);
  const failures = one.non2xx + one.errors + both.reduce((n, m) => n + m.non2xx + m.errors, 0);
  return failures === 0 ? 0 : 1;
}

/** `n` SIGSTOP/SIGCONT trials on two replicas, the roles of leader and frozen one alternating. */
async function trials(inst: Installation, n: number): Promise<number> {
  let leader = await inst.serve('hp_a');
  await until('a to lead', 20_000, () => leadsAt(leader.metrics));
  let follower = await inst.serve('hp_b');
  await placedProject(inst, leader, 'blog');
  await countWritesByRole(inst.sql);
  /** Rows each trial's frozen role changed from when its successor's term began (the database's clock) to the trial's
   * end, when it had woken, followed and 20 more writes were made through the new leader: counted as each trial ends. */
  let landed = 0;
  const takeovers: number[] = [];
  for (let i = 0; i < n; i++) {
    let writing = true;
    let acknowledged = 0;
    const through = follower;
    const load = (async () => {
      while (writing) {
        await setSecret(inst, through, 'blog');
        acknowledged++;
      }
    })();
    const frozenAt = performance.now();
    leader.server.child.kill('SIGSTOP');
    await until('the follower to lead', LEASE_MS + 10_000, () => leadsAt(follower.metrics), 20);
    takeovers.push(performance.now() - frozenAt);
    const { since_ms: since, term } = await leaderRow(inst.sql);
    await until('the new leader\'s writes', 10_000, async () => (await writesOf(inst.sql, follower.role, Number(since))) > 0, 20);
    leader.server.child.kill('SIGCONT');
    const woken = leader;
    await until('the woken one to follow', 20_000, async () => (await metricSum(woken.metrics, 'hostplane_leader_term')) === Number(term) && !(await leadsAt(woken.metrics)), 20);
    const woke = acknowledged;
    await until('writes after it woke', 20_000, async () => acknowledged >= woke + 20, 20);
    writing = false;
    await load;
    // Up to now: in the next trial the woken one answers the writes, which are its role's too.
    landed += await writesOf(inst.sql, leader.role, Number(since), Number((await leaderRow(inst.sql)).now_ms));
    [leader, follower] = [follower, leader];
    // A run cut short (a time budget) still tells how many trials passed and what landed in them.
    if ((i + 1) % 5 === 0) process.stderr.write(`failover trials: ${i + 1}/${n}, fenced writes landed so far=${landed}\n`);
  }
  takeovers.sort((x, y) => x - y);
  out(`failover SIGSTOP/SIGCONT trials=${n}: fenced writes landed=${landed} (aim 0: ${landed === 0 ? 'met' : 'not met'}); freeze → takeover p50=${pct(takeovers, 50).toFixed(0)}ms max=${takeovers.at(-1)!.toFixed(0)}ms`);
  return landed === 0 ? 0 : 1;
}

export async function main(argv = process.argv.slice(2)): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { writes: { type: 'string', default: '100' }, seconds: { type: 'string', default: '4' }, trials: { type: 'string' } } });
  const missing = postgresMissing();
  if (missing) {
    out(`failover: skipped (${missing})`);
    return 0;
  }
  const tmp = mkdtempSync(join(tmpdir(), 'hostplane-bench-failover-'));
  let inst: Installation | undefined;
  const release = guard('failover', tmp, () => inst?.servers.map((s) => s.child) ?? [], values.trials ? 3_600_000 + Number(values.trials) * 60_000 : 600_000);
  try {
    inst = await install(tmp);
    return values.trials ? await trials(inst, Number(values.trials)) : await cases(inst, Number(values.writes), Number(values.seconds));
  } finally {
    await Promise.all(inst?.servers.map((s) => s.stop()) ?? []);
    await inst?.sql.end();
    await inst?.cluster.destroy();
    rmSync(tmp, { recursive: true, force: true });
    release();
  }
}

command(import.meta.url, 'failover', () => main(), { exit: true });
