/**
 * Hardening of a node:http Server against clients that hold connections without asking anything (slowloris,
 * slow bodies, connection floods), and JSON answers for the errors Node raises before a request exists.
 *
 * Timeouts are Node's own `headersTimeout` and `requestTimeout`: measured (Node 20), they run from the start of
 * a message until its body has been received, so a request being answered (a 30-second long-poll) is never cut
 * by them; idle keep-alive connections are bounded by `keepAliveTimeout` instead.
 *
 * Caps are counted here, per accepted connection, so that the process keeps descriptors for its store, zone
 * files, the Knot control socket and child pipes however many clients connect.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Server as TlsServer } from 'node:tls';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';

export interface ConnectionLimits {
  /** Open connections of the server. */
  maxConnections: number;
  /** Open connections from one address (IPv6: one /64). */
  maxConnectionsPerAddress: number;
  /** Connections from one address with no request being answered: waiting for headers or a body, or idle
   * keep-alive. */
  maxWaitingConnectionsPerAddress: number;
}

export interface HardeningOptions extends ConnectionLimits {
  /** From the first byte of a message (or the connection) until its headers are complete. */
  headersTimeoutMs: number;
  /** From the first byte of a message until its body has been received; answering it is not limited. */
  requestTimeoutMs: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** Used when /proc/self/limits cannot be read: the usual soft limit, so the caps err on the small side. */
const FALLBACK_DESCRIPTOR_LIMIT = 1024;
/** "unlimited" is not a real RLIMIT_NOFILE (the kernel caps it at fs.nr_open, 1,048,576 by default). */
const UNLIMITED_DESCRIPTORS = 1_048_576;

/** The soft "Max open files" of /proc/self/limits text, or null when it has none. */
export function parseDescriptorLimit(limits: string): number | null {
  const m = /^Max open files\s+(\S+)/m.exec(limits);
  if (!m) return null;
  if (m[1] === 'unlimited') return UNLIMITED_DESCRIPTORS;
  const n = Number(m[1]);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** This process's descriptor limit (Node raised the soft limit to the hard one at start). */
export function descriptorLimit(): number {
  try {
    return parseDescriptorLimit(readFileSync('/proc/self/limits', 'utf8')) ?? FALLBACK_DESCRIPTOR_LIMIT;
  } catch {
    return FALLBACK_DESCRIPTOR_LIMIT;
  }
}

/**
 * Descriptors kept out of the connection caps. Measured, `serve` with Knot DNS holds 31 at rest (stdio, libuv's
 * epoll and eventfds, knotd's pipes, SQLite's database, WAL and shm, the listeners) and at most 33 besides
 * client sockets under 200 concurrent DNS writes (zone files, knotc children, the control socket). The metrics
 * listener (16) and refused connections still reading their 503 (16 per listener) come out of it too. An
 * eighth of the limit, at least 128 and at most 1024, leaves room for twice that; more than 1024 would only
 * take connections from large limits.
 */
export function descriptorReserve(limit: number): number {
  return Math.max(128, Math.min(1024, Math.floor(limit / 8)));
}

/**
 * The caps for a descriptor limit, with any given one kept and the others derived from the total:
 * one address may hold three quarters of all connections (a fleet of nodes behind one NAT long-polls through
 * it, each long-poll a connection), but only an eighth of them (8 to 1024) waiting, which is what slow or idle
 * clients hold.
 */
export function connectionLimits(descriptors: number, given: Partial<ConnectionLimits> = {}): ConnectionLimits {
  const maxConnections = given.maxConnections ?? Math.max(1, descriptors - descriptorReserve(descriptors));
  return {
    maxConnections,
    maxConnectionsPerAddress: given.maxConnectionsPerAddress ?? Math.max(1, Math.floor((maxConnections * 3) / 4)),
    maxWaitingConnectionsPerAddress:
      given.maxWaitingConnectionsPerAddress ?? Math.min(maxConnections, Math.max(8, Math.min(1024, Math.floor(maxConnections / 8)))),
  };
}

/** The key caps count by: the address, its IPv4 form when IPv4-mapped, and an IPv6 address's /64, since one
 * host is usually given a whole /64. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const groups = (part: string): string[] => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const [head = '', tail] = address.split('%')[0]!.toLowerCase().split('::');
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t];
  return `${all.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

/** A complete HTTP/1.1 answer with the API's error body, written straight to a socket. */
function rawError(status: number, code: string, message: string, extra: Record<string, string> = {}): string {
  const requestId = randomUUID();
  const body = JSON.stringify({ code, message, requestId });
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Request-Id': requestId,
    Connection: 'close',
    Date: new Date().toUTCString(),
    ...extra,
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines}\r\n${body}`;
}

type Reason = 'max_connections' | 'max_connections_per_address' | 'max_waiting_connections_per_address' | 'evicted_waiting'
  | 'request_timeout' | 'request_header_fields_too_large' | 'bad_request';

/** Node's client errors and the answer to each; anything else from the parser is a malformed request. */
const CLIENT_ERRORS: Record<string, [number, Reason, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'the request was not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'request_header_fields_too_large', 'request headers are too large'],
};
const MALFORMED: [number, Reason, string] = [400, 'bad_request', 'malformed HTTP request'];

/** How long a refused or failed connection may take to read its answer before it is destroyed. */
const ANSWER_GRACE_MS = 1000;
/** Refused connections still reading their 503 at once; beyond it the oldest is destroyed. They are not
 * counted by the caps, so this bounds the descriptors a flood of refused connections holds. */
const MAX_REFUSED_ANSWERING = 16;
/** Refusals are logged as counts, at most once per interval, so a flood does not become a log flood. */
const REFUSAL_LOG_INTERVAL_MS = 10_000;

interface Counts {
  all: number;
  /** This address's waiting connections, longest waiting first. */
  waiting: Set<Duplex>;
}

interface Connection {
  key: string;
  counts: Counts;
  /** Requests of this connection received whole and not yet answered: none means it is waiting. */
  answering: Set<ServerResponse>;
  closed: boolean;
  /** Its client error has been answered (Node may report more than one for the same input). */
  failed: boolean;
}

/** The TCP socket under a request's socket: with TLS (https.Server) requests arrive on a TLSSocket wrapping the
 * accepted one, which is what the caps count (Node keeps it as `_parent`). */
const transportOf = (socket: Duplex): Duplex => (socket as Duplex & { _parent?: Duplex | null })._parent ?? socket;

/** Listens on `at` (port 0: a free one) and answers the URL it listens on, https for a TLS server; rejects with
 * the listen error (EADDRINUSE, ...). */
export async function listenOn(server: Server, at: { host: string; port: number }): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return `${server instanceof TlsServer ? 'https' : 'http'}://${at.host.includes(':') ? `[${at.host}]` : at.host}:${port}`;
}

/**
 * Applies timeouts, caps and JSON client-error answers to `server`. Call before `listen` (Node reads the
 * interval of its timeout checks when listening) and before adding other 'connection' listeners.
 */
export function harden(server: Server, opts: HardeningOptions, log?: Logger): void {
  if (server.listening) throw new Error('harden() must run before listen()');
  if (opts.headersTimeoutMs > opts.requestTimeoutMs) throw new Error('the header timeout must not exceed the request timeout');
  server.headersTimeout = opts.headersTimeoutMs;
  server.requestTimeout = opts.requestTimeoutMs;
  // Node checks its timeouts every 30 s by default, which would let a slow client stay that much longer. The
  // interval is a createServer option that Node reads from the server when it starts listening; the
  // property is not in @types/node (tests check that the timeouts hold to the second).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.max(50, Math.min(1000, Math.floor(opts.headersTimeoutMs / 10)));
  // Whoever is refused may come back once the waiting connections before it have timed out.
  const retryAfter = String(Math.ceil(opts.headersTimeoutMs / 1000));

  const connections = new Map<Duplex, Connection>();
  const perAddress = new Map<string, Counts>();
  const refusedAnswering = new Set<Socket>();

  const refusals = new Map<Reason, number>();
  const refusedAddresses = new Set<string>();
  let refusalLog: NodeJS.Timeout | undefined;
  const count = (reason: Reason, address: string): void => {
    refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
    if (refusedAddresses.size < 10) refusedAddresses.add(address);
    if (!log || refusalLog) return;
    refusalLog = setTimeout(() => {
      log.warn({ refused: Object.fromEntries(refusals), addresses: [...refusedAddresses] }, 'connections refused or cut by the connection caps and timeouts');
      refusals.clear();
      refusedAddresses.clear();
      refusalLog = undefined;
    }, REFUSAL_LOG_INTERVAL_MS);
    refusalLog.unref();
  };

  /** Writes `answer`, then lets the client read it: the input it sent is drained so that closing sends a FIN,
   * not a reset that could discard the answer at the client. */
  const answerAndClose = (socket: Duplex, answer: string): void => {
    socket.end(answer);
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), ANSWER_GRACE_MS);
    socket.once('close', () => clearTimeout(timer));
  };

  const refuse = (socket: Socket, reason: Reason, key: string): void => {
    count(reason, key);
    socket.on('error', () => undefined);
    // Over TLS nothing can be said before a handshake the refused connection is not given: it is closed.
    if (server instanceof TlsServer) {
      socket.destroy();
      return;
    }
    const oldest = refusedAnswering.size >= MAX_REFUSED_ANSWERING ? refusedAnswering.values().next().value : undefined;
    if (oldest) {
      refusedAnswering.delete(oldest);
      oldest.destroy();
    }
    refusedAnswering.add(socket);
    socket.once('close', () => refusedAnswering.delete(socket));
    answerAndClose(socket, rawError(503, 'overloaded', 'too many connections; retry later', { 'Retry-After': retryAfter }));
  };

  /**
   * With every connection taken, the longest-waiting connection of the address that holds the most waiting
   * ones makes room: clients that send nothing (or a body at a trickle) from many addresses cannot keep a
   * new client out, while requests being answered (long-polls) are never cut.
   */
  const evictWaiting = (): boolean => {
    let most: Counts | undefined;
    for (const counts of perAddress.values()) if (counts.waiting.size > (most?.waiting.size ?? 0)) most = counts;
    const victim = most?.waiting.values().next().value;
    if (!victim) return false;
    count('evicted_waiting', connections.get(victim)?.key ?? 'unknown');
    most!.waiting.delete(victim);
    victim.destroy();
    return true;
  };

  const admit = (socket: Socket, key: string): Reason | null => {
    const counts = perAddress.get(key) ?? { all: 0, waiting: new Set<Duplex>() };
    if (counts.all >= opts.maxConnectionsPerAddress) return 'max_connections_per_address';
    if (counts.waiting.size >= opts.maxWaitingConnectionsPerAddress) return 'max_waiting_connections_per_address';
    if (connections.size >= opts.maxConnections && !evictWaiting()) return 'max_connections';
    counts.all++;
    counts.waiting.add(socket);
    perAddress.set(key, counts);
    const conn: Connection = { key, counts, answering: new Set(), closed: false, failed: false };
    connections.set(socket, conn);
    socket.once('close', () => {
      conn.closed = true;
      connections.delete(socket);
      counts.all--;
      counts.waiting.delete(socket);
      if (counts.all === 0) perAddress.delete(key);
    });
    return null;
  };

  // A refused connection must never reach Node's HTTP parser, or a request it already sent would still be
  // handled: Node's own connection listener runs only for admitted ones.
  const nodeListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    // A client that reset before being accepted has no address left.
    if (!socket.remoteAddress) {
      socket.destroy();
      return;
    }
    const key = addressKey(socket.remoteAddress);
    const refused = admit(socket, key);
    if (refused) refuse(socket, refused, key);
    else for (const listener of nodeListeners) listener.call(server, socket);
  });

  // Prepended: the bookkeeping must see the response before a handler can finish it.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = transportOf(req.socket);
    const conn = connections.get(socket);
    if (!conn) return;
    let answering = false;
    // A request counts as being answered once it has been received whole: a body sent at a trickle is what
    // slow clients hold connections with, and is capped and evicted like waiting for headers.
    const received = (): void => {
      if (answering || conn.closed) return;
      answering = true;
      conn.answering.add(res);
      conn.counts.waiting.delete(socket);
    };
    const done = (): void => {
      if (!conn.answering.delete(res) || conn.closed) return;
      if (conn.answering.size === 0) conn.counts.waiting.add(socket);
    };
    // Node emits 'request' before it has parsed the end of even a bodiless message, and 'end' only once
    // someone reads the body: a request without one is received whole with its headers.
    const length = req.headers['content-length'];
    if (req.complete || (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0'))) received();
    else req.once('end', received);
    res.once('finish', done);
    res.once('close', done);
  });

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const conn = connections.get(transportOf(socket));
    if (conn?.failed) return;
    if (conn) conn.failed = true;
    const [status, code, message] = CLIENT_ERRORS[err.code ?? ''] ?? MALFORMED;
    if (err.code === 'ECONNRESET' || !socket.writable || [...(conn?.answering ?? [])].some((res) => res.headersSent)) {
      socket.destroy();
      return;
    }
    count(code, conn?.key ?? 'unknown');
    const answer = rawError(status, code, message);
    if (conn && conn.answering.size > 0) {
      // A request is being handled: close at once, so that it is aborted and nothing it does reaches the
      // client after this answer (its input was read as it came, so nothing unread turns the close into a reset).
      socket.end(answer, () => socket.destroy());
      return;
    }
    answerAndClose(socket, answer);
  });
}
