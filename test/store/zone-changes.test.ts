/** Change sets, revisions and restores of a zone in the store: all or nothing, one generation and serial, every
 * refused change named, dry runs that keep nothing, a revision per generation, pruned after 90 days. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors';
import { createOrg } from '../../store/accounts';
import { iso, type Store } from '../../store/db';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../lib/log';
import { FEED_RETENTION, listAudit, startFeedPruning } from '../../store/feed';
import { applyZoneChanges, restoreZoneRevision, type ZoneChange } from '../../store/zone-changes';
import { getRevision, listRevisions, pruneZoneRevisions, REVISION_BYTES_PER_ZONE_BYTES, REVISION_KEEP_MS } from '../../store/zone-revisions';
import {
  createZone, deleteRRset, deleteZone, getZone, putManagedRRset, putRRset, setZoneDnssec, zoneSnapshot,
} from '../../store/zones';
import { checkCnameConflict, ZoneValidationError } from '../../zonefiles';
import { ROOT, until } from '../helpers/proc';
import { onPostgres, openTestStore } from '../helpers/store';
import { deltaSince } from '../helpers/zone-read';

const ZONE = 'changes.test';
const ACTOR = 'user:owner@acme.test';
const QUOTA = { plan: 'free', rrsets: 50, bytes: 1024 * 1024 };
const T0 = Date.parse('2026-03-01T00:00:00Z');
const DAY = 86_400_000;

let s: Store;
let now = T0;
let orgId: number;

beforeEach(async () => {
  now = T0;
  s = await openTestStore(':memory:', { clock: () => new Date(now) });
  orgId = (await createOrg(s, 'acme', 'free')).id;
  await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test', 'ns2.hostplane.test'], actor: ACTOR, quota: null });
});
afterEach(() => s.close());

const apply = (changes: ZoneChange[], more: { dryRun?: boolean; quota?: typeof QUOTA } = {}) =>
  applyZoneChanges(s, { orgId, zone: ZONE, changes, actor: ACTOR, quota: more.quota ?? QUOTA, dryRun: more.dryRun ?? false });
const a = (label: string, ip: string, ttl = 300): ZoneChange => ({ op: 'put', name: `${label}.${ZONE}`, type: 'A', ttl, records: [{ content: ip }] });
const del = (label: string, type = 'A'): ZoneChange => ({ op: 'delete', name: `${label}.${ZONE}`, type });
const refusal = async (p: Promise<unknown>): Promise<AppError> => {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
};
/** Everything a write could leave behind: the zone row, its rrsets, the audit log, the change feed, the revisions. */
async function everything(): Promise<unknown> {
  return {
    zone: await getZone(s, orgId, ZONE),
    rrsets: (await zoneSnapshot(s, ZONE))!.rrsets,
    audit: await listAudit(s, orgId, 1000),
    feed: await s.raw('test feed', 'SELECT seq, kind, key FROM changes ORDER BY seq'),
    revisions: await listRevisions(s, ZONE, 1000),
  };
}

describe('applyZoneChanges', () => {
  it('applies every change as one generation and one serial, and the reconciler reads them as one change', async () => {
    const before = await getZone(s, orgId, ZONE);
    await apply([a('old', '192.0.2.9')]);
    const mid = await getZone(s, orgId, ZONE);
    now += 1000;
    const r = await apply([a('www', '192.0.2.1'), a('api', '192.0.2.2'), del('old')]);
    expect(r.generation).toBe(mid.generation + 1);
    const after = await getZone(s, orgId, ZONE);
    expect(after.generation).toBe(r.generation);
    expect(after.serial).toBe(r.serial);
    expect(r.serial).toBeGreaterThan(before.serial);
    expect(r.diff).toEqual([
      { op: 'add', name: `www.${ZONE}`, type: 'A', before: null, after: { ttl: 300, records: [{ content: '192.0.2.1' }] }, managedBy: null },
      { op: 'add', name: `api.${ZONE}`, type: 'A', before: null, after: { ttl: 300, records: [{ content: '192.0.2.2' }] }, managedBy: null },
      { op: 'remove', name: `old.${ZONE}`, type: 'A', before: { ttl: 300, records: [{ content: '192.0.2.9' }] }, after: null, managedBy: null },
    ]);
    const delta = await deltaSince(s, ZONE, mid.generation);
    expect(delta.changed.map((x) => x.name).sort()).toEqual([`api.${ZONE}`, `www.${ZONE}`]);
    expect(delta.removed).toEqual([{ name: `old.${ZONE}`, type: 'A' }]);
    expect(after.rrsetCount).toBe(3);
    const events = (await listAudit(s, orgId, 3)).map((e) => [e.event, e.target, e.details['generation']]);
    expect(events).toEqual(expect.arrayContaining([
      ['dns.rrset.set', `${ZONE}/www.${ZONE}/A`, r.generation], ['dns.rrset.set', `${ZONE}/api.${ZONE}/A`, r.generation],
      ['dns.rrset.delete', `${ZONE}/old.${ZONE}/A`, r.generation],
    ]));
  });

  it('leaves out changes to what is stored already; a set that changes nothing writes nothing', async () => {
    const first = await apply([a('www', '192.0.2.1')]);
    const was = await everything();
    const again = await apply([a('www', '192.0.2.1')]);
    expect(again).toEqual({ generation: first.generation, serial: first.serial, diff: [] });
    expect(await everything()).toEqual(was);
    const changed = await apply([a('www', '192.0.2.1', 600)]);
    expect(changed.diff.map((d) => d.op)).toEqual(['change']);
  });

  it('refuses the whole set with every refused change named by its index, and writes nothing', async () => {
    await apply([a('www', '192.0.2.1')]);
    const was = await everything();
    const e = await refusal(apply([
      a('ok', '192.0.2.3'),
      { op: 'put', name: `bad.${ZONE}`, type: 'A', ttl: 300, records: [{ content: 'not-an-ip' }] },
      del('missing'),
      { op: 'put', name: ZONE, type: 'NS', ttl: 300, records: [{ content: 'ns.elsewhere.test' }] },
      { op: 'put', name: ZONE, type: 'SOA', ttl: 300, records: [{ content: 'x' }] },
      { op: 'put', name: `www.${ZONE}`, type: 'CNAME', ttl: 300, records: [{ content: 'elsewhere.test' }] },
      a('twice', '192.0.2.4'),
      del('twice'),
      { op: 'put', name: 'outside.example', type: 'A', ttl: 300, records: [{ content: '192.0.2.5' }] },
    ]));
    expect(e.status).toBe(400);
    expect(e.code).toBe('bad_request');
    // Every stage's refusals, in the changes' order: those against what is stored (a delete of nothing, the apex NS,
    // a CNAME beside an A) judged for the changes that passed the others; the two changes of `twice` judged no further.
    const paths = (e.details!['issues'] as { path: string }[]).map((i) => i.path);
    expect(paths).toEqual([
      'changes[1].records[0].content', 'changes[2]', 'changes[3]', 'changes[4].type', 'changes[5].type', 'changes[6]', 'changes[7]', 'changes[8].name',
    ]);
    expect(e.message).toMatch(/^8 issues in the changes are refused: changes\[1\]\.records\[0\]\.content: /);
    expect(await everything()).toEqual(was);
    const stored = await refusal(apply([
      a('ok', '192.0.2.3'), del('missing'), { op: 'put', name: ZONE, type: 'NS', ttl: 300, records: [{ content: 'ns.elsewhere.test' }] },
      { op: 'put', name: `www.${ZONE}`, type: 'CNAME', ttl: 300, records: [{ content: 'elsewhere.test' }] },
    ]));
    expect(stored.status).toBe(400);
    expect((stored.details!['issues'] as { path: string; message: string }[])).toEqual([
      { path: 'changes[1]', message: `rrset missing.${ZONE} A not found` },
      { path: 'changes[2]', message: `${ZONE} NS is managed by the service and cannot be edited` },
      { path: 'changes[3].type', message: `a CNAME cannot share the name www.${ZONE} with another type` },
    ]);
    expect(await everything()).toEqual(was);
  });

  it('names a bad record, a delete of nothing and the apex NS together, in the changes\' order', async () => {
    const e = await refusal(apply([
      { op: 'put', name: `bad.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2' }] },
      del('missing'),
      { op: 'put', name: ZONE, type: 'NS', ttl: 300, records: [{ content: 'ns.elsewhere.test' }] },
    ]));
    expect((e.details!['issues'] as { path: string }[]).map((i) => i.path)).toEqual(['changes[0].records[0].content', 'changes[1]', 'changes[2]']);
  });

  it('names a change its sender refused (of the wrong shape) among the others\' refusals, and judges it no further', async () => {
    const shape = { path: 'changes[1].ttl', message: 'changes[1].ttl must be at least 60' };
    const e = await refusal(apply([del('missing'), { op: 'refused', issues: [shape] }, a('ok', '192.0.2.1')]));
    expect(e.details!['issues']).toEqual([{ path: 'changes[0]', message: `rrset missing.${ZONE} A not found` }, shape]);
  });

  it('judges the quotas only when no change is refused: a refused set over the quota is 400', async () => {
    const quota = { ...QUOTA, rrsets: 2 };
    const e = await refusal(apply([a('one', '192.0.2.1'), a('two', '192.0.2.2'), del('missing')], { quota }));
    expect([e.status, (e.details!['issues'] as { path: string }[]).map((i) => i.path)]).toEqual([400, ['changes[2]']]);
    expect((await refusal(apply([a('one', '192.0.2.1'), a('two', '192.0.2.2')], { quota }))).code).toBe('quota_exceeded');
  });

  it('judges the CNAME rule on the zone as the set leaves it: an A swapped for a CNAME passes', async () => {
    await apply([a('www', '192.0.2.1')]);
    const r = await apply([del('www'), { op: 'put', name: `www.${ZONE}`, type: 'CNAME', ttl: 300, records: [{ content: 'elsewhere.test' }] }]);
    expect(r.diff.map((d) => [d.op, d.type])).toEqual([['remove', 'A'], ['add', 'CNAME']]);
  });

  it('judges the DS rule on the zone as the set leaves it: a DS comes with its delegation\'s NS in any order, and goes before it', async () => {
    const DIGEST = 'AB'.repeat(32);
    const ds: ZoneChange = { op: 'put', name: `sub.${ZONE}`, type: 'DS', ttl: 300, records: [{ content: `12345 13 2 ${DIGEST}` }] };
    const ns: ZoneChange = { op: 'put', name: `sub.${ZONE}`, type: 'NS', ttl: 300, records: [{ content: 'ns1.elsewhere.test' }] };
    const alone = await refusal(apply([ds]));
    expect(alone.details?.issues).toEqual([{ path: 'changes[0].type', message: `a DS needs an NS rrset at sub.${ZONE} once the changes are applied (a delegation)` }]);
    expect((await apply([ds, ns])).diff.map((d) => d.type)).toEqual(['DS', 'NS']);
    const nsOnly = await refusal(apply([del('sub', 'NS')]));
    expect(nsOnly.details?.issues).toEqual([{ path: 'changes[0]', message: `sub.${ZONE} keeps a DS once the changes are applied, which needs its NS: delete the DS too` }]);
    expect((await apply([del('sub', 'NS'), del('sub', 'DS')])).diff.map((d) => [d.op, d.type])).toEqual([['remove', 'NS'], ['remove', 'DS']]);
  });

  it('holds the plan\'s quotas on the whole set', async () => {
    const e = await refusal(apply([a('a1', '192.0.2.1'), a('a2', '192.0.2.2'), a('a3', '192.0.2.3')], { quota: { ...QUOTA, rrsets: 3 } }));
    expect([e.status, e.code]).toEqual([409, 'quota_exceeded']);
    // A set that deletes as many as it adds stays within it.
    await apply([a('a1', '192.0.2.1'), a('a2', '192.0.2.2')], { quota: { ...QUOTA, rrsets: 3 } });
    await apply([del('a1'), a('a3', '192.0.2.3')], { quota: { ...QUOTA, rrsets: 3 } });
  });

  it('a dry run answers what the write answers, generation and serial included, and keeps nothing', async () => {
    await apply([a('old', '192.0.2.9')]);
    const was = await everything();
    const set = [a('www', '192.0.2.1'), del('old')];
    const dry = await apply(set, { dryRun: true });
    expect(await everything()).toEqual(was);
    expect(await apply(set)).toEqual(dry);
  });
  it('makes the changes from the zone as its write reads it when given a function: a write committed just before is seen, not undone', async () => {
    const seen: string[][] = [];
    // The put is queued first, so it commits before the set's transaction reads the zone.
    const put = apply([a('late', '192.0.2.7')]);
    const set = applyZoneChanges(s, {
      orgId, zone: ZONE, actor: ACTOR, quota: QUOTA, changes: (current) => {
        seen.push(current.map((r) => `${r.name} ${r.type} ${r.recordsJson}`));
        return current.filter((r) => r.managedBy === null).map((r): ZoneChange => ({ op: 'delete', name: r.name, type: r.type }));
      },
    });
    await put;
    const r = await set;
    expect(seen).toEqual([[`${ZONE} NS [{"content":"ns1.hostplane.test"},{"content":"ns2.hostplane.test"}]`, `late.${ZONE} A [{"content":"192.0.2.7"}]`]]);
    expect(r.diff).toEqual([{ op: 'remove', name: `late.${ZONE}`, type: 'A', before: { ttl: 300, records: [{ content: '192.0.2.7' }] }, after: null, managedBy: null }]);
  });

  it('deletes many rrsets in one set, each with its tombstone for the reconciler', async () => {
    const labels = Array.from({ length: 620 }, (_, i) => `d${i}`);
    const unlimited = (changes: ZoneChange[]) => applyZoneChanges(s, { orgId, zone: ZONE, changes, actor: ACTOR, quota: null });
    await unlimited(labels.map((l, i) => a(l, `192.0.2.${i % 250}`)));
    const before = await getZone(s, orgId, ZONE);
    const r = await unlimited([...labels.map((l) => del(l)), a('kept', '192.0.2.1')]);
    expect(r.diff.filter((d) => d.op === 'remove')).toHaveLength(620);
    const snap = (await zoneSnapshot(s, ZONE))!;
    expect(snap.rrsets.map((x) => x.name)).toEqual([ZONE, `kept.${ZONE}`]);
    const delta = await deltaSince(s, ZONE, before.generation);
    expect(delta.removed.map((x) => x.name).sort()).toEqual(labels.map((l) => `${l}.${ZONE}`).sort());
    expect(delta.changed.map((x) => x.name)).toEqual([`kept.${ZONE}`]);
  });

  it('answers a ZoneValidationError of a changes function as the 400 it carries, and writes nothing', async () => {
    const before = await getZone(s, orgId, ZONE);
    const refusal = applyZoneChanges(s, {
      orgId, zone: ZONE, actor: ACTOR, quota: QUOTA, changes: () => {
        throw new ZoneValidationError([{ path: 'line 3', message: 'no' }]);
      },
    });
    await expect(refusal).rejects.toBeInstanceOf(ZoneValidationError);
    expect((await getZone(s, orgId, ZONE)).generation).toBe(before.generation);
  });
});

describe('the rows of a set, written as one JSON array per statement', () => {
  it('keeps every character of content and names as sent, and each audit event in the diff\'s order with its details', async () => {
    const txt = (label: string, value: string): ZoneChange => ({ op: 'put', name: `${label}.${ZONE}`, type: 'TXT', ttl: 120, records: [{ content: value }] });
    const values = ['"say \\"hi\\" \\\\ there"', '"€ 日本 \\240"', '"tab\\009 and \\034"', `"${'x'.repeat(255)}" "${'y'.repeat(40)}"`];
    const r = await apply(values.map((v, i) => txt(`t${i}`, v)));
    const stored = (await zoneSnapshot(s, ZONE))!.rrsets.filter((x) => x.type === 'TXT');
    expect(stored.map((x) => [x.name, x.ttl, x.records])).toEqual(r.diff.map((d) => [d.name, 120, d.after!.records]));
    expect(stored.map((x) => x.records[0]!.content)).toEqual(r.diff.map((d) => d.after!.records[0]!.content));
    const events = (await listAudit(s, orgId, 10)).reverse().slice(-values.length);
    expect(events.map((e) => [e.event, e.actor, e.target, e.details])).toEqual(r.diff.map((d) => [
      'dns.rrset.set', ACTOR, `${ZONE}/${d.name}/TXT`, { ttl: 120, records: 1, generation: r.generation },
    ]));
    expect(new Set(events.map((e) => e.at))).toEqual(new Set([iso(new Date(now))]));
  });

  // Each statement text is a named statement kept on every PostgreSQL connection for its life.
  it.skipIf(!onPostgres())(`leaves one named statement per kind on PostgreSQL whatever the sets' sizes${onPostgres() ? '' : ' (skipped: SQLite pass)'}`, async () => {
    for (let n = 1; n <= 40; n++) {
      const labels = Array.from({ length: n }, (_, i) => `p${n}-${i}`);
      await apply(labels.map((l) => a(l, '192.0.2.1')));
      await apply(labels.map((l) => del(l)));
    }
    const named = await s.write((tx) => tx.raw<{ name: string }>('test prepared', 'SELECT name FROM pg_prepared_statements WHERE name LIKE ?', ['hp\\_%']));
    for (const kind of ['upsertRRsets', 'deleteRRsets', 'tombstoneRRsets', 'auditRRsets', 'rrsetsAtNames']) {
      // At most: the pool may have run some kind on another connection.
      expect(named.filter((x) => x.name.startsWith(`hp_${kind}`)).length, kind).toBeLessThanOrEqual(1);
    }
  }, 60_000);
});

describe('revisions', () => {
  it('records every generation with its actor, time, summary and diff, in the change\'s transaction', async () => {
    await putRRset(s, { orgId, zone: ZONE, rrset: { name: `www.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] }, actor: ACTOR, cnameConflict: checkCnameConflict, quota: QUOTA });
    now += 1000;
    await deleteRRset(s, { orgId, zone: ZONE, name: `www.${ZONE}`, type: 'A', actor: 'user:other@acme.test' });
    await setZoneDnssec(s, { orgId, zone: ZONE, enabled: true, actor: ACTOR });
    await putManagedRRset(s, { zone: ZONE, rrset: { name: `app.${ZONE}`, type: 'A', ttl: 60, records: [{ content: '192.0.2.7' }] }, managedBy: 'app', actor: 'system' });
    const zone = await getZone(s, orgId, ZONE);
    const { items } = await listRevisions(s, ZONE, 100);
    expect(items.map((r) => [r.generation, r.actor, r.summary])).toEqual([
      [5, 'system', `added app.${ZONE} A`], [4, ACTOR, 'DNSSEC on'], [3, 'user:other@acme.test', `removed www.${ZONE} A`],
      [2, ACTOR, `added www.${ZONE} A`], [1, ACTOR, 'zone created'],
    ]);
    expect(items[0]!.generation).toBe(zone.generation);
    expect(items[0]!.serial).toBe(zone.serial);
    expect(items[2]!.at).toBe(iso(new Date(T0 + 1000)));
    expect((await getRevision(s, ZONE, 3)).diff).toEqual([
      { op: 'remove', name: `www.${ZONE}`, type: 'A', before: { ttl: 300, records: [{ content: '192.0.2.1' }] }, after: null, managedBy: null },
    ]);
    const page = await listRevisions(s, ZONE, 2, 4);
    expect(page.items.map((r) => r.generation)).toEqual([3, 2]);
    expect(page.next).toBe(2);
  });

  it('goes with its zone: a zone created again under the name starts afresh', async () => {
    await apply([a('www', '192.0.2.1')]);
    await deleteZone(s, { orgId, name: ZONE, actor: ACTOR });
    await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test'], actor: ACTOR, quota: null });
    expect((await listRevisions(s, ZONE, 100)).items.map((r) => r.summary)).toEqual(['zone created']);
  });

  it('are pruned once older than 90 days, by the store\'s clock', async () => {
    await apply([a('www', '192.0.2.1')]);
    now += 10 * DAY;
    await apply([a('api', '192.0.2.2')]);
    now = T0 + REVISION_KEEP_MS;
    expect(await pruneZoneRevisions(s)).toBe(0);
    now = T0 + REVISION_KEEP_MS + 1000;
    expect(await pruneZoneRevisions(s)).toBe(2);
    expect((await listRevisions(s, ZONE, 100)).items.map((r) => r.generation)).toEqual([3]);
  });

  it('of change sets are kept within REVISION_BYTES_PER_ZONE_BYTES times the plan\'s zone size, oldest first, the newest always', async () => {
    const quota = { ...QUOTA, bytes: 2000 };
    const cap = REVISION_BYTES_PER_ZONE_BYTES * quota.bytes;
    const content = (round: number) => [{ content: `${round}`.padEnd(400, 'x') }];
    const txt = (label: string, round: number): ZoneChange => ({ op: 'put', name: `${label}.${ZONE}`, type: 'TXT', ttl: 300, records: content(round) });
    const generations: number[] = [];
    for (let round = 0; round < 12; round++) generations.push((await apply(['a', 'b', 'c'].map((l) => txt(l, round)), { quota })).generation);
    const kept = (await listRevisions(s, ZONE, 100)).items.map((r) => r.generation);
    const bytes = await Promise.all(kept.map(async (g) => (await s.raw<{ bytes: number }>('revisionBytes', 'SELECT bytes FROM zone_revisions WHERE zone = ? AND generation = ?', [ZONE, g]))[0]!.bytes));
    // Every set stored its rrsets' bytes; the kept ones but the newest fit under the cap, one more would not.
    expect(bytes.every((b) => Number(b) > 0)).toBe(true);
    expect(bytes.slice(1).reduce((x, y) => x + Number(y), 0)).toBeLessThanOrEqual(cap);
    expect(bytes.reduce((x, y) => x + Number(y), 0) + Number(bytes.at(-1))).toBeGreaterThan(cap);
    // The oldest went as a prefix: what is kept runs without a gap to the newest, so a restore to any of them works.
    expect(kept).toEqual(generations.slice(-kept.length).reverse());
    expect(kept.length).toBeLessThan(generations.length);
    await refusal(restoreZoneRevision(s, { orgId, zone: ZONE, generation: generations[0]!, actor: ACTOR, quota }));
    const oldest = kept.at(-1)!;
    await restoreZoneRevision(s, { orgId, zone: ZONE, generation: oldest, actor: ACTOR, quota });
    expect((await zoneSnapshot(s, ZONE))!.rrsets.find((r) => r.name === `a.${ZONE}`)!.records).toEqual(content(generations.indexOf(oldest)));
  });

  it('are pruned by the feed\'s pruning loop, which serve runs', async () => {
    await apply([a('www', '192.0.2.1')]);
    now = T0 + REVISION_KEEP_MS + 1000;
    const pruning = startFeedPruning(s, createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) }), 10, FEED_RETENTION, [pruneZoneRevisions]);
    try {
      await until('revisions pruned', async () => (await listRevisions(s, ZONE, 100)).items.length === 0);
    } finally {
      await pruning.stop();
    }
  });
});

describe('the revisions\' running total', () => {
  const quota = { ...QUOTA, bytes: 2000 };
  const cap = REVISION_BYTES_PER_ZONE_BYTES * quota.bytes;
  type Step = 'set' | 'big set' | 'single' | 'restore' | 'dry run' | 'age' | 'prune' | 'recreate';
  let round = 0;
  const txt = (label: string, size = 400): ZoneChange => ({ op: 'put', name: `${label}.${ZONE}`, type: 'TXT', ttl: 300, records: [{ content: `${round}`.padEnd(size, 'x') }] });
  /** What the store keeps, as the cap before the running total chose it: from the newest change set back, the
   * revisions whose bytes fit, the newest always, and every revision before the first one that did not fit goes. */
  const capped = (kept: { generation: number; bytes: number; at: number }[]): typeof kept => {
    let sum = 0;
    const sets = kept.filter((r) => r.bytes > 0).reverse();
    const first = sets.find((r, i) => (sum += r.bytes) > cap && i > 0);
    return first ? kept.filter((r) => r.generation > first.generation) : kept;
  };
  async function newest(): Promise<{ generation: number; bytes: number; at: number }> {
    const [r] = await s.raw<{ generation: number; bytes: number }>('newestRevision', 'SELECT generation, bytes FROM zone_revisions WHERE zone = ? ORDER BY generation DESC LIMIT 1', [ZONE]);
    return { generation: Number(r!.generation), bytes: Number(r!.bytes), at: now };
  }
  async function run(steps: Step[]): Promise<void> {
    let model = [await newest()];
    for (const [i, step] of steps.entries()) {
      round++;
      if (step === 'set') await apply(['a', 'b', 'c'].map((l) => txt(l)), { quota });
      if (step === 'big set') await apply(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((l) => txt(l, 1000)), { quota: { ...quota, bytes: 20_000 } });
      if (step === 'single') await putRRset(s, { orgId, zone: ZONE, rrset: { name: `one.${ZONE}`, type: 'TXT', ttl: 300, records: [{ content: `${round}` }] }, actor: ACTOR, cnameConflict: checkCnameConflict, quota });
      if (step === 'restore') await restoreZoneRevision(s, { orgId, zone: ZONE, generation: model[0]!.generation, actor: ACTOR, quota });
      if (step === 'dry run') await apply([txt('a')], { quota, dryRun: true });
      if (step === 'age') now += 60 * DAY;
      if (step === 'prune') await pruneZoneRevisions(s);
      if (step === 'recreate') {
        await deleteZone(s, { orgId, name: ZONE, actor: ACTOR });
        const [left] = await s.raw<{ n: number }>('revisionsLeft', 'SELECT count(*) AS n FROM zone_revisions WHERE zone = ?', [ZONE]);
        expect(Number(left!.n), `step ${i}: ${step}`).toBe(0);
        await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test'], actor: ACTOR, quota: null });
        model = [];
      }
      if (step === 'prune') model = model.filter((r) => r.at >= now - REVISION_KEEP_MS);
      else if (step !== 'age' && step !== 'dry run') model = step === 'single' ? [...model, await newest()] : capped([...model, await newest()]);
      const [row] = await s.raw<{ total: number; kept: number }>('revisionTotal', `SELECT revision_bytes AS total,
        (SELECT coalesce(sum(bytes), 0) FROM zone_revisions WHERE zone = zones.name) AS kept FROM zones WHERE name = ?`, [ZONE]);
      expect(Number(row!.total), `step ${i}: ${step}`).toBe(Number(row!.kept));
      expect((await listRevisions(s, ZONE, 1000)).items.map((r) => r.generation).reverse(), `step ${i}: ${step}`).toEqual(model.map((r) => r.generation));
    }
  }

  it.each<[string, Step[]]>([
    ['change sets within the cap', ['set', 'set', 'set', 'dry run']],
    ['change sets past the cap, which drop the oldest', Array<Step>(12).fill('set')],
    ['single rrsets between change sets, dropped with the sets around them', ['set', 'single', 'set', 'single', 'single', ...Array<Step>(8).fill('set'), 'single', 'set']],
    ['a set larger than the cap alone, then small ones', ['set', 'set', 'big set', 'set', 'set', 'set']],
    ['restores, which are change sets', ['set', 'set', 'restore', 'set', 'restore', ...Array<Step>(6).fill('set'), 'restore']],
    ['prunes after 90 days, partly and wholly', ['set', 'set', 'age', 'set', 'single', 'age', 'prune', 'set', 'age', 'age', 'prune', 'set', 'set']],
    ['the zone deleted and created again', ['set', 'set', 'set', 'recreate', 'set', 'single', 'recreate', ...Array<Step>(10).fill('set')]],
  ])('stays the sum of the kept revisions\' bytes, and the cap keeps what it kept before: %s', async (_what, steps) => {
    await run(steps);
  });

  it('is filled for the zones of a store made before it, by the migration that adds it', async () => {
    await run(['set', 'single', 'set']);
    const total = async (): Promise<number> => Number((await s.raw<{ total: number }>('revisionTotalOnly', 'SELECT revision_bytes AS total FROM zones WHERE name = ?', [ZONE]))[0]!.total);
    const kept = await total();
    expect(kept).toBeGreaterThan(0);
    const file = s.dialect === 'postgres' ? 'migrations-pg/0012_zone_revision_total.sql' : 'migrations/0027_zone_revision_total.sql';
    const [add, fill] = readFileSync(join(ROOT, 'store', file), 'utf8').split('--> statement-breakpoint');
    expect(add).toMatch(/ADD (COLUMN )?.revision_bytes. /);
    await s.write(async (tx) => {
      await tx.raw('forgetRevisionTotal', 'UPDATE zones SET revision_bytes = 0', []);
      await tx.raw('fillRevisionTotal', fill!, []);
    });
    expect(await total()).toBe(kept);
  });
});

describe('restoreZoneRevision', () => {
  const restore = (generation: number, dryRun = false) => restoreZoneRevision(s, { orgId, zone: ZONE, generation, actor: ACTOR, quota: QUOTA, dryRun });

  it('puts the customer\'s rrsets back as they were, as a new generation with a higher serial, and leaves the service\'s alone', async () => {
    const g = (await apply([a('www', '192.0.2.1'), a('api', '192.0.2.2')])).generation;
    const snapAt = (await zoneSnapshot(s, ZONE))!.rrsets;
    now += 1000;
    await apply([a('www', '192.0.2.9', 60), del('api'), a('new', '192.0.2.3')]);
    await putManagedRRset(s, { zone: ZONE, rrset: { name: `app.${ZONE}`, type: 'A', ttl: 60, records: [{ content: '192.0.2.7' }] }, managedBy: 'app', actor: 'system' });
    const before = await getZone(s, orgId, ZONE);
    now += 1000;
    const dry = await restore(g, true);
    expect((await getZone(s, orgId, ZONE)).generation).toBe(before.generation);
    const r = await restore(g);
    expect(r).toEqual(dry);
    expect(r.generation).toBe(before.generation + 1);
    expect(r.serial).toBeGreaterThan(before.serial);
    expect(r.diff.map((d) => [d.op, d.name])).toEqual([['add', `api.${ZONE}`], ['remove', `new.${ZONE}`], ['change', `www.${ZONE}`]]);
    const rrsets = (await zoneSnapshot(s, ZONE))!.rrsets;
    expect(rrsets.filter((x) => x.managedBy !== 'app')).toEqual(snapAt);
    expect(rrsets.some((x) => x.managedBy === 'app')).toBe(true);
    expect((await listRevisions(s, ZONE, 1)).items[0]!.summary).toMatch(new RegExp(`^restored generation ${g}: 3 rrsets: `));
    // One event for the restore, with what it changed: a restore names no rrset, so it writes no event per rrset.
    const events = (await listAudit(s, orgId, 1000)).filter((e) => Date.parse(e.at) === now);
    expect(events.map((e) => [e.event, e.target, e.details])).toEqual([['dns.zone.restore', ZONE, { generation: g, to: r.generation, added: 1, changed: 1, removed: 1 }]]);
  });

  it('is 404 for a revision that is not kept', async () => {
    const e = await refusal(restore(99));
    expect([e.status, e.code]).toEqual([404, 'not_found']);
  });
});
