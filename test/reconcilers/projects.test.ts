/**
 * The project reconciler (issue 20 item 5): a deleted project's hostnames, secrets, grants, access and sign-in rows
 * and placements go at once; its custom hostname leaves the edge (the edge sandbox, over HTTP) and its managed record
 * leaves the zone through the hostname reconciler's finalizer; the node's next bundle no longer carries it; and only
 * then is the project gone, its name and plan slot free, a project made again under the name a new lifetime.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { httpEdge } from '../../providers/edge/http';
import { startEdgeSandbox, type EdgeSandbox } from '../../providers/edge/sandbox';
import type { Resolver, RecordLookups } from '../../providers/resolver';
import { hostnameReconciler } from '../../reconcilers/hostnames';
import { projectReconciler } from '../../reconcilers/projects';
import { startRunner } from '../../reconcilers/runner';
import type { Reconciler } from '../../reconcilers/types';
import { setAccessPolicy, setBypass } from '../../store/access';
import { createOrg, registerNode } from '../../store/accounts';
import { grantAuth, setAuthProvider } from '../../store/auth';
import type { Store } from '../../store/db';
import { activateHostname, addHostname } from '../../store/hostnames';
import { bundleVersion } from '../../store/nodes';
import { createProject, deleteProject, deletingProjectIds, setPlacement } from '../../store/projects';
import { getProjectDetail } from '../../store/read-model';
import { placements, secrets } from '../../store/schema';
import { setSecret } from '../../store/secrets';
import { grantStorage } from '../../store/storage';
import { createZone } from '../../store/zones';
import { closeBundleEnv, openBundleEnv, openedBundle, type BundleEnv } from '../helpers/bundles';
import { until } from '../helpers/proc';

const noAbort = new AbortController().signal;
const silentLog = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const HOST = 'www.customer.test';
/** Public DNS as the hostname reconciler's `Resolves` check sees it: nothing there (that check does not gate routing). */
const emptyDns: RecordLookups & Pick<Resolver, 'ns'> = {
  timeoutMs: 100,
  txt: async () => ({ kind: 'nodata' }),
  cname: async () => ({ kind: 'nodata' }),
  addresses: async () => ({ kind: 'nodata' }),
  ns: async () => [],
};

let env: BundleEnv;
let s: Store;
let sandbox: EdgeSandbox;
let hostnames: Reconciler;
let projects: Reconciler;
let orgId: number;
let projectId: number;

/** Rows of the project's own tables, by table, for what deleteProject releases at once. */
const rowsOf = async (id: number): Promise<Record<string, number>> => Object.fromEntries(await Promise.all(
  ['secrets', 'auth_grants', 'auth_providers', 'storage_grants', 'access_policies', 'placements', 'hostnames', 'storage_prefixes']
    .map(async (t) => [t, (await s.raw<{ n: number }>(`rows of ${t}`, `SELECT count(*) AS n FROM ${t} WHERE project_id = ?`, [id]))[0]!.n]),
));
const managedRecords = () => s.raw('managed records', 'SELECT name, type FROM rrsets WHERE managed_by = ? ORDER BY name, type', ['app']);
const create = (name: string, limit = 1) => createProject(s, { orgId, plan: 'free', limit, name, database: true, hostname: `${name}.hostplane.test`, actor: 'test' });

beforeEach(async () => {
  env = await openBundleEnv('hostplane-projects-');
  s = env.s;
  sandbox = await startEdgeSandbox({ certificateDelayMs: 0 });
  hostnames = hostnameReconciler({
    store: s, resolver: emptyDns, nameservers: ['ns1.hostplane.test'], edge: httpEdge(sandbox.url), fallbackOrigin: 'edge.hostplane.test',
    edgeAddresses: [], log: silentLog,
  });
  projects = projectReconciler({ store: s, pollMs: 20 });
  orgId = (await createOrg(s, 'acme', 'free')).id;
  projectId = (await create('shop')).id;
  const w = { orgId, projectId, projectName: 'shop', actor: 'test' };
  await setSecret(s, { ...w, name: 'API_KEY', sealed: env.sealer.seal('acme/shop/API_KEY', 'v') });
  await grantAuth(s, w);
  await setAuthProvider(s, { ...w, provider: 'github', clientId: 'id', sealed: env.sealer.seal('acme/shop/auth/github', 'cs') });
  await grantStorage(s, { ...w, quotaBytes: 1 });
  await setAccessPolicy(s, { ...w, mode: 'password', passwordHash: '$scrypt$x' });
  await setBypass(s, { ...w, bypassHash: 'ab'.repeat(32) });
  await createZone(s, { orgId, name: 'customer.test', nameservers: ['ns1.hostplane.test'], actor: 'test', quota: null });
  const h = (await addHostname(s, { ...w, name: HOST })).hostname;
  await activateHostname(s, { name: HOST, uid: h.uid, proof: 'zone' });
  await registerNode(s, 'n1');
  await setPlacement(s, orgId, 'shop', 'n1');
  await hostnames.reconcile(HOST, noAbort);
  await env.r.reconcile('n1', noAbort);
});
afterEach(async () => {
  await sandbox.close();
  closeBundleEnv(env);
});

describe('project reconciler', () => {
  it('the deletion releases the rows at once; the project goes once the edge, the zone and the node bundle hold nothing of it', async () => {
    expect(sandbox.hostnames().map((h) => h.hostname)).toEqual([HOST]);
    expect(await managedRecords()).toEqual([{ name: HOST, type: 'CNAME' }]);
    expect((await openedBundle(s, env.sealer, 'n1')).map((p) => p.project)).toEqual(['shop']);

    const d = await deleteProject(s, { orgId, name: 'shop', actor: 'user:admin@acme.test' });
    expect(d).toEqual({ id: projectId, left: { hostnames: [HOST], nodes: ['n1'] }, released: { nodes: ['n1'], hostnames: [HOST] } });
    // The default hostname and the storage prefix stay with the row until it goes: the name is not free yet.
    expect(await rowsOf(projectId)).toEqual({
      secrets: 0, auth_grants: 0, auth_providers: 0, storage_grants: 0, access_policies: 0, placements: 0, hostnames: 1, storage_prefixes: 1,
    });
    expect(await deletingProjectIds(s)).toEqual([String(projectId)]);

    expect(await projects.reconcile(String(projectId), noAbort)).toEqual({ requeueAfterMs: 20 });
    expect((await getProjectDetail(s, orgId, 'shop')).cleanup).toEqual({ hostnames: [HOST], nodes: ['n1'] });

    await hostnames.reconcile(HOST, noAbort);
    expect(sandbox.hostnames()).toEqual([]);
    expect(await managedRecords()).toEqual([]);
    expect((await getProjectDetail(s, orgId, 'shop')).cleanup).toEqual({ hostnames: [], nodes: ['n1'] });
    expect(await projects.reconcile(String(projectId), noAbort)).toEqual({ requeueAfterMs: 20 });

    await env.r.reconcile('n1', noAbort);
    expect(await openedBundle(s, env.sealer, 'n1')).toEqual([]);
    expect(await projects.reconcile(String(projectId), noAbort)).toEqual({});
    expect(await rowsOf(projectId)).toMatchObject({ hostnames: 0, storage_prefixes: 0 });
    await expect(getProjectDetail(s, orgId, 'shop')).rejects.toMatchObject({ status: 404 });
    expect(await deletingProjectIds(s)).toEqual([]);

    const commits = s.stats().commits;
    expect(await projects.reconcile(String(projectId), noAbort)).toEqual({});
    expect(s.stats().commits).toBe(commits);
  });

  it('name and plan slot are held until the project is finalized; made again, it is a new lifetime', async () => {
    await deleteProject(s, { orgId, name: 'shop', actor: 'test' });
    await expect(create('shop')).rejects.toMatchObject({ code: 'project_name_taken', message: expect.stringContaining('being deleted') });
    await expect(create('other')).rejects.toMatchObject({ code: 'project_limit' });

    await hostnames.reconcile(HOST, noAbort);
    await env.r.reconcile('n1', noAbort);
    await projects.reconcile(String(projectId), noAbort);

    const again = await create('shop');
    expect(again.id).not.toBe(projectId);
    expect((await getProjectDetail(s, orgId, 'shop')).grants).toEqual({ auth: false, storage: false });
  });

  it('a row written for the project after its deletion by a write without the live-project check is released by the next pass', async () => {
    await deleteProject(s, { orgId, name: 'shop', actor: 'test' });
    // The API's writes check the project inside their transaction (store/live-project.ts): this one is refused...
    await expect(setSecret(s, { orgId, projectId, projectName: 'shop', name: 'LATE', sealed: env.sealer.seal('acme/shop/LATE', 'v'), actor: 'test' }))
      .rejects.toMatchObject({ status: 404 });
    // ...and a row that came in some other way (an operator's placement, a path without the check) is released.
    await s.write(async (tx) => {
      await tx.insert(secrets).values({ projectId, name: 'LATE', version: 1, sealed: env.sealer.seal('acme/shop/LATE', 'v'), updatedAt: '2026-01-01T00:00:00Z', uid: 'late-uid' });
      await tx.insert(placements).values({ projectId, nodeId: 'n1', createdAt: '2026-01-01T00:00:00Z' });
    });
    await projects.reconcile(String(projectId), noAbort);
    expect(await rowsOf(projectId)).toMatchObject({ secrets: 0, placements: 0 });
  });

  it('in the runner: the deletion wakes it, it waits for the hostname and bundle reconcilers, and the project goes', async () => {
    const runner = await startRunner({ store: s, log: silentLog, reconcilers: [hostnames, env.r, projects] });
    try {
      const before = await bundleVersion(s, 'n1');
      await deleteProject(s, { orgId, name: 'shop', actor: 'test' });
      await until('the project finalized', async () => (await deletingProjectIds(s)).length === 0);
      expect(await bundleVersion(s, 'n1')).toBeGreaterThan(before);
      expect(await openedBundle(s, env.sealer, 'n1')).toEqual([]);
      expect(sandbox.hostnames()).toEqual([]);
      expect(await rowsOf(projectId)).toMatchObject({ hostnames: 0 });
    } finally {
      await runner.stop();
    }
  });
});
