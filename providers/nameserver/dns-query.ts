/** A minimal UDP DNS client for asking our own nameserver what it serves. */
import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import dnsPacket, { type DecodedPacket, type RecordType } from 'dns-packet';

/** dns-packet decodes the RCODE but its type declarations leave it out. */
export type DnsResponse = DecodedPacket & { rcode: string };

/** Sends one query over UDP with EDNS (an SOA answer for a long zone name does not fit 512 bytes) and
 * resolves with the response; rejects after `timeoutMs`. `recursive` asks a resolver to recurse (RD). */
export function udpQuery(
  server: { host: string; port: number }, name: string, type: RecordType, timeoutMs: number, opts: { recursive?: boolean } = {},
): Promise<DnsResponse> {
  const id = Math.floor(Math.random() * 0x10000);
  const query = dnsPacket.encode({
    type: 'query', id, flags: opts.recursive ? dnsPacket.RECURSION_DESIRED : 0, questions: [{ type, name }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }],
  });
  const socket = createSocket(isIPv6(server.host) ? 'udp6' : 'udp4');
  return new Promise<DnsResponse>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no DNS answer from ${server.host}:${server.port} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('message', (msg) => {
      let response: DnsResponse;
      try {
        response = dnsPacket.decode(msg) as DnsResponse;
      } catch {
        return;
      }
      if (response.id !== id) return;
      clearTimeout(timer);
      socket.close();
      resolve(response);
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      socket.close();
      reject(err);
    });
    socket.send(query, server.port, server.host);
  });
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
