import { parseRecordLine, soaSerial } from '../../providers/nameserver/zone-text';
import { serialGreater } from '../../zonefiles';
import { StaleSerialError, ZoneFileNotWrittenError, type ChangeTransaction, type CommittedSerial, type DnssecKey, type DsRecord, type Nameserver, type NameserverHealth, type SecondarySerial, type ZoneChanges } from '../../providers/nameserver/port';

export type Action =
  | { op: 'applyZone'; zone: string; dnssec: boolean; deleteDs?: true; asServed?: true }
  | { op: 'confirmDs' | 'notifySecondaries'; zone: string }
  | { op: 'applyChanges'; zone: string; remove: string[]; add: string[]; file?: false }
  | { op: 'saveZoneFile'; zone: string; serial: number }
  | { op: 'removeZone'; zone: string };

/** The rrsets (`name. TYPE`, absolute) a rendered zone text holds: a line's owner and the type after its class. */
function rrsetKeysOf(zone: string, text: string): Set<string> {
  const keys = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '' || /^[\s$;]/.test(line)) continue;
    const fields = line.split(/\s+/);
    const owner = fields[0]!;
    const type = fields[fields.indexOf('IN') + 1];
    const name = owner === '@' ? zone : owner.endsWith('.') ? owner.slice(0, -1) : `${owner}.${zone}`;
    if (type) keys.add(`${name}. ${type}`);
  }
  return keys;
}

/** Why a zone file could not be written (fileWriteFails). */
const DISK_FULL = new Error('ENOSPC: no space left on device');

/** A nameserver that records what it was asked to do (sample-controller style) and serves from memory. Like knotd,
 * it refuses an incremental change that removes an rrset it does not serve. */
export class FakeNameserver implements Nameserver {
  actions: Action[] = [];
  /** Zones an incremental change was sent for, in order, whether or not it committed (actions has those that did). */
  sent: string[] = [];
  served = new Map<string, { text: string; serial: number; dnssec: boolean; deleteDs: boolean }>();
  /** The rrsets each zone serves (`name. TYPE`), as knotd holds them whatever the file says. */
  private readonly rrsets = new Map<string, Set<string>>();
  /** What each secondary serves, by zone; a secondary missing from a zone's map serves nothing of it. */
  secondaries: string[] = [];
  secondaryServes = new Map<string, Map<string, number>>();
  /** When set, applyZone fails with this message (a nameserver that is down or rejects the zone). */
  failWith: string | null = null;
  /** Extra serial a signer adds on top of the zone text's serial. */
  signerBump = 0;
  dsRecords: DsRecord[] = [{ keyTag: 1234, algorithm: 13, digestType: 2, digest: 'AB'.repeat(32) }];
  /** The signer's keys of each signed zone. */
  keys: DnssecKey[] = [{ keyId: 'k1', attrs: { ksk: true, zsk: false, active: 1 }, pem: 'PEM of k1' }, { keyId: 'z1', attrs: { ksk: false, zsk: true, active: 1 }, pem: 'PEM of z1' }];
  private readonly state: NameserverHealth = { running: true, lastError: null, pid: 1, restarts: 0 };
  /** When set, applyChanges commits a change given with its text but cannot write that text (a full disk),
   * applyZone `asServed` cannot write the text it serves, and saveZoneFile fails as Knot's write of the file does. */
  fileWriteFails = false;
  /** When set, the server process is down: health() says so, and servedSerial throws, as Knot's adapter does. */
  down = false;

  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  async applyZone(name: string, zoneText: string, opts: { dnssec: boolean; deleteDs?: boolean; asServed?: boolean }): Promise<void> {
    if (this.failWith) throw new Error(this.failWith);
    const serial = soaSerial(zoneText);
    const cur = this.served.get(name);
    const deleteDs = opts.dnssec && !!opts.deleteDs;
    if (cur && cur.text === zoneText && cur.dnssec === opts.dnssec && cur.deleteDs === deleteDs) return;
    // As Knot's adapter: a text served at this serial, its file lagging, only has its file written.
    if (cur && opts.asServed && !opts.dnssec && !cur.dnssec && cur.serial === serial) {
      this.actions.push({ op: 'applyZone', zone: name, dnssec: false, asServed: true });
      if (this.fileWriteFails) throw new ZoneFileNotWrittenError(name, serial, DISK_FULL);
      this.served.set(name, { ...cur, text: zoneText });
      return;
    }
    if (cur && !serialGreater(serial, cur.serial) && !(opts.dnssec && serial === cur.serial - this.signerBump)) {
      throw new StaleSerialError(name, serial, cur.serial);
    }
    this.actions.push({ op: 'applyZone', zone: name, dnssec: opts.dnssec, ...(deleteDs && { deleteDs: true as const }) });
    this.served.set(name, { text: zoneText, serial: serial + (opts.dnssec ? this.signerBump : 0), dnssec: opts.dnssec, deleteDs });
    this.rrsets.set(name, rrsetKeysOf(name, zoneText));
  }
  /** Transactions opened (openChanges) and not yet applied or abandoned: the zone's other operations would wait. */
  openTransactions = 0;
  openChanges(name: string): ChangeTransaction {
    this.openTransactions++;
    let ended = false;
    const end = (): void => {
      if (ended) throw new Error(`the transaction of ${name} was ended twice`);
      ended = true;
      this.openTransactions--;
    };
    return {
      apply: (changes, zoneText, opts) => {
        end();
        return this.applyChanges(name, changes, zoneText, opts);
      },
      abandon: end,
    };
  }
  /** `served.text` is the zone file: with no text given it stays as it was until saveZoneFile. */
  async applyChanges(name: string, changes: ZoneChanges, zoneText: string | null, opts: { notBefore?: Promise<void> } = {}): Promise<CommittedSerial> {
    if (this.failWith) throw new Error(this.failWith);
    this.sent.push(name);
    await opts.notBefore;
    const cur = this.served.get(name);
    const soa = changes.add.find((l) => / SOA /.test(l));
    const serial = zoneText === null ? Number(soa?.split(/\s+/)[6]) : soaSerial(zoneText);
    if (!cur) throw new Error(`zone ${name} is not served`);
    if (!serialGreater(serial, cur.serial)) throw new StaleSerialError(name, serial, cur.serial);
    const held = this.rrsets.get(name)!;
    const keyOf = (line: string): string => {
      const r = parseRecordLine(`${name}.`, line);
      return `${r.owner} ${r.type}`;
    };
    const absent = changes.remove.find((line) => !held.has(keyOf(line)));
    if (absent) throw new Error(`(not exists) ${absent}`);
    for (const line of changes.remove) held.delete(keyOf(line));
    for (const line of changes.add) held.add(keyOf(line));
    this.actions.push({ op: 'applyChanges', zone: name, remove: [...changes.remove].sort(), add: [...changes.add].sort(), ...(zoneText === null && { file: false as const }) });
    const committed = cur.dnssec ? null : serial;
    if (zoneText !== null && this.fileWriteFails) {
      this.served.set(name, { ...cur, serial });
      throw new ZoneFileNotWrittenError(name, committed, DISK_FULL);
    }
    this.served.set(name, { ...cur, text: zoneText ?? cur.text, serial });
    return committed;
  }
  async saveZoneFile(name: string, zoneText: string): Promise<boolean> {
    const cur = this.served.get(name);
    const serial = soaSerial(zoneText);
    if (!cur || cur.serial - (cur.dnssec ? this.signerBump : 0) !== serial) return false;
    if (this.fileWriteFails) throw DISK_FULL;
    this.actions.push({ op: 'saveZoneFile', zone: name, serial });
    this.served.set(name, { ...cur, text: zoneText });
    return true;
  }
  async removeZone(name: string): Promise<void> {
    this.actions.push({ op: 'removeZone', zone: name });
    this.served.delete(name);
    this.rrsets.delete(name);
  }
  async zones(): Promise<string[]> {
    return [...this.served.keys()];
  }
  /** How many times servedSerial was asked, by zone. */
  servedSerialAsked = new Map<string, number>();
  async servedSerial(name: string): Promise<number | null> {
    this.servedSerialAsked.set(name, (this.servedSerialAsked.get(name) ?? 0) + 1);
    if (this.down) throw new Error('knotd is not running');
    return this.served.get(name)?.serial ?? null;
  }
  async ds(name: string): Promise<DsRecord[]> {
    return this.served.get(name)?.dnssec ? this.dsRecords : [];
  }
  async dnssecKeys(name: string): Promise<DnssecKey[]> {
    return this.served.get(name)?.dnssec ? this.keys : [];
  }
  async confirmDs(name: string): Promise<void> {
    this.actions.push({ op: 'confirmDs', zone: name });
  }
  async secondarySerials(name: string): Promise<SecondarySerial[]> {
    return this.secondaries.map((address) => ({ address, serial: this.secondaryServes.get(address)?.get(name) ?? null }));
  }
  async notifySecondaries(name: string): Promise<void> {
    this.actions.push({ op: 'notifySecondaries', zone: name });
  }
  health(): NameserverHealth {
    return { ...this.state, running: !this.down };
  }
}
