/**
 * Long-polls on any replica (issue 23 item 4): with two `serve` on one PostgreSQL, a node long-polling either one
 * sees each secret set through the other, and a `?waitGeneration` on either one ends when the leader has served a
 * zone change made through the other. Whichever process commits, the other hears it from PostgreSQL's notification
 * (Store.onOtherCommits): the waits on the follower for the leader's bundle and status writes, the leader's
 * reconcilers for the follower's API writes. The bound is generous (a loaded CI machine); bench/failover.ts measures
 * the wake's p50/p99.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMissing } from '../../harness/postgres';
import { leadsAt } from '../../harness/replicas';
import { adminJson, bootstrapInStore, cleanup, http, startHostplane, tempDir, type Running } from '../helpers/proc';
import { databaseUrlFor, onPostgres } from '../helpers/store';

const skipped = onPostgres() ? postgresMissing() : 'needs two processes on one PostgreSQL: runs in the PostgreSQL pass (HOSTPLANE_TEST_STORE=postgres)';
/** Each change must reach the other replica's waiter within this (the wait itself is 20 s). */
const BOUND_MS = 2_000;
const ROUNDS = 8;

interface Polled { status: number; version: number; text: string; ms: number }

describe.skipIf(skipped)(`waits across replicas${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let base: string;
  let token: string;
  let nodeToken: string;
  let a: Running;
  let b: Running;

  beforeAll(async () => {
    base = tempDir('hostplane-replicas-');
    ({ token, nodeToken } = await bootstrapInStore(base, 'n1'));
    const url = await databaseUrlFor(base);
    const keyFile = join(tempDir('hostplane-replicas-key-'), 'sealing.key');
    const serve = (role: string) => startHostplane([
      'serve', '--port', '0', '--data', tempDir(`hostplane-replicas-${role}-`), '--dns-listen', '127.0.0.1:0',
      '--database-url', url, '--sealing-key', keyFile,
    ], { timeoutMs: 60_000 });
    // One after the other: the first is the leader, and it makes the key file the second is given.
    a = await serve('a');
    b = await serve('b');
    expect(await leadsAt(a.metrics!)).toBe(true);
    expect((await http(a.url, 'POST', '/v1/orgs/acme/projects', { token, body: { name: 'blog' } })).status).toBe(201);
    await adminJson(base, 'placement', 'set', 'acme', 'blog', 'n1');
  }, 120_000);
  afterAll(cleanup);

  const poll = async (at: Running, etag: string): Promise<Polled> => {
    const started = Date.now();
    const res = await fetch(`${at.url}/v1/nodes/n1/bundle?wait=20`, { headers: { authorization: `Bearer ${nodeToken}`, 'if-none-match': etag } });
    const text = await res.text();
    return { status: res.status, version: Number(JSON.parse(res.headers.get('etag')!)), text, ms: Date.now() - started };
  };
  let written = 0;

  /** Sets the secret through `writer` while a long-poll on `poller` is under way, ROUNDS times: each value is seen
   * by that long-poll (or the next, should a bundle without it have been built in between), the version rising. */
  const eachSeen = async (writer: Running, poller: Running): Promise<void> => {
    let etag = (await fetch(`${poller.url}/v1/nodes/n1/bundle`, { headers: { authorization: `Bearer ${nodeToken}` } })).headers.get('etag')!;
    for (let i = 0; i < ROUNDS; i++) {
      const value = `replica-value-${++written}`;
      // The write follows the poll at once, so that it may land while the poll's wait is being set up.
      const polled = poll(poller, etag);
      const set = await http(writer.url, 'PUT', '/v1/orgs/acme/projects/blog/secrets/API_KEY', { token, body: { value } });
      expect(set.status).toBe(200);
      const setAt = Date.now();
      let got = await polled;
      while (got.status === 200 && !got.text.includes(value) && Date.now() - setAt < BOUND_MS) {
        etag = `"${got.version}"`;
        got = await poll(poller, etag);
      }
      expect(got.status, `round ${i}: ${got.text}`).toBe(200);
      expect(got.text, `round ${i}`).toContain(value);
      expect(Date.now() - setAt, `round ${i}`).toBeLessThan(BOUND_MS);
      expect(got.version).toBeGreaterThan(Number(JSON.parse(etag)));
      expect(JSON.parse(got.text).version).toBe(got.version);
      etag = `"${got.version}"`;
    }
  };

  it('a node long-polling the follower sees each secret set through the leader', () => eachSeen(a, b), 60_000);
  it('a node long-polling the leader sees each secret set through the follower', () => eachSeen(b, a), 60_000);

  const zone = '/v1/orgs/acme/dns/zones/replicas.test';
  it('?waitGeneration on either replica ends when the leader has served a change made through the other', async () => {
    expect((await http(b.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: 'replicas.test' } })).status).toBe(200);
    for (let i = 0; i < ROUNDS; i++) {
      const [writer, waiter] = i % 2 === 0 ? [a, b] : [b, a];
      const put = await http(writer.url, 'PUT', `${zone}/rrsets/www.replicas.test/A`, { token, body: { records: [{ content: `192.0.2.${i + 1}` }], ttl: 300 } });
      expect(put.status).toBe(200);
      const generation = Number(put.headers.get('x-generation'));
      const started = Date.now();
      const r = await http(waiter.url, 'GET', `${zone}?waitGeneration=${generation}&wait=20`, { token });
      expect(r.status).toBe(200);
      expect(r.body.status, `round ${i}`).toMatchObject({ ready: true });
      expect(r.body.status.observedGeneration).toBeGreaterThanOrEqual(generation);
      expect(Date.now() - started, `round ${i}`).toBeLessThan(BOUND_MS);
    }
  }, 60_000);
});
