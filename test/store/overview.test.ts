/** The console's organization overview in the store (store/overview.ts): counts of each kind by state judged in SQL,
 * and the conditions that are not True ordered by lastTransitionTime and cut by the database, across kinds or one
 * kind a page at a time; another organization's and another lifetime's are not there. Both stores. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Condition } from '../../lib/conditions';
import { AppError } from '../../lib/errors';
import { orgBySlug } from '../../store/accounts';
import { attentionPage, longestAttention, orgCounts, type Attention, type AttentionKind } from '../../store/overview';
import { domains, hostnames, projects, resourceStatus, zones } from '../../store/schema';
import { startTestApi, type TestApi } from '../helpers/app';

let t: TestApi;
let acme: number;
beforeAll(async () => {
  t = await startTestApi({ plan: 'pro' });
  acme = (await orgBySlug(t.store, 'acme'))!.id;
  for (const name of ['zone-a.test', 'zone-b.test', 'zone-c.test', 'zone-d.test']) expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } })).status).toBeLessThan(300);
  expect((await t.call('POST', '/v1/orgs/globex/dns/zones', { token: t.other.token, body: { name: 'globex-zone.test' } })).status).toBeLessThan(300);
  for (const name of ['blog', 'shop']) expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name } })).status).toBeLessThan(300);
  for (const name of ['www.customer.example', 'api.customer.example']) {
    expect((await t.call('POST', '/v1/orgs/acme/projects/blog/hostnames', { body: { name } })).status).toBeLessThan(300);
  }
}, 60_000);
afterAll(async () => { await t.close(); });

type Given = Pick<Condition, 'type' | 'status' | 'reason'> & { since: string };
const at = (minute: number): string => new Date(Date.UTC(2026, 10, 29, 0, minute)).toISOString();

/** Stores `conditions` as the status of (kind, key) observed at `observed` (its lifetime's uid unless `uid`). */
async function setStatus(kind: AttentionKind, key: string, conditions: Given[], o: { observed?: number; uid?: string } = {}): Promise<void> {
  const table = { zone: zones, hostname: hostnames, domain: domains }[kind];
  const [row] = await t.store.db.select({ uid: table.uid, generation: table.generation }).from(table).where(eq(table.name, key));
  const value = {
    kind, key, uid: o.uid ?? row!.uid, observedGeneration: o.observed ?? row!.generation, facts: {}, lastError: null, reconciledAt: at(0),
    conditions: conditions.map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: `${key} ${c.type}`, observedGeneration: 1, lastTransitionTime: c.since })),
  };
  await t.store.write(async (tx) => {
    await tx.insert(resourceStatus).values(value).onConflictDoUpdate({ target: [resourceStatus.kind, resourceStatus.key], set: value });
  });
}

const brief = (items: Attention[]): string[] => items.map((a) => `${a.kind}:${a.name}:${a.condition.type}`);

describe('orgCounts', () => {
  it('counts each kind by state as resourceState judges it, and the conditions not True, of this organization only', async () => {
    const [zoneA] = await t.store.db.select().from(zones).where(eq(zones.name, 'zone-a.test'));
    // Failing: a condition False for a reason that is not waiting, beside one that waits.
    await setStatus('zone', 'zone-a.test', [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', since: at(5) }, { type: 'Delegated', status: 'Unknown', reason: 'WaitingForParent', since: at(6) }]);
    // Progressing: only waiting; observed at an older generation; a status of another lifetime (none of this one).
    await setStatus('zone', 'zone-b.test', [{ type: 'Delegated', status: 'Unknown', reason: 'WaitingForParent', since: at(7) }]);
    await setStatus('zone', 'zone-c.test', [{ type: 'Ready', status: 'True', reason: 'Served', since: at(1) }], { observed: zoneA!.generation - 1 });
    await setStatus('zone', 'zone-d.test', [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', since: at(1) }], { uid: 'an-older-lifetime' });
    await setStatus('zone', 'globex-zone.test', [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', since: at(1) }]);
    await setStatus('hostname', 'www.customer.example', [{ type: 'Ready', status: 'True', reason: 'Active', since: at(2) }]);
    await t.store.write(async (tx) => { await tx.update(projects).set({ deletingSince: at(3) }).where(eq(projects.name, 'shop')); });

    const { counts, attention } = await orgCounts(t.store, acme);
    expect(counts).toEqual({
      zone: { ready: 0, progressing: 3, failing: 1, deleting: 0 },
      hostname: { ready: 1, progressing: 1, failing: 0, deleting: 0 },
      domain: { ready: 0, progressing: 0, failing: 0, deleting: 0 },
      project: { ready: 1, progressing: 0, failing: 0, deleting: 1 },
    });
    expect(attention).toEqual({ zone: 3, hostname: 0, domain: 0 });
  });
});

describe('the conditions that need attention', () => {
  beforeAll(async () => {
    await setStatus('zone', 'zone-a.test', [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', since: at(5) }, { type: 'Delegated', status: 'Unknown', reason: 'WaitingForParent', since: at(2) }]);
    await setStatus('zone', 'zone-b.test', [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', since: at(5) }, { type: 'Signed', status: 'True', reason: 'Signed', since: at(0) }]);
    await setStatus('zone', 'zone-c.test', [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', since: at(9) }]);
    await setStatus('hostname', 'www.customer.example', [{ type: 'Verified', status: 'False', reason: 'PendingVerification', since: at(4) }]);
    await setStatus('hostname', 'api.customer.example', [{ type: 'Ready', status: 'Unknown', reason: 'CertificatePending', since: at(8) }]);
  });

  it('are ordered by lastTransitionTime across kinds, then by name and place in the resource\'s list, and cut at the limit', async () => {
    const all = ['zone:zone-a.test:Delegated', 'hostname:www.customer.example:Verified', 'zone:zone-a.test:Ready', 'zone:zone-b.test:Ready',
      'hostname:api.customer.example:Ready', 'zone:zone-c.test:Ready'];
    expect(brief(await longestAttention(t.store, acme, 100))).toEqual(all);
    expect(brief(await longestAttention(t.store, acme, 3))).toEqual(all.slice(0, 3));
    const [first] = await longestAttention(t.store, acme, 1);
    expect(first).toEqual({ kind: 'zone', name: 'zone-a.test', condition: { type: 'Delegated', status: 'Unknown', reason: 'WaitingForParent', message: 'zone-a.test Delegated', lastTransitionTime: at(2) } });
    const { attention } = await orgCounts(t.store, acme);
    expect(attention).toEqual({ zone: 4, hostname: 2, domain: 0 });
  });

  it('page through one kind with a cursor, none left out or repeated; a cursor of another list is a 400', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await attentionPage(t.store, acme, 'zone', 1, cursor);
      seen.push(...brief(page.items));
      cursor = page.nextCursor ?? undefined;
      pages += 1;
    } while (cursor !== undefined);
    expect(seen).toEqual(['zone:zone-a.test:Delegated', 'zone:zone-a.test:Ready', 'zone:zone-b.test:Ready', 'zone:zone-c.test:Ready']);
    expect(pages).toBe(4);
    expect(brief((await attentionPage(t.store, acme, 'hostname', 10)).items)).toEqual(['hostname:www.customer.example:Verified', 'hostname:api.customer.example:Ready']);
    expect((await attentionPage(t.store, acme, 'domain', 10))).toEqual({ items: [], nextCursor: null });
    // A cursor is only base64url of JSON, so anyone can make one: PostgreSQL's text cannot hold U+0000, which must be a
    // 400 as on SQLite, not the database's error.
    const crafted = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    for (const bad of ['nonsense', crafted(['zone-a.test']), crafted([at(5), 'zone-a\u0000.test', 1]), crafted(['\u0000', 'zone-a.test', 1])]) {
      await expect(attentionPage(t.store, acme, 'zone', 1, bad)).rejects.toSatisfy((e: unknown) => e instanceof AppError && e.status === 400);
    }
  });
});
