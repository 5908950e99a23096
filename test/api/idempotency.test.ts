/** Idempotency-Key on POST (CONTRACT.md conventions; api/idempotency.ts): replay of the stored answer, 422 for
 * another request, 409 while the first runs, keys per caller, what is never stored, the operations whose answer
 * carries a secret, and expiry after 24 hours. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createApp } from '../../api/app';
import { fingerprint, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_MAX_ANSWER_BYTES, IDEMPOTENCY_MAX_KEYS, IDEMPOTENCY_TTL_MS } from '../../api/idempotency';
import { openApiDocument } from '../../api/openapi';
import { defineOp, type AnyOp } from '../../api/ops';
import { DEFAULT_PLANS } from '../../rules/plans';
import { captureLogger } from '../helpers/log';
import { AppError } from '../../lib/errors';
import { createUser, issueToken } from '../../store/accounts';
import { type Store } from '../../store/db';
import { openTestStore } from '../helpers/store';
import { claimKey, finishKey } from '../../store/idempotency';
import { audit, idempotencyKeys, orgs, users } from '../../store/schema';
import { startTestApi, type TestApi } from '../helpers/app';

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi({ plan: 'pro' });
});
afterAll(async () => { await t.close(); });
afterEach(() => { vi.useRealTimers(); });

const PROJECTS = '/v1/orgs/acme/projects';
const ZONES = '/v1/orgs/acme/dns/zones';
let n = 0;
/** A fresh key per use, so that the tests do not share records. */
const newKey = (): string => `key-${Date.now()}-${++n}`;
const post = (path: string, body: unknown, key: string | undefined, token?: string) =>
  t.call('POST', path, { body, token, headers: key === undefined ? {} : { 'idempotency-key': key } });
const auditCount = async (event: string): Promise<number> =>
  (await t.store.db.select({ n: count() }).from(audit).where(eq(audit.event, event)))[0]!.n;
const records = async (): Promise<number> => (await t.store.db.select({ n: count() }).from(idempotencyKeys))[0]!.n;

describe('the same key and request replay the stored answer', () => {
  it.each([
    ['createProject (201 with Location)', PROJECTS, { name: 'replayed', database: true }, 201, 'project.create'],
    ['createZone (200)', ZONES, { name: 'replayed.example' }, 200, 'dns.zone.create'],
  ] as const)('%s: same status, body and Location, and the operation ran once', async (_what, path, body, status, event) => {
    const key = newKey();
    const before = await auditCount(event);
    const first = await post(path, body, key);
    expect(first.status, JSON.stringify(first.body)).toBe(status);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await post(path, body, key);
    expect(again.status).toBe(status);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await auditCount(event)).toBe(before + 1);
  });

  it('a body with its fields in another order is the same request', async () => {
    const key = newKey();
    const first = await post(PROJECTS, { name: 'ordered', database: false }, key);
    expect(first.status).toBe(201);
    const again = await post(PROJECTS, { database: false, name: 'ordered' }, key);
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
  });

  it('an executed operation\'s 4xx is stored and replayed with the request id of the replay', async () => {
    await post('/v1/orgs/globex/dns/zones', { name: 'held.example' }, undefined, t.other.token);
    const key = newKey();
    const first = await post(ZONES, { name: 'held.example' }, key);
    expect([first.status, first.body.code]).toEqual([409, 'zone_taken']);
    const again = await post(ZONES, { name: 'held.example' }, key);
    expect([again.status, again.body.code, again.body.message]).toEqual([409, 'zone_taken', first.body.message]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.requestId).toBe(again.headers.get('x-request-id'));
  });

  it('a POST without the key runs every time', async () => {
    expect((await post(PROJECTS, { name: 'nokey' }, undefined)).status).toBe(201);
    const again = await post(PROJECTS, { name: 'nokey' }, undefined);
    expect([again.status, again.body.code, again.headers.get('idempotent-replayed')]).toEqual([409, 'project_name_taken', null]);
  });
});

describe('the same key with another request', () => {
  it.each([
    ['another body', PROJECTS, { name: 'other-body' }],
    ['another operation', ZONES, { name: 'other-op.example' }],
    ['another path of the operation', `${ZONES}/reused-one.example/dnssec`, { enabled: true }],
  ])('%s is 422 idempotency_key_reused, and nothing runs', async (_what, path, body) => {
    expect((await post(ZONES, { name: 'reused-one.example' }, undefined)).status).toBe(200);
    expect((await post(ZONES, { name: 'reused-two.example' }, undefined)).status).toBe(200);
    const key = newKey();
    const first = await post(`${ZONES}/reused-two.example/dnssec`, { enabled: false }, key);
    expect(first.status).toBe(200);
    const before = await auditCount('project.create');
    const r = await post(path, body, key);
    expect([r.status, r.body.code]).toEqual([422, 'idempotency_key_reused']);
    expect(await auditCount('project.create')).toBe(before);
    expect((await t.call('GET', `${PROJECTS}/other-body`)).status).toBe(404);
  });
});

describe('the same key with other preconditions', () => {
  it.each([
    ['another If-Match', { 'if-match': '"stale"' }],
    ['no If-Match', {}],
    ['If-None-Match added', { 'if-match': 'CURRENT', 'if-none-match': '"x"' }],
  ] as const)('%s is 422 idempotency_key_reused, never the stored 200 (or 412) of the first', async (_what, second) => {
    const zn = `pre-${++n}.example`;
    expect((await post(ZONES, { name: zn }, undefined)).status).toBe(200);
    const tag = (await t.call('GET', `${ZONES}/${zn}`)).headers.get('etag')!;
    const key = newKey();
    const dnssec = (headers: Record<string, string>) =>
      t.call('POST', `${ZONES}/${zn}/dnssec`, { body: { enabled: true }, headers: { 'idempotency-key': key, ...headers } });
    expect((await dnssec({ 'if-match': tag })).status).toBe(200);
    const r = await dnssec(Object.fromEntries(Object.entries(second).map(([h, v]) => [h, v === 'CURRENT' ? tag : v])));
    expect([r.status, r.body.code, r.headers.get('idempotent-replayed')]).toEqual([422, 'idempotency_key_reused', null]);
    // The same precondition again is the same request: replayed.
    const again = await dnssec({ 'if-match': tag });
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
  });

  it('a stored 412 is not replayed to a request with another If-Match', async () => {
    const zn = `pre-${++n}.example`;
    expect((await post(ZONES, { name: zn }, undefined)).status).toBe(200);
    const tag = (await t.call('GET', `${ZONES}/${zn}`)).headers.get('etag')!;
    const key = newKey();
    const dnssec = (ifMatch: string) =>
      t.call('POST', `${ZONES}/${zn}/dnssec`, { body: { enabled: true }, headers: { 'idempotency-key': key, 'if-match': ifMatch } });
    expect((await dnssec('"stale"')).status).toBe(412);
    const r = await dnssec(tag);
    expect([r.status, r.body.code]).toEqual([422, 'idempotency_key_reused']);
  });

  it('the fingerprint of a request without preconditions is what it was before they counted', () => {
    const ctx = (headers: Record<string, string>) => ({ path: '/p', querystring: '', get: (h: string) => headers[h.toLowerCase()] ?? '' }) as never;
    // Keys stored before an upgrade still replay their answers: the same hash as before for such requests.
    expect(fingerprint('op', ctx({}), { a: 1 })).toBe('30037d191eff78f7c8026a8eb7f19f884a869e8cc70aa3d63ca84fbd0705cc78');
    expect(fingerprint('op', ctx({ 'if-match': '"a"' }), { a: 1 })).not.toBe(fingerprint('op', ctx({}), { a: 1 }));
    expect(fingerprint('op', ctx({ 'if-match': '"a"' }), { a: 1 })).not.toBe(fingerprint('op', ctx({ 'if-none-match': '"a"' }), { a: 1 }));
  });
});

describe('the same key while the first request runs', () => {
  it('is 409 idempotency_in_progress while another process holds the key, and runs once its lease is over', async () => {
    const key = newKey();
    const body = { name: 'leased' };
    // The first request as another process would have claimed it: the record of admin@acme in acme.
    const [admin] = await t.store.db.select().from(users).where(eq(users.email, 'admin@acme.test'));
    const [acme] = await t.store.db.select().from(orgs).where(eq(orgs.slug, 'acme'));
    const scope = `user:${admin!.id}/org:${acme!.id}`;
    const print = fingerprint('createProject', { path: PROJECTS, querystring: '', get: () => '' } as never, body);
    expect((await claimKey(t.store, { scope, key, operation: 'createProject', fingerprint: print, leaseMs: IDEMPOTENCY_LEASE_MS, ttlMs: IDEMPOTENCY_TTL_MS, maxKeys: IDEMPOTENCY_MAX_KEYS })).kind).toBe('run');
    const r = await post(PROJECTS, body, key);
    expect([r.status, r.body.code]).toEqual([409, 'idempotency_in_progress']);
    expect((await t.call('GET', `${PROJECTS}/leased`)).status).toBe(404);
    // Another body is still 422, not 409.
    expect((await post(PROJECTS, { name: 'leased-other' }, key)).status).toBe(422);
    // The holder crashed: once the lease is over, the retry runs the operation.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + IDEMPOTENCY_LEASE_MS + 1000);
    const retried = await post(PROJECTS, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('concurrent requests with one key: the operation runs once, the others get 409 or its replay', async () => {
    const key = newKey();
    const before = await auditCount('dns.zone.create');
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(ZONES, { name: 'concurrent.example' }, key)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 200 || s === 409), statuses.join()).toBe(true);
    expect(answers.filter((a) => a.status === 200 && a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body.code).toBe('idempotency_in_progress');
    expect(await auditCount('dns.zone.create')).toBe(before + 1);
  });
});

describe('keys are per caller', () => {
  it('another org\'s user with the same key gets its own answer', async () => {
    const key = newKey();
    const mine = await post(PROJECTS, { name: 'per-caller' }, key);
    expect(mine.status).toBe(201);
    // Hostnames are global, so globex's project has a name of its own; with a shared key this would be 422.
    const theirs = await post('/v1/orgs/globex/projects', { name: 'per-caller-g' }, key, t.other.token);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.headers.get('location')).toBe('/v1/orgs/globex/projects/per-caller-g');
  });

  it('another user of the same org with the same key and body runs the operation itself', async () => {
    const key = newKey();
    expect((await post(ZONES, { name: 'same-org.example' }, key)).status).toBe(200);
    const mine = await post(PROJECTS, { name: 'same-org' }, key, t.tokens.member);
    expect(mine.status).toBe(201);
    const again = await post(PROJECTS, { name: 'same-org' }, newKey());
    expect([again.status, again.body.code]).toEqual([409, 'project_name_taken']);
  });
});

describe('answers that are never stored', () => {
  it.each([
    ['400 (validation)', { name: 'Not A Label' }, undefined],
    ['401', { name: 'after-401' }, 'hp_not-a-token'],
    ['403 (viewer)', { name: 'after-403' }, 'viewer'],
    ['404 (not a member)', { name: 'after-404' }, 'stranger'],
  ])('%s: the key stays free, and the next request with it runs', async (_what, body, token) => {
    const key = newKey();
    const tok = token === 'viewer' || token === 'stranger' ? t.tokens[token] : token;
    const refused = await post(PROJECTS, body, key, tok);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const good = { name: `free-${n}` };
    const ran = await post(PROJECTS, good, key);
    expect([ran.status, ran.headers.get('idempotent-replayed')]).toEqual([201, null]);
  });

  it('a malformed key is 400 and nothing runs', async () => {
    for (const key of ['with space', 'x'.repeat(256), 'é']) {
      const r = await t.call('POST', PROJECTS, { body: { name: 'bad-key' }, headers: { 'idempotency-key': key } }).catch(() => null);
      if (r === null) continue; // fetch refuses some header values itself
      expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
    }
    expect((await t.call('GET', `${PROJECTS}/bad-key`)).status).toBe(404);
  });
});

describe('expiry', () => {
  it('after 24 hours the key is free again and its record is pruned', async () => {
    const key = newKey();
    expect((await post(ZONES, { name: 'expiring.example' }, key)).status).toBe(200);
    const held = await records();
    expect((await post(ZONES, { name: 'expiring-other.example' }, key)).status).toBe(422);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + IDEMPOTENCY_TTL_MS + 120_000);
    const r = await post(ZONES, { name: 'expiring-other.example' }, key);
    expect([r.status, r.headers.get('idempotent-replayed')]).toEqual([200, null]);
    // Every record made before is past its 24 hours: pruned in that claim's write, the new one kept.
    expect(await records()).toBe(1);
    expect(held).toBeGreaterThan(1);
  });
});

describe('the number of keys a caller holds', () => {
  const claim = (store: Store, scope: string, key: string, maxKeys: number) => claimKey(store, {
    scope, key, operation: 'op', fingerprint: key, leaseMs: IDEMPOTENCY_LEASE_MS, ttlMs: IDEMPOTENCY_TTL_MS, maxKeys,
  });
  const keysOf = async (store: Store, scope: string): Promise<string[]> =>
    (await store.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys).where(eq(idempotencyKeys.scope, scope))).map((r) => r.key).sort();
  const answered = async (store: Store, scope: string, key: string, maxKeys: number) => {
    const c = await claim(store, scope, key, maxKeys);
    if (c.kind !== 'run') throw new Error(c.kind);
    await finishKey(store, scope, key, c.lease, { status: 200, headers: {}, body: '{}' });
  };

  it(`is capped (${IDEMPOTENCY_MAX_KEYS} by default): a new key drops the caller's oldest answered one, other callers keep theirs`, async () => {
    const store = await openTestStore(':memory:');
    try {
      vi.useFakeTimers({ toFake: ['Date'] });
      for (const k of ['k1', 'k2', 'k3']) {
        await answered(store, 'a', k, 3);
        vi.setSystemTime(Date.now() + 1000);
      }
      await answered(store, 'b', 'k1', 3);
      await answered(store, 'a', 'k4', 3);
      expect(await keysOf(store, 'a')).toEqual(['k2', 'k3', 'k4']);
      expect(await keysOf(store, 'b')).toEqual(['k1']);
      // The dropped key runs again (a retry 24 hours' worth of keys later); a kept one still replays.
      expect((await claim(store, 'a', 'k3', 3)).kind).toBe('replay');
      expect((await claim(store, 'a', 'k1', 3)).kind).toBe('run');
      expect(await keysOf(store, 'a')).toEqual(['k1', 'k3', 'k4']);
      expect(IDEMPOTENCY_MAX_KEYS).toBe(1000);
    } finally {
      store.close();
    }
  });

  it('a request still running keeps its key: the oldest answered one goes instead', async () => {
    const store = await openTestStore(':memory:');
    try {
      vi.useFakeTimers({ toFake: ['Date'] });
      const running = await claim(store, 'a', 'running', 2);
      vi.setSystemTime(Date.now() + 1000);
      await answered(store, 'a', 'done', 2);
      vi.setSystemTime(Date.now() + 1000);
      await answered(store, 'a', 'new', 2);
      expect(await keysOf(store, 'a')).toEqual(['new', 'running']);
      expect(running.kind).toBe('run');
      // Its answer is still stored when it ends.
      if (running.kind === 'run') await finishKey(store, 'a', 'running', running.lease, { status: 201, headers: {}, body: null });
      expect((await claim(store, 'a', 'running', 2)).kind).toBe('replay');
    } finally {
      store.close();
    }
  });
});

describe('the mechanics, on operations of their own', () => {
  let store: Store;
  let server: Server;
  let url: string;
  let token: string;
  const runs = { secret: 0, flaky: 0, slow: 0, big: 0 };
  let release: () => void = () => undefined;
  const Body = z.strictObject({ v: z.number() });
  const op = (operationId: string, extra: Partial<AnyOp>, handler: AnyOp['handler']): AnyOp => defineOp({
    operationId, tag: 'test', method: 'post', path: `/v1/test/${operationId}`, summary: operationId, needsCore: false, body: Body,
    responses: { 200: { description: 'ok', schema: z.object({ runs: z.number() }) } }, handler, ...extra,
  } as AnyOp);
  const ops: AnyOp[] = [
    op('secret', { secretAnswer: true }, async () => ({ status: 200, body: { runs: ++runs.secret } })),
    op('flaky', {}, async () => {
      runs.flaky++;
      if (runs.flaky === 1) throw new Error('boom');
      if (runs.flaky === 2) throw new AppError(502, 'saga_incomplete', 'send again');
      return { status: 200, body: { runs: runs.flaky } };
    }),
    op('big', {}, async (c) => {
      runs.big++;
      // v: the size of the answer's padding, in bytes.
      return { status: 200, body: { runs: runs.big, pad: 'x'.repeat((c as unknown as { body: { v: number } }).body.v) } };
    }),
    op('slow', {}, async () => {
      runs.slow++;
      await new Promise<void>((r) => { release = r; });
      return { status: 200, body: { runs: runs.slow } };
    }),
  ];
  const send = async (operationId: string, key: string, v = 1) => {
    const res = await fetch(`${url}/v1/test/${operationId}`, {
      method: 'POST', body: JSON.stringify({ v }), headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
    });
    return { status: res.status, body: await res.json() as Record<string, unknown>, replayed: res.headers.get('idempotent-replayed') };
  };

  beforeAll(async () => {
    store = await openTestStore(':memory:');
    await createUser(store, 'solo@test.test');
    token = await issueToken(store, 'solo@test.test');
    const app = createApp({ store, core: null, config: { appDomain: 'x.test', plans: DEFAULT_PLANS, serviceDomains: [] } }, captureLogger().log, undefined, ops);
    server = createServer(app.handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    store.close();
  });

  it('an operation whose answer carries a secret ignores the key: every call runs, nothing is stored', async () => {
    const a = await send('secret', 'k-secret');
    const b = await send('secret', 'k-secret');
    const c = await send('secret', 'k-secret', 2);
    expect([a.body.runs, b.body.runs, c.body.runs]).toEqual([1, 2, 3]);
    expect([a.replayed, b.replayed, c.replayed]).toEqual([null, null, null]);
    expect(await store.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, 'k-secret'))).toEqual([]);
  });

  it('5xx answers are not stored: sending again runs the operation', async () => {
    expect((await send('flaky', 'k-flaky')).status).toBe(500);
    expect(await store.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, 'k-flaky'))).toEqual([]);
    expect((await send('flaky', 'k-flaky')).status).toBe(502);
    const ok = await send('flaky', 'k-flaky');
    expect([ok.status, ok.body.runs, ok.replayed]).toEqual([200, 3, null]);
    const again = await send('flaky', 'k-flaky');
    expect([again.status, again.body.runs, again.replayed]).toEqual([200, 3, 'true']);
  });

  it(`an answer larger than ${IDEMPOTENCY_MAX_ANSWER_BYTES} bytes is not stored: the key is free, sending again runs the operation`, async () => {
    const big = IDEMPOTENCY_MAX_ANSWER_BYTES + 1;
    const a = await send('big', 'k-big', big);
    const b = await send('big', 'k-big', big);
    expect([a.status, a.body.runs, b.status, b.body.runs, b.replayed]).toEqual([200, 1, 200, 2, null]);
    expect(await store.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, 'k-big'))).toEqual([]);
    // One that fits is stored and replayed.
    const small = IDEMPOTENCY_MAX_ANSWER_BYTES - 100;
    const c = await send('big', 'k-fits', small);
    const d = await send('big', 'k-fits', small);
    expect([c.body.runs, d.body.runs, d.replayed]).toEqual([3, 3, 'true']);
  });

  it('while the first request runs in this process: 409 for the same request, 422 for another', async () => {
    const first = send('slow', 'k-slow');
    await vi.waitFor(() => expect(runs.slow).toBe(1));
    const during = await send('slow', 'k-slow');
    expect([during.status, during.body.code]).toEqual([409, 'idempotency_in_progress']);
    const other = await send('slow', 'k-slow', 2);
    expect([other.status, other.body.code]).toEqual([422, 'idempotency_key_reused']);
    release();
    expect((await first).status).toBe(200);
    const after = await send('slow', 'k-slow');
    expect([after.status, after.body.runs, after.replayed]).toEqual([200, 1, 'true']);
  });

  it('the document lists Idempotency-Key, 409 and 422 on POSTs that honour it, not on one whose answer carries a secret', () => {
    const doc = openApiDocument(ops, { title: 't', version: '1' });
    const params = (id: string) => JSON.stringify(doc.paths[`/v1/test/${id}`].post.parameters);
    expect(params('flaky')).toContain('IdempotencyKey');
    expect(params('secret')).not.toContain('IdempotencyKey');
    expect(Object.keys(doc.paths['/v1/test/flaky'].post.responses)).toEqual(expect.arrayContaining(['409', '422']));
    expect(Object.keys(doc.paths['/v1/test/secret'].post.responses)).not.toContain('422');
    expect(doc.components.parameters.IdempotencyKey.name).toBe('Idempotency-Key');
    // The caps are documented where a client reads about the key.
    for (const text of [doc.info.description, doc.components.parameters.IdempotencyKey.description]) {
      expect(text).toMatch(/larger than 64 KiB/);
      expect(text).toContain('1,000 keys');
    }
    expect(doc.components.parameters.IdempotencyKey.description).toContain('`If-Match` and `If-None-Match`');
  });
});
