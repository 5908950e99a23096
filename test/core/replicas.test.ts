/** Provider calls of several processes on one store (issue 23; CONTRACT.md "Several machines": the leader alone calls
 * a provider), on both stores: a follower's domain operations and verifyHostname go to the leader the store's lease
 * names, over the Core wire with the replica token; no live leader, a silent one or one that stopped leading is 503
 * `core_unavailable` with Retry-After; the leader runs them as work of its term, so once deposed it calls no provider. */
import { createServer, type RequestListener } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpCore } from '../../core/client';
import type { Core, DomainCalls } from '../../core/port';
import { leaderCore, type Leading } from '../../core/replicas';
import { coreListener } from '../../core/server';
import { AppError } from '../../lib/errors';
import { leaderOnly } from '../../providers/leader-only';
import type { Store } from '../../store/db';
import { bid, currentTerm, liveLease, resign } from '../../store/leader';
import { openTestStore } from '../helpers/store';

const TOKEN = 'replica-token-of-the-replicas-test';
const LONG = 60_000;
const LEADER = 'host-a:/srv/a';
const FOLLOWER = 'host-b:/srv/b';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function listen(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(() => r()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const fresh = async (): Promise<Store> => {
  const s = await openTestStore();
  closers.push(() => s.close());
  return s;
};

/** A process's in-process core whose domain operations and hostname checks ask `provider` (a registrar, say),
 * through leaderOnly as `serve` wires it; `terms` notes the term each call ran as. */
function processCore(held: () => number | null) {
  const provider = { calls: 0, async check(names: string[]) { this.calls += 1; return names.map((name) => ({ name, available: true })); } };
  const fenced = leaderOnly(provider, (t) => held() === t);
  const terms: (number | undefined)[] = [];
  const local: Core = {
    seal: async (context, plaintext) => `sealed:${context}:${plaintext}`,
    dns: async () => ({ configured: true, nameservers: ['ns1.replicas.test'] }),
    nudge: () => undefined,
    verifyHostname: async () => {
      terms.push(currentTerm());
      await fenced.check(['verify']);
    },
    domain: async (op, input) => {
      terms.push(currentTerm());
      if (op === 'purchase') throw new AppError(409, 'domain_taken', 'another organization holds it', { name: 'taken.com' });
      const results = await fenced.check((input as DomainCalls['check']['in']).names);
      return { results } as never;
    },
    openBundle: async (nodeId) => `bundle of ${nodeId}`,
  };
  return { local, provider, terms };
}

/** The leader: its in-process core, and the core it serves to its replicas at `url`, which holds the lease. */
async function leader(store: Store) {
  let term: number | null = null;
  const p = processCore(() => term);
  const leading: Leading = { self: LEADER, held: () => term, leader: () => liveLease(store) };
  const url = await listen(coreListener([{ token: TOKEN, core: leaderCore(p.local, leading) }]));
  const won = await bid(store, { holder: LEADER, url }, LONG);
  term = won.lease!.term;
  return { ...p, url, core: leaderCore(p.local, leading, () => { throw new Error('the leader forwarded a call'); }), depose: () => { term = null; } };
}

function follower(store: Store, timeoutMs = 2000) {
  const p = processCore(() => null);
  const forwards: string[] = [];
  const leading: Leading = { self: FOLLOWER, held: () => null, leader: () => liveLease(store) };
  const core = leaderCore(p.local, leading, (url) => {
    forwards.push(url);
    return httpCore(url, TOKEN, { timeoutMs });
  });
  return { ...p, core, forwards };
}

const unavailable = expect.objectContaining({ status: 503, code: 'core_unavailable', headers: { 'Retry-After': '1' } });

describe('the leader', () => {
  it('runs the domain operations and verifyHostname in-process, as work of its term', async () => {
    const store = await fresh();
    const a = await leader(store);
    expect(await a.core.domain('check', { names: ['one.com'] })).toEqual({ results: [{ name: 'one.com', available: true }] });
    await a.core.verifyHostname('www.shop.test');
    expect(a.provider.calls).toBe(2);
    expect(a.terms).toEqual([1, 1]);
  });

  it('deposed during a call, makes no provider call after it: 503 core_unavailable', async () => {
    const store = await fresh();
    const a = await leader(store);
    const slow = leaderCore({
      ...a.local,
      domain: async (op, input) => {
        a.depose();
        return a.local.domain(op, input);
      },
    }, { self: LEADER, held: () => 1, leader: () => liveLease(store) });
    expect(await slow.domain('check', { names: ['late.com'] }).catch((e: unknown) => e)).toEqual(unavailable);
    expect(a.provider.calls).toBe(0);
  });
});

describe('a follower', () => {
  it('sends the domain operations and verifyHostname to the leader the lease names; the leader calls the provider, the follower never', async () => {
    const store = await fresh();
    const a = await leader(store);
    const b = follower(store);
    expect(await b.core.domain('check', { names: ['one.com', 'two.com'] })).toEqual({
      results: [{ name: 'one.com', available: true }, { name: 'two.com', available: true }],
    });
    await b.core.verifyHostname('www.shop.test');
    expect(b.forwards).toEqual([a.url, a.url]);
    expect([a.provider.calls, b.provider.calls]).toEqual([2, 0]);
    expect(a.terms).toEqual([1, 1]);
    expect(b.terms).toEqual([]);
  });

  it('gets the leader\'s errors whole', async () => {
    const store = await fresh();
    await leader(store);
    const b = follower(store);
    const e = await b.core.domain('purchase', {} as never).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect({ ...(e as AppError), message: (e as AppError).message }).toEqual({
      name: 'AppError', status: 409, code: 'domain_taken', message: 'another organization holds it', details: { name: 'taken.com' },
    });
  });

  it('answers what needs no provider itself: sealing, DNS settings, a node\'s bundle', async () => {
    const store = await fresh();
    await leader(store);
    const b = follower(store);
    expect(await b.core.seal('a/b/C', 'x')).toBe('sealed:a/b/C:x');
    expect(await b.core.openBundle('n1', 'sealed')).toBe('bundle of n1');
    expect(b.forwards).toEqual([]);
  });

  it('while none leads (never elected, or the leader resigned): 503 core_unavailable with Retry-After, no call anywhere', async () => {
    const store = await fresh();
    const b = follower(store);
    expect(await b.core.domain('check', { names: ['one.com'] }).catch((e: unknown) => e)).toEqual(unavailable);
    const a = await leader(store);
    await resign(store, 1);
    expect(await b.core.verifyHostname('www.shop.test').catch((e: unknown) => e)).toEqual(unavailable);
    expect([a.provider.calls, b.provider.calls, b.forwards.length]).toEqual([0, 0, 0]);
  });

  it('a leader that stopped leading refuses the forwarded call rather than making it or passing it on: 503', async () => {
    const store = await fresh();
    const a = await leader(store);
    const b = follower(store);
    a.depose();
    expect(await b.core.domain('check', { names: ['one.com'] }).catch((e: unknown) => e)).toEqual(unavailable);
    expect([a.provider.calls, b.provider.calls]).toEqual([0, 0]);
    expect(a.terms).toEqual([]);
  });

  it('a leader that does not answer (frozen): 503 core_unavailable once both attempts timed out, no provider call here', async () => {
    const store = await fresh();
    // Takes connections and never answers, as a SIGSTOPped process's kernel does.
    const sockets: Socket[] = [];
    const silent = createTcpServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    closers.push(() => {
      sockets.forEach((s) => s.destroy());
      return new Promise((r) => silent.close(() => r()));
    });
    await bid(store, { holder: LEADER, url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` }, LONG);
    const b = follower(store, 300);
    const started = Date.now();
    expect(await b.core.domain('check', { names: ['one.com'] }).catch((e: unknown) => e)).toEqual(unavailable);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(b.provider.calls).toBe(0);
  });

  it('the lease held in its own name while it does not hold the term (its deadline passed): 503, not a call to itself', async () => {
    const store = await fresh();
    await bid(store, { holder: FOLLOWER, url: 'http://127.0.0.1:9' }, LONG);
    const b = follower(store);
    expect(await b.core.domain('check', { names: ['one.com'] }).catch((e: unknown) => e)).toEqual(unavailable);
    expect([b.forwards.length, b.provider.calls]).toEqual([0, 0]);
  });
});
