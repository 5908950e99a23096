/**
 * One domain worked on by two processes on one store at once (issue 23: every process answers the API, the leader
 * runs the reconcilers): a purchase or a renewal sent to two replicas, or finished by the leader's reconciler while
 * a replica answers it, acts once at the providers and moves on once in the store.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import type { TestApi } from '../helpers/app';
import { purchaseBody, useDomainSetting, type Providers } from '../helpers/domains';

let t: TestApi;
let p: Providers;

useDomainSetting({ timeoutMs: 5_000 }, (s) => {
  t = s.t;
  p = s.p;
});

const charges = (name: string) => p.payments.charges().filter((c) => c.description.startsWith(`${name},`));

describe('one domain worked on by two processes on one store at once (a replica answering it sent again, the leader\'s reconciler)', () => {
  /** A second process's domain service over the test's store and sandboxes, and the org's input fields for it. */
  const anotherProcess = async () => {
    const api = p.service!;
    // The factory keeps the last service it made as the test API's: the API's stays the first process's.
    const other = p.domains({ store: t.store, sealer: t.sealer, log: createLogger({ level: 'silent' }), nudge: () => undefined });
    p.service = api;
    const [org] = await t.store.raw<{ id: number }>('test org', 'SELECT id FROM orgs WHERE slug = ?', ['acme']);
    return { other, orgId: org!.id, actor: 'user:other-replica' };
  };
  const audited = async (event: string, name: string): Promise<number> =>
    (await t.call('GET', '/v1/orgs/acme/audit?limit=100')).body.items.filter((e: { event: string; target: string }) => e.event === event && e.target === name).length;

  it('a purchase moves each step on once: one charge, one registration, one ledger line and one audit record', async () => {
    const name = 'two-replicas.com';
    const { other, orgId, actor } = await anotherProcess();
    const body = purchaseBody(name);
    const [viaApi, viaOther] = await Promise.all([
      t.call('POST', '/v1/orgs/acme/domains', { body }),
      other.call('purchase', { ...body, orgId, plan: 'free', zoneLimit: 1_000, actor }),
    ]);
    expect([200, 201], JSON.stringify(viaApi.body)).toContain(viaApi.status);
    expect(viaOther).toMatchObject({ created: expect.any(Boolean) });
    const d = await t.call('GET', `/v1/orgs/acme/domains/${name}`);
    expect(d.body.status).toBe('active');
    expect(d.body.ledger.filter((e: { kind: string }) => e.kind === 'charge')).toHaveLength(1);
    expect(charges(name)).toHaveLength(1);
    expect(p.registrar.domains().filter((x) => x.name === name)).toHaveLength(1);
    expect(await audited('domain.purchase', name)).toBe(1);
  });

  it('a renewal is renewed, billed and written in the ledger once', async () => {
    const name = 'two-replicas-renewal.com';
    expect((await t.call('POST', '/v1/orgs/acme/domains', { body: purchaseBody(name) })).status).toBe(201);
    const { other, orgId, actor } = await anotherProcess();
    const renewalsBefore = p.registrar.renewalCount;
    const [viaApi] = await Promise.all([
      t.call('POST', `/v1/orgs/acme/domains/${name}/renew`, { body: { years: 1 } }),
      other.call('renew', { orgId, name, years: 1, actor }),
    ]);
    expect(viaApi.status, JSON.stringify(viaApi.body)).toBe(200);
    expect(p.registrar.renewalCount - renewalsBefore).toBe(1);
    expect(p.payments.charges().filter((c) => c.description.startsWith(`renewal of ${name}`))).toHaveLength(1);
    const d = await t.call('GET', `/v1/orgs/acme/domains/${name}`);
    expect(d.body.ledger.filter((e: { kind: string }) => e.kind === 'renewal')).toHaveLength(1);
    expect(await audited('domain.renew', name)).toBe(1);
  });
});
