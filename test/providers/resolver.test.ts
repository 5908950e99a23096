/** The resolver port's record lookups for hostname proofs (issue 9 item 2), against DNS servers on loopback: the
 * stub resolver (dns-packet, UDP and TCP) and a silent socket; never the machine's resolver. */
import { describe, expect, it } from 'vitest';
import { ResolverError, systemResolver } from '../../providers/resolver';
import { useResolvers } from '../helpers/resolvers';
import type { StubResolver } from '../helpers/stub-resolver';

let stub: StubResolver;
let silentAt: string;
useResolvers((r) => {
  stub = r.stub;
  silentAt = r.silentAt;
});

const txt = (name: string, ...values: string[]) => values.map((v) => ({ type: 'TXT' as const, name, ttl: 60, data: v }));

describe('record lookups', () => {
  it('TXT: each record\'s value, NXDOMAIN, and no data', async () => {
    const r = systemResolver([stub.address]);
    stub.set('_service-verify.a.test', 'TXT', txt('_service-verify.a.test', 'abc', 'def'));
    stub.set('nodata.test', 'A', [{ type: 'A', name: 'nodata.test', data: '192.0.2.1' }]);
    expect(await r.txt('_service-verify.a.test')).toEqual({ kind: 'records', values: ['abc', 'def'] });
    expect(await r.txt('_service-verify.missing.test')).toEqual({ kind: 'nxdomain' });
    expect(await r.txt('nodata.test')).toEqual({ kind: 'nodata' });
  });

  it('CNAME: the target in lower case without its dot', async () => {
    const r = systemResolver([stub.address]);
    stub.set('www.c.test', 'CNAME', [{ type: 'CNAME', name: 'www.c.test', data: 'Edge.Hostplane.NET.' }]);
    expect(await r.cname('www.c.test')).toEqual({ kind: 'records', values: ['edge.hostplane.net'] });
  });

  it('addresses: A and AAAA together', async () => {
    const r = systemResolver([stub.address]);
    stub.set('apex.test', 'A', [{ type: 'A', name: 'apex.test', data: '192.0.2.10' }]);
    stub.set('apex.test', 'AAAA', [{ type: 'AAAA', name: 'apex.test', data: '2001:db8::10' }]);
    expect(await r.addresses('apex.test')).toEqual({ kind: 'records', values: ['192.0.2.10', '2001:db8::10'] });
    expect(await r.addresses('none.test')).toEqual({ kind: 'nxdomain' });
  });

  it('addressRecords (ALIAS targets): A and AAAA apart, through a CNAME chain, with the least TTL of what answered', async () => {
    const r = systemResolver([stub.address]);
    stub.set('lb.test', 'A', [
      { type: 'CNAME', name: 'lb.test', ttl: 600, data: 'edge.lb.test' },
      { type: 'A', name: 'edge.lb.test', ttl: 120, data: '192.0.2.20' },
      { type: 'A', name: 'edge.lb.test', ttl: 120, data: '192.0.2.21' },
    ]);
    stub.set('lb.test', 'AAAA', [{ type: 'AAAA', name: 'lb.test', ttl: 90, data: '2001:db8::20' }]);
    expect(await r.addressRecords!('lb.test')).toEqual({ kind: 'records', a: ['192.0.2.20', '192.0.2.21'], aaaa: ['2001:db8::20'], ttl: 90 });
    stub.set('v4.test', 'A', [{ type: 'A', name: 'v4.test', ttl: 3600, data: '192.0.2.30' }]);
    expect(await r.addressRecords!('v4.test')).toEqual({ kind: 'records', a: ['192.0.2.30'], aaaa: [], ttl: 3600 });
    stub.set('text.test', 'TXT', txt('text.test', 'x'));
    expect(await r.addressRecords!('text.test')).toEqual({ kind: 'nodata' });
    expect(await r.addressRecords!('gone.test')).toEqual({ kind: 'nxdomain' });
    stub.fail('broken.test', true);
    await expect(r.addressRecords!('broken.test')).rejects.toThrow(ResolverError);
  });

  it('asks again over TCP when the UDP answer is truncated', async () => {
    const r = systemResolver([stub.address]);
    const many = Array.from({ length: 40 }, (_, i) => `value-${i}-${'x'.repeat(60)}`);
    stub.set('_service-verify.big.test', 'TXT', txt('_service-verify.big.test', ...many));
    stub.truncate('_service-verify.big.test', true);
    const before = stub.queries.length;
    expect(await r.txt('_service-verify.big.test')).toEqual({ kind: 'records', values: many });
    expect(stub.queries.slice(before)).toEqual(['_service-verify.big.test TXT', '_service-verify.big.test TXT tcp']);
  });
});

describe('failures are ResolverError in words, never a guess', () => {
  it('a resolver that does not answer: "resolver X did not answer in N s", within the timeout', async () => {
    const r = systemResolver([silentAt], 300);
    const started = Date.now();
    const e = await r.txt('_service-verify.a.test').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ResolverError);
    expect((e as Error).message).toBe(`resolver ${silentAt} did not answer in 0.3 s`);
    // What tenants may read names no resolver: the system's sit in the service's own network.
    expect((e as ResolverError).unnamed).toBe('the resolver did not answer in 0.3 s');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('SERVFAIL is a failure naming the question, not "no such record"', async () => {
    const r = systemResolver([stub.address]);
    stub.fail('broken.test', true);
    await expect(r.cname('broken.test')).rejects.toThrow(`resolver ${stub.address} answered SERVFAIL for broken.test CNAME`);
  });

  it('tries the next resolver when one is silent', async () => {
    const r = systemResolver([silentAt, stub.address], 200);
    stub.set('_service-verify.next.test', 'TXT', txt('_service-verify.next.test', 'tok'));
    expect(await r.txt('_service-verify.next.test')).toEqual({ kind: 'records', values: ['tok'] });
    expect(r.timeoutMs).toBe(400);
  });
});
