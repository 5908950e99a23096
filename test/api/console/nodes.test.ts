/**
 * The console's nodes page (issue 24 item 3) over HTTP: an organization's admins see the nodes that carry its
 * projects (and no other), a page at a time, each with the bundle version it should run against the one it runs,
 * its last report and whether it is stale as `admin status` judges it (store/nodes.ts nodeStatuses); members and
 * viewers are refused (403), outsiders find nothing (404).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { hashPassword } from '../../../lib/access-hash';
import { bundleReconciler } from '../../../reconcilers/bundles';
import { DEFAULT_PLANS } from '../../../rules/plans';
import { orgBySlug, registerNode } from '../../../store/accounts';
import { bundleVersion, nodeStatuses, NODE_STALE_AFTER_MS, recordReport } from '../../../store/nodes';
import { setPlacement } from '../../../store/projects';
import { nodeReports } from '../../../store/schema';
import { setPasswordHash } from '../../../store/sessions';
import { startTestApi, type TestApi } from '../../helpers/app';
import { type Browser, nextHref, signedInAt } from '../../helpers/console-browser';

const PASSWORD = 'correct horse battery staple';
const NODES = '/console/orgs/acme/nodes';

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi({ console: { pageSizes: { nodes: 2 } } });
  const hash = await hashPassword(PASSWORD);
  for (const email of ['admin@acme.test', 'member@acme.test', 'viewer@acme.test', 'stranger@nowhere.test']) await setPasswordHash(t.store, email, hash);
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'blog' } })).status).toBe(201);
  expect((await t.call('POST', '/v1/orgs/globex/projects', { token: t.other.token, body: { name: 'shop' } })).status).toBe(201);
  const bundles = bundleReconciler({ store: t.store, sealer: t.sealer, plans: DEFAULT_PLANS });
  const acme = (await orgBySlug(t.store, 'acme'))!;
  const globex = (await orgBySlug(t.store, 'globex'))!;
  // node-a runs its bundle, node-b went silent, node-c never reported; node-x carries globex only.
  for (const [node, org, project] of [['node-a', acme, 'blog'], ['node-b', acme, 'blog'], ['node-c', acme, 'blog'], ['node-x', globex, 'shop']] as const) {
    await registerNode(t.store, node);
    await setPlacement(t.store, org.id, project, node);
    await bundles.reconcile(node, new AbortController().signal);
  }
  for (const node of ['node-a', 'node-b']) await recordReport(t.store, node, { bundleVersion: await bundleVersion(t.store, node), projects: [] });
  const silentSince = new Date(Date.now() - NODE_STALE_AFTER_MS - 60_000).toISOString();
  await t.store.db.update(nodeReports).set({ reportedAt: silentSince }).where(eq(nodeReports.nodeId, 'node-b'));
}, 120_000);
afterAll(async () => { await t.close(); });

const signedIn = (email: string): Promise<Browser> => signedInAt(t.url, email, PASSWORD);

describe('the nodes page', { timeout: 120_000 }, () => {
  it('shows an admin the nodes of the org\'s projects a page at a time: desired and applied bundle, last report, stale as admin status judges it', async () => {
    const b = await signedIn('admin@acme.test');
    expect((await b.go('GET', '/console/orgs/acme')).text).toContain(`<a href="${NODES}">Nodes</a>`);
    const desired = await bundleVersion(t.store, 'node-a');
    const first = await b.go('GET', NODES);
    expect(first.status).toBe(200);
    expect(first.text).toMatch(new RegExp(`<tr><th scope="row">node-a</th><td>${desired}</td><td>${desired}</td>\n<td><time [^>]+>\\d+ s ago</time></td><td>Reporting</td></tr>`));
    expect(first.text).toMatch(/<tr><th scope="row">node-b<\/th><td>\d+<\/td><td>\d+<\/td>\n<td><time [^>]+>4 min ago<\/time><\/td><td><strong>Stale<\/strong>: no report for \d+ s \(stale after 180 s\)<\/td><\/tr>/);
    expect(first.text).not.toContain('node-c');
    const second = await b.go('GET', nextHref(first));
    expect(second.text).toMatch(/<tr><th scope="row">node-c<\/th><td>\d+<\/td><td>none reported<\/td>\n<td>never<\/td><td><strong>Stale<\/strong>: the node has never reported<\/td><\/tr>/);
    expect(second.text).not.toContain('rel="next"');
    for (const page of [first, second]) expect(page.text).not.toContain('node-x');
    // The same judgement as admin status.
    const judged = Object.fromEntries((await nodeStatuses(t.store)).map((n) => [n.nodeId, n.conditions.find((c) => c.type === 'Stale')!.status]));
    expect(judged).toMatchObject({ 'node-a': 'False', 'node-b': 'True', 'node-c': 'True' });
  });

  it('is the admins\': a member and a viewer are refused (403) and see no link; an outsider finds nothing (404); a bad cursor is 400', async () => {
    for (const email of ['member@acme.test', 'viewer@acme.test']) {
      const b = await signedIn(email);
      expect((await b.go('GET', '/console/orgs/acme')).text).not.toContain(NODES);
      const r = await b.go('GET', NODES);
      expect(r.status).toBe(403);
      expect(r.text).toContain('the nodes page needs the admin role or above');
    }
    const outsider = await (await signedIn('stranger@nowhere.test')).go('GET', NODES);
    expect(outsider.status).toBe(404);
    expect(outsider.text).toContain('organization acme not found');
    const admin = await signedIn('admin@acme.test');
    expect((await admin.go('GET', `${NODES}?cursor=%21`)).status).toBe(400);
    // Two cursors are refused as such, as the other store-read pages do, not joined into one that is no cursor.
    const twice = await admin.go('GET', `${NODES}?cursor=a&cursor=b`);
    expect(twice.status).toBe(400);
    expect(twice.text).toContain('cursor is given more than once');
  });
});
