/**
 * Spec part 5 and CONTRACT.md: who may call what. For every operation of the walking skeleton and every kind
 * of caller, the exact status: 401 without a valid token, 404 for a non-member (the org reads as missing),
 * 403 for a member whose role is too low, and the operation's own success status from its minimum role up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../store/accounts';
import { startTestApi, type TestApi } from '../helpers/app';

type Caller = 'none' | 'unknown' | 'wrong-scheme' | 'stranger' | Role;

interface OpCase {
  op: string;
  min: Role;
  ok: number;
  /** The request for a caller; distinct per caller so that a success does not turn a later call into a conflict. */
  req: (who: Caller) => { method: string; path: string; body?: unknown };
}

const ORG = '/v1/orgs/acme';
const OPS: OpCase[] = [
  { op: 'listProjects', min: 'viewer', ok: 200, req: () => ({ method: 'GET', path: `${ORG}/projects` }) },
  { op: 'getProject', min: 'viewer', ok: 200, req: () => ({ method: 'GET', path: `${ORG}/projects/alpha` }) },
  { op: 'createProject', min: 'member', ok: 201, req: (who) => ({ method: 'POST', path: `${ORG}/projects`, body: { name: `p-${who}` } }) },
  { op: 'listSecrets', min: 'member', ok: 200, req: () => ({ method: 'GET', path: `${ORG}/projects/alpha/secrets` }) },
  { op: 'setSecret', min: 'member', ok: 200, req: (who) => ({ method: 'PUT', path: `${ORG}/projects/alpha/secrets/SET_${who.toUpperCase().replace('-', '_')}`, body: { value: 'v' } }) },
  { op: 'deleteSecret', min: 'member', ok: 204, req: (who) => ({ method: 'DELETE', path: `${ORG}/projects/alpha/secrets/DEL_${who.toUpperCase().replace('-', '_')}` }) },
  { op: 'listAudit', min: 'admin', ok: 200, req: () => ({ method: 'GET', path: `${ORG}/audit` }) },
  { op: 'deleteProject', min: 'admin', ok: 204, req: (who) => ({ method: 'DELETE', path: `${ORG}/projects/doomed-${who}` }) },
];

const ROLES: Role[] = ['viewer', 'member', 'admin'];
const rank = (r: Role): number => ROLES.indexOf(r);

/** The status the spec requires for `who` calling `c`. */
function expected(c: OpCase, who: Caller): { status: number; code?: string } {
  if (who === 'none' || who === 'unknown' || who === 'wrong-scheme') return { status: 401, code: 'unauthorized' };
  if (who === 'stranger') return { status: 404, code: 'not_found' };
  return rank(who) >= rank(c.min) ? { status: c.ok } : { status: 403, code: 'forbidden' };
}

const CALLERS: Caller[] = ['none', 'unknown', 'wrong-scheme', 'stranger', 'viewer', 'member', 'admin'];

let t: TestApi;

function auth(who: Caller): { token: string | null; headers?: Record<string, string> } {
  switch (who) {
    case 'none': return { token: null };
    case 'unknown': return { token: 'hp_thisTokenWasNeverIssuedByAnyone0000000000000' };
    // A real token in a scheme other than Bearer is no credential.
    case 'wrong-scheme': return { token: null, headers: { authorization: `Basic ${t.tokens.admin}` } };
    default: return { token: t.tokens[who] };
  }
}

async function callAs(who: Caller, r: { method: string; path: string; body?: unknown }) {
  const a = auth(who);
  return t.call(r.method, r.path, { token: a.token, body: r.body, headers: a.headers });
}

beforeAll(async () => {
  // pro: the creations of this file never meet the project limit.
  t = await startTestApi({ plan: 'pro' });
  expect((await t.call('POST', `${ORG}/projects`, { body: { name: 'alpha' } })).status).toBe(201);
  for (const who of CALLERS) {
    const name = `DEL_${who.toUpperCase().replace('-', '_')}`;
    expect((await t.call('PUT', `${ORG}/projects/alpha/secrets/${name}`, { body: { value: 'x' } })).status).toBe(200);
    expect((await t.call('POST', `${ORG}/projects`, { body: { name: `doomed-${who}` } })).status).toBe(201);
  }
  expect((await t.call('POST', '/v1/orgs/globex/projects', { token: t.other.token, body: { name: 'gproj' } })).status).toBe(201);
});
afterAll(async () => { await t.close(); });

describe('role table (spec 5.3, CONTRACT.md)', () => {
  const rows = OPS.flatMap((c) => CALLERS.map((who) => ({ c, who, want: expected(c, who) })));
  it.each(rows.map((r) => [r.c.op, r.who, r.want.status, r] as const))('%s as %s → %i', async (_op, who, _status, { c, want }) => {
    const res = await callAs(who, c.req(who));
    expect(res.status).toBe(want.status);
    if (want.code) {
      expect(res.body).toMatchObject({ code: want.code });
      expect(typeof res.body.message).toBe('string');
    }
  });

  it('a too-low role changes nothing: the viewer\'s secret is still there after its 403 delete', async () => {
    const r = await t.call('GET', `${ORG}/projects/alpha/secrets`, { token: t.tokens.member });
    const names = (r.body.items as { name: string }[]).map((i) => i.name);
    expect(names).toContain('DEL_VIEWER');
    expect(names).not.toContain('DEL_MEMBER');
    expect(names).not.toContain('SET_VIEWER');
    expect(names).toContain('SET_MEMBER');
  });
});

describe('order of the checks: role before any lookup', () => {
  const member = OPS.filter((c) => c.min !== 'viewer');
  it.each(member.map((c) => [c.op, c] as const))('%s by a viewer on a project that does not exist is 403, not 404', async (_op, c) => {
    const r = c.req('viewer');
    const res = await callAs('viewer', { ...r, path: r.path.replace('/projects/alpha', '/projects/ghost') });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
  });

  it('a member calling listAudit is 403 (admin only)', async () => {
    expect((await t.call('GET', `${ORG}/audit`, { token: t.tokens.member })).status).toBe(403);
  });

  it('a viewer sending an invalid body or name still gets 403, not 400', async () => {
    expect((await t.call('PUT', `${ORG}/projects/alpha/secrets/lower`, { token: t.tokens.viewer, body: { value: 1 } })).status).toBe(403);
    expect((await t.call('POST', `${ORG}/projects`, { token: t.tokens.viewer, body: { name: 'Bad Name' } })).status).toBe(403);
  });

  it('no token on an organization that does not exist is 401, not 404', async () => {
    const res = await t.call('GET', '/v1/orgs/no-such-org/projects', { token: null });
    expect(res.status).toBe(401);
  });

  it('a member of another org sees a real org and a missing org the same way', async () => {
    const real = await t.call('GET', `${ORG}/projects`, { token: t.tokens.stranger });
    const missing = await t.call('GET', '/v1/orgs/no-such-org/projects', { token: t.tokens.stranger });
    expect(real.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(real.body.code).toBe(missing.body.code);
    expect(real.body.message.replace('acme', 'X')).toBe(missing.body.message.replace('no-such-org', 'X'));
  });

  it('without a core, a viewer\'s setSecret is 403 and a stranger\'s is 404, before 503 no_core', async () => {
    const bare = await startTestApi({ core: null });
    try {
      const path = '/v1/orgs/acme/projects/any/secrets/NAME';
      expect((await bare.call('PUT', path, { token: bare.tokens.viewer, body: { value: 'v' } })).status).toBe(403);
      expect((await bare.call('PUT', path, { token: bare.tokens.stranger, body: { value: 'v' } })).status).toBe(404);
      expect((await bare.call('PUT', path, { token: null, body: { value: 'v' } })).status).toBe(401);
      const member = await bare.call('PUT', path, { token: bare.tokens.member, body: { value: 'v' } });
      expect(member.status).toBe(503);
      expect(member.body.code).toBe('no_core');
    } finally {
      await bare.close();
    }
  });
});

describe('cross-organization reads are 404', () => {
  it('globex\'s admin reading acme\'s project is 404', async () => {
    const res = await t.call('GET', `${ORG}/projects/alpha`, { token: t.other.token });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('acme\'s admin reading globex\'s project is 404', async () => {
    const res = await t.call('GET', '/v1/orgs/globex/projects/gproj', { token: t.tokens.admin });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('acme\'s admin asking for globex\'s project under acme is 404', async () => {
    const res = await t.call('GET', `${ORG}/projects/gproj`, { token: t.tokens.admin });
    expect(res.status).toBe(404);
  });

  it('acme\'s admin can neither list nor write globex\'s secrets or audit', async () => {
    expect((await t.call('GET', '/v1/orgs/globex/projects/gproj/secrets')).status).toBe(404);
    expect((await t.call('PUT', '/v1/orgs/globex/projects/gproj/secrets/INJECTED', { body: { value: 'x' } })).status).toBe(404);
    expect((await t.call('GET', '/v1/orgs/globex/audit')).status).toBe(404);
    const theirs = await t.call('GET', '/v1/orgs/globex/projects/gproj/secrets', { token: t.other.token });
    expect(theirs.status).toBe(200);
    expect(theirs.body.items).toEqual([]);
  });

  it('acme\'s project list does not include globex\'s projects', async () => {
    const res = await t.call('GET', `${ORG}/projects`);
    const names = (res.body.items as { name: string }[]).map((p) => p.name);
    expect(names).toContain('alpha');
    expect(names).not.toContain('gproj');
  });
});
