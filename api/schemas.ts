/** Schemas shared by several groups. */
import { z } from 'zod';
import { listCursorKey } from '../store/paging';
import { MAX_WAIT_SECONDS } from './wait';

export const ErrorSchema = z.object({
  code: z.string().regex(/^[a-z][a-z_]*$/).meta({ description: 'snake_case, for programs; each response names the codes it carries' }),
  message: z.string().meta({ description: 'for people; never a stack trace or an internal message' }),
  details: z.record(z.string(), z.unknown()).optional().meta({
    description: '`bad_request`: `issues`, a list of `{path, message}` naming each invalid field (`body.name`, `query.limit`, `records[0].content`); other codes say what they add',
  }),
  requestId: z.string().meta({ description: 'the `X-Request-Id` of this answer, for support requests' }),
}).meta({ id: 'Error' });

/** Text the store keeps as it was sent: PostgreSQL's text cannot hold U+0000, so such a value is a 400 here instead of
 * a failed query (a 500) there, and SQLite refuses it too so that both stores answer alike. */
export const storedText = (field: string, max: number) => z.string().max(max).refine((v) => !v.includes('\0'), `${field} must not contain U+0000`);

/** The pattern of the decimal numbers 1..max and nothing else, so that a document shows the whole rule. */
function oneTo(max: number): RegExp {
  const digits = String(max);
  const shorter = digits.length > 1 ? [`[1-9][0-9]{0,${digits.length - 2}}`] : [];
  // As long as max: equal to it up to some digit, then a lower digit, then any.
  const lower = [...digits].flatMap((d, i) => {
    const least = i === 0 ? 1 : 0;
    return Number(d) > least ? [`${digits.slice(0, i)}[${least}-${Number(d) - 1}]${'[0-9]'.repeat(digits.length - i - 1)}`] : [];
  });
  return new RegExp(`^(?:${[...shorter, ...lower, digits].join('|')})$`);
}

/** `?limit=`: decimal digits only (`0x10`, `1e1` and ` 10 ` are not limits), 1..max. */
export const Limit = (max: number, fallback: number) => z.string()
  .regex(oneTo(max), `limit is a whole number from 1 to ${max}, in decimal digits`)
  .transform(Number)
  .prefault(String(fallback))
  .meta({ description: `page size: 1 to ${max}, in decimal digits; default ${fallback}` });

/** Cursors as store/paging.ts writes them: base64url without padding. */
const CURSOR_ALPHABET = /^[A-Za-z0-9_-]+$/;

/** `?cursor=`: the text of a cursor, whose value each list then checks. */
export const CursorText = z.string()
  .regex(CURSOR_ALPHABET, { message: 'not a cursor of this API', abort: true })
  .meta({ description: 'the `nextCursor` of the previous page, as it was given; any other value is 400' });

/** `?cursor=` of a list: only a `nextCursor` this API issued, else 400. */
export const ListCursor = CursorText.refine((c) => listCursorKey(c) !== undefined, { message: 'not a cursor of this API', abort: true });

/** `?limit=` (default 100, max 1000) and `?cursor=`, for every list (docs/api.md). */
export const ListQuery = z.object({ limit: Limit(1000, 100), cursor: ListCursor.optional() });

/** A list paged by a number (an audit record's id, a zone's generation): a cursor of another list, though well formed,
 * is none of its own, and the store would be handed a key that is no number. */
const isNumberKey = (key: string | undefined): boolean => key !== undefined && /^[1-9][0-9]*$/.test(key) && Number.isSafeInteger(Number(key));
export const NumberedListQuery = ListQuery.extend({ cursor: ListCursor.refine((c) => isNumberKey(listCursorKey(c)), 'not a cursor of this API').optional() });

export const pageOf = <T extends z.ZodType>(item: T) => z.object({
  items: z.array(item),
  nextCursor: z.string().regex(CURSOR_ALPHABET).nullable().meta({ description: 'pass as `cursor` for the next page; null on the last page' }),
});

export const OrgParams = z.object({ orgSlug: z.string().meta({ description: 'the organization; one the caller is not a member of is 404' }) });
export const ProjectParams = OrgParams.extend({ projectName: z.string() });
/** A node operation's path: the node of the token; another node's id is 404. */
export const NodeParams = z.object({ nodeId: z.string().meta({ description: 'the node of the token; another node\'s id is 404' }) });
/** `?wait=`: whole seconds a long-poll is held, 0 to MAX_WAIT_SECONDS (api/wait.ts; the pattern spells it out). */
export const WaitSeconds = z.string().regex(/^(?:[0-9]|[12][0-9]|30)$/, `wait is seconds, a whole number from 0 to ${MAX_WAIT_SECONDS}`).transform(Number);

export const Timestamp = z.iso.datetime().meta({ id: 'Timestamp', description: 'RFC 3339, UTC', examples: ['2026-11-26T10:00:00Z'] });

/** Where a change runs: per node the project is placed on, whether the node reported running a bundle with
 * `what` (secrets: this version; access: this policy). */
export const rolloutSchema = (what: string) => z.array(z.object({
  nodeId: z.string(),
  state: z.enum(['applied', 'pending']).meta({ description: `\`applied\`: the node reported running a bundle with ${what}; \`pending\`: not yet` }),
  failure: z.string().nullable().meta({ description: 'why the node does not run the project\'s wanted worker, as it last reported (a `pending` that will not end by waiting); null: it runs, or the node did not say' }),
})).meta({ description: 'per node the project is placed on (none before its first deploy), by node id' });

/** One condition of a reconciled resource's status, in the shape Kubernetes users know. */
export const ConditionSchema = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().meta({ description: 'CamelCase, for programs' }),
  message: z.string().meta({ description: 'for people; never carries a server path' }),
  observedGeneration: z.number().int().min(0).meta({ description: 'the generation the condition was judged at' }),
  lastTransitionTime: Timestamp.meta({ description: 'when `status` last changed' }),
}).meta({ id: 'Condition' });

/** Error responses of operations in `{orgSlug}` besides those every operation has (api/openapi.ts adds 400, 401,
 * 413, 415, 429, 500 and 503 from the operation's inputs, auth and need of the core); each adds its own. */
/** The 503 of an operation that needs the core component, for `errorResponses`. */
export const NO_CORE: [number, string] = [503, '`no_core`: the API runs without its core component'];

export const errorResponses = (...extra: [number, string][]) => {
  const out: Record<number, { description: string; schema: typeof ErrorSchema }> = {
    403: { description: 'role too low (`forbidden`)', schema: ErrorSchema },
    404: { description: 'organization or target not found, or not the caller\'s (`not_found`)', schema: ErrorSchema },
  };
  for (const [status, description] of extra) out[status] = { description, schema: ErrorSchema };
  return out;
};
