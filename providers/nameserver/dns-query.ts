/** A minimal DNS client for asking our own nameserver what it serves; the UDP query is dns-transport.ts's. */
import type { RecordType } from 'dns-packet';
import { udpAsk, type DnsResponse, type DnsServer } from './dns-transport';

export type { DnsResponse } from './dns-transport';

/** Sends one query over UDP with EDNS of 4096 bytes (an SOA answer for a long zone name does not fit 512 bytes)
 * and resolves with the response; rejects after `timeoutMs`. */
export function udpQuery(server: DnsServer, name: string, type: RecordType, timeoutMs: number): Promise<DnsResponse> {
  return udpAsk(server, name, type, timeoutMs, { udpPayloadSize: 4096 });
}

/** The SOA serial `server` answers authoritatively for the zone `fqdn`; null when it does not serve it
 * (REFUSED, or an answer from another zone). */
export async function soaSerialServed(server: { host: string; port: number }, fqdn: string, timeoutMs = 1000): Promise<number | null> {
  const response = await udpQuery(server, fqdn, 'SOA', timeoutMs);
  if (response.flag_tc) throw new Error(`the SOA answer for ${fqdn} was truncated`);
  if (response.rcode !== 'NOERROR' || !response.flag_aa) return null;
  const want = fqdn.toLowerCase().replace(/\.$/, '');
  for (const answer of response.answers ?? []) {
    if (answer.type === 'SOA' && answer.name.toLowerCase() === want) return answer.data.serial ?? null;
  }
  return null;
}
