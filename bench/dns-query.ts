/** A small UDP DNS client for the DNS bench: one socket, queries matched to answers by id, no EDNS (the
 * bench asks for single A records, which always fit), so polling every millisecond does not open a socket
 * per query. */
import { createSocket, type Socket } from 'node:dgram';
import dnsPacket, { type DecodedPacket, type RecordType } from 'dns-packet';

/** dns-packet decodes the RCODE but its type declarations leave it out. */
export type DnsAnswer = DecodedPacket & { rcode?: string };

export class DnsProbe {
  private readonly socket: Socket;
  private readonly pending = new Map<number, { resolve: (p: DnsAnswer | null) => void; timer: NodeJS.Timeout }>();
  private nextId = Math.floor(Math.random() * 0x10000);

  constructor(private readonly server: { host: string; port: number }) {
    this.socket = createSocket('udp4');
    this.socket.on('message', (msg) => {
      let p: DnsAnswer;
      try {
        p = dnsPacket.decode(msg) as DnsAnswer;
      } catch {
        return;
      }
      const waiter = p.id === undefined ? undefined : this.pending.get(p.id);
      if (!waiter) return; // a late answer to a query that already timed out
      this.pending.delete(p.id!);
      clearTimeout(waiter.timer);
      waiter.resolve(p);
    });
    this.socket.on('error', () => undefined); // ICMP port unreachable and the like: the query times out
  }

  /** One query; resolves with the answer, or null after `timeoutMs` without one. */
  query(name: string, type: RecordType, timeoutMs = 500): Promise<DnsAnswer | null> {
    let id = this.nextId;
    while (this.pending.has(id)) id = (id + 1) & 0xffff;
    this.nextId = (id + 1) & 0xffff;
    const packet = dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ type, name }] });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(null);
      }, timeoutMs);
      this.pending.set(id, { resolve, timer });
      this.socket.send(packet, this.server.port, this.server.host);
    });
  }

  /** The A addresses answered for `name` (authoritative NOERROR answers only; [] otherwise). */
  async addresses(name: string, timeoutMs = 500): Promise<string[]> {
    const p = await this.query(name, 'A', timeoutMs);
    if (!p || p.rcode !== 'NOERROR' || !p.flag_aa) return [];
    return (p.answers ?? []).flatMap((a) => (a.type === 'A' && a.name.toLowerCase() === name.toLowerCase() ? [a.data] : []));
  }

  close(): void {
    for (const w of this.pending.values()) {
      clearTimeout(w.timer);
      w.resolve(null);
    }
    this.pending.clear();
    this.socket.close();
  }
}
