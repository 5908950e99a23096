/**
 * The secondaries harness proven on its own, without hostplane: a knotd primary of ours (a generated catalog,
 * a signed and an unsigned zone, `zonefile-load: difference-no-serial`), BIND `named` and a second knotd as its
 * secondaries through the catalog, and Unbound validating through the primary and through a secondary. When
 * this file fails, the harness is broken; when only secondaries.test.ts fails, hostplane is.
 */
import type { Answer } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../harness/dns';
import { freePort } from '../helpers/knot';
import { cleanup } from '../helpers/proc';
import {
  axfr, diffRecords, eventually, hasSecondaryTools, newTsigKey, onFreshPort, secondariesTitle, startBindSecondary, startKnotPrimary,
  parentZoneText, startKnotSecondary, startUnbound, stopDaemons, verifySigned, type KnotPrimary, type Resolver, type Secondary, type TsigKey,
} from '../../harness/secondaries';

const zoneText = (name: string, extra: string[] = []): string => [
  '$TTL 300',
  `@ SOA ns1.hostplane.test. hostmaster.${name}. 1 60 30 3600 60`,
  '@ NS ns1.hostplane.test.',
  '@ NS ns2.hostplane.test.',
  'www A 192.0.2.1',
  'www AAAA 2001:db8::1',
  ...extra,
  '',
].join('\n');

describe('a daemon\'s port', () => {
  const inUse = (port: number): Error => new Error(`knotd exited (1) before answering on ${port}: cannot bind address 127.0.0.1@${port} TCP (address already in use)`);

  it('is picked afresh when another process took the one picked before the daemon bound it', async () => {
    const tried: number[] = [];
    const port = await onFreshPort(undefined, async (p) => {
      tried.push(p);
      if (tried.length === 1) throw inUse(p);
      return p;
    });
    expect(tried).toHaveLength(2);
    expect(port).toBe(tried[1]);
  });

  it('is not changed when the test gave it, nor for another failure', async () => {
    await expect(onFreshPort(5353, async (p) => { throw inUse(p); })).rejects.toThrow('address already in use');
    let calls = 0;
    await expect(onFreshPort(undefined, async () => { calls++; throw new Error('knotc conf-check refused the generated config'); })).rejects.toThrow('conf-check');
    expect(calls).toBe(1);
  });
});

const rrs = (answers: Answer[] | undefined, type: string): Answer[] => (answers ?? []).filter((a) => a.type === type);

describe.skipIf(!hasSecondaryTools()).each([
  ['without TSIG', false],
  ['with TSIG', true],
])(secondariesTitle('secondaries harness: knotd primary → BIND and Knot secondaries via the catalog, Unbound validating (%s)'), (_title, withTsig) => {
  let primary: KnotPrimary;
  let parent: KnotPrimary;
  let secondaries: Secondary[];
  let viaPrimary: Resolver;
  let viaBind: Resolver;
  let key: TsigKey | undefined;
  let extra: string[] = [];

  /** Every secondary serves `zone` at the primary's serial, with exactly the primary's records. */
  async function converged(zone: string, signed: boolean): Promise<void> {
    const serial = await primary.soa(zone);
    expect(serial).not.toBeNull();
    const reference = await primary.axfr(zone);
    expect(reference.ok, reference.text).toBe(true);
    await Promise.all(secondaries.map(async (s) => {
      const at = await eventually(() => s.soa(zone), (v) => v === serial, 15_000);
      expect(at, `${s.kind} serves ${zone} at ${serial}\n${s.log().slice(-3000)}`).toBe(serial);
      const copy = await s.axfr(zone);
      expect(copy.ok, copy.text).toBe(true);
      expect(diffRecords(reference, copy), `${s.kind}'s copy of ${zone}`).toEqual({ missing: [], extra: [] });
      if (signed) {
        const v = await verifySigned(zone, copy);
        expect(v.ok, v.output).toBe(true);
      }
    }));
  }

  beforeAll(async () => {
    key = withTsig ? newTsigKey('harness-key') : undefined;
    const [primaryPort, bindPort, knotPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const at = (port: number): Server => ({ host: '127.0.0.1', port });
    primary = await startKnotPrimary({
      port: primaryPort,
      secondaries: [at(bindPort), at(knotPort)],
      tsig: key,
      zones: [{ name: 'example.com', text: zoneText('example.com'), signed: true }, { name: 'plain.test', text: zoneText('plain.test') }],
    });
    secondaries = await Promise.all([
      startBindSecondary({ primary: primary.server, port: bindPort, tsig: key }),
      startKnotSecondary({ primary: primary.server, port: knotPort, tsig: key }),
    ]);
    // Through the primary: the zone's own DS as the trust anchor. Through BIND: a chain of trust from a signed
    // parent (`com`, served by another knotd) that holds the zone's DS.
    const ds = (await primary.ds('example.com')).filter((l) => /\sDS\s/.test(l));
    parent = await startKnotPrimary({ zones: [{ name: 'com', text: parentZoneText('com', 'example.com', { ds }), signed: true }], secondaries: [], catalogZone: 'catalog.parent.invalid' });
    const parentDs = (await parent.ds('com')).filter((l) => /\sDS\s/.test(l));
    [viaPrimary, viaBind] = await Promise.all([
      startUnbound({ stubs: { 'example.com': primary.server }, trustAnchors: ds }),
      startUnbound({ stubs: { com: parent.server, 'example.com': secondaries[0]!.server }, trustAnchors: parentDs }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await stopDaemons();
    await cleanup();
  });

  it('the secondaries learn both zones from the catalog and serve exact, valid copies', async () => {
    await Promise.all([converged('example.com', true), converged('plain.test', false)]);
  });

  it('Unbound answers secure (AD) for a record, NXDOMAIN and NODATA, through the primary and through BIND', async () => {
    for (const r of [viaPrimary, viaBind]) {
      const a = await r.resolve('www.example.com', 'A');
      expect(a.rcode, r.log()).toBe('NOERROR');
      expect(a.flag_ad, r.log()).toBe(true);
      expect(rrs(a.answers, 'A').map((x) => (x as { data: unknown }).data)).toEqual(['192.0.2.1']);
      const nx = await r.resolve('nope.example.com', 'A');
      expect([nx.rcode, nx.flag_ad]).toEqual(['NXDOMAIN', true]);
      const nodata = await r.resolve('www.example.com', 'TXT');
      expect([nodata.rcode, nodata.flag_ad, rrs(nodata.answers, 'TXT')]).toEqual(['NOERROR', true, []]);
    }
    // The chain from the parent: its DS for the zone validates.
    const ds = await viaBind.resolve('example.com', 'DS');
    expect([ds.rcode, ds.flag_ad, rrs(ds.answers, 'DS').length > 0], viaBind.log()).toEqual(['NOERROR', true, true]);
  });

  it('single changes reach both secondaries as IXFR, exact and still valid', async () => {
    const before = secondaries.map((s) => s.transfers('example.com'));
    for (let i = 0; i < 5; i++) {
      extra = [...extra, `host${i} A 192.0.2.${100 + i}`];
      await primary.setZone({ name: 'example.com', text: zoneText('example.com', extra), signed: true });
      await converged('example.com', true);
    }
    secondaries.forEach((s, i) => {
      const after = s.transfers('example.com');
      expect(after.ixfr - before[i]!.ixfr, `${s.kind} IXFRs\n${s.log().slice(-3000)}`).toBeGreaterThanOrEqual(5);
      expect(after.axfr, `${s.kind} AXFRs`).toBe(before[i]!.axfr);
    });
    const a = await viaBind.resolve('host4.example.com', 'A');
    expect([a.rcode, a.flag_ad]).toEqual(['NOERROR', true]);
  });

  it('a zone added to the catalog is picked up, a removed one stops being served', async () => {
    await primary.addZone({ name: 'added.test', text: zoneText('added.test') });
    await converged('added.test', false);
    await primary.removeZone('plain.test');
    await Promise.all(secondaries.map(async (s) => {
      const gone = await eventually(() => s.soa('plain.test'), (v) => v === null, 15_000);
      expect(gone, `${s.kind} still serves plain.test\n${s.log().slice(-2000)}`).toBeNull();
    }));
  });

  it.runIf(withTsig)('refuses a transfer without the key, at the primary and at the secondaries', async () => {
    for (const server of [primary.server, ...secondaries.map((s) => s.server)]) {
      const unsigned = await axfr(server, 'example.com');
      expect(unsigned.ok, unsigned.text).toBe(false);
    }
    expect((await axfr(primary.server, 'example.com', key)).ok).toBe(true);
  });
});
