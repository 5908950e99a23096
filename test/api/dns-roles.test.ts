/**
 * Spec 5.3 for the DNS group: the minimum role of each of its operations (with CONTRACT.md's change sets, revisions
 * and zone files), checked for every caller (viewer, member, admin of the organization; a signed-in stranger; another
 * organization's admin; no token),
 * and the order of the checks: 401 before 404 (organization) before 403 (role) before anything else.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/app';

type Role = 'viewer' | 'member' | 'admin';
type Caller = Role | 'stranger' | 'otherOrgAdmin' | 'noToken';

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2 };
const CALLERS: Caller[] = ['viewer', 'member', 'admin', 'stranger', 'otherOrgAdmin', 'noToken'];

interface Op {
  id: string;
  min: Role;
  method: string;
  /** Path and body (JSON, or `raw` text with its content type) of a request that succeeds for a caller of the right role, on the zone `z`. */
  request: (z: string) => { path: string; body?: unknown; raw?: string; headers?: Record<string, string> };
  ok: number;
}

const base = (z: string) => `/v1/orgs/acme/dns/zones/${z}`;
const OPS: Op[] = [
  { id: 'listZones', min: 'viewer', method: 'GET', request: () => ({ path: '/v1/orgs/acme/dns/zones' }), ok: 200 },
  { id: 'getZone', min: 'viewer', method: 'GET', request: (z) => ({ path: base(z) }), ok: 200 },
  {
    id: 'putRRset', min: 'member', method: 'PUT', ok: 200,
    request: (z) => ({ path: `${base(z)}/rrsets/new.${z}/A`, body: { records: [{ content: '192.0.2.9' }] } }),
  },
  { id: 'exportZone', min: 'viewer', method: 'GET', request: (z) => ({ path: `${base(z)}/export` }), ok: 200 },
  {
    id: 'importZone', min: 'member', method: 'POST', ok: 200,
    // What the zone holds already: an import that changes nothing.
    request: (z) => ({ path: `${base(z)}/import?mode=merge`, raw: `www.${z}. 3600 IN A 192.0.2.1\n`, headers: { 'content-type': 'text/dns' } }),
  },
  { id: 'deleteRRset', min: 'member', method: 'DELETE', request: (z) => ({ path: `${base(z)}/rrsets/www.${z}/A` }), ok: 204 },
  {
    id: 'applyZoneChanges', min: 'member', method: 'POST', ok: 200,
    request: (z) => ({ path: `${base(z)}/changes`, body: { changes: [{ op: 'put', name: `new.${z}`, type: 'A', records: [{ content: '192.0.2.9' }] }] } }),
  },
  { id: 'listZoneRevisions', min: 'viewer', method: 'GET', request: (z) => ({ path: `${base(z)}/revisions` }), ok: 200 },
  { id: 'getZoneRevision', min: 'viewer', method: 'GET', request: (z) => ({ path: `${base(z)}/revisions/1` }), ok: 200 },
  { id: 'restoreZoneRevision', min: 'member', method: 'POST', request: (z) => ({ path: `${base(z)}/revisions/1/restore` }), ok: 200 },
  {
    id: 'createZone', min: 'admin', method: 'POST', ok: 200,
    request: (z) => ({ path: '/v1/orgs/acme/dns/zones', body: { name: `new-${z}` } }),
  },
  { id: 'deleteZone', min: 'admin', method: 'DELETE', request: (z) => ({ path: base(z) }), ok: 204 },
  { id: 'setZoneDNSSEC', min: 'admin', method: 'POST', request: (z) => ({ path: `${base(z)}/dnssec`, body: { enabled: false } }), ok: 200 },
  {
    id: 'setZoneDS', min: 'admin', method: 'PUT', ok: 200,
    request: (z) => ({ path: `${base(z)}/dnssec/ds`, body: { ds: [{ keyTag: 2371, algorithm: 13, digestType: 2, digest: 'ab'.repeat(32) }] } }),
  },
];

function expected(op: Op, caller: Caller): { status: number; code?: string } {
  if (caller === 'noToken') return { status: 401, code: 'unauthorized' };
  if (caller === 'stranger' || caller === 'otherOrgAdmin') return { status: 404, code: 'not_found' };
  return RANK[caller] >= RANK[op.min] ? { status: op.ok } : { status: 403, code: 'forbidden' };
}

const tokenOf = (t: TestApi, caller: Caller): string | null =>
  caller === 'noToken' ? null : caller === 'otherOrgAdmin' ? t.other.token : t.tokens[caller];

let t: TestApi;
beforeAll(async () => { t = await startTestApi({ plan: 'pro' }); });
afterAll(async () => { await t.close(); });

/** Everything the caller could have changed, read as admin: acme's zones with their content, and the audit log. */
async function snapshot(): Promise<unknown> {
  const list = await t.call('GET', '/v1/orgs/acme/dns/zones?limit=1000');
  const zones = await Promise.all(list.body.items.map(async (z: { name: string }) => (await t.call('GET', base(z.name))).body));
  const audit = await t.call('GET', '/v1/orgs/acme/audit?limit=1000');
  return { zones, audit: audit.body.items.length };
}

describe.each(OPS)('$id (minimum role $min)', (op) => {
  let n = 0;
  let zone = '';
  beforeEach(async () => {
    // A fresh zone per case, with an A rrset to delete and DNSSEC on, so every operation can succeed.
    zone = `${op.id.toLowerCase()}-${n++}.roles.example`;
    const admin = t.tokens.admin;
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { token: admin, body: { name: zone } })).status).toBe(200);
    expect((await t.call('PUT', `${base(zone)}/rrsets/www.${zone}/A`, { token: admin, body: { records: [{ content: '192.0.2.1' }] } })).status).toBe(200);
    expect((await t.call('POST', `${base(zone)}/dnssec`, { token: admin, body: { enabled: true } })).status).toBe(200);
  });

  it.each(CALLERS)('%s', async (caller) => {
    const want = expected(op, caller);
    const { path, ...input } = op.request(zone);
    const before = want.status >= 400 ? await snapshot() : undefined;
    const r = await t.call(op.method, path, { token: tokenOf(t, caller), ...input });
    expect(r.status, JSON.stringify(r.body)).toBe(want.status);
    if (want.code) {
      expect(r.body.code).toBe(want.code);
      // A refused call changes nothing.
      expect(await snapshot()).toEqual(before);
    }
  });

  const tooLow = (['viewer', 'member'] as Role[]).filter((r) => RANK[r] < RANK[op.min]);
  if (tooLow.length > 0) {
    it.each(tooLow)('%s gets 403 even for a zone that does not exist', async (caller) => {
      const { path, ...input } = op.request('does-not-exist.example');
      const r = await t.call(op.method, path, { token: tokenOf(t, caller), ...input });
      expect([r.status, r.body.code]).toEqual([403, 'forbidden']);
    });
  }

  it.each([
    ['stranger', 404, 'not_found'],
    ['noToken', 401, 'unauthorized'],
  ] as const)('%s on a zone that does not exist → %i', async (caller, status, code) => {
    const { path, ...input } = op.request('does-not-exist.example');
    const r = await t.call(op.method, path, { token: tokenOf(t, caller), ...input });
    expect([r.status, r.body.code]).toEqual([status, code]);
  });

  it.each([
    ['an organization that does not exist, with a token', 'admin', 404, 'not_found'],
    ['an organization that does not exist, without a token', 'noToken', 401, 'unauthorized'],
    ['an unknown token', 'bogus', 401, 'unauthorized'],
  ] as const)('%s → %i', async (_what, caller, status, code) => {
    const { path, ...input } = op.request(zone);
    const target = caller === 'bogus' ? path : path.replace('/orgs/acme/', '/orgs/nosuchorg/');
    const token = caller === 'bogus' ? 'not-a-real-token' : tokenOf(t, caller);
    const r = await t.call(op.method, target, { token, ...input });
    expect([r.status, r.body.code]).toEqual([status, code]);
  });

  if (tooLow.length > 0 && (op.request(zone).body !== undefined || op.request(zone).raw !== undefined)) {
    it.each(tooLow)('%s with an invalid body still gets 403 (the role is checked before the body)', async (caller) => {
      const { path } = op.request(zone);
      const r = await t.call(op.method, path, { token: tokenOf(t, caller), body: { bogus: 1 } });
      expect([r.status, r.body.code]).toEqual([403, 'forbidden']);
    });
  }
});

describe('check order against the 503s', () => {
  let u: TestApi;
  beforeAll(async () => { u = await startTestApi({ core: null }); });
  afterAll(async () => { await u.close(); });

  it.each(OPS)('$id without a core: no token 401, stranger 404, too-low role 403, enough role 503 no_core', async (op) => {
    const { path, ...input } = op.request('roles.example');
    const call = (token: string | null) => u.call(op.method, path, { token, ...input });
    expect((await call(null)).status).toBe(401);
    expect((await call(u.tokens.stranger)).status).toBe(404);
    for (const role of ['viewer', 'member', 'admin'] as Role[]) {
      const r = await call(u.tokens[role]);
      expect([r.status, r.body.code], role).toEqual(RANK[role] >= RANK[op.min] ? [503, 'no_core'] : [403, 'forbidden']);
    }
  });
});
