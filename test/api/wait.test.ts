/**
 * Convergence receipts: writes to a zone answer `X-Generation`, and getZone with `?waitGeneration=N&wait=S` holds
 * until the zone is served at N or later (its Ready condition True at it), woken by the status write itself, in
 * this process or in another one (another connection to the store), not by a timer; or answers the zone as it is
 * once `wait` ends.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { changeOrEnd, holdUntil, MAX_HELD_WAITS_PER_ORG, releaseWaits, waiting, waitsReleased, WATCH_LINGER_MS } from '../../api/wait';
import { createLogger } from '../../lib/log';
import { zoneReconciler } from '../../reconcilers/zones';
import { openTestStore } from '../helpers/store';
import { recordStatus } from '../../store/status';
import { ZONE_STATUS, zoneByName } from '../../store/zones';
import { startTestApi, type TestApi } from '../helpers/app';
import { FakeNameserver } from '../helpers/fake-nameserver';

const NS = ['ns1.hostplane.test', 'ns2.hostplane.test'];
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });
const zonePath = (zone: string) => `/v1/orgs/acme/dns/zones/${zone}`;
/** Until this process holds `n` waits: a request is held (or let go) once it is counted. */
const held = (n: number) => vi.waitFor(() => expect(waiting(t.store)).toBe(n), { timeout: 5_000 });

let t: TestApi;
let nameserver: FakeNameserver;
let reconcile: (zone: string) => Promise<void>;
beforeAll(async () => {
  t = await startTestApi();
  nameserver = new FakeNameserver();
  const r = zoneReconciler({ store: t.store, nameserver, resolver: { ns: async () => [] }, nameservers: NS, log: silent });
  reconcile = async (zone) => { await r.reconcile(zone, new AbortController().signal); };
});
afterAll(async () => { await t.close(); });

async function zone(name: string): Promise<number> {
  const r = await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } });
  expect(r.status).toBe(200);
  return Number(r.headers.get('x-generation'));
}
const putA = (zn: string, ip: string) =>
  t.call('PUT', `${zonePath(zn)}/rrsets/www.${zn}/A`, { token: t.tokens.member, body: { records: [{ content: ip }] } });
/** A GET that waits, and when it was answered. */
const waitFor = (zn: string, query: string) => {
  const started = Date.now();
  return t.call('GET', `${zonePath(zn)}?${query}`).then((r) => ({ ...r, ms: Date.now() - started, at: Date.now() }));
};

describe('X-Generation on writes', () => {
  it('createZone, putRRset, deleteRRset, setZoneDNSSEC and setZoneDS answer the generation they leave; the body\'s status agrees', async () => {
    expect(await zone('receipts.example')).toBe(1);
    const put = await putA('receipts.example', '192.0.2.1');
    expect(put.headers.get('x-generation')).toBe('2');
    const del = await t.call('DELETE', `${zonePath('receipts.example')}/rrsets/www.receipts.example/A`, { token: t.tokens.member });
    expect(del.headers.get('x-generation')).toBe('3');
    const on = await t.call('POST', `${zonePath('receipts.example')}/dnssec`, { body: { enabled: true } });
    expect(on.headers.get('x-generation')).toBe('4');
    expect(on.body.status.generation).toBe(4);
    const ds = await t.call('PUT', `${zonePath('receipts.example')}/dnssec/ds`, { body: { ds: [] } });
    expect(ds.headers.get('x-generation')).toBe('4');
    expect((await t.call('GET', zonePath('receipts.example'))).headers.get('x-generation')).toBe('4');
  });
});

describe('getZone ?waitGeneration=N&wait=S', () => {
  it('holds until the reconciler has served generation N, and answers right after its status write', async () => {
    await zone('served.example');
    const n = Number((await putA('served.example', '192.0.2.1')).headers.get('x-generation'));
    let answered = false;
    const answer = waitFor('served.example', `waitGeneration=${n}&wait=10`).finally(() => { answered = true; });
    await held(1);
    expect(answered).toBe(false);
    await reconcile('served.example');
    const servedAt = Date.now();
    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.body.status).toMatchObject({ generation: n, observedGeneration: n, ready: true });
    // Woken by the write, not found by a later timer.
    expect(r.at - servedAt).toBeLessThan(150);
    expect(nameserver.served.get('served.example')!.text).toContain('192.0.2.1');
    expect(waiting(t.store)).toBe(0);
  });

  it('answers at once when N is already served (or an older generation is asked for)', async () => {
    await zone('done.example');
    const n = Number((await putA('done.example', '192.0.2.1')).headers.get('x-generation'));
    await reconcile('done.example');
    for (const g of [n, n - 1, 1]) {
      const r = await waitFor('done.example', `waitGeneration=${g}&wait=10`);
      expect(r.status).toBe(200);
      expect(r.body.status.ready).toBe(true);
      expect(r.ms).toBeLessThan(500);
    }
  });

  it('with nothing happening answers after about S seconds: 200, the zone as it is (not ready)', async () => {
    await zone('idle.example');
    const n = Number((await putA('idle.example', '192.0.2.1')).headers.get('x-generation'));
    const r = await waitFor('idle.example', `waitGeneration=${n}&wait=1`);
    expect(r.status).toBe(200);
    expect(r.body.status.ready).toBe(false);
    expect(r.ms).toBeGreaterThanOrEqual(990);
    expect(r.ms).toBeLessThan(1800);
    expect(waiting(t.store)).toBe(0);
  });

  it('other writes to the store, and a status of an older generation, do not end it early', async () => {
    await zone('later.example');
    await reconcile('later.example');
    const n = Number((await putA('later.example', '192.0.2.1')).headers.get('x-generation'));
    const answer = waitFor('later.example', `waitGeneration=${n + 1}&wait=2`);
    await held(1);
    await reconcile('later.example'); // serves n, not n + 1
    await zone('unrelated.example');
    const r = await answer;
    expect(r.body.status).toMatchObject({ observedGeneration: n, ready: true });
    expect(r.ms).toBeGreaterThanOrEqual(1990);
  });

  it('is woken by a status write of another connection (another process: `core` beside `api`)', async () => {
    await zone('split.example');
    const n = Number((await putA('split.example', '192.0.2.1')).headers.get('x-generation'));
    const answer = waitFor('split.example', `waitGeneration=${n}&wait=10`);
    await held(1);
    const other = await openTestStore(t.dir);
    try {
      const z = (await zoneByName(other, 'split.example'))!;
      await recordStatus(other, ZONE_STATUS, z.name, {
        uid: z.uid, generation: n, lastError: null,
        set: [{ type: 'Ready', status: 'True', reason: 'Served', message: 'served' }],
        facts: { servedSerial: z.serial, renderedSerial: z.serial },
      });
      const written = Date.now();
      const r = await answer;
      expect(r.body.status.ready).toBe(true);
      expect(r.at - written).toBeLessThan(400);
    } finally {
      other.close();
    }
  });

  it('answers 404 when the zone is deleted while it waits', async () => {
    await zone('doomed.example');
    const answer = waitFor('doomed.example', 'waitGeneration=5&wait=10');
    await held(1);
    expect((await t.call('DELETE', zonePath('doomed.example'))).status).toBe(204);
    const r = await answer;
    expect(r.status).toBe(404);
    expect(r.ms).toBeLessThan(1500);
  });

  it('ends when the client goes away', async () => {
    await zone('gone.example');
    const ac = new AbortController();
    const req = fetch(`${t.url}${zonePath('gone.example')}?waitGeneration=9&wait=30`, { headers: { authorization: `Bearer ${t.tokens.admin}` }, signal: ac.signal });
    await held(1);
    ac.abort();
    await expect(req).rejects.toThrow();
    await held(0);
  });

  it.each([
    'waitGeneration=0', 'waitGeneration=abc', 'waitGeneration=1e3', 'waitGeneration=-1', 'waitGeneration=', 'waitGeneration=1.5',
    'waitGeneration=1&wait=31', 'waitGeneration=1&wait=-1', 'waitGeneration=1&wait=1.5', 'waitGeneration=1&wait=0x1', 'wait=5',
  ])('?%s → 400 bad_request', async (query) => {
    await zone('bad-wait.example');
    const r = await t.call('GET', `${zonePath('bad-wait.example')}?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
  });

  it('wait=0 answers at once; If-None-Match still applies to the answer (304 when unchanged)', async () => {
    await zone('zero.example');
    const first = await t.call('GET', zonePath('zero.example'));
    const r = await waitFor('zero.example', 'waitGeneration=3&wait=0');
    expect(r.status).toBe(200);
    expect(r.ms).toBeLessThan(500);
    const cached = await t.call('GET', `${zonePath('zero.example')}?waitGeneration=3&wait=0`, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(cached.status).toBe(304);
  });
});

describe('held waits per organization', () => {
  it(`at most ${MAX_HELD_WAITS_PER_ORG} are held at once: one more answers at once with the zone as it is (200), another org still waits`, async () => {
    expect(MAX_HELD_WAITS_PER_ORG).toBe(64);
    const doc = await (await fetch(`${t.url}/openapi.json`)).json();
    const waitParam = doc.paths['/v1/orgs/{orgSlug}/dns/zones/{zone}'].get.parameters.find((p: { name: string }) => p.name === 'wait');
    expect(JSON.stringify(waitParam)).toContain('at most 64 waits at once');
    await zone('crowd.example');
    const n = Number((await putA('crowd.example', '192.0.2.1')).headers.get('x-generation'));
    const held = Array.from({ length: MAX_HELD_WAITS_PER_ORG }, () => waitFor('crowd.example', `waitGeneration=${n}&wait=20`));
    await vi.waitFor(() => expect(waiting(t.store)).toBe(MAX_HELD_WAITS_PER_ORG), { timeout: 5000 });
    const over = await waitFor('crowd.example', `waitGeneration=${n}&wait=20`);
    expect([over.status, over.body.status.ready]).toEqual([200, false]);
    expect(over.ms).toBeLessThan(1000);
    // Another organization's wait is its own.
    expect((await t.call('POST', '/v1/orgs/globex/dns/zones', { token: t.other.token, body: { name: 'crowd-other.example' } })).status).toBe(200);
    const theirs = t.call('GET', '/v1/orgs/globex/dns/zones/crowd-other.example?waitGeneration=2&wait=1', { token: t.other.token });
    await vi.waitFor(() => expect(waiting(t.store)).toBe(MAX_HELD_WAITS_PER_ORG + 1));
    // One write releases all of them; then the organization may hold waits again.
    await reconcile('crowd.example');
    for (const r of await Promise.all(held)) expect([r.status, r.body.status.ready]).toEqual([200, true]);
    expect((await theirs).status).toBe(200);
    const again = waitFor('crowd.example', `waitGeneration=${n + 1}&wait=1`);
    await vi.waitFor(() => expect(waiting(t.store)).toBe(1));
    expect((await again).ms).toBeGreaterThanOrEqual(900);
  });

  it('the cap is counted per owner and released however a wait ends', async () => {
    const s = t.store;
    const read = async () => 'state';
    const never = () => false;
    const ac = new AbortController();
    const deadline = Date.now() + 20_000;
    const held = Array.from({ length: MAX_HELD_WAITS_PER_ORG }, () => holdUntil(s, 'zone', 'unit.example', { deadline, signal: ac.signal, owner: 'org:unit' }, read, never));
    await vi.waitFor(() => expect(waiting(s)).toBe(MAX_HELD_WAITS_PER_ORG));
    const started = Date.now();
    expect(await holdUntil(s, 'zone', 'unit.example', { deadline, owner: 'org:unit' }, read, never)).toBe('state');
    expect(Date.now() - started).toBeLessThan(200);
    const other = holdUntil(s, 'zone', 'unit.example', { deadline: Date.now() + 300, owner: 'org:other' }, read, never);
    await vi.waitFor(() => expect(waiting(s)).toBe(MAX_HELD_WAITS_PER_ORG + 1));
    ac.abort();
    await Promise.all([...held, other]);
    expect(waiting(s)).toBe(0);
    const after = holdUntil(s, 'zone', 'unit.example', { deadline: Date.now() + 300, owner: 'org:unit' }, read, never);
    await vi.waitFor(() => expect(waiting(s)).toBe(1));
    await after;
  });
});

describe('releaseWaits (the server is stopping)', () => {
  it('answers every held wait at once, as a wait that ended unobserved, and holds none after', async () => {
    // A store of its own: a released store stays released.
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-wait-'));
    const s = await openTestStore(dir);
    try {
      const read = async () => 'state';
      const never = () => false;
      const deadline = Date.now() + 20_000;
      const conn = new EventEmitter();
      const held = [holdUntil(s, 'zone', 'a.example', { deadline }, read, never), changeOrEnd(s, 'node', 'n1', 20_000, conn)];
      await vi.waitFor(() => expect(waiting(s)).toBe(2));
      expect(waitsReleased(s)).toBe(false);
      releaseWaits(s);
      expect(await Promise.all(held)).toEqual(['state', undefined]);
      expect(waitsReleased(s)).toBe(true);
      expect(await holdUntil(s, 'zone', 'a.example', { deadline }, read, never)).toBe('state');
      await changeOrEnd(s, 'node', 'n1', 20_000, conn);
      expect(waiting(s)).toBe(0);
    } finally {
      s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the watch of other processes' commits", () => {
  it('outlives its last waiter by WATCH_LINGER_MS, so that a node polling again finds it in place; then it stops', async () => {
    const s = await openTestStore(':memory:');
    const listen = s.onOtherCommits.bind(s);
    const counts = { started: 0, stopped: 0 };
    vi.spyOn(s, 'onOtherCommits').mockImplementation((listener) => {
      counts.started++;
      const off = listen(listener);
      return () => {
        counts.stopped++;
        off();
      };
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const conn = new EventEmitter();
      for (let i = 0; i < 3; i++) {
        const poll = changeOrEnd(s, 'node', 'n1', 10, conn);
        await vi.advanceTimersByTimeAsync(10);
        await poll;
        await vi.advanceTimersByTimeAsync(WATCH_LINGER_MS - 1_000);
      }
      expect(counts).toEqual({ started: 1, stopped: 0 });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(counts).toEqual({ started: 1, stopped: 1 });
    } finally {
      vi.useRealTimers();
      s.close();
    }
  });
});
