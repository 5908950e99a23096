/**
 * The console's audit page (issue 24 item 3): the organization's audit log through listAudit, with its role (admin)
 * and paging, newest first, filtered by target and actor with a GET form (so a filtered page is a link to share).
 */
import type Router from '@koa/router';
import { auditOps } from '../audit';
import { invokeAs, memberScope } from '../ops';
import { ago, html, nextLink, page, type Viewer } from './html';
import { cursorOf, opOf, type Kit } from './kit';

const listAudit = opOf(auditOps, 'listAudit');

export interface AuditView { id: string; at: string; event: string; actor: string; target: string; details: Record<string, unknown> }
export interface AuditFilters { target: string; actor: string }

export const auditPath = (slug: string): string => `/console/orgs/${encodeURIComponent(slug)}/audit`;

/** The page's own address with its filters, for the next page's link. */
const filteredPath = (slug: string, f: AuditFilters): string => {
  const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v !== ''));
  return q.size === 0 ? auditPath(slug) : `${auditPath(slug)}?${q.toString()}`;
};

export function auditPage(viewer: Viewer, o: { slug: string; items: AuditView[]; nextCursor: string | null; filters: AuditFilters; now: number; live?: string }): string {
  const rows = o.items.map((r) => html`<tr><td>${ago(r.at, o.now)}</td><td>${r.event}</td><td>${r.actor}</td><td>${r.target}</td><td>${
    Object.keys(r.details).length === 0 ? null : html`<pre>${JSON.stringify(r.details)}</pre>`}</td></tr>`);
  const filtered = o.filters.target !== '' || o.filters.actor !== '';
  return page(`Audit log of ${o.slug}`, viewer, html`<p><a href="/console/orgs/${encodeURIComponent(o.slug)}">Back to ${o.slug}</a></p>
<form method="get" action="${auditPath(o.slug)}">
<label for="target">Target (a name, and what is under it: a project, a zone)</label><input id="target" name="target" type="text" value="${o.filters.target}">
<label for="actor">Actor (user:&lt;email&gt; or node:&lt;id&gt;)</label><input id="actor" name="actor" type="text" value="${o.filters.actor}">
<button type="submit">Filter</button>${filtered ? html` <a href="${auditPath(o.slug)}">Show all</a>` : null}
</form>
${o.items.length === 0 ? html`<p>No records${filtered ? ' match these filters' : ''} on this page.</p>` : html`<table><caption>Audit records, newest first</caption><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Actor</th><th scope="col">Target</th><th scope="col">Details</th></tr></thead>
<tbody>${rows}</tbody></table>`}
${nextLink(filteredPath(o.slug, o.filters), o.nextCursor)}`, o.live);
}

/** A filter from the form: blank is none (the operation refuses an empty one). */
const filterOf = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

export function mountAuditPages(router: Router, kit: Kit, pageSize: number): void {
  router.get('/console/orgs/:slug/audit', kit.signedIn(async (ctx, s) => {
    const orgSlug = String(ctx.params.slug);
    const filters: AuditFilters = { target: filterOf(ctx.query.target), actor: filterOf(ctx.query.actor) };
    const query = { limit: String(pageSize), ...cursorOf(ctx), ...(filters.target && { target: filters.target }), ...(filters.actor && { actor: filters.actor }) };
    const scope = await memberScope(kit.deps, s.principal, orgSlug, { operationId: 'listAudit', role: 'admin' });
    const load = async () => (await invokeAs(listAudit, kit.deps, ctx, s.principal, { params: { orgSlug }, query })).body as { items: AuditView[]; nextCursor: string | null };
    await kit.live(ctx, { kind: '*', key: '', orgId: scope.org.id }, load, ({ items, nextCursor }, live) =>
      auditPage(kit.viewerOf(s), { slug: orgSlug, items, nextCursor, filters, now: kit.deps.store.clock().getTime(), live }));
  }));
}
