/** A zone's rrsets read page by page at one generation (zoneRRsetsAt, what exportZone streams): the pages together
 * are zoneWithRRsets's list; a write after the generation in the part not read yet fails the read, one in the part
 * read already does not, and tombstones pruned after the generation fail it. */
import { beforeEach, afterEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../lib/errors';
import { createOrg } from '../../store/accounts';
import type { Store } from '../../store/db';
import { pruneRRsetTombstones, TOMBSTONE_RETENTION } from '../../store/rrset-tombstones';
import { recordStatus } from '../../store/status';
import { applyZoneChanges, type ZoneChange } from '../../store/zone-changes';
import { createZone, deleteZone, getZone, ZONE_STATUS, zoneRRsetsAt, type ZoneRow } from '../../store/zones';
import { zoneWithRRsets } from '../helpers/zone-read';
import { openTestStore } from '../helpers/store';

const ZONE = 'pages.test';
const ACTOR = 'user:owner@acme.test';
const PAGE = 10;
/** Owners sort as their numbers do, some before the apex's name and some after it. */
const owner = (i: number): string => `${i < 20 ? 'a' : 'z'}${String(i).padStart(3, '0')}.${ZONE}`;

let s: Store;
let orgId: number;
let now: number;

const apply = (changes: ZoneChange[]) => applyZoneChanges(s, { orgId, zone: ZONE, changes, actor: ACTOR, quota: null });
const put = (name: string, ip: string): ZoneChange => ({ op: 'put', name, type: 'A', ttl: 300, records: [{ content: ip }] });

beforeEach(async () => {
  now = Date.parse('2026-11-29T12:00:00Z');
  s = await openTestStore(':memory:', { clock: () => new Date(now) });
  orgId = (await createOrg(s, 'acme', 'free')).id;
  await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test', 'ns2.hostplane.test'], actor: ACTOR, quota: null });
  await apply([
    { op: 'put', name: ZONE, type: 'MX', ttl: 300, records: [{ content: `10 mail.${ZONE}` }] },
    ...Array.from({ length: 35 }, (_, i) => put(owner(i), `192.0.2.${i}`)),
  ]);
});
afterEach(() => s.close());

/** Reads the pages one at a time (through `store`), running `between` after the page numbered `at` (from 0). */
async function read(zone: ZoneRow, between?: { at: number; then: () => Promise<unknown> }, store = s): Promise<unknown[][]> {
  const pages: unknown[][] = [];
  for await (const page of zoneRRsetsAt(store, zone, PAGE, Infinity)) {
    pages.push(page);
    if (between && pages.length - 1 === between.at) await between.then();
  }
  return pages;
}

const failure = async (p: Promise<unknown>): Promise<AppError> => {
  const e = await p.then(() => undefined, (x: unknown) => x);
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
};

describe('zoneRRsetsAt', () => {
  it('reads the zone in pages, together zoneWithRRsets\'s list in its order (the apex rrsets first)', async () => {
    const zone = await getZone(s, orgId, ZONE);
    const pages = await read(zone);
    expect(pages.length).toBeGreaterThan(3);
    expect(pages.slice(0, -1).every((p) => p.length <= PAGE + 2)).toBe(true);
    expect(pages.flat()).toEqual((await zoneWithRRsets(s, orgId, ZONE)).rrsets);
  });

  it('ends a page once its stored bytes reach maxBytes, its statement reading no rrset after the page but one', async () => {
    // 12 TXT rrsets of about 2,000 bytes after 20 small ones: pages of 3 of them under maxBytes 5,000.
    await apply(Array.from({ length: 12 }, (_, i): ZoneChange => ({ op: 'put', name: `b${String(i).padStart(2, '0')}.${ZONE}`, type: 'TXT', ttl: 300, records: [{ content: 'x'.repeat(2000) }] })));
    const zone = await getZone(s, orgId, ZONE);
    const raw = vi.spyOn(s, 'raw');
    const pages: unknown[][] = [];
    for await (const page of zoneRRsetsAt(s, zone, PAGE, 5000)) pages.push(page);
    expect(pages.flat()).toEqual((await zoneWithRRsets(s, orgId, ZONE)).rrsets);
    const large = pages.map((p) => p.filter((r) => (r as { type: string }).type === 'TXT').length);
    expect(large.filter((n) => n > 0)).toEqual([3, 3, 3, 3]);
    // A page's statement reads the page and the row after it, not PAGE + 1 rows of which the page keeps 3 (the
    // first page's also reads the apex rrsets, which come beyond PAGE).
    const read = await Promise.all(raw.mock.calls.flatMap(([key], i) => key === 'zoneRRsetPage' ? [raw.mock.results[i]!.value as Promise<unknown[]>] : []));
    expect(read).toHaveLength(pages.length);
    expect(read.slice(1).map((rows, i) => rows.length - pages[i + 1]!.length)).toEqual([...pages.slice(2).map(() => 1), 0]);
  });

  it('answers the generation it started at when a write changes or deletes only rrsets already read', async () => {
    const zone = await getZone(s, orgId, ZONE);
    const before = (await zoneWithRRsets(s, orgId, ZONE)).rrsets;
    const pages = await read(zone, { at: 1, then: () => apply([put(owner(0), '198.51.100.1'), { op: 'delete', name: owner(1), type: 'A' }]) });
    expect(pages.flat()).toEqual(before);
  });

  it('fails with 409 zone_changed when a write changes, adds or deletes an rrset not read yet, or the zone goes', async () => {
    const writes: (() => Promise<unknown>)[] = [
      () => apply([put(owner(30), '198.51.100.1')]),
      () => apply([put(`z999.${ZONE}`, '198.51.100.2')]),
      () => apply([{ op: 'delete', name: owner(34), type: 'A' }]),
      () => deleteZone(s, { orgId, name: ZONE, actor: ACTOR }),
    ];
    for (const then of writes) {
      const zone = await getZone(s, orgId, ZONE);
      const e = await failure(read(zone, { at: 0, then }));
      expect([e.status, e.code]).toEqual([409, 'zone_changed']);
    }
  });

  it('fails with 409 zone_changed, rather than answer a page missing a deletion, when the deletion\'s tombstone is pruned as it reads', async () => {
    const zone = await getZone(s, orgId, ZONE);
    await apply([{ op: 'delete', name: owner(34), type: 'A' }]);
    const deleted = await getZone(s, orgId, ZONE);
    await recordStatus(s, ZONE_STATUS, ZONE, { uid: deleted.uid, generation: deleted.generation });
    now += TOMBSTONE_RETENTION.graceMs + 1000;
    // The prune commits after the last page's read of the zone row, just before its read of the tombstones.
    let pruned: number | undefined;
    const racing: Store = {
      ...s,
      raw: async <R>(key: string, text: string, params?: readonly unknown[]): Promise<R[]> => {
        if (key === 'zoneTombstonesAfter' && pruned === undefined) pruned = await pruneRRsetTombstones(s);
        return s.raw<R>(key, text, params);
      },
    };
    const e = await failure(read(zone, undefined, racing));
    expect(pruned).toBe(1);
    expect([e.status, e.code]).toEqual([409, 'zone_changed']);
  });
});
