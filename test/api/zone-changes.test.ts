/**
 * Change sets and revisions through HTTP (CONTRACT.md "Zone changes, files and revisions"): applyZoneChanges,
 * listZoneRevisions, getZoneRevision, restoreZoneRevision. The store's rules are in test/store/zone-changes.test.ts.
 * Whole-zone work (exports, imports, restores, large change sets) shares the process's slots organization by
 * organization (`zoneWork`), told by the order the slots are given in, never by timings.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { zoneWorkSlots } from '../../api/zone-changes';
import { orgBySlug } from '../../store/accounts';
import type { Release } from '../../lib/fair-slots';
import { startTestApi, type TestApi } from '../helpers/app';
import { until } from '../helpers/proc';

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

  it('refuses `?dryRun=true` on a change set and a restore, where dryRun goes in the body: it was ignored and the write made', async () => {
    const z = await freshZone();
    const first = await changes(z, { changes: [a(`www.${z}`, '192.0.2.1')] });
    const before = (await t.call('GET', zonePath(z))).body.status.generation;
    for (const [what, path, body] of [
      ['change set', `${zonePath(z)}/changes?dryRun=true`, { changes: [a(`www.${z}`, '192.0.2.2')] }],
      ['restore', `${zonePath(z)}/revisions/${first.body.generation}/restore?dryRun=true`, {}],
    ] as const) {
      const r = await t.call('POST', path, { body });
      expect([r.status, r.body.code], what).toEqual([400, 'bad_request']);
      expect(r.body.message, what).toContain('send `dryRun` in the body');
    }
    expect((await t.call('GET', zonePath(z))).body.status.generation).toBe(before);
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

describe('whole-zone work of organizations in turn', () => {
  // One slot, and 4 operations of an organization waiting at most: the test holds the slot itself while it queues work.
  let w: TestApi;
  let acme: string;
  let globex: string;
  const A_ZONE = 'turns-a.example';
  const B_ZONE = 'turns-b.example';
  const FILE = (zone: string) => `www.${zone}. 300 IN A 192.0.2.1\n`;
  beforeAll(async () => {
    w = await startTestApi({ config: { zoneWork: { slots: 1, waitingPerOrg: 4 } } });
    expect((await w.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: A_ZONE } })).status).toBe(200);
    expect((await w.call('POST', '/v1/orgs/globex/dns/zones', { body: { name: B_ZONE }, token: w.other.token })).status).toBe(200);
    acme = `org:${(await orgBySlug(w.store, 'acme'))!.id}`;
    globex = `org:${(await orgBySlug(w.store, 'globex'))!.id}`;
  });
  afterAll(async () => { await w.close(); });
  afterEach(() => { vi.restoreAllMocks(); });

  const importA = (dryRun = false) => w.call('POST', `${zonePath(A_ZONE)}/import${dryRun ? '?dryRun=true' : ''}`, { raw: FILE(A_ZONE), headers: { 'content-type': 'text/dns' } });
  const importB = () => w.call('POST', `${zonePath(B_ZONE, 'globex')}/import`, { raw: FILE(B_ZONE), headers: { 'content-type': 'text/dns' }, token: w.other.token });
  const exportA = () => w.call('GET', `${zonePath(A_ZONE)}/export`);
  const exportB = () => w.call('GET', `${zonePath(B_ZONE, 'globex')}/export`, { token: w.other.token });

  /** Holds the only slot; records the organizations given it from now on, in order. */
  async function holdSlot(): Promise<{ release: Release; order: string[]; waiting: (key: string) => number }> {
    const slots = zoneWorkSlots(w.config);
    const release = (await slots.acquire('test'))!;
    const order: string[] = [];
    const acquire = slots.acquire.bind(slots);
    vi.spyOn(slots, 'acquire').mockImplementation((key, o) => acquire(key, o).then((r) => {
      if (r) order.push(key === acme ? 'A' : key === globex ? 'B' : key);
      return r;
    }));
    return { release, order, waiting: (key) => slots.load.waiting.find(([k]) => k === key)?.[1] ?? 0 };
  }
  const queued = (what: string, probe: () => boolean) => until(what, () => probe() || undefined);

  it('serves another organization\'s single import next, not after one organization\'s queued imports', async () => {
    const slot = await holdSlot();
    const many = [importA(), importA(true), importA(), importA(true)];
    await queued('A\'s imports queued', () => slot.waiting(acme) === 4);
    const one = importB();
    await queued('B\'s import queued', () => slot.waiting(globex) === 1);
    slot.release();
    expect((await one).status).toBe(200);
    expect((await Promise.all(many)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(slot.order).toEqual(['A', 'B', 'A', 'A', 'A']);
  });

  it('serves another organization\'s single export next, not after one organization\'s queued exports', async () => {
    const slot = await holdSlot();
    const many = [exportA(), exportA(), exportA(), exportA()];
    await queued('A\'s exports queued', () => slot.waiting(acme) === 4);
    const one = exportB();
    await queued('B\'s export queued', () => slot.waiting(globex) === 1);
    slot.release();
    const b = await one;
    expect([b.status, (b.body as string).startsWith(`$ORIGIN ${B_ZONE}.`)]).toEqual([200, true]);
    expect((await Promise.all(many)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // An export's page after its first (here the end of its zone) waits in its turn as well.
    expect(slot.order.slice(0, 2)).toEqual(['A', 'B']);
  });

  it('answers 429 rate_limited with Retry-After and the RateLimit fields once the organization has its most waiting, dry runs counted; another organization is queued', async () => {
    const slot = await holdSlot();
    const many = [importA(), importA(true), importA(true), exportA()];
    await queued('A\'s work queued', () => slot.waiting(acme) === 4);
    for (const refused of [await importA(true), await exportA()]) {
      expect([refused.status, refused.body.code]).toEqual([429, 'rate_limited']);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.headers.get('ratelimit-policy')).toBe('"zone-work";q=4;qu="concurrent-requests"');
      expect(refused.headers.get('ratelimit')).toBe('"zone-work";r=0;t=1');
    }
    const other = importB();
    await queued('B\'s import queued', () => slot.waiting(globex) === 1);
    slot.release();
    expect((await other).status).toBe(200);
    expect((await Promise.all(many)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });

  it('lets work whose client went away leave the queue: no slot is spent on it', async () => {
    const slot = await holdSlot();
    const gone = new AbortController();
    const aborted = fetch(`${w.url}${zonePath(A_ZONE)}/import`, {
      method: 'POST', body: FILE(A_ZONE), signal: gone.signal, headers: { 'content-type': 'text/dns', authorization: `Bearer ${w.tokens.admin}` },
    }).catch((e: Error) => e.name);
    await queued('the import queued', () => slot.waiting(acme) === 1);
    gone.abort();
    expect(await aborted).toBe('AbortError');
    await queued('the import gone from the queue', () => slot.waiting(acme) === 0);
    slot.release();
    expect((await importB()).status).toBe(200);
    expect(slot.order).toEqual(['B']);
  });

  it('runs an import whose client went away while queued when it is sent again with the same Idempotency-Key: nothing was stored for it', async () => {
    const slot = await holdSlot();
    const headers = { 'content-type': 'text/dns', authorization: `Bearer ${w.tokens.admin}`, 'idempotency-key': 'gone-then-retried' };
    const gone = new AbortController();
    const aborted = fetch(`${w.url}${zonePath(A_ZONE)}/import`, { method: 'POST', body: FILE(A_ZONE), signal: gone.signal, headers })
      .catch((e: Error) => e.name);
    await queued('the import queued', () => slot.waiting(acme) === 1);
    gone.abort();
    expect(await aborted).toBe('AbortError');
    await queued('the import gone from the queue', () => slot.waiting(acme) === 0);
    slot.release();
    // The client's retry after its timeout: the import never ran, so it runs now (it was replayed as 499 for a day).
    const retry = await fetch(`${w.url}${zonePath(A_ZONE)}/import`, { method: 'POST', body: FILE(A_ZONE), headers });
    expect([retry.status, retry.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(slot.order).toEqual(['A']);
  });

  it('takes restores and change sets of over 100 changes in turn; a smaller change set runs at once', async () => {
    const slot = await holdSlot();
    const small = await w.call('POST', `${zonePath(A_ZONE)}/changes`, { body: { changes: [a(`small.${A_ZONE}`, '192.0.2.9')] } });
    expect(small.status).toBe(200);
    const large = w.call('POST', `${zonePath(A_ZONE)}/changes`, { body: { changes: Array.from({ length: 101 }, (_, i) => a(`h${i}.${A_ZONE}`, '192.0.2.1')) } });
    await queued('the large change set queued', () => slot.waiting(acme) === 1);
    const restore = w.call('POST', `${zonePath(A_ZONE)}/revisions/${small.body.generation}/restore`, { body: { dryRun: true } });
    await queued('the restore queued', () => slot.waiting(acme) === 2);
    slot.release();
    expect([(await large).status, (await restore).status]).toEqual([200, 200]);
    expect(slot.order).toEqual(['A', 'A']);
  });

  it('takes a change set of 100 changes but over 64 KiB in turn: a few large rrsets cost as many small ones', async () => {
    const slot = await holdSlot();
    // 100 TXT rrsets of 38 strings of 241 bytes: about 1 MiB.
    const changes = Array.from({ length: 100 }, (_, i) => ({
      op: 'put', name: `big${i}.${A_ZONE}`, type: 'TXT', ttl: 300, records: Array.from({ length: 38 }, (_, j) => ({ content: `"${j}${'z'.repeat(240)}"` })),
    }));
    let answered = false;
    const large = w.call('POST', `${zonePath(A_ZONE)}/changes`, { body: { changes, dryRun: true } }).finally(() => { answered = true; });
    const first = await until('the change set queued or answered', () => (slot.waiting(acme) === 1 ? 'queued' : answered ? 'answered' : undefined));
    slot.release();
    expect([first, (await large).status]).toEqual(['queued', 200]);
    expect(slot.order).toEqual(['A']);
  });
});
