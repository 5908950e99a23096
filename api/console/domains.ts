/**
 * The console's domain pages (issue 24 item 3): the organization's domains paged with their state, expiry, lock and
 * auto-renew, and a domain with the purchase's step, the ledger and its conditions. Members sync a domain with the
 * registrar; admins turn the transfer lock and the auto-renew intent on and off: through the operations themselves
 * (syncDomain, setDomainLock, setDomainAutoRenew), with the domain's ETag so that a page shown before a change
 * cannot undo it. The pages show a domain as the operations answer it: never its contact, payment reference or
 * auth code (the console has no auth code form: getDomainAuthCode stays with the API).
 */
import type Router from '@koa/router';
import type { Condition } from '../../lib/conditions';
import { resourceState, type ResourceState } from '../../rules/resource-state';
import { roleAtLeast } from '../../store/accounts';
import { domainOf, ledgerOf, listDomains, type DomainWithStatus, type LedgerEntry } from '../../store/domains';
import { domainBody, domainName, domainOps, domainTag } from '../domains';
import { invokeAs, memberScope, type AnyOp } from '../ops';
import { ago, byTheApi, conditionsTable, emptyList, html, nextLink, page, STATE_LABELS, type Html, type Viewer } from './html';
import { field, ifMatch, opOf, storeCursor, type Kit } from './kit';

const syncDomain = opOf(domainOps, 'syncDomain');
const setDomainLock = opOf(domainOps, 'setDomainLock');
const setDomainAutoRenew = opOf(domainOps, 'setDomainAutoRenew');

/** A domain as the operations answer it, with its state and tag. */
export type DomainView = ReturnType<typeof domainBody> & { state: ResourceState; etag: string; renewal: string | null };

export const domainsPath = (slug: string): string => `/console/orgs/${encodeURIComponent(slug)}/domains`;
export const domainPath = (slug: string, name: string): string => `${domainsPath(slug)}/${encodeURIComponent(name)}`;

const STATUS_LABELS: Record<DomainView['status'], string> = {
  pending: 'Purchase under way', active: 'Registered', expired: 'Expired', transferred_out: 'Transferred out', imported: 'Imported (registered elsewhere)',
};
/** Domains whose lock the service's registrar holds: an imported, transferred-out or unfinished one is refused. */
const AT_OUR_REGISTRAR: ReadonlySet<DomainView['status']> = new Set(['active', 'expired']);

function viewOf(d: DomainWithStatus): DomainView {
  const body = domainBody(d);
  const state = resourceState({ generation: d.generation, observedGeneration: d.observed?.observedGeneration ?? null, conditions: body.conditions as Condition[], deletingSince: null });
  const renewal = d.renewal && typeof d.renewal.state === 'string' ? d.renewal.state : null;
  return { ...body, state, etag: domainTag(d), renewal };
}

/** A moment ahead or behind, as a date with the exact time the element's. */
const when = (at: string | null, none: string): Html | string => (at === null ? none : html`<time datetime="${at}" title="${at}">${at.slice(0, 10)}</time>`);
const yesNo = (b: boolean): string => (b ? 'On' : 'Off');

/** The organization's domains, one page of them. */
export function domainsPage(viewer: Viewer, o: { slug: string; domains: DomainView[]; first: boolean; nextCursor: string | null; live?: string }): string {
  const rows = o.domains.map((d) => html`<tr><td><a href="${domainPath(o.slug, d.name)}">${d.name}</a></td><td>${STATE_LABELS[d.state]}</td><td>${STATUS_LABELS[d.status]}</td><td>${when(d.expiresAt, 'none')}</td><td>${yesNo(d.locked)}</td><td>${yesNo(d.autoRenew)}</td></tr>`);
  return page(`Domains of ${o.slug}`, viewer, html`<p><a href="/console/orgs/${encodeURIComponent(o.slug)}">Back to ${o.slug}</a></p>
${o.domains.length === 0 ? emptyList('domains', o.first, byTheApi(`POST /v1/orgs/${o.slug}/domains`)) : html`<table><caption>Domains by name</caption><thead><tr><th scope="col">Domain</th><th scope="col">State</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col">Transfer lock</th><th scope="col">Auto-renew</th></tr></thead>
<tbody>${rows}</tbody></table>`}
${nextLink(domainsPath(o.slug), o.nextCursor)}`, o.live);
}

const money = (cents: number, currency: string): string => `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;

/** A form that sets one of the domain's switches to `to`, naming the domain's version. */
const switchForm = (viewer: Viewer, at: string, d: DomainView, o: { path: string; field: string; to: boolean; label: string }): Html => html`<form method="post" action="${at}/${o.path}">
<input type="hidden" name="csrf" value="${viewer.csrf}"><input type="hidden" name="etag" value="${d.etag}"><input type="hidden" name="${o.field}" value="${String(o.to)}">
<button type="submit">${o.label}</button></form>`;

/** A domain: its registration, the purchase's step, the ledger and conditions; `role` decides the forms (sync for
 * members, the lock and auto-renew for admins). */
export function domainPage(viewer: Viewer, o: { slug: string; domain: DomainView; ledger: LedgerEntry[]; canSync: boolean; canAdmin: boolean; now: number; live?: string }): string {
  const d = o.domain;
  const at = domainPath(o.slug, d.name);
  const ledgerRows = o.ledger.map((e) => html`<tr><td>${ago(e.at, o.now)}</td><td>${e.kind}</td><td>${money(e.amountCents, e.currency)}</td><td>${e.note}</td></tr>`);
  return page(d.name, viewer, html`<p><a href="${domainsPath(o.slug)}">Back to the domains of ${o.slug}</a></p>
<p>State: ${STATE_LABELS[d.state]}. ${STATUS_LABELS[d.status]}.</p>
<table><caption>Registration of ${d.name}</caption><tbody>
<tr><th scope="row">Expires</th><td>${when(d.expiresAt, d.status === 'imported' ? 'at its own registrar' : 'not known yet')}</td></tr>
<tr><th scope="row">Transfer lock</th><td>${yesNo(d.locked)}</td></tr>
<tr><th scope="row">Auto-renew</th><td>${yesNo(d.autoRenew)}: the service's intent. Renewal at the registrar stays on either way, so turning this off cancels nothing there.</td></tr>
<tr><th scope="row">Nameservers</th><td>${d.nameservers.join(', ') || 'none'}</td></tr>
<tr><th scope="row">Purchase step</th><td>${d.purchaseStep ?? 'none: no purchase under way'}</td></tr>
<tr><th scope="row">Renewal under way</th><td>${d.renewal ?? 'none'}</td></tr>
<tr><th scope="row">Last read from the registrar</th><td>${d.syncedAt === null ? 'never' : ago(d.syncedAt, o.now)}</td></tr>
<tr><th scope="row">Added</th><td>${ago(d.createdAt, o.now)}</td></tr>
</tbody></table>
${o.canSync ? html`<form method="post" action="${at}/sync"><input type="hidden" name="csrf" value="${viewer.csrf}"><button type="submit">Read from the registrar now</button></form>` : null}
${o.canAdmin && AT_OUR_REGISTRAR.has(d.status) ? switchForm(viewer, at, d, { path: 'lock', field: 'locked', to: !d.locked, label: d.locked ? 'Unlock for transfer' : 'Lock against transfer' }) : null}
${o.canAdmin ? switchForm(viewer, at, d, { path: 'auto-renew', field: 'autoRenew', to: !d.autoRenew, label: d.autoRenew ? 'Turn auto-renew off' : 'Turn auto-renew on' }) : null}
<h2>Conditions</h2>
${conditionsTable(d.name, d.conditions as Condition[], o.now, 'None yet: the reconciler has not looked at this domain.')}
<h2>Ledger</h2>
${o.ledger.length === 0 ? html`<p>No charges, refunds or renewals yet.</p>` : html`<table><caption>The latest ledger entries of ${d.name}, newest first</caption><thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Amount</th><th scope="col">Note</th></tr></thead>
<tbody>${ledgerRows}</tbody></table>`}`, o.live);
}

/** A form's `true` or `false`; anything else goes to the operation as it is, for it to refuse (400). */
const booleanOf = (value: string): boolean | string => (value === 'true' ? true : value === 'false' ? false : value);

/** Mounts the domain pages; `pageSize` is the domains a list page shows at once. */
export function mountDomainPages(router: Router, kit: Kit, pageSize: number): void {
  const { deps } = kit;
  const need = { operationId: 'the domain pages', role: 'viewer' } as const;

  router.get('/console/orgs/:slug/domains', kit.signedIn(async (ctx, s) => {
    const scope = await memberScope(deps, s.principal, String(ctx.params.slug), need);
    const cursor = storeCursor(ctx);
    await kit.live(ctx, { kind: '*', key: '', orgId: scope.org.id }, () => listDomains(deps.store, scope.org.id, pageSize, cursor), (list, live) =>
      domainsPage(kit.viewerOf(s), { slug: scope.org.slug, domains: list.items.map(viewOf), first: ctx.query.cursor === undefined, nextCursor: list.nextCursor, live }));
  }));

  router.get('/console/orgs/:slug/domains/:name', kit.signedIn(async (ctx, s) => {
    const scope = await memberScope(deps, s.principal, String(ctx.params.slug), need);
    const name = domainName(String(ctx.params.name));
    const load = async () => {
      const d = await domainOf(deps.store, scope.org.id, name);
      return { d, ledger: await ledgerOf(deps.store, scope.org.id, d.name) };
    };
    await kit.live(ctx, { kind: 'domain', key: name, orgId: scope.org.id }, load, ({ d, ledger }, live) => domainPage(kit.viewerOf(s), {
      slug: scope.org.slug, domain: viewOf(d), ledger, canSync: roleAtLeast(scope.role, 'member'), canAdmin: roleAtLeast(scope.role, 'admin'), now: deps.store.clock().getTime(), live,
    }));
  }));

  /** A form that runs `op` on the domain; back to the domain when done. A refusal is a page that leads back to it; a
   * registrar that failed (502) or is not there (503) is said to be the provider's failure. */
  const domainForm = (op: AnyOp, input: (form: URLSearchParams) => { body?: unknown; headers?: Record<string, string> }) =>
    kit.signedInForm(async (ctx, s, form) => {
      const orgSlug = String(ctx.params.slug);
      const name = String(ctx.params.name);
      const back = domainPath(orgSlug, name);
      const done = await kit.formOutcome(ctx, s, { href: back, label: `Back to ${name}` },
        async () => { await invokeAs(op, deps, ctx, s.principal, { params: { orgSlug, name }, ...input(form) }); },
        (status, error) => {
          if (status === 412) return `${name} changed since this page showed it (someone else changed it, or the registrar answered). Go back to see it as it is now.`;
          if (status === 502 || status === 503) return `The registrar could not do it, so nothing changed: ${error}`;
          return error;
        });
      if (done) kit.redirect(ctx, back);
    });

  router.post('/console/orgs/:slug/domains/:name/sync', domainForm(syncDomain, () => ({})));
  router.post('/console/orgs/:slug/domains/:name/lock', domainForm(setDomainLock, (form) => ({ body: { locked: booleanOf(field(form, 'locked')) }, headers: ifMatch(form) })));
  router.post('/console/orgs/:slug/domains/:name/auto-renew', domainForm(setDomainAutoRenew, (form) => ({ body: { autoRenew: booleanOf(field(form, 'autoRenew')) }, headers: ifMatch(form) })));
}
