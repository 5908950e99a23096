/**
 * One DNS question to one server the way a stub resolver asks it (RFC 1035 4.2, RFC 7766): over UDP with EDNS,
 * and again over TCP when the UDP answer comes back truncated (TC), since a TXT rrset of many records, or a long
 * CNAME chain, does not fit a datagram. Both have one deadline for the whole question; failures are typed, so
 * that callers can say in words what happened (a server that does not answer is not a name that does not exist).
 */
import { createSocket } from 'node:dgram';
import { connect, isIPv6 } from 'node:net';
import dnsPacket, { type DecodedPacket, type RecordType } from 'dns-packet';

/** dns-packet decodes the RCODE but its type declarations leave it out. */
export type DnsResponse = DecodedPacket & { rcode: string };

export interface DnsServer { host: string; port: number }

/** The server gave no (complete) answer within the deadline. */
export class DnsTimeoutError extends Error {
  override name = 'DnsTimeoutError';
  constructor(readonly server: DnsServer, readonly timeoutMs: number, readonly transport: 'udp' | 'tcp') {
    super(`no DNS answer from ${server.host}:${server.port} over ${transport.toUpperCase()} within ${timeoutMs} ms`);
  }
}

/** The server could not be reached at all (a refused TCP connection, a network error). */
export class DnsTransportError extends Error {
  override name = 'DnsTransportError';
  constructor(readonly server: DnsServer, readonly transport: 'udp' | 'tcp', cause: Error) {
    super(`DNS ${transport.toUpperCase()} to ${server.host}:${server.port} failed: ${cause.message}`, { cause });
  }
}

export interface QueryOptions {
  /** Ask the server to recurse (RD): for recursive resolvers. */
  recursive?: boolean;
  /** The UDP payload size advertised with EDNS; 1232 is the DNS Flag Day 2020 size that avoids fragmentation. */
  udpPayloadSize?: number;
}

function encodeQuery(id: number, name: string, type: RecordType, o: QueryOptions): Buffer {
  return dnsPacket.encode({
    type: 'query', id, flags: o.recursive ? dnsPacket.RECURSION_DESIRED : 0, questions: [{ type, name }],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: o.udpPayloadSize ?? 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }],
  });
}

/** A name as compared: lower case, no final dot. */
/** A name as compared: lower case, without its trailing dot. */
export const bare = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/** One question over UDP; rejects with DnsTimeoutError after `timeoutMs`. */
export function udpAsk(server: DnsServer, name: string, type: RecordType, timeoutMs: number, o: QueryOptions = {}): Promise<DnsResponse> {
  const id = Math.floor(Math.random() * 0x10000);
  const socket = createSocket(isIPv6(server.host) ? 'udp6' : 'udp4');
  return new Promise<DnsResponse>((resolve, reject) => {
    const done = (f: () => void): void => {
      clearTimeout(timer);
      socket.close();
      f();
    };
    const timer = setTimeout(() => done(() => reject(new DnsTimeoutError(server, timeoutMs, 'udp'))), timeoutMs);
    socket.on('message', (msg) => {
      let response: DnsResponse;
      try {
        response = dnsPacket.decode(msg) as DnsResponse;
      } catch {
        return;
      }
      // Another question's answer (or a spoofed one) is no answer to this one. dns-packet decodes names without
      // their final dot (the root `.` as `.`).
      if (response.id !== id || bare(response.questions?.[0]?.name ?? '') !== bare(name)) return;
      done(() => resolve(response));
    });
    socket.on('error', (err) => done(() => reject(new DnsTransportError(server, 'udp', err))));
    socket.send(encodeQuery(id, name, type, o), server.port, server.host);
  });
}

/** One question over TCP (two-byte length prefix, RFC 1035 4.2.2); rejects with DnsTimeoutError after `timeoutMs`. */
export function tcpAsk(server: DnsServer, name: string, type: RecordType, timeoutMs: number, o: QueryOptions = {}): Promise<DnsResponse> {
  const id = Math.floor(Math.random() * 0x10000);
  const query = encodeQuery(id, name, type, o);
  return new Promise<DnsResponse>((resolve, reject) => {
    const socket = connect({ host: server.host, port: server.port });
    let buffered = Buffer.alloc(0);
    let settled = false;
    const done = (f: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      f();
    };
    const timer = setTimeout(() => done(() => reject(new DnsTimeoutError(server, timeoutMs, 'tcp'))), timeoutMs);
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.length);
      socket.write(Buffer.concat([length, query]));
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const size = buffered.readUInt16BE(0);
        if (buffered.length < 2 + size) return;
        const message = buffered.subarray(2, 2 + size);
        buffered = buffered.subarray(2 + size);
        let response: DnsResponse;
        try {
          response = dnsPacket.decode(message) as DnsResponse;
        } catch {
          continue;
        }
        if (response.id === id) return done(() => resolve(response));
      }
    });
    socket.on('error', (err) => done(() => reject(new DnsTransportError(server, 'tcp', err))));
    socket.on('close', () => done(() => reject(new DnsTransportError(server, 'tcp', new Error('the connection closed before an answer')))));
  });
}

/**
 * Asks over UDP, and over TCP when the answer is truncated; `timeoutMs` bounds the whole question, both
 * transports together, so a caller's wait is never longer than it asked for.
 */
export async function dnsAsk(server: DnsServer, name: string, type: RecordType, timeoutMs: number, o: QueryOptions = {}): Promise<DnsResponse & { transport: 'udp' | 'tcp' }> {
  const started = Date.now();
  const response = await udpAsk(server, name, type, timeoutMs, o);
  if (!response.flag_tc) return Object.assign(response, { transport: 'udp' as const });
  const left = timeoutMs - (Date.now() - started);
  if (left <= 0) throw new DnsTimeoutError(server, timeoutMs, 'tcp');
  return Object.assign(await tcpAsk(server, name, type, left, o), { transport: 'tcp' as const });
}
