/**
 * Conditional requests (RFC 9110 section 13; docs/api.md, Conditional requests): entity tags, `If-Match`
 * and `If-None-Match`.
 *
 * - Tags are strong, and made of stored versions, never of the rendered body: a zone's of its generation, lifetime,
 *   DNSSEC state and status (`zoneTag`), an rrset's of the generation that last changed it (`rrsetTag`), so a
 *   repeated identical write keeps its tag.
 * - A GET whose `If-None-Match` names the answer's tag (weak comparison, or `*`) is 304 with the tag and no body.
 * - A write's `If-Match` must name the current tag (strong comparison; `*`: the resource exists) and its
 *   `If-None-Match` must not (`*`: it must not exist, so a PUT only creates), else 412 `precondition_failed`.
 *   The store checks them inside the write's transaction (`precondition`), so nothing changes in between.
 * - A request whose answer would not be 2xx without its conditions (404, 409 `managed_rrset`, ...) gets that
 *   answer: the conditions are evaluated after those checks (RFC 9110 13.2.1).
 */
import { hash } from 'node:crypto';
import { AppError } from '../lib/errors';
import type { RRsetVersion, ZoneWithStatus } from '../store/zones';
import { ErrorSchema } from './schemas';
import type { Reply, ResponseSpec } from './reply';

/** An `If-Match` / `If-None-Match` value: `*`, or the listed tags (a malformed list names no tag). */
export type TagList = '*' | { tag: string; weak: boolean }[];

export interface Conditions { ifMatch?: TagList; ifNoneMatch?: TagList }

// RFC 9110 8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, in a comma-separated list.
const TAG = /\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/y;

export function parseTags(header: string): TagList | undefined {
  const value = header.trim();
  if (value === '') return undefined;
  if (value === '*') return '*';
  const tags: { tag: string; weak: boolean }[] = [];
  TAG.lastIndex = 0;
  while (TAG.lastIndex < value.length) {
    const m = TAG.exec(value);
    if (!m) return [];
    tags.push({ tag: m[2]!, weak: m[1] !== undefined });
  }
  return tags;
}

/** A request's conditions, of its header fields by lower-case name ('' when absent). */
export const conditionsOf = (header: (name: string) => string): Conditions => ({
  ifMatch: parseTags(header('if-match')),
  ifNoneMatch: parseTags(header('if-none-match')),
});

/** A strong entity tag of its parts. */
export const etag = (...parts: (string | number)[]): string => `"${parts.join('-')}"`;

/** 16 characters of SHA-256 (96 bits): the part of a tag that stands for what has no version of its own. */
export const digest = (text: string): string => hash('sha256', text, 'base64url').slice(0, 16);

/** The lifetime part of tags: a zone created again under its name never answers an old tag. */
const lifetime = (uid: string): string => uid.replace(/-/g, '').slice(0, 12);

/**
 * A zone's tag: its generation (every change of its content), and a digest of what moves without it: the
 * lifetime, DNSSEC state and DS values (setZoneDS), the nameservers, and the status the reconciler recorded.
 * So a 304 never hides a newer status, and `If-Match` on a zone operation fails once the zone moved, also when
 * only its observed status did.
 */
export function zoneTag(zn: ZoneWithStatus, nameservers: string[]): string {
  const st = zn.status;
  const status = st && [st.observedGeneration, st.conditions, st.facts, st.lastError, st.reconciledAt];
  return etag(zn.generation, digest(JSON.stringify([zn.uid, zn.dnssec, zn.ds, nameservers, status])));
}

/** An rrset's tag: the zone generation that last changed it, in this lifetime of the zone. */
export const rrsetTag = (v: RRsetVersion): string => etag(v.changedGen, lifetime(v.uid));

/** `rrsetTag` for many rrsets of one zone lifetime: the lifetime part is made once. */
export function rrsetTagger(uid: string): (changedGen: number) => string {
  const life = lifetime(uid);
  return (changedGen) => `"${changedGen}-${life}"`;
}

/** The SOA's tag: the service writes it at every generation. */
export const soaTag = (zn: { uid: string; generation: number }): string => etag(zn.generation, lifetime(zn.uid), 'soa');

/** A tag of the representation itself, for resources without a stored version (a project). */
export const bodyTag = (body: unknown): string => etag(digest(JSON.stringify(body)));

const matches = (list: TagList, current: string, weak: boolean): boolean =>
  list === '*' || list.some((t) => (weak || !t.weak) && t.tag === current);

export const preconditionFailed = (what: string, header: string): AppError =>
  new AppError(412, 'precondition_failed', `${header}: ${what}; read it again for its current ETag`);

/**
 * Evaluates a write's conditions against the resource's current tag (null: it does not exist); throws 412
 * `precondition_failed`. Call it inside the store write, after the checks whose failure answers otherwise.
 */
export function checkWrite(c: Conditions, current: string | null, what: string): void {
  if (c.ifMatch !== undefined && (current === null || !matches(c.ifMatch, current, false))) {
    throw preconditionFailed(current === null ? `${what} does not exist` : `${what} changed since that ETag`, 'If-Match');
  }
  if (c.ifNoneMatch !== undefined && current !== null && matches(c.ifNoneMatch, current, true)) {
    throw preconditionFailed(c.ifNoneMatch === '*' ? `${what} exists` : `${what} still has that ETag`, 'If-None-Match');
  }
}

/** Whether the request has any write condition: without one the store need not be asked to check. */
export const hasWriteConditions = (c: Conditions): boolean => c.ifMatch !== undefined || c.ifNoneMatch !== undefined;

/**
 * A store write's precondition: `checkWrite` of `c` against the current resource's tag (`tagOf`; null: it does
 * not exist); none without conditions, so the store reads nothing for it.
 */
export function writePrecondition<T>(c: Conditions, what: string, tagOf: (cur: T) => string): ((cur: T | null) => void) | undefined {
  return hasWriteConditions(c) ? (cur) => checkWrite(c, cur === null ? null : tagOf(cur), what) : undefined;
}

/**
 * A write's conditions against a tag of the rendered state (`bodyTag`, or a tag the store cannot make inside its
 * transaction), read just before the write: `current` is read only when the request has a condition. Two
 * writes racing with the same tag may both pass, unlike `writePrecondition`'s check inside the store's write.
 */
export async function checkBeforeWrite(c: Conditions, what: string, current: () => Promise<string>): Promise<void> {
  if (hasWriteConditions(c)) checkWrite(c, await current(), what);
}

/** For answers that carry secrets (a bypass secret, a node's bundle): no cache on the way may keep one. */
export const NO_STORE = { 'Cache-Control': 'no-store' };

/** Whether a GET's `If-None-Match` names `tag` (weak comparison, RFC 9110 13.1.2): then the answer is 304. */
export function notModified(c: Conditions, tag: string): boolean {
  return c.ifNoneMatch !== undefined && matches(c.ifNoneMatch, tag, true);
}

/** A GET's answer: 304 with the tag (and `headers`) when `If-None-Match` names it, else 200 with the body. */
export function cacheable(c: Conditions, tag: string, body: unknown, headers: Record<string, string> = {}): Reply {
  if (notModified(c, tag)) return { status: 304, headers: { ...headers, ETag: tag } };
  return { status: 200, body, headers: { ...headers, ETag: tag } };
}

/** The documented 304 of a GET that honours `If-None-Match`. */
export const notModifiedResponse = (headers: string[] = []): ResponseSpec => ({
  description: 'not modified: `If-None-Match` names the current `ETag`; no body',
  headers: ['ETag', ...headers],
});

/** The documented 412 of a write that honours `If-Match` (and `If-None-Match`). */
export const preconditionResponse = (description: string): ResponseSpec => ({
  description: `\`precondition_failed\`: ${description}`,
  schema: ErrorSchema,
});
