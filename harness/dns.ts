/** A DNS client for tests: what a resolver or a secondary would see from our nameserver. */
import { createSocket } from 'node:dgram';
import { connect, isIPv6 } from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type Packet, type RecordType } from 'dns-packet';

/** dns-packet decodes the RCODE but its type declarations leave it out; `messageBytes` is the length of the
 * message as it came (without TCP's length prefix). */
export type DnsResponse = DecodedPacket & { rcode: string; messageBytes: number };

export interface Server {
  host: string;
  port: number;
}

export interface QueryOptions {
  /** Sets the DO bit, asking for RRSIGs. */
  dnssecOk?: boolean;
  /** Skips UDP. */
  tcp?: boolean;
  /** Sends no OPT record (default: EDNS0 with a 4096-byte payload size), as the plainest client asks. */
  noEdns?: boolean;
  /** Per transport attempt; default 2000. */
  timeoutMs?: number;
}

function withTimeout<T>(ms: number, what: string, start: (settle: (err: Error | null, value?: T) => void) => () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let cleanup: () => void = () => undefined;
    const timer = setTimeout(() => settle(new Error(`${what}: no answer within ${ms} ms`)), ms);
    function settle(err: Error | null, value?: T): void {
      clearTimeout(timer);
      cleanup();
      if (err) reject(err);
      else resolve(value as T);
    }
    cleanup = start(settle);
  });
}

function decode(message: Buffer): DnsResponse {
  return Object.assign(dnsPacket.decode(message) as DnsResponse, { messageBytes: message.length });
}

function overUdp(server: Server, packet: Packet, timeoutMs: number): Promise<DnsResponse> {
  return withTimeout(timeoutMs, `UDP ${server.host}:${server.port}`, (settle) => {
    const socket = createSocket(isIPv6(server.host) ? 'udp6' : 'udp4');
    socket.on('error', (err) => settle(err));
    socket.on('message', (msg) => {
      const response = decode(msg);
      if (response.id === packet.id) settle(null, response);
    });
    socket.send(dnsPacket.encode(packet), server.port, server.host);
    return () => socket.close();
  });
}

function overTcp(server: Server, packet: Packet, timeoutMs: number): Promise<DnsResponse> {
  return withTimeout(timeoutMs, `TCP ${server.host}:${server.port}`, (settle) => {
    const socket = connect(server.port, server.host);
    let received = Buffer.alloc(0);
    socket.on('error', (err) => settle(err));
    socket.on('connect', () => socket.write(dnsPacket.streamEncode(packet)));
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length < 2) return;
      const length = received.readUInt16BE(0);
      if (received.length >= 2 + length) settle(null, decode(received.subarray(2, 2 + length)));
    });
    return () => socket.destroy();
  });
}

/** What dns-packet 5 has no name for (RFC 9460 SVCB and HTTPS) it asks and answers as `UNKNOWN_<code>`, with
 * the RDATA as a Buffer. */
const UNNAMED: Partial<Record<QueryType, RecordType>> = { SVCB: 'UNKNOWN_64' as RecordType, HTTPS: 'UNKNOWN_65' as RecordType };
export type QueryType = RecordType | 'SVCB' | 'HTTPS';

/**
 * Asks `server` one question (no recursion) and returns the decoded response. Over UDP it sends EDNS0 with
 * a 4096-byte payload size (unless `noEdns`), and asks again over TCP when the answer comes back truncated.
 */
export async function query(server: Server, name: string, type: QueryType, opts: QueryOptions = {}): Promise<DnsResponse> {
  const packet: Packet = {
    type: 'query',
    id: Math.floor(Math.random() * 0x10000),
    questions: [{ type: UNNAMED[type] ?? (type as RecordType), name }],
    additionals: opts.noEdns ? [] : [
      {
        type: 'OPT',
        name: '.',
        udpPayloadSize: 4096,
        extendedRcode: 0,
        ednsVersion: 0,
        flags: opts.dnssecOk ? dnsPacket.DNSSEC_OK : 0,
        flag_do: opts.dnssecOk ?? false,
        options: [],
      },
    ],
  };
  const timeoutMs = opts.timeoutMs ?? 2000;
  if (!opts.tcp) {
    const response = await overUdp(server, packet, timeoutMs);
    if (!response.flag_tc) return response;
  }
  return overTcp(server, packet, timeoutMs);
}

/** The character-strings of a TXT answer joined into one value, as a TXT-reading verifier sees it. */
export function txtValue(answer: Answer): Buffer {
  if (answer.type !== 'TXT') throw new Error(`expected a TXT answer, got ${answer.type}`);
  const strings = Array.isArray(answer.data) ? answer.data : [answer.data];
  return Buffer.concat(strings.map((s) => (typeof s === 'string' ? Buffer.from(s) : s)));
}
