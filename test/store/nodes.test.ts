/** Node reports and the operators' view of nodes (issue 10 item 2): a node silent longer than
 * NODE_STALE_AFTER_MS is Stale, judged at the store's clock; a report brings it back. */
import { describe, expect, it } from 'vitest';
import { createOrg, registerNode } from '../../store/accounts';
import { openTestStore } from '../helpers/store';
import { NODE_STALE_AFTER_MS, nodeStatuses, projectPlacements, recordReport, secretRollout, storeBundle } from '../../store/nodes';
import { createProject, removePlacement, setPlacement } from '../../store/projects';
import type { BundleSection } from '../../store/schema';
import { setSecret } from '../../store/secrets';

describe('nodeStatuses', () => {
  it('a node is Stale once silent longer than the threshold, and not after its next report', async () => {
    let now = Date.parse('2026-11-26T10:00:00Z');
    const s = await openTestStore(':memory:', { clock: () => new Date(now) });
    try {
      await registerNode(s, 'n1');
      const stale = async () => (await nodeStatuses(s)).find((n) => n.nodeId === 'n1')!.conditions.find((c) => c.type === 'Stale')!;
      expect(await stale()).toMatchObject({ status: 'True', reason: 'NeverReported' });
      await recordReport(s, 'n1', { bundleVersion: 0, projects: [] });
      expect(await stale()).toMatchObject({ status: 'False', reason: 'Reporting' });
      now += NODE_STALE_AFTER_MS - 1000;
      expect((await stale()).status).toBe('False');
      now += 2000;
      expect(await stale()).toMatchObject({ status: 'True', reason: 'Silent', lastTransitionTime: '2026-11-26T10:00:00Z' });
      const [n] = await nodeStatuses(s);
      expect(n).toMatchObject({ desiredVersion: 0, appliedVersion: 0, lastReportAt: '2026-11-26T10:00:00Z' });
      await recordReport(s, 'n1', { bundleVersion: 0, projects: [] });
      expect((await stale()).status).toBe('False');
    } finally {
      s.close();
    }
  });
});

describe('removePlacement', () => {
  it('of a node that does not exist is 404 naming the node (as setPlacement and removeNode); of a known node the project is not on, false', async () => {
    const s = await openTestStore(':memory:');
    try {
      const org = await createOrg(s, 'acme', 'free');
      await createProject(s, { orgId: org.id, plan: 'free', limit: 3, name: 'blog', database: false, hostname: 'blog.hostplane.app', actor: 'test' });
      await registerNode(s, 'n1');
      await registerNode(s, 'n2');
      await setPlacement(s, org.id, 'blog', 'n1');
      await expect(removePlacement(s, org.id, 'blog', 'ghost')).rejects.toMatchObject({ status: 404, code: 'not_found', message: 'node ghost not found' });
      expect(await removePlacement(s, org.id, 'blog', 'n2')).toBe(false);
      expect(await removePlacement(s, org.id, 'blog', 'n1')).toBe(true);
      expect(await removePlacement(s, org.id, 'blog', 'n1')).toBe(false);
    } finally {
      s.close();
    }
  });
});

describe('pendingSecrets', () => {
  it('lists a secret once per node, also for a project placed on two nodes', async () => {
    const s = await openTestStore(':memory:');
    try {
      const org = await createOrg(s, 'acme', 'free');
      const p = await createProject(s, { orgId: org.id, plan: 'free', limit: 3, name: 'blog', database: false, hostname: 'blog.hostplane.app', actor: 'test' });
      await registerNode(s, 'n1');
      await registerNode(s, 'n2');
      await setPlacement(s, org.id, 'blog', 'n1');
      await setPlacement(s, org.id, 'blog', 'n2');
      await setSecret(s, { orgId: org.id, projectId: p.id, projectName: 'blog', name: 'STRIPE_KEY', sealed: 'sealed', actor: 'test' });
      const pending = (await nodeStatuses(s)).map((n) => [n.nodeId, n.pendingSecrets]);
      const one = [{ org: 'acme', project: 'blog', name: 'STRIPE_KEY', version: 1 }];
      expect(pending).toEqual([['n1', one], ['n2', one]]);
    } finally {
      s.close();
    }
  });
});

describe('applied state per project', () => {
  /** Two organizations' projects on one node, each with a secret, and a bundle that carries both as they are. */
  async function twoTenants() {
    const s = await openTestStore(':memory:');
    const acme = await createOrg(s, 'acme', 'free');
    const other = await createOrg(s, 'other', 'free');
    const blog = await createProject(s, { orgId: acme.id, plan: 'free', limit: 3, name: 'blog', database: false, hostname: 'blog.hostplane.app', actor: 'test' });
    const shop = await createProject(s, { orgId: other.id, plan: 'free', limit: 3, name: 'shop', database: false, hostname: 'shop.hostplane.app', actor: 'test' });
    await registerNode(s, 'n1');
    await setPlacement(s, acme.id, 'blog', 'n1');
    await setPlacement(s, other.id, 'shop', 'n1');
    await setSecret(s, { orgId: acme.id, projectId: blog.id, projectName: 'blog', name: 'HUGE', sealed: 'sealed', actor: 'test' });
    await setSecret(s, { orgId: other.id, projectId: shop.id, projectName: 'shop', name: 'API_KEY', sealed: 'sealed', actor: 'test' });
    const version = await storeBundle(s, 'n1', (v) => {
      const sections: Record<string, BundleSection> = {
        [blog.id]: { version: v, secrets: { HUGE: { version: 1, since: v } } },
        [shop.id]: { version: v, secrets: { API_KEY: { version: 1, since: v } } },
      };
      return { sealed: 'sealed', sections };
    });
    return { s, blog, shop, version };
  }

  it('judges each project by the version the node runs it at: a co-tenant whose worker cannot start holds only its own rollout', async () => {
    const { s, blog, shop, version } = await twoTenants();
    try {
      await recordReport(s, 'n1', {
        bundleVersion: 0,
        projects: [
          { org: 'acme', project: 'blog', usedBytes: 0, failure: 'the worker could not be started: E2BIG' },
          { org: 'other', project: 'shop', usedBytes: 0, appliedVersion: version, failure: null },
        ],
      });
      expect(await secretRollout(s, shop.id, 'API_KEY', 1)).toEqual([{ nodeId: 'n1', state: 'applied', failure: null }]);
      expect(await secretRollout(s, blog.id, 'HUGE', 1)).toEqual([{ nodeId: 'n1', state: 'pending', failure: 'the worker could not be started: E2BIG' }]);
      expect(await projectPlacements(s, shop.id)).toEqual([expect.objectContaining({ version, appliedVersion: version, applied: true, failure: null })]);
      expect(await projectPlacements(s, blog.id)).toEqual([expect.objectContaining({ version, appliedVersion: 0, applied: false, failure: 'the worker could not be started: E2BIG' })]);
      expect((await nodeStatuses(s))[0]!.pendingSecrets).toEqual([{ org: 'acme', project: 'blog', name: 'HUGE', version: 1 }]);
    } finally {
      s.close();
    }
  });

  it('applies an older agent\'s whole-node version to every project on the node', async () => {
    const { s, blog, shop, version } = await twoTenants();
    try {
      await recordReport(s, 'n1', { bundleVersion: 0, projects: [{ org: 'other', project: 'shop', usedBytes: 0, appliedVersion: version }] });
      expect((await secretRollout(s, shop.id, 'API_KEY', 1))[0]!.state).toBe('applied');
      // The same node, downgraded: no project says its own, so the node's version stands for each.
      await recordReport(s, 'n1', { bundleVersion: version - 1, projects: [{ org: 'other', project: 'shop', usedBytes: 0 }] });
      expect((await secretRollout(s, shop.id, 'API_KEY', 1))[0]!.state).toBe('pending');
      await recordReport(s, 'n1', { bundleVersion: version, projects: [] });
      expect((await secretRollout(s, shop.id, 'API_KEY', 1))[0]!.state).toBe('applied');
      expect((await secretRollout(s, blog.id, 'HUGE', 1))[0]!.state).toBe('applied');
      expect((await nodeStatuses(s))[0]!.pendingSecrets).toEqual([]);
    } finally {
      s.close();
    }
  });

  it('refuses a project version the node was never given, as it does the node\'s', async () => {
    const { s, version } = await twoTenants();
    try {
      await expect(recordReport(s, 'n1', { bundleVersion: 0, projects: [{ org: 'other', project: 'shop', usedBytes: 0, appliedVersion: version + 1 }] }))
        .rejects.toMatchObject({ status: 400, code: 'bad_request' });
    } finally {
      s.close();
    }
  });
});
