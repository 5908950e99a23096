/**
 * The nameserver port's contract (providers/nameserver/port.ts), one suite for every implementation: the fake that
 * the reconciler tests drive and the Knot DNS adapter. Whatever the fake answers, Knot must answer too, or a
 * reconciler test passes on behaviour no deployment has (a fake that drifted from knotd once let a zone the
 * nameserver had lost read as converged).
 *
 * Only the port's own answers are checked here (servedSerial, zones, errors); what Knot answers over DNS is
 * knot.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { StaleSerialError, type Nameserver, type ZoneConfig } from '../../../providers/nameserver/port';

/** One implementation under test: a started nameserver with no zones, and how to restart it (its process alone:
 * the files it keeps survive) configured with exactly `zones`. */
export interface NameserverSubject {
  ns: Nameserver;
  restart(zones: ZoneConfig[]): Promise<Nameserver>;
}

const ZONE = 'contract.test';
const OTHER = 'other.test';

const soa = (zone: string, serial: number): string => `@ 300 IN SOA ns1.${zone}. hostmaster.${zone}. ${serial} 3600 600 604800 300`;

function zoneText(zone: string, serial: number, www = '192.0.2.1'): string {
  return [`$ORIGIN ${zone}.`, soa(zone, serial), `@ 300 IN NS ns1.${zone}.`, 'ns1 300 IN A 192.0.2.53', `www 300 IN A ${www}`, ''].join('\n');
}

const unsigned = { dnssec: false };

export function nameserverContract(name: string, make: () => Promise<NameserverSubject>, opts: { skip?: string } = {}): void {
  describe.skipIf(opts.skip !== undefined)(opts.skip ? `nameserver contract: ${name} (skipped: ${opts.skip})` : `nameserver contract: ${name}`, () => {
    it('serves nothing of a zone never applied', async () => {
      const { ns } = await make();
      expect(await ns.servedSerial(ZONE)).toBeNull();
      expect(await ns.zones()).not.toContain(ZONE);
      expect(await ns.ds(ZONE)).toEqual([]);
    });

    it('serves an applied zone at its text\'s serial; the same text again changes nothing', async () => {
      const { ns } = await make();
      await ns.applyZone(ZONE, zoneText(ZONE, 1), unsigned);
      expect(await ns.servedSerial(ZONE)).toBe(1);
      expect(await ns.zones()).toContain(ZONE);
      await ns.applyZone(ZONE, zoneText(ZONE, 1), unsigned);
      expect(await ns.servedSerial(ZONE)).toBe(1);
      expect(await ns.ds(ZONE)).toEqual([]);
    });

    it('refuses a changed text whose serial is not above the served one, naming both, and keeps serving', async () => {
      const { ns } = await make();
      await ns.applyZone(ZONE, zoneText(ZONE, 5), unsigned);
      for (const serial of [5, 4]) {
        const err = await ns.applyZone(ZONE, zoneText(ZONE, serial, '192.0.2.9'), unsigned).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StaleSerialError);
        expect(err).toMatchObject({ zone: ZONE, serial, served: 5 });
      }
      await ns.applyZone(ZONE, zoneText(ZONE, 6, '192.0.2.9'), unsigned);
      expect(await ns.servedSerial(ZONE)).toBe(6);
    });

    it('applies a change at the added SOA\'s serial, and refuses one whose serial is not above the served one', async () => {
      const { ns } = await make();
      if (!ns.applyChanges) return;
      await ns.applyZone(ZONE, zoneText(ZONE, 1), unsigned);
      // Unsigned, the commit's answer is the serial served, as a query then finds.
      await expect(ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(ZONE, 2), `www.${ZONE} 300 A 192.0.2.2`] }, zoneText(ZONE, 2, '192.0.2.2')))
        .resolves.toBe(2);
      expect(await ns.servedSerial(ZONE)).toBe(2);
      const stale = await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(ZONE, 2), `www.${ZONE} 300 A 192.0.2.3`] }, zoneText(ZONE, 2, '192.0.2.3'))
        .catch((e: unknown) => e);
      expect(stale).toBeInstanceOf(StaleSerialError);
      expect(await ns.servedSerial(ZONE)).toBe(2);
    });

    it('takes a change through a transaction opened before it was known; one abandoned changes nothing and holds nothing up', async () => {
      const { ns } = await make();
      if (!ns.openChanges) return;
      await ns.applyZone(ZONE, zoneText(ZONE, 1), unsigned);
      ns.openChanges(ZONE).abandon();
      await ns.applyZone(ZONE, zoneText(ZONE, 2, '192.0.2.2'), unsigned);
      expect(await ns.servedSerial(ZONE)).toBe(2);
      const txn = ns.openChanges(ZONE);
      await expect(txn.apply({ remove: [`www.${ZONE} A`], add: [soa(ZONE, 3), `www.${ZONE} 300 A 192.0.2.3`] }, zoneText(ZONE, 3, '192.0.2.3'))).resolves.toBe(3);
      expect(await ns.servedSerial(ZONE)).toBe(3);
    });

    it('ends a transaction once: an apply after its abandon, or a second apply, is refused, not reported applied', async () => {
      const { ns } = await make();
      if (!ns.openChanges) return;
      await ns.applyZone(ZONE, zoneText(ZONE, 1), unsigned);
      const change = (serial: number): Parameters<NonNullable<typeof ns.applyChanges>> =>
        [ZONE, { remove: [`www.${ZONE} A`], add: [soa(ZONE, serial), `www.${ZONE} 300 A 192.0.2.${serial}`] }, zoneText(ZONE, serial, `192.0.2.${serial}`)];
      const abandoned = ns.openChanges(ZONE);
      abandoned.abandon();
      const [, changes2, text2] = change(2);
      await expect((async () => abandoned.apply(changes2, text2))()).rejects.toThrow();
      expect(await ns.servedSerial(ZONE)).toBe(1);
      const txn = ns.openChanges(ZONE);
      await txn.apply(changes2, text2);
      const [, changes3, text3] = change(3);
      await expect((async () => txn.apply(changes3, text3))()).rejects.toThrow();
      expect(await ns.servedSerial(ZONE)).toBe(2);
    });

    it('writes a deferred zone file only for the text it serves', async () => {
      const { ns } = await make();
      if (!ns.applyChanges || !ns.saveZoneFile) return;
      await ns.applyZone(ZONE, zoneText(ZONE, 1), unsigned);
      await ns.applyChanges(ZONE, { remove: [`www.${ZONE} A`], add: [soa(ZONE, 2), `www.${ZONE} 300 A 192.0.2.2`] }, null);
      expect(await ns.saveZoneFile(ZONE, zoneText(ZONE, 1))).toBe(false);
      expect(await ns.saveZoneFile(ZONE, zoneText(ZONE, 3, '192.0.2.2'))).toBe(false);
      expect(await ns.saveZoneFile(ZONE, zoneText(ZONE, 2, '192.0.2.2'))).toBe(true);
    });

    it('removes a zone and forgets it: removing again is fine, and the zone starts anew from any serial', async () => {
      const { ns } = await make();
      await ns.applyZone(ZONE, zoneText(ZONE, 7), unsigned);
      await ns.applyZone(OTHER, zoneText(OTHER, 1), unsigned);
      await ns.removeZone(ZONE);
      expect(await ns.servedSerial(ZONE)).toBeNull();
      expect(await ns.zones()).not.toContain(ZONE);
      expect(await ns.servedSerial(OTHER)).toBe(1);
      await ns.removeZone(ZONE);
      await ns.applyZone(ZONE, zoneText(ZONE, 1), unsigned);
      expect(await ns.servedSerial(ZONE)).toBe(1);
    });

    it('after a restart serves what it kept: applied zones at their serials, a configured zone it never had not at all', async () => {
      const { ns, restart } = await make();
      await ns.applyZone(ZONE, zoneText(ZONE, 3), unsigned);
      await ns.applyZone(OTHER, zoneText(OTHER, 4), unsigned);
      const again = await restart([{ name: OTHER, dnssec: false }, { name: 'never.test', dnssec: false }]);
      expect(await again.servedSerial(OTHER)).toBe(4);
      expect(await again.servedSerial('never.test')).toBeNull();
      // Left out of the configuration, it is still held: zones() lists it for the reconciler to remove.
      expect(await again.zones()).toContain(ZONE);
    });
  });
}
