/**
 * The hostname reconciler (issue 9 items 2 and 3) against a real DNS server on loopback (the stub resolver, over
 * dns-packet) and a recording edge: each proof passing, each failing with a lastError naming the record, what is
 * seen (only where no private view of the resolver can have made it) and what was expected; a resolver that never answers; a proof gone after activation; managed records;
 * finalizers through edge outages; the minute loop activating with no verify call.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { and, eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { conditionOf } from '../../lib/conditions';
import { hostnameRefusal, inPublicDns, normalizeCustomHostname, orgOrigin } from '../../rules/hostnames';
import { createLogger } from '../../lib/log';
import { systemResolver } from '../../providers/resolver';
import { hostnameReconciler, notShown, type HostnameReconcilerDeps } from '../../reconcilers/hostnames';
import { startRunner } from '../../reconcilers/runner';
import { createOrg } from '../../store/accounts';
import { type Store } from '../../store/db';
import { openTestStore } from '../helpers/store';
import { listAudit } from '../../store/feed';
import { finalizersOf } from '../../store/finalizers';
import { addHostname, deleteHostname, hostnameByName, type HostnameFacts } from '../../store/hostnames';
import { createProject } from '../../store/projects';
import { rrsets } from '../../store/schema';
import { statusOf } from '../../store/status';
import { createZone, deleteZone, putRRset } from '../../store/zones';
import { checkCnameConflict } from '../../zonefiles';
import { FakeEdge } from '../helpers/edge';
import { leaderOnly } from '../../providers/leader-only';
import { FencedError, withTerm } from '../../store/leader';
import { captureLogger } from '../helpers/log';
import { useResolvers } from '../helpers/resolvers';
import type { StubResolver } from '../helpers/stub-resolver';

const FALLBACK = 'edge.hostplane.test';
const EDGE_ADDRESSES = ['192.0.2.80', '2001:db8::80'];
const silentLog = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const noAbort = new AbortController().signal;

let stub: StubResolver;
let silentAt: string;
useResolvers((r) => {
  stub = r.stub;
  silentAt = r.silentAt;
});

let s: Store;
let edge: FakeEdge;
let clock: Date;
let acme: { orgId: number; projectId: number; projectName: string };
let globex: { orgId: number; projectId: number; projectName: string };
let n = 0;
/** A fresh name per test: the stub resolver is shared. */
let host: string;

const OUR_NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const reconciler = (over: Partial<HostnameReconcilerDeps> = {}) => hostnameReconciler({
  store: s, resolver: systemResolver([stub.address], 500), nameservers: OUR_NS, edge, fallbackOrigin: FALLBACK, edgeAddresses: EDGE_ADDRESSES, log: silentLog, ...over,
});
/** Public DNS delegates `zone` to `to` (our nameservers by default). */
const delegate = (zone: string, to = OUR_NS) => stub.set(zone, 'NS', to.map((data) => ({ type: 'NS', name: zone, ttl: 300, data })));
const add = async (name = host, who = acme) => (await addHostname(s, { ...who, name, actor: 'user:a@acme.test' })).hostname;
const status = async (name = host) => {
  const h = await hostnameByName(s, name);
  return { row: h, st: h && (await statusOf<HostnameFacts>(s, 'hostname', name, h.uid)) };
};
const cond = (st: { conditions: { type: string }[] } | undefined, type: string) => conditionOf((st?.conditions ?? []) as never, type);
const txt = (name: string, ...values: string[]) => stub.set(name, 'TXT', values.map((data) => ({ type: 'TXT' as const, name, ttl: 60, data })));
const cname = (name: string, target: string) => stub.set(name, 'CNAME', [{ type: 'CNAME', name, ttl: 60, data: target }]);
/** The CNAME target whose CNAME proves a name for `who` (the shared fallback origin proves nothing). */
const originOf = (who: { orgId: number }) => orgOrigin(FALLBACK, who.orgId);
const managed = async (zone: string) => (await s.db.select().from(rrsets).where(and(eq(rrsets.zone, zone), eq(rrsets.managedBy, 'app'))).orderBy(rrsets.name, rrsets.type))
  .map((r) => [r.name, r.type, r.records.map((x) => x.content)]);

beforeEach(async () => {
  clock = new Date('2026-11-26T10:00:00Z');
  s = await openTestStore(':memory:', { clock: () => clock });
  edge = new FakeEdge();
  const a = await createOrg(s, 'acme', 'free');
  const g = await createOrg(s, 'globex', 'free');
  const pa = await createProject(s, { orgId: a.id, plan: 'free', limit: 3, name: 'blog', database: false, hostname: 'blog.hostplane.test', actor: 't' });
  const pg = await createProject(s, { orgId: g.id, plan: 'free', limit: 3, name: 'site', database: false, hostname: 'site.hostplane.test', actor: 't' });
  acme = { orgId: a.id, projectId: pa.id, projectName: 'blog' };
  globex = { orgId: g.id, projectId: pg.id, projectName: 'site' };
  host = `h${++n}.customer${n}.test`;
});
afterEach(() => s.close());

describe('each proof passes', () => {
  it('TXT at _service-verify.<host> equal to the token: active, routed at the edge', async () => {
    const h = await add();
    txt(`_service-verify.${host}`, 'something-else', h.token!);
    await reconciler().reconcile(host, noAbort);
    const { row, st } = await status();
    expect(row).toMatchObject({ status: 'active', proof: 'txt', generation: 2 });
    expect(edge.actions).toEqual([{ op: 'ensure', hostname: host, ref: h.uid }]);
    expect(cond(st, 'Verified')).toMatchObject({ status: 'True', reason: 'TxtRecord', message: `the TXT record at _service-verify.${host} holds the token` });
    expect(cond(st, 'Ready')).toMatchObject({ status: 'True', reason: 'Active', observedGeneration: 2 });
    expect(cond(st, 'CertificateReady')).toMatchObject({ status: 'True', reason: 'Issued' });
    expect(st!.lastError).toBeNull();
  });

  it('CNAME of <host> to the organization\'s origin under the fallback origin', async () => {
    await add();
    cname(host, `${originOf(acme).toUpperCase()}.`);
    await reconciler().reconcile(host, noAbort);
    const { row, st } = await status();
    expect(row).toMatchObject({ status: 'active', proof: 'cname' });
    expect(cond(st, 'Resolves')).toMatchObject({ status: 'True', reason: 'PointsToEdge' });
  });

  it('the name lies in a zone of the same organization delegated to our nameservers: only the delegation asked', async () => {
    await createZone(s, { orgId: acme.orgId, name: `customer${n}.test`, nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    delegate(`customer${n}.test`);
    await add();
    const before = stub.queries.length;
    await reconciler().verify(host);
    expect(stub.queries.slice(before)).toEqual([`customer${n}.test NS`]);
    expect((await status()).row).toMatchObject({ status: 'active', proof: 'zone' });
  });

  const notDelegated = (zone: string) => `zone ${zone} is yours here, but public DNS does not delegate it to ns1.hostplane.test, ns2.hostplane.test`;
  // The nameservers of a zone outside public DNS (`.test`, `.internal`) are never shown, nor ones outside it: the
  // resolver may be the system's, which knows the service's own network.
  it.each([
    ['no delegation at all', 'customer{n}.test', null, notDelegated('customer{n}.test')],
    ['no delegation at all, in public DNS', 'customer{n}.example.com', null, notDelegated('customer{n}.example.com')],
    ['a zone outside public DNS the resolver knows', 'corp{n}.internal', ['dc1.corp.internal'], notDelegated('corp{n}.internal')],
    ['a delegation elsewhere', 'customer{n}.example.com', ['ns1.registrar.example.net', 'ns2.registrar.example.net'],
      'zone customer{n}.example.com is yours here, but public DNS delegates it to ns1.registrar.example.net, ns2.registrar.example.net, expected ns1.hostplane.test, ns2.hostplane.test'],
    ['a delegation to internal nameservers', 'customer{n}.example.com', ['dc1.corp.internal'], 'public DNS delegates it to other nameservers, expected'],
    ['a delegation half to us', 'customer{n}.example.com', ['ns1.hostplane.test', 'ns1.registrar.example.net'], 'public DNS delegates it to other nameservers, expected'],
  ])('a zone of the organization that public DNS does not delegate to us proves nothing (%s): anyone can create a zone', async (_, zoneOf, to, seen) => {
    const zone = zoneOf.replace('{n}', String(n));
    await createZone(s, { orgId: acme.orgId, name: zone, nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    if (to) delegate(zone, to);
    const name = `www.${zone}`;
    await add(name);
    await reconciler().reconcile(name, noAbort);
    const { row, st } = await status(name);
    expect(row!.status).toBe('pending_dns');
    expect(st!.lastError).toContain(seen.replace('{n}', String(n)));
  });

  it('a zone of another organization proves nothing', async () => {
    await createZone(s, { orgId: globex.orgId, name: `customer${n}.test`, nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    await add();
    await reconciler().reconcile(host, noAbort);
    expect((await status()).row!.status).toBe('pending_dns');
  });
});

describe('another organization cannot take a name through the service\'s own records', () => {
  const zone = () => `customer${n}.test`;
  beforeEach(async () => {
    await createZone(s, { orgId: acme.orgId, name: zone(), nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    delegate(zone());
  });

  it('a CNAME in acme\'s zone to the shared fallback origin, or to acme\'s origin as its guidance asks, proves nothing for globex: judged on request, its hold is released, audited', async () => {
    for (const target of [FALLBACK, originOf(acme)]) {
      await add(host, globex);
      cname(host, target);
      await reconciler().reconcile(host, noAbort);
      expect((await status()).row!.status, target).toBe('pending_dns');
      await reconciler().verify(host);
      expect((await status()).row, target).toBeUndefined();
      expect((await listAudit(s, globex.orgId, 5))[0]).toMatchObject({ event: 'hostname.release', actor: 'system', target: host, details: { zone: zone(), status: 'pending_dns' } });
    }
    // Re-adding at each expiry keeps nothing from acme: judged when acme asks, it goes again, and acme takes the name.
    await add(host, globex);
    await reconciler().verify(host);
    expect((await add(host, acme)).projectId).toBe(acme.projectId);
  });

  it('a name acme released is not verifiable through the managed CNAME resolvers still cache', async () => {
    await add(host, acme);
    const r = reconciler();
    await r.reconcile(host, noAbort);
    expect(await managed(zone())).toEqual([[host, 'CNAME', [FALLBACK]]]);
    await deleteHostname(s, { ...acme, name: host, actor: 't' });
    await r.reconcile(host, noAbort);
    expect(await managed(zone())).toEqual([]);
    // What resolvers answer for up to the record's TTL after the release.
    cname(host, FALLBACK);
    await add(host, globex);
    await r.reconcile(host, noAbort);
    expect((await status()).row!.status).toBe('pending_dns');
    await r.verify(host);
    expect((await status()).row).toBeUndefined();
  });

  it('a CNAME to the claimant\'s own origin, or a TXT of its token, written by the zone\'s owner, proves the name for the claimant while it is there', async () => {
    const r = reconciler();
    await add(host, globex);
    cname(host, originOf(globex));
    await r.reconcile(host, noAbort);
    expect((await status()).row).toMatchObject({ status: 'active', proof: 'cname' });
    await r.reconcile(host, noAbort);
    expect((await status()).row).toMatchObject({ status: 'active', proof: 'cname' });
    // The zone's owner takes its consent back: the row goes at the next pass.
    stub.set(host, 'CNAME', []);
    await r.reconcile(host, noAbort);
    expect((await status()).row).toBeUndefined();
    // The TXT of a new row's token: the pass its add wakes leaves it pending, so the zone's owner can write the token
    // the add answered.
    const held = await add(host, globex);
    await r.reconcile(host, noAbort);
    expect((await status()).row!.status).toBe('pending_dns');
    txt(`_service-verify.${host}`, held.token!);
    await r.reconcile(host, noAbort);
    await r.reconcile(host, noAbort);
    expect((await status()).row).toMatchObject({ status: 'active', proof: 'txt' });
  });

  it('a resolver that fails releases nothing: the row waits for an answer', async () => {
    await add(host, globex);
    stub.fail(host, true);
    try {
      await reconciler().verify(host);
      expect((await status()).row!.status).toBe('pending_dns');
    } finally {
      stub.fail(host, false);
    }
  });

  it('a zone of acme that public DNS does not delegate here decides nothing: globex\'s hold stays', async () => {
    delegate(zone(), ['ns1.elsewhere.test']);
    await add(host, globex);
    await reconciler().verify(host);
    expect((await status()).row!.status).toBe('pending_dns');
  });

  it('each organization has its own origin, under the fallback origin', () => {
    expect(originOf(acme)).toMatch(new RegExp(`^o-[0-9a-f]{16}\\.${FALLBACK.replaceAll('.', '\\.')}$`));
    expect(originOf(acme)).not.toBe(originOf(globex));
  });
});

describe('no proof passes: pending, with what is seen in lastError', () => {
  /** What a name outside public DNS (these `.test` ones) reads as, whatever the resolver has there. */
  const absent = (h: string, token: string) => `no TXT record with the token '${token}' at _service-verify.${h}; no CNAME to ${originOf(acme)} at ${h}; ${notShown(h)}`;
  it.each([
    ['a TXT of another value, a CNAME elsewhere', (h: string, token: string) => {
      txt(`_service-verify.${h}`, 'abc');
      cname(h, 'elsewhere.example.');
      return absent(h, token);
    }],
    ['nothing at all', absent],
    ['the name exists without those records', (h: string, token: string) => {
      stub.set(h, 'A', [{ type: 'A', name: h, ttl: 60, data: '198.51.100.1' }]);
      stub.set(`_service-verify.${h}`, 'A', [{ type: 'A', name: `_service-verify.${h}`, ttl: 60, data: '198.51.100.1' }]);
      return absent(h, token);
    }],
    ['a resolver that fails', (h: string, token: string) => {
      stub.fail(`_service-verify.${h}`, true);
      stub.fail(h, true);
      void token;
      // Tenants read it: the service's resolver is "the resolver", never its address.
      return `TXT at _service-verify.${h}: the resolver answered SERVFAIL for _service-verify.${h} TXT; CNAME of ${h}: the resolver answered SERVFAIL for ${h} CNAME; ${notShown(h)}`;
    }],
  ])('%s', async (_what, arrange) => {
    const h = await add();
    const expected = arrange(host, h.token!);
    await reconciler().reconcile(host, noAbort);
    const { row, st } = await status();
    expect(row!.status).toBe('pending_dns');
    expect(st!.lastError).toBe(expected);
    expect(cond(st, 'Verified')).toMatchObject({ status: 'False', reason: 'NoProof', message: expected });
    expect(cond(st, 'Ready')).toMatchObject({ status: 'False', reason: 'PendingVerification' });
    expect(edge.actions).toEqual([]);
  });

  it('a resolver that never answers is a lastError, and verify returns within its timeout', async () => {
    await add();
    const r = reconciler({ resolver: systemResolver([silentAt], 300) });
    const started = Date.now();
    await r.verify(host);
    expect(Date.now() - started).toBeLessThan(1_500);
    const { row, st } = await status();
    expect(row!.status).toBe('pending_dns');
    expect(st!.lastError).toBe(`TXT at _service-verify.${host}: the resolver did not answer in 0.3 s; CNAME of ${host}: the resolver did not answer in 0.3 s; ${notShown(host)}`);
  });

  it('a second pass that sees the same writes nothing', async () => {
    await add();
    const r = reconciler();
    await r.reconcile(host, noAbort);
    const first = (await status()).st!;
    clock = new Date(clock.getTime() + 60_000);
    const commits = s.stats().commits;
    await r.reconcile(host, noAbort);
    expect(s.stats().commits).toBe(commits);
    expect((await status()).st).toEqual(first);
  });
});

/**
 * The resolver may be the system's, which knows names only the service's own network has (hostile-tenant review,
 * session 15): what a tenant reads must not tell an internal name that exists from one that does not, nor echo
 * what the resolver sees there; at a name in public DNS, what is seen is echoed unless it is an internal name or
 * a private address. The operators' log (debug) keeps it all.
 */
describe('what a tenant reads never shows the resolver\'s view of internal names', () => {
  const a = (name: string, data: string) => stub.set(name, 'A', [{ type: 'A', name, ttl: 60, data }]);
  const internal = () => `db${n}.corp.internal`;
  const publicName = () => `shop${n}.example.com`;
  /** The one phrase of a name that has neither proof, whatever the resolver had to say of it; of a name outside public
   * DNS, with why nothing more is said, which depends on the name alone. */
  const absent = (h: string, token: string) => `no TXT record with the token '${token}' at _service-verify.${h}; no CNAME to ${originOf(acme)} at ${h}`
    + (inPublicDns(h) ? '' : `; ${notShown(h)}`);

  it('the API takes an internal name as a custom hostname', () => {
    expect(hostnameRefusal(normalizeCustomHostname(internal()), { appDomain: 'hostplane.test', serviceDomains: [], nameservers: OUR_NS })).toBeNull();
  });

  it.each([
    ['internal: no such name (NXDOMAIN)', internal, () => {}, absent],
    ['internal: the name exists without the records (NODATA)', internal, (h: string) => {
      a(h, '10.0.0.5');
      a(`_service-verify.${h}`, '10.0.0.5');
    }, absent],
    ['internal: a CNAME to an internal name, other TXT strings', internal, (h: string) => {
      cname(h, 'pg-primary-7.corp.internal.');
      txt(`_service-verify.${h}`, 'vault-token=s3cr3t');
    }, absent],
    ['internal: a CNAME to a public name', internal, (h: string) => cname(h, 'db-7.rds.amazonaws.com.'), absent],
    ['public: no such name (NXDOMAIN)', publicName, () => {}, absent],
    ['public: the name exists without the records (NODATA)', publicName, (h: string) => {
      a(h, '198.51.100.1');
      a(`_service-verify.${h}`, '198.51.100.1');
    }, absent],
    ['public: a CNAME to an internal name', publicName, (h: string) => cname(h, 'pg-primary-7.corp.internal.'),
      (h: string, token: string) => `no TXT record with the token '${token}' at _service-verify.${h}; CNAME of ${h} points elsewhere, expected ${originOf(acme)}`],
    ['public: a CNAME to a public name, other TXT strings', publicName, (h: string) => {
      cname(h, 'shops.myshopify.com.');
      txt(`_service-verify.${h}`, 'abc', 'v=spf1 -all');
    }, (h: string, token: string) => `TXT at _service-verify.${h} has 'abc', 'v=spf1 -all', expected '${token}'; CNAME of ${h} points to shops.myshopify.com, expected ${originOf(acme)}`],
  ])('%s', async (_what, nameOf, arrange, expected) => {
    const name = nameOf();
    const h = await add(name);
    arrange(name);
    const log = captureLogger();
    await reconciler({ log: log.log }).reconcile(name, noAbort);
    const { row, st } = await status(name);
    expect(row!.status).toBe('pending_dns');
    expect(st!.lastError).toBe(expected(name, h.token!));
    expect(cond(st, 'Verified')).toMatchObject({ status: 'False', reason: 'NoProof', message: expected(name, h.token!) });
    expect(log.text()).toContain('no ownership proof of a custom hostname passes');
  });

  it('the operators\' log keeps what the tenant does not read', async () => {
    const name = internal();
    await add(name);
    cname(name, 'pg-primary-7.corp.internal.');
    const log = captureLogger();
    await reconciler({ log: log.log }).reconcile(name, noAbort);
    expect((await status(name)).st!.lastError).not.toContain('pg-primary-7');
    expect(log.text()).toContain('pg-primary-7.corp.internal');
    expect(log.text()).toContain('NXDOMAIN');
  });

  /** Activates `name` by its CNAME proof, then has it answer as `arrange` says and judges it again. */
  const resolvesOf = async (name: string, arrange: (h: string) => void) => {
    await add(name);
    cname(name, originOf(acme));
    const r = reconciler();
    await r.reconcile(name, noAbort);
    expect((await status(name)).row!.status).toBe('active');
    stub.set(name, 'CNAME', []);
    arrange(name);
    await r.reconcile(name, noAbort);
    return cond((await status(name)).st!, 'Resolves');
  };
  const noRecord = (h: string) => ({ status: 'False', reason: 'NoRecord', message: `no CNAME to ${FALLBACK} and none of the edge's addresses at ${h}` });
  const elsewhere = (message: string) => ({ status: 'False', reason: 'PointsElsewhere', message: `${message}, expected a CNAME to ${FALLBACK}` });

  it.each([
    ['internal: no such name (NXDOMAIN)', internal, () => {}, noRecord],
    ['internal: a private address', internal, (h: string) => a(h, '10.0.0.5'), noRecord],
    ['internal: a public address', internal, (h: string) => a(h, '198.51.100.7'), noRecord],
    ['internal: a CNAME to an internal name', internal, (h: string) => cname(h, 'pg-primary-7.corp.internal.'), noRecord],
    ['public: no such name (NXDOMAIN)', publicName, () => {}, noRecord],
    ['public: no CNAME and no address (NODATA)', publicName, (h: string) => txt(h, 'v=spf1 -all'), noRecord],
    ['public: a private address', publicName, (h: string) => a(h, '10.0.0.5'), (h: string) => elsewhere(`${h} resolves to other addresses`)],
    ['public: a public address', publicName, (h: string) => a(h, '198.51.100.7'), (h: string) => elsewhere(`${h} resolves to 198.51.100.7`)],
    ['public: a CNAME to an internal name', publicName, (h: string) => cname(h, 'pg-primary-7.corp.internal.'), (h: string) => elsewhere(`CNAME of ${h} points elsewhere`)],
    ['public: a CNAME to a public name', publicName, (h: string) => cname(h, 'shops.myshopify.com.'), (h: string) => elsewhere(`CNAME of ${h} points to shops.myshopify.com`)],
  ])('Resolves of an active name, %s', async (_what, nameOf, arrange, expected) => {
    const name = nameOf();
    expect(await resolvesOf(name, arrange)).toMatchObject(expected(name));
  });
});

it('the Unicode spelling is judged at its punycode name', async () => {
  const stored = normalizeCustomHostname(`Bücher${n}.Customer${n}.TEST`);
  expect(stored).toMatch(/^xn--bcher\d+-.*\.customer\d+\.test$/);
  const h = await add(stored);
  txt(`_service-verify.${stored}`, h.token!);
  await reconciler().reconcile(stored, noAbort);
  expect((await status(stored)).row!.status).toBe('active');
  expect(stub.queries).toContain(`_service-verify.${stored} TXT`);
});

describe('an active name proven by its zone, when the zone changes hands', () => {
  const zone = () => `customer${n}.test`;

  it('globex deletes its zone and acme creates it here: globex\'s active name is released, and acme takes it', async () => {
    await createZone(s, { orgId: globex.orgId, name: zone(), nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    delegate(zone());
    await add(host, globex);
    const r = reconciler();
    await r.reconcile(host, noAbort);
    expect((await status()).row).toMatchObject({ status: 'active', proof: 'zone' });
    await deleteZone(s, { orgId: globex.orgId, name: zone(), actor: 't' });
    await createZone(s, { orgId: acme.orgId, name: zone(), nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    // What acme may well write there, as the guidance of its own names asks.
    cname(host, FALLBACK);
    await r.reconcile(host, noAbort);
    expect((await status()).row).toBeUndefined();
    expect((await listAudit(s, globex.orgId, 5))[0]).toMatchObject({ event: 'hostname.release', target: host, details: { zone: zone(), status: 'active' } });
    expect((await add(host, acme)).projectId).toBe(acme.projectId);
  });

  it('globex deletes its zone and no zone holds the name: released unless its records prove it now', async () => {
    await createZone(s, { orgId: globex.orgId, name: zone(), nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    delegate(zone());
    const held = await add(host, globex);
    const r = reconciler();
    await r.reconcile(host, noAbort);
    await deleteZone(s, { orgId: globex.orgId, name: zone(), actor: 't' });
    txt(`_service-verify.${host}`, held.token!);
    await r.reconcile(host, noAbort);
    expect((await status()).row).toMatchObject({ status: 'active', proof: 'zone' });
    stub.set(`_service-verify.${host}`, 'TXT', []);
    await r.reconcile(host, noAbort);
    expect((await status()).row).toBeUndefined();
    expect((await listAudit(s, globex.orgId, 5))[0]).toMatchObject({ event: 'hostname.release', target: host, details: { zone: null, status: 'active' } });
  });
});

describe('active names stay active', () => {
  it('a proof gone after activation: still active, Resolves False with what is seen', async () => {
    await add();
    cname(host, originOf(acme));
    const r = reconciler();
    await r.reconcile(host, noAbort);
    stub.set(host, 'CNAME', []);
    await r.reconcile(host, noAbort);
    const { row, st } = await status();
    expect(row!.status).toBe('active');
    const gone = { status: 'False', reason: 'NoRecord', message: `no CNAME to ${FALLBACK} and none of the edge's addresses at ${host}` };
    expect(cond(st, 'Resolves')).toMatchObject(gone);
    // A name outside public DNS: what it points to now is not shown (the next describe has public names).
    cname(host, 'other.example.');
    await r.reconcile(host, noAbort);
    expect(cond((await status()).st!, 'Resolves')).toMatchObject(gone);
  });

  it('an apex resolving to the edge\'s addresses Resolves', async () => {
    await add();
    cname(host, originOf(acme));
    const r = reconciler();
    await r.reconcile(host, noAbort);
    stub.set(host, 'CNAME', []);
    stub.set(host, 'A', [{ type: 'A', name: host, ttl: 60, data: '192.0.2.80' }]);
    await r.reconcile(host, noAbort);
    expect(cond((await status()).st!, 'Resolves')).toMatchObject({ status: 'True', reason: 'PointsToEdge' });
  });
});

describe('managed records in a zone of the organization', () => {
  const zone = () => `customer${n}.test`;
  beforeEach(async () => {
    await createZone(s, { orgId: acme.orgId, name: zone(), nameservers: ['ns1.hostplane.test'], actor: 't', quota: null });
    delegate(zone());
  });

  it('a name below the apex gets a CNAME to the fallback origin, managedBy app, audited as system', async () => {
    await add();
    await reconciler().reconcile(host, noAbort);
    expect(await managed(zone())).toEqual([[host, 'CNAME', [FALLBACK]]]);
    expect(cond((await status()).st!, 'ManagedRecord')).toMatchObject({ status: 'True', reason: 'Written' });
    expect((await listAudit(s, acme.orgId, 20)).find((e) => e.event === 'dns.rrset.set')).toMatchObject({ actor: 'system', target: `${zone()}/${host}/CNAME` });
  });

  it('the apex gets A and AAAA of the edge', async () => {
    await add(zone());
    await reconciler().reconcile(zone(), noAbort);
    expect(await managed(zone())).toEqual([[zone(), 'A', ['192.0.2.80']], [zone(), 'AAAA', ['2001:db8::80']]]);
  });

  it('the apex without edge addresses: active, and the condition says why there is no record', async () => {
    await add(zone());
    await reconciler({ edgeAddresses: [] }).reconcile(zone(), noAbort);
    expect(await managed(zone())).toEqual([]);
    expect(cond((await status(zone())).st!, 'ManagedRecord')).toMatchObject({ status: 'False', reason: 'NoEdgeAddresses' });
  });

  it('a customer\'s rrset at the name: active without the record, the condition names the rrset', async () => {
    await putRRset(s, {
      orgId: acme.orgId, zone: zone(), actor: 't', cnameConflict: checkCnameConflict, quota: { plan: 'free', rrsets: 5000, bytes: 5 << 20 },
      rrset: { name: host, type: 'A', ttl: 300, records: [{ content: '198.51.100.7' }] },
    });
    await add();
    await reconciler().reconcile(host, noAbort);
    const { row, st } = await status();
    expect(row!.status).toBe('active');
    expect(await managed(zone())).toEqual([]);
    expect(cond(st, 'ManagedRecord')).toMatchObject({ status: 'False', reason: 'CustomerRRset' });
    expect(cond(st, 'ManagedRecord')!.message).toContain(`${host} A in zone ${zone()} is in the way`);
  });

  it('delete removes the edge hostname and the managed record through the finalizer', async () => {
    const h = await add();
    const r = reconciler();
    await r.reconcile(host, noAbort);
    await deleteHostname(s, { ...acme, name: host, actor: 't' });
    await r.reconcile(host, noAbort);
    expect(await managed(zone())).toEqual([]);
    expect(edge.held.has(host)).toBe(false);
    expect(edge.actions.at(-1)).toEqual({ op: 'remove', hostname: host, ref: h.uid });
    expect(await finalizersOf(s, 'hostname', host)).toEqual([]);
  });
});

describe('edge outages lose nothing', () => {
  it('during activation: the row is active, the failure shows in conditions and lastError; converges once the edge is back', async () => {
    const h = await add();
    txt(`_service-verify.${host}`, h.token!);
    edge.down = 'the edge provider did not answer the creation of x within 5 s';
    const r = reconciler();
    await expect(r.reconcile(host, noAbort)).rejects.toThrow(/did not answer/);
    let { row, st } = await status();
    expect(row!.status).toBe('active');
    expect(st!.lastError).toBe(edge.down);
    expect(cond(st, 'EdgeConfigured')).toMatchObject({ status: 'False', reason: 'EdgeUnavailable' });
    expect(cond(st, 'CertificateReady')).toMatchObject({ status: 'Unknown' });
    expect(cond(st, 'Ready')).toMatchObject({ status: 'False', reason: 'EdgeUnavailable' });
    edge.down = null;
    await r.reconcile(host, noAbort);
    ({ st } = await status());
    expect(cond(st, 'Ready')).toMatchObject({ status: 'True' });
    expect(st!.lastError).toBeNull();
  });

  it('a deposed leader\'s refused edge call (FencedError) is no edge failure: nothing recorded, the pass stopped as fenced', async () => {
    const h = await add();
    txt(`_service-verify.${host}`, h.token!);
    const deposed = reconciler({ edge: leaderOnly(edge, () => false) });
    await expect(withTerm(9, () => deposed.reconcile(host, noAbort))).rejects.toBeInstanceOf(FencedError);
    const { st } = await status();
    expect(cond(st, 'EdgeConfigured')).toBeUndefined();
    expect(st?.lastError ?? null).toBeNull();
    await reconciler().reconcile(host, noAbort);
    await deleteHostname(s, { ...acme, name: host, actor: 't' });
    await expect(withTerm(9, () => deposed.reconcile(host, noAbort))).rejects.toBeInstanceOf(FencedError);
    expect(await finalizersOf(s, 'hostname', host)).toHaveLength(1);
    expect(edge.actions.filter((a) => a.op === 'remove')).toEqual([]);
  });

  it('during delete: the finalizer stays until the edge is back, then the edge hostname goes', async () => {
    const h = await add();
    txt(`_service-verify.${host}`, h.token!);
    const r = reconciler();
    await r.reconcile(host, noAbort);
    await deleteHostname(s, { ...acme, name: host, actor: 't' });
    edge.down = 'the edge provider answered 503';
    await expect(r.reconcile(host, noAbort)).rejects.toThrow(/503/);
    expect(await finalizersOf(s, 'hostname', host)).toHaveLength(1);
    edge.down = null;
    await r.reconcile(host, noAbort);
    expect(await finalizersOf(s, 'hostname', host)).toEqual([]);
    expect(edge.held.size).toBe(0);
  });

  it('a name deleted and added by another org stays pending, even with a proof, until the old lifetime is cleaned up', async () => {
    const old = await add();
    txt(`_service-verify.${host}`, old.token!);
    const r = reconciler();
    await r.reconcile(host, noAbort);
    await deleteHostname(s, { ...acme, name: host, actor: 't' });
    const fresh = await add(host, globex);
    txt(`_service-verify.${host}`, fresh.token!);
    edge.down = 'the edge provider answered 503';
    await expect(r.reconcile(host, noAbort)).rejects.toThrow();
    await r.verify(host);
    let { row, st } = await status();
    expect(row).toMatchObject({ status: 'pending_dns', uid: fresh.uid });
    expect(cond(st, 'Ready')).toMatchObject({ status: 'False', reason: 'WaitingForCleanup' });
    edge.down = null;
    await r.reconcile(host, noAbort);
    ({ row } = await status());
    expect(row).toMatchObject({ status: 'active', uid: fresh.uid });
    expect(edge.held.get(host)?.ref).toBe(fresh.uid);
  });
});

it('a pending row never verified expires after its time; an active one never does', async () => {
  const h = await add();
  const r = reconciler({ pendingTtlMs: 3_600_000 });
  await r.reconcile(host, noAbort);
  clock = new Date(clock.getTime() + 3_600_000);
  await r.reconcile(host, noAbort);
  expect(await hostnameByName(s, host)).toBeUndefined();
  expect(await finalizersOf(s, 'hostname', host)).toEqual([expect.objectContaining({ uid: h.uid })]);
  await r.reconcile(host, noAbort);
  expect(await finalizersOf(s, 'hostname', host)).toEqual([]);
});

it('a certificate pending validation: CertificateReady False, looked at again soon', async () => {
  const h = await add();
  txt(`_service-verify.${host}`, h.token!);
  edge.certificate = 'pending_validation';
  const res = await reconciler({ certificatePollMs: 250 }).reconcile(host, noAbort);
  expect(res.requeueAfterMs).toBe(250);
  const { st } = await status();
  expect(cond(st, 'CertificateReady')).toMatchObject({ status: 'False', reason: 'PendingValidation' });
  expect(cond(st, 'Ready')).toMatchObject({ status: 'False', reason: 'CertificatePending' });
});

it('the background loop activates a row with no verify call, on its interval', async () => {
  const h = await add();
  const runner = await startRunner({ store: s, log: silentLog, reconcilers: [reconciler({ intervalMs: 150 })], concurrency: 8 });
  try {
    await runner.idle();
    expect((await status()).row!.status).toBe('pending_dns');
    txt(`_service-verify.${host}`, h.token!);
    const until = Date.now() + 3_000;
    while ((await status()).row!.status !== 'active' && Date.now() < until) await sleep(50);
    expect((await status()).row!.status).toBe('active');
  } finally {
    await runner.stop();
  }
});
