/** The bits of zone-file presentation format the nameserver adapter reads itself. Pure functions. */
import type { DsRecord } from './port';

// Owner, then any TTLs / class, then SOA: a TXT that merely contains "SOA" never matches.
const SOA_RECORD = /^\S*(?:[ \t]+(?:\d+[smhdw]?|IN))*[ \t]+SOA[ \t]+\S+[ \t]+\S+[ \t]+\(?\s*(\d+)\b/im;

/** The serial of the zone text's SOA record (the first one; a zone has one). Reads only up to the SOA, so it
 * costs nothing on a large zone whose SOA comes first, as rendered zones have it. */
export function soaSerial(zoneText: string): number {
  const m = SOA_RECORD.exec(zoneText);
  const serial = Number(m?.[1]);
  if (!m || !Number.isSafeInteger(serial) || serial > 0xffff_ffff) throw new Error('zone text has no SOA record with a serial');
  return serial;
}

/** RFC 1982 serial arithmetic: true when `a` is newer than `b`; the store raises serials by the same rule. */
export { serialGreater as serialAbove } from '../../zonefiles/serial';

/** One resource record line as `ZoneChanges` carries it. */
export interface RecordLine {
  /** Absolute, with the trailing dot. */
  owner: string;
  ttl: number | null;
  /** Upper case. */
  type: string;
  /** Presentation format as written (quotes and escapes kept); '' when absent. */
  rdata: string;
}

const RECORD_LINE = /^(\S+)(?:[ \t]+(\d+))?(?:[ \t]+IN)?(?:[ \t]+(\d+))?[ \t]+([A-Za-z][A-Za-z0-9]*)(?:[ \t]+(\S.*))?$/;

/** Parses `owner [ttl] [IN] type [rdata]` on one line; `@` and owners without a trailing dot are taken as
 * absolute names (`@` is the zone apex). */
export function parseRecordLine(zoneFqdn: string, line: string): RecordLine {
  const m = RECORD_LINE.exec(line.trim());
  if (!m || line.includes('\n')) throw new Error(`not a resource record line: ${JSON.stringify(line)}`);
  const owner = m[1] === '@' ? zoneFqdn : m[1]!.endsWith('.') ? m[1]! : `${m[1]}.`;
  const ttl = m[2] ?? m[3];
  return { owner, ttl: ttl === undefined ? null : Number(ttl), type: m[4]!.toUpperCase(), rdata: m[5]?.trimEnd() ?? '' };
}

const DS_RECORD = /^\S+\s+(?:\d+\s+)?(?:IN\s+)?DS\s+(\d+)\s+(\d+)\s+(\d+)\s+([0-9A-Fa-f]+)\s*$/;

/** DS records in presentation format, one a line (as `keymgr <zone> ds` prints them); other lines are skipped. */
export function parseDsRecords(text: string): DsRecord[] {
  const records: DsRecord[] = [];
  for (const line of text.split('\n')) {
    const m = DS_RECORD.exec(line.trim());
    if (m) records.push({ keyTag: Number(m[1]), algorithm: Number(m[2]), digestType: Number(m[3]), digest: m[4]!.toUpperCase() });
  }
  return records;
}
