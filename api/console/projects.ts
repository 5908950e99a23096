/**
 * The console's project pages (issue 24 item 3): the organization's projects paged, and a project with its
 * placements per node (applied or pending), its secrets (names, versions and rollout per node; never values), its
 * deployment access (mode, whether a password and a bypass secret are set, never either), its sign-in providers
 * (client ids, never client secrets) and its storage used against the plan's quota. Every read and the admin's
 * access form go through the operations (getProject, listSecrets, getSecret, getAccess, setAccess,
 * revokeAccessBypass, getAuth, getStorage), so what a role may see or change is theirs to say.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Condition } from '../../lib/conditions';
import { AppError, type ErrorBody } from '../../lib/errors';
import { resourceState, type ResourceState } from '../../rules/resource-state';
import { roleAtLeast } from '../../store/accounts';
import { ACCESS_MODES } from '../../store/access';
import { accessOps } from '../access';
import { authOps } from '../auth';
import { invokeAs, memberScope } from '../ops';
import { projectOps } from '../projects';
import { secretOps } from '../secrets';
import { storageOps } from '../storage';
import { ago, byTheApi, conditionsTable, emptyList, html, nextLink, page, STATE_LABELS, type Html, type Viewer } from './html';
import { formAgain, formError, formField, mountConfirmedDelete, mountListWithCreate, type FormState } from './forms';
import { cursorOf, field, ifMatch, opOf, type Kit, type SignedIn } from './kit';

const listProjects = opOf(projectOps, 'listProjects');
const getProject = opOf(projectOps, 'getProject');
const listSecrets = opOf(secretOps, 'listSecrets');
const getSecret = opOf(secretOps, 'getSecret');
const getAccess = opOf(accessOps, 'getAccess');
const setAccess = opOf(accessOps, 'setAccess');
const revokeAccessBypass = opOf(accessOps, 'revokeAccessBypass');
const getAuth = opOf(authOps, 'getAuth');
const getStorage = opOf(storageOps, 'getStorage');
const createProject = opOf(projectOps, 'createProject');
const deleteProject = opOf(projectOps, 'deleteProject');
const setSecret = opOf(secretOps, 'setSecret');
const deleteSecret = opOf(secretOps, 'deleteSecret');

export interface ProjectListed { name: string; hostname: string; database: boolean; createdAt: string; deletingSince: string | null }
export interface PlacementView {
  nodeId: string; version: number | null; appliedVersion: number | null; applied: boolean; failure: string | null; reportedAt: string | null;
}
export interface ProjectView extends ProjectListed {
  placements: PlacementView[];
  cleanup: { hostnames: string[]; nodes: string[] } | null;
}
export interface RolloutView { nodeId: string; state: 'applied' | 'pending'; failure: string | null }
export interface SecretView { name: string; version: number; updatedAt: string; rollout: RolloutView[]; etag: string }
export interface AccessView { mode: string; hasPassword: boolean; hasBypass: boolean; updatedAt: string | null; rollout: RolloutView[]; etag: string }
export interface AuthView { granted: boolean; settings: { sessionDays: number } | null; providers: { provider: string; clientId: string }[] }
export interface StorageView { granted: boolean; prefix: string | null; quotaBytes: number | null; usedBytes: number | null; usedBytesAt: string | null; conditions: Condition[] }

export const projectsPath = (slug: string): string => `/console/orgs/${encodeURIComponent(slug)}/projects`;
export const projectPath = (slug: string, project: string): string => `${projectsPath(slug)}/${encodeURIComponent(project)}`;

// A project has no reconciled status of its own (its rollouts are per node): present or being deleted, as the
// organization's page counts it (store/overview.ts).
const stateOfProject = (p: ProjectListed): ResourceState => resourceState({ generation: 0, observedGeneration: 0, conditions: [], deletingSince: p.deletingSince });

/** The form that creates a project (createProject), for those its role lets. */
const createProjectForm = (viewer: Viewer, slug: string, state: FormState | undefined): Html => html`<h2>Create a project</h2>
${formError(state)}
<form method="post" action="${projectsPath(slug)}">
<input type="hidden" name="csrf" value="${viewer.csrf}">
${formField('create-project', state, { name: 'name', label: 'Project name', hint: 'a-z, 0-9 and inner hyphens; its default hostname is <name>.<app domain>', required: true })}
${formField('create-project', state, { name: 'database', label: 'With a database', type: 'checkbox' })}
<button type="submit">Create project</button>
</form>`;

/** The organization's projects, one page of them, each with its state and default hostname; with `canCreate` the
 * form that creates one (shown again with `form` after a refusal). */
export function projectsPage(viewer: Viewer, o: {
  slug: string; projects: ProjectListed[]; first: boolean; nextCursor: string | null; canCreate: boolean; form?: FormState; live?: string;
}): string {
  const rows = o.projects.map((p) => html`<tr><td><a href="${projectPath(o.slug, p.name)}">${p.name}</a></td><td>${STATE_LABELS[stateOfProject(p)]}</td><td>${p.hostname}</td><td>${p.database ? 'Yes' : 'No'}</td></tr>`);
  return page(`Projects of ${o.slug}`, viewer, html`<p><a href="/console/orgs/${encodeURIComponent(o.slug)}">Back to ${o.slug}</a></p>
${o.projects.length === 0 ? emptyList('projects', o.first, o.canCreate ? html`Create one below.` : byTheApi(`POST /v1/orgs/${o.slug}/projects`)) : html`<table><caption>Projects by name</caption><thead><tr><th scope="col">Project</th><th scope="col">State</th><th scope="col">Default hostname</th><th scope="col">Database</th></tr></thead>
<tbody>${rows}</tbody></table>`}
${nextLink(projectsPath(o.slug), o.nextCursor)}
${o.canCreate ? createProjectForm(viewer, o.slug, o.form) : null}`, o.live);
}

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
/** Bytes in the largest binary unit under which they are at least 1 ("1.5 MiB"). */
export function bytesText(n: number): string {
  let unit = 0;
  let v = n;
  while (v >= 1024 && unit < UNITS.length - 1) {
    v /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${n} bytes` : `${v.toFixed(1)} ${UNITS[unit]}`;
}

const rolloutText = (rollout: RolloutView[]): Html => (rollout.length === 0
  ? html`on no node yet`
  : html`<ul>${rollout.map((r) => html`<li>${r.nodeId}: ${r.state === 'applied' ? 'applied' : 'pending'}${r.failure === null ? null : html` (${r.failure})`}</li>`)}</ul>`);

function placementsSection(o: { placements: PlacementView[]; now: number }): Html {
  if (o.placements.length === 0) return html`<p>On no node yet: a project is placed at its first deploy.</p>`;
  const rows = o.placements.map((p) => html`<tr><td>${p.nodeId}</td><td>${p.version ?? 'not built yet'}</td><td>${p.appliedVersion ?? 'none reported'}</td>
<td>${p.applied ? 'Applied' : 'Pending'}</td><td>${p.failure ?? ''}</td><td>${p.reportedAt === null ? 'never' : ago(p.reportedAt, o.now)}</td></tr>`);
  return html`<table><caption>Nodes the project is placed on</caption><thead><tr><th scope="col">Node</th><th scope="col">Bundle that carries it</th><th scope="col">Bundle the node runs it at</th><th scope="col">Rollout</th><th scope="col">Why its worker does not run</th><th scope="col">Last report</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

/** The form that sets a secret (setSecret): a new one, or a new version of one; its value is never filled back. */
const setSecretForm = (viewer: Viewer, at: string, state: FormState | undefined): Html => html`<h3>Set a secret</h3>
${formError(state)}
<form method="post" action="${at}/secrets">
<input type="hidden" name="csrf" value="${viewer.csrf}">
${formField('set-secret', state, { name: 'secretName', label: 'Name', hint: 'as the worker reads it: API_KEY; an existing name gets a new version', required: true })}
${formField('set-secret', state, { name: 'value', label: 'Value', hint: 'never shown again', type: 'textarea', secret: true, required: true, attrs: html` autocomplete="off" spellcheck="false"` })}
<button type="submit">Set secret</button>
</form>`;

/** A secret's delete button, naming the version the page showed (If-Match), so a value set since is not deleted unseen. */
const deleteSecretForm = (viewer: Viewer, at: string, s: SecretView): Html => html`<form method="post" action="${at}/secrets/delete">
<input type="hidden" name="csrf" value="${viewer.csrf}"><input type="hidden" name="secretName" value="${s.name}"><input type="hidden" name="etag" value="${s.etag}">
<button type="submit" class="danger">Delete ${s.name}</button></form>`;

function secretsSection(viewer: Viewer, o: { at: string; secrets: SecretView[] | null; nextCursor: string | null; now: number; form?: FormState }): Html {
  if (o.secrets === null) return html`<p>Secret names and versions are shown to members and admins.</p>`;
  const rows = o.secrets.map((s) => html`<tr><td>${s.name}</td><td>${s.version}</td><td>${ago(s.updatedAt, o.now)}</td><td>${rolloutText(s.rollout)}</td><td>${deleteSecretForm(viewer, o.at, s)}</td></tr>`);
  // Those who see the secrets are those who set and delete them: listSecrets, setSecret and deleteSecret share their role.
  return html`${o.secrets.length === 0 ? html`<p>No secrets on this page.</p>` : html`<p>Values are never shown: they go to the nodes sealed in their bundles.</p>
<table><caption>Secrets by name</caption><thead><tr><th scope="col">Name</th><th scope="col">Version</th><th scope="col">Set</th><th scope="col">Rollout of this version</th><th scope="col">Delete</th></tr></thead>
<tbody>${rows}</tbody></table>
${nextLink(o.at, o.nextCursor)}`}
${setSecretForm(viewer, o.at, o.form)}`;
}

const MODE_LABELS: Record<string, string> = { public: 'Public: anyone', org: 'Organization: members and admins signed in', password: 'Password: one shared password' };

function accessSection(viewer: Viewer, o: { at: string; access: AccessView; canChange: boolean; now: number }): Html {
  const a = o.access;
  return html`<p>Mode: ${MODE_LABELS[a.mode] ?? a.mode}${a.updatedAt === null ? ' (never set)' : html`, set ${ago(a.updatedAt, o.now)}`}.
A password is ${a.hasPassword ? 'set' : 'not set'}; a bypass secret is ${a.hasBypass ? 'set' : 'not set'} (neither is ever shown).</p>
<p>Enforced: ${rolloutText(a.rollout)}</p>
${o.canChange ? html`<form method="post" action="${o.at}/access">
<input type="hidden" name="csrf" value="${viewer.csrf}"><input type="hidden" name="etag" value="${a.etag}">
<label for="access-mode">Access mode</label><select id="access-mode" name="mode">${ACCESS_MODES.map((m) => html`<option value="${m}"${m === a.mode ? html` selected` : null}>${MODE_LABELS[m]!}</option>`)}</select>
<label for="access-password">New shared password (password mode; empty keeps the stored one)</label><input id="access-password" name="password" type="password" autocomplete="new-password" minlength="8">
<button type="submit">Set access</button>
</form>
${a.hasBypass ? html`<form method="post" action="${o.at}/access/bypass/revoke"><input type="hidden" name="csrf" value="${viewer.csrf}"><button type="submit" class="danger">Revoke the bypass secret</button></form>` : null}` : null}`;
}

function signInSection(auth: AuthView): Html {
  if (!auth.granted && auth.providers.length === 0) return html`<p>No sign-in: the project has no grant and no providers.</p>`;
  const rows = auth.providers.map((p) => html`<tr><td>${p.provider}</td><td>${p.clientId}</td></tr>`);
  return html`<p>${auth.granted ? `Granted; sessions last ${auth.settings!.sessionDays} days.` : 'Not granted: the providers below are kept for a grant again.'}</p>
${rows.length === 0 ? html`<p>No providers registered.</p>` : html`<table><caption>Sign-in providers (client secrets are never shown)</caption><thead><tr><th scope="col">Provider</th><th scope="col">Client id</th></tr></thead>
<tbody>${rows}</tbody></table>`}`;
}

function storageSection(st: StorageView, now: number): Html {
  if (!st.granted) return html`<p>No storage grant.</p>`;
  const used = st.usedBytes === null
    ? html`No node has reported usage yet`
    : html`${bytesText(st.usedBytes)} used of ${bytesText(st.quotaBytes!)}, reported ${ago(st.usedBytesAt!, now)}`;
  return html`<p>${used}. Prefix <code>${st.prefix}</code>.</p>`;
}

/** A project: its placements, secrets, access, sign-in and storage, and the conditions of its storage grant; or,
 * while it is being deleted, what its deletion waits for. */
export function projectPage(viewer: Viewer, o: {
  slug: string; project: ProjectView; secrets: SecretView[] | null; secretsCursor: string | null;
  access: AccessView | null; auth: AuthView | null; storage: StorageView | null; canChangeAccess: boolean; canDelete: boolean; now: number; secretForm?: FormState;
  live?: string; }): string {
  const p = o.project;
  const at = projectPath(o.slug, p.name);
  const head = html`<p><a href="${projectsPath(o.slug)}">Back to the projects of ${o.slug}</a></p>
<p>State: ${STATE_LABELS[stateOfProject(p)]}. Default hostname ${p.hostname}; ${p.database ? 'with' : 'without'} a database; created ${ago(p.createdAt, o.now)}.</p>`;
  // Its deletion released its placements at once: the nodes still running it are what the cleanup waits for.
  if (p.cleanup !== null) {
    return page(p.name, viewer, html`${head}
<h2>Being deleted</h2>
<p>Its deletion was asked ${ago(p.deletingSince!, o.now)}; it waits for: ${[...p.cleanup.nodes.map((n) => `node ${n}`), ...p.cleanup.hostnames.map((h) => `hostname ${h}`)].join(', ') || 'nothing more'}.</p>`, o.live);
  }
  return page(p.name, viewer, html`${head}
<h2>Placements</h2>
${placementsSection({ placements: p.placements, now: o.now })}
<h2>Secrets</h2>
${secretsSection(viewer, { at, secrets: o.secrets, nextCursor: o.secretsCursor, now: o.now, form: o.secretForm })}
<h2>Deployment access</h2>
${accessSection(viewer, { at, access: o.access!, canChange: o.canChangeAccess, now: o.now })}
<h2>Sign-in providers</h2>
${signInSection(o.auth!)}
<h2>Storage</h2>
${storageSection(o.storage!, o.now)}
<h2>Conditions</h2>
${conditionsTable(`the storage of ${p.name}`, o.storage!.conditions, o.now, 'None: the project has no storage grant.')}
${o.canDelete ? html`<h2>Delete this project</h2><p><a href="${at}/delete">Delete ${p.name}…</a> (you will be asked to type its name)</p>` : null}`, o.live);
}

/** A refusal of createProject in the console's words: the plan's project limit says what to do about it. */
const projectRefusal = (error: ErrorBody): string => {
  if (error.code !== 'project_limit') return error.message;
  const d = error.details as { limit: number; count: number; plan: string };
  return `The ${d.plan} plan allows ${d.limit} projects and this organization has ${d.count}: delete a project first, or ask an operator for a larger plan.`;
};

/** Mounts the project pages; `pageSizes` are the projects and the secrets a page shows at once. */
export function mountProjectPages(router: Router, kit: Kit, pageSizes: { projects: number; secrets: number }): void {
  const { deps } = kit;
  // Created, the project's page; refused (a taken name, the plan's limit), the list again with the form as it was sent.
  mountListWithCreate(router, kit, {
    path: '/console/orgs/:slug/projects', page: 'the projects page', main: 'name', message: projectRefusal,
    load: async (ctx, s, orgSlug) => (await invokeAs(listProjects, deps, ctx, s.principal, { params: { orgSlug }, query: { limit: String(pageSizes.projects), ...cursorOf(ctx) } }))
      .body as { items: ProjectListed[]; nextCursor: string | null },
    render: (ctx, s, scope, listed, o) => projectsPage(kit.viewerOf(s), {
      slug: scope.org.slug, projects: listed.items, first: ctx.query.cursor === undefined, nextCursor: listed.nextCursor, canCreate: roleAtLeast(scope.role, createProject.role!), ...o,
    }),
    create: async (ctx, s, orgSlug, form) => {
      const name = field(form, 'name');
      await invokeAs(createProject, deps, ctx, s.principal, { params: { orgSlug }, body: { name, database: form.get('database') === 'true' } });
      return projectPath(orgSlug, name);
    },
  });

  /** A project's page: what it shows, read with the viewer's roles, and how it is rendered. */
  const projectPageOf = async (ctx: Context, s: SignedIn) => {
    const orgSlug = String(ctx.params.slug);
    const scope = await memberScope(deps, s.principal, orgSlug, { operationId: 'the project page', role: 'viewer' });
    const params = { orgSlug, projectName: String(ctx.params.project) };
    const run = (op: typeof getProject, query?: unknown) => invokeAs(op, deps, ctx, s.principal, { params, query });
    // What the page shows, read again for each live poll: it changes with its secrets, placements, nodes and grants.
    const load = async () => {
      const project = JSON.parse((await run(getProject)).json!) as ProjectView;
      if (project.cleanup !== null) return { project, secrets: null, secretsCursor: null, access: null, auth: null, storage: null };
      return { project, ...await details() };
    };
    const details = async () => {
      let secrets: SecretView[] | null = null;
      let secretsCursor: string | null = null;
      if (roleAtLeast(scope.role, listSecrets.role!)) {
        const listed = (await run(listSecrets, { limit: String(pageSizes.secrets), ...cursorOf(ctx) })).body as { items: { name: string }[]; nextCursor: string | null };
        secretsCursor = listed.nextCursor;
        // Each with its rollout; one deleted since the list is left out rather than failing the page.
        const read = await Promise.all(listed.items.map(async ({ name }) => {
          try {
            const reply = await invokeAs(getSecret, deps, ctx, s.principal, { params: { ...params, secretName: name } });
            return { ...(reply.body as Omit<SecretView, 'etag'>), etag: reply.headers!.ETag! };
          } catch (e) {
            if (e instanceof AppError && e.status === 404) return null;
            throw e;
          }
        }));
        secrets = read.filter((x) => x !== null);
      }
      const accessReply = await run(getAccess);
      return {
        secrets, secretsCursor,
        access: { ...(accessReply.body as Omit<AccessView, 'etag'>), etag: accessReply.headers!.ETag! },
        auth: (await run(getAuth)).body as AuthView,
        storage: (await run(getStorage)).body as StorageView,
      };
    };
    const render = (data: Awaited<ReturnType<typeof load>>, o: { live?: string; secretForm?: FormState }) => projectPage(kit.viewerOf(s), {
      slug: orgSlug, ...data, now: deps.store.clock().getTime(), canChangeAccess: roleAtLeast(scope.role, 'admin'), canDelete: roleAtLeast(scope.role, deleteProject.role!), ...o,
    });
    return { params, scope, load, render };
  };
  router.get('/console/orgs/:slug/projects/:project', kit.signedIn(async (ctx, s) => {
    const { scope, load, render } = await projectPageOf(ctx, s);
    await kit.live(ctx, { kind: '*', key: '', orgId: scope.org.id }, load, (data, live) => render(data, { live }));
  }));

  // Set, back to the project; refused (a reserved name, the plan's bytes), the project's page again with the name kept.
  router.post('/console/orgs/:slug/projects/:project/secrets', kit.signedInForm(async (ctx, s, form) => {
    const { params, load, render } = await projectPageOf(ctx, s);
    const back = projectPath(params.orgSlug, params.projectName);
    const done = await formAgain(kit, ctx, s, form, {
      back: { href: back, label: `Reload ${params.projectName}` }, main: 'secretName',
      attempt: async () => { await invokeAs(setSecret, deps, ctx, s.principal, { params: { ...params, secretName: field(form, 'secretName') }, body: { value: form.get('value') ?? '' } }); },
      again: async (state) => render(await load(), { secretForm: state }),
    });
    if (done) kit.redirect(ctx, back);
  }));

  mountConfirmedDelete(router, kit, {
    area: 'projects', param: 'projectName', op: deleteProject, what: 'project',
    consequence: 'Its hostnames, secrets, grants, access and sign-in settings and placements are deleted with it; the nodes stop its workers at their next bundle.',
  });

  /** An access form: runs `op` for the project, then back to its page; a refusal is a page leading back there. */
  const accessForm = (run: (ctx: Context, s: SignedIn, form: URLSearchParams, params: { orgSlug: string; projectName: string }) => Promise<unknown>) =>
    kit.signedInForm(async (ctx, s, form) => {
      const params = { orgSlug: String(ctx.params.slug), projectName: String(ctx.params.project) };
      const back = projectPath(params.orgSlug, params.projectName);
      const done = await kit.formOutcome(ctx, s, { href: back, label: `Reload ${params.projectName}` }, async () => { await run(ctx, s, form, params); },
        (status, error) => (status === 412 ? 'The access policy changed since this page showed it (someone else set it). Reload the project to see it as it is now, then make your change again.' : error));
      if (done) kit.redirect(ctx, back);
    });

  router.post('/console/orgs/:slug/projects/:project/access', accessForm((ctx, s, form, params) => {
    const password = form.get('password') ?? '';
    return invokeAs(setAccess, deps, ctx, s.principal, { params, headers: ifMatch(form), body: { mode: field(form, 'mode'), ...(password === '' ? {} : { password }) } });
  }));
  router.post('/console/orgs/:slug/projects/:project/access/bypass/revoke', accessForm((ctx, s, _form, params) => invokeAs(revokeAccessBypass, deps, ctx, s.principal, { params })));
  router.post('/console/orgs/:slug/projects/:project/secrets/delete', kit.signedInForm(async (ctx, s, form) => {
    const params = { orgSlug: String(ctx.params.slug), projectName: String(ctx.params.project), secretName: field(form, 'secretName') };
    const back = projectPath(params.orgSlug, params.projectName);
    const done = await kit.formOutcome(ctx, s, { href: back, label: `Reload ${params.projectName}` },
      async () => { await invokeAs(deleteSecret, deps, ctx, s.principal, { params, headers: ifMatch(form) }); },
      (status, error) => (status === 412 ? `${params.secretName} was set again since this page showed it. Reload the project to see its version now, then delete it again if you still mean to.` : error));
    if (done) kit.redirect(ctx, back);
  }));
}
