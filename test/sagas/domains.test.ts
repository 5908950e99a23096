/**
 * The purchase saga's fault table (issue 13): for each step that calls out (the availability check, the charge,
 * the registration) and each way it can fail (an error answer, no answer in time, the answer lost after the work
 * was done, the answer arriving after the caller gave up), the purchase is 502 and then either
 * - sent again: it resumes, and the sandboxes hold exactly one charge and one registration, the domain is active
 *   with its zone; or
 * - not sent again: the domain reconciler finishes it once abandoned (charged: registered and active) or closes it
 *   (never charged: nothing to refund), never half done; and a charged one whose name is gone is refunded.
 * (serve killed mid-step: test/e2e/domains.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import type { FaultMode } from '../../providers/sandbox-server';
import { domainReconciler } from '../../reconcilers/domains';
import { domainByName, openPurchaseOf } from '../../store/domains';
import type { TestApi } from '../helpers/app';
import { purchaseBody, useDomainSetting, type Providers } from '../helpers/domains';

let t: TestApi;
let p: Providers;
let n = 0;

useDomainSetting({ timeoutMs: 300 }, (s) => {
  t = s.t;
  p = s.p;
});

type Step = 'check' | 'charge' | 'register';
const STEPS: Step[] = ['check', 'charge', 'register'];
const MODES: FaultMode[] = ['fail', 'hang', 'lost', 'late'];
const TABLE = STEPS.flatMap((step) => MODES.map((mode) => [step, mode] as const));

const inject = (step: Step, mode: FaultMode): void => {
  const f = { mode, times: 1, delayMs: 1_000 };
  if (step === 'charge') p.payments.fault({ ...f, operations: ['charge'] });
  else p.registrar.fault({ ...f, operations: [step] });
};
const charges = (name: string) => p.payments.charges().filter((c) => c.description.startsWith(`${name},`));
const registrations = (name: string) => p.registrar.domains().filter((d) => d.name === name);
const fresh = (step: string, mode: string, how: string): string => `${how}-${step}-${mode}-${++n}.com`;
const reconciler = () => domainReconciler({ store: t.store, domains: p.service!, log: createLogger({ level: 'silent' }), registrar: true, abandonAfterMs: 0 });

async function failFirst(name: string, step: Step, mode: FaultMode): Promise<void> {
  inject(step, mode);
  const r = await t.call('POST', '/v1/orgs/acme/domains', { body: purchaseBody(name) });
  expect(r.status, JSON.stringify(r.body)).toBe(502);
  expect(['saga_incomplete', 'registrar_error']).toContain(r.body.code);
  p.registrar.fault(null);
  p.payments.fault(null);
}

async function finished(name: string): Promise<void> {
  const d = await t.call('GET', `/v1/orgs/acme/domains/${name}`);
  expect(d.body.status).toBe('active');
  expect(d.body.ledger.filter((e: { kind: string }) => e.kind === 'charge')).toHaveLength(1);
  expect((await t.call('GET', `/v1/orgs/acme/dns/zones/${name}`)).status).toBe(200);
  expect(charges(name)).toEqual([expect.objectContaining({ refunded: false })]);
  expect(registrations(name)).toHaveLength(1);
}

describe.each(TABLE)('%s fails by %s', (step, mode) => {
  it('then a resend finishes it: one charge, one registration, the domain active with its zone', async () => {
    const name = fresh(step, mode, 'resend');
    await failFirst(name, step, mode);
    const again = await t.call('POST', '/v1/orgs/acme/domains', { body: purchaseBody(name) });
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    // What a late answer or a lost one did at the provider arrives meanwhile: still once.
    await new Promise((r) => setTimeout(r, mode === 'late' ? 1_100 : 0));
    await finished(name);
    expect((await t.call('POST', '/v1/orgs/acme/domains', { body: purchaseBody(name) })).status).toBe(200);
    await finished(name);
  });

  it('then, with no resend, the reconciler finishes it once abandoned (or closes it when nothing was charged)', async () => {
    const name = fresh(step, mode, 'abandoned');
    await failFirst(name, step, mode);
    await new Promise((r) => setTimeout(r, mode === 'late' ? 1_100 : 0));
    const r = reconciler();
    await r.reconcile(name, new AbortController().signal);
    expect(await openPurchaseOf(t.store, name)).toBeUndefined();
    const charged = step === 'register' || (step === 'charge' && (mode === 'lost' || mode === 'late'));
    if (charged) await finished(name);
    else {
      expect(await domainByName(t.store, name)).toBeUndefined();
      expect(charges(name)).toEqual([]);
      expect(registrations(name)).toEqual([]);
    }
    // Run again: nothing more happens.
    const before = { charges: p.payments.charges().length, registrations: p.registrar.registrations };
    await r.reconcile(name, new AbortController().signal);
    expect({ charges: p.payments.charges().length, registrations: p.registrar.registrations }).toEqual(before);
  });
});

describe('an abandoned purchase whose name can no longer be registered', () => {
  it('is refunded by the reconciler, never left half done; a later purchase charges anew', async () => {
    const name = 'gone-meanwhile.com';
    await failFirst(name, 'register', 'fail');
    p.registrar.registryTake(name);
    await reconciler().reconcile(name, new AbortController().signal);
    expect(charges(name)).toEqual([expect.objectContaining({ refunded: true })]);
    expect(await domainByName(t.store, name)).toBeUndefined();
    expect(await openPurchaseOf(t.store, name)).toBeUndefined();
  });

  it('is left alone while it is younger than the abandonment time', async () => {
    const name = 'young.com';
    await failFirst(name, 'register', 'fail');
    const r = domainReconciler({ store: t.store, domains: p.service!, log: createLogger({ level: 'silent' }), registrar: true, abandonAfterMs: 60_000 });
    const res = await r.reconcile(name, new AbortController().signal);
    expect(res.requeueAfterMs).toBeGreaterThan(50_000);
    expect((await domainByName(t.store, name))!.status).toBe('pending');
    expect((await t.call('POST', '/v1/orgs/acme/domains', { body: purchaseBody(name) })).status).toBe(201);
  });
});
