/** Request bodies: read whole up to a limit, strictly UTF-8; JSON ones then parsed. */
import type { Context } from 'koa';
import { parse as parseContentType } from 'content-type';
import getRawBody from 'raw-body';
import { AppError, badRequest } from '../lib/errors';

/** Bodies are limited to 1 MiB (docs/api.md). */
export const MAX_BODY_BYTES = 1024 * 1024;

// `fatal`: a byte sequence that is not UTF-8 is refused, where a lenient decoder would turn it into U+FFFD and
// silently change a secret or a TXT value.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The request's body as text of `mediaType` in UTF-8: another type (when there is a body), a compression or another
 * charset is 415, over {@link MAX_BODY_BYTES} 413, bytes that are not UTF-8 400, as AppError. No body is ''.
 */
export async function readTextBody(ctx: Context, mediaType: string): Promise<string> {
  let type: { type: string; parameters: Record<string, string> } | undefined;
  try {
    type = parseContentType(ctx.get('content-type'));
  } catch {
    // Missing or malformed: not the type.
  }
  const length = ctx.get('content-length');
  // A body sent chunked has no length, and must be of the type as well.
  const hasBody = (length !== '' && Number(length) !== 0) || ctx.get('transfer-encoding') !== '';
  if (hasBody && type?.type !== mediaType) throw new AppError(415, 'unsupported_media_type', `request bodies must be ${mediaType}`);
  const encoding = ctx.get('content-encoding').toLowerCase();
  if (encoding !== '' && encoding !== 'identity') throw new AppError(415, 'unsupported_media_type', 'compressed request bodies are not accepted');
  const charset = (type?.parameters.charset ?? '').toLowerCase();
  if (charset !== '' && charset !== 'utf-8' && charset !== 'utf8') throw new AppError(415, 'unsupported_media_type', 'request bodies must be UTF-8');
  let raw: Buffer;
  try {
    raw = await getRawBody(ctx.req, { length: length || undefined, limit: MAX_BODY_BYTES });
  } catch (e) {
    if ((e as { type?: string }).type === 'entity.too.large') throw new AppError(413, 'payload_too_large', 'request bodies are limited to 1 MiB');
    throw badRequest('the request body could not be read whole');
  }
  // The body's size, for a handler that judges its work by it (a change set: api/zone-changes.ts).
  ctx.state.bodyBytes = raw.length;
  try {
    return utf8.decode(raw);
  } catch {
    throw badRequest('request body is not valid UTF-8');
  }
}

/** Reads and parses the request's JSON body, an object (undefined when empty). Throws 400 (not JSON, or JSON that
 * is not an object), 413 or 415 as AppError. */
export async function readJsonBody(ctx: Context): Promise<unknown> {
  const text = await readTextBody(ctx, 'application/json');
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('the request body is not valid JSON');
  }
  // Valid JSON of another type (`[]`, `"x"`, `3`, `null`) is a wrong body, not a malformed one: said so.
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('the body must be a JSON object', { issues: [{ path: 'body', message: 'the body must be a JSON object' }] });
  }
  return value;
}
