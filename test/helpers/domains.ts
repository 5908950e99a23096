/** Domain tests' setting: the sandbox registrar and payment provider over HTTP (their real adapters, with short
 * deadlines so that a hang is a timeout soon), and the core's domain service over a test API's store. */
import { domainService, type DomainService } from '../../sagas/domains';
import type { Sealer } from '../../core/sealing';
import type { Logger } from '../../lib/log';
import { httpPayments } from '../../providers/payment/http';
import { startPaymentSandbox, type PaymentSandbox } from '../../providers/payment/sandbox';
import { httpRegistrar } from '../../providers/registrar/http';
import { startRegistrarSandbox, type RegistrarSandbox } from '../../providers/registrar/sandbox';
import type { Store } from '../../store/db';
import type { NudgeKind } from '../../core/port';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startTestApi, type TestApi } from './app';

export const CONTACT = {
  name: 'Ada Lovelace-Sentinel',
  email: 'ada.sentinel@registrant.example',
  phone: '+44.2071234567',
  address: { line1: '12 Sentinel Street', city: 'Sentinelton', postalCode: 'SN1 7EL' },
  country: 'GB',
};
/** Values of the contact that must appear nowhere but at the registrar. */
export const CONTACT_VALUES = [CONTACT.name, CONTACT.email, CONTACT.phone, CONTACT.address.line1, CONTACT.address.city, CONTACT.address.postalCode];

export const purchaseBody = (name: string, over: Record<string, unknown> = {}) => ({ name, years: 1, contact: CONTACT, paymentMethod: 'pm_card_visa', ...over });

export interface Providers {
  registrar: RegistrarSandbox;
  payments: PaymentSandbox;
  /** Answers of the sandboxes' NS lookups for imported domains. */
  delegations: Map<string, string[]>;
  service?: DomainService;
  /** The factory startTestApi takes; it keeps the service it made in `service`. */
  domains: (d: { store: Store; sealer: Sealer; log: Logger; nudge: (kind: NudgeKind, key: string) => void }) => DomainService;
  close(): Promise<void>;
}

export async function startProviders(opts: { timeoutMs?: number; registrar?: boolean } = {}): Promise<Providers> {
  const registrar = await startRegistrarSandbox();
  const payments = await startPaymentSandbox();
  const delegations = new Map<string, string[]>();
  const timeoutMs = opts.timeoutMs ?? 400;
  const p: Providers = {
    registrar, payments, delegations,
    domains: (d) => {
      p.service = domainService({
        ...d,
        registrar: opts.registrar === false ? null : httpRegistrar(registrar.url, { timeoutMs }),
        payments: opts.registrar === false ? null : httpPayments(payments.url, { timeoutMs }),
        dns: { configured: true, nameservers: ['ns1.hostplane.test', 'ns2.hostplane.test'] },
        delegation: async (name) => {
          const ns = delegations.get(name);
          if (!ns) throw new Error('SERVFAIL');
          return ns;
        },
      });
      return p.service;
    },
    close: async () => {
      await registrar.close();
      await payments.close();
    },
  };
  return p;
}

/** A test file's setting: the providers and a test API over them, started before its tests (then handed to
 * `ready`) and closed after them; the sandboxes' faults are cleared after each test. */
export function useDomainSetting(opts: { timeoutMs?: number }, ready: (s: { t: TestApi; p: Providers }) => void): void {
  let t: TestApi | undefined;
  let p: Providers | undefined;
  beforeAll(async () => {
    p = await startProviders(opts);
    t = await startTestApi({ domains: p.domains });
    ready({ t, p });
  });
  afterAll(async () => {
    await t?.close();
    await p?.close();
  });
  afterEach(() => {
    p?.registrar.fault(null);
    p?.payments.fault(null);
  });
}
