/**
 * The console's zone pages (issue 24 item 3): the organization's zones paged, and a zone with its conditions, DNSSEC
 * (the DS records for the registrar) and rrsets, which members edit, delete and add through putRRset and
 * deleteRRset with the rrset's ETag, so two editors cannot overwrite each other.
 */
import type Router from '@koa/router';
import { roleAtLeast } from '../../store/accounts';
import type { Condition } from '../../lib/conditions';
import { resourceState, type ResourceState } from '../../rules/resource-state';
import { RECORD_TYPES } from '../../zonefiles';
import { dnsOps } from '../dns';
import { invokeAs, memberScope, type AnyOp } from '../ops';
import { byTheApi, conditionsTable, emptyList, html, nextLink, page, STATE_LABELS, type Html, type Viewer } from './html';
import { formError, formField, mountConfirmedDelete, mountListWithCreate, type FormState } from './forms';
import { cursorOf, field, ifMatch, opOf, type Kit } from './kit';

const listZones = opOf(dnsOps, 'listZones');
const getZone = opOf(dnsOps, 'getZone');
const putRRset = opOf(dnsOps, 'putRRset');
const deleteRRset = opOf(dnsOps, 'deleteRRset');
const createZone = opOf(dnsOps, 'createZone');
const deleteZone = opOf(dnsOps, 'deleteZone');

/** A zone as listZones and getZone answer it, in the fields the console shows. */
export interface ZoneView {
  name: string;
  dnssec: 'off' | 'signing' | 'ds_pending';
  ds: DsView[];
  serial: number;
  status: { conditions: Condition[]; servedSerial: number | null; signerDs: DsView[] };
}
export interface DsView { keyTag: number; algorithm: number; digestType: number; digest: string }
export interface RRsetView { name: string; type: string; ttl: number; records: { content: string }[]; managedBy: string | null; etag: string }

export const zonesPath = (slug: string): string => `/console/orgs/${encodeURIComponent(slug)}/zones`;
export const zonePath = (slug: string, zone: string): string => `${zonesPath(slug)}/${encodeURIComponent(zone)}`;

const DNSSEC_LABELS: Record<ZoneView['dnssec'], string> = { off: 'Off', signing: 'Signing (DS not at the parent yet)', ds_pending: 'Signing (DS recorded)' };

/** The form that creates a zone (createZone), for those its role lets. */
const createZoneForm = (viewer: Viewer, slug: string, state: FormState | undefined): Html => html`<h2>Create a zone</h2>
${formError(state)}
<form method="post" action="${zonesPath(slug)}">
<input type="hidden" name="csrf" value="${viewer.csrf}">
${formField('create-zone', state, { name: 'name', label: 'Zone name', hint: 'a domain the organization holds, as example.com', required: true })}
<button type="submit">Create zone</button>
</form>`;

/** The organization's zones, one page of them, each with its state and the serial its nameserver serves; with
 * `canCreate` the form that creates one (shown again with `form` after a refusal). */
export function zonesPage(viewer: Viewer, o: {
  slug: string; zones: (ZoneView & { state: ResourceState })[]; first: boolean; nextCursor: string | null; canCreate: boolean; form?: FormState; live?: string;
}): string {
  const rows = o.zones.map((z) => html`<tr><td><a href="${zonePath(o.slug, z.name)}">${z.name}</a></td><td>${STATE_LABELS[z.state]}</td><td>${z.status.servedSerial ?? 'none yet'}</td><td>${DNSSEC_LABELS[z.dnssec]}</td></tr>`);
  return page(`Zones of ${o.slug}`, viewer, html`<p><a href="/console/orgs/${encodeURIComponent(o.slug)}">Back to ${o.slug}</a></p>
${o.zones.length === 0 ? emptyList('zones', o.first, o.canCreate ? html`Create one below.` : byTheApi(`POST /v1/orgs/${o.slug}/dns/zones`)) : html`<table><caption>Zones by name</caption><thead><tr><th scope="col">Zone</th><th scope="col">State</th><th scope="col">Served serial</th><th scope="col">DNSSEC</th></tr></thead>
<tbody>${rows}</tbody></table>`}
${nextLink(zonesPath(o.slug), o.nextCursor)}
${o.canCreate ? createZoneForm(viewer, o.slug, o.form) : null}`, o.live);
}

const dsText = (zone: string, d: DsView): string => `${zone}. IN DS ${d.keyTag} ${d.algorithm} ${d.digestType} ${d.digest}`;

/** The fields an rrset form sends to say which rrset at which version it changes. */
const rrsetKeyFields = (viewer: Viewer, r: RRsetView): Html => html`<input type="hidden" name="csrf" value="${viewer.csrf}">
<input type="hidden" name="name" value="${r.name}"><input type="hidden" name="type" value="${r.type}"><input type="hidden" name="etag" value="${r.etag}">`;

/** An rrset's records, one per line, as the edit form takes them back. */
const recordLines = (r: RRsetView): string => r.records.map((x) => x.content).join('\n');

function rrsetForms(viewer: Viewer, at: string, r: RRsetView, i: number): Html {
  return html`<details><summary>Edit</summary>
<form method="post" action="${at}/rrsets/edit">${rrsetKeyFields(viewer, r)}
<label for="ttl-${i}">TTL (seconds)</label><input id="ttl-${i}" name="ttl" type="number" min="1" required value="${r.ttl}">
<label for="records-${i}">Records, one per line</label><textarea id="records-${i}" name="records" rows="${Math.min(10, r.records.length + 1)}" required>${recordLines(r)}</textarea>
<button type="submit">Save ${r.name} ${r.type}</button>
</form></details>
<form method="post" action="${at}/rrsets/delete">${rrsetKeyFields(viewer, r)}<button type="submit" class="danger">Delete ${r.name} ${r.type}</button></form>`;
}

/** A zone: its conditions, DNSSEC with the DS values for the registrar, and a page of its rrsets; with `canEdit`
 * (a member or above) a form per rrset that the service manages not, and one to add an rrset. */
export function zonePage(viewer: Viewer, o: {
  slug: string; zone: ZoneView; rrsets: RRsetView[]; nextCursor: string | null; state: ResourceState; canEdit: boolean; canDelete: boolean; now: number; live?: string;
}): string {
  const z = o.zone;
  const at = zonePath(o.slug, z.name);
  const ds = z.status.signerDs;
  const rrsetRows = o.rrsets.map((r, i) => html`<tr><td>${r.name}</td><td>${r.type}</td><td>${r.ttl}</td><td><pre>${recordLines(r)}</pre></td>${o.canEdit
    ? html`<td>${r.managedBy === null ? rrsetForms(viewer, at, r, i) : html`Managed by the service`}</td>`
    : null}</tr>`);
  return page(z.name, viewer, html`<p><a href="${zonesPath(o.slug)}">Back to the zones of ${o.slug}</a></p>
<p data-live-summary>State: ${STATE_LABELS[o.state]}. Serial ${z.serial}; the nameserver serves ${z.status.servedSerial ?? 'none yet'}.</p>
<h2>Conditions</h2>
${conditionsTable(z.name, z.status.conditions, o.now, 'None yet: the reconciler has not looked at this zone.')}
<h2>DNSSEC</h2>
<p>${DNSSEC_LABELS[z.dnssec]}.</p>
${z.dnssec === 'off' ? null : ds.length === 0
    ? html`<p>The signer has no DS records for the parent yet.</p>`
    : html`<p>Give these DS records to your registrar:</p><pre class="ds">${ds.map((d) => dsText(z.name, d)).join('\n')}</pre>`}
<h2>Records</h2>
<table><caption>Rrsets of ${z.name}, by name and type</caption><thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">TTL</th><th scope="col">Records</th>${o.canEdit ? html`<th scope="col">Change</th>` : null}</tr></thead>
<tbody>${rrsetRows}</tbody></table>
${nextLink(at, o.nextCursor)}
${o.canEdit ? html`<h2>Add an rrset</h2>
<form method="post" action="${at}/rrsets">
<input type="hidden" name="csrf" value="${viewer.csrf}">
<label for="add-name">Name (${z.name}, a name under it, or @ for the apex)</label><input id="add-name" name="name" type="text" required>
<label for="add-type">Type</label><select id="add-type" name="type" required>${RECORD_TYPES.map((t) => html`<option>${t}</option>`)}</select>
<label for="add-ttl">TTL (seconds)</label><input id="add-ttl" name="ttl" type="number" min="1" value="3600" required>
<label for="add-records">Records, one per line</label><textarea id="add-records" name="records" rows="4" required></textarea>
<button type="submit">Add</button>
</form>` : null}
${o.canDelete ? html`<h2>Delete this zone</h2><p><a href="${at}/delete">Delete ${z.name}…</a> (you will be asked to type its name)</p>` : null}`, o.live);
}

/** A zone as the operations answer it, with what its state is judged by. */
type ZoneListed = ZoneView & { status: { generation: number; observedGeneration: number | null } };

// A zone is deleted at once (its nameserver entry after): it is never pending deletion.
const stateOfZone = (z: ZoneListed): ResourceState =>
  resourceState({ generation: z.status.generation, observedGeneration: z.status.observedGeneration, conditions: z.status.conditions, deletingSince: null });

/** An rrset form's records: one per line, blank lines left out. */
const recordsOf = (form: URLSearchParams): { content: string }[] =>
  (form.get('records') ?? '').split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '').map((content) => ({ content }));

/** An rrset form's TTL: absent takes the operation's default; anything else is the operation's to judge. */
const ttlOf = (form: URLSearchParams): { ttl?: number } => {
  const ttl = (form.get('ttl') ?? '').trim();
  return ttl === '' ? {} : { ttl: Number(ttl) };
};

/** Mounts the zone pages; `pageSizes` are the zones and the rrsets a page shows at once. */
export function mountZonePages(router: Router, kit: Kit, pageSizes: { zones: number; rrsets: number }): void {
  const { deps } = kit;
  // A page of zones changes with any of its zones (or one added before its last): it watches every change.
  // Created, the zone's page; refused, the list again with the form as it was sent and why.
  mountListWithCreate(router, kit, {
    path: '/console/orgs/:slug/zones', page: 'the zones page', main: 'name',
    load: async (ctx, s, orgSlug) => (await invokeAs(listZones, deps, ctx, s.principal, { params: { orgSlug }, query: { limit: String(pageSizes.zones), ...cursorOf(ctx) } }))
      .body as { items: ZoneListed[]; nextCursor: string | null },
    render: (ctx, s, scope, listed, o) => zonesPage(kit.viewerOf(s), {
      slug: scope.org.slug, zones: listed.items.map((z) => ({ ...z, state: stateOfZone(z) })), first: ctx.query.cursor === undefined, nextCursor: listed.nextCursor,
      canCreate: roleAtLeast(scope.role, createZone.role!), ...o,
    }),
    create: async (ctx, s, orgSlug, form) => {
      const made = (await invokeAs(createZone, deps, ctx, s.principal, { params: { orgSlug }, body: { name: field(form, 'name') } })).body as { name: string };
      return zonePath(orgSlug, made.name);
    },
  });

  router.get('/console/orgs/:slug/zones/:zone', kit.signedIn(async (ctx, s) => {
    const orgSlug = String(ctx.params.slug);
    const scope = await memberScope(deps, s.principal, orgSlug, { operationId: 'the zone page', role: 'viewer' });
    const params = { orgSlug, zone: String(ctx.params.zone) };
    const load = async () => JSON.parse((await invokeAs(getZone, deps, ctx, s.principal, { params, query: { limit: String(pageSizes.rrsets), ...cursorOf(ctx) } })).json!) as
      ZoneListed & { rrsets: RRsetView[]; nextCursor: string | null };
    // The change feed and the status name a zone as the operation does: lower case, no final dot.
    await kit.live(ctx, { kind: 'zone', key: params.zone.toLowerCase().replace(/\.$/, ''), orgId: scope.org.id }, load, (zone, live) => zonePage(kit.viewerOf(s), {
      slug: orgSlug, zone, rrsets: zone.rrsets, nextCursor: zone.nextCursor, state: stateOfZone(zone), canEdit: roleAtLeast(scope.role, 'member'),
      canDelete: roleAtLeast(scope.role, deleteZone.role!),
      now: deps.store.clock().getTime(), live,
    }));
  }));

  mountConfirmedDelete(router, kit, {
    area: 'zones', param: 'zone', op: deleteZone, what: 'zone',
    consequence: 'Its records are deleted with it and its nameserver stops answering for it. Move its NS records at the registrar first.',
  });

  /** A form that changes one of the zone's rrsets through `op`; back to the zone when done. Its refusals are pages
   * that lead back to the zone; a stale ETag (412) says the rrset changed since the page showed it. */
  const rrsetForm = (op: AnyOp, input: (form: URLSearchParams) => { name: string; type: string; headers: Record<string, string>; body?: unknown; stale: string }) =>
    kit.signedInForm(async (ctx, s, form) => {
      const orgSlug = String(ctx.params.slug);
      const zone = String(ctx.params.zone);
      const back = zonePath(orgSlug, zone);
      const { name, type, headers, body, stale } = input(form);
      const done = await kit.formOutcome(ctx, s, { href: back, label: `Reload ${zone}` },
        async () => { await invokeAs(op, deps, ctx, s.principal, { params: { orgSlug, zone, name, type }, headers, body }); },
        (status, error) => (status === 412 ? `${name} ${type} ${stale} Reload the zone to see it as it is now, then make your change again.` : error));
      if (done) kit.redirect(ctx, back);
    });
  const CHANGED = 'changed since this page showed it (someone else edited or deleted it).';

  router.post('/console/orgs/:slug/zones/:zone/rrsets', rrsetForm(putRRset, (form) => ({
    name: field(form, 'name'), type: field(form, 'type'), headers: { 'if-none-match': '*' }, body: { records: recordsOf(form), ...ttlOf(form) },
    stale: 'exists already (perhaps someone else added it): edit it instead.',
  })));
  router.post('/console/orgs/:slug/zones/:zone/rrsets/edit', rrsetForm(putRRset, (form) => ({
    name: field(form, 'name'), type: field(form, 'type'), headers: ifMatch(form), body: { records: recordsOf(form), ...ttlOf(form) }, stale: CHANGED,
  })));
  router.post('/console/orgs/:slug/zones/:zone/rrsets/delete', rrsetForm(deleteRRset, (form) => ({
    name: field(form, 'name'), type: field(form, 'type'), headers: ifMatch(form), stale: CHANGED,
  })));
}
