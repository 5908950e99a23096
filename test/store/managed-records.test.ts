/** The writer of managed records (issue 7 item 7): the service's own rrsets (managedBy system, app, acme) go
 * through putRRset's path (generation and serial, change feed, counts and bytes, audit, CNAME rule), never
 * overwrite a customer's rrset, and a repeated write changes nothing. */
import { and, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOrg } from '../../store/accounts';
import { rawSqlite } from '../helpers/sqlite';
import { type Store } from '../../store/db';
import { onPostgres, openTestStore } from '../helpers/store';
import { deltaSince } from '../helpers/zone-read';
import { changesSince, latestSeq, listAudit } from '../../store/feed';
import { rrsets } from '../../store/schema';
import {
  createZone, deleteManagedRRset, deleteRRset, putManagedRRset, putRRset, syncZoneNameservers, zoneByName, type ZoneRow,
} from '../../store/zones';
import { checkCnameConflict, renderedBytes, serialGreater, ZoneValidationError, type RRset } from '../../zonefiles';

const ZONE = 'customer.test';
const QUOTA = { plan: 'free', rrsets: 5000, bytes: 5 * 1024 * 1024 };

let s: Store;
let orgId: number;
let clock: Date;

beforeEach(async () => {
  clock = new Date('2026-11-26T10:00:00Z');
  s = await openTestStore(':memory:', { clock: () => clock });
  orgId = (await createOrg(s, 'acme', 'free')).id;
  await createZone(s, { orgId, name: ZONE, nameservers: ['ns1.hostplane.test', 'ns2.hostplane.test'], actor: 'user:owner@acme.test', quota: null });
});
afterEach(() => s.close());

const txt = (name: string, ...values: string[]): RRset => ({ name, type: 'TXT', ttl: 300, records: values.map((v) => ({ content: `"${v}"` })) });
const challenge = (value = 'token-1') => txt(`_acme-challenge.www.${ZONE}`, value);
const zone = async (): Promise<ZoneRow> => (await zoneByName(s, ZONE))!;
const stored = async (name: string, type: string) =>
  (await s.db.select().from(rrsets).where(and(eq(rrsets.zone, ZONE), eq(rrsets.name, name), eq(rrsets.type, type))))[0];
const customerPut = (rrset: RRset) => putRRset(s, { orgId, zone: ZONE, rrset, actor: 'user:owner@acme.test', cnameConflict: checkCnameConflict, quota: QUOTA });
/** What every store write of the zone must keep equal: its counters and a recount of its rows. */
const recount = async () => {
  const rows = await s.db.select().from(rrsets).where(eq(rrsets.zone, ZONE));
  const z = await zone();
  return { counted: { n: z.rrsetCount, bytes: z.bytes }, rows: { n: rows.length, bytes: rows.reduce((a, r) => a + r.bytes, 0) } };
};
const later = (): void => { clock = new Date(clock.getTime() + 60_000); };

describe('a managed write goes through the same path as putRRset', () => {
  it('raises generation and serial, enters the change feed, and is what the reconciler reads as changed', async () => {
    const before = await zone();
    const seq = await latestSeq(s);
    later();
    expect(await putManagedRRset(s, { zone: ZONE, rrset: challenge(), managedBy: 'acme', actor: 'system' })).toEqual({ ...challenge(), managedBy: 'acme' });
    const after = await zone();
    expect(after.generation).toBe(before.generation + 1);
    expect(serialGreater(after.serial, before.serial)).toBe(true);
    expect((await changesSince(s, seq)).map((c) => [c.kind, c.key])).toEqual([['zone', ZONE]]);
    const changes = await deltaSince(s, ZONE, before.generation);
    expect(changes?.changed).toEqual([{ ...challenge(), managedBy: 'acme' }]);
  });

  it('is audited with actor system in the zone\'s organization', async () => {
    await putManagedRRset(s, { zone: ZONE, rrset: challenge(), managedBy: 'acme', actor: 'system' });
    await deleteManagedRRset(s, { zone: ZONE, name: challenge().name, type: 'TXT', managedBy: 'acme', actor: 'system' });
    const records = (await listAudit(s, orgId, 10)).filter((r) => r.event.startsWith('dns.rrset.'));
    expect(records.map(({ event, actor, target, details }) => ({ event, actor, target, details })).sort((a, b) => a.event.localeCompare(b.event))).toEqual([
      { event: 'dns.rrset.delete', actor: 'system', target: `${ZONE}/${challenge().name}/TXT`, details: { managedBy: 'acme' } },
      { event: 'dns.rrset.set', actor: 'system', target: `${ZONE}/${challenge().name}/TXT`, details: { ttl: 300, records: 1, managedBy: 'acme' } },
    ]);
  });

  it('keeps rrset_count, the zone\'s bytes and each rrset\'s bytes as putRRset does, through create, grow, shrink and delete', async () => {
    const start = await zone();
    const big = challenge('a'.repeat(200));
    await putManagedRRset(s, { zone: ZONE, rrset: challenge(), managedBy: 'acme', actor: 'system' });
    expect((await stored(challenge().name, 'TXT'))!.bytes).toBe(renderedBytes(ZONE, challenge()));
    expect(await zone()).toMatchObject({ rrsetCount: start.rrsetCount + 1, bytes: start.bytes + renderedBytes(ZONE, challenge()) });
    await putManagedRRset(s, { zone: ZONE, rrset: big, managedBy: 'acme', actor: 'system' });
    expect((await stored(big.name, 'TXT'))!.bytes).toBe(renderedBytes(ZONE, big));
    expect(await zone()).toMatchObject({ rrsetCount: start.rrsetCount + 1, bytes: start.bytes + renderedBytes(ZONE, big) });
    await putManagedRRset(s, { zone: ZONE, rrset: challenge(), managedBy: 'acme', actor: 'system' });
    expect(await zone()).toMatchObject({ rrsetCount: start.rrsetCount + 1, bytes: start.bytes + renderedBytes(ZONE, challenge()) });
    const { counted, rows } = await recount();
    expect(counted).toEqual(rows);
    expect(await deleteManagedRRset(s, { zone: ZONE, name: big.name, type: 'TXT', managedBy: 'acme', actor: 'system' })).toBe(true);
    expect(await zone()).toMatchObject({ rrsetCount: start.rrsetCount, bytes: start.bytes });
  });

  // total_changes() is SQLite's count of the rows a connection changed; PostgreSQL has no such counter per connection.
  it.skipIf(onPostgres())('an rrset write or delete changes the zone row once: serial, generation and size in one statement', async () => {
    const changes = (): number => (rawSqlite(s).prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    // The zone row, the rrset, the feed row, the revision and the audit row; a delete's tombstone besides.
    let before = changes();
    await customerPut(txt(`a.${ZONE}`, 'one'));
    expect(changes() - before).toBe(5);
    before = changes();
    await deleteRRset(s, { orgId, zone: ZONE, name: `a.${ZONE}`, type: 'TXT', actor: 'user:owner@acme.test' });
    expect(changes() - before).toBe(6);
    expect((await recount()).counted).toEqual((await recount()).rows);
  });

  it('a delete leaves a tombstone at the new generation, as deleteRRset does', async () => {
    await putManagedRRset(s, { zone: ZONE, rrset: challenge(), managedBy: 'acme', actor: 'system' });
    const before = await zone();
    await deleteManagedRRset(s, { zone: ZONE, name: challenge().name, type: 'TXT', managedBy: 'acme', actor: 'system' });
    expect((await zone()).generation).toBe(before.generation + 1);
    expect((await deltaSince(s, ZONE, before.generation)).removed).toEqual([{ name: challenge().name, type: 'TXT' }]);
  });

  it('is validated and stored canonical, as the API stores a customer\'s', async () => {
    const out = await putManagedRRset(s, {
      zone: ZONE, managedBy: 'app', actor: 'system',
      rrset: { name: `WWW.${ZONE.toUpperCase()}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.9' }, { content: '192.0.2.1' }] },
    });
    expect(out).toEqual({ name: `www.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }, { content: '192.0.2.9' }], managedBy: 'app' });
    await expect(putManagedRRset(s, { zone: ZONE, rrset: { ...out, records: [{ content: 'not an address' }] }, managedBy: 'app', actor: 'system' }))
      .rejects.toBeInstanceOf(ZoneValidationError);
  });

  it('writes into a zone of any organization (a platform zone holds records of its tenants\' projects)', async () => {
    const platform = await createOrg(s, 'operator', 'pro');
    await createZone(s, { orgId: platform.id, name: 'apps.hostplane.test', nameservers: ['ns1.hostplane.test'], actor: 'system', quota: null });
    await putManagedRRset(s, { zone: 'apps.hostplane.test', rrset: { name: 'blog.apps.hostplane.test', type: 'A', ttl: 60, records: [{ content: '192.0.2.7' }] }, managedBy: 'app', actor: 'system' });
    expect((await listAudit(s, platform.id, 10)).map((r) => r.event)).toContain('dns.rrset.set');
  });
});

describe('a repeated identical managed write is a no-op', () => {
  it('no generation, no serial, no change in the feed, no audit record, the same counters', async () => {
    await putManagedRRset(s, { zone: ZONE, rrset: txt(`x.${ZONE}`, 'b', 'a'), managedBy: 'system', actor: 'system' });
    const before = await zone();
    const seq = await latestSeq(s);
    const audits = (await listAudit(s, orgId, 100)).length;
    later();
    // Another order of the same records is the same rrset.
    await putManagedRRset(s, { zone: ZONE, rrset: txt(`x.${ZONE}`, 'a', 'b'), managedBy: 'system', actor: 'system' });
    expect(await zone()).toEqual(before);
    expect(await changesSince(s, seq)).toEqual([]);
    expect((await listAudit(s, orgId, 100)).length).toBe(audits);
  });

  it('deleting a managed rrset that is already gone changes nothing and is no error', async () => {
    const before = await zone();
    expect(await deleteManagedRRset(s, { zone: ZONE, name: challenge().name, type: 'TXT', managedBy: 'acme', actor: 'system' })).toBe(false);
    expect(await zone()).toEqual(before);
  });
});

describe('refusals', () => {
  it('the service never overwrites or deletes a customer\'s rrset: 409 customer_rrset, nothing changed', async () => {
    await customerPut(txt(`_acme-challenge.www.${ZONE}`, 'the customer\'s own'));
    const before = await zone();
    await expect(putManagedRRset(s, { zone: ZONE, rrset: challenge(), managedBy: 'acme', actor: 'system' }))
      .rejects.toMatchObject({ status: 409, code: 'customer_rrset' });
    await expect(deleteManagedRRset(s, { zone: ZONE, name: challenge().name, type: 'TXT', managedBy: 'acme', actor: 'system' }))
      .rejects.toMatchObject({ status: 409, code: 'customer_rrset' });
    expect(await zone()).toEqual(before);
    expect(await stored(challenge().name, 'TXT')).toMatchObject({ managedBy: null, records: [{ content: '"the customer\'s own"' }] });
  });

  it('one owner of the service does not overwrite another\'s: 409 managed_rrset', async () => {
    await putManagedRRset(s, { zone: ZONE, rrset: challenge(), managedBy: 'acme', actor: 'system' });
    await expect(putManagedRRset(s, { zone: ZONE, rrset: challenge('other'), managedBy: 'app', actor: 'system' }))
      .rejects.toMatchObject({ status: 409, code: 'managed_rrset' });
    await expect(deleteManagedRRset(s, { zone: ZONE, name: challenge().name, type: 'TXT', managedBy: 'system', actor: 'system' }))
      .rejects.toMatchObject({ status: 409, code: 'managed_rrset' });
    expect(await stored(challenge().name, 'TXT')).toMatchObject({ managedBy: 'acme' });
  });

  it('customers still cannot edit or delete managed rrsets: 409 managed_rrset', async () => {
    await putManagedRRset(s, { zone: ZONE, rrset: challenge(), managedBy: 'acme', actor: 'system' });
    await expect(customerPut(challenge('mine'))).rejects.toMatchObject({ status: 409, code: 'managed_rrset' });
    await expect(deleteRRset(s, { orgId, zone: ZONE, name: challenge().name, type: 'TXT', actor: 'user:owner@acme.test' }))
      .rejects.toMatchObject({ status: 409, code: 'managed_rrset' });
    expect(await stored(challenge().name, 'TXT')).toMatchObject({ managedBy: 'acme', records: [{ content: '"token-1"' }] });
  });

  it('the CNAME rule holds both ways between managed and customer rrsets', async () => {
    await customerPut({ name: `www.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] });
    await expect(putManagedRRset(s, { zone: ZONE, rrset: { name: `www.${ZONE}`, type: 'CNAME', ttl: 300, records: [{ content: 'edge.hostplane.test.' }] }, managedBy: 'app', actor: 'system' }))
      .rejects.toMatchObject({ status: 409, code: 'cname_conflict' });
    await putManagedRRset(s, { zone: ZONE, rrset: { name: `app.${ZONE}`, type: 'CNAME', ttl: 300, records: [{ content: 'edge.hostplane.test.' }] }, managedBy: 'app', actor: 'system' });
    await expect(customerPut(txt(`app.${ZONE}`, 'x'))).rejects.toMatchObject({ status: 409, code: 'cname_conflict' });
  });

  it('a managed rrset counts toward the plan\'s quota of rrsets, which a customer then meets earlier', async () => {
    const limit = (await zone()).rrsetCount + 1;
    await putManagedRRset(s, { zone: ZONE, rrset: challenge(), managedBy: 'acme', actor: 'system' });
    await expect(putRRset(s, { orgId, zone: ZONE, rrset: txt(`t.${ZONE}`, 'x'), actor: 'user:owner@acme.test', cnameConflict: checkCnameConflict, quota: { ...QUOTA, rrsets: limit } }))
      .rejects.toMatchObject({ status: 409, code: 'quota_exceeded', details: { quota: 'rrsets_per_zone', count: limit } });
  });

  it('a zone that does not exist is 404', async () => {
    await expect(putManagedRRset(s, { zone: 'nope.test', rrset: txt('a.nope.test', 'x'), managedBy: 'system', actor: 'system' }))
      .rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('syncZoneNameservers (after --nameservers changed)', () => {
  it('rewrites every zone\'s apex NS as the system, with a new generation and serial; again it changes nothing', async () => {
    await createZone(s, { orgId, name: 'second.test', nameservers: ['ns1.hostplane.test', 'ns2.hostplane.test'], actor: 'user:owner@acme.test', quota: null });
    const before = await zone();
    expect(await syncZoneNameservers(s, ['ns1.hostplane.test', 'ns2.hostplane.test'])).toEqual([]);
    clock = new Date('2026-11-26T11:00:00Z');
    expect((await syncZoneNameservers(s, ['ns-a.example.net', 'ns-b.example.net'])).sort()).toEqual(['customer.test', 'second.test']);
    expect((await stored(ZONE, 'NS'))!.records.map((r) => r.content).sort()).toEqual(['ns-a.example.net', 'ns-b.example.net']);
    expect((await stored(ZONE, 'NS'))!.managedBy).toBe('system');
    const after = await zone();
    expect(after.generation).toBe(before.generation + 1);
    expect(serialGreater(after.serial, before.serial)).toBe(true);
    expect((await listAudit(s, orgId, 20)).find((e) => e.event === 'dns.rrset.set' && e.target === `${ZONE}/${ZONE}/NS`)).toMatchObject({ actor: 'system' });
    expect(await syncZoneNameservers(s, ['ns-b.example.net', 'ns-a.example.net'])).toEqual([]);
    expect((await recount()).counted).toEqual((await recount()).rows);
  });
});
