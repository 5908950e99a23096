/** Keyset paging shared by every list: stable order by a unique key, opaque cursors, no dropped items. */
import { badRequest } from '../lib/errors';

export interface Page<T> { items: T[]; nextCursor: string | null }

/** A cursor is base64url of a JSON value, so that decoding can tell a cursor of this API from any other string. */
export const encodeCursor = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

// `fatal`: bytes that are not UTF-8 are no cursor of ours, rather than a value with U+FFFD in it.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Cursors are not signed, so anyone can make one: U+0000 names nothing stored, and PostgreSQL's text cannot hold
 * it, so a list's query given one fails with the database's error where it must be a 400. */
const noNul = (key: string, value: unknown): unknown => {
  if (key.includes('\0') || (typeof value === 'string' && value.includes('\0'))) throw new Error('U+0000 in a cursor');
  return value;
};

/** The JSON value a cursor of this API carries, or undefined for any other string. */
export function cursorValue(cursor: string): unknown {
  const bytes = Buffer.from(cursor, 'base64url');
  // Buffer skips characters outside the alphabet and ignores stray trailing bits: only the canonical form is ours.
  if (cursor === '' || bytes.toString('base64url') !== cursor) return undefined;
  try {
    return JSON.parse(utf8.decode(bytes), noNul) as unknown;
  } catch {
    return undefined;
  }
}

/** The key of a list's cursor (`[key]`, see {@link toPage}), or undefined for a string this API never issued. */
export function listCursorKey(cursor: string): string | undefined {
  const v = cursorValue(cursor);
  return Array.isArray(v) && v.length === 1 && typeof v[0] === 'string' ? v[0] : undefined;
}

/** The key of a list's cursor; any other string is 400 (the API's query schemas refuse it before, naming the field). */
export function decodeCursor(cursor: string): string {
  const key = listCursorKey(cursor);
  if (key === undefined) throw badRequest('not a cursor of this API');
  return key;
}

/** `rows` must have been read with `limit + 1`: the extra row only tells that another page exists. */
export function toPage<T>(rows: T[], limit: number, keyOf: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodeCursor([keyOf(last)]) : null };
}
