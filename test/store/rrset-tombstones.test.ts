/** Pruning of rrset tombstones (store/rrset-tombstones.ts): what goes (applied by the zone's reconciler and older than
 * the grace), the zone's mark raised with it, readers behind the mark sent to read the zone whole, and the chunks. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOrg } from '../../store/accounts';
import type { Store } from '../../store/db';
import { pruneRRsetTombstones, TOMBSTONE_RETENTION } from '../../store/rrset-tombstones';
import { recordStatus } from '../../store/status';
import { applyZoneChanges, type ZoneChange } from '../../store/zone-changes';
import { createZone, deleteZone, zoneByName, zoneChangesSince, ZONE_STATUS } from '../../store/zones';
import { onPostgres, openTestStore } from '../helpers/store';
import { deltaSince } from '../helpers/zone-read';

const ZONE = 'churn.test';
const OTHER = 'other.test';
const ACTOR = 'user:owner@acme.test';
const GRACE = TOMBSTONE_RETENTION.graceMs;

let s: Store;
let orgId: number;
let now: number;

const put = (zone: string, label: string): ZoneChange => ({ op: 'put', name: `${label}.${zone}`, type: 'TXT', ttl: 300, records: [{ content: `"${label}"` }] });
const del = (zone: string, label: string): ZoneChange => ({ op: 'delete', name: `${label}.${zone}`, type: 'TXT' });
const apply = (zone: string, changes: ZoneChange[]) => applyZoneChanges(s, { orgId, zone, changes, actor: ACTOR, quota: null });
const zone = async (name = ZONE) => (await zoneByName(s, name))!;

/** The zone reconciler applied generation `generation` of the zone (its status says so). */
async function applied(name: string, generation?: number): Promise<void> {
  const z = await zone(name);
  await recordStatus(s, ZONE_STATUS, name, { uid: z.uid, generation: generation ?? z.generation });
}

/** The zone's tombstones, by name. */
const tombstones = async (name = ZONE) => (await s.raw<{ name: string; gen: number }>('test tombstones',
  'SELECT name, gen FROM rrset_tombstones WHERE zone = ? ORDER BY name', [name])).map((t) => [t.name.split('.')[0], t.gen]);

beforeEach(async () => {
  now = Date.parse('2026-11-29T12:00:00Z');
  s = await openTestStore(':memory:', { clock: () => new Date(now) });
  orgId = (await createOrg(s, 'acme', 'free')).id;
  for (const name of [ZONE, OTHER]) {
    await createZone(s, { orgId, name, nameservers: ['ns1.hostplane.test', 'ns2.hostplane.test'], actor: ACTOR, quota: null });
    await apply(name, ['a', 'b', 'c', 'd', 'e', 'f'].map((l) => put(name, l)));
  }
});
afterEach(() => s.close());

describe('pruneRRsetTombstones', () => {
  it('prunes the tombstones the zone\'s reconciler applied once the grace has passed, and raises the zone\'s mark to them', async () => {
    const { generation: g0 } = await zone();
    await apply(ZONE, [del(ZONE, 'a'), del(ZONE, 'b')]);
    now += GRACE / 2;
    await apply(ZONE, [del(ZONE, 'c')]);
    await applied(ZONE);
    await apply(ZONE, [del(ZONE, 'd')]);
    expect(await tombstones()).toEqual([['a', g0 + 1], ['b', g0 + 1], ['c', g0 + 2], ['d', g0 + 3]]);
    // Nothing is older than the grace yet.
    expect(await pruneRRsetTombstones(s)).toBe(0);
    expect((await zone()).tombstonesPrunedTo).toBe(0);
    now += GRACE / 2 + 1000;
    expect(await pruneRRsetTombstones(s)).toBe(2);
    expect(await tombstones()).toEqual([['c', g0 + 2], ['d', g0 + 3]]);
    expect((await zone()).tombstonesPrunedTo).toBe(g0 + 1);
    // c is old enough now; d too, but the reconciler has not applied it.
    now += GRACE;
    expect(await pruneRRsetTombstones(s)).toBe(1);
    expect(await tombstones()).toEqual([['d', g0 + 3]]);
    expect((await zone()).tombstonesPrunedTo).toBe(g0 + 2);
    expect(await pruneRRsetTombstones(s)).toBe(0);
  });

  it('keeps the tombstones of a zone whose reconciler recorded nothing of this lifetime, also when that changes as it prunes', async () => {
    await apply(ZONE, [del(ZONE, 'a')]);
    now += 2 * GRACE;
    expect(await pruneRRsetTombstones(s)).toBe(0);
    const z = await zone();
    await recordStatus(s, ZONE_STATUS, ZONE, { uid: 'an earlier lifetime', generation: z.generation });
    const writes = s.stats().writes;
    expect(await pruneRRsetTombstones(s)).toBe(0);
    // Not even a transaction for it.
    expect(s.stats().writes).toBe(writes);
    // Listed with a status of its lifetime, which another lifetime's (a late pass of the zone deleted before) replaces.
    await applied(ZONE);
    const racing: Store = {
      ...s,
      raw: async <R>(key: string, text: string, params?: readonly unknown[]): Promise<R[]> => {
        const rows = await s.raw<R>(key, text, params);
        if (key === 'zonesWithPrunableTombstones') await recordStatus(s, ZONE_STATUS, ZONE, { uid: 'an earlier lifetime', generation: z.generation });
        return rows;
      },
    };
    expect(await pruneRRsetTombstones(racing)).toBe(0);
    expect(await tombstones()).toEqual([['a', z.generation]]);
  });

  it('sends a reader of the changes since a generation below the mark to read the zone whole; from the mark on it reads them', async () => {
    const { generation: g0 } = await zone();
    await apply(ZONE, [del(ZONE, 'a')]);
    await apply(ZONE, [put(ZONE, 'new')]);
    await applied(ZONE);
    now += GRACE + 1000;
    await apply(ZONE, [del(ZONE, 'b')]);
    expect(await pruneRRsetTombstones(s)).toBe(1);
    const z = await zone();
    expect(z.tombstonesPrunedTo).toBe(g0 + 1);
    // Since g0 the deletion of a is not known any more: without the mark this read would answer `new` and b alone.
    expect(await zoneChangesSince(s, ZONE, g0, 1000)).toEqual({ zone: z, more: true });
    const since = await deltaSince(s, ZONE, g0 + 1);
    expect([since.changed.map((r) => r.name), since.removed]).toEqual([[`new.${ZONE}`], [{ name: `b.${ZONE}`, type: 'TXT' }]]);
  });

  it('deletes `chunk` tombstones a transaction and `maxRows` a run at most, zone by zone; the next run takes the rest', async () => {
    const r = { ...TOMBSTONE_RETENTION, chunk: 2, maxRows: 3 };
    const { generation: g0 } = await zone();
    await apply(ZONE, ['a', 'b', 'c'].map((l) => del(ZONE, l)));
    await apply(ZONE, ['d', 'e'].map((l) => del(ZONE, l)));
    await apply(OTHER, ['a', 'b', 'c'].map((l) => del(OTHER, l)));
    await applied(ZONE);
    await applied(OTHER);
    now += GRACE + 1000;
    const writes = s.stats().writes;
    expect(await pruneRRsetTombstones(s, r)).toBe(3);
    expect(s.stats().writes - writes).toBe(2);
    // The mark says what may be gone, not what is: all of a generation once any of it is.
    expect(await tombstones(ZONE)).toEqual([['d', g0 + 2], ['e', g0 + 2]]);
    expect((await zone(ZONE)).tombstonesPrunedTo).toBe(g0 + 1);
    expect(await pruneRRsetTombstones(s, r)).toBe(3);
    expect(await tombstones(ZONE)).toEqual([]);
    expect((await zone(ZONE)).tombstonesPrunedTo).toBe(g0 + 2);
    expect((await tombstones(OTHER)).map(([name]) => name)).toEqual(['b', 'c']);
    expect((await zone(OTHER)).tombstonesPrunedTo).toBe((await zone(OTHER)).generation);
    expect(await pruneRRsetTombstones(s, r)).toBe(2);
    expect(await tombstones(OTHER)).toEqual([]);
    expect(await pruneRRsetTombstones(s, r)).toBe(0);
  });

  it('a zone deleted and created again starts with no mark and no tombstones', async () => {
    await apply(ZONE, [del(ZONE, 'a')]);
    await applied(ZONE);
    now += GRACE + 1000;
    await pruneRRsetTombstones(s);
    expect((await zone()).tombstonesPrunedTo).toBeGreaterThan(0);
    await deleteZone(s, { orgId, name: ZONE, actor: ACTOR });
    await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test'], actor: ACTOR, quota: null });
    expect((await zone()).tombstonesPrunedTo).toBe(0);
    expect(await tombstones()).toEqual([]);
  });

  it.skipIf(onPostgres())(`reads a pass's tombstones by generation: only those after it, not every tombstone of the zone${onPostgres() ? ' (skipped: SQLite\'s plan)' : ''}`, async () => {
    await apply(ZONE, [put(ZONE, 'a'), put(ZONE, 'b')]);
    await apply(ZONE, [del(ZONE, 'a'), del(ZONE, 'b')]);
    const since = (await zone()).generation;
    const read = vi.spyOn(s, 'raw');
    await zoneChangesSince(s, ZONE, since, 40);
    const [, text, params] = read.mock.calls.find(([label]) => label === 'zoneRemovedRRsets')!;
    read.mockRestore();
    const plan = await s.raw<{ detail: string }>('test plan', `EXPLAIN QUERY PLAN ${text}`, params);
    expect(plan.map((p) => p.detail).join('; ')).toMatch(/rrset_tombstones_zone_gen \(zone=\? AND gen>\?\)/);
  });
});
