/** The console's pages: server-rendered HTML that works without JavaScript (forms post), with labels on every
 * field. Every interpolated value is escaped by `html`; only `Html` values (already built here) go in as they are. */

import type { Condition } from '../../lib/conditions';
import type { ResourceState } from '../../rules/resource-state';
import type { OverviewKind } from '../../store/overview';
import { RECORD_TYPES } from '../../zonefiles';

export class Html {
  constructor(readonly text: string) {}
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Part = string | number | Html | Html[] | null | undefined;
const partText = (p: Part): string => {
  if (p === null || p === undefined) return '';
  if (p instanceof Html) return p.text;
  if (Array.isArray(p)) return p.map((x) => x.text).join('');
  return escapeHtml(String(p));
};

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  return new Html(strings.reduce((out, s, i) => out + s + (i < parts.length ? partText(parts[i]) : ''), ''));
}

export const STYLESHEET = `:root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; color: #1a1a1a; background: #fff; }
header { display: flex; gap: 1rem; align-items: center; padding: .75rem 1.5rem; background: #1f2937; color: #fff; }
header a { color: #fff; }
header form { margin-left: auto; }
main { max-width: 48rem; padding: 1.5rem; }
label { display: block; margin-top: .75rem; font-weight: 600; }
input[type=email], input[type=password], input[type=text], input[type=number], select, textarea { display: block; width: 100%; max-width: 24rem; padding: .4rem; font: inherit; border: 1px solid #555; border-radius: 4px; }
button { margin-top: 1rem; padding: .4rem 1rem; font: inherit; color: #fff; background: #1d4ed8; border: 0; border-radius: 4px; cursor: pointer; }
header button { margin: 0; background: #374151; }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.error { padding: .5rem .75rem; color: #7f1d1d; background: #fee2e2; border-left: 4px solid #b91c1c; }
.notice { padding: .5rem .75rem; color: #14532d; background: #dcfce7; border-left: 4px solid #15803d; }
table { border-collapse: collapse; }
th, td { padding: .3rem .75rem; text-align: left; vertical-align: top; border-bottom: 1px solid #ccc; }
td pre, .ds { margin: 0; white-space: pre-wrap; word-break: break-all; }
button.danger { background: #b91c1c; }
`;

export interface Viewer { email: string; csrf: string }

/** A whole page; `viewer` is the signed-in user (null on the sign-in page and other signed-out pages). */
export function page(title: string, viewer: Viewer | null, body: Html): string {
  const nav = viewer
    ? html`<header><a href="/console">hostplane</a><a href="/console/account">Account</a><span>${viewer.email}</span>
<form method="post" action="/console/sign-out"><input type="hidden" name="csrf" value="${viewer.csrf}"><button type="submit">Sign out</button></form></header>`
    : html`<header><a href="/console">hostplane</a></header>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · hostplane</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/console.css">
</head>
<body>
${nav}
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.text;
}

const errorBox = (error: string | undefined): Html | null => (error ? html`<p class="error" role="alert">${error}</p>` : null);

export function signInPage(o: { csrf: string; next: string; email?: string; error?: string }): string {
  return page('Sign in', null, html`${errorBox(o.error)}
<form method="post" action="/console/sign-in">
<input type="hidden" name="csrf" value="${o.csrf}">
<input type="hidden" name="next" value="${o.next}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p>No password yet? An operator sets one with <code>hostplane admin user password &lt;email&gt;</code>.</p>`);
}

export function homePage(viewer: Viewer, orgs: { slug: string; plan: string; role: string }[]): string {
  const rows = orgs.map((o) => html`<tr><td><a href="/console/orgs/${encodeURIComponent(o.slug)}">${o.slug}</a></td><td>${o.role}</td><td>${o.plan}</td></tr>`);
  return page('Your organizations', viewer, orgs.length === 0
    ? html`<p>You are no member of any organization yet: an operator adds you with <code>hostplane admin member add</code>.</p>`
    : html`<table><caption>Organizations you are a member of</caption><thead><tr><th scope="col">Organization</th><th scope="col">Your role</th><th scope="col">Plan</th></tr></thead>
<tbody>${rows}</tbody></table>`);
}

/** How long ago `at` was, in words a person reads at a glance ("4 min ago"); the exact time is the element's. */
export function ago(at: string, now: number): Html {
  const s = Math.max(0, Math.round((now - Date.parse(at)) / 1000));
  const words = s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min` : s < 86_400 ? `${Math.floor(s / 3600)} h` : `${Math.floor(s / 86_400)} d`;
  return html`<time datetime="${at}" title="${at}">${words} ago</time>`;
}

export const STATE_LABELS: Record<ResourceState, string> = { ready: 'Ready', progressing: 'Progressing', failing: 'Failing', deleting: 'Deleting' };
const KIND_LABELS: Record<OverviewKind, string> = { zone: 'Zones', hostname: 'Custom hostnames', domain: 'Domains', project: 'Projects' };

export interface Attention { kind: OverviewKind; name: string; condition: Condition }

/** The organization's page: counts of each kind by state, and every condition that is not True, longest first. */
export function orgPage(viewer: Viewer, o: {
  slug: string; role: string; counts: Record<OverviewKind, Record<ResourceState, number>>; attention: Attention[]; more: number; now: number;
}): string {
  const kinds = Object.keys(KIND_LABELS) as OverviewKind[];
  const states = Object.keys(STATE_LABELS) as ResourceState[];
  const countRows = kinds.map((k) => html`<tr><th scope="row">${KIND_LABELS[k]}</th>${states.map((st) => html`<td>${o.counts[k][st]}</td>`)}<td>${states.reduce((n, st) => n + o.counts[k][st], 0)}</td></tr>`);
  const attentionRows = o.attention.map((a) => html`<tr><td>${KIND_LABELS[a.kind]}</td><td>${a.name}</td><td>${a.condition.type} ${a.condition.status}</td><td>${a.condition.reason}</td><td>${a.condition.message}</td><td>${ago(a.condition.lastTransitionTime, o.now)}</td></tr>`);
  return page(o.slug, viewer, html`<p>Your role: ${o.role}.</p>
<p><a href="/console/orgs/${encodeURIComponent(o.slug)}/zones">Zones</a></p>
<table><caption>Resources by state</caption><thead><tr><th scope="col">Kind</th>${states.map((st) => html`<th scope="col">${STATE_LABELS[st]}</th>`)}<th scope="col">Total</th></tr></thead>
<tbody>${countRows}</tbody></table>
<h2>Needs attention</h2>
${o.attention.length === 0 ? html`<p>Nothing: every condition is True.</p>` : html`<table><caption>Conditions that are not True, longest first</caption><thead><tr><th scope="col">Kind</th><th scope="col">Name</th><th scope="col">Condition</th><th scope="col">Reason</th><th scope="col">Message</th><th scope="col">Since</th></tr></thead>
<tbody>${attentionRows}</tbody></table>${o.more > 0 ? html`<p>And ${o.more} more.</p>` : null}`}`);
}

export function accountPage(viewer: Viewer, o: { error?: string; notice?: string } = {}): string {
  return page('Account', viewer, html`${errorBox(o.error)}${o.notice ? html`<p class="notice" role="status">${o.notice}</p>` : null}
<h2>Change your password</h2>
<p>Changing it signs you out everywhere else.</p>
<form method="post" action="/console/account/password">
<input type="hidden" name="csrf" value="${viewer.csrf}">
<label for="current">Current password</label>
<input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="password">New password (at least 12 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<label for="confirm">New password again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="12" required>
<button type="submit">Change password</button>
</form>`);
}

/** A page that says why something was refused (403, 404, 429 …), with where to go from here (default the console). */
export function messagePage(title: string, viewer: Viewer | null, message: string, back = { href: '/console', label: 'Back to the console' }): string {
  return page(title, viewer, html`<p class="error" role="alert">${message}</p><p><a href="${back.href}">${back.label}</a></p>`);
}

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

const nextLink = (href: string, cursor: string | null): Html | null =>
  (cursor === null ? null : html`<p><a rel="next" href="${href}?cursor=${encodeURIComponent(cursor)}">Next page</a></p>`);

const DNSSEC_LABELS: Record<ZoneView['dnssec'], string> = { off: 'Off', signing: 'Signing (DS not at the parent yet)', ds_pending: 'Signing (DS recorded)' };

/** The organization's zones, one page of them, each with its state and the serial its nameserver serves. */
export function zonesPage(viewer: Viewer, o: { slug: string; zones: (ZoneView & { state: ResourceState })[]; nextCursor: string | null }): string {
  const rows = o.zones.map((z) => html`<tr><td><a href="${zonePath(o.slug, z.name)}">${z.name}</a></td><td>${STATE_LABELS[z.state]}</td><td>${z.status.servedSerial ?? 'none yet'}</td><td>${DNSSEC_LABELS[z.dnssec]}</td></tr>`);
  return page(`Zones of ${o.slug}`, viewer, html`<p><a href="/console/orgs/${encodeURIComponent(o.slug)}">Back to ${o.slug}</a></p>
${o.zones.length === 0 ? html`<p>No zones on this page.</p>` : html`<table><caption>Zones by name</caption><thead><tr><th scope="col">Zone</th><th scope="col">State</th><th scope="col">Served serial</th><th scope="col">DNSSEC</th></tr></thead>
<tbody>${rows}</tbody></table>`}
${nextLink(zonesPath(o.slug), o.nextCursor)}`);
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
  slug: string; zone: ZoneView; rrsets: RRsetView[]; nextCursor: string | null; state: ResourceState; canEdit: boolean; now: number;
}): string {
  const z = o.zone;
  const at = zonePath(o.slug, z.name);
  const conditionRows = z.status.conditions.map((c) => html`<tr><td>${c.type}</td><td>${c.status}</td><td>${c.reason}</td><td>${c.message}</td><td>${ago(c.lastTransitionTime, o.now)}</td></tr>`);
  const ds = z.status.signerDs;
  const rrsetRows = o.rrsets.map((r, i) => html`<tr><td>${r.name}</td><td>${r.type}</td><td>${r.ttl}</td><td><pre>${recordLines(r)}</pre></td>${o.canEdit
    ? html`<td>${r.managedBy === null ? rrsetForms(viewer, at, r, i) : html`Managed by the service`}</td>`
    : null}</tr>`);
  return page(z.name, viewer, html`<p><a href="${zonesPath(o.slug)}">Back to the zones of ${o.slug}</a></p>
<p>State: ${STATE_LABELS[o.state]}. Serial ${z.serial}; the nameserver serves ${z.status.servedSerial ?? 'none yet'}.</p>
<h2>Conditions</h2>
${conditionRows.length === 0 ? html`<p>None yet: the reconciler has not looked at this zone.</p>` : html`<table><caption>Conditions of ${z.name}</caption><thead><tr><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">Message</th><th scope="col">Since</th></tr></thead>
<tbody>${conditionRows}</tbody></table>`}
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
</form>` : null}`);
}
