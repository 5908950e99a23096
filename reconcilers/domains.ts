/**
 * The domain reconciler (spec 4.3). Per domain name, one pass:
 * 1. An open purchase nobody sent again within `abandonAfterMs` (24 h by default) is finished when it was charged
 *    and the name can still be registered, and refunded otherwise; one never charged is closed (sagas/domains.ts).
 * 2. A renewal under way (stored before each call) is resumed.
 * 3. A purchased domain is synced from the registrar every `syncIntervalMs` (expiry, lock, nameservers; not in
 *    the account any more: `transferred_out`), and renewed `renewBeforeMs` ahead of expiry when `autoRenew` is on:
 *    the service renews first and bills after, a declined charge being a ledger entry and the `RenewalPaid`
 *    condition False while the domain stays renewed. With `autoRenew` off it does not renew; what the registrar
 *    does on its own arrives as synced facts.
 * A registrar outage is the `Synced` condition False (and a retry with backoff): API reads never ask the registrar.
 */
import client from 'prom-client';
import type { Logger } from '../lib/log';
import type { DomainService } from '../sagas/domains';
import type { Store } from '../store/db';
import { allDomainKeys, domainByName, ledgerOf, openPurchaseOf, recordDomainConditions } from '../store/domains';
import type { Judged } from '../store/status';
import { identityWatch, type Reconciler, type Result } from './types';

export interface DomainReconcilerDeps {
  store: Store;
  domains: DomainService;
  log: Logger;
  /** Whether the deployment has a registrar (`--registrar off`: only abandoned purchases are closed). */
  registrar: boolean;
  /** An open purchase not sent again for this long is finished or refunded. Default 24 h. */
  abandonAfterMs?: number;
  /** How often each purchased domain is read from the registrar. Default 6 h. */
  syncIntervalMs?: number;
  /** How long before expiry an auto-renewing domain is renewed. Default 30 days. */
  renewBeforeMs?: number;
  registry?: client.Registry;
}

export const ABANDON_AFTER_MS = 24 * 3_600_000;
export const SYNC_INTERVAL_MS = 6 * 3_600_000;
export const RENEW_BEFORE_MS = 30 * 86_400_000;

export function domainReconciler(d: DomainReconcilerDeps): Reconciler {
  const abandonAfterMs = d.abandonAfterMs ?? ABANDON_AFTER_MS;
  const syncIntervalMs = d.syncIntervalMs ?? SYNC_INTERVAL_MS;
  const renewBeforeMs = d.renewBeforeMs ?? RENEW_BEFORE_MS;
  const s = d.store;
  const renewals = new client.Counter({
    name: 'hostplane_domain_renewals_total',
    help: 'Renewals made by the domain reconciler, by billing outcome (paid, declined)',
    labelNames: ['outcome'],
    registers: d.registry ? [d.registry] : [],
  });
  const purchases = new client.Counter({
    name: 'hostplane_domain_abandoned_purchases_total',
    help: 'Abandoned purchases the domain reconciler closed',
    registers: d.registry ? [d.registry] : [],
  });

  const record = (name: string, set: Judged[], lastError: string | null): Promise<void> => recordDomainConditions(s, name, set, lastError);

  return {
    kind: 'domain',
    watches: [identityWatch('domain')],
    keys: async () => allDomainKeys(s),
    async reconcile(name): Promise<Result> {
      const now = s.clock().getTime();
      let next = Infinity;
      const p = await openPurchaseOf(s, name);
      if (p) {
        const age = now - Date.parse(p.updatedAt);
        if (age < abandonAfterMs) {
          next = abandonAfterMs - age;
        } else {
          d.log.info({ domain: name, step: p.step }, 'finishing an abandoned purchase');
          await d.domains.finishAbandoned(p.id);
          purchases.inc();
        }
      }
      let dom = await domainByName(s, name);
      if (!dom || !d.registrar || !['active', 'expired'].includes(dom.status)) return Number.isFinite(next) ? { requeueAfterMs: next } : {};

      // Sync from the registrar when due (or a renewal is under way: it starts from fresh facts).
      const syncedAt = dom.syncedAt ? Date.parse(dom.syncedAt) : 0;
      if (now - syncedAt >= syncIntervalMs) {
        try {
          dom = await d.domains.sync(name);
        } catch (e) {
          const message = `the registrar could not be read: ${(e as Error).message}`;
          await record(name, [{ type: 'Synced', status: 'False', reason: 'RegistrarUnavailable', message }], message);
          throw e;
        }
        if (!dom || dom.status === 'transferred_out') return {};
      }

      const due = dom.expiresAt ? Date.parse(dom.expiresAt) - renewBeforeMs : Infinity;
      if (dom.renewal || (dom.autoRenew && now >= due)) {
        try {
          await d.domains.renew(name, 1, true, 'system');
        } catch (e) {
          const message = `the renewal did not complete: ${(e as Error).message}`;
          await record(name, [{ type: 'Renewed', status: 'False', reason: 'RenewalFailed', message }], message);
          throw e;
        }
        const [last] = await ledgerOf(s, dom.orgId, name, 1);
        const declined = last?.kind === 'renewal_declined';
        renewals.inc({ outcome: declined ? 'declined' : 'paid' });
        await record(name, [
          { type: 'Renewed', status: 'True', reason: 'Renewed', message: 'renewed at the registrar ahead of expiry' },
          declined
            ? { type: 'RenewalPaid', status: 'False', reason: 'PaymentDeclined', message: 'the renewal charge was declined; the domain stays renewed (see the ledger)' }
            : { type: 'RenewalPaid', status: 'True', reason: 'Paid', message: 'the last renewal was billed' },
        ], null);
        dom = (await domainByName(s, name))!;
      }
      const nextDue = dom.autoRenew && dom.expiresAt ? Math.max(1_000, Date.parse(dom.expiresAt) - renewBeforeMs - s.clock().getTime()) : Infinity;
      return { requeueAfterMs: Math.min(next, syncIntervalMs, nextDue) };
    },
  } satisfies Reconciler;
}
