/**
 * Change sets and revisions through HTTP (CONTRACT.md "Zone changes, files and revisions"): applyZoneChanges,
 * listZoneRevisions, getZoneRevision, restoreZoneRevision. The store's rules are in test/store/zone-changes.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/app';

const zonePath = (zone: string, slug = 'acme') => `/v1/orgs/${slug}/dns/zones/${zone}`;
const records = (...contents: string[]) => contents.map((content) => ({ content }));
const a = (name: string, ip: string) => ({ op: 'put', name, type: 'A', ttl: 300, records: records(ip) });

let t: TestApi;
beforeAll(async () => { t = await startTestApi(); });
afterAll(async () => { await t.close(); });

let n = 0;
async function freshZone(): Promise<string> {
  const zone = `changes-${n++}.example`;
  expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: zone } })).status).toBe(200);
  return zone;
}
const changes = (zone: string, body: unknown, headers: Record<string, string> = {}, token = t.tokens.member) =>
  t.call('POST', `${zonePath(zone)}/changes`, { token, body, headers });

describe('applyZoneChanges', () => {
  it('answers 200 with generation, serial and diff; the zone serves them at that generation; one nudge', async () => {
    const z = await freshZone();
    const nudges = t.nudges.length;
    const r = await changes(z, { changes: [a(`www.${z}`, '192.0.2.1'), a(`api.${z}`, '192.0.2.2')] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.diff).toEqual([
      { op: 'add', name: `www.${z}`, type: 'A', before: null, after: { ttl: 300, records: records('192.0.2.1') } },
      { op: 'add', name: `api.${z}`, type: 'A', before: null, after: { ttl: 300, records: records('192.0.2.2') } },
    ]);
    expect(r.headers.get('x-generation')).toBe(String(r.body.generation));
    const zone = (await t.call('GET', zonePath(z))).body;
    expect([zone.status.generation, zone.serial]).toEqual([r.body.generation, r.body.serial]);
    expect(t.nudges.slice(nudges)).toEqual([{ kind: 'zone', key: z }]);
  });

  it('refuses the whole set in one 400 naming every refused change by index', async () => {
    const z = await freshZone();
    const r = await changes(z, {
      changes: [a(`ok.${z}`, '192.0.2.1'), a(`bad.${z}`, '300.1.1.1'), { op: 'delete', name: `none.${z}`, type: 'A' }, a(`bad2.${z}`, 'x')],
    });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    expect(r.body.details.issues.map((i: { path: string }) => i.path)).toEqual(['changes[1].records[0].content', 'changes[2]', 'changes[3].records[0].content']);
    const stored = await changes(z, { changes: [a(`ok.${z}`, '192.0.2.1'), { op: 'delete', name: `none.${z}`, type: 'A' }, { op: 'delete', name: z, type: 'NS' }] });
    expect(stored.status).toBe(400);
    expect(stored.body.details.issues.map((i: { path: string }) => i.path)).toEqual(['changes[1]', 'changes[2]']);
    expect((await t.call('GET', zonePath(z))).body.rrsets.map((x: { type: string }) => x.type)).toEqual(['SOA', 'NS']);
  });

  it('names a change of the wrong shape at its own path, among the other changes\' refusals', async () => {
    const z = await freshZone();
    const r = await changes(z, {
      changes: [{ ...a(`a.${z}`, '192.0.2.1'), ttl: 0 }, { op: 'delete', name: `none.${z}`, type: 'A' }, a(`b.${z}`, 'x'), { op: 'put', name: z, type: 'NS', records: records('ns.example.net') },
        { op: 'patch', name: `c.${z}`, type: 'A' }, a(`ok.${z}`, '192.0.2.2')],
    });
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    expect(r.body.details.issues).toEqual([
      { path: 'changes[0].ttl', message: 'changes[0].ttl must be at least 60' },
      { path: 'changes[1]', message: `rrset none.${z} A not found` },
      { path: 'changes[2].records[0].content', message: expect.stringContaining('"x"') },
      { path: 'changes[3]', message: `${z} NS is managed by the service and cannot be edited` },
      { path: 'changes[4].op', message: expect.stringContaining('changes[4].op') },
    ]);
    expect(r.body.message).toBe('5 issues in the changes are refused: changes[0].ttl: changes[0].ttl must be at least 60');
  });

  it('a dry run sends no X-Generation: that generation never comes', async () => {
    const z = await freshZone();
    const dry = await changes(z, { changes: [a(`www.${z}`, '192.0.2.1')], dryRun: true });
    expect([dry.status, dry.headers.get('x-generation')]).toEqual([200, null]);
  });

  it.each([
    ['no changes', { changes: [] }],
    ['1,001 changes', { changes: Array.from({ length: 1001 }, (_, i) => a(`h${i}.example`, '192.0.2.1')) }],
    ['an unknown op', { changes: [{ op: 'patch', name: 'x', type: 'A' }] }],
    ['a put without records', { changes: [{ op: 'put', name: 'x', type: 'A' }] }],
    ['a string dryRun', { changes: [a('x', '192.0.2.1')], dryRun: 'yes' }],
  ])('a body with %s is 400', async (_what, body) => {
    const z = await freshZone();
    const r = await changes(z, body);
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
  });

  it('If-Match: the zone\'s ETag passes, another is 412 and writes nothing', async () => {
    const z = await freshZone();
    const tag = (await t.call('GET', zonePath(z))).headers.get('etag')!;
    const stale = await changes(z, { changes: [a(`www.${z}`, '192.0.2.1')] }, { 'if-match': '"1-stale"' });
    expect([stale.status, stale.body.code]).toEqual([412, 'precondition_failed']);
    expect((await changes(z, { changes: [a(`www.${z}`, '192.0.2.1')] }, { 'if-match': tag })).status).toBe(200);
    expect((await changes(z, { changes: [a(`api.${z}`, '192.0.2.1')] }, { 'if-match': tag })).status).toBe(412);
  });

  it('Idempotency-Key: the same request again replays the answer and applies nothing more', async () => {
    const z = await freshZone();
    const body = { changes: [a(`www.${z}`, '192.0.2.1')] };
    const first = await changes(z, body, { 'idempotency-key': 'set-1' });
    const again = await changes(z, body, { 'idempotency-key': 'set-1' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await t.call('GET', zonePath(z))).body.status.generation).toBe(first.body.generation);
    expect((await changes(z, { changes: [a(`api.${z}`, '192.0.2.1')] }, { 'idempotency-key': 'set-1' })).status).toBe(422);
  });

  it('dryRun: the same answer as the write, and nothing written', async () => {
    const z = await freshZone();
    const body = { changes: [a(`www.${z}`, '192.0.2.1')] };
    const before = (await t.call('GET', zonePath(z))).body;
    const dry = await changes(z, { ...body, dryRun: true });
    expect(dry.status).toBe(200);
    expect((await t.call('GET', zonePath(z))).body).toEqual(before);
    expect((await t.call('GET', `${zonePath(z)}/revisions`)).body.items).toHaveLength(1);
    const real = await changes(z, body);
    expect(real.body).toEqual(dry.body);
  });

  it('is for members: a viewer is 403, another organization 404', async () => {
    const z = await freshZone();
    expect((await changes(z, { changes: [a(`www.${z}`, '192.0.2.1')] }, {}, t.tokens.viewer)).status).toBe(403);
    expect((await changes(z, { changes: [a(`www.${z}`, '192.0.2.1')] }, {}, t.other.token)).status).toBe(404);
  });
});

describe('revisions', () => {
  it('lists every generation newest first with cursor paging; one revision answers its diff', async () => {
    const z = await freshZone();
    for (let i = 0; i < 3; i++) expect((await changes(z, { changes: [a(`h${i}.${z}`, '192.0.2.1')] })).status).toBe(200);
    const first = await t.call('GET', `${zonePath(z)}/revisions?limit=2`, { token: t.tokens.viewer });
    expect(first.status).toBe(200);
    expect(first.body.items.map((r: { generation: number }) => r.generation)).toEqual([4, 3]);
    expect(first.body.items[0]).toMatchObject({ actor: 'user:member@acme.test', summary: `added h2.${z} A` });
    const rest = await t.call('GET', `${zonePath(z)}/revisions?limit=2&cursor=${first.body.nextCursor}`, { token: t.tokens.viewer });
    expect(rest.body.items.map((r: { generation: number; summary: string }) => [r.generation, r.summary])).toEqual([[2, `added h0.${z} A`], [1, 'zone created']]);
    expect(rest.body.nextCursor).toBeNull();
    const one = await t.call('GET', `${zonePath(z)}/revisions/3`, { token: t.tokens.viewer });
    expect(one.body).toMatchObject({
      generation: 3, diff: [{ op: 'add', name: `h1.${z}`, type: 'A', before: null, after: { ttl: 300, records: records('192.0.2.1') } }],
    });
    expect((await t.call('GET', `${zonePath(z)}/revisions/99`)).status).toBe(404);
    expect((await t.call('GET', `${zonePath(z)}/revisions/x`)).status).toBe(400);
    expect((await t.call('GET', `${zonePath(z)}/revisions`, { token: t.other.token })).status).toBe(404);
  });

  it('a cursor that names no generation is 400, on both stores (PostgreSQL answered 500 for a key not a whole number)', async () => {
    const z = await freshZone();
    for (const key of ['abc', '1.5', '0', '-1', '12345678901234567890123', '']) {
      const r = await t.call('GET', `${zonePath(z)}/revisions?cursor=${Buffer.from(JSON.stringify([key])).toString('base64url')}`, { token: t.tokens.viewer });
      expect([key, r.status, r.body.code]).toEqual([key, 400, 'bad_request']);
    }
  });

  it('restore applies the rrsets of that generation as a new change set with a higher serial', async () => {
    const z = await freshZone();
    const g = (await changes(z, { changes: [a(`www.${z}`, '192.0.2.1')] })).body.generation;
    const later = await changes(z, { changes: [a(`www.${z}`, '192.0.2.9'), a(`new.${z}`, '192.0.2.3')] });
    const r = await t.call('POST', `${zonePath(z)}/revisions/${g}/restore`, { token: t.tokens.member });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.generation).toBe(later.body.generation + 1);
    expect(r.body.serial).toBeGreaterThan(later.body.serial);
    expect(r.body.diff.map((d: { op: string; name: string }) => [d.op, d.name])).toEqual([['remove', `new.${z}`], ['change', `www.${z}`]]);
    const rrsets = (await t.call('GET', zonePath(z))).body.rrsets.map((x: { name: string; records: unknown }) => [x.name, x.records]);
    expect(rrsets).toContainEqual([`www.${z}`, records('192.0.2.1')]);
    expect(rrsets.map((x: string[]) => x[0])).not.toContain(`new.${z}`);
    expect((await t.call('POST', `${zonePath(z)}/revisions/${g}/restore`, { token: t.tokens.viewer })).status).toBe(403);
    expect((await t.call('POST', `${zonePath(z)}/revisions/999/restore`, { token: t.tokens.member })).status).toBe(404);
    const audit = (await t.call('GET', '/v1/orgs/acme/audit?limit=5')).body.items.map((e: { event: string }) => e.event);
    expect(audit).toContain('dns.zone.restore');
  });
});
