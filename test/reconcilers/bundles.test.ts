/**
 * The bundle reconciler (issue 10 item 1): builds a node's bundle from the projects placed on it, stores it
 * sealed under a version that only rises, writes nothing when nothing changed, leaves other nodes alone, and
 * wakes the node's long-polls at the commit of a new bundle, with no timer involved.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { holdUntil } from '../../api/wait';
import type { Sealer } from '../../core/sealing';
import { DEFAULT_PLANS } from '../../rules/plans';
import { bundleContext } from '../../core/sealing';
import type { Reconciler } from '../../reconcilers/types';
import { createOrg, createUser, registerNode, removeMembership, setMembership, setOrgPlan } from '../../store/accounts';
import type { Store } from '../../store/db';
import { activateHostname, addHostname, deleteHostname } from '../../store/hostnames';
import { bundleReconciler } from '../../reconcilers/bundles';
import { bundleVersion, nodeStatuses, secretRollout, storedBundle } from '../../store/nodes';
import { createProject, removePlacement, setPlacement } from '../../store/projects';
import { deleteSecret, setSecret } from '../../store/secrets';
import { grantStorage } from '../../store/storage';
import { closeBundleEnv, openBundleEnv, openedBundle } from '../helpers/bundles';

const noAbort = new AbortController().signal;
let dir: string;
let s: Store;
let sealer: Sealer;
let r: Reconciler;
let orgId: number;
const ids: Record<string, number> = {};

const secret = (project: string, name: string, value: string) =>
  setSecret(s, { orgId, projectId: ids[project]!, projectName: project, name, sealed: sealer.seal(`acme/${project}/${name}`, value), actor: 'test' });
const opened = (node: string) => openedBundle(s, sealer, node);

beforeEach(async () => {
  ({ dir, s, sealer, r } = await openBundleEnv('hostplane-bundles-'));
  orgId = (await createOrg(s, 'acme', 'pro')).id;
  for (const name of ['shop', 'blog']) {
    ids[name] = (await createProject(s, { orgId, plan: 'pro', limit: 100, name, database: false, hostname: `${name}.hostplane.test`, actor: 'test' })).id;
  }
  await registerNode(s, 'a');
  await registerNode(s, 'b');
  await setPlacement(s, orgId, 'shop', 'a');
  await setPlacement(s, orgId, 'blog', 'b');
});
afterEach(() => {
  vi.useRealTimers();
  closeBundleEnv({ dir, s });
});

describe('bundle reconciler', () => {
  it('builds the bundle, then is a no-op: no version, no commit the second time', async () => {
    await secret('shop', 'API_KEY', 'v-one');
    await r.reconcile('a', noAbort);
    const v = await bundleVersion(s, 'a');
    expect(v).toBeGreaterThan(0);
    expect(await opened('a')).toEqual([{
      org: 'acme', project: 'shop', uid: expect.stringMatching(/^[0-9a-f]{32}$/), hostnames: ['shop.hostplane.test'], database: false,
      secrets: [{ name: 'API_KEY', version: 1, value: 'v-one' }], storage: null, access: { mode: 'public', passwordHash: null, bypassHash: null, version: 0, membersVersion: 0 }, signIn: null,
    }]);
    const commits = s.stats().commits;
    await r.reconcile('a', noAbort);
    expect(await bundleVersion(s, 'a')).toBe(v);
    expect(s.stats().commits).toBe(commits);
  });

  it('stores the bundle sealed for its node: no value in the row, and it does not open as another node\'s', async () => {
    await secret('shop', 'API_KEY', 'plain-value-xyz');
    await r.reconcile('a', noAbort);
    const [row] = await s.raw<{ sealed: string; sections: unknown }>('bundle row', 'SELECT sealed, sections FROM node_bundles WHERE node_id = ?', ['a']);
    expect(JSON.stringify(row)).not.toContain('plain-value-xyz');
    expect(() => sealer.open(bundleContext('b'), row!.sealed)).toThrow();
  });

  it('versions rise; a change of a project placed elsewhere leaves the node\'s version alone', async () => {
    await r.reconcile('a', noAbort);
    await r.reconcile('b', noAbort);
    const a = await bundleVersion(s, 'a');
    const b = await bundleVersion(s, 'b');
    await secret('blog', 'TOKEN', 'x');
    await r.reconcile('a', noAbort);
    await r.reconcile('b', noAbort);
    expect(await bundleVersion(s, 'a')).toBe(a);
    expect(await bundleVersion(s, 'b')).toBeGreaterThan(b);
    await secret('shop', 'TOKEN', 'y');
    await r.reconcile('a', noAbort);
    expect(await bundleVersion(s, 'a')).toBeGreaterThan(await bundleVersion(s, 'b'));
  });

  it('watches map a secret, storage or project change to the nodes of the project, a placement to its node, a hostname to its holders', async () => {
    const keys = async (kind: string, key: string) => (await Promise.all(r.watches.filter((w) => w.kind === kind).map((w) => w.keys(key)))).flat();
    expect(await keys('secret', String(ids.shop))).toEqual(['a']);
    expect(await keys('storage', String(ids.blog))).toEqual(['b']);
    expect(await keys('project', String(ids.blog))).toEqual(['b']);
    expect(await keys('placement', 'b')).toEqual(['b']);
    const { hostname } = await addHostname(s, { orgId, projectId: ids.shop!, projectName: 'shop', name: 'www.shop.example', actor: 'test' });
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.hostnames).toEqual(['shop.hostplane.test']);
    expect(await activateHostname(s, { name: 'www.shop.example', uid: hostname.uid, proof: 'txt' })).toBe(true);
    expect(await keys('hostname', 'www.shop.example')).toEqual(['a']);
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.hostnames).toEqual(['shop.hostplane.test', 'www.shop.example']);
    // A name no project holds any more still maps to the nodes whose bundles carried it.
    await deleteHostname(s, { orgId, projectId: ids.shop!, projectName: 'shop', name: 'www.shop.example', actor: 'test' });
    expect(await keys('hostname', 'www.shop.example')).toEqual(['a']);
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.hostnames).toEqual(['shop.hostplane.test']);
  });

  it('a storage grant adds storage with the plan\'s quota; a secret keeps the version that first carried it', async () => {
    await secret('shop', 'API_KEY', 'v-one');
    await r.reconcile('a', noAbort);
    const first = (await storedBundle(s, 'a'))!;
    const since = first.sections[String(ids.shop)]!.secrets.API_KEY!.since;
    expect(since).toBe(first.version);
    await grantStorage(s, { orgId, projectId: ids.shop!, projectName: 'shop', actor: 'test', quotaBytes: 1 });
    await r.reconcile('a', noAbort);
    const second = (await storedBundle(s, 'a'))!;
    expect(second.version).toBeGreaterThan(first.version);
    expect((await opened('a'))[0]!.storage).toEqual({ prefix: expect.any(String), quotaBytes: DEFAULT_PLANS.pro!.storageBytes });
    // `bytes`: the entry as the bundle's JSON has it, which a replacing setSecret frees.
    expect(second.sections[String(ids.shop)]!.secrets.API_KEY).toEqual({ version: 1, since, bytes: Buffer.byteLength('{"name":"API_KEY","version":1,"value":"v-one"}') });
    expect(second.sections[String(ids.shop)]!.version).toBe(second.version);
    // A plan change is a storage change of every granted project of the org: the quota follows the plan.
    const { changesSince } = await import('../../store/feed');
    const seq = second.version;
    await setOrgPlan(s, 'acme', 'free');
    expect((await changesSince(s, seq)).map((c) => `${c.kind}/${c.key}`)).toEqual([`storage/${ids.shop}`]);
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.storage!.quotaBytes).toBe(DEFAULT_PLANS.free!.storageBytes);
  });

  it('a role change or a removal raises the org\'s members version in every project\'s bundle; a new member does not', async () => {
    const { changesSince, latestSeq } = await import('../../store/feed');
    await createUser(s, 'ada@acme.test');
    await r.reconcile('a', noAbort);
    let seq = await latestSeq(s);
    await setMembership(s, 'acme', 'ada@acme.test', 'member');
    await setMembership(s, 'acme', 'ada@acme.test', 'member');
    expect(await changesSince(s, seq)).toEqual([]);
    await setMembership(s, 'acme', 'ada@acme.test', 'viewer');
    expect((await changesSince(s, seq)).map((c) => `${c.kind}/${c.key}`).sort()).toEqual([`project/${ids.blog}`, `project/${ids.shop}`].sort());
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.access.membersVersion).toBe(1);
    seq = await latestSeq(s);
    expect(await removeMembership(s, 'acme', 'ada@acme.test')).toEqual({ previousRole: 'viewer' });
    expect(await changesSince(s, seq)).toHaveLength(2);
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.access.membersVersion).toBe(2);
  });

  it('holds back the project whose growth would pass the bundle\'s bound: its co-tenants and other nodes go on', async () => {
    await setPlacement(s, orgId, 'blog', 'a');
    await secret('shop', 'API_KEY', 'shop-one');
    await secret('blog', 'TOKEN', 'blog-one');
    await r.reconcile('a', noAbort);
    await r.reconcile('b', noAbort);
    const size = (await storedBundle(s, 'a'))!;
    const max = Buffer.byteLength(sealer.open(bundleContext('a'), size.sealed)) + 100;
    const bounded = bundleReconciler({ store: s, sealer, plans: DEFAULT_PLANS, maxBundleBytes: max });
    const withinBound = async () => (await nodeStatuses(s)).find((n) => n.nodeId === 'a')!.conditions.find((c) => c.type === 'WithinBound');
    await bounded.reconcile('a', noAbort);
    // Never held back: no status, no write.
    expect(await withinBound()).toBeUndefined();

    // blog grows by 200 bytes and more: held at what node a has; node b, with blog alone, fits and takes it.
    await secret('blog', 'BIG', 'x'.repeat(200));
    await secret('shop', 'API_KEY', 'shop-two');
    await bounded.reconcile('a', noAbort);
    await bounded.reconcile('b', noAbort);
    const secretsOf = async (node: string) => Object.fromEntries((await opened(node)).map((p) => [p.project, p.secrets.map((x) => x.value)]));
    expect(await secretsOf('a')).toEqual({ blog: ['blog-one'], shop: ['shop-two'] });
    expect(await secretsOf('b')).toEqual({ blog: ['x'.repeat(200), 'blog-one'] });
    expect(await withinBound()).toMatchObject({ status: 'False', reason: 'ProjectsHeldBack', message: expect.stringContaining('acme/blog held at what the node has') });
    expect(await secretRollout(s, ids.blog!, 'BIG', 1)).toEqual([{ nodeId: 'a', state: 'pending', failure: null }, { nodeId: 'b', state: 'pending', failure: null }]);
    // A pass over the same state writes nothing.
    const commits = s.stats().commits;
    await bounded.reconcile('a', noAbort);
    expect(s.stats().commits).toBe(commits);

    // A project new to the node that does not fit is not sent at all.
    ids.docs = (await createProject(s, { orgId, plan: 'pro', limit: 100, name: 'docs', database: false, hostname: 'docs.hostplane.test', actor: 'test' })).id;
    await setPlacement(s, orgId, 'docs', 'a');
    await bounded.reconcile('a', noAbort);
    expect(Object.keys(await secretsOf('a'))).toEqual(['blog', 'shop']);
    expect((await withinBound())!.message).toContain('acme/docs');

    // Room again: both are sent, and the condition says so.
    await deleteSecret(s, { orgId, projectId: ids.blog!, projectName: 'blog', name: 'BIG', actor: 'test' });
    await removePlacement(s, orgId, 'docs', 'a');
    await bounded.reconcile('a', noAbort);
    expect(await secretsOf('a')).toEqual({ blog: ['blog-one'], shop: ['shop-two'] });
    expect(await withinBound()).toMatchObject({ status: 'True', reason: 'UnderBound' });
  });

  it('a long-poll of the node wakes at the commit of its new bundle, with timers frozen', async () => {
    await r.reconcile('a', noAbort);
    const seen = await bundleVersion(s, 'a');
    // No setTimeout or setInterval fires from here on (the store's group commit runs on setImmediate).
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'Date'] });
    let woke: number | undefined;
    const held = holdUntil(s, 'node', 'a', { deadline: Date.now() + 30_000 }, async () => bundleVersion(s, 'a'), (v) => v !== seen)
      .then((v) => { woke = v; });
    await secret('blog', 'OTHER', 'z');
    await r.reconcile('b', noAbort);
    await new Promise((resolve) => setImmediate(resolve));
    expect(woke).toBeUndefined();
    await secret('shop', 'API_KEY', 'v-two');
    await r.reconcile('a', noAbort);
    await held;
    expect(woke).toBeGreaterThan(seen);
  });
});
