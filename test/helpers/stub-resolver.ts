/**
 * A recursive resolver stand-in on loopback for tests: it answers what it was told (NS, DS, TXT, CNAME, ...) and
 * NXDOMAIN for every other name, so no test asks the machine's resolver. `serve` started by startHostplane gets
 * one by default (`--resolver`). It answers over UDP and, on the same port, over TCP (what a client does after a
 * truncated UDP answer, which `truncate` makes it send).
 */
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import dnsPacket, { type Answer } from 'dns-packet';

export interface StubResolver {
  address: string;
  /** Sets (or with [] removes) the answer for `name` and `type`. */
  set(name: string, type: string, answers: Answer[]): void;
  /** Makes every query for `name` fail with SERVFAIL (a parent that cannot be reached). */
  fail(name: string, failing: boolean): void;
  /** Makes UDP answers for `name` come back truncated (TC, no records): the full answer is over TCP only. */
  truncate(name: string, on: boolean): void;
  /** Queries seen, as `name TYPE`; over TCP as `name TYPE tcp`. */
  queries: string[];
  /** Lets the test process exit while it runs. */
  unref(): void;
  close(): Promise<void>;
}

const key = (name: string, type: string): string => `${name.toLowerCase().replace(/\.$/, '')} ${type}`;

export async function startStubResolver(): Promise<StubResolver> {
  const answers = new Map<string, Answer[]>();
  const failing = new Set<string>();
  const truncating = new Set<string>();
  const queries: string[] = [];
  /** The reply to a query, or undefined when it is none; `udp` answers of truncated names carry TC and nothing. */
  const reply = (msg: Buffer, transport: 'udp' | 'tcp'): Buffer | undefined => {
    let q: dnsPacket.DecodedPacket;
    try {
      q = dnsPacket.decode(msg);
    } catch {
      return undefined;
    }
    const question = q.questions?.[0];
    if (!question) return undefined;
    queries.push(key(question.name, question.type) + (transport === 'tcp' ? ' tcp' : ''));
    const name = question.name.toLowerCase().replace(/\.$/, '');
    const found = answers.get(key(name, question.type)) ?? [];
    const known = [...answers.keys()].some((k) => k.startsWith(`${name} `));
    // The RCODE is the low four bits of the flags: 0 NOERROR, 2 SERVFAIL, 3 NXDOMAIN.
    const rcode = failing.has(name) ? 2 : found.length > 0 || known ? 0 : 3;
    const truncated = transport === 'udp' && truncating.has(name);
    const flags = dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode | (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0);
    return dnsPacket.encode({ type: 'response', id: q.id, flags, questions: q.questions, answers: rcode === 0 && !truncated ? found : [] });
  };
  let socket: Socket;
  let tcp: Server;
  const connections = new Set<TcpSocket>();
  // UDP and TCP on one port, as resolvers listen: bind UDP anywhere, then TCP there, again while that is taken.
  for (let attempt = 0; ; attempt++) {
    socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const port = socket.address().port;
    tcp = createServer((c) => {
      connections.add(c);
      c.on('close', () => connections.delete(c));
      c.on('error', () => c.destroy());
      let buffered = Buffer.alloc(0);
      c.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
          const size = buffered.readUInt16BE(0);
          const r = reply(buffered.subarray(2, 2 + size), 'tcp');
          buffered = buffered.subarray(2 + size);
          if (!r) continue;
          const length = Buffer.alloc(2);
          length.writeUInt16BE(r.length);
          c.write(Buffer.concat([length, r]));
        }
      });
    });
    const listening = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) break;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    if (attempt >= 20) throw new Error('no port free for both UDP and TCP');
  }
  socket.on('message', (msg, from) => {
    const r = reply(msg, 'udp');
    if (r) socket.send(r, from.port, from.address);
  });
  return {
    address: `127.0.0.1:${socket.address().port}`,
    set(name, type, list) {
      if (list.length === 0) answers.delete(key(name, type));
      else answers.set(key(name, type), list);
    },
    fail(name, on) {
      const n = name.toLowerCase().replace(/\.$/, '');
      if (on) failing.add(n);
      else failing.delete(n);
    },
    truncate(name, on) {
      const n = name.toLowerCase().replace(/\.$/, '');
      if (on) truncating.add(n);
      else truncating.delete(n);
    },
    queries,
    unref: () => {
      socket.unref();
      tcp.unref();
    },
    close: async () => {
      for (const c of connections) c.destroy();
      await Promise.all([
        new Promise<void>((resolve) => socket.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}
