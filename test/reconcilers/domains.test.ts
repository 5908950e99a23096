/** The domain reconciler (issue 13 item 4): periodic sync from the registrar, renewal ahead of expiry when
 * `autoRenew` is on (renewed first, billed after; a declined charge is a condition and a ledger entry while the
 * domain stays renewed), no renewal with it off (the registrar's own renewal arrives as a synced fact), and a
 * registrar outage shown in status while every API read still answers. */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { domainReconciler } from '../../reconcilers/domains';
import { domains } from '../../store/schema';
import { onStatus } from '../../store/status';
import { readStatus } from '../../store/read-model';
import type { TestApi } from '../helpers/app';
import { purchaseBody, useDomainSetting, type Providers } from '../helpers/domains';

let t: TestApi;
let p: Providers;
const DAY = 86_400_000;
const signal = new AbortController().signal;

useDomainSetting({ timeoutMs: 300 }, (s) => {
  t = s.t;
  p = s.p;
});

const reconciler = (o: { syncIntervalMs?: number; renewBeforeMs?: number } = {}) =>
  domainReconciler({ store: t.store, domains: p.service!, log: createLogger({ level: 'silent' }), registrar: true, syncIntervalMs: 0, ...o });
const buy = async (name: string): Promise<void> => {
  expect((await t.call('POST', '/v1/orgs/acme/domains', { body: purchaseBody(name) })).status).toBe(201);
};
const get = async (name: string) => (await t.call('GET', `/v1/orgs/acme/domains/${name}`, { token: t.tokens.viewer })).body;
const inDays = (days: number): string => new Date(Date.now() + days * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');
const condition = (d: { conditions: { type: string }[] }, type: string) => d.conditions.find((c) => c.type === type);

describe('sync', () => {
  it('records what the registrar says (expiry, lock, nameservers) and Synced; gone from the account is transferred_out', async () => {
    await buy('synced.com');
    p.registrar.set('synced.com', { expiresAt: inDays(400), locked: false, nameservers: ['ns1.x.example'] });
    await reconciler().reconcile('synced.com', signal);
    const d = await get('synced.com');
    expect(d).toMatchObject({ expiresAt: inDays(400).slice(0, 13) + d.expiresAt.slice(13), locked: false, nameservers: ['ns1.x.example'] });
    expect(condition(d, 'Synced')).toMatchObject({ status: 'True', reason: 'Synced' });
    p.registrar.transferOut('synced.com');
    await reconciler().reconcile('synced.com', signal);
    expect((await get('synced.com')).status).toBe('transferred_out');
  });

  it('a sync that finds nothing new writes no status', async () => {
    await buy('steady.com');
    p.registrar.set('steady.com', { expiresAt: inDays(400) });
    await reconciler().reconcile('steady.com', signal);
    let writes = 0;
    const off = onStatus(t.store, (kind, key) => { if (kind === 'domain' && key === 'steady.com') writes++; });
    try {
      await reconciler().reconcile('steady.com', signal);
    } finally {
      off();
    }
    expect(writes).toBe(0);
  });

  it('does not ask the registrar before the sync interval is over', async () => {
    await buy('quiet.com');
    const before = p.registrar.calls.info ?? 0;
    const res = await reconciler({ syncIntervalMs: 3_600_000 }).reconcile('quiet.com', signal);
    expect(p.registrar.calls.info ?? 0).toBe(before);
    expect(res.requeueAfterMs).toBeLessThanOrEqual(3_600_000);
  });
});

describe('renewal', () => {
  it('renews ahead of expiry when autoRenew is on, then bills (ledger renewal, RenewalPaid True); once', async () => {
    await buy('renewing.com');
    p.registrar.set('renewing.com', { expiresAt: inDays(10) });
    const r = reconciler({ renewBeforeMs: 30 * DAY });
    await r.reconcile('renewing.com', signal);
    const d = await get('renewing.com');
    expect(Date.parse(d.expiresAt)).toBeGreaterThan(Date.now() + 370 * DAY);
    expect(d.ledger[0]).toMatchObject({ kind: 'renewal', amountCents: 1599 });
    expect(condition(d, 'RenewalPaid')).toMatchObject({ status: 'True', reason: 'Paid' });
    await r.reconcile('renewing.com', signal);
    expect(p.registrar.domains().find((x) => x.name === 'renewing.com')!.renewals).toBe(1);
  });

  it('does not renew with autoRenew off; the registrar\'s own renewal arrives as a synced fact', async () => {
    await buy('manual.com');
    expect((await t.call('POST', '/v1/orgs/acme/domains/manual.com/auto-renew', { body: { autoRenew: false } })).status).toBe(200);
    p.registrar.set('manual.com', { expiresAt: inDays(5) });
    await reconciler({ renewBeforeMs: 30 * DAY }).reconcile('manual.com', signal);
    expect(p.registrar.domains().find((x) => x.name === 'manual.com')!.renewals).toBe(0);
    expect((await get('manual.com')).ledger.map((e: { kind: string }) => e.kind)).toEqual(['charge']);
    p.registrar.set('manual.com', { expiresAt: inDays(370) });
    await reconciler({ renewBeforeMs: 30 * DAY }).reconcile('manual.com', signal);
    expect(Date.parse((await get('manual.com')).expiresAt)).toBeGreaterThan(Date.now() + 360 * DAY);
  });

  it('a declined renewal charge is a condition and a ledger entry; the domain stays renewed', async () => {
    await buy('declined-renewal.com');
    // The card on file stopped working since the purchase.
    await t.store.write(async (tx) => {
      await tx.update(domains).set({ paymentRef: 'pm_card_declined' }).where(eq(domains.name, 'declined-renewal.com'));
    });
    p.registrar.set('declined-renewal.com', { expiresAt: inDays(3) });
    await reconciler({ renewBeforeMs: 30 * DAY }).reconcile('declined-renewal.com', signal);
    const d = await get('declined-renewal.com');
    expect(Date.parse(d.expiresAt)).toBeGreaterThan(Date.now() + 360 * DAY);
    expect(d.ledger[0]).toMatchObject({ kind: 'renewal_declined', amountCents: 1599 });
    expect(condition(d, 'RenewalPaid')).toMatchObject({ status: 'False', reason: 'PaymentDeclined' });
  });

  it('a renewal interrupted after the registrar renewed is billed on the next pass, and renewed only once', async () => {
    await buy('interrupted.com');
    p.registrar.set('interrupted.com', { expiresAt: inDays(3) });
    p.payments.fault({ mode: 'fail', operations: ['charge'], times: 1 });
    await expect(reconciler({ renewBeforeMs: 30 * DAY }).reconcile('interrupted.com', signal)).rejects.toThrow();
    await reconciler({ renewBeforeMs: 30 * DAY, syncIntervalMs: 3_600_000 }).reconcile('interrupted.com', signal);
    expect(p.registrar.domains().find((x) => x.name === 'interrupted.com')!.renewals).toBe(1);
    expect((await get('interrupted.com')).ledger[0]).toMatchObject({ kind: 'renewal' });
    expect(p.payments.charges().filter((c) => c.description.startsWith('renewal of interrupted.com'))).toHaveLength(1);
  });
});

describe('a registrar outage', () => {
  it('is the Synced condition False and a retry; API reads still answer and admin status shows it', async () => {
    await buy('outage.com');
    p.registrar.fault({ mode: 'hang' });
    await expect(reconciler().reconcile('outage.com', signal)).rejects.toThrow();
    const started = Date.now();
    const d = await t.call('GET', '/v1/orgs/acme/domains/outage.com');
    expect(d.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(250);
    expect(condition(d.body, 'Synced')).toMatchObject({ status: 'False', reason: 'RegistrarUnavailable' });
    expect((await t.call('GET', '/v1/orgs/acme/domains')).status).toBe(200);
    const st = (await readStatus(t.store)).domains.find((x) => x.domain === 'outage.com')!;
    expect(st.lastError).toMatch(/registrar/);
  });
});
