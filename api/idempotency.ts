/**
 * `Idempotency-Key` on POST, with Stripe's semantics (docs/api.md, Idempotency-Key): the same caller, key and request
 * within 24 hours get the stored answer again (status, body, and the headers that name what was made:
 * `Location`, `ETag`, `X-Generation`), marked `Idempotent-Replayed: true`; the key with another request (another
 * body, or other `If-Match` / `If-None-Match` preconditions) is 422
 * `idempotency_key_reused`; while the first request runs, 409 `idempotency_in_progress`.
 *
 * Stored: the answers of an executed operation, 2xx and 4xx, of at most IDEMPOTENCY_MAX_ANSWER_BYTES, and at
 * most IDEMPOTENCY_MAX_KEYS keys per caller (a new key drops the caller's oldest). Never stored, so that sending
 * again runs the operation again: a larger answer, 5xx (a failure is recovered by a resend), 401, 403 and 404 of
 * the caller's scope (refused before the key is looked at), 429, 499 (the client went away while its work waited for
 * a slot, api/zone-changes.ts `zoneWork`: it never ran), and 400: every 400 here is a validation failure
 * (the schemas, or a handler's own checks of names and records), which changed nothing, and a corrected request
 * may reuse the key.
 * Operations whose answer carries a secret (`secretAnswer` in defineOp) never store it: there the key is ignored.
 *
 * Keys are per caller: a user's key in an organization (`user:<id>/org:<id>`), a user's on user-level operations,
 * a node's. Another caller with the same key, in the same org or another, has a key of its own.
 *
 * Why three writes and not one. A write function may await only its transaction handle (store/db.ts), and an
 * operation's answer is made after its write commits (reads of status, the core), so the answer cannot go into
 * the operation's own transaction without every store function taking part. Instead:
 *   1. claim: one write inserts the record as running (the primary key (scope, key) makes exactly one of
 *      concurrent requests win, also across processes on one store), holding a lease;
 *   2. the operation runs, its own writes committing as they always do;
 *   3. finish: one write stores the answer, or deletes the record when the answer is not stored.
 * The record therefore exists before any effect: a crash can never leave an effect without its record. It can
 * leave a record without its answer (a crash between the operation's commit and step 3, one fsync long): once
 * the lease is over, a retry runs the operation again, which is safe because operations are idempotent in the
 * store (createZone answers the zone it made; setZoneDNSSEC sets a state); createProject answers 409
 * `project_name_taken`, which tells the client the project exists. While the lease holds, a retry gets 409
 * `idempotency_in_progress`. Within this process a request still running keeps its key past the lease.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { AppError } from '../lib/errors';
import type { Logger } from '../lib/log';
import { claimKey, finishKey, releaseKey, type StoredAnswer } from '../store/idempotency';
import { canonicalJson } from '../lib/canonical-json';
import type { Store } from '../store/db';
import { toErrorBody } from './errors';
import type { Reply } from './reply';

/** How long an answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a claimed key waits for its request before a retry may run it (a crashed process's claim). */
export const IDEMPOTENCY_LEASE_MS = 60_000;

/**
 * The largest answer stored (its body and replayed headers, bytes of JSON): a larger one is not stored and its key
 * is released, as for a 5xx, so that sending again runs the operation again (operations are idempotent in the
 * store: see above). Without it a caller could store a megabyte answer (createZone of a large zone it has) under
 * key after key for a day. The API's answers to POSTs are small records; only such copies of large resources
 * reach it.
 */
export const IDEMPOTENCY_MAX_ANSWER_BYTES = 64 * 1024;
/** The most keys one caller (scope) holds within the 24 hours: a new one beyond it drops the caller's oldest
 * answered key (store/idempotency.ts says why the oldest). With the answer cap, at most 64 MiB a caller. */
export const IDEMPOTENCY_MAX_KEYS = 1000;

/** A key: 1 to 255 printable ASCII characters (a UUID is the usual choice). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Headers of an answer that are replayed with it. */
const REPLAYED_HEADERS = ['location', 'etag', 'x-generation', 'last-modified'];

/** Statuses whose answers are never stored (see the module's header). */
const notStored = (status: number): boolean => status >= 500 || status === 400 || status === 401 || status === 403 || status === 429 || status === 499;

/** What storing an answer costs, in bytes. */
const storedBytes = (a: StoredAnswer): number => Buffer.byteLength(a.body ?? '') + Buffer.byteLength(JSON.stringify(a.headers));

/** A key as given (a header's, a console form's); a malformed one is 400. */
export function checkedKey(given: string): string {
  if (!IDEMPOTENCY_KEY.test(given)) {
    throw new AppError(400, 'bad_request', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
      issues: [{ path: 'header.Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' }],
    });
  }
  return given;
}

/** The key of the request, if it sent one; a malformed one is 400. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const given = ctx.get('idempotency-key');
  if (given === '' && ctx.headers['idempotency-key'] === undefined) return undefined;
  return checkedKey(given);
}

/**
 * What makes two requests the same: the operation, the path, the query, the body (parsed JSON) and the
 * preconditions (`If-Match`, `If-None-Match`, as sent): a stored 200 or 412 answered one precondition and must not
 * be replayed to another. A request without preconditions hashes as it did before they counted, so keys stored
 * then still replay.
 */
export function fingerprint(operationId: string, ctx: Context, body: unknown): string {
  const parts: unknown[] = [operationId, ctx.path, ctx.querystring, body ?? null];
  const ifMatch = ctx.get('if-match');
  const ifNoneMatch = ctx.get('if-none-match');
  if (ifMatch !== '' || ifNoneMatch !== '') parts.push({ ifMatch, ifNoneMatch });
  // Canonical: the same body sent with its fields in another order is the same request.
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

/** A claimed key: the request's outcome settles it. */
export interface KeyGuard {
  /** The operation answered: its answer is stored (or the key freed, for a status never stored). */
  answered(ctx: Context, status: number, body: unknown, headers: Record<string, string> | undefined): Promise<void>;
  /** The operation threw: a 4xx worth storing is stored as an error answer, anything else frees the key. */
  failed(e: unknown): Promise<void>;
}

/** What `begin` decided: run the operation under the guard, or answer the stored reply. */
export type Begin = { kind: 'run'; guard: KeyGuard } | { kind: 'replayed'; reply: Reply };

/** The Idempotency-Key handling of one API (one store): the claim, the replay, and the record of the answer. */
export function idempotency(store: Store) {
  /** Keys of requests running in this process, with their fingerprints. */
  const running = new Map<string, string>();

  const settle = async (log: Logger | undefined, id: string, scope: string, key: string, lease: string, answer: StoredAnswer | null): Promise<void> => {
    try {
      if (answer && !notStored(answer.status) && storedBytes(answer) <= IDEMPOTENCY_MAX_ANSWER_BYTES) await finishKey(store, scope, key, lease, answer);
      else await releaseKey(store, scope, key, lease);
    } catch (err) {
      // The operation's answer still goes out; the record stays claimed until its lease ends.
      log?.error({ err, scope }, 'idempotency record not settled');
    } finally {
      running.delete(id);
    }
  };

  return {
    /**
     * Claims the key for this request, or answers it: a replay is the stored reply (an error answer is thrown
     * again, so that the error edge gives it this request's id); another request's key is 422, a running one 409.
     */
    async begin(ctx: Context, p: { scope: string; key: string; operationId: string; body: unknown }): Promise<Begin> {
      const id = `${p.scope}\n${p.key}`;
      const print = fingerprint(p.operationId, ctx, p.body);
      const mine = running.get(id);
      if (mine !== undefined) throw mine === print ? inProgress() : reused();
      const claim = await claimKey(store, {
        scope: p.scope, key: p.key, operation: p.operationId, fingerprint: print, leaseMs: IDEMPOTENCY_LEASE_MS, ttlMs: IDEMPOTENCY_TTL_MS,
        maxKeys: IDEMPOTENCY_MAX_KEYS,
      });
      if (claim.kind === 'reused') throw reused();
      if (claim.kind === 'running') throw inProgress();
      if (claim.kind === 'replay') return { kind: 'replayed', reply: replay(ctx, claim.answer) };
      // Another request of this process may have claimed it in the meantime only through this map: claims of one
      // store are serialized, and the map is set before this function yields again.
      running.set(id, print);
      const { lease } = claim;
      const { log } = ctx;
      return {
        kind: 'run',
        guard: {
          answered: (c, status, body, headers) => {
            const kept: Record<string, string> = {};
            for (const h of REPLAYED_HEADERS) {
              const v = c.res.getHeader(h);
              if (typeof v === 'string' && v !== '') kept[h] = v;
            }
            for (const [h, v] of Object.entries(headers ?? {})) if (REPLAYED_HEADERS.includes(h.toLowerCase())) kept[h.toLowerCase()] = v;
            return settle(log, id, p.scope, p.key, lease, { status, headers: kept, body: body === undefined ? null : JSON.stringify(body) });
          },
          failed: (e) => {
            const { status, body, unexpected } = toErrorBody(e);
            return settle(log, id, p.scope, p.key, lease, unexpected ? null : { status, headers: {}, body: JSON.stringify(body) });
          },
        },
      };
    },
  };
}

const reused = (): AppError => new AppError(422, 'idempotency_key_reused', 'this Idempotency-Key was used with another request (operation, path, body or preconditions) in the last 24 hours');
const inProgress = (): AppError => new AppError(409, 'idempotency_in_progress', 'a request with this Idempotency-Key is still running; send it again once it has answered');

/** A stored answer as the reply it was, marked replayed on `ctx`; a stored error is thrown again as itself. */
function replay(ctx: Context, a: StoredAnswer): Reply {
  ctx.set('Idempotent-Replayed', 'true');
  if (a.status >= 400) {
    const b = JSON.parse(a.body ?? '{}') as { code: string; message: string; details?: Record<string, unknown> };
    throw new AppError(a.status, b.code, b.message, b.details);
  }
  return { status: a.status, headers: a.headers, ...(a.body !== null && { json: a.body }) };
}
