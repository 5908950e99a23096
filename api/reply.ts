/** An operation's answer and its documented responses: apart from api/ops.ts so that helpers it uses
 * (api/conditional.ts) can build them without importing it back. */
import type { Readable } from 'node:stream';
import type { z } from 'zod';

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Headers this answer always carries, by their name in the document's components. */
  headers?: string[];
  /** Headers this answer carries but when its description says it does not (a dry run sends no `X-Generation`, a
   * generation that never comes): documented as not required. */
  optionalHeaders?: string[];
  /** The answer is text of this media type (`text/dns`), not JSON. */
  textType?: string;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** The body already serialized as JSON (instead of `body`): for answers whose stored parts are JSON text
   * (a zone's rrsets), spliced in rather than parsed and serialized again. */
  json?: string;
  /** A body that is not JSON: its Content-Type and text, or a stream of it (an answer that grows with the data, sent
   * as it is read). */
  text?: { type: string; body: string | Readable };
  headers?: Record<string, string>;
}
