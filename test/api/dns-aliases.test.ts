/** ALIAS through the API: put, exported, and getZone's `status.aliases` and `AliasResolved` as the OpenAPI document
 * describes them (every answer of `call` is checked against it), after a pass of the zone reconciler. */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import type { Resolver } from '../../providers/resolver';
import { zoneReconciler } from '../../reconcilers/zones';
import { FakeNameserver } from '../helpers/fake-nameserver';
import { startTestApi, type TestApi } from '../helpers/app';
import { settle } from '../helpers/passes';

const Z = 'alias-api.example';
const path = `/v1/orgs/acme/dns/zones/${Z}`;
const silent = createLogger({ destination: new Writable({ write: (_c, _e, cb) => cb() }) });

describe('ALIAS through the API', () => {
  let t: TestApi;
  beforeAll(async () => {
    t = await startTestApi();
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: Z } })).status).toBe(200);
  });
  afterAll(async () => { await t.close(); });

  it('takes an ALIAS at the apex and getZone shows what its target resolved to', async () => {
    const put = await t.call('PUT', `${path}/rrsets/${Z}/ALIAS`, { body: { records: [{ content: 'CDN.example.net.' }], ttl: 300 } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.records).toEqual([{ content: 'cdn.example.net' }]);

    // A resolver that answers a while later, as one does: the look runs beside the passes, not in them.
    const resolver: Resolver = {
      ns: async () => [],
      addressRecords: async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { kind: 'records', a: ['192.0.2.10'], aaaa: ['2001:db8::10'], ttl: 600 };
      },
    };
    const r = zoneReconciler({ store: t.store, nameserver: new FakeNameserver(), resolver, nameservers: ['ns1.hostplane.test'], log: silent, secondaryCheckMs: 0 });
    // Passes as the runner makes them: apply, look at the target (in the background), serve it.
    await settle(r, Z);

    const zone = await t.call('GET', path);
    expect(zone.status).toBe(200);
    expect(zone.body.status.aliases).toEqual([{
      name: Z, target: 'cdn.example.net', addresses: ['192.0.2.10', '2001:db8::10'], ttl: 300,
      resolvedAt: expect.any(String), checkedAt: expect.any(String), error: null,
    }]);
    expect(zone.body.status.conditions).toContainEqual(expect.objectContaining({ type: 'AliasResolved', status: 'True', reason: 'Resolved' }));
  });

  it('refuses an A beside it (409 alias_conflict); exports it in generic form, which imports back as no change', async () => {
    const a = await t.call('PUT', `${path}/rrsets/${Z}/A`, { body: { records: [{ content: '192.0.2.1' }] } });
    expect([a.status, a.body.code]).toEqual([409, 'alias_conflict']);
    const exported = await t.call('GET', `${path}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body as string).toContain(`\n; ALIAS cdn.example.net.\n${Z}. 300 IN TYPE65401 \\# 17 0363646e076578616d706c65036e657400\n`);
    const again = await t.call('POST', `${path}/import?mode=replace&dryRun=true`, { raw: exported.body as string, headers: { 'content-type': 'text/dns' } });
    expect([again.status, again.body.diff]).toEqual([200, []]);
  });
});
