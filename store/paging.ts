/** Keyset paging shared by every list: stable order by a unique key, opaque cursors, no dropped items. */
export interface Page<T> { items: T[]; nextCursor: string | null }

export const encodeCursor = (key: string): string => Buffer.from(key, 'utf8').toString('base64url');
export const decodeCursor = (cursor: string): string => Buffer.from(cursor, 'base64url').toString('utf8');

/** `rows` must have been read with `limit + 1`: the extra row only tells that another page exists. */
export function toPage<T>(rows: T[], limit: number, keyOf: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null };
}
