/**
 * The console's domain pages (issue 24 item 3): the organization's domains paged with their state, expiry, lock and
 * auto-renew, and a domain with the purchase's step, the ledger and its conditions. Members sync a domain with the
 * registrar; admins turn the transfer lock and the auto-renew intent on and off: through the operations themselves
 * (syncDomain, setDomainLock, setDomainAutoRenew), with the domain's ETag so that a page shown before a change
 * cannot undo it. The pages show a domain as the operations answer it: never its contact, payment reference or
 * auth code (the console has no auth code form: getDomainAuthCode stays with the API).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ErrorBody } from '../../lib/errors';
import type { Condition } from '../../lib/conditions';
import { resourceState, type ResourceState } from '../../rules/resource-state';
import { roleAtLeast } from '../../store/accounts';
import { domainOf, ledgerOf, listDomains, type DomainWithStatus, type LedgerEntry } from '../../store/domains';
import { domainBody, domainName, domainOps, domainTag } from '../domains';
import { invokeAs, memberScope, type AnyOp } from '../ops';
import { ago, byTheApi, conditionsTable, emptyList, html, nextLink, page, STATE_LABELS, type Html, type Viewer } from './html';
import { formAgain, formError, formField, type FormState } from './forms';
import { field, ifMatch, opOf, send, storeCursor, type Kit, type SignedIn } from './kit';
import { randomUUID } from 'node:crypto';

const syncDomain = opOf(domainOps, 'syncDomain');
const setDomainLock = opOf(domainOps, 'setDomainLock');
const setDomainAutoRenew = opOf(domainOps, 'setDomainAutoRenew');
const checkDomains = opOf(domainOps, 'checkDomains');
const purchaseDomain = opOf(domainOps, 'purchaseDomain');
const importDomain = opOf(domainOps, 'importDomain');

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

/** What the domains list offers beside the list, by the roles of the operations: checking names (checkDomains) and
 * importing one (importDomain); `forms` are those shown again after a refusal. */
export interface DomainForms { canCheck: boolean; canImport: boolean; check?: FormState; import?: FormState }

const domainForms = (viewer: Viewer, slug: string, f: DomainForms): Html => html`${f.canCheck ? html`<h2>Buy a domain</h2>
<p>Check whether names are free and what they cost; an admin buys one from the answer.</p>
${formError(f.check)}
<form method="post" action="${domainsPath(slug)}/check">
<input type="hidden" name="csrf" value="${viewer.csrf}">
${formField('check', f.check, { name: 'names', label: 'Names', hint: 'one per line, up to 50', type: 'textarea', required: true })}
<button type="submit">Check availability and price</button>
</form>` : null}
${f.canImport ? html`<h2>Import a domain registered elsewhere</h2>
<p>Its zone is created here; DNS is run here once its NS records at its registrar name this service's nameservers.</p>
${formError(f.import)}
<form method="post" action="${domainsPath(slug)}/import">
<input type="hidden" name="csrf" value="${viewer.csrf}">
${formField('import', f.import, { name: 'name', label: 'Domain', hint: 'as example.com', required: true })}
<button type="submit">Import</button>
</form>` : null}`;

/** The organization's domains, one page of them, and the forms its role offers. */
export function domainsPage(viewer: Viewer, o: { slug: string; domains: DomainView[]; first: boolean; nextCursor: string | null; forms: DomainForms; live?: string }): string {
  const rows = o.domains.map((d) => html`<tr><td><a href="${domainPath(o.slug, d.name)}">${d.name}</a></td><td>${STATE_LABELS[d.state]}</td><td>${STATUS_LABELS[d.status]}</td><td>${when(d.expiresAt, 'none')}</td><td>${yesNo(d.locked)}</td><td>${yesNo(d.autoRenew)}</td></tr>`);
  return page(`Domains of ${o.slug}`, viewer, html`<p><a href="/console/orgs/${encodeURIComponent(o.slug)}">Back to ${o.slug}</a></p>
${o.domains.length === 0 ? emptyList('domains', o.first, o.forms.canCheck ? html`Check and buy one, or import one, below.` : byTheApi(`POST /v1/orgs/${o.slug}/domains`)) : html`<table><caption>Domains by name</caption><thead><tr><th scope="col">Domain</th><th scope="col">State</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col">Transfer lock</th><th scope="col">Auto-renew</th></tr></thead>
<tbody>${rows}</tbody></table>`}
${nextLink(domainsPath(o.slug), o.nextCursor)}
${domainForms(viewer, o.slug, o.forms)}`, o.live);
}

export interface Availability { name: string; available: boolean; priceCents: number; renewalCents: number; currency: string }

/** checkDomains' answer: each name free or not, with its first year's and its renewal's price; an admin's link to buy. */
export function availabilityPage(viewer: Viewer, o: { slug: string; results: Availability[]; canBuy: boolean }): string {
  const rows = o.results.map((r) => html`<tr><td>${r.name}</td><td>${r.available ? 'Available' : 'Taken'}</td><td>${money(r.priceCents, r.currency)}</td><td>${money(r.renewalCents, r.currency)}</td>
${o.canBuy ? html`<td>${r.available ? html`<a href="${domainsPath(o.slug)}/buy?name=${encodeURIComponent(r.name)}">Buy ${r.name}</a>` : null}</td>` : null}</tr>`);
  return page('Availability', viewer, html`<p><a href="${domainsPath(o.slug)}">Back to the domains of ${o.slug}</a></p>
<table><caption>Names asked, in the order asked</caption><thead><tr><th scope="col">Name</th><th scope="col">Availability</th><th scope="col">First year</th><th scope="col">Each renewal year</th>${o.canBuy ? html`<th scope="col">Buy</th>` : null}</tr></thead>
<tbody>${rows}</tbody></table>
${o.canBuy ? null : html`<p>Admins of ${o.slug} buy domains.</p>`}`);
}

/** The purchase form (purchaseDomain): the name, years, the registrant, the payment method and the auto-renew intent.
 * `key` is its Idempotency-Key, made with the form: sent twice, it buys once. */
export function purchasePage(viewer: Viewer, o: { slug: string; name: string; key: string; state?: FormState }): string {
  const f = (name: string, label: string, more: { type?: 'email' | 'tel' | 'number' | 'checkbox'; required?: boolean; hint?: string; value?: string; attrs?: Html } = {}): Html =>
    formField('buy', o.state, { name, label, ...more });
  return page(`Buy ${o.name || 'a domain'}`, viewer, html`<p><a href="${domainsPath(o.slug)}">Back to the domains of ${o.slug}</a></p>
${formError(o.state)}
<form method="post" action="${domainsPath(o.slug)}/buy">
<input type="hidden" name="csrf" value="${viewer.csrf}"><input type="hidden" name="idempotencyKey" value="${o.key}">
${f('name', 'Domain', { required: true, value: o.name })}
${f('years', 'Years', { type: 'number', required: true, value: '1', hint: '1 to 10', attrs: html` min="1" max="10"` })}
<fieldset><legend>Registrant (sent to the registrar only; the registry's verification mail goes to this email)</legend>
${f('contact.name', 'Name', { required: true, attrs: html` autocomplete="name"` })}
${f('contact.email', 'Email', { type: 'email', required: true, attrs: html` autocomplete="email"` })}
${f('contact.phone', 'Phone', { type: 'tel', required: true, hint: '+CC.NUMBER, as +1.5555550100', attrs: html` autocomplete="tel"` })}
${f('contact.address.line1', 'Address', { required: true, attrs: html` autocomplete="address-line1"` })}
${f('contact.address.line2', 'Address, second line', { attrs: html` autocomplete="address-line2"` })}
${f('contact.address.city', 'City', { required: true, attrs: html` autocomplete="address-level2"` })}
${f('contact.address.state', 'State or region', { attrs: html` autocomplete="address-level1"` })}
${f('contact.address.postalCode', 'Postal code', { required: true, attrs: html` autocomplete="postal-code"` })}
${f('contact.country', 'Country', { required: true, hint: 'ISO code in capitals, as US', attrs: html` autocomplete="country" maxlength="2"` })}
</fieldset>
${f('paymentMethod', 'Payment method', { required: true, hint: "the payment provider's reference, as pm_card_visa; never card numbers" })}
${f('autoRenew', 'Renew automatically before it expires', { type: 'checkbox', value: 'true' })}
<button type="submit">Buy ${o.name || 'the domain'}</button>
</form>`);
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

/** A form field's text, or nothing when it is empty (an optional field of the operation's body). */
const optional = (form: URLSearchParams, name: string, as: string): Record<string, string> => (field(form, name) === '' ? {} : { [as]: field(form, name) });

/** purchaseDomain's body from its form; the years a number (or NaN) for the operation to judge, absent its default. */
const purchaseBodyOf = (form: URLSearchParams) => ({
  name: field(form, 'name'),
  ...(field(form, 'years') === '' ? {} : { years: Number(field(form, 'years')) }),
  contact: {
    name: field(form, 'contact.name'), email: field(form, 'contact.email'), phone: field(form, 'contact.phone'),
    address: {
      line1: field(form, 'contact.address.line1'), ...optional(form, 'contact.address.line2', 'line2'), city: field(form, 'contact.address.city'),
      ...optional(form, 'contact.address.state', 'state'), postalCode: field(form, 'contact.address.postalCode'),
    },
    country: field(form, 'contact.country'),
  },
  paymentMethod: field(form, 'paymentMethod'),
});

/** A refusal of the registrar or the payment provider in words that say what happened to the money and the name. */
const registrarWords = (error: ErrorBody): string => {
  if (error.code === 'payment_failed') return `The payment method was declined, so nothing was charged and the name is free again: ${error.message}`;
  if (error.code === 'saga_incomplete' || error.code === 'registrar_error') return `The purchase stopped midway; nothing is charged or registered twice when you send the form again: ${error.message}`;
  return error.message;
};

/** Mounts the domain pages; `pageSize` is the domains a list page shows at once. */
export function mountDomainPages(router: Router, kit: Kit, pageSize: number): void {
  const { deps } = kit;
  const need = { operationId: 'the domain pages', role: 'viewer' } as const;

  const listPage = async (ctx: Context, s: SignedIn) => {
    const scope = await memberScope(deps, s.principal, String(ctx.params.slug), need);
    const cursor = storeCursor(ctx);
    const load = () => listDomains(deps.store, scope.org.id, pageSize, cursor);
    const render = (list: Awaited<ReturnType<typeof load>>, o: { live?: string; check?: FormState; import?: FormState }) => domainsPage(kit.viewerOf(s), {
      slug: scope.org.slug, domains: list.items.map(viewOf), first: ctx.query.cursor === undefined, nextCursor: list.nextCursor, live: o.live,
      forms: { canCheck: roleAtLeast(scope.role, checkDomains.role!), canImport: roleAtLeast(scope.role, importDomain.role!), check: o.check, import: o.import },
    });
    return { scope, load, render };
  };
  router.get('/console/orgs/:slug/domains', kit.signedIn(async (ctx, s) => {
    const { scope, load, render } = await listPage(ctx, s);
    await kit.live(ctx, { kind: '*', key: '', orgId: scope.org.id }, load, (list, live) => render(list, { live }));
  }));

  const backToList = (orgSlug: string) => ({ href: domainsPath(orgSlug), label: `Back to the domains of ${orgSlug}` });

  router.post('/console/orgs/:slug/domains/check', kit.signedInForm(async (ctx, s, form) => {
    const { scope, load, render } = await listPage(ctx, s);
    const orgSlug = scope.org.slug;
    const names = (form.get('names') ?? '').split(/[\s,]+/).filter((n) => n !== '');
    let results: Availability[] = [];
    const done = await formAgain(kit, ctx, s, form, {
      back: backToList(orgSlug), main: 'names', message: registrarWords,
      attempt: async () => { results = ((await invokeAs(checkDomains, deps, ctx, s.principal, { params: { orgSlug }, body: { names } })).body as { results: Availability[] }).results; },
      again: async (state) => render(await load(), { check: state }),
    });
    if (done) send(ctx, 200, availabilityPage(kit.viewerOf(s), { slug: orgSlug, results, canBuy: roleAtLeast(scope.role, purchaseDomain.role!) }));
  }));

  router.post('/console/orgs/:slug/domains/import', kit.signedInForm(async (ctx, s, form) => {
    const { scope, load, render } = await listPage(ctx, s);
    const orgSlug = scope.org.slug;
    let name = '';
    const done = await formAgain(kit, ctx, s, form, {
      back: backToList(orgSlug), main: 'name',
      attempt: async () => { name = ((await invokeAs(importDomain, deps, ctx, s.principal, { params: { orgSlug }, body: { name: field(form, 'name') } })).body as { name: string }).name; },
      again: async (state) => render(await load(), { import: state }),
    });
    if (done) kit.redirect(ctx, domainPath(orgSlug, name));
  }));

  // Before the domain's own page, whose route would take `buy` for a domain's name.
  router.get('/console/orgs/:slug/domains/buy', kit.signedIn(async (ctx, s) => {
    const scope = await memberScope(deps, s.principal, String(ctx.params.slug), { operationId: purchaseDomain.operationId, role: purchaseDomain.role! });
    const name = typeof ctx.query.name === 'string' ? ctx.query.name : '';
    send(ctx, 200, purchasePage(kit.viewerOf(s), { slug: scope.org.slug, name, key: randomUUID() }));
  }));

  // Bought, the domain's page (its auto-renew intent set as the form says); refused or failed midway, the form again
  // with what was entered, under a new key: a stored refusal would otherwise answer the corrected form.
  router.post('/console/orgs/:slug/domains/buy', kit.signedInForm(async (ctx, s, form) => {
    const orgSlug = String(ctx.params.slug);
    let name = '';
    const done = await formAgain(kit, ctx, s, form, {
      back: backToList(orgSlug), message: registrarWords,
      attempt: async () => {
        const reply = await invokeAs(purchaseDomain, deps, ctx, s.principal, { params: { orgSlug }, body: purchaseBodyOf(form), idempotencyKey: field(form, 'idempotencyKey') });
        name = (JSON.parse(reply.json ?? JSON.stringify(reply.body)) as { name: string }).name;
        if (form.get('autoRenew') !== 'true') await invokeAs(setDomainAutoRenew, deps, ctx, s.principal, { params: { orgSlug, name }, body: { autoRenew: false } });
      },
      again: (state) => purchasePage(kit.viewerOf(s), { slug: orgSlug, name: field(form, 'name'), key: randomUUID(), state }),
    });
    if (done) kit.redirect(ctx, domainPath(orgSlug, name));
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
