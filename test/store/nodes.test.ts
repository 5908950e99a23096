/** Node reports and the operators' view of nodes (issue 10 item 2): a node silent longer than
 * NODE_STALE_AFTER_MS is Stale, judged at the store's clock; a report brings it back. */
import { describe, expect, it } from 'vitest';
import { createOrg, registerNode } from '../../store/accounts';
import { openTestStore } from '../helpers/store';
import { NODE_STALE_AFTER_MS, nodeStatuses, recordReport } from '../../store/nodes';
import { createProject, setPlacement } from '../../store/projects';
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
