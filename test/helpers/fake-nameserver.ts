import { soaSerial } from '../../providers/nameserver/zone-text';
import { serialGreater } from '../../zonefiles';
import { StaleSerialError, type DsRecord, type Nameserver, type NameserverHealth, type ZoneChanges } from '../../providers/nameserver/port';

export type Action =
  | { op: 'applyZone'; zone: string; dnssec: boolean }
  | { op: 'applyChanges'; zone: string; remove: string[]; add: string[] }
  | { op: 'removeZone'; zone: string };

/** A nameserver that records what it was asked to do (sample-controller style) and serves from memory. */
export class FakeNameserver implements Nameserver {
  actions: Action[] = [];
  served = new Map<string, { text: string; serial: number; dnssec: boolean }>();
  /** When set, applyZone fails with this message (a nameserver that is down or rejects the zone). */
  failWith: string | null = null;
  /** Extra serial a signer adds on top of the zone text's serial. */
  signerBump = 0;
  dsRecords: DsRecord[] = [{ keyTag: 1234, algorithm: 13, digestType: 2, digest: 'AB'.repeat(32) }];
  private readonly state: NameserverHealth = { running: true, lastError: null, pid: 1, restarts: 0 };

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  async applyZone(name: string, zoneText: string, opts: { dnssec: boolean }): Promise<void> {
    if (this.failWith) throw new Error(this.failWith);
    const serial = soaSerial(zoneText);
    const cur = this.served.get(name);
    if (cur && cur.text === zoneText && cur.dnssec === opts.dnssec) return;
    if (cur && !serialGreater(serial, cur.serial) && !(opts.dnssec && serial === cur.serial - this.signerBump)) {
      throw new StaleSerialError(name, serial, cur.serial);
    }
    this.actions.push({ op: 'applyZone', zone: name, dnssec: opts.dnssec });
    this.served.set(name, { text: zoneText, serial: serial + (opts.dnssec ? this.signerBump : 0), dnssec: opts.dnssec });
  }
  async applyChanges(name: string, changes: ZoneChanges, zoneText: string): Promise<void> {
    if (this.failWith) throw new Error(this.failWith);
    const cur = this.served.get(name);
    const serial = soaSerial(zoneText);
    if (!cur) throw new Error(`zone ${name} is not served`);
    if (!serialGreater(serial, cur.serial)) throw new StaleSerialError(name, serial, cur.serial);
    this.actions.push({ op: 'applyChanges', zone: name, remove: [...changes.remove].sort(), add: [...changes.add].sort() });
    this.served.set(name, { text: zoneText, serial, dnssec: cur.dnssec });
  }
  async removeZone(name: string): Promise<void> {
    this.actions.push({ op: 'removeZone', zone: name });
    this.served.delete(name);
  }
  async zones(): Promise<string[]> {
    return [...this.served.keys()];
  }
  async servedSerial(name: string): Promise<number | null> {
    return this.served.get(name)?.serial ?? null;
  }
  async ds(name: string): Promise<DsRecord[]> {
    return this.served.get(name)?.dnssec ? this.dsRecords : [];
  }
  health(): NameserverHealth {
    return this.state;
  }
}
