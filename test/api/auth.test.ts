/**
 * App sign-in (spec 4.2, part 3's grants table, parts 5, 6 and 7; CONTRACT.md AuthStatus, sessionDays): every
 * status and code of the six operations; roles; grant idempotent with default settings (a repeat leaves settings and
 * providers alone); 409 `database_required`; PATCH changing only what is sent, `not_granted` and `not_found`;
 * providers `github`, `google`, `kakao` only (400 `invalid_provider`, also for an empty client id or secret); client
 * secrets sealed under `auth/<provider>`, never answered, audited, logged nor listed among the secrets; `hosts`;
 * revoke and provider delete idempotent, keeping the providers; and 503 `no_core` without a core.
 */
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretContext } from '../../core/sealing';
import { orgBySlug, type Role } from '../../store/accounts';
import { activateHostname, addHostname } from '../../store/hostnames';
import { getProject } from '../../store/projects';
import { authProviders, secrets } from '../../store/schema';
import { startTestApi, type TestApi } from '../helpers/app';

const P = '/v1/orgs/acme/projects';
const auth = (project: string, rest = '') => `${P}/${project}/auth${rest}`;
const GITHUB_SECRET = 'gh-client-secret-5e1f0a7d-PLAINTEXT';
const GOOGLE_SECRET = 'google-client-secret-93b2-PLAINTEXT';

let t: TestApi;
let orgId: number;
let appId: number;
const create = async (api: TestApi, name: string, database: boolean) =>
  expect((await api.call('POST', P, { body: { name, database } })).status).toBe(201);
/** The audit records of `event` about project `app` (its target, or `app/<provider>`), newest first. */
const audit = async (event: string) => (await t.call('GET', '/v1/orgs/acme/audit?limit=1000')).body.items
  .filter((i: { event: string; target: string }) => i.event === event && /^app(\/|$)/.test(i.target));

beforeAll(async () => {
  t = await startTestApi({ plan: 'pro' });
  orgId = (await orgBySlug(t.store, 'acme'))!.id;
  await create(t, 'app', true);
  await create(t, 'nodb', false);
  await create(t, 'codes', true);
  appId = (await getProject(t.store, orgId, 'app')).id;
});
afterAll(async () => { await t.close(); });

describe('statuses and codes of spec 4.2', () => {
  // Run in order on project `codes`: each row's state is what the rows before it left.
  const rows: [string, string, string, unknown, number, string | undefined][] = [
    ['getAuth, never granted: 200, not a 404', 'GET', auth('codes'), undefined, 200, undefined],
    ['getAuth of a project that does not exist', 'GET', auth('ghost'), undefined, 404, 'not_found'],
    ['updateAuthSettings before any grant', 'PATCH', auth('codes'), { sessionDays: 7 }, 404, 'not_granted'],
    ['updateAuthSettings of a project that does not exist', 'PATCH', auth('ghost'), { sessionDays: 7 }, 404, 'not_found'],
    ['grantAuth of a project without a database', 'POST', auth('nodb'), undefined, 409, 'database_required'],
    ['grantAuth of a project that does not exist', 'POST', auth('ghost'), undefined, 404, 'not_found'],
    ['grantAuth', 'POST', auth('codes'), undefined, 200, undefined],
    ['grantAuth again', 'POST', auth('codes'), undefined, 200, undefined],
    ['updateAuthSettings sessionDays 1', 'PATCH', auth('codes'), { sessionDays: 1 }, 200, undefined],
    ['updateAuthSettings sessionDays 365', 'PATCH', auth('codes'), { sessionDays: 365 }, 200, undefined],
    ['updateAuthSettings sessionDays 0', 'PATCH', auth('codes'), { sessionDays: 0 }, 400, 'bad_request'],
    ['updateAuthSettings sessionDays 366', 'PATCH', auth('codes'), { sessionDays: 366 }, 400, 'bad_request'],
    ['updateAuthSettings sessionDays 1.5', 'PATCH', auth('codes'), { sessionDays: 1.5 }, 400, 'bad_request'],
    ['updateAuthSettings sessionDays as a string', 'PATCH', auth('codes'), { sessionDays: '30' }, 400, 'bad_request'],
    ['updateAuthSettings with an unknown field', 'PATCH', auth('codes'), { sessionDays: 30, maxSessions: 3 }, 400, 'bad_request'],
    ['setAuthProvider github', 'PUT', auth('codes', '/providers/github'), { clientId: 'id', clientSecret: 's' }, 200, undefined],
    ['setAuthProvider google', 'PUT', auth('codes', '/providers/google'), { clientId: 'id', clientSecret: 's' }, 200, undefined],
    ['setAuthProvider kakao', 'PUT', auth('codes', '/providers/kakao'), { clientId: 'id', clientSecret: 's' }, 200, undefined],
    ['setAuthProvider of another provider', 'PUT', auth('codes', '/providers/facebook'), { clientId: 'id', clientSecret: 's' }, 400, 'invalid_provider'],
    ['setAuthProvider of a provider in upper case', 'PUT', auth('codes', '/providers/GitHub'), { clientId: 'id', clientSecret: 's' }, 400, 'invalid_provider'],
    ['setAuthProvider with an empty clientId', 'PUT', auth('codes', '/providers/github'), { clientId: '', clientSecret: 's' }, 400, 'invalid_provider'],
    ['setAuthProvider with an empty clientSecret', 'PUT', auth('codes', '/providers/github'), { clientId: 'id', clientSecret: '' }, 400, 'invalid_provider'],
    ['setAuthProvider with a blank clientId', 'PUT', auth('codes', '/providers/github'), { clientId: ' \t', clientSecret: 's' }, 400, 'invalid_provider'],
    ['setAuthProvider with a blank clientSecret', 'PUT', auth('codes', '/providers/github'), { clientId: 'id', clientSecret: '  ' }, 400, 'invalid_provider'],
    // PostgreSQL's text cannot hold U+0000: stored, such a client id was a 500 there.
    ['setAuthProvider with U+0000 in clientId', 'PUT', auth('codes', '/providers/github'), { clientId: 'a\u0000b', clientSecret: 's' }, 400, 'bad_request'],
    ['setAuthProvider without clientSecret', 'PUT', auth('codes', '/providers/github'), { clientId: 'id' }, 400, 'bad_request'],
    ['setAuthProvider of a project that does not exist', 'PUT', auth('ghost', '/providers/github'), { clientId: 'id', clientSecret: 's' }, 404, 'not_found'],
    ['deleteAuthProvider', 'DELETE', auth('codes', '/providers/kakao'), undefined, 204, undefined],
    ['deleteAuthProvider again', 'DELETE', auth('codes', '/providers/kakao'), undefined, 204, undefined],
    ['deleteAuthProvider of a name that is no provider', 'DELETE', auth('codes', '/providers/facebook'), undefined, 204, undefined],
    ['deleteAuthProvider of a project that does not exist', 'DELETE', auth('ghost', '/providers/github'), undefined, 404, 'not_found'],
    ['revokeAuth', 'DELETE', auth('codes'), undefined, 204, undefined],
    ['revokeAuth again', 'DELETE', auth('codes'), undefined, 204, undefined],
    ['revokeAuth of a project that does not exist', 'DELETE', auth('ghost'), undefined, 404, 'not_found'],
    ['updateAuthSettings after the revoke', 'PATCH', auth('codes'), { sessionDays: 7 }, 404, 'not_granted'],
  ];
  it.each(rows)('%s → %i %s', async (_what, method, path, body, status, code) => {
    const r = await t.call(method, path, { body });
    expect([r.status, r.body?.code]).toEqual([status, code]);
  });

  it('another organization\'s project reads as missing (404), whatever the operation', async () => {
    for (const [method, path] of [['GET', auth('codes')], ['POST', auth('app')], ['DELETE', auth('app')], ['DELETE', auth('app', '/providers/github')]]) {
      const r = await t.call(method!, path!, { token: t.other.token });
      expect([r.status, r.body.code], `${method} ${path}`).toEqual([404, 'not_found']);
    }
  });
});

describe('grant, settings, providers', () => {
  it('a project never granted reads granted false, no settings, its hosts; with an ETag honoured by If-None-Match', async () => {
    const r = await t.call('GET', auth('app'), { token: t.tokens.viewer });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ granted: false, settings: null, providers: [], hosts: ['app.hostplane.test'] });
    const tag = r.headers.get('etag')!;
    expect((await t.call('GET', auth('app'), { token: t.tokens.viewer, headers: { 'if-none-match': tag } })).status).toBe(304);
  });

  it('grant starts at the defaults (sessionDays 30), records one change and one audit record', async () => {
    const nudges = t.nudges.length;
    const r = await t.call('POST', auth('app'), { token: t.tokens.member });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ granted: true, settings: { sessionDays: 30 }, providers: [], hosts: ['app.hostplane.test'] });
    expect(t.nudges.slice(nudges)).toEqual([{ kind: 'project', key: expect.any(String) }]);
    expect(await audit('auth.grant')).toEqual([expect.objectContaining({ target: 'app', details: { settings: { sessionDays: 30 } } })]);
    expect((await t.call('GET', `${P}/app`, { token: t.tokens.viewer })).body.grants.auth).toBe(true);
  });

  it('PATCH changes only what is sent: an empty patch keeps the settings', async () => {
    const set = await t.call('PATCH', auth('app'), { token: t.tokens.member, body: { sessionDays: 90 } });
    expect([set.status, set.body.settings]).toEqual([200, { sessionDays: 90 }]);
    const nudges = t.nudges.length;
    const none = await t.call('PATCH', auth('app'), { token: t.tokens.member, body: {} });
    expect([none.status, none.body.settings]).toEqual([200, { sessionDays: 90 }]);
    expect(none.headers.get('etag')).toBe(set.headers.get('etag'));
    expect((await audit('auth.settings')).map((a: { details: unknown }) => a.details)).toEqual([
      { set: {}, settings: { sessionDays: 90 } },
      { set: { sessionDays: 90 }, settings: { sessionDays: 90 } },
    ]);
    // Nothing changed: no bundle to rebuild.
    expect(t.nudges.length).toBe(nudges);
  });

  it('setAuthProvider answers the client id only; the secret is sealed under auth/<provider> with the project secrets\' context', async () => {
    const r = await t.call('PUT', auth('app', '/providers/github'), { body: { clientId: 'Iv1.github-app', clientSecret: GITHUB_SECRET } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ granted: true, settings: { sessionDays: 90 }, providers: [{ provider: 'github', clientId: 'Iv1.github-app' }], hosts: ['app.hostplane.test'] });
    expect(JSON.stringify(r.body)).not.toContain(GITHUB_SECRET);
    const [{ sealed }] = await t.store.db.select({ sealed: authProviders.sealedSecret }).from(authProviders)
      .where(and(eq(authProviders.projectId, appId), eq(authProviders.provider, 'github'))) as [{ sealed: string }];
    expect(sealed).not.toContain(GITHUB_SECRET);
    expect(t.sealer.open(secretContext('acme', 'app', 'auth/github'), sealed)).toBe(GITHUB_SECRET);
    expect(() => t.sealer.open(secretContext('acme', 'app', 'auth/google'), sealed)).toThrow();
    // Replacing is the same PUT.
    const again = await t.call('PUT', auth('app', '/providers/github'), { body: { clientId: 'Iv1.github-app-2', clientSecret: GITHUB_SECRET } });
    expect(again.body.providers).toEqual([{ provider: 'github', clientId: 'Iv1.github-app-2' }]);
    expect((await t.call('PUT', auth('app', '/providers/google'), { body: { clientId: 'g-id', clientSecret: GOOGLE_SECRET } })).status).toBe(200);
  });

  it('a repeated grant leaves settings and providers unchanged, with no change or audit record', async () => {
    const before = await t.call('GET', auth('app'));
    const grants = (await audit('auth.grant')).length;
    const nudges = t.nudges.length;
    const r = await t.call('POST', auth('app'), { token: t.tokens.member });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(before.body);
    expect(r.body.settings).toEqual({ sessionDays: 90 });
    expect(r.body.providers.map((p: { provider: string }) => p.provider)).toEqual(['github', 'google']);
    expect((await audit('auth.grant')).length).toBe(grants);
    expect(t.nudges.length).toBe(nudges);
  });

  it('an Idempotency-Key on grantAuth replays the first answer', async () => {
    const headers = { 'idempotency-key': 'grant-app-1' };
    const first = await t.call('POST', auth('app'), { headers });
    const second = await t.call('POST', auth('app'), { headers });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('hosts lists every routable hostname: the default and active custom ones, not a pending one', async () => {
    const add = (name: string) => addHostname(t.store, { orgId, projectId: appId, projectName: 'app', name, actor: 'test' });
    const { hostname } = await add('www.customer.example');
    await add('pending.customer.example');
    expect((await t.call('GET', auth('app'))).body.hosts).toEqual(['app.hostplane.test']);
    expect(await activateHostname(t.store, { name: 'www.customer.example', uid: hostname.uid, proof: 'txt' })).toBe(true);
    expect((await t.call('GET', auth('app'))).body.hosts).toEqual(['app.hostplane.test', 'www.customer.example']);
  });

  it('revoke keeps the providers: a grant again starts at the default settings with the same providers', async () => {
    expect((await t.call('DELETE', auth('app'))).status).toBe(204);
    const revoked = await t.call('GET', auth('app'), { token: t.tokens.viewer });
    expect(revoked.body).toMatchObject({ granted: false, settings: null, providers: [{ provider: 'github' }, { provider: 'google' }] });
    expect((await t.call('GET', `${P}/app`, { token: t.tokens.viewer })).body.grants.auth).toBe(false);
    expect(await audit('auth.revoke')).toEqual([expect.objectContaining({ target: 'app', details: { usersDeleted: false } })]);
    const again = await t.call('POST', auth('app'), { token: t.tokens.member });
    expect(again.body).toMatchObject({ granted: true, settings: { sessionDays: 30 }, providers: [{ provider: 'github', clientId: 'Iv1.github-app-2' }, { provider: 'google', clientId: 'g-id' }] });
  });

  it('deleteAuthProvider removes one provider, once (the second is 204 and records nothing)', async () => {
    expect((await t.call('DELETE', auth('app', '/providers/google'))).status).toBe(204);
    expect((await t.call('DELETE', auth('app', '/providers/google'))).status).toBe(204);
    expect((await t.call('GET', auth('app'))).body.providers).toEqual([{ provider: 'github', clientId: 'Iv1.github-app-2' }]);
    expect((await audit('auth.provider.delete')).filter((a: { target: string }) => a.target === 'app/google')).toHaveLength(1);
  });

  it('client secrets are no secrets of the project: listSecrets, getSecret and the secrets table never have auth/*', async () => {
    const list = await t.call('GET', `${P}/app/secrets`, { token: t.tokens.member });
    expect(list.body.items).toEqual([]);
    expect((await t.call('GET', `${P}/app/secrets/auth%2Fgithub`, { token: t.tokens.member })).status).toBe(404);
    expect(await t.store.db.select({ n: count() }).from(secrets)).toEqual([{ n: 0 }]);
  });

  it('audit records name providers and client ids, never a client secret; neither do the logs', async () => {
    const sets = await audit('auth.provider.set');
    expect(sets.map((a: { target: string; details: unknown }) => [a.target, a.details])).toContainEqual(['app/github', { provider: 'github', clientId: 'Iv1.github-app' }]);
    const all = JSON.stringify((await t.call('GET', '/v1/orgs/acme/audit?limit=1000')).body);
    expect(all).toContain('auth.provider.set');
    for (const secret of [GITHUB_SECRET, GOOGLE_SECRET]) {
      expect(all).not.toContain(secret);
      expect(t.logs.join('')).not.toContain(secret);
    }
    expect(t.logs.join('')).toContain('setAuthProvider');
  });
});

describe('roles (spec part 5)', () => {
  const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2 };
  const OPS: { id: string; min: Role; ok: number; method: string; rest: string; body?: unknown }[] = [
    { id: 'getAuth', min: 'viewer', ok: 200, method: 'GET', rest: '' },
    { id: 'grantAuth', min: 'member', ok: 200, method: 'POST', rest: '' },
    { id: 'updateAuthSettings', min: 'member', ok: 200, method: 'PATCH', rest: '', body: { sessionDays: 14 } },
    { id: 'revokeAuth', min: 'admin', ok: 204, method: 'DELETE', rest: '' },
    { id: 'setAuthProvider', min: 'admin', ok: 200, method: 'PUT', rest: '/providers/kakao', body: { clientId: 'k', clientSecret: 'ks' } },
    { id: 'deleteAuthProvider', min: 'admin', ok: 204, method: 'DELETE', rest: '/providers/kakao' },
  ];
  let u: TestApi;
  let bare: TestApi;
  beforeAll(async () => {
    u = await startTestApi({ plan: 'pro' });
    bare = await startTestApi({ core: null, plan: 'pro' });
    for (const api of [u, bare]) for (const op of OPS) await create(api, op.id.toLowerCase(), true);
    // Granted, so that a permitted updateAuthSettings succeeds; revokeAuth and the rest are idempotent.
    expect((await u.call('POST', `${P}/updateauthsettings/auth`)).status).toBe(200);
  });
  afterAll(async () => {
    await u.close();
    await bare.close();
  });

  type Op = (typeof OPS)[number];
  /** Every kind of caller of `op` on `api`: 401, 404 and 403 come first; a role high enough gets `allowed`. */
  async function callers(api: TestApi, op: Op, allowed: [number, string | undefined]): Promise<void> {
    const path = `${P}/${op.id.toLowerCase()}/auth${op.rest}`;
    expect((await api.call(op.method, path, { token: null, body: op.body })).status).toBe(401);
    expect((await api.call(op.method, path, { token: api.tokens.stranger, body: op.body })).status).toBe(404);
    for (const role of ['viewer', 'member', 'admin'] as Role[]) {
      const r = await api.call(op.method, path, { token: api.tokens[role], body: op.body });
      expect([r.status, r.body?.code], role).toEqual(RANK[role] >= RANK[op.min] ? allowed : [403, 'forbidden']);
    }
  }

  it.each(OPS)('$id: no token 401, stranger 404, below $min 403, from $min up $ok', (op) => callers(u, op, [op.ok, undefined]));

  it.each(OPS)('$id without a core: 401, 404, 403 in that order before 503 no_core', (op) => callers(bare, op, [503, 'no_core']));
});
