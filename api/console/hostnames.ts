/**
 * The console's custom hostname pages (issue 24 item 3, after Vercel's domain verify): the organization's custom
 * hostnames paged with their state, and a hostname with the exact records to create, what the proofs see now, the
 * edge and certificate, and its conditions. Members add, check ("Check now": verifyHostname) and delete hostnames
 * through the operations themselves, so roles and audit are theirs. There is no getHostname operation: the pages
 * read the store after the viewer role that listHostnames asks, and show a hostname as the operations answer it.
 */
import type Router from '@koa/router';
import type { Condition } from '../../lib/conditions';
import { normalizeCustomHostname, orgOrigin } from '../../rules/hostnames';
import { resourceState, type ResourceState } from '../../rules/resource-state';
import { roleAtLeast } from '../../store/accounts';
import { hostnameOfProject, listOrgHostnames, type HostnameWithStatus } from '../../store/hostnames';
import { getProject } from '../../store/projects';
import { fallbackOf, hostnameBody, hostnameOps, hostnameTag } from '../hostnames';
import { invokeAs, memberScope, type AnyOp, type Deps } from '../ops';
import { ago, conditionsTable, emptyList, html, nextLink, page, STATE_LABELS, type Html, type Viewer } from './html';
import { field, ifMatch, opOf, storeCursor, type Kit } from './kit';

const addHostname = opOf(hostnameOps, 'addHostname');
const deleteHostname = opOf(hostnameOps, 'deleteHostname');
const verifyHostname = opOf(hostnameOps, 'verifyHostname');

type HostParams = { orgSlug: string; projectName: string; host: string };

/** A custom hostname as the operations answer it, with what the console adds: its state, project, tag and checks. */
export type HostnameView = ReturnType<typeof hostnameBody> & {
  project: string; state: ResourceState; etag: string; proof: string | null; checkedAt: string | null; certificate: string | null;
};

export const hostnamesPath = (slug: string): string => `/console/orgs/${encodeURIComponent(slug)}/hostnames`;
export const hostnamePath = (slug: string, project: string, host: string): string =>
  `/console/orgs/${encodeURIComponent(slug)}/projects/${encodeURIComponent(project)}/hostnames/${encodeURIComponent(host)}`;

const STATUS_LABELS: Record<HostnameView['status'], string> = { pending_dns: 'Waiting for a DNS proof', active: 'Active (verified and routed)' };
const PROOF_LABELS: Record<string, string> = { zone: 'the organization runs its zone here', txt: 'the TXT record', cname: 'the CNAME record' };
/** The conditions that say how the edge serves an active name. */
const EDGE_CONDITIONS = ['EdgeConfigured', 'CertificateReady', 'Resolves', 'ManagedRecord'];

function viewOf(deps: Deps, orgId: number, project: string, h: HostnameWithStatus): HostnameView {
  const body = hostnameBody(h, orgOrigin(fallbackOf(deps), orgId));
  const state = resourceState({ generation: h.generation, observedGeneration: h.observed?.observedGeneration ?? null, conditions: body.conditions as Condition[], deletingSince: null });
  return {
    ...body, project, state, etag: hostnameTag(h), proof: h.proof, checkedAt: h.observed?.reconciledAt ?? null, certificate: h.observed?.facts.edge?.certificate ?? null,
  };
}

/** The organization's custom hostnames, one page of them; with `canEdit` a form to add one to a project. */
export function hostnamesPage(viewer: Viewer, o: { slug: string; hostnames: HostnameView[]; first: boolean; nextCursor: string | null; canEdit: boolean; live?: string }): string {
  const rows = o.hostnames.map((h) => html`<tr><td><a href="${hostnamePath(o.slug, h.project, h.name)}">${h.name}</a></td><td>${h.project}</td><td>${STATE_LABELS[h.state]}</td><td>${STATUS_LABELS[h.status]}</td></tr>`);
  return page(`Custom hostnames of ${o.slug}`, viewer, html`<p><a href="/console/orgs/${encodeURIComponent(o.slug)}">Back to ${o.slug}</a></p>
${o.hostnames.length === 0 ? emptyList('custom hostnames', o.first, o.canEdit ? html`Add one to a project with the form below.` : html`Members and admins add them.`) : html`<table><caption>Custom hostnames by name</caption><thead><tr><th scope="col">Hostname</th><th scope="col">Project</th><th scope="col">State</th><th scope="col">Status</th></tr></thead>
<tbody>${rows}</tbody></table>`}
${nextLink(hostnamesPath(o.slug), o.nextCursor)}
${o.canEdit ? html`<h2>Add a custom hostname</h2>
<form method="post" action="${hostnamesPath(o.slug)}">
<input type="hidden" name="csrf" value="${viewer.csrf}">
<label for="add-project">Project (its name, as the projects page lists it)</label><input id="add-project" name="project" type="text" required>
<label for="add-name">Hostname (www.example.com)</label><input id="add-name" name="name" type="text" required>
<button type="submit">Add</button>
</form>` : null}`, o.live);
}

/** A value to put into DNS: selected whole by a click, and copied by the Copy button the console's script adds. */
const copyable = (value: string, what: string): Html => html`<code class="copy" data-what="${what}">${value}</code>`;

function recordsSection(h: HostnameView): Html {
  if (h.kind === 'default') return html`<p>The project's default hostname: the service routes it, there is nothing to create.</p>`;
  const rows = h.verify.map((r) => html`<tr><td>${r.type}</td><td>${copyable(r.name, `the ${r.type} record's name`)}</td><td>${copyable(r.value, `the ${r.type} record's value`)}</td></tr>`);
  return html`<p>Create one of these records at your DNS provider; either one proves the name is yours. At a zone apex, where a CNAME cannot be, use the TXT record.
If the organization runs the name's zone here, neither is needed.</p>
<table><caption>Records that prove ownership of ${h.name}</caption><thead><tr><th scope="col">Type</th><th scope="col">Name</th><th scope="col">Value</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function proofsSection(h: HostnameView, now: number): Html {
  const checked = h.checkedAt === null ? html`Not checked yet.` : html`Last checked ${ago(h.checkedAt, now)}.`;
  if (h.status === 'active') {
    return html`<p>Verified ${h.verifiedAt === null ? null : ago(h.verifiedAt, now)} by ${PROOF_LABELS[h.proof ?? ''] ?? 'a proof'}. ${checked}</p>
${h.lastError === null ? null : html`<p class="error">The edge reports: ${h.lastError}</p>`}`;
  }
  return html`<p>${checked}</p>${h.lastError === null
    ? html`<p>No proof has been judged yet: the check runs every minute, or now with "Check now".</p>`
    : html`<p class="error">What the proofs see: ${h.lastError}</p>`}`;
}

function edgeSection(h: HostnameView, now: number): Html {
  if (h.status !== 'active') return html`<p>The edge and the certificate are set up once a proof passes.</p>`;
  const edge = h.conditions.filter((c) => EDGE_CONDITIONS.includes(c.type)) as Condition[];
  return html`<p>Certificate: ${h.certificate ?? 'not reported by the edge yet'}.</p>
${conditionsTable(`the edge for ${h.name}`, edge, now, 'The edge has not reported on this name yet.')}`;
}

/** A custom hostname: the records to create, what the proofs see, the edge and certificate, its conditions; with
 * `canEdit` (a member or above) "Check now" and delete. `checked` says the page follows a "Check now". */
export function hostnamePage(viewer: Viewer, o: { slug: string; hostname: HostnameView; canEdit: boolean; checked: boolean; now: number; live?: string }): string {
  const h = o.hostname;
  const at = hostnamePath(o.slug, h.project, h.name);
  const outcome = h.status === 'active' ? 'a proof passed: the name is active.' : 'no proof passed yet; what the proofs see is below.';
  return page(h.name, viewer, html`<p><a href="${hostnamesPath(o.slug)}">Back to the custom hostnames of ${o.slug}</a></p>
${o.checked ? html`<p class="notice" role="status">Checked just now: ${outcome}</p>` : null}
<p>Project ${h.project}. State: ${STATE_LABELS[h.state]}. ${STATUS_LABELS[h.status]}. Added ${ago(h.createdAt, o.now)}.</p>
${o.canEdit ? html`<form method="post" action="${at}/verify"><input type="hidden" name="csrf" value="${viewer.csrf}"><button type="submit">Check now</button></form>` : null}
<h2>DNS records to create</h2>
${recordsSection(h)}
<h2>What the proofs see</h2>
${proofsSection(h, o.now)}
<h2>Edge and certificate</h2>
${edgeSection(h, o.now)}
<h2>Conditions</h2>
${conditionsTable(h.name, h.conditions as Condition[], o.now, 'None yet: the reconciler has not looked at this name.')}
${o.canEdit ? html`<h2>Delete</h2>
<p>The name is free at once; the edge's hostname and any managed record are removed after.</p>
<form method="post" action="${at}/delete"><input type="hidden" name="csrf" value="${viewer.csrf}"><input type="hidden" name="etag" value="${h.etag}">
<button type="submit" class="danger">Delete ${h.name}</button></form>` : null}`, o.live);
}

/** Mounts the custom hostname pages; `pageSize` is the hostnames a list page shows at once. */
export function mountHostnamePages(router: Router, kit: Kit, pageSize: number): void {
  const { deps } = kit;
  const need = { operationId: 'the custom hostname pages', role: 'viewer' } as const;

  router.get('/console/orgs/:slug/hostnames', kit.signedIn(async (ctx, s) => {
    const scope = await memberScope(deps, s.principal, String(ctx.params.slug), need);
    const cursor = storeCursor(ctx);
    await kit.live(ctx, { kind: '*', key: '', orgId: scope.org.id }, () => listOrgHostnames(deps.store, scope.org.id, pageSize, cursor), (list, live) => hostnamesPage(kit.viewerOf(s), {
      slug: scope.org.slug, hostnames: list.items.map((h) => viewOf(deps, scope.org.id, h.projectName, h)), first: ctx.query.cursor === undefined, nextCursor: list.nextCursor, canEdit: roleAtLeast(scope.role, 'member'), live,
    }));
  }));

  router.get('/console/orgs/:slug/projects/:project/hostnames/:host', kit.signedIn(async (ctx, s) => {
    const scope = await memberScope(deps, s.principal, String(ctx.params.slug), need);
    const project = await getProject(deps.store, scope.org.id, String(ctx.params.project));
    const name = normalizeCustomHostname(String(ctx.params.host));
    await kit.live(ctx, { kind: 'hostname', key: name, orgId: scope.org.id }, () => hostnameOfProject(deps.store, project.id, name), (h, live) => hostnamePage(kit.viewerOf(s), {
      slug: scope.org.slug, hostname: viewOf(deps, scope.org.id, project.name, h), canEdit: roleAtLeast(scope.role, 'member'),
      checked: ctx.query.checked !== undefined, now: deps.store.clock().getTime(), live,
    }));
  }));

  router.post('/console/orgs/:slug/hostnames', kit.signedInForm(async (ctx, s, form) => {
    const orgSlug = String(ctx.params.slug);
    const projectName = field(form, 'project');
    let added = '';
    const done = await kit.formOutcome(ctx, s, { href: hostnamesPath(orgSlug), label: 'Back to the custom hostnames' }, async () => {
      const reply = await invokeAs(addHostname, deps, ctx, s.principal, { params: { orgSlug, projectName }, body: { name: field(form, 'name') } });
      added = (reply.body as { name: string }).name;
    });
    if (done) kit.redirect(ctx, hostnamePath(orgSlug, projectName, added));
  }));

  /** A form on a hostname's page that runs `op` on it; its refusals are pages that lead back to the hostname. */
  const hostnameForm = (op: AnyOp, headers: (form: URLSearchParams) => Record<string, string>, after: (p: HostParams) => string) =>
    kit.signedInForm(async (ctx, s, form) => {
      const params: HostParams = { orgSlug: String(ctx.params.slug), projectName: String(ctx.params.project), host: String(ctx.params.host) };
      const done = await kit.formOutcome(ctx, s, { href: hostnamePath(params.orgSlug, params.projectName, params.host), label: `Reload ${params.host}` },
        async () => { await invokeAs(op, deps, ctx, s.principal, { params, headers: headers(form) }); },
        (status, error) => (status === 412 ? `${params.host} changed since this page showed it. Reload it to see it as it is now.` : error));
      if (done) kit.redirect(ctx, after(params));
    });

  router.post('/console/orgs/:slug/projects/:project/hostnames/:host/verify', hostnameForm(
    verifyHostname, () => ({}), (p) => `${hostnamePath(p.orgSlug, p.projectName, p.host)}?checked=1`,
  ));
  router.post('/console/orgs/:slug/projects/:project/hostnames/:host/delete', hostnameForm(deleteHostname, ifMatch, (p) => hostnamesPath(p.orgSlug)));
}
