/** The console's pages: server-rendered HTML that works without JavaScript (forms post), with labels on every
 * field. Every interpolated value is escaped by `html`; only `Html` values (already built here) go in as they are. */

import type { Condition } from '../../lib/conditions';
import type { ResourceState } from '../../rules/resource-state';
import { ATTENTION_KINDS, type Attention, type AttentionKind, type OverviewKind } from '../../store/overview';

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
code.copy { user-select: all; padding: .1rem .3rem; background: #f3f4f6; border: 1px solid #ccc; border-radius: 4px; word-break: break-all; }
code.copy + button { margin: 0 0 0 .5rem; padding: .1rem .6rem; }
.field-error { margin: .25rem 0; color: #7f1d1d; font-weight: 600; }
.hint { font-weight: 400; color: #374151; }
.check label { display: inline; }
.live-status { margin: 0; padding: 0 1.5rem; min-height: 1.5rem; color: #374151; font-size: .9rem; }
`;

/** The console's only script, served from its own origin: a Copy button after each value a person copies into their
 * DNS. Without it the value still selects whole on a click (`user-select: all`), so the pages need no JavaScript. */
export const SCRIPT = `'use strict';
for (const value of document.querySelectorAll('code.copy')) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', 'Copy ' + value.dataset.what);
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(value.textContent);
      button.textContent = 'Copied';
    } catch {
      // No clipboard outside a secure context: the value selected, for the keyboard's copy.
      getSelection().selectAllChildren(value);
    }
  });
  value.after(button);
}
`;

export interface Viewer { email: string; csrf: string }

/** A whole page; `viewer` is the signed-in user (null on the sign-in page and other signed-out pages). With `live`
 * (its version, from Kit.live) the page updates itself: live.js and a status line that says when it did. */
export function page(title: string, viewer: Viewer | null, body: Html, live?: string): string {
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
<script src="/console/console.js" defer></script>
${live === undefined ? null : html`<script src="/console/live.js" defer></script>`}
</head>
<body>
${nav}
${live === undefined ? null : html`<p id="live-status" class="live-status" role="status" aria-live="polite"></p>`}
<main${live === undefined ? null : html` data-live="${live}"`}>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.text;
}

export const errorBox = (error: string | undefined): Html | null => (error ? html`<p class="error" role="alert">${error}</p>` : null);

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
export const KIND_LABELS: Record<OverviewKind, string> = { zone: 'Zones', hostname: 'Custom hostnames', domain: 'Domains', project: 'Projects' };
/** Where each kind's conditions that are not True are listed whole (api/console/attention.ts). */
export const attentionHref = (slug: string, kind: AttentionKind): string => `/console/orgs/${encodeURIComponent(slug)}/attention/${kind}s`;

/** The areas an organization's page links to; the nodes page is its admins'. */
const AREAS: { path: string; label: string; role?: 'admin' }[] = [
  { path: 'zones', label: 'Zones' }, { path: 'hostnames', label: 'Custom hostnames' }, { path: 'domains', label: 'Domains' }, { path: 'projects', label: 'Projects' },
  { path: 'nodes', label: 'Nodes', role: 'admin' }, { path: 'audit', label: 'Audit log', role: 'admin' },
];

/** Conditions that are not True as a table: of several kinds (the organization's page) or of one. */
export function attentionTable(caption: string, items: readonly Attention[], now: number): Html {
  const rows = items.map((a) => html`<tr><td>${KIND_LABELS[a.kind]}</td><td>${a.name}</td><td>${a.condition.type} ${a.condition.status}</td><td>${a.condition.reason}</td><td>${a.condition.message}</td><td>${ago(a.condition.lastTransitionTime, now)}</td></tr>`);
  return html`<table><caption>${caption}</caption><thead><tr><th scope="col">Kind</th><th scope="col">Name</th><th scope="col">Condition</th><th scope="col">Reason</th><th scope="col">Message</th><th scope="col">Since</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

/** The organization's page: counts of each kind by state, and the conditions that are not True longest, with how
 * many there are of each kind and a link to each kind's whole list. */
export function orgPage(viewer: Viewer, o: {
  slug: string; role: string; counts: Record<OverviewKind, Record<ResourceState, number>>; attention: Attention[]; pending: Record<AttentionKind, number>;
  now: number; live?: string;
}): string {
  const kinds = Object.keys(KIND_LABELS) as OverviewKind[];
  const states = Object.keys(STATE_LABELS) as ResourceState[];
  const countRows = kinds.map((k) => html`<tr><th scope="row">${KIND_LABELS[k]}</th>${states.map((st) => html`<td>${o.counts[k][st]}</td>`)}<td>${states.reduce((n, st) => n + o.counts[k][st], 0)}</td></tr>`);
  const more = ATTENTION_KINDS.reduce((n, k) => n + o.pending[k], 0) - o.attention.length;
  const perKind = ATTENTION_KINDS.filter((k) => o.pending[k] > 0)
    .map((k) => html`<li><a href="${attentionHref(o.slug, k)}">${KIND_LABELS[k]}: ${o.pending[k]} not True</a></li>`);
  return page(o.slug, viewer, html`<p>Your role: ${o.role}.</p>
<ul>${AREAS.filter((a) => a.role !== 'admin' || o.role === 'admin').map((a) => html`<li><a href="/console/orgs/${encodeURIComponent(o.slug)}/${a.path}">${a.label}</a></li>`)}</ul>
<table><caption>Resources by state</caption><thead><tr><th scope="col">Kind</th>${states.map((st) => html`<th scope="col">${STATE_LABELS[st]}</th>`)}<th scope="col">Total</th></tr></thead>
<tbody>${countRows}</tbody></table>
<h2>Needs attention</h2>
${o.attention.length === 0 ? html`<p>Nothing: every condition is True.</p>` : html`${attentionTable('Conditions that are not True, longest first', o.attention, o.now)}
${more > 0 ? html`<p>And ${more} more.</p>` : null}<p>Each kind's whole list, longest first:</p><ul>${perKind}</ul>`}`, o.live);
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

/** What a list page says when it lists nothing: on the first page the organization has none yet, and `how` says how
 * one is added (the console adds few kinds itself: most are the API's); a later page is past the list's end. */
export const emptyList = (what: string, first: boolean, how: Html): Html => (first
  ? html`<p>There are no ${what} yet. ${how}</p>`
  : html`<p>No ${what} on this page: the list ended before it.</p>`);

/** How to add what the console cannot: the API's operation, and its reference. */
export const byTheApi = (operation: string): Html => html`They are added with the API: <code>${operation}</code> (see <a href="/docs">the API reference</a>).`;

/** A "Next page" link that goes on with the operation's cursor (none on the last page); `href` may have a query of
 * its own (a page's filters). */
export const nextLink = (href: string, cursor: string | null): Html | null =>
  (cursor === null ? null : html`<p><a rel="next" href="${href}${href.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}">Next page</a></p>`);

/** A resource's conditions as a table, each with how long it has been so (or `none` when there are none yet). */
export function conditionsTable(of: string, conditions: readonly Condition[], now: number, none: string): Html {
  const rows = conditions.map((c) => html`<tr><td>${c.type}</td><td>${c.status}</td><td>${c.reason}</td><td>${c.message}</td><td>${ago(c.lastTransitionTime, now)}</td></tr>`);
  return rows.length === 0 ? html`<p>${none}</p>` : html`<table><caption>Conditions of ${of}</caption><thead><tr><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">Message</th><th scope="col">Since</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}
