/**
 * OpenAPI 3.1 generated from the operations' zod schemas (JSON Schema 2020-12, which 3.1 uses as is): what each
 * operation takes, as strictly as `mountOps` validates it, and every status it can answer, so that a generated
 * client is typed and a validator of the answers accepts exactly what the API sends (test/helpers/openapi.ts
 * checks every answer of the API tests against it).
 */
import { z } from 'zod';
import { MAX_BODY_BYTES } from './body';
import { IDEMPOTENCY_KEY, IDEMPOTENCY_MAX_ANSWER_BYTES, IDEMPOTENCY_MAX_KEYS } from './idempotency';
import { honoursIdempotencyKey, type AnyOp, type AuthMode } from './ops';
import { ErrorSchema } from './schemas';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string): Json => ({ $ref: `#/components/${kind}/${name}` });

const HEADERS: Record<string, Json> = {
  'X-Request-Id': {
    description: 'the id of this answer: the client\'s `X-Request-Id` when it sent one of 1 to 128 characters `A-Za-z0-9_.:-`, else a fresh one',
    required: true, schema: { type: 'string', minLength: 1 },
  },
  'WWW-Authenticate': { description: 'the scheme requests must use (RFC 6750)', required: true, schema: { type: 'string', pattern: '^Bearer\\b' } },
  Allow: { description: 'the methods the path has', required: true, schema: { type: 'string' } },
  'Retry-After': { description: 'seconds until the limit lets a request through again', required: true, schema: { type: 'integer', minimum: 0 } },
  // draft-ietf-httpapi-ratelimit-headers (-08 and later): api/limits.ts, lib/http/rate-limit.ts.
  'RateLimit-Policy': {
    description: 'the limit that applies (IETF draft-ietf-httpapi-ratelimit-headers): `"failed-auth";q=100;w=60` (failed authentications per client address) '
      + 'or `"token";q=N;w=S` (requests per token, where configured); on a 429, and on every answer to a token with a limit; '
      + '`"zone-work";q=N;qu="concurrent-requests"` (whole-zone operations of an organization waiting, on their 429)',
    schema: { type: 'string', pattern: '^"[a-z-]+";q=\\d+;(w=\\d+|qu="concurrent-requests")$' },
  },
  RateLimit: {
    description: 'the limit\'s state: `"<policy>";r=<requests left>;t=<seconds until the quota is whole again>`',
    schema: { type: 'string', pattern: '^"[a-z-]+";r=\\d+;t=\\d+$' },
  },
  'Idempotent-Replayed': {
    description: '`true` on an answer replayed for an `Idempotency-Key` (the answer of its first request), absent otherwise',
    schema: { type: 'string', const: 'true' },
  },
  Location: { description: 'the path of the resource the request created', required: true, schema: { type: 'string', pattern: '^/v1/' } },
  ETag: {
    description: 'the strong entity tag of the resource as answered: send it in `If-None-Match` (a GET answers 304 while it holds) or `If-Match` (a write answers 412 `precondition_failed` once it no longer holds)',
    required: true, schema: { type: 'string', pattern: '^"[\\x21\\x23-\\x7e]*"$' },
  },
  'Cache-Control': {
    description: '`no-store`: the answer carries secret values (a node\'s bundle, a bypass secret, a transfer code), which no cache may keep',
    required: true, schema: { type: 'string', const: 'no-store' },
  },
  'X-Generation': {
    description: 'the generation of the reconciled resource after this request: a GET of it with `?waitGeneration=` this number and `wait=` holds until it is served at it',
    required: true, schema: { type: 'integer', minimum: 0 },
  },
};

/** Answers the edges give (mountOps, the router, the body reader, the error answer), not a handler: each
 * operation lists those it can get, from its inputs, auth and need of the core. */
const EDGE: Record<number, { name: string; description: string; headers?: string[] }> = {
  400: { name: 'BadRequest', description: '`bad_request`: an invalid path parameter, query or body; `details.issues` names each invalid field' },
  401: {
    name: 'Unauthorized',
    description: '`unauthorized`: no `Authorization: Bearer` token, an unknown one, or one of the other kind (a user\'s on a node operation, a node\'s on a user operation)',
    headers: ['WWW-Authenticate'],
  },
  405: { name: 'MethodNotAllowed', description: '`method_not_allowed`: the path exists, the method does not; `Allow` lists those it has', headers: ['Allow'] },
  413: { name: 'PayloadTooLarge', description: `\`payload_too_large\`: the body is over ${MAX_BODY_BYTES} bytes (1 MiB)` },
  415: { name: 'UnsupportedMediaType', description: '`unsupported_media_type`: a body that is not `application/json` in UTF-8, or a compressed one' },
  429: {
    name: 'RateLimited',
    description: '`rate_limited`: too many failed authentications from this address, or too many requests with this token where a limit is configured',
    headers: ['Retry-After', 'RateLimit-Policy', 'RateLimit'],
  },
  409: {
    name: 'IdempotencyInProgress',
    description: '`idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered',
  },
  422: {
    name: 'IdempotencyKeyReused',
    description: '`idempotency_key_reused`: this `Idempotency-Key` went with another request (operation, path, body or `If-Match` / `If-None-Match`) in the last 24 hours',
  },
  500: { name: 'Internal', description: '`internal`: an unexpected failure; the message says no more, `requestId` finds it in the server\'s log' },
  503: {
    name: 'Unavailable',
    description: '`store_unavailable`: the store (PostgreSQL, with `--database-url`) cannot be reached for a moment; retry after the seconds '
      + 'its `Retry-After` header gives. `no_core`: the API runs without its core component; `core_unavailable`: the core does not answer; on a process of several, also '
      + 'while no leader is elected or the leader does not answer an operation that calls a provider (then with `Retry-After`)',
  },
};

/** The security scheme of each auth mode, by name; open operations have none. */
const SCHEMES: Record<AuthMode, [string, Json] | null> = {
  user: ['bearer', { type: 'http', scheme: 'bearer', description: 'a user\'s API token (`hostplane admin token create`)' }],
  node: ['nodeToken', { type: 'http', scheme: 'bearer', description: 'a node\'s token (`hostplane admin node register`)' }],
  none: null,
};

/** Keywords that refuse no string: a path parameter with only these never fails. */
const ANNOTATIONS = new Set(['$schema', 'type', 'description', 'title', 'examples', 'default', 'deprecated']);
const acceptsAnyString = (s: Json): boolean => s.type === 'string' && Object.keys(s).every((k) => ANNOTATIONS.has(k));

const response = (description: string, headers: string[], schema?: Json, mediaType = 'application/json', optional: string[] = []): Json => ({
  description,
  headers: Object.fromEntries([
    ...['X-Request-Id', ...headers].map((h) => [h, ref('headers', h)]),
    // A reference cannot be made optional where it is used: the header's own definition, not required.
    ...optional.map((h) => [h, { ...HEADERS[h], required: false }]),
  ]),
  ...(schema ? { content: { [mediaType]: { schema } } } : {}),
});

type Io = 'input' | 'output';

export function openApiDocument(ops: AnyOp[], info: { title: string; version: string }): Json {
  // Every schema is converted with the others of its direction (see `convert`): until then the document holds
  // an empty object in its place, filled in afterwards.
  const pending: Record<Io, [z.ZodType, Json][]> = { input: [], output: [] };
  const schema = (s: z.ZodType, io: Io): Json => {
    const holder: Json = {};
    pending[io].push([s, holder]);
    return holder;
  };
  const errorSchema = schema(ErrorSchema, 'output');
  const paths: Record<string, Json> = {};
  for (const op of ops) {
    const parameters: Json[] = [];
    let pathFails = false;
    for (const [where, obj] of [['path', op.params], ['query', op.query]] as const) {
      if (!obj) continue;
      for (const [name, field] of Object.entries((obj as z.ZodObject).shape) as [string, z.ZodType][]) {
        if (where === 'path') pathFails ||= !acceptsAnyString(z.toJSONSchema(field, { io: 'input' }) as Json);
        parameters.push({ name, in: where, required: where === 'path' || !field.safeParse(undefined).success, schema: schema(field, 'input') });
      }
    }
    const auth: AuthMode = op.auth ?? 'user';
    const keyed = honoursIdempotencyKey(op);
    const edge = [
      ...(op.body || op.query || pathFails || keyed ? [400] : []),
      ...(auth === 'none' ? [] : [401]),
      ...(keyed ? [409, 422] : []),
      ...(op.body ? [413, 415] : []),
      429, 500, 503,
    ];
    const statuses = [...new Set([...Object.keys(op.responses).map(Number), ...edge])].sort((a, b) => a - b);
    const responses = Object.fromEntries(statuses.map((status) => {
      const own = op.responses[status];
      if (!own) return [status, ref('responses', EDGE[status]!.name)];
      const body = own.textType ? { type: 'string' } : own.schema && (own.schema === ErrorSchema ? errorSchema : schema(own.schema, 'output'));
      // An operation's own answers may be replays (Idempotency-Key) and carry a per-token limit's state; a 429 is never
      // stored for a key (api/idempotency.ts), and has the limit's fields of its own.
      const extra = status === 429 ? [] : [...(keyed ? ['Idempotent-Replayed'] : []), ...(auth === 'none' ? [] : ['RateLimit-Policy', 'RateLimit'])];
      // An operation's own 409 (keyed) or 429 is besides the edge's: both can answer.
      const description = keyed && status === 409 ? `${own.description}; ${EDGE[409]!.description}`
        : status === 429 ? `${EDGE[429]!.description}; ${own.description}` : own.description;
      return [status, response(description, [...new Set([...(EDGE[status]?.headers ?? []), ...(own.headers ?? []), ...extra])], body, own.textType, own.optionalHeaders)];
    }));
    (paths[op.path] ??= {})[op.method] = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      ...(op.role ? { description: `Minimum role: ${op.role}.${op.needsCore ? ' Needs the core component (503 `no_core` without it).' : ''}` } : {}),
      security: SCHEMES[auth] ? [{ [SCHEMES[auth][0]]: [] }] : [],
      parameters: [
        ...parameters, ...(op.requestHeaders ?? []).map((h) => ref('parameters', h)), ...(keyed ? [ref('parameters', 'IdempotencyKey')] : []), ref('parameters', 'RequestId'),
      ],
      ...(op.body ? {
        requestBody: {
          required: !(op.body as z.ZodType).safeParse({}).success,
          description: op.bodyType
            ? `${op.bodyType} in UTF-8, at most ${MAX_BODY_BYTES} bytes (1 MiB)`
            : `JSON in UTF-8, at most ${MAX_BODY_BYTES} bytes (1 MiB); an empty body reads as \`{}\``,
          content: { [op.bodyType ?? 'application/json']: { schema: schema(op.documentedBody ?? op.body, 'input') } },
        },
      } : {}),
      responses,
    };
  }
  const components = convert(pending.input, 'input');
  for (const [id, s] of Object.entries(convert(pending.output, 'output'))) {
    if (components[id] && JSON.stringify(components[id]) !== JSON.stringify(s)) {
      throw new Error(`schema ${id} differs as a request and as a response: give each its own id`);
    }
    components[id] = s;
  }
  return relink({
    openapi: '3.1.0',
    info: {
      ...info,
      description: [
        'Every answer carries `X-Request-Id`; every error answer is `{code, message, details?, requestId}` (components.schemas.Error).',
        'A method a path does not have is 405 `method_not_allowed` with `Allow` (components.responses.MethodNotAllowed); an unknown path is 404 `not_found`.',
        `Request bodies are JSON in UTF-8, at most ${MAX_BODY_BYTES} bytes. Lists take \`limit\` and \`cursor\` and answer \`{items, nextCursor}\`.`,
        'Single-resource answers carry a strong `ETag` (each rrset in ZoneDetail its own `etag`): `If-None-Match` on a GET answers 304 while it holds; '
          + '`If-Match` on a write answers 412 `precondition_failed` once it no longer does (rrset writes compare the rrset\'s tag, zone operations the zone\'s), '
          + 'and `If-None-Match: *` on putRRset and setSecret creates only. Writes to a zone answer `X-Generation: N` (a dry run none); getZone with `?waitGeneration=N&wait=S` '
          + '(S at most 30 seconds) holds until the zone is served at N or later.',
        'POSTs take `Idempotency-Key` (components.parameters.IdempotencyKey): a retry with the same key and request gets the first answer again. '
          + `An answer larger than ${IDEMPOTENCY_MAX_ANSWER_BYTES / 1024} KiB is not stored (a retry runs the operation again, as after a 5xx), and a caller `
          + `holds at most ${IDEMPOTENCY_MAX_KEYS.toLocaleString('en-US')} keys: a new one beyond that drops the caller's oldest.`,
        'Rate limits answer 429 `rate_limited` with `Retry-After`, `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers): failed '
          + 'authentications per client address (100 a minute; past it a failure is 429 instead of 401, and a good token still passes), and requests per token '
          + 'where the deployment sets a limit; whole-zone operations (exportZone, importZone, restoreZoneRevision, applyZoneChanges of over 100 changes or 64 KiB) '
          + 'share the process\'s CPU among organizations in turn, and one with 8 of them waiting gets 429 for the next. Each API process counts for itself.',
      ].join('\n\n'),
    },
    paths,
    components: {
      schemas: components,
      responses: Object.fromEntries(Object.values(EDGE).map((e) => [e.name, response(e.description, e.headers ?? [], ref('schemas', 'Error'))])),
      headers: HEADERS,
      parameters: {
        IfMatch: {
          name: 'If-Match', in: 'header', required: false, schema: { type: 'string' },
          description: 'one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource\'s current tag is one of them, else 412 `precondition_failed`; '
            + 'rrset writes compare the rrset\'s tag, zone operations the zone\'s, the others the tag their resource\'s GET answers. Checked after the checks that answer 404, 403 or 409: '
            + 'in the write\'s transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write',
        },
        IfNoneMatch: {
          name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' },
          description: 'on a GET, one or more `ETag`s: 304 with no body while the current tag is one of them; on a write, `*` makes it create only '
            + '(412 `precondition_failed` when the resource exists) and a tag refuses it while the resource still has that tag',
        },
        IdempotencyKey: {
          name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: IDEMPOTENCY_KEY.source },
          description: 'a key of the caller\'s choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, '
            + 'body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with '
            + 'another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the '
            + 'organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the '
            + `organization, 429, and answers larger than ${IDEMPOTENCY_MAX_ANSWER_BYTES / 1024} KiB. A caller holds at most `
            + `${IDEMPOTENCY_MAX_KEYS.toLocaleString('en-US')} keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again)`,
        },
        RequestId: {
          name: 'X-Request-Id', in: 'header', required: false, schema: { type: 'string' },
          description: 'echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id',
        },
      },
      securitySchemes: Object.fromEntries(ops.map((o) => SCHEMES[(o.auth ?? 'user') as AuthMode]).filter((s) => s !== null)),
    },
  });
}

/**
 * Converts the schemas of one direction in one pass, as the properties of one object: zod then defines each
 * `.meta({ id })` schema once, in `$defs`, and refers to it from everywhere else. Fills each holder with its
 * schema and answers the definitions, which become the components.
 */
function convert(pending: [z.ZodType, Json][], io: Io): Record<string, Json> {
  const all = z.object(Object.fromEntries(pending.map(([s], i) => [String(i), s])));
  // `throw`: a schema JSON Schema cannot carry (a transform in a response) must fail here, not become `{}`.
  const out = z.toJSONSchema(all, { io, target: 'draft-2020-12', unrepresentable: 'throw' }) as Json;
  pending.forEach(([, holder], i) => Object.assign(holder, out.properties[String(i)]));
  const defs = (out.$defs ?? {}) as Record<string, Json>;
  const unnamed = Object.keys(defs).find((id) => id.startsWith('__schema'));
  if (unnamed) throw new Error(`a recursive schema needs .meta({ id }) to be a component (${unnamed})`);
  return defs;
}

/** Points zod's `#/$defs/<id>` references at the components, where the definitions now are. */
function relink<T>(node: T): T {
  if (Array.isArray(node)) return node.map(relink) as T;
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [
    k, k === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, '#/components/schemas/') : relink(v),
  ])) as T;
}
