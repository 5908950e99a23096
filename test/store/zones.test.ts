/** Reads of a zone that must belong to one generation (the zone reconciler's snapshot and delta) while another
 * process writes the zone: each statement reads its own snapshot on both databases, so a write committed between
 * two of them must not mix generations (issue 22). */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { removeTempDirs, tempDir } from '../../harness/temp';
import { createOrg } from '../../store/accounts';
import { type Store } from '../../store/db';
import { onPostgres, openTestStore } from '../helpers/store';
import { deltaSince } from '../helpers/zone-read';
import { createZone, deleteRRset, getZone, putRRset, zoneByName, zoneChangesSince, zoneRRsetPage, zoneSnapshot } from '../../store/zones';
import { checkCnameConflict, type RRset } from '../../zonefiles';

const ZONE = 'customer.test';
const QUOTA = { plan: 'free', rrsets: 5000, bytes: 5 * 1024 * 1024 };

let s: Store;
/** Another process's store on the same data. */
let other: Store;
let orgId: number;

beforeEach(async () => {
  const dir = tempDir('hostplane-zones-');
  s = await openTestStore(dir);
  other = await openTestStore(dir);
  orgId = (await createOrg(s, 'acme', 'free')).id;
  await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test', 'ns2.hostplane.test'], actor: 'user:owner@acme.test', quota: null });
});
afterEach(() => {
  s.close();
  other.close();
  removeTempDirs();
});

const txt = (label: string): RRset => ({ name: `${label}.${ZONE}`, type: 'TXT', ttl: 300, records: [{ content: `"${label}"` }] });
const put = (store: Store, rrset: RRset) =>
  putRRset(store, { orgId, zone: ZONE, rrset, actor: 'user:owner@acme.test', cnameConflict: checkCnameConflict, quota: QUOTA });

/** `s`, whose raw read `key` lets the other process commit one more rrset right after it, `times` times. */
function racing(key: string, times: number): { store: Store; written: string[] } {
  const written: string[] = [];
  const store: Store = {
    ...s,
    raw: async <R>(k: string, text: string, params?: readonly unknown[]): Promise<R[]> => {
      const rows = await s.raw<R>(k, text, params);
      if (k === key && written.length < times) {
        const label = `late${written.length}`;
        await put(other, txt(label));
        written.push(`${label}.${ZONE}`);
      }
      return rows;
    },
  };
  return { store, written };
}

describe('zoneSnapshot', () => {
  it('reads again when a write commits between its statements: the rrsets are those of the zone row\'s generation', async () => {
    const { store, written } = racing('zoneRRsets', 1);
    const snap = (await zoneSnapshot(store, ZONE))!;
    expect(written).toEqual([`late0.${ZONE}`]);
    expect(snap.zone.generation).toBe((await zoneByName(s, ZONE))!.generation);
    expect(snap.rrsets.map((r) => r.name)).toContain(`late0.${ZONE}`);
  });

  it('gives up, and says so, when the zone moves on during every read', async () => {
    const { store } = racing('zoneRRsets', 10);
    await expect(zoneSnapshot(store, ZONE)).rejects.toThrow(`zone ${ZONE} changed during each of 5 reads`);
  });

  it('answers undefined for a zone that does not exist', async () => {
    expect(await zoneSnapshot(s, 'absent.test')).toBeUndefined();
  });
});

describe('zoneChangesSince', () => {
  it('reads again when a write commits between its statements: the changes reach the zone row\'s generation', async () => {
    const since = (await zoneByName(s, ZONE))!.generation;
    await put(s, txt('first'));
    const { store, written } = racing('zoneChangedRRsets', 1);
    const delta = await deltaSince(store, ZONE, since);
    expect(written).toEqual([`late0.${ZONE}`]);
    expect(delta.zone.generation).toBe(since + 2);
    expect(delta.changed.map((r) => r.name).sort()).toEqual([`first.${ZONE}`, `late0.${ZONE}`]);
    expect(delta.removed).toEqual([]);
  });

  it('answers no changes, and the zone row, when nothing was written since', async () => {
    const z = (await zoneByName(s, ZONE))!;
    expect(await deltaSince(s, ZONE, z.generation)).toEqual({ zone: z, changed: [], removed: [] });
  });

  it('with atMost, answers `more` once more rrsets than that were written or deleted since, and the whole change up to it', async () => {
    const since = (await zoneByName(s, ZONE))!.generation;
    for (const label of ['a', 'b', 'c']) await put(s, txt(label));
    await deleteRRset(s, { orgId, zone: ZONE, name: `c.${ZONE}`, type: 'TXT', actor: 'test' });
    const z = (await zoneByName(s, ZONE))!;
    // Two written (a, b) and one deleted (c): three rrsets.
    expect(await zoneChangesSince(s, ZONE, since, 2)).toEqual({ zone: z, more: true });
    const whole = await zoneChangesSince(s, ZONE, since, 3);
    expect(whole).toEqual(await deltaSince(s, ZONE, since));
    expect(whole && 'changed' in whole && [whole.changed.map((r) => r.name).sort(), whole.removed]).toEqual([[`a.${ZONE}`, `b.${ZONE}`], [{ name: `c.${ZONE}`, type: 'TXT' }]]);
    // Nothing since: one row of nulls from each statement is no change.
    expect(await zoneChangesSince(s, ZONE, z.generation, 0)).toEqual({ zone: z, changed: [], removed: [] });
  });
});

// On PostgreSQL each statement is a round trip, and the zone's lock is held across all but the first: the count is
// what a write costs in CPU and in lock time. SQLite runs the statements in the process.
describe.skipIf(!onPostgres())(`round trips on PostgreSQL${onPostgres() ? '' : ' (skipped: SQLite pass)'}`, () => {
  const roundTrips = async (fn: () => Promise<unknown>): Promise<number> => {
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      await fn();
      return query.mock.calls.length;
    } finally {
      query.mockRestore();
    }
  };

  it('putRRset reads the zone and the rrsets at the name in one statement, and writes with its COMMIT: 3 for a change, 3 for the rrset as stored', async () => {
    // BEGIN with the zone lock, zone and rrsets, then the zone update, the zone's revision, the rrset, the audit row
    // and the feed lock with its row in one statement (store/feed.ts recordChange) sent with NOTIFY, COMMIT and flush.
    expect(await roundTrips(() => put(s, txt('www')))).toBe(3);
    // BEGIN with the zone lock, zone and rrsets, audit row with NOTIFY, COMMIT and flush.
    expect(await roundTrips(() => put(s, txt('www')))).toBe(3);
    const [row] = await s.raw<{ n: number }>('audited', "SELECT count(*) AS n FROM audit WHERE event = 'dns.rrset.set'");
    expect(row!.n).toBe(2);
  });

  it('getZone reads the zone with its status in one statement, and a page of rrsets, the apex with the rest, in one', async () => {
    await put(s, txt('www'));
    expect(await roundTrips(() => getZone(s, orgId, ZONE))).toBe(1);
    let page: Awaited<ReturnType<typeof zoneRRsetPage>> | undefined;
    expect(await roundTrips(async () => {
      page = await zoneRRsetPage(s, ZONE, 1000, 1 << 20);
    })).toBe(1);
    expect(page!.items.map((r) => r.name)).toEqual([ZONE, `www.${ZONE}`]);
  });
});
