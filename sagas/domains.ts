/**
 * The domain operations of the core (spec 4.3): the purchase saga and the registrar's questions that the API
 * asks at once (check, renew, lock, auth code, sync), and the renewal flow the domain reconciler shares.
 *
 * The purchase saga. A purchase is identified by (org, name); its steps are stored before each external call:
 * reserve (name and zone quota, store only) → check (availability and price) → charge (idempotency key
 * `purchase:<id>:charge`) → register (ref `<id>`, with our nameservers) → create zone → done. Every external
 * call is idempotent by those keys, so sending a purchase again, after any failure anywhere (an error, a timeout,
 * an answer lost after the work was done, a killed process), resumes from the stored step and never charges or
 * registers twice. A name the registry refuses after the charge is refunded (`refunding` → `refunded`). One
 * name is worked on by one call at a time in this process (`serially`), whether a request or the reconciler asks.
 * Other processes on the same store (replicas answering the same purchase sent again, the leader's reconciler) may
 * work on it at once: each step moves on only from the step it was read at (store/domains.ts setPurchaseStep), so
 * a step never goes back and its ledger line is written once, and the keys make their calls act once.
 *
 * The contact is sealed (context `purchase/<org>/<name>`) before it is stored, opened only to register, and
 * dropped when the purchase closes; it goes to no log, error or audit record.
 */
import { AppError, badRequest, notFound } from '../lib/errors';
import type { Logger } from '../lib/log';
import { PaymentDeclined, PaymentError, type Payments } from '../providers/payment/port';
import { RegistrarError, RegistrarRefused, type Availability, type Contact, type Registrar, type RegistrarDomain } from '../providers/registrar/port';
import { canonicalJson } from '../lib/canonical-json';
import { keyedSerial } from '../lib/keyed-serial';
import { MAX_TERM_YEARS } from '../rules/domains';
import { iso, type Store } from '../store/db';
import {
  auditDomain, domainByName, purchaseById, purchaseIsOpen, recordRegistrarFacts, reservePurchase, setPurchaseStep, setRenewal, finishPurchase,
  type DomainRow, type PurchaseRow, type Renewal,
} from '../store/domains';
import type { ChangeKind } from '../store/feed';
import { createZone } from '../store/zones';
import type { DnsInfo, DomainCalls, DomainHandler, DomainOp, PurchaseInput } from '../core/port';
import { purchaseContext, type Sealer } from '../core/sealing';

/** The registration and transfer lock after a registration (a registry rule; advice to the user). */
export const TRANSFER_LOCK_DAYS = 60;

/** 400 when renewing `years` from `expiresAt` would end past MAX_TERM_YEARS from `now`. */
export function checkTerm(name: string, expiresAt: string | null, years: number, now: Date): void {
  if (expiresAt === null) return;
  const until = new Date(expiresAt);
  until.setUTCFullYear(until.getUTCFullYear() + years);
  const limit = new Date(now);
  limit.setUTCFullYear(limit.getUTCFullYear() + MAX_TERM_YEARS);
  if (until > limit) {
    throw badRequest(`renewing ${name} for ${years} year(s) would run it to ${iso(until)}: a registration runs at most ${MAX_TERM_YEARS} years ahead (${iso(limit)})`, {
      limitYears: MAX_TERM_YEARS, expiresAt, latestExpiresAt: iso(limit),
    });
  }
}

export interface DomainServiceDeps {
  store: Store;
  sealer: Sealer;
  /** Null with `--registrar off`: the registrar's operations answer 503 `registrar_not_configured`. */
  registrar: Registrar | null;
  payments: Payments | null;
  dns: DnsInfo;
  /** The NS public DNS gives for a name: an imported domain's sync reads its delegation. */
  delegation: (name: string) => Promise<string[]>;
  nudge: (kind: ChangeKind, key: string) => void;
  log: Logger;
}

export interface DomainService extends DomainHandler {
  /** The reconciler's: finishes or refunds an abandoned purchase (never half done). */
  finishAbandoned(purchaseId: string): Promise<void>;
  /** The reconciler's: renews `name` at the registrar, then bills (or resumes a renewal under way). */
  renew(name: string, years: number, auto: boolean, actor: string): Promise<void>;
  /** The reconciler's: re-reads the registrar's facts of a purchased domain. */
  sync(name: string): Promise<DomainRow | undefined>;
  /** Runs `fn` while no other work on `name` runs in this process. */
  serially<T>(name: string, fn: () => Promise<T>): Promise<T>;
}

const registrarError = (e: unknown): AppError => {
  if (e instanceof RegistrarError) return new AppError(502, 'registrar_error', `${e.message}; send the request again`);
  return e instanceof AppError ? e : new AppError(502, 'registrar_error', 'the registrar failed; send the request again');
};
const paymentIncomplete = (e: unknown): AppError => {
  // An AppError is the service's own answer (a call refused to a deposed leader, FencedError): kept as it is.
  if (e instanceof AppError) return e;
  return new AppError(502, 'saga_incomplete', `the purchase stopped at the payment: ${e instanceof PaymentError ? e.message : 'the payment provider failed'}; send the request again to resume`);
};
const unavailable = (name: string): AppError => new AppError(409, 'domain_unavailable', `the registry refuses ${name}: it is taken, reserved or not offered`);

export function domainService(d: DomainServiceDeps): DomainService {
  const s = d.store;
  // A name's purchase, renewal and sync run one at a time.
  const serially = keyedSerial();
  const registrar = (): Registrar => {
    if (!d.registrar) throw new AppError(503, 'registrar_not_configured', 'this deployment has no registrar');
    return d.registrar;
  };
  const payments = (): Payments => {
    if (!d.payments) throw new AppError(503, 'registrar_not_configured', 'this deployment has no payment provider for domains');
    return d.payments;
  };
  const nameservers = (): string[] => {
    if (!d.dns.configured) throw new AppError(503, 'dns_not_configured', 'this deployment runs no DNS of its own');
    return d.dns.nameservers;
  };
  const failed = async (p: PurchaseRow, why: string): Promise<void> => {
    await setPurchaseStep(s, p, p.step, { lastError: why });
  };

  /** Moves the purchase on from its stored step to done (or refunded, failed), each step stored first. */
  const advance = async (start: PurchaseRow, by: 'request' | 'reconciler'): Promise<void> => {
    let p = start;
    let reg: RegistrarDomain | null = null;
    for (;;) {
      switch (p.step) {
        case 'reserved': {
          let a: Availability | undefined;
          try {
            a = (await registrar().check([p.name])).find((x) => x.name === p.name);
          } catch (e) {
            await failed(p, (e as Error).message);
            throw registrarError(e);
          }
          if (!a?.available) {
            // Resumed from the stored step: `failed`, or further on when another process registered it meanwhile.
            p = await setPurchaseStep(s, p, 'failed', { lastError: 'the registry refuses the name' });
            break;
          }
          p = await setPurchaseStep(s, p, 'charging', { amountCents: a.priceCents + a.renewalCents * (p.years - 1), currency: a.currency });
          break;
        }
        case 'charging': {
          try {
            const c = await payments().charge({
              amountCents: p.amountCents!, currency: p.currency!, paymentMethod: p.paymentMethod, idempotencyKey: `purchase:${p.id}:charge`,
              description: `${p.name}, ${p.years} year(s)`,
            });
            p = await setPurchaseStep(s, p, 'charged', { chargeId: c.id, lastError: null }, {
              kind: 'charge', note: `registration of ${p.name}, ${p.years} year(s)`, amountCents: c.amountCents, currency: c.currency, reference: c.id,
            });
          } catch (e) {
            if (e instanceof PaymentDeclined) {
              p = await setPurchaseStep(s, p, 'failed', { lastError: `payment declined (${e.declineCode})` });
              if (p.step !== 'failed') break;
              throw new AppError(402, 'payment_failed', 'the payment method was declined; nothing was charged', { declineCode: e.declineCode });
            }
            await failed(p, (e as Error).message);
            throw paymentIncomplete(e);
          }
          break;
        }
        case 'charged':
          p = await setPurchaseStep(s, p, 'registering');
          break;
        case 'registering': {
          const contact = JSON.parse(d.sealer.open(purchaseContext(p.orgId, p.name), p.contactSealed!)) as Contact;
          try {
            reg = await registrar().register({ name: p.name, years: p.years, nameservers: nameservers(), contact, ref: p.id });
          } catch (e) {
            if (e instanceof RegistrarRefused) {
              p = await setPurchaseStep(s, p, 'refunding', { lastError: 'the registry refused the name after the charge' });
              break;
            }
            await failed(p, (e as Error).message);
            throw registrarError(e);
          }
          p = await setPurchaseStep(s, p, 'registered');
          break;
        }
        case 'registered': {
          try {
            reg ??= await registrar().info(p.name);
          } catch (e) {
            await failed(p, (e as Error).message);
            throw new AppError(502, 'saga_incomplete', `the purchase stopped after the registration: ${(e as Error).message}; send the request again to resume`);
          }
          if (!reg) throw new AppError(502, 'saga_incomplete', 'the registrar does not show the registration yet; send the request again to resume');
          // The zone quota was counted at the reservation: the zone is made whatever was created meanwhile.
          const { created } = await createZone(s, { orgId: p.orgId, name: p.name, nameservers: nameservers(), actor: p.actor, quota: null });
          if (created) d.nudge('zone', p.name);
          await finishPurchase(s, p, reg, by);
          d.nudge('domain', p.name);
          return;
        }
        case 'refunding': {
          try {
            const r = await payments().refund({ chargeId: p.chargeId!, idempotencyKey: `purchase:${p.id}:refund` });
            p = await setPurchaseStep(s, p, 'refunded', { lastError: null }, {
              kind: 'refund', note: `${p.name} could not be registered`, amountCents: -r.amountCents, currency: p.currency!, reference: r.id,
            });
          } catch (e) {
            await failed(p, (e as Error).message);
            throw paymentIncomplete(e);
          }
          d.nudge('domain', p.name);
          throw unavailable(p.name);
        }
        case 'done':
          return;
        case 'refunded':
        case 'failed':
          throw unavailable(p.name);
      }
    }
  };

  const purchase = async (i: PurchaseInput): Promise<{ created: boolean }> => {
    registrar();
    payments();
    nameservers();
    return serially(i.name, async () => {
      const sealed = d.sealer.seal(purchaseContext(i.orgId, i.name), JSON.stringify(i.contact));
      const r = await reservePurchase(s, {
        orgId: i.orgId, name: i.name, years: i.years, paymentMethod: i.paymentMethod, contactSealed: sealed, actor: i.actor, quota: { plan: i.plan, limit: i.zoneLimit },
      });
      if (r.kind === 'finished') return { created: false };
      if (r.kind === 'open') {
        const p = r.purchase;
        const differ: string[] = [];
        if (p.years !== i.years) differ.push('years');
        if (p.paymentMethod !== i.paymentMethod) differ.push('paymentMethod');
        if (canonicalJson(JSON.parse(d.sealer.open(purchaseContext(p.orgId, p.name), p.contactSealed!))) !== canonicalJson(i.contact)) differ.push('contact');
        if (differ.length) {
          throw badRequest(`a purchase of ${i.name} with other terms is under way; send it again with the same ${differ.join(', ')} to finish it`, { fields: differ });
        }
      } else d.nudge('domain', i.name);
      await advance(r.purchase, 'request');
      return { created: true };
    });
  };

  const finishAbandoned = async (id: string): Promise<void> => {
    const first = await purchaseById(s, id);
    if (!first) return;
    await serially(first.name, async () => {
      let p = await purchaseById(s, id);
      if (!p || !purchaseIsOpen(p)) return;
      if (p.step === 'reserved') {
        await setPurchaseStep(s, p, 'failed', { lastError: 'abandoned before the payment' });
        return;
      }
      if (p.step === 'charging') {
        const c = await payments().findCharge(`purchase:${p.id}:charge`);
        if (!c) {
          await setPurchaseStep(s, p, 'failed', { lastError: 'abandoned; nothing was charged' });
          return;
        }
        p = await setPurchaseStep(s, p, 'charged', { chargeId: c.id }, {
          kind: 'charge', note: `registration of ${p.name}, ${p.years} year(s)`, amountCents: c.amountCents, currency: c.currency, reference: c.id,
        });
      }
      try {
        await advance(p, 'reconciler');
      } catch (e) {
        // A refunded purchase is finished business; anything else is retried by the reconciler.
        if (e instanceof AppError && e.code === 'domain_unavailable') return;
        throw e;
      }
    });
  };

  /** Renews at the registrar first, then bills the purchase's payment method (a decline is a ledger entry; the
   * domain stays renewed), each stage stored before its call so that a crash resumes it. Another process may work on
   * the same renewal at once (its keys make the calls act once): a stage it stored first is resumed from, and the
   * one that stores the end writes the ledger line and the audit record. */
  const renewFlow = async (name: string, years: number, auto: boolean, actor: string): Promise<void> => {
    let dom = await domainByName(s, name);
    if (!dom) return;
    const uid = dom.uid;
    /** The renewal as stored now: null once another process finished it (or the domain is another lifetime's). */
    const stored = async (): Promise<Renewal | null> => {
      const now = await domainByName(s, name);
      return now?.uid === uid ? now.renewal as unknown as Renewal | null : null;
    };
    let r = dom.renewal as unknown as Renewal | null;
    if (!r) {
      const price = (await registrar().check([name]).catch((e: unknown) => { throw registrarError(e); })).find((x) => x.name === name);
      const begun: Renewal = { fromExpiresAt: dom.expiresAt ?? '', years, state: 'renewing', amountCents: (price?.renewalCents ?? 0) * years, currency: price?.currency ?? 'USD', auto, actor };
      r = (await setRenewal(s, name, uid, null, begun)) ? begun : await stored();
      if (!r) return;
    }
    if (r.state === 'renewing') {
      let reg: RegistrarDomain;
      try {
        reg = await registrar().renew({ name, years: r.years, ref: `renew:${uid}:${r.fromExpiresAt}` });
      } catch (e) {
        throw registrarError(e);
      }
      const billing: Renewal = { ...r, state: 'billing', newExpiresAt: reg.expiresAt };
      r = (await setRenewal(s, name, uid, r, billing, undefined, { expiresAt: reg.expiresAt, locked: reg.locked, nameservers: reg.nameservers })) ? billing : await stored();
      if (!r) return;
      dom = (await domainByName(s, name))!;
    }
    const note = `renewal of ${name} for ${r.years} year(s), to ${r.newExpiresAt}`;
    let ended: boolean;
    try {
      const c = await payments().charge({
        amountCents: r.amountCents, currency: r.currency, paymentMethod: dom.paymentRef ?? '', idempotencyKey: `renewal:${uid}:${r.fromExpiresAt}`, description: note,
      });
      ended = await setRenewal(s, name, uid, r, null, { orgId: dom.orgId, kind: 'renewal', amountCents: c.amountCents, currency: c.currency, note, reference: c.id });
    } catch (e) {
      if (!(e instanceof PaymentDeclined)) throw paymentIncomplete(e);
      ended = await setRenewal(s, name, uid, r, null, {
        orgId: dom.orgId, kind: 'renewal_declined', amountCents: r.amountCents, currency: r.currency, note: `${note}: the payment method was declined (${e.declineCode}); the domain stays renewed`,
      });
    }
    if (!ended) return;
    d.nudge('domain', name);
    if (!r.auto) await auditDomain(s, { orgId: dom.orgId, event: 'domain.renew', actor: r.actor, name, details: { years: r.years } });
  };

  /** A purchased domain of the caller's organization, for the registrar operations; an imported one is 400
   * naming its own registrar as the place (`what`), or 404 where the spec says (its auth code). */
  const registered = async (orgId: number, name: string, what: string, importedStatus = 400): Promise<DomainRow> => {
    const dom = await domainByName(s, name);
    if (!dom || dom.orgId !== orgId) throw notFound(`domain ${name}`);
    if (dom.status === 'imported') {
      if (importedStatus === 404) throw notFound(`an auth code for ${name}: it is imported, so the registrar it is registered at gives it`);
      throw badRequest(`${name} is imported: it is registered at its own registrar, not here; ${what} there`);
    }
    if (dom.status === 'pending') throw badRequest(`the purchase of ${name} is not finished; send the purchase again to finish it`);
    if (dom.status === 'transferred_out') throw badRequest(`${name} was transferred out of the service's registrar account; ${what} at the registrar it went to`);
    return dom;
  };

  const syncRegistered = async (name: string): Promise<DomainRow | undefined> => {
    const dom = await domainByName(s, name);
    if (!dom || dom.status === 'pending' || dom.status === 'imported' || dom.status === 'transferred_out') return dom;
    const info = await registrar().info(name);
    return recordRegistrarFacts(s, name, dom.uid, info ? { expiresAt: info.expiresAt, locked: info.locked, nameservers: info.nameservers } : 'transferred_out');
  };

  const calls: { [K in DomainOp]: (i: DomainCalls[K]['in']) => Promise<DomainCalls[K]['out']> } = {
    check: async (i) => {
      try {
        return { results: await registrar().check(i.names) };
      } catch (e) {
        throw registrarError(e);
      }
    },
    purchase,
    renew: async (i) => {
      await registered(i.orgId, i.name, 'renew it');
      registrar();
      await serially(i.name, async () => {
        const dom = (await domainByName(s, i.name))!;
        // A renewal under way is resumed as stored; only a new one is held to the term.
        if (!dom.renewal) checkTerm(i.name, dom.expiresAt, i.years, s.clock());
        return renewFlow(i.name, i.years, false, i.actor);
      });
      return { ok: true };
    },
    lock: async (i) => {
      const dom = await registered(i.orgId, i.name, 'lock or unlock it');
      await serially(i.name, async () => {
        let reg: RegistrarDomain;
        try {
          reg = await registrar().setLock(i.name, i.locked);
        } catch (e) {
          if (e instanceof RegistrarRefused) {
            await recordRegistrarFacts(s, i.name, dom.uid, 'transferred_out');
            throw notFound(`domain ${i.name} in the service's registrar account (it was transferred out)`);
          }
          throw registrarError(e);
        }
        await recordRegistrarFacts(s, i.name, dom.uid, { expiresAt: reg.expiresAt, locked: reg.locked, nameservers: reg.nameservers });
        await auditDomain(s, { orgId: i.orgId, event: 'domain.lock', actor: i.actor, name: i.name, details: { locked: i.locked } });
      });
      return { ok: true };
    },
    authCode: async (i) => {
      const dom = await registered(i.orgId, i.name, 'ask for its auth code', 404);
      let authCode: string;
      try {
        authCode = await registrar().authCode(i.name);
      } catch (e) {
        if (e instanceof RegistrarRefused) throw notFound(`domain ${i.name} in the service's registrar account`);
        throw registrarError(e);
      }
      await auditDomain(s, { orgId: i.orgId, event: 'domain.auth_code', actor: i.actor, name: i.name });
      const until = new Date(Date.parse(dom.createdAt) + TRANSFER_LOCK_DAYS * 86_400_000);
      return { authCode, transferLockedUntil: until.getTime() > s.clock().getTime() ? iso(until) : null };
    },
    sync: async (i) => {
      const dom = await domainByName(s, i.name);
      if (!dom || dom.orgId !== i.orgId) throw notFound(`domain ${i.name}`);
      if (dom.status === 'imported') {
        // Not in our registrar account: its delegation is what there is to read, and it never reads as transferred out.
        let ns: string[];
        try {
          ns = await d.delegation(i.name);
        } catch (e) {
          throw new AppError(502, 'registrar_error', `the delegation of ${i.name} could not be read (${(e as Error).message}); send the request again`);
        }
        await recordRegistrarFacts(s, i.name, dom.uid, { delegation: ns });
        return { ok: true };
      }
      if (dom.status === 'pending') return { ok: true };
      registrar();
      try {
        await serially(i.name, () => syncRegistered(i.name));
      } catch (e) {
        throw registrarError(e);
      }
      d.nudge('domain', i.name);
      return { ok: true };
    },
  };

  return {
    call: (op, input) => calls[op](input),
    finishAbandoned,
    renew: (name, years, auto, actor) => serially(name, () => renewFlow(name, years, auto, actor)),
    sync: (name) => serially(name, () => syncRegistered(name)),
    serially,
  };
}
