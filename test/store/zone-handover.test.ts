/** The zone diffs writes hand over to the zone's pass (store/zone-handover.ts): they say what a read of the store
 * would (zoneChangesSince) for every generation since, and nothing where a generation between was not handed over. On
 * both stores. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOrg } from '../../store/accounts';
import { recordAliasLooks } from '../../store/aliases';
import type { Store } from '../../store/db';
import { applyZoneChanges, type ZoneChange } from '../../store/zone-changes';
import { acceptHandovers } from '../../store/zone-handover';
import {
  createZone, deleteManagedRRset, deleteRRset, deleteZone, putManagedRRset, putRRset, setZoneDnssec, zoneByName, zoneChangesHandedOver,
  zoneChangesSince, type ZoneDelta,
} from '../../store/zones';
import { aliasAnswer, checkCnameConflict, type RRset } from '../../zonefiles';
import { openTestStore } from '../helpers/store';

const ZONE = 'handed.test';
const QUOTA = { plan: 'free', rrsets: 5000, bytes: 5 << 20 };

let s: Store;
let orgId: number;

const txt = (label: string, text = label): RRset => ({ name: `${label}.${ZONE}`, type: 'TXT', ttl: 300, records: [{ content: `"${text}"` }] });
const put = (rrset: RRset, more: { dryRun?: boolean; quota?: typeof QUOTA } = {}) =>
  putRRset(s, { orgId, zone: ZONE, actor: 't', cnameConflict: checkCnameConflict, quota: more.quota ?? QUOTA, rrset, ...(more.dryRun && { dryRun: true }) });
const del = (label: string) => deleteRRset(s, { orgId, zone: ZONE, name: `${label}.${ZONE}`, type: 'TXT', actor: 't' });
const change = (changes: ZoneChange[]) => applyZoneChanges(s, { orgId, zone: ZONE, changes, actor: 't', quota: null });
const zone = async () => (await zoneByName(s, ZONE))!;

const byKey = (a: { name: string; type: string }, b: { name: string; type: string }) => `${a.name} ${a.type}`.localeCompare(`${b.name} ${b.type}`);
/** A delta with its lists in one order, to compare a read with a handover. */
const sorted = (d: ZoneDelta | { more: true } | undefined) => d && ('more' in d ? 'more' : {
  zone: d.zone, changed: [...d.changed].sort(byKey), removed: [...d.removed].sort(byKey),
});
const handed = async (since: number, atMost = 1000) => sorted(zoneChangesHandedOver(s, await zone(), since, atMost));
const read = async (since: number, atMost = 1000) => sorted(await zoneChangesSince(s, ZONE, since, atMost));
/** The zone is `generations` past `g0`, and the handovers say what a read says from each generation since. */
async function sameFromEach(g0: number, generations: number): Promise<void> {
  const last = (await zone()).generation;
  expect(last).toBe(g0 + generations);
  for (let since = g0; since <= last; since++) expect(await handed(since), `since ${since}`).toEqual(await read(since));
}

beforeEach(async () => {
  s = await openTestStore(':memory:');
  orgId = (await createOrg(s, 'acme', 'free')).id;
  await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
});
afterEach(() => s.close());

describe('zoneChangesHandedOver', () => {
  it('keeps nothing unless a pass accepts handovers', async () => {
    const since = (await zone()).generation;
    await put(txt('a'));
    expect(await handed(since)).toBeUndefined();
  });

  it('says what a read of the store says, from every generation since, through puts, deletions and change sets', async () => {
    acceptHandovers(s);
    const g0 = (await zone()).generation;
    await put(txt('a'));
    await put(txt('b'));
    await put(txt('a', 'a again'));
    await del('b');
    await change([
      { op: 'put', ...txt('b', 'b back') }, { op: 'put', ...txt('c') }, { op: 'delete', name: `a.${ZONE}`, type: 'TXT' },
    ]);
    await put(txt('a', 'a third'));
    await del('c');
    await put({ name: `mx.${ZONE}`, type: 'MX', ttl: 60, records: [{ content: '10 mail.example.net.' }] });
    await sameFromEach(g0, 8);
  });

  it('says what a read says through the service\'s own records and writes committed together, one of them refused', async () => {
    acceptHandovers(s);
    const g0 = (await zone()).generation;
    const managed = (label: string, ip: string) => putManagedRRset(s, {
      zone: ZONE, managedBy: 'app', actor: 'system', rrset: { name: `${label}.${ZONE}`, type: 'A', ttl: 60, records: [{ content: ip }] },
    });
    await managed('app', '192.0.2.1');
    await managed('app', '192.0.2.2');
    // One commit for the writes of one turn (store/db.ts); the CNAME beside a's TXT is refused, the others commit.
    const outcomes = await Promise.allSettled([
      put(txt('a')), put(txt('b')), put({ name: `a.${ZONE}`, type: 'CNAME', ttl: 300, records: [{ content: 'x.example.net.' }] }), put(txt('c')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    await deleteManagedRRset(s, { zone: ZONE, name: `app.${ZONE}`, type: 'A', managedBy: 'app', actor: 'system' });
    await sameFromEach(g0, 6);
  });

  it('is undefined for a zone row older than the generation asked from, and for a diff too large to keep', async () => {
    acceptHandovers(s);
    await put(txt('a'));
    const older = await zone();
    await put(txt('b'));
    expect(zoneChangesHandedOver(s, older, older.generation + 1, 1000)).toBeUndefined();
    const since = (await zone()).generation;
    await change(Array.from({ length: 1025 }, (_, i) => ({ op: 'put' as const, ...txt(`bulk${i}`) })));
    expect(await handed(since, 2000)).toBeUndefined();
    await put(txt('after'));
    expect(await handed(since + 1)).toEqual(await read(since + 1));
  });

  it('answers more once more rrsets than atMost changed, as a read does', async () => {
    acceptHandovers(s);
    const since = (await zone()).generation;
    for (const label of ['a', 'b', 'c']) await put(txt(label));
    expect(await handed(since, 2)).toBe('more');
    expect(await read(since, 2)).toBe('more');
    expect(await handed(since, 3)).toEqual(await read(since, 3));
  });

  it('hands nothing over for a write that rolled back or was dry, and the chain holds across them', async () => {
    acceptHandovers(s);
    const since = (await zone()).generation;
    await put(txt('a'));
    await expect(put(txt('b'), { quota: { ...QUOTA, rrsets: 1 } })).rejects.toMatchObject({ code: 'quota_exceeded' });
    await put(txt('dry'), { dryRun: true });
    await put(txt('c'));
    const delta = await handed(since);
    expect(delta && delta !== 'more' && delta.changed.map((r) => r.name)).toEqual([`a.${ZONE}`, `c.${ZONE}`]);
    expect(delta).toEqual(await read(since));
  });

  it('is undefined across a generation that was not handed over (an ALIAS answer, DNSSEC), and whole after it', async () => {
    acceptHandovers(s);
    const g0 = (await zone()).generation;
    await put({ name: ZONE, type: 'ALIAS', ttl: 300, records: [{ content: 'a.example.net' }] });
    // The answer marks the ALIAS changed at its generation, which its revision's diff does not name.
    expect(await recordAliasLooks(s, { zone: ZONE, looks: [{ name: ZONE, target: 'a.example.net', look: { answer: aliasAnswer(['192.0.2.1'], [], 300) } }], actor: 'system:alias' })).toBe(true);
    const answered = (await zone()).generation;
    expect(await handed(g0)).toBeUndefined();
    expect((await read(g0)) !== 'more' && (await read(answered - 1))).toMatchObject({ changed: [expect.objectContaining({ type: 'ALIAS' })] });
    expect(await handed(answered - 1)).toBeUndefined();
    await put(txt('a'));
    expect(await handed(answered)).toEqual(await read(answered));
    await setZoneDnssec(s, { orgId, zone: ZONE, enabled: true, actor: 't' });
    await put(txt('b'));
    expect(await handed(answered)).toBeUndefined();
    expect(await handed((await zone()).generation - 1)).toEqual(await read((await zone()).generation - 1));
  });

  it('is undefined for another lifetime of the zone', async () => {
    acceptHandovers(s);
    await put(txt('a'));
    const before = await zone();
    await deleteZone(s, { orgId, name: ZONE, actor: 't' });
    await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    const again = await zone();
    expect(again.uid).not.toBe(before.uid);
    expect(zoneChangesHandedOver(s, { ...again, generation: before.generation }, before.generation - 1, 1000)).toBeUndefined();
    await put(txt('b'));
    expect(await handed(again.generation)).toEqual(await read(again.generation));
  });

  it('keeps a zone\'s last 64 generations: a pass further behind reads the store', async () => {
    acceptHandovers(s);
    const g0 = (await zone()).generation;
    for (let i = 0; i < 70; i++) await put(txt(`r${i}`));
    const last = (await zone()).generation;
    expect(await handed(g0)).toBeUndefined();
    expect(await handed(last - 64)).toEqual(await read(last - 64));
    expect(await handed(last - 65)).toBeUndefined();
  });
});
