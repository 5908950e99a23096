/**
 * The console's nodes page (issue 24 item 3): per node that carries a project of the organization, the bundle
 * version it should run against the one it runs, its last report and whether it went stale, judged as `admin
 * status` judges it (store/nodes.ts). The API has no operator role (operators are whoever runs `hostplane admin`
 * on the data), so the page is the organization's admins': it shows nothing of what the node runs for others.
 */
import type Router from '@koa/router';
import type { Condition } from '../../lib/conditions';
import { NODE_STALE_AFTER_MS, orgNodeStatuses, type OrgNodeStatus } from '../../store/nodes';
import { memberScope } from '../ops';
import { ago, conditionsTable, html, nextLink, page, type Html, type Viewer } from './html';
import { storeCursor, type Kit } from './kit';

export const nodesPath = (slug: string): string => `/console/orgs/${encodeURIComponent(slug)}/nodes`;

const conditionOf = (n: OrgNodeStatus, type: string): Condition => n.conditions.find((c) => c.type === type)!;

function nodeRow(n: OrgNodeStatus, now: number): Html {
  const stale = conditionOf(n, 'Stale');
  return html`<tr><th scope="row">${n.nodeId}</th><td>${n.desiredVersion}</td><td>${n.appliedVersion ?? 'none reported'}</td>
<td>${n.lastReportAt === null ? 'never' : ago(n.lastReportAt, now)}</td><td>${stale.status === 'True' ? html`<strong>Stale</strong>: ${stale.message}` : 'Reporting'}</td></tr>`;
}

/** The nodes of one page, each with its versions, last report and staleness, and its conditions. */
export function nodesPage(viewer: Viewer, o: { slug: string; nodes: OrgNodeStatus[]; nextCursor: string | null; now: number; live?: string }): string {
  return page(`Nodes of ${o.slug}`, viewer, html`<p><a href="/console/orgs/${encodeURIComponent(o.slug)}">Back to ${o.slug}</a></p>
<p>The nodes that run a project of ${o.slug}. A node reports after each bundle it applies and at least every minute; one silent for longer than ${NODE_STALE_AFTER_MS / 60_000} minutes is stale.</p>
${o.nodes.length === 0 ? html`<p>No node on this page: no project of ${o.slug} is placed yet.</p>` : html`<table><caption>Nodes by id</caption><thead><tr><th scope="col">Node</th><th scope="col">Bundle it should run</th><th scope="col">Bundle it runs</th><th scope="col">Last report</th><th scope="col">Reporting</th></tr></thead>
<tbody>${o.nodes.map((n) => nodeRow(n, o.now))}</tbody></table>
${o.nodes.map((n) => html`<h2>${n.nodeId}</h2>${conditionsTable(n.nodeId, n.conditions, o.now, '')}`)}`}
${nextLink(nodesPath(o.slug), o.nextCursor)}`, o.live);
}

/** Mounts the nodes page; `pageSize` nodes a page. */
export function mountNodePages(router: Router, kit: Kit, pageSize: number): void {
  const { deps } = kit;
  router.get('/console/orgs/:slug/nodes', kit.signedIn(async (ctx, s) => {
    const scope = await memberScope(deps, s.principal, String(ctx.params.slug), { operationId: 'the nodes page', role: 'admin' });
    const cursor = storeCursor(ctx);
    await kit.live(ctx, { kind: '*', key: '', orgId: scope.org.id }, () => orgNodeStatuses(deps.store, scope.org.id, pageSize, cursor), (listed, live) =>
      nodesPage(kit.viewerOf(s), { slug: scope.org.slug, nodes: listed.items, nextCursor: listed.nextCursor, now: deps.store.clock().getTime(), live }));
  }));
}
