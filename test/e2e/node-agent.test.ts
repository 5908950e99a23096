/**
 * `serve` (with TLS) and `node-agent` as real processes: a project placed on the node runs as a worker behind
 * the node's front end; a new secret value replaces the worker with no failed request (over at least 200
 * requests during the swap); a storage grant gives the worker a directory whose usage the node reports and
 * getStorage shows. Values reach no log line of either process. A project whose worker the kernel cannot start
 * (an environment string past 128 KiB) holds only its own rollout: a co-tenant on the node rolls out and reads
 * applied, and the failing one reads why.
 */
import { createHash } from 'node:crypto';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeFetch } from '../../agent/sync/fetch';
import { defaultWorkerCommand } from '../../agent/workers/worker-process';
import { createClient } from '../../client/index';
import { hammer, get } from '../helpers/agent';
import { adminJson, bootstrapInStore, bootstrapWithCli, cleanup, http, runHostplane, type Running, startHostplane, tempDir, until } from '../helpers/proc';
import { DEFAULT_PLANS } from '../../rules/plans';
import { hasOpenssl, makePki } from '../../harness/tls';

afterAll(cleanup);

const sha = (v: string): string => createHash('sha256').update(v).digest('hex');
const HOST = 'blog.hostplane.app';

interface WorkerAnswer { org: string; project: string; bundleVersion: string; bindings: Record<string, string> }

describe.skipIf(!hasOpenssl())('node agent with serve', () => {
  it('runs the placed project, swaps its worker on a secret change with no failed request, reports storage usage', async () => {
    const data = tempDir();
    const nodeDir = tempDir('hostplane-node-');
    const pki = makePki(tempDir('hostplane-pki-'));
    const token = await bootstrapWithCli(data);
    const serve = await startHostplane(['serve', '--port', '0', '--data', data, '--dns', 'off', '--tls-cert', pki.certPath, '--tls-key', pki.keyPath]);
    expect(serve.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const transport = nodeFetch({ ca: pki.ca });
    const api = createClient({ baseUrl: serve.url, token, fetch: transport.fetch });
    const org = { orgSlug: 'acme', projectName: 'blog' };

    expect((await api.POST('/v1/orgs/{orgSlug}/projects', { path: { orgSlug: 'acme' }, body: { name: 'blog', database: true } })).status).toBe(201);
    const { token: nodeToken } = await adminJson<{ token: string }>(data, 'node', 'register', 'n1');
    await adminJson(data, 'placement', 'set', 'acme', 'blog', 'n1');
    const put = (value: string) => api.PUT('/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}', { path: { ...org, secretName: 'API_KEY' }, body: { value } });
    expect((await put('first-secret-value')).status).toBe(200);

    // The built-in worker, taking a second to start as real applications do: the swap takes that long, and the old
    // worker serves meanwhile.
    const workerCmd = `sleep 1; exec ${defaultWorkerCommand().map((a) => `'${a}'`).join(' ')}`;
    const agent: Running = await startHostplane([
      'node-agent', '--node', 'n1', '--dir', nodeDir, '--control', serve.url, '--ca', pki.caPath, '--listen', '127.0.0.1:0',
      '--report-interval-ms', '300', '--worker', workerCmd,
    ], { env: { HOSTPLANE_NODE_TOKEN: nodeToken } });

    const worker = async (): Promise<WorkerAnswer | undefined> => {
      const r = await get(agent.url, HOST);
      return r.status === 200 ? JSON.parse(r.body) as WorkerAnswer : undefined;
    };
    const first = await until('the worker', async () => {
      const w = await worker();
      return w?.bindings.API_KEY === sha('first-secret-value') ? w : undefined;
    });
    expect(first).toMatchObject({ org: 'acme', project: 'blog' });
    expect(Object.keys(first.bindings).sort()).toEqual(['API_KEY', 'SERVICE_DB_PATH']);
    expect(statSync(join(nodeDir, 'bundle.json')).mode & 0o777).toBe(0o600);
    expect((await get(agent.url, 'nobody.example.test')).status).toBe(404);

    // A new secret value: the worker is replaced while requests keep coming, none failing.
    const load = hammer(agent.url, HOST, 8);
    await new Promise((r) => setTimeout(r, 200));
    const swapStart = Date.now();
    expect((await put('second-secret-value')).status).toBe(200);
    await until('the new binding', async () => (load.answers.at(-1)?.body.includes(sha('second-secret-value')) ? true : undefined));
    await new Promise((r) => setTimeout(r, 500));
    await load.stop();
    expect(load.failures).toEqual([]);
    const isNew = (a: { body: string }) => a.body.includes(sha('second-secret-value'));
    const swapped = load.answers.find(isNew)!.at;
    // Answered from the secret's change until the new worker took over: all by the old one, while the new started.
    expect(load.answers.filter((a) => a.at >= swapStart && a.at < swapped).length).toBeGreaterThanOrEqual(200);
    const during = load.answers.filter((a) => a.at >= swapStart);
    const hashes = during.map((a) => (JSON.parse(a.body) as WorkerAnswer).bindings.API_KEY);
    expect(new Set(hashes)).toEqual(new Set([sha('first-secret-value'), sha('second-secret-value')]));
    expect(hashes.at(-1)).toBe(sha('second-secret-value'));
    expect(Number((await worker())!.bundleVersion)).toBeGreaterThan(Number(first.bundleVersion));

    // Storage: granted, the worker gets a directory; what it writes there is measured and reported.
    expect((await api.POST('/v1/orgs/{orgSlug}/projects/{projectName}/storage', { path: org })).status).toBe(200);
    await until('the storage binding', async () => ((await worker())?.bindings.SERVICE_STORAGE_DIR ? true : undefined));
    const u = new URL(agent.url);
    const written = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request({ host: u.hostname, port: u.port, method: 'PUT', path: '/files/hello.txt', headers: { host: HOST } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        });
        req.on('error', reject);
        req.end('x'.repeat(12_345));
      }, reject);
    });
    expect(written).toBe(201);
    const storage = await until('usedBytes', async () => {
      const r = await api.GET('/v1/orgs/{orgSlug}/projects/{projectName}/storage', { path: org });
      return r.status === 200 && r.data.usedBytes === 12_345 ? r.data : undefined;
    });
    expect(storage).toMatchObject({ granted: true, usedBytes: 12_345 });
    if (process.getuid?.() === 0) {
      // As root, the worker runs as the project's own user, who owns its storage; the bundle stays root's.
      const [prefix] = readdirSync(join(nodeDir, 'storage'));
      const st = statSync(join(nodeDir, 'storage', prefix!));
      expect(st.uid).toBeGreaterThanOrEqual(2_000_000_000);
      expect(st.mode & 0o777).toBe(0o700);
      expect(statSync(join(nodeDir, 'storage', prefix!, 'hello.txt')).uid).toBe(st.uid);
      expect(statSync(join(nodeDir, 'bundle.json')).uid).toBe(0);
    }

    for (const text of [agent.stderr(), serve.stderr()]) {
      expect(text).not.toMatch(/first-secret-value|second-secret-value/);
      expect(text).not.toContain(nodeToken);
    }
    expect(agent.stderr()).toContain('worker serving');
    const exit = await agent.stop();
    expect(exit.code).toBe(0);
    transport.close();
  }, 120_000);
});

describe('one tenant whose worker cannot start (issue 20 item 7)', () => {
  it('holds only its own rollout: a co-tenant on the same node rolls out a new secret and reads applied', async () => {
    const data = tempDir();
    const nodeDir = tempDir('hostplane-node-');
    // A plan that lets a value past what the kernel takes as one environment string (128 KiB): the finding was
    // made against a control plane without such a bound, and a node must hold up on its own.
    const plans = join(tempDir('hostplane-plans-'), 'plans.json');
    const free = { ...DEFAULT_PLANS.free!, secretValueBytes: 256 * 1024, secretBytes: 512 * 1024 };
    writeFileSync(plans, JSON.stringify({ free }));
    const { token, nodeToken } = await bootstrapInStore(data, 'n1');
    const serve = await startHostplane(['serve', '--port', '0', '--data', data, '--dns', 'off', '--plans', plans]);
    const call = (method: string, path: string, body?: unknown) => http(serve.url, method, `/v1/orgs/acme/projects${path}`, { token, body });
    for (const name of ['blog', 'shop']) expect((await call('POST', '', { name })).status).toBe(201);
    await Promise.all(['blog', 'shop'].map((p) => adminJson(data, 'placement', 'set', 'acme', p, 'n1')));
    expect((await call('PUT', '/shop/secrets/API_KEY', { value: 'shop-value-one' })).status).toBe(200);
    const agent = await startHostplane([
      'node-agent', '--node', 'n1', '--dir', nodeDir, '--control', serve.url, '--listen', '127.0.0.1:0', '--report-interval-ms', '300',
    ], { env: { HOSTPLANE_NODE_TOKEN: nodeToken } });
    const shopKey = async (): Promise<string | undefined> => {
      const r = await get(agent.url, 'shop.hostplane.app');
      return r.status === 200 ? (JSON.parse(r.body) as WorkerAnswer).bindings.API_KEY : undefined;
    };
    await until('the shop worker', async () => (await shopKey()) === sha('shop-value-one'));

    // 65,536 × € (196,608 bytes): execve refuses the environment, so blog's worker never starts.
    const hostile = '€'.repeat(65_536);
    expect((await call('PUT', '/blog/secrets/HUGE', { value: hostile })).status).toBe(200);
    const failed = await until('blog reported failing', async () => {
      const placement = ((await call('GET', '/blog')).body as { placements: { applied: boolean; failure: string | null }[] }).placements[0];
      return placement?.failure ? placement : undefined;
    });
    expect(failed).toMatchObject({ applied: false, failure: 'the worker could not be started: E2BIG' });

    const set = await call('PUT', '/shop/secrets/API_KEY', { value: 'shop-value-two' });
    expect(set.body).toMatchObject({ version: 2, rollout: [{ nodeId: 'n1', state: 'pending' }] });
    const rolled = await until('the shop rollout applied', async () => {
      const r = (await call('GET', '/shop/secrets/API_KEY')).body as { rollout: { state: string }[] };
      return r.rollout[0]?.state === 'applied' ? r.rollout : undefined;
    });
    expect(rolled).toEqual([{ nodeId: 'n1', state: 'applied', failure: null }]);
    expect(await shopKey()).toBe(sha('shop-value-two'));
    expect((await call('GET', '/blog/secrets/HUGE')).body).toMatchObject({ rollout: [{ nodeId: 'n1', state: 'pending', failure: 'the worker could not be started: E2BIG' }] });

    for (const text of [agent.stderr(), serve.stderr()]) expect(text).not.toMatch(/shop-value-one|shop-value-two|€€€/);
    expect((await agent.stop()).code).toBe(0);
  }, 120_000);
});

describe('usage errors stop before anything starts, exit 2', () => {
  it.concurrent.each([
    [['serve', '--port', '0', '--tls-cert', '/nonexistent.pem'], 'hostplane serve: --tls-cert and --tls-key go together'],
    [['serve', '--port', '0', '--tls-cert', '/nonexistent.pem', '--tls-key', '/nonexistent.key'], 'hostplane serve: --tls-cert /nonexistent.pem cannot be read: ENOENT'],
    [['node-agent', '--token', 't', '--dir', '/tmp/x', '--control', 'http://127.0.0.1:1'], 'hostplane: node-agent needs --node ID (the id `admin node register` made)'],
    [['node-agent', '--node', 'n1', '--token', 't', '--dir', '/tmp/x', '--control', 'ftp://x'], 'hostplane: invalid --control ftp://x; expected an http or https URL'],
    [['node-agent', '--node', 'n1', '--token', 't', '--dir', '/tmp/x', '--control', 'http://x', '--port', '1'], 'hostplane: node-agent takes no --port (hostplane node-agent --help lists its flags)'],
    [['node-agent', '--node', 'n1', '--token', 't', '--dir', '/tmp/x', '--control', 'http://x', '--worker-uid-base', '0'], 'hostplane: invalid --worker-uid-base 0; expected a uid from 1000 to 2147418110'],
  ])('%j', async (args, message) => {
    const r = await runHostplane(args[0] === 'serve' ? [...args, '--data', tempDir()] : args);
    expect(r).toEqual({ code: 2, stdout: '', stderr: `${message}\n` });
  });
});
