/**
 * Each kind's whole "needs attention" list (issue 24 item 3): the organization's page shows the conditions not True
 * that have been so longest, across kinds and cut short; these pages list one kind's all, longest first, a page at a
 * time (store/overview.ts `attentionPage`, ordered and cut by the database), for any member.
 */
import type Router from '@koa/router';
import { AppError } from '../../lib/errors';
import { attentionPage, ATTENTION_KINDS, type AttentionKind } from '../../store/overview';
import { memberScope } from '../ops';
import { attentionHref, attentionTable, html, KIND_LABELS, nextLink, page } from './html';
import { storeCursor, type Kit } from './kit';

/** The kind a page's path names (`zones`, `hostnames`, `domains`). */
const kindOf = (plural: string): AttentionKind => {
  const kind = ATTENTION_KINDS.find((k) => `${k}s` === plural);
  if (!kind) throw new AppError(404, 'not_found', `there is no list of ${plural} that need attention: zones, hostnames or domains`);
  return kind;
};

/** Mounts each kind's list; `pageSize` conditions a page. */
export function mountAttentionPages(router: Router, kit: Kit, pageSize: number): void {
  const { deps } = kit;
  router.get('/console/orgs/:slug/attention/:kind', kit.signedIn(async (ctx, s) => {
    const kind = kindOf(String(ctx.params.kind));
    const scope = await memberScope(deps, s.principal, String(ctx.params.slug), { operationId: 'the needs attention page', role: 'viewer' });
    const cursor = storeCursor(ctx);
    const label = KIND_LABELS[kind];
    await kit.live(ctx, { kind: '*', key: '', orgId: scope.org.id }, () => attentionPage(deps.store, scope.org.id, kind, pageSize, cursor), (listed, live) =>
      page(`${label} that need attention in ${scope.org.slug}`, kit.viewerOf(s), html`<p><a href="/console/orgs/${encodeURIComponent(scope.org.slug)}">Back to ${scope.org.slug}</a></p>
${listed.items.length === 0
    ? html`<p>${cursor === undefined ? 'Nothing: every condition of these is True.' : 'Nothing on this page: the list ended before it.'}</p>`
    : attentionTable(`Conditions of ${label.toLowerCase()} that are not True, longest first`, listed.items, deps.store.clock().getTime())}
${nextLink(attentionHref(scope.org.slug, kind), listed.nextCursor)}`, live));
  }));
}
