/**
 * The bundle carries the access policy (issue 11 item 3, first half): mode, password hash, bypass hash and a
 * policy version; an access change is a 'project' change the bundle reconciler watches, so the nodes of the
 * project get a new bundle, and a new bypass secret replaces the old hash in it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Sealer } from '../../core/sealing';
import { bypassHash, hashPassword, verifyPassword } from '../../lib/access-hash';
import type { Reconciler } from '../../reconcilers/types';
import { createOrg, registerNode } from '../../store/accounts';
import { revokeBypass, setAccessPolicy, setBypass } from '../../store/access';
import type { Store } from '../../store/db';
import { changesSince, latestSeq } from '../../store/feed';
import { bundleVersion } from '../../store/nodes';
import { createProject, setPlacement } from '../../store/projects';
import { closeBundleEnv, openBundleEnv, openedBundle } from '../helpers/bundles';

const noAbort = new AbortController().signal;
let dir: string;
let s: Store;
let sealer: Sealer;
let r: Reconciler;
let orgId: number;
let projectId: number;
const w = () => ({ orgId, projectId, projectName: 'shop', actor: 'test' });
const opened = (node: string) => openedBundle(s, sealer, node);

/** The nodes the reconciler's watches name for the changes after `seq`. */
async function woken(seq: number): Promise<string[]> {
  const out = new Set<string>();
  for (const c of await changesSince(s, seq)) {
    for (const watch of r.watches.filter((x) => x.kind === c.kind)) for (const k of await watch.keys(c.key)) out.add(k);
  }
  return [...out];
}

beforeEach(async () => {
  ({ dir, s, sealer, r } = await openBundleEnv('hostplane-access-bundle-'));
  orgId = (await createOrg(s, 'acme', 'pro')).id;
  projectId = (await createProject(s, { orgId, plan: 'pro', limit: 100, name: 'shop', database: false, hostname: 'shop.hostplane.test', actor: 'test' })).id;
  await registerNode(s, 'a');
  await registerNode(s, 'b');
  await setPlacement(s, orgId, 'shop', 'a');
});
afterEach(() => {
  closeBundleEnv({ dir, s });
});

describe('access in the bundle', () => {
  it('a project never set is public at version 0', async () => {
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.access).toEqual({ mode: 'public', passwordHash: null, bypassHash: null, version: 0, membersVersion: 0 });
  });

  it('a policy change wakes the project\'s nodes only and rebuilds with mode, hashes and a rising version', async () => {
    await r.reconcile('a', noAbort);
    const v0 = await bundleVersion(s, 'a');
    let seq = await latestSeq(s);
    await setAccessPolicy(s, { ...w(), mode: 'password', passwordHash: await hashPassword('pw-one') });
    expect(await woken(seq)).toEqual(['a']);
    await r.reconcile('a', noAbort);
    expect(await bundleVersion(s, 'a')).toBeGreaterThan(v0);
    const one = (await opened('a'))[0]!.access;
    expect(one).toMatchObject({ mode: 'password', bypassHash: null, version: 1 });
    expect(await verifyPassword('pw-one', one.passwordHash!)).toBe(true);

    seq = await latestSeq(s);
    await setBypass(s, { ...w(), bypassHash: bypassHash('secret-1') });
    await setBypass(s, { ...w(), bypassHash: bypassHash('secret-2') });
    expect(await woken(seq)).toEqual(['a']);
    await r.reconcile('a', noAbort);
    const two = (await opened('a'))[0]!.access;
    expect(two).toEqual({ ...one, bypassHash: bypassHash('secret-2') });

    await setAccessPolicy(s, { ...w(), mode: 'password', passwordHash: await hashPassword('pw-two') });
    await r.reconcile('a', noAbort);
    const three = (await opened('a'))[0]!.access;
    expect(three.version).toBe(2);
    expect(await verifyPassword('pw-one', three.passwordHash!)).toBe(false);

    await revokeBypass(s, w());
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.access).toEqual({ ...three, bypassHash: null });
  });
});
