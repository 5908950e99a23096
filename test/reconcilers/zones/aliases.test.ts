/** The zone reconciler's ALIAS targets: resolved through the resolver port, served as A/AAAA, looked at again
 * before the TTL runs out, the last answer kept while a target fails. On both stores. */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../lib/log';
import { ResolverError, type AddressLookup, type Resolver } from '../../../providers/resolver';
import { zoneReconciler } from '../../../reconcilers/zones';
import { startRunner } from '../../../reconcilers/runner';
import { RETRY_MS } from '../../../reconcilers/zones/aliases';
import { LOOKUPS_AT_ONCE } from '../../../reconcilers/zones/looks';
import { createOrg } from '../../../store/accounts';
import { zoneAliasesOf } from '../../../store/aliases';
import type { Store } from '../../../store/db';
import { statusOf } from '../../../store/status';
import { applyZoneChanges } from '../../../store/zone-changes';
import { createZone, deleteRRset, putRRset, zoneByName, type ZoneFacts } from '../../../store/zones';
import { ALIAS_MIN_CHANGE, checkCnameConflict, MAX_ALIASES_PER_ZONE, validateRRset, type RRset } from '../../../zonefiles';
import { FakeNameserver } from '../../helpers/fake-nameserver';
import { openTestStore } from '../../helpers/store';
import { settle as settlePasses } from '../../helpers/passes';

const ZONE = 'example.com';
const NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const QUOTA = { plan: 'free', rrsets: 5000, bytes: 5 << 20 };
/** What tenants read of a target without addresses to serve, whatever the reason. */
const NO_PUBLIC = (target: string): string =>
  `${target} has no public A or AAAA records (it does not exist, has none, or only private, loopback, link-local and the like, which are never served)`;
const noAbort = new AbortController().signal;
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });

describe('zone reconciler: ALIAS', () => {
  let store: Store;
  let ns: FakeNameserver;
  let orgId: number;
  let now: number;
  /** What the fake resolver answers for each name; a name missing fails as a resolver that gave no answer. */
  let answers: Map<string, AddressLookup>;
  const resolver: Resolver = {
    ns: async () => [],
    addressRecords: async (name) => {
      const found = answers.get(name);
      if (!found) throw new ResolverError(`resolver 192.0.2.53 answered SERVFAIL for ${name} A`, `the resolver answered SERVFAIL for ${name} A`);
      return found;
    },
  };
  const put = (rrset: RRset) => putRRset(store, { orgId, zone: ZONE, actor: 't', cnameConflict: checkCnameConflict, quota: QUOTA, rrset: validateRRset(ZONE, rrset) });
  const alias = (name: string, target: string): RRset => ({ name, type: 'ALIAS', ttl: 3600, records: [{ content: target }] });
  const facts = async () => (await statusOf<ZoneFacts>(store, 'zone', ZONE))!;
  const servedText = () => ns.served.get(ZONE)?.text ?? '';
  // The secondaries' first look at once: this nameserver has none, which that look finds, and then it is never due.
  const reconciler = () => zoneReconciler({ store, nameserver: ns, resolver, nameservers: NS, log: silent, secondaryCheckMs: 0 });
  const settle = (r = reconciler()): Promise<number> => settlePasses(r, ZONE);

  beforeEach(async () => {
    now = Date.parse('2026-11-29T12:00:00Z');
    store = await openTestStore(':memory:', { clock: () => new Date(now) });
    ns = new FakeNameserver();
    orgId = (await createOrg(store, 'acme', 'free')).id;
    answers = new Map();
    await createZone(store, { orgId, name: ZONE, nameservers: NS, actor: 'test', quota: null });
  });
  afterEach(() => store.close());

  it('serves the target\'s addresses at the apex with the TTL capped at 300 s, and says what it resolved', async () => {
    answers.set('cdn.example.net', { kind: 'records', a: ['192.0.2.10'], aaaa: ['2001:db8::10'], ttl: 3600 });
    await put({ name: ZONE, type: 'MX', ttl: 300, records: [{ content: '10 mail.example.com' }] });
    await put(alias(ZONE, 'cdn.example.net'));
    const r = reconciler();
    const next = await settle(r);

    expect(servedText()).toContain('@ 300 IN A 192.0.2.10\n');
    expect(servedText()).toContain('@ 300 IN AAAA 2001:db8::10\n');
    expect(servedText()).not.toContain('ALIAS');
    const st = await facts();
    expect(st.conditions.find((c) => c.type === 'AliasResolved')).toMatchObject({ status: 'True', reason: 'Resolved' });
    expect(st.facts.aliases).toEqual([{
      name: ZONE, target: 'cdn.example.net', addresses: ['192.0.2.10', '2001:db8::10'], ttl: 300,
      resolvedAt: '2026-11-29T12:00:00Z', checkedAt: '2026-11-29T12:00:00Z', error: null,
    }]);
    // Looked at again before the 300 s run out: at three quarters of them.
    expect(next).toBe(225_000);
    expect(st.observedGeneration).toBe((await zoneByName(store, ZONE))!.generation);
  });

  it('keeps serving the last answer while the target fails, says so, and serves a new answer with a new serial', async () => {
    answers.set('cdn.example.net', { kind: 'records', a: ['192.0.2.10'], aaaa: [], ttl: 120 });
    await put(alias(`www.${ZONE}`, 'cdn.example.net'));
    expect(await settle()).toBe(90_000);
    const first = (await zoneByName(store, ZONE))!;
    expect(servedText()).toContain('www 120 IN A 192.0.2.10\n');

    answers.delete('cdn.example.net');
    now += 90_000;
    expect(await settle()).toBe(RETRY_MS);
    expect(servedText()).toContain('www 120 IN A 192.0.2.10\n');
    expect((await zoneByName(store, ZONE))!.generation).toBe(first.generation);
    let st = await facts();
    const failing = st.conditions.find((c) => c.type === 'AliasResolved')!;
    expect(failing).toMatchObject({ status: 'False', reason: 'TargetNotResolving' });
    expect(failing.message).toContain(`ALIAS www.${ZONE} → cdn.example.net`);
    expect(failing.message).toContain('the resolver answered SERVFAIL');
    // The resolver may be the system's, inside the service's network: tenants read this.
    expect(failing.message).not.toContain('192.0.2.53');
    expect(st.facts.aliases?.[0]).toMatchObject({ addresses: ['192.0.2.10'], resolvedAt: '2026-11-29T12:00:00Z', error: expect.stringContaining('SERVFAIL') });

    answers.set('cdn.example.net', { kind: 'nxdomain' });
    now += RETRY_MS;
    await settle();
    // The same words as for a name with only private addresses (below): which names the resolver knows is not told.
    expect((await facts()).facts.aliases?.[0]?.error).toBe(NO_PUBLIC('cdn.example.net'));
    answers.set('cdn.example.net', { kind: 'nodata' });
    now += RETRY_MS;
    await settle();
    expect((await facts()).facts.aliases?.[0]?.error).toBe(NO_PUBLIC('cdn.example.net'));
    expect(servedText()).toContain('www 120 IN A 192.0.2.10\n');

    // Within five minutes of the answer that made the last generation, a new one waits: the last stays served.
    answers.set('cdn.example.net', { kind: 'records', a: ['192.0.2.20', '192.0.2.21'], aaaa: [], ttl: 5 });
    now += RETRY_MS;
    expect(await settle()).toBe(90_000);
    expect(servedText()).toContain('www 120 IN A 192.0.2.10\n');
    expect((await zoneByName(store, ZONE))!.generation).toBe(first.generation);
    expect((await facts()).facts.aliases?.[0]).toMatchObject({ addresses: ['192.0.2.10'], resolvedAt: '2026-11-29T12:00:00Z', error: null });

    now = Date.parse('2026-11-29T12:00:00Z') + ALIAS_MIN_CHANGE * 1000;
    expect(await settle()).toBe(22_500);
    expect(servedText()).toContain('www 30 IN A 192.0.2.20\nwww 30 IN A 192.0.2.21\n');
    expect(servedText()).not.toContain('192.0.2.10');
    const after = (await zoneByName(store, ZONE))!;
    expect(after.generation).toBeGreaterThan(first.generation);
    expect(ns.served.get(ZONE)!.serial).toBeGreaterThan(first.serial);
    st = await facts();
    expect(st.conditions.find((c) => c.type === 'AliasResolved')).toMatchObject({ status: 'True' });
    expect(st.facts.aliases?.[0]).toMatchObject({ addresses: ['192.0.2.20', '192.0.2.21'], ttl: 30, error: null });
  });

  it('a target resolving only to non-public addresses serves nothing and says so without naming them; mixed, only the public ones', async () => {
    answers.set('db.corp.internal', { kind: 'records', a: ['10.20.30.40', '127.0.0.1'], aaaa: ['fd12::1', '::ffff:10.20.30.40'], ttl: 300 });
    answers.set('mixed.example.net', { kind: 'records', a: ['10.20.30.41', '192.0.2.10'], aaaa: [], ttl: 300 });
    await put(alias(ZONE, 'db.corp.internal'));
    await put(alias(`www.${ZONE}`, 'mixed.example.net'));
    expect(await settle()).toBe(RETRY_MS);

    expect(servedText()).not.toMatch(/10\.20\.30\.4|127\.0\.0\.1|fd12::1|::ffff/);
    expect(servedText()).toContain('www 300 IN A 192.0.2.10\n');
    const st = await facts();
    const failing = st.conditions.find((c) => c.type === 'AliasResolved')!;
    expect(failing).toMatchObject({ status: 'False', reason: 'TargetNotResolving' });
    expect(failing.message).toContain(`ALIAS ${ZONE} → db.corp.internal: ${NO_PUBLIC('db.corp.internal')}`);
    expect(failing.message).not.toMatch(/10\.20\.30|fd12/);
    expect(st.facts.aliases?.find((a) => a.name === ZONE)).toMatchObject({ addresses: [], resolvedAt: null });
    expect(st.facts.aliases?.find((a) => a.name === `www.${ZONE}`)).toMatchObject({ addresses: ['192.0.2.10'], error: null });
  });

  it('the same answer again changes nothing: no generation, no serial', async () => {
    answers.set('cdn.example.net', { kind: 'records', a: ['192.0.2.10'], aaaa: [], ttl: 300 });
    await put(alias(ZONE, 'cdn.example.net'));
    await settle();
    const before = (await zoneByName(store, ZONE))!;
    now += 225_000;
    await settle();
    expect((await zoneByName(store, ZONE))!).toMatchObject({ generation: before.generation, serial: before.serial });
    expect((await facts()).facts.aliases?.[0]?.checkedAt).toBe('2026-11-29T12:03:45Z');
  });

  it(`a target whose addresses rotate at every look makes at most one generation per ${ALIAS_MIN_CHANGE} s in its zone; their order alone none`, async () => {
    let look = 0;
    const rotating: Resolver = {
      ns: async () => [],
      addressRecords: async (name) => {
        look++;
        if (name === 'order.example.net') return { kind: 'records', a: look % 2 ? ['192.0.2.1', '192.0.2.2'] : ['192.0.2.2', '192.0.2.1'], aaaa: [], ttl: 1 };
        return { kind: 'records', a: [`198.51.100.${look % 200}`], aaaa: [`2001:db8::${look}`], ttl: 1 };
      },
    };
    await put(alias(ZONE, 'rot.example.net'));
    await put(alias(`www.${ZONE}`, 'rot.example.net'));
    await put(alias(`order.${ZONE}`, 'order.example.net'));
    const r = zoneReconciler({ store, nameserver: ns, resolver: rotating, nameservers: NS, log: silent, secondaryCheckMs: 0 });
    const start = now;
    expect(await settle(r)).toBe(22_500);
    const first = (await zoneByName(store, ZONE))!.generation;
    const generations: number[] = [];
    // Twenty minutes of looks every 22.5 s, each answered with new addresses for both rotating ALIASes.
    while (now - start < 20 * 60_000) {
      now += await settle(r);
      const { generation } = (await zoneByName(store, ZONE))!;
      if (generation !== (generations.at(-1) ?? first)) generations.push(generation);
    }
    expect(look).toBeGreaterThan(100);
    // One generation per window at most, each taking both ALIASes' new answers: a target answering the same
    // addresses in another order made none.
    expect(generations.length).toBeGreaterThanOrEqual(3);
    expect(generations.length).toBeLessThanOrEqual(20 * 60 / ALIAS_MIN_CHANGE);
    const revisions = await store.raw<{ summary: string }>('aliasRevisions', `SELECT summary FROM zone_revisions WHERE zone = ? AND actor = 'system:alias' ORDER BY generation`, [ZONE]);
    expect(revisions.filter((v) => v.summary.includes('order.example.net'))).toHaveLength(1);
    // What is served at each rotating ALIAS is an answer its target gave, from less than a window and a look ago: a
    // new answer of one ALIAS holds no other of the zone.
    for (const [name, label] of [[ZONE, '@'], [`www.${ZONE}`, 'www']] as const) {
      const served = (await facts()).facts.aliases!.find((a) => a.name === name)!;
      expect(now - Date.parse(served.resolvedAt!)).toBeLessThan(ALIAS_MIN_CHANGE * 1000 + 22_500);
      expect(servedText()).toContain(`${label} 30 IN A ${served.addresses[0]}\n`);
    }
  });

  it('a target that never answers holds no pass: another organization\'s zone is served its change while the look waits', async () => {
    // One tenant's zones, as many as the zone queue runs passes at once, each with an ALIAS whose target never answers
    // until released; another tenant's zone beside them.
    const hung: (() => void)[] = [];
    let allAsked!: () => void;
    const asked = new Promise<void>((resolve) => { allAsked = resolve; });
    const silentTargets: Resolver = {
      ns: async () => [],
      addressRecords: (name) => new Promise<AddressLookup>((_resolve, reject) => {
        hung.push(() => reject(new ResolverError(`resolver 192.0.2.53 did not answer in 2 s for ${name} A`, 'the resolver did not answer in 2 s')));
        if (hung.length === 4) allAsked();
      }),
    };
    const hostile = (await createOrg(store, 'hostile', 'free')).id;
    const slow = ['s0', 's1', 's2', 's3'].map((n) => `${n}.example`);
    for (const zone of slow) {
      await createZone(store, { orgId: hostile, name: zone, nameservers: NS, actor: 'test', quota: null });
      await putRRset(store, { orgId: hostile, zone, actor: 't', cnameConflict: checkCnameConflict, quota: QUOTA, rrset: validateRRset(zone, alias(zone, `${zone}.slow.test`)) });
    }
    const r = zoneReconciler({ store, nameserver: ns, resolver: silentTargets, nameservers: NS, log: silent, secondaryCheckMs: 0 });
    const runner = await startRunner({ store, log: silent, reconcilers: [r], concurrency: 4 });
    try {
      await asked;
      await put({ name: `www.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.80' }] });
      await vi.waitFor(() => expect(servedText()).toContain('www 300 IN A 192.0.2.80\n'), { timeout: 10_000, interval: 10 });
      expect(hung).toHaveLength(4);
      expect(r.background!.busy()).toBe(true);

      // Each look's end passes its zone, which says the failure.
      for (const release of hung) release();
      await runner.idle();
      for (const zone of slow) {
        const cond = (await statusOf<ZoneFacts>(store, 'zone', zone))!.conditions.find((c) => c.type === 'AliasResolved');
        expect(cond).toMatchObject({ status: 'False', reason: 'TargetNotResolving' });
        expect(cond!.message).toContain('the resolver did not answer in 2 s');
      }
      expect(hung).toHaveLength(4);
    } finally {
      for (const release of hung) release();
      await runner.stop();
    }
  });

  it(`organizations take the ${LOOKUPS_AT_ONCE} lookups in turn: another tenant's are asked as lookups end, between a silent tenant's, not after all of them`, async () => {
    const asked: string[] = [];
    const hung: (() => void)[] = [];
    const targets: Resolver = {
      ns: async (zone) => {
        if (zone === ZONE) asked.push(`NS ${zone}`);
        return [];
      },
      addressRecords: (name) => {
        asked.push(name);
        if (name === 'cdn.example.net') return Promise.resolve<AddressLookup>({ kind: 'records', a: ['192.0.2.10'], aaaa: [], ttl: 300 });
        return new Promise<AddressLookup>((_resolve, reject) => {
          hung.push(() => reject(new ResolverError(`resolver 192.0.2.53 did not answer in 2 s for ${name} A`, 'the resolver did not answer in 2 s')));
        });
      },
    };
    const hostile = (await createOrg(store, 'hostile', 'free')).id;
    const zone = 'silent.example';
    await createZone(store, { orgId: hostile, name: zone, nameservers: NS, actor: 'test', quota: null });
    await applyZoneChanges(store, {
      orgId: hostile, zone, actor: 't', quota: QUOTA,
      changes: Array.from({ length: MAX_ALIASES_PER_ZONE }, (_, i) => ({ op: 'put' as const, ...alias(`a${i}.${zone}`, `t${i}.silent.test`) })),
    });
    const r = zoneReconciler({ store, nameserver: ns, resolver: targets, nameservers: NS, log: silent, secondaryCheckMs: 0 });
    try {
      // The first pass serves the zone; the second, which applies nothing, starts the looks.
      for (let i = 0; i < 2; i++) await r.reconcile(zone, noAbort);
      await vi.waitFor(() => expect(hung).toHaveLength(LOOKUPS_AT_ONCE));
      await put(alias(`www.${ZONE}`, 'cdn.example.net'));
      for (let i = 0; i < 2; i++) await r.reconcile(ZONE, noAbort);
      // Every lookup is held. The silent tenant's turn comes first (its 9 more waited before), then the other's (its
      // delegation, then its ALIAS), in turn: its lookups are asked as the second and third lookups end, not after nine.
      expect(asked).toHaveLength(LOOKUPS_AT_ONCE);
      // Its delegation answers at once, so the second lookup to end starts two.
      for (const n of [1, 2, 3]) {
        hung[n - 1]!();
        await vi.waitFor(() => expect(asked.length).toBeGreaterThanOrEqual(LOOKUPS_AT_ONCE + n + (n > 1 ? 1 : 0)));
      }
      expect(asked.slice(LOOKUPS_AT_ONCE, LOOKUPS_AT_ONCE + 4).map((name) => (name.endsWith('.silent.test') ? 'silent' : name)))
        .toEqual(['silent', `NS ${ZONE}`, 'silent', 'cdn.example.net']);
    } finally {
      // The rest of the silent targets are asked as lookups end: end every one.
      while (r.background!.busy()) {
        for (const release of hung.splice(0)) release();
        await new Promise((res) => setImmediate(res));
      }
      await r.background!.onIdle();
    }
  });

  it('serves nothing at a name whose target never resolved, and says so', async () => {
    await put(alias(`www.${ZONE}`, 'nowhere.example.net'));
    await settle();
    expect(servedText()).not.toMatch(/^www /m);
    const cond = (await facts()).conditions.find((c) => c.type === 'AliasResolved')!;
    expect(cond).toMatchObject({ status: 'False', reason: 'TargetNotResolving' });
    expect(cond.message).toContain('nothing is served at the name');
  });

  it('a new target is served as changes, never a whole load: the old answer\'s records are removed once', async () => {
    answers.set('cdn.example.net', { kind: 'records', a: ['192.0.2.10'], aaaa: [], ttl: 300 });
    answers.set('other.example.net', { kind: 'records', a: ['192.0.2.20'], aaaa: ['2001:db8::20'], ttl: 300 });
    const r = reconciler();
    await put(alias(`www.${ZONE}`, 'cdn.example.net'));
    await settle(r);
    expect(servedText()).toContain('www 300 IN A 192.0.2.10\n');
    await put(alias(`www.${ZONE}`, 'other.example.net'));
    await settle(r);
    expect(servedText()).toContain('www 300 IN A 192.0.2.20\nwww 300 IN AAAA 2001:db8::20\n');
    expect(servedText()).not.toContain('192.0.2.10');
    // The first pass loads the zone; each later generation (the puts, the answers) is a change knotd takes.
    expect(ns.actions.filter((a) => a.op === 'applyZone' || a.op === 'applyChanges').map((a) => a.op)).toEqual(['applyZone', 'applyChanges', 'applyChanges', 'applyChanges']);
  });

  it('a deleted ALIAS stops being served, its answer is forgotten and the condition goes', async () => {
    answers.set('cdn.example.net', { kind: 'records', a: ['192.0.2.10'], aaaa: [], ttl: 300 });
    await put(alias(`www.${ZONE}`, 'cdn.example.net'));
    await settle();
    await deleteRRset(store, { orgId, zone: ZONE, name: `www.${ZONE}`, type: 'ALIAS', actor: 't' });
    await settle();
    expect(servedText()).not.toContain('192.0.2.10');
    expect(await zoneAliasesOf(store, ZONE)).toEqual({ aliases: [], stale: [] });
    expect((await facts()).conditions.some((c) => c.type === 'AliasResolved')).toBe(false);
  });

  it('an ALIAS never shares its name with an A or AAAA: 409 alias_conflict on a put, a refused change in a set', async () => {
    await put(alias(ZONE, 'cdn.example.net'));
    await expect(put({ name: ZONE, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] })).rejects.toMatchObject({ status: 409, code: 'alias_conflict' });
    await put({ name: `www.${ZONE}`, type: 'AAAA', ttl: 300, records: [{ content: '2001:db8::1' }] });
    await expect(put(alias(`www.${ZONE}`, 'cdn.example.net'))).rejects.toMatchObject({ status: 409, code: 'alias_conflict' });
    await expect(put({ name: `www.${ZONE}`, type: 'CNAME', ttl: 300, records: [{ content: 'cdn.example.net' }] })).rejects.toMatchObject({ code: 'cname_conflict' });

    const set = (changes: Parameters<typeof applyZoneChanges>[1]['changes']) => applyZoneChanges(store, { orgId, zone: ZONE, actor: 't', quota: QUOTA, changes });
    await expect(set([{ op: 'put', name: `api.${ZONE}`, type: 'ALIAS', ttl: 300, records: [{ content: 'cdn.example.net' }] },
      { op: 'put', name: `api.${ZONE}`, type: 'A', ttl: 300, records: [{ content: '192.0.2.1' }] }]))
      .rejects.toMatchObject({ status: 400, details: { issues: [expect.objectContaining({ path: 'changes[0].type' }), expect.objectContaining({ path: 'changes[1].type' })] } });
    // Swapping the AAAA for an ALIAS in one set is allowed: the rule holds for the zone after the set.
    await set([{ op: 'delete', name: `www.${ZONE}`, type: 'AAAA' }, { op: 'put', name: `www.${ZONE}`, type: 'ALIAS', ttl: 300, records: [{ content: 'cdn.example.net' }] }]);
  });

  it(`a zone holds at most ${MAX_ALIASES_PER_ZONE} ALIAS rrsets (409 alias_limit), in puts and in change sets`, async () => {
    for (let i = 0; i < MAX_ALIASES_PER_ZONE; i++) await put(alias(`a${i}.${ZONE}`, 'cdn.example.net'));
    await expect(put(alias(`more.${ZONE}`, 'cdn.example.net'))).rejects.toMatchObject({ status: 409, code: 'alias_limit' });
    await put(alias(`a0.${ZONE}`, 'other.example.net'));
    await expect(applyZoneChanges(store, { orgId, zone: ZONE, actor: 't', quota: QUOTA, changes: [
      { op: 'put', name: `more.${ZONE}`, type: 'ALIAS', ttl: 300, records: [{ content: 'cdn.example.net' }] },
    ] })).rejects.toMatchObject({ status: 409, code: 'alias_limit' });
  });
});
