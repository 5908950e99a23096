/**
 * The console's forms that make and delete things (issue 24): fields that say the operation's objection next to
 * themselves and keep what was entered, the refusal of such a form shown as the form again, and the step that asks
 * for a name to be typed again before a deletion. What is made or deleted is the operation's doing (invokeAs): its
 * roles, validation, audit and idempotency.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ErrorBody } from '../../lib/errors';
import { toErrorBody } from '../errors';
import { invokeAs, memberScope, type AnyOp, type OrgScope } from '../ops';
import { errorBox, html, messagePage, page, type Html, type Viewer } from './html';
import { field, PAGE_TITLES, send, type Kit, type SignedIn } from './kit';

/** A form shown again after the operation refused it: what was entered, why, and each objection by its field. */
export interface FormState { values: URLSearchParams; message: string; fields: Record<string, string> }

/** The form field an issue's path names: `body.contact.email` is `contact.email`, `body.names[2]` is `names`,
 * `path.secretName` is `secretName` (the forms name their fields as the operations' inputs). */
export const fieldOfIssue = (path: string): string => path.replace(/\[\d+\]/g, '').replace(/^(body|path|query|header)(\.|$)/, '');

/** Each field's first objection in the error's `details.issues`; with none, `main` (the field a 400 without issues
 * concerns) holds the message, so that a handler's own refusal of a name is said next to the name. */
export function fieldsOf(error: ErrorBody, main?: string): Record<string, string> {
  const issues = (error.details as { issues?: { path: string; message: string }[] } | undefined)?.issues ?? [];
  const fields: Record<string, string> = {};
  for (const i of issues) fields[fieldOfIssue(i.path)] ??= i.message;
  if (issues.length === 0 && main !== undefined) fields[main] = error.message;
  return fields;
}

export type FieldType = 'text' | 'email' | 'tel' | 'number' | 'password' | 'textarea' | 'checkbox';

/**
 * A labelled field named as the operation's input (`contact.email`); its id is `<form>-<name>`. Shown again, it
 * keeps what was entered (never a password, nor a value marked `secret`) and says the objection to it under its label,
 * tied to it by aria-describedby. A checkbox sends `true`.
 */
export function formField(form: string, state: FormState | undefined, o: {
  name: string; label: string; type?: FieldType; value?: string; required?: boolean; secret?: boolean; attrs?: Html; hint?: string;
}): Html {
  const type = o.type ?? 'text';
  const id = `${form}-${o.name.replace(/\./g, '-')}`;
  const error = state?.fields[o.name];
  const errorId = `${id}-error`;
  const described = error === undefined ? null : html` aria-invalid="true" aria-describedby="${errorId}"`;
  const said = error === undefined ? null : html`<p id="${errorId}" class="field-error">${error}</p>`;
  const kept = o.secret || type === 'password' ? '' : state ? state.values.get(o.name) ?? '' : o.value ?? '';
  const required = o.required ? html` required` : null;
  const label = html`<label for="${id}">${o.label}${o.hint === undefined ? null : html` <span class="hint">(${o.hint})</span>`}</label>`;
  if (type === 'checkbox') {
    const checked = state ? state.values.get(o.name) === 'true' : o.value === 'true';
    return html`<p class="check"><input id="${id}" name="${o.name}" type="checkbox" value="true"${checked ? html` checked` : null}${described}> ${label}</p>${said}`;
  }
  if (type === 'textarea') {
    return html`${label}${said}<textarea id="${id}" name="${o.name}" rows="4"${required}${described}${o.attrs ?? null}>${kept}</textarea>`;
  }
  return html`${label}${said}<input id="${id}" name="${o.name}" type="${type}"${kept === '' ? null : html` value="${kept}"`}${required}${described}${o.attrs ?? null}>`;
}

/** The message of a form shown again, above its fields. */
export const formError = (state: FormState | undefined): Html | null => errorBox(state?.message);

/** A refusal of who asks rather than of what was entered: a page that says why, not the form again. */
const refusesTheCaller = (status: number): boolean => status === 401 || status === 403 || status === 404;

/**
 * Runs an operation for a form; on its refusal of what was entered (400, 402, 409, 412, 422; a provider's 502 or
 * 503) answers `again` (the form with the entered values and the objections, `main` the field a refusal without
 * issues concerns), with the refusal's status. A refusal of the caller (403 below the operation's role, 404 outside
 * the org) is a page that says so and leads to `back`. `message` puts a refusal in the console's words.
 */
export async function formAgain(kit: Kit, ctx: Context, s: SignedIn, form: URLSearchParams, o: {
  back: { href: string; label: string }; attempt: () => Promise<void>; again: (state: FormState) => string | Promise<string>; main?: string; message?: (error: ErrorBody) => string;
}): Promise<boolean> {
  try {
    await o.attempt();
    return true;
  } catch (e) {
    const { status, body: error, unexpected } = toErrorBody(e);
    if (unexpected) throw e;
    const message = o.message?.(error) ?? error.message;
    if (refusesTheCaller(status)) send(ctx, status, messagePage(PAGE_TITLES[status] ?? 'Error', kit.viewerOf(s), message, o.back));
    else send(ctx, status, await o.again({ values: form, message, fields: fieldsOf(error, status === 400 ? o.main : undefined) }));
    return false;
  }
}

/** The step before a deletion: the name typed again, as GitHub asks, so that a slip of the hand deletes nothing. */
export function confirmDeletePage(viewer: Viewer, o: { what: string; name: string; action: string; back: string; consequence: string; state?: FormState }): string {
  return page(`Delete ${o.what} ${o.name}`, viewer, html`<p><a href="${o.back}">Back to ${o.name}</a></p>
${formError(o.state)}
<p>${o.consequence}</p>
<form method="post" action="${o.action}">
<input type="hidden" name="csrf" value="${viewer.csrf}">
${formField('delete', o.state, { name: 'confirm', label: `Type ${o.name} to confirm`, required: true, attrs: html` autocomplete="off"` })}
<button type="submit" class="danger">Delete ${o.what} ${o.name}</button>
</form>`);
}

/**
 * Mounts the deletion of one of an organization's resources at `/console/orgs/<slug>/<area>/<name>/delete`: its
 * GET is the confirmation page (for those the operation's role lets delete; others get its 403 page), its POST runs
 * `op` (with `<name>` as its parameter `param`) once the name typed matches, and goes on to the area's list.
 */
export function mountConfirmedDelete(router: Router, kit: Kit, o: { area: string; param: string; op: AnyOp; what: string; consequence: string }): void {
  const need = { operationId: o.op.operationId, role: o.op.role! };
  const routeOf = (ctx: Context) => {
    const orgSlug = String(ctx.params.slug);
    const name = String(ctx.params.name);
    const list = `/console/orgs/${encodeURIComponent(orgSlug)}/${o.area}`;
    return { orgSlug, name, params: { orgSlug, [o.param]: name }, back: `${list}/${encodeURIComponent(name)}`, done: list };
  };
  const render = (ctx: Context, s: SignedIn, r: ReturnType<typeof routeOf>, state?: FormState): string =>
    confirmDeletePage(kit.viewerOf(s), { what: o.what, name: r.name, action: ctx.path, back: r.back, consequence: o.consequence, state });
  const path = `/console/orgs/:slug/${o.area}/:name/delete`;
  router.get(path, kit.signedIn(async (ctx, s) => {
    const r = routeOf(ctx);
    await memberScope(kit.deps, s.principal, r.orgSlug, need);
    send(ctx, 200, render(ctx, s, r));
  }));
  router.post(path, kit.signedInForm(async (ctx, s, form) => {
    const r = routeOf(ctx);
    await memberScope(kit.deps, s.principal, r.orgSlug, need);
    if (field(form, 'confirm') !== r.name) {
      return send(ctx, 400, render(ctx, s, r, { values: form, message: `Nothing was deleted: the name typed is not ${r.name}.`, fields: { confirm: `Type ${r.name} exactly as it is shown.` } }));
    }
    const done = await formAgain(kit, ctx, s, form, {
      back: { href: r.back, label: `Back to ${r.name}` }, main: 'confirm', again: (state) => render(ctx, s, r, state),
      attempt: async () => { await invokeAs(o.op, kit.deps, ctx, s.principal, { params: r.params }); },
    });
    if (done) kit.redirect(ctx, r.done);
  }));
}

/**
 * Mounts an organization's list page at `path` (live: it watches every change of the org) and the form under it
 * that creates one (POST to the same path): created, the browser goes to the new one's page (`create` answers
 * where); refused, the list again with the form as it was sent and why.
 */
export function mountListWithCreate<T>(router: Router, kit: Kit, o: {
  path: string; page: string; main: string; message?: (error: ErrorBody) => string;
  load: (ctx: Context, s: SignedIn, orgSlug: string) => Promise<T>;
  render: (ctx: Context, s: SignedIn, scope: OrgScope, listed: T, o: { live?: string; form?: FormState }) => string;
  create: (ctx: Context, s: SignedIn, orgSlug: string, form: URLSearchParams) => Promise<string>;
}): void {
  const scopeOf = (ctx: Context, s: SignedIn) => memberScope(kit.deps, s.principal, String(ctx.params.slug), { operationId: o.page, role: 'viewer' });
  router.get(o.path, kit.signedIn(async (ctx, s) => {
    const scope = await scopeOf(ctx, s);
    await kit.live(ctx, { kind: '*', key: '', orgId: scope.org.id }, () => o.load(ctx, s, scope.org.slug), (listed, live) => o.render(ctx, s, scope, listed, { live }));
  }));
  router.post(o.path, kit.signedInForm(async (ctx, s, form) => {
    const scope = await scopeOf(ctx, s);
    let to = '';
    const done = await formAgain(kit, ctx, s, form, {
      back: { href: ctx.path, label: 'Back to the list' }, main: o.main, message: o.message,
      attempt: async () => { to = await o.create(ctx, s, scope.org.slug, form); },
      again: async (state) => o.render(ctx, s, scope, await o.load(ctx, s, scope.org.slug), { form: state }),
    });
    if (done) kit.redirect(ctx, to);
  }));
}
