/** Domains group (spec 4.3, issue 13): the ten operations and their rules, against the sandbox registrar and
 * payment provider over HTTP; concurrency of purchases; and a scan proving no contact, auth code or card data
 * reaches audit rows, logs or the store in plaintext. */
import { describe, expect, it } from 'vitest';
import { createOrg, createUser, issueToken, setMembership } from '../../store/accounts';
import { appendAudit, listAudit } from '../../store/feed';
import { domainByName, recordDomainConditions } from '../../store/domains';
import { startTestApi, type TestApi } from '../helpers/app';
import { storeBytes } from '../helpers/store';
import { CONTACT, CONTACT_VALUES, purchaseBody, useDomainSetting, type Providers } from '../helpers/domains';
import { DEFAULT_PLANS } from '../../rules/plans';

const D = '/v1/orgs/acme/domains';
let t: TestApi;
let p: Providers;
let service: NonNullable<Providers['service']>;

useDomainSetting({}, (s) => {
  t = s.t;
  p = s.p;
  service = s.p.service!;
});

const chargesFor = (name: string) => p.payments.charges().filter((c) => c.description.startsWith(name));
const registrationsOf = (name: string) => p.registrar.domains().filter((d) => d.name === name);

describe('checkDomains', () => {
  it('answers availability with the first year\'s and the renewal price per name (member and above)', async () => {
    const r = await t.call('POST', `${D}/check`, { token: t.tokens.member, body: { names: ['Fresh-Check.dev', 'taken-one.com'] } });
    expect(r.status).toBe(200);
    expect(r.body.results).toEqual([
      { name: 'fresh-check.dev', available: true, priceCents: 1200, renewalCents: 2000, currency: 'USD' },
      { name: 'taken-one.com', available: false, priceCents: 899, renewalCents: 1599, currency: 'USD' },
    ]);
    expect((await t.call('POST', `${D}/check`, { token: t.tokens.viewer, body: { names: ['a.com'] } })).status).toBe(403);
  });

  it('is 502 registrar_error when the registrar fails', async () => {
    p.registrar.fault({ mode: 'fail' });
    const r = await t.call('POST', `${D}/check`, { body: { names: ['a.com'] } });
    expect(r.status).toBe(502);
    expect(r.body.code).toBe('registrar_error');
  });
});

describe('purchaseDomain', () => {
  it('charges, registers with our nameservers, creates the zone; a resend answers 200 and charges nothing', async () => {
    const r = await t.call('POST', D, { body: purchaseBody('bought.com') });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.headers.get('location')).toBe(`${D}/bought.com`);
    expect(r.body).toMatchObject({ name: 'bought.com', status: 'active', autoRenew: true, locked: true, nameservers: ['ns1.hostplane.test', 'ns2.hostplane.test'] });
    const again = await t.call('POST', D, { body: purchaseBody('bought.com') });
    expect(again.status).toBe(200);
    expect(chargesFor('bought.com')).toHaveLength(1);
    expect(registrationsOf('bought.com')).toHaveLength(1);
    expect((await t.call('GET', '/v1/orgs/acme/dns/zones/bought.com')).status).toBe(200);
    const detail = await t.call('GET', `${D}/bought.com`, { token: t.tokens.viewer });
    expect(detail.body.ledger).toEqual([expect.objectContaining({ kind: 'charge', amountCents: 899, currency: 'usd' })]);
    const audit = (await listAudit(t.store, 1, 100)).filter((a) => a.target === 'bought.com');
    expect(audit.map((a) => a.event).sort()).toEqual(['dns.zone.create', 'domain.purchase']);
  });

  it('needs admin', async () => {
    expect((await t.call('POST', D, { token: t.tokens.member, body: purchaseBody('member-buys.com') })).status).toBe(403);
  });

  it('while a purchase is open, no other organization can create a zone under the name (it would answer for part of it)', async () => {
    p.registrar.fault({ mode: 'fail', operations: ['register'], times: 1 });
    const first = await t.call('POST', D, { body: purchaseBody('nested-held.com') });
    expect(first.status, JSON.stringify(first.body)).toBe(502);
    const theirs = await t.call('POST', '/v1/orgs/globex/dns/zones', { token: t.other.token, body: { name: 'www.nested-held.com' } });
    expect([theirs.status, theirs.body.code], JSON.stringify(theirs.body)).toEqual([409, 'zone_taken']);
    const resent = await t.call('POST', D, { body: purchaseBody('nested-held.com') });
    expect(resent.status, JSON.stringify(resent.body)).toBe(201);
    expect(chargesFor('nested-held.com')).toHaveLength(1);
  });

  it('a declined payment method is 402 payment_failed; nothing charged, the name free again', async () => {
    const r = await t.call('POST', D, { body: purchaseBody('declined.com', { paymentMethod: 'pm_card_declined' }) });
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ code: 'payment_failed', details: { declineCode: 'card_declined' } });
    expect(chargesFor('declined.com')).toEqual([]);
    expect(await domainByName(t.store, 'declined.com')).toBeUndefined();
    expect((await t.call('POST', D, { body: purchaseBody('declined.com') })).status).toBe(201);
  });

  it('a name the registry refuses is 409 domain_unavailable, before any charge', async () => {
    const r = await t.call('POST', D, { body: purchaseBody('reserved-name.com') });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('domain_unavailable');
    expect(chargesFor('reserved-name.com')).toEqual([]);
  });

  it('a name refused after the charge is refunded (ledger: charge and refund) and is 409 domain_unavailable', async () => {
    p.registrar.fault({ mode: 'fail', operations: ['register'], times: 1 });
    expect((await t.call('POST', D, { body: purchaseBody('raced.com') })).status).toBe(502);
    p.registrar.registryTake('raced.com');
    const r = await t.call('POST', D, { body: purchaseBody('raced.com') });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe('domain_unavailable');
    expect(chargesFor('raced.com')).toEqual([expect.objectContaining({ refunded: true })]);
    expect(await domainByName(t.store, 'raced.com')).toBeUndefined();
  });

  it('a resend with other terms while the purchase is open is 400 naming them', async () => {
    p.registrar.fault({ mode: 'fail', operations: ['register'], times: 1 });
    const first = await t.call('POST', D, { body: purchaseBody('terms.com') });
    expect(first.status).toBe(502);
    expect(first.body.code).toBe('registrar_error');
    const other = await t.call('POST', D, { body: purchaseBody('terms.com', { years: 2, contact: { ...CONTACT, name: 'Someone Else' } }) });
    expect(other.status).toBe(400);
    expect(other.body.details.fields).toEqual(['years', 'contact']);
    expect(other.body.message).toContain('years, contact');
    const pending = (await t.call('GET', `${D}/terms.com`)).body;
    expect(pending).toMatchObject({ status: 'pending', purchaseStep: 'registering' });
    // The list reads each domain's status and open purchase in its one query: the same as getDomain's.
    const listed = (await t.call('GET', D)).body.items.find((d: { name: string }) => d.name === 'terms.com');
    expect({ ...listed, ledger: undefined }).toEqual({ ...pending, ledger: undefined });
    expect((await t.call('POST', D, { body: purchaseBody('terms.com') })).status).toBe(201);
    expect(chargesFor('terms.com')).toHaveLength(1);
  });

  it('checks the zone name rule and the zone quota before any charge', async () => {
    const bad = await t.call('POST', D, { body: purchaseBody('co.uk') });
    expect(bad.status).toBe(400);
    const small = await startTestApi({ domains: p.domains, config: { plans: { ...DEFAULT_PLANS, free: { ...DEFAULT_PLANS.free!, zones: 1 } } } });
    try {
      expect((await small.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'first.com' } })).status).toBe(200);
      const r = await small.call('POST', D, { body: purchaseBody('over-quota.com') });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ code: 'quota_exceeded', details: { quota: 'zones', limit: 1, count: 1 } });
      expect(chargesFor('over-quota.com')).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('refuses the fallback origin\'s domain (in a domain of its own) as createZone and addHostname do, before any charge', async () => {
    const apart = await startTestApi({ domains: p.domains, config: { fallbackOrigin: 'edge.cdn-other.com' } });
    try {
      for (const name of ['cdn-other.com', 'sub.cdn-other.com']) {
        const bought = await apart.call('POST', D, { body: purchaseBody(name) });
        expect([bought.status, bought.body.code], JSON.stringify(bought.body)).toEqual([400, 'bad_request']);
        expect(bought.body.message).toMatch(/a domain this service uses itself/);
        const imported = await apart.call('POST', `${D}/import`, { body: { name } });
        expect([imported.status, imported.body.code], JSON.stringify(imported.body)).toEqual([400, 'bad_request']);
        expect(chargesFor(name)).toEqual([]);
      }
    } finally {
      await apart.close();
    }
  });

  it('an open purchase counts against the zone quota of createZone too', async () => {
    const small = await startTestApi({ domains: p.domains, config: { plans: { ...DEFAULT_PLANS, free: { ...DEFAULT_PLANS.free!, zones: 1 } } } });
    try {
      p.registrar.fault({ mode: 'fail', operations: ['register'], times: 1 });
      expect((await small.call('POST', D, { body: purchaseBody('held-quota.com') })).status).toBe(502);
      const r = await small.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'extra-zone.com' } });
      expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([409, 'quota_exceeded']);
      expect((await small.call('POST', D, { body: purchaseBody('held-quota.com') })).status).toBe(201);
    } finally {
      await small.close();
    }
  });

  it('two identical purchases at once give one purchase: one 201, one 200, one charge, one registration', async () => {
    const [a, b] = await Promise.all([t.call('POST', D, { body: purchaseBody('twice.com') }), t.call('POST', D, { body: purchaseBody('twice.com') })]);
    expect([a.status, b.status].sort()).toEqual([200, 201]);
    expect(chargesFor('twice.com')).toHaveLength(1);
    expect(registrationsOf('twice.com')).toHaveLength(1);
  });

  it('two organizations buying one name at once: one 201 and one 409 domain_taken', async () => {
    const [a, b] = await Promise.all([
      t.call('POST', D, { body: purchaseBody('contested.com') }),
      t.call('POST', `/v1/orgs/${t.other.slug}/domains`, { token: t.other.token, body: purchaseBody('contested.com') }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expect([a.body.code, b.body.code]).toContain('domain_taken');
    expect(chargesFor('contested.com')).toHaveLength(1);
  });

  it('an Idempotency-Key replays the 201; a 502 is not stored, so sending again resumes', async () => {
    p.payments.fault({ mode: 'fail', operations: ['charge'], times: 1 });
    const headers = { 'idempotency-key': 'buy-keyed-1' };
    expect((await t.call('POST', D, { body: purchaseBody('keyed.com'), headers })).status).toBe(502);
    const done = await t.call('POST', D, { body: purchaseBody('keyed.com'), headers });
    expect(done.status).toBe(201);
    const replay = await t.call('POST', D, { body: purchaseBody('keyed.com'), headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(chargesFor('keyed.com')).toHaveLength(1);
  });
});

describe('importDomain, getDomain, listDomains', () => {
  it('creates one zone without calling the registrar; 201 new, 200 existing; another org\'s is 409 domain_taken', async () => {
    const calls = { ...p.registrar.calls };
    const r = await t.call('POST', `${D}/import`, { body: { name: 'Imported.ORG' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: 'imported.org', status: 'imported', expiresAt: null });
    expect((await t.call('POST', `${D}/import`, { body: { name: 'imported.org' } })).status).toBe(200);
    expect(p.registrar.calls).toEqual(calls);
    expect((await t.call('GET', '/v1/orgs/acme/dns/zones/imported.org')).status).toBe(200);
    const other = await t.call('POST', `/v1/orgs/${t.other.slug}/domains/import`, { token: t.other.token, body: { name: 'imported.org' } });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('domain_taken');
    // Nor a domain bought by another organization.
    const bought = await t.call('POST', `/v1/orgs/${t.other.slug}/domains/import`, { token: t.other.token, body: { name: 'bought.com' } });
    expect(bought.body.code).toBe('domain_taken');
  });

  it('another organization\'s domain reads as 404; list holds the organization\'s own', async () => {
    expect((await t.call('GET', `/v1/orgs/${t.other.slug}/domains/bought.com`, { token: t.other.token })).status).toBe(404);
    const list = await t.call('GET', D, { token: t.tokens.viewer });
    expect(list.body.items.map((d: { name: string }) => d.name)).toEqual(expect.arrayContaining(['bought.com', 'imported.org']));
  });

  it('an imported domain: renew and lock are 400 naming its own registrar, its auth code 404, sync reads its delegation', async () => {
    const renew = await t.call('POST', `${D}/imported.org/renew`, { body: { years: 1 } });
    expect(renew.status).toBe(400);
    expect(renew.body.message).toMatch(/its own registrar/);
    const lock = await t.call('POST', `${D}/imported.org/lock`, { body: { locked: false } });
    expect(lock.status).toBe(400);
    expect(lock.body.message).toMatch(/its own registrar/);
    expect((await t.call('POST', `${D}/imported.org/auth-code`)).status).toBe(404);
    p.delegations.set('imported.org', ['ns1.elsewhere.example']);
    const sync = await t.call('POST', `${D}/imported.org/sync`, { token: t.tokens.member });
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ status: 'imported', nameservers: ['ns1.elsewhere.example'] });
  });
});

describe('the registrar operations of a bought domain', () => {
  it('setDomainLock changes the lock at the registrar (audit domain.lock)', async () => {
    const r = await t.call('POST', `${D}/bought.com/lock`, { body: { locked: false } });
    expect(r.status).toBe(200);
    expect(r.body.locked).toBe(false);
    expect(p.registrar.domains().find((d) => d.name === 'bought.com')!.locked).toBe(false);
  });

  it('renewDomain renews at the registrar and bills (ledger renewal)', async () => {
    const before = (await t.call('GET', `${D}/bought.com`)).body.expiresAt as string;
    const r = await t.call('POST', `${D}/bought.com/renew`, { body: { years: 2 } });
    expect(r.status).toBe(200);
    expect(new Date(r.body.expiresAt).getUTCFullYear()).toBe(new Date(before).getUTCFullYear() + 2);
    const ledger = (await t.call('GET', `${D}/bought.com`)).body.ledger;
    expect(ledger[0]).toMatchObject({ kind: 'renewal', amountCents: 2 * 1599 });
  });

  it('renewDomain refuses a term past 10 years ahead with 400 naming the limit, and calls no registrar for it', async () => {
    expect((await t.call('POST', D, { body: purchaseBody('long-term.com') })).status).toBe(201);
    const expiresAt = (await t.call('GET', `${D}/long-term.com`)).body.expiresAt as string;
    const calls = { ...p.registrar.calls };
    const over = await t.call('POST', `${D}/long-term.com/renew`, { body: { years: 10 } });
    expect([over.status, over.body.code]).toEqual([400, 'bad_request']);
    expect(over.body.message).toMatch(/10 years/);
    expect(over.body.details).toMatchObject({ limitYears: 10, expiresAt });
    expect(p.registrar.calls).toEqual(calls);
    // Repeated renewals stop at the cap too: each one alone is within 1..10 years.
    let last = 200;
    for (let i = 0; i < 12 && last === 200; i++) last = (await t.call('POST', `${D}/long-term.com/renew`, { body: { years: 1 } })).status;
    expect(last).toBe(400);
    const capped = new Date((await t.call('GET', `${D}/long-term.com`)).body.expiresAt as string);
    expect(capped.getTime()).toBeLessThanOrEqual(Date.now() + 10 * 366 * 86_400_000);
  });

  it('setDomainAutoRenew stores the intent only, and says renewal at the registrar stays on', async () => {
    const calls = { ...p.registrar.calls };
    const r = await t.call('POST', `${D}/bought.com/auto-renew`, { body: { autoRenew: false } });
    expect(r.status).toBe(200);
    expect(r.body.autoRenew).toBe(false);
    expect(p.registrar.calls).toEqual(calls);
    expect(p.registrar.domains().find((d) => d.name === 'bought.com')!.autoRenew).toBe(true);
    const doc = await (await fetch(`${t.url}/openapi.json`)).json() as any;
    expect(doc.paths['/v1/orgs/{orgSlug}/domains/{name}/auto-renew'].post.summary).toMatch(/registrar stays on/);
    await t.call('POST', `${D}/bought.com/auto-renew`, { body: { autoRenew: true } });
  });

  it('getDomainAuthCode answers the code with the 60-day lock as advice; the Idempotency-Key is ignored', async () => {
    const headers = { 'idempotency-key': 'code-1' };
    const a = await t.call('POST', `${D}/bought.com/auth-code`, { headers });
    const b = await t.call('POST', `${D}/bought.com/auth-code`, { headers });
    expect(a.status).toBe(200);
    expect(a.headers.get('cache-control')).toBe('no-store');
    expect(a.body.authCode).toMatch(/^[\w-]{8,}$/);
    expect(Date.parse(a.body.transferLockedUntil)).toBeGreaterThan(Date.now() + 59 * 86_400_000);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(p.registrar.calls.auth_code).toBeGreaterThanOrEqual(2);
  });

  it('syncDomain re-reads the registrar; a domain not in the account becomes transferred_out', async () => {
    expect((await t.call('POST', D, { body: purchaseBody('leaving.com') })).status).toBe(201);
    p.registrar.set('leaving.com', { locked: false, nameservers: ['ns1.other.example'] });
    const r = await t.call('POST', `${D}/leaving.com/sync`, { token: t.tokens.member });
    expect(r.body).toMatchObject({ status: 'active', locked: false, nameservers: ['ns1.other.example'] });
    p.registrar.transferOut('leaving.com');
    expect((await t.call('POST', `${D}/leaving.com/sync`, { token: t.tokens.member })).body.status).toBe('transferred_out');
  });

  it('a bought domain shows Synced at once: in the purchase answer, and after syncDomain ends an outage the reconciler recorded', async () => {
    const synced = [expect.objectContaining({ type: 'Synced', status: 'True', reason: 'Synced' })];
    const bought = await t.call('POST', D, { body: purchaseBody('observed.com') });
    expect(bought.status).toBe(201);
    expect(bought.body.conditions).toEqual(synced);
    await recordDomainConditions(t.store, 'observed.com', [{ type: 'Synced', status: 'False', reason: 'RegistrarUnavailable', message: 'down' }], 'down');
    const r = await t.call('POST', `${D}/observed.com/sync`, { token: t.tokens.member });
    expect(r.body.conditions).toEqual(synced);
    const listed = (await t.call('GET', D)).body.items.find((d: { name: string }) => d.name === 'observed.com');
    expect(listed.conditions).toEqual(synced);
  });

  it('a domain transferred out of one organization does not block another\'s import of it once its zone is gone', async () => {
    expect((await t.call('GET', `${D}/leaving.com`)).body.status).toBe('transferred_out');
    const elsewhere = { token: t.other.token, body: { name: 'leaving.com' } };
    expect((await t.call('POST', `/v1/orgs/${t.other.slug}/domains/import`, elsewhere)).body.code).toBe('domain_taken');
    expect((await t.call('DELETE', '/v1/orgs/acme/dns/zones/leaving.com')).status).toBe(204);
    const imported = await t.call('POST', `/v1/orgs/${t.other.slug}/domains/import`, elsewhere);
    expect([imported.status, imported.body.status]).toEqual([201, 'imported']);
    expect((await t.call('GET', `${D}/leaving.com`)).status).toBe(404);
  });

  it('a registrar failure is 502 registrar_error on renew, lock, auth code and sync, and fails no read', async () => {
    p.registrar.fault({ mode: 'fail' });
    for (const [path, body] of [['renew', { years: 1 }], ['lock', { locked: true }], ['auth-code', undefined], ['sync', undefined]] as const) {
      const r = await t.call('POST', `${D}/bought.com/${path}`, { body });
      expect(r.status, path).toBe(502);
      expect(r.body.code).toBe('registrar_error');
    }
    expect((await t.call('GET', `${D}/bought.com`)).status).toBe(200);
    expect((await t.call('GET', D)).status).toBe(200);
    p.registrar.fault(null);
    // The renewal that failed at the registrar was stored; it is resumed (once) rather than lost.
    await service.renew('bought.com', 1, false, 'user:admin@acme.test');
  });
});

describe('without a registrar or a core', () => {
  it('503 registrar_not_configured for check and purchase; 503 no_core without a core', async () => {
    const off = await startTestApi({});
    const none = await startTestApi({ core: null });
    try {
      for (const api of [off]) {
        expect((await api.call('POST', '/v1/orgs/acme/domains/check', { body: { names: ['a.com'] } })).body.code).toBe('registrar_not_configured');
        expect((await api.call('POST', '/v1/orgs/acme/domains', { body: purchaseBody('a.com') })).body.code).toBe('registrar_not_configured');
      }
      const dnsOff = await startTestApi({ domains: p.domains, dns: { configured: false, nameservers: [] } });
      expect((await dnsOff.call('POST', '/v1/orgs/acme/domains', { body: purchaseBody('b.com') })).body.code).toBe('dns_not_configured');
      expect((await dnsOff.call('POST', '/v1/orgs/acme/domains/import', { body: { name: 'b.com' } })).body.code).toBe('dns_not_configured');
      await dnsOff.close();
      expect((await none.call('POST', '/v1/orgs/acme/domains', { body: purchaseBody('a.com') })).body.code).toBe('no_core');
      expect((await none.call('GET', '/v1/orgs/acme/domains')).body.code).toBe('no_core');
    } finally {
      await off.close();
      await none.close();
    }
  });
});

describe('no contact, auth code or card data in audit rows, logs or the store', () => {
  const CARD = '4242424242424242';
  /** Every place a value could leak to: audit rows, log lines, and the store as bytes. */
  const places = async (): Promise<Record<string, string>> => {
    const audit = JSON.stringify(await listAudit(t.store, 1, 1000));
    return { audit, logs: t.logs.join('\n'), store: (await storeBytes(t.store, t.dir)).toString('latin1') };
  };
  const found = async (values: string[]): Promise<string[]> => {
    const out: string[] = [];
    for (const [where, text] of Object.entries(await places())) for (const v of values) if (text.includes(v)) out.push(`${where}: ${v}`);
    return out;
  };

  it('finds none after purchases, failures, auth codes and a card number sent where it does not belong', async () => {
    const code = (await t.call('POST', `${D}/bought.com/auth-code`)).body.authCode as string;
    expect(code).toBeTruthy();
    // A card number in the body is refused (no such field), and not echoed.
    const card = await t.call('POST', D, { body: { ...purchaseBody('card.com'), card: { number: CARD } } });
    expect(card.status).toBe(400);
    expect(JSON.stringify(card.body)).not.toContain(CARD);
    p.registrar.fault({ mode: 'fail', operations: ['register'], times: 1 });
    expect((await t.call('POST', D, { body: purchaseBody('scan-open.com') })).status).toBe(502);
    expect(await found([...CONTACT_VALUES, code, CARD])).toEqual([]);
  });

  it('is not vacuous: a planted value is found in each place', async () => {
    const planted = CONTACT.email;
    const s = t.store;
    await s.write(async (tx) => appendAudit(tx, { orgId: 1, event: 'test.plant', actor: 'test', target: 'x', details: { planted } }, new Date()));
    t.logs.push(JSON.stringify({ msg: 'planted', planted }));
    const r = await t.call('PUT', '/v1/orgs/acme/dns/zones/bought.com/rrsets/plant.bought.com/TXT', { body: { records: [{ content: planted }] } });
    expect(r.status).toBe(200);
    const hits = await found([planted]);
    expect(hits.map((h) => h.split(':')[0]).sort()).toEqual(['audit', 'logs', 'store']);
  });
});

describe('cross-organization and roles', () => {
  it('a member of another org cannot buy into acme', async () => {
    const s = t.store;
    await createOrg(s, 'initech', 'free');
    await createUser(s, 'boss@initech.test');
    await setMembership(s, 'initech', 'boss@initech.test', 'admin');
    const token = await issueToken(s, 'boss@initech.test');
    expect((await t.call('POST', D, { token, body: purchaseBody('x.com') })).status).toBe(404);
  });
});
