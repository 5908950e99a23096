/** The core component's internal HTTP face, used by a separate `api` process through `core/client.ts`; the
 * wire is `core/routes.ts`. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { AppError } from '../lib/errors';
import type { Logger } from '../lib/log';
import type { Core } from './port';
import { CORE_ROUTES, ERROR_HEADER, isCoreMethod, REQUEST_KEY_HEADER, RequestKey, type ErrorSource } from './routes';

const MAX_BODY = 2 * 1024 * 1024;

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

interface Answer { status: number; body: unknown; source?: ErrorSource; headers?: Record<string, string> }

/**
 * Answers by request key, for the time within which a call may be retried. Entries leave oldest first (by
 * when the call arrived), after `ttlMs` or once more than `max` are held: a key matters only to the retries
 * of its one call, so how recently it was replayed says nothing about how long to keep it.
 */
export class ReplayCache<T> {
  private readonly entries = new Map<string, { at: number; value: T }>();

  constructor(private readonly opts: { max: number; ttlMs: number; now?: () => number }) {}

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  get(key: string): T | undefined {
    this.expire();
    return this.entries.get(key)?.value;
  }

  set(key: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, { at: this.now(), value });
    this.expire();
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.opts.max) break;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  private expire(): void {
    const before = this.now() - this.opts.ttlMs;
    for (const [key, e] of this.entries) {
      if (e.at > before) break;
      this.entries.delete(key);
    }
  }
}

/** The call a key was first used for (method and body), and its answer: one still running is shared. */
export interface Replay { call: Buffer; answer: Promise<Answer> }

const REPLAY_TTL_MS = 10 * 60_000;
const REPLAY_MAX = 10_000;

export interface CoreServerOptions {
  /** Where unexpected failures of a core operation are logged; the caller only learns `internal`. */
  log?: Logger;
  /** Counts a call whose token matches no grant against the connection's address, and throws the AppError to answer
   * instead of 401 once that address has failed too often (api/limits.ts failedAuthLimit). The connection's, not a
   * proxy's X-Forwarded-For: processes call each other directly, and a header is the caller's to write. */
  authFailed?: (address: string) => void;
  replays?: ReplayCache<Replay>;
}

class CallRefused extends AppError {}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new CallRefused(413, 'payload_too_large', 'core call body too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const errorAnswer = (e: AppError, source: ErrorSource): Answer => ({
  status: e.status, body: { status: e.status, ...e.toBody() }, source, headers: (e as AppError & { headers?: Record<string, string> }).headers,
});

/** A caller of the core: the token it proves itself with, and the Core its calls run on. */
export interface CoreGrant { token: string; core: Core }

/**
 * Serves the Core port. Every call must carry the shared core token (compared as fixed-length digests) and a
 * request key: a call whose key was seen within REPLAY_TTL_MS gets the first call's answer again, and one whose
 * first call is still running waits for it, so a client retrying a call whose answer it lost never makes the
 * core act twice. Answers of 5xx are not kept: the operation did not complete, and its retry may run it again.
 */
export function coreServer(core: Core, token: string, opts: CoreServerOptions = {}): Server {
  return createServer(coreListener([{ token, core }], opts));
}

/**
 * The Core port as a request listener (coreServer's), for a listener that serves more: `serve` answers its
 * replicas' calls beside its API. Each grant's token runs its calls on its own Core (`core` answers `api` on one
 * that forwards to the leader, and the other replicas on one that never forwards, so a call cannot go round).
 */
export function coreListener(grants: CoreGrant[], opts: CoreServerOptions = {}): RequestListener {
  const expected = grants.map((g) => ({ digest: digest(g.token), core: g.core }));
  const replays = opts.replays ?? new ReplayCache<Replay>({ max: REPLAY_MAX, ttlMs: REPLAY_TTL_MS });

  const run = async (core: Core, method: keyof Core, body: unknown): Promise<Answer> => {
    try {
      return { status: 200, body: { result: await CORE_ROUTES[method].run(core, body) } };
    } catch (e) {
      if (e instanceof AppError) return errorAnswer(e, 'operation');
      opts.log?.error({ err: e, method }, 'core operation failed unexpectedly');
      return errorAnswer(new AppError(500, 'internal', 'internal error'), 'operation');
    }
  };

  const answer = async (req: IncomingMessage): Promise<Answer> => {
    const auth = digest(/^bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? '');
    // Every grant is compared, so the time taken says nothing of which one matched.
    const matched = expected.map((g, i) => (timingSafeEqual(auth, g.digest) ? i : -1)).find((i) => i >= 0);
    if (matched === undefined) {
      opts.authFailed?.(req.socket.remoteAddress ?? '');
      throw new CallRefused(401, 'unauthorized', 'core token required');
    }
    const method = req.method === 'POST' ? /^\/internal\/(\w+)$/.exec(req.url ?? '')?.[1] : undefined;
    if (method === undefined || !isCoreMethod(method)) throw new CallRefused(404, 'not_found', 'no such core call');
    const key = RequestKey.safeParse(req.headers[REQUEST_KEY_HEADER]);
    if (!key.success) throw new CallRefused(400, 'bad_request', `core calls carry a request key (${REQUEST_KEY_HEADER})`);
    const text = await readBody(req);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new CallRefused(400, 'bad_request', 'core call body is not JSON');
    }
    const body = CORE_ROUTES[method].body.safeParse(json);
    if (!body.success) {
      const issues = body.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
      throw new CallRefused(400, 'bad_request', `invalid body for core call ${method}`, { issues });
    }
    // The caller is part of the call: a key replayed under another grant's token is another call.
    const call = digest(`${matched}\n${method}\n${text}`);
    const seen = replays.get(key.data);
    if (seen) {
      if (!seen.call.equals(call)) throw new CallRefused(422, 'request_key_reused', 'this request key was used for another core call');
      return seen.answer;
    }
    const running = run(expected[matched]!.core, method, body.data);
    replays.set(key.data, { call, answer: running });
    const a = await running;
    if (a.status >= 500) replays.delete(key.data);
    return a;
  };

  const refused = (e: unknown, req: IncomingMessage): Answer | undefined => {
    // A refusal of the call itself, or the failed-authentication limit's 429.
    if (e instanceof AppError) return errorAnswer(e, 'call');
    // The client went away while its call was read: there is no one to answer, and nothing went wrong here.
    if (req.socket.destroyed) return undefined;
    opts.log?.error({ err: e }, 'core call failed unexpectedly');
    return errorAnswer(new AppError(500, 'internal', 'internal error'), 'call');
  };

  return (req, res) => {
    const send = (a: Answer | undefined): void => {
      if (!a) return;
      const headers: Record<string, string> = { ...a.headers, 'content-type': 'application/json' };
      if (a.source) headers[ERROR_HEADER] = a.source;
      res.writeHead(a.status, headers).end(JSON.stringify(a.body));
    };
    if (req.url === '/healthz') return send({ status: 200, body: { ok: true } });
    answer(req)
      .catch((e: unknown) => refused(e, req))
      .then(send)
      .catch((e: unknown) => opts.log?.error({ err: e }, 'core answer could not be sent'));
  };
}
