/** The operator CLI's account commands beyond bootstrapping: lists, plans, role changes, and tokens with a name,
 * an expiry and a revocation, checked against what the API then accepts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, listTokens, tokenId, hashToken } from '../../store/accounts';
import { iso } from '../../store/db';
import { openTestStore } from '../helpers/store';
import { tokenExpiry } from '../../cli/admin';
import { startTestApi, type TestApi } from '../helpers/app';
import { admin, adminJson, cleanup, tempDir } from '../helpers/proc';

afterAll(cleanup);

describe('lists, set-plan and role changes, on one data dir', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('hostplane-admin-accounts-');
    await adminJson(dir, 'init');
    await Promise.all([
      adminJson(dir, 'org', 'create', 'globex'),
      adminJson(dir, 'org', 'create', 'acme', '--plan', 'pro'),
      adminJson(dir, 'user', 'create', 'bob@globex.test'),
      adminJson(dir, 'user', 'create', 'ada@acme.test'),
    ]);
    await adminJson(dir, 'member', 'add', 'acme', 'ada@acme.test', 'member');
    await adminJson(dir, 'member', 'add', 'globex', 'ada@acme.test', 'viewer');
  }, 60_000);

  it('org list prints aligned columns by slug, and --json the rows', async () => {
    const r = await admin(dir, 'org', 'list');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split(/\s+/).slice(0, 2))).toEqual([['SLUG', 'PLAN'], ['acme', 'pro'], ['globex', 'free']]);
    expect(new Set(lines.map((l) => l.indexOf(l.split(/\s+/)[1]!)))).toHaveProperty('size', 1); // one column start
    expect(await adminJson(dir, 'org', 'list', '--json')).toEqual([
      { slug: 'acme', plan: 'pro', createdAt: expect.stringMatching(/Z$/) },
      { slug: 'globex', plan: 'free', createdAt: expect.stringMatching(/Z$/) },
    ]);
  });

  it('user list shows each user with their org:role, - for none', async () => {
    const r = await admin(dir, 'user', 'list');
    expect(r.stdout.trimEnd().split('\n').map((l) => [l.split(/\s+/)[0], l.split(/\s+/)[2]])).toEqual([
      ['EMAIL', 'ORGS'], ['ada@acme.test', 'acme:member,globex:viewer'], ['bob@globex.test', '-'],
    ]);
  });

  it('member add of a member says the role changed, and what it was', async () => {
    const r = await admin(dir, 'member', 'add', 'acme', 'Ada@acme.test', 'admin');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ org: 'acme', email: 'ada@acme.test', role: 'admin', previousRole: 'member' });
    expect(r.stderr).toBe('ada@acme.test was member in acme, now admin\n');
    const again = await admin(dir, 'member', 'add', 'acme', 'ada@acme.test', 'admin');
    expect(JSON.parse(again.stdout)).toMatchObject({ role: 'admin', previousRole: 'admin' });
    expect(again.stderr).toBe('ada@acme.test was admin in acme already\n');
  });

  it('member remove takes the user out and says what role it had; again, that it was no member', async () => {
    await admin(dir, 'member', 'add', 'globex', 'ada@acme.test', 'member');
    expect(await adminJson(dir, 'member', 'remove', 'globex', 'Ada@acme.test')).toEqual({ org: 'globex', email: 'ada@acme.test', previousRole: 'member' });
    const again = await admin(dir, 'member', 'remove', 'globex', 'ada@acme.test');
    expect(JSON.parse(again.stdout)).toMatchObject({ previousRole: null });
    expect(again.stderr).toBe('ada@acme.test was no member of globex\n');
    await admin(dir, 'member', 'add', 'globex', 'ada@acme.test', 'viewer');
  });

  it('org set-plan moves the org to a plan of the table and prints the one it was on', async () => {
    expect(await adminJson(dir, 'org', 'set-plan', 'globex', 'pro')).toEqual({ slug: 'globex', plan: 'pro', previousPlan: 'free', projectLimit: 100 });
    expect(await adminJson<{ plan: string }[]>(dir, 'org', 'list', '--json')).toMatchObject([{ plan: 'pro' }, { plan: 'pro' }]);
    expect(await adminJson(dir, 'org', 'set-plan', 'globex', 'free')).toMatchObject({ plan: 'free', previousPlan: 'pro' });
  });
});

describe('tokens: names, expiry, list, revoke', () => {
  let dir: string;
  const made: Record<string, any> = {};
  beforeAll(async () => {
    dir = tempDir('hostplane-admin-tokens-');
    await adminJson(dir, 'init');
    await adminJson(dir, 'user', 'create', 'ada@acme.test');
    made.plain = await adminJson(dir, 'token', 'create', 'ada@acme.test');
    made.ci = await adminJson(dir, 'token', 'create', 'ada@acme.test', '--name', 'ci deploy', '--expires-in', '30d');
    made.at = await adminJson(dir, 'token', 'create', 'ada@acme.test', '--name', 'laptop', '--expires-at', '2099-01-31T12:00:00+01:00');
  }, 60_000);

  it('token create records the name (default cli) and the expiry, in UTC', () => {
    expect(made.plain).toMatchObject({ name: 'cli', expiresAt: null });
    expect(made.ci.name).toBe('ci deploy');
    const in30d = Date.parse(made.ci.expiresAt) - Date.now();
    expect(in30d).toBeGreaterThan(30 * 86_400_000 - 120_000);
    expect(in30d).toBeLessThanOrEqual(30 * 86_400_000);
    expect(made.at.expiresAt).toBe('2099-01-31T11:00:00Z');
  });

  it('token list shows id, name, user, created and expiry, never a token or its whole hash', async () => {
    const r = await admin(dir, 'token', 'list');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]!.split(/\s+/)).toEqual(['ID', 'NAME', 'USER', 'CREATED', 'EXPIRES']);
    // Oldest first; tokens made within one second of each other may come in any order among themselves.
    const byId = new Map(lines.slice(1).map((l) => [l.slice(0, 12), l]));
    expect([...byId.keys()].sort()).toEqual([made.plain.id, made.ci.id, made.at.id].sort());
    expect(byId.get(made.plain.id)).toMatch(/ never$/);
    expect(byId.get(made.ci.id)).toContain('ci deploy');
    for (const t of [made.plain, made.ci, made.at]) {
      expect(r.stdout).not.toContain(t.token);
      expect(r.stdout).not.toContain(hashToken(t.token));
    }
    const json = await admin(dir, 'token', 'list', '--json');
    const listed = (JSON.parse(json.stdout) as { id: string }[]).sort((x, y) => x.id.localeCompare(y.id));
    expect(listed).toEqual([made.plain, made.ci, made.at].sort((x, y) => x.id.localeCompare(y.id)).map((t) => ({
      id: t.id, name: t.name, email: 'ada@acme.test', createdAt: expect.any(String), expiresAt: t.expiresAt, expired: false,
    })));
    for (const t of [made.plain, made.ci, made.at]) expect(json.stdout).not.toContain(t.token);
  });

  it('token revoke deletes the token; again is no error', async () => {
    expect(await adminJson(dir, 'token', 'revoke', made.at.id)).toEqual({ id: made.at.id, revoked: true });
    expect(await adminJson(dir, 'token', 'revoke', made.at.id)).toEqual({ id: made.at.id, revoked: false });
    expect((await adminJson<{ id: string }[]>(dir, 'token', 'list', '--json')).map((t) => t.id).sort()).toEqual([made.plain.id, made.ci.id].sort());
  });

  it('token list marks an expired token', async () => {
    const s = await openTestStore(dir);
    try {
      await createToken(s, 'ada@acme.test', { name: 'old', expiresAt: '2020-01-01T00:00:00Z' });
    } finally {
      s.close();
    }
    const r = await admin(dir, 'token', 'list');
    expect(r.stdout).toMatch(/old\s+ada@acme\.test\s+\S+\s+2020-01-01T00:00:00Z \(expired\)\n$/);
  });
});

describe('tokenExpiry', () => {
  const now = new Date('2026-11-26T12:00:00Z');
  it.each([
    [{}, null],
    [{ 'expires-in': '90m' }, '2026-11-26T13:30:00Z'],
    [{ 'expires-in': '12h' }, '2026-11-27T00:00:00Z'],
    [{ 'expires-in': '30d' }, '2026-12-26T12:00:00Z'],
    [{ 'expires-at': '2026-11-26T12:00:01Z' }, '2026-11-26T12:00:01Z'],
    [{ 'expires-at': '2026-11-27T00:00:00.900-02:00' }, '2026-11-27T02:00:00Z'],
  ] as const)('%j → %s', (flags, expected) => {
    expect(tokenExpiry(flags, now)).toBe(expected);
  });

  it.each([
    [{ 'expires-in': '1w' }, /invalid --expires-in/],
    [{ 'expires-in': '-1d' }, /invalid --expires-in/],
    [{ 'expires-at': 'tomorrow' }, /invalid --expires-at/],
    [{ 'expires-at': '2026-11-26' }, /invalid --expires-at/],
    [{ 'expires-at': '2026-11-26T12:00:00Z' }, /not in the future/],
  ] as const)('%j is refused', (flags, message) => {
    expect(() => tokenExpiry(flags, now)).toThrow(message);
  });
});

describe('the API and token lifetimes', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => api?.close());

  const listProjects = (token: string) => api.call('GET', '/v1/orgs/acme/projects', { token });

  it('a token works until it expires; an expired one is 401 like an unknown one', async () => {
    const live = await createToken(api.store, 'admin@acme.test', { name: 'live', expiresAt: iso(new Date(Date.now() + 3_600_000)) });
    const expired = await createToken(api.store, 'admin@acme.test', { name: 'expired', expiresAt: iso(new Date(Date.now() - 1000)) });
    expect((await listProjects(live.token)).status).toBe(200);
    const r = await listProjects(expired.token);
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('unauthorized');
  });

  it('a revoked token is 401 from the next request on', async () => {
    const t = await createToken(api.store, 'admin@acme.test', { name: 'soon revoked' });
    expect((await listProjects(t.token)).status).toBe(200);
    const { revokeToken } = await import('../../store/accounts');
    expect(await revokeToken(api.store, t.id)).toEqual({ revoked: true });
    expect((await listProjects(t.token)).status).toBe(401);
    expect((await listTokens(api.store)).map((x) => x.id)).not.toContain(tokenId(hashToken(t.token)));
  });
});
