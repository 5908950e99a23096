/**
 * A project's lifetime on a node, with real processes (`serve`, `node-agent` and its workers; as root each worker
 * under its own uid). Review of issue 20 item 5: a project with a database deleted, then created again under its
 * name and placed on the same node, got the old one's database file, data and all, and its worker uid. Now the
 * new project starts with an empty database of its own and another uid; the old one's file is kept (the bundle does
 * not say a project was deleted), out of the new one's reach. A project taken off the node by the operator and
 * placed again is the same lifetime: it finds its database, with its data and uid.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bindingHash } from '../../agent/workers/bindings';
import { get } from '../helpers/agent';
import { adminJson, bootstrapInStore, cleanup, http, startHostplane, tempDir, until } from '../helpers/proc';

afterAll(cleanup);

const HOST = 'tmp1.hostplane.app';

/** Every file under `dir`, as paths. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

describe('a project deleted and created again under its name (issue 20 item 5)', () => {
  it('gets a database and a worker uid of its own; one unplaced and placed again keeps its own', async () => {
    const data = tempDir();
    const nodeDir = tempDir('hostplane-node-');
    const { token, nodeToken } = await bootstrapInStore(data, 'n1');
    const serve = await startHostplane(['serve', '--port', '0', '--data', data, '--dns', 'off', '--registrar', 'off']);
    const call = (method: string, path: string, body?: unknown) => http(serve.url, method, `/v1/orgs/acme/projects${path}`, { token, body });
    const agent = await startHostplane([
      'node-agent', '--node', 'n1', '--dir', nodeDir, '--control', serve.url, '--listen', '127.0.0.1:0', '--report-interval-ms', '300',
    ], { env: { HOSTPLANE_NODE_TOKEN: nodeToken } });

    /** The database file the serving worker was given (the worker answers its bindings' hashes). */
    const served = async (): Promise<{ path: string; version: string } | undefined> => {
      const r = await get(agent.url, HOST);
      if (r.status !== 200) return undefined;
      const w = JSON.parse(r.body) as { bundleVersion: string; bindings: Record<string, string> };
      const path = filesUnder(join(nodeDir, 'databases')).find((f) => bindingHash(f) === w.bindings.SERVICE_DB_PATH);
      return path ? { path, version: w.bundleVersion } : undefined;
    };
    const ownerOf = (path: string): number => statSync(path).uid;
    const root = process.getuid?.() === 0;

    expect((await call('POST', '', { name: 'tmp1', database: true })).status).toBe(201);
    await adminJson(data, 'placement', 'set', 'acme', 'tmp1', 'n1');
    const first = await until('the first worker', served);
    writeFileSync(first.path, 'OLD-PROJECT-DATA');

    // The operator takes the project off the node and puts it back: the same project, its data kept.
    await adminJson(data, 'placement', 'remove', 'acme', 'tmp1', 'n1');
    await until('the worker stopped', async () => (await get(agent.url, HOST)).status === 404);
    await adminJson(data, 'placement', 'set', 'acme', 'tmp1', 'n1');
    const back = await until('the worker again', served);
    expect(back.path).toBe(first.path);
    expect(readFileSync(back.path, 'utf8')).toBe('OLD-PROJECT-DATA');
    const firstUid = ownerOf(first.path);
    if (root) expect(firstUid).toBeGreaterThanOrEqual(2_000_000_000);

    // Deleted and finalized: the node drops its worker.
    expect((await call('DELETE', '/tmp1')).status).toBe(202);
    await until('the project finalized', async () => (await call('GET', '/tmp1')).status === 404);
    await until('the worker stopped', async () => (await get(agent.url, HOST)).status === 404);

    // A new project of the name on the same node: an empty database of its own, under another uid.
    expect((await call('POST', '', { name: 'tmp1', database: true })).status).toBe(201);
    await adminJson(data, 'placement', 'set', 'acme', 'tmp1', 'n1');
    const fresh = await until('the new project\'s worker', served);
    expect(fresh.path).not.toBe(first.path);
    expect(readFileSync(fresh.path, 'utf8')).toBe('');
    if (root) {
      expect(ownerOf(fresh.path)).toBeGreaterThanOrEqual(2_000_000_000);
      expect(ownerOf(fresh.path)).not.toBe(firstUid);
    }
    // The old one's file is kept where the new one's worker does not reach it (it is another uid's, mode 0700).
    expect(readFileSync(first.path, 'utf8')).toBe('OLD-PROJECT-DATA');

    expect((await agent.stop()).code).toBe(0);
  }, 120_000);
});
