/** Change sets and revisions of a zone (CONTRACT.md "Zone changes, files and revisions"), and the share of the
 * process's CPU that whole-zone work of an organization gets (`zoneWork`). */
import { availableParallelism } from 'node:os';
import type { Context } from 'koa';
import { z } from 'zod';
import { AppError } from '../lib/errors';
import { FairSlots, type Acquire } from '../lib/fair-slots';
import { MAX_RDATA_BYTES, MAX_RECORDS, MAX_TTL, MIN_TTL, RECORD_TYPES } from '../zonefiles';
import { encodeCursor, decodeCursor } from '../store/paging';
import { getRevision, listRevisions, REVISION_BYTES_PER_ZONE_BYTES } from '../store/zone-revisions';
import { applyZoneChanges, MAX_CHANGES, restoreZoneRevision, type ApplyZoneChanges, type ZoneChange, type ZoneChangeSource } from '../store/zone-changes';
import { getZone, type ZoneChangeResult } from '../store/zones';
import type { Core } from '../core/port';
import { preconditionResponse, type Conditions } from './conditional';
import {
  base, changeResultBody, DNS_503, nameservers, rrsetQuota, wireDiff, ZoneChangeResultSchema, zoneName, ZoneParams, zonePrecondition,
} from './dns';
import { zodIssues, zodMessages } from './errors';
import { zoneWorkRefused } from './limits';
import { defineOp, type AnyOp, type ApiConfig, type Deps, type ResponseSpec } from './ops';
import { ErrorSchema, NumberedListQuery, Timestamp, errorResponses, pageOf } from './schemas';

const RecordsSchema = z.array(z.strictObject({ content: z.string().max(MAX_RDATA_BYTES) })).min(1).max(MAX_RECORDS);
const OwnerSchema = z.string().meta({ description: 'the owner: an absolute name inside the zone without the trailing dot, or `@` for the apex' });
const TypeSchema = z.enum([...RECORD_TYPES, 'SOA']).meta({ description: 'upper case; SOA is the service\'s own (refused)' });
const Change = z.discriminatedUnion('op', [
  z.strictObject({
    op: z.literal('put'), name: OwnerSchema, type: TypeSchema,
    ttl: z.number().int().min(MIN_TTL).max(MAX_TTL).optional().meta({ description: 'seconds; default 3600' }),
    records: RecordsSchema.meta({ description: 'the whole new content of the rrset, as putRRset\'s' }),
  }),
  z.strictObject({ op: z.literal('delete'), name: OwnerSchema, type: TypeSchema }),
]);
const ChangesBody = z.strictObject({
  changes: z.array(Change).min(1).max(MAX_CHANGES).meta({ description: `1 to ${MAX_CHANGES} changes, at most one per rrset (name and type)` }),
  dryRun: z.boolean().optional().meta({ description: 'answer what the set would do, checked exactly as the write, and write nothing' }),
});
/** No query parameters: `?dryRun=true`, as putRRset and importZone take it, was ignored here and the write made. */
const BodyDryRun = z.strictObject({}, {
  error: (iss) => (iss.code === 'unrecognized_keys' ? `this operation takes no query parameters (${iss.keys.join(', ')}): send \`dryRun\` in the body` : undefined),
});
/** The body as validated before the handler: each change's shape is judged with the set's other refusals. */
const ChangesInput = ChangesBody.extend({ changes: z.array(z.unknown()).min(1).max(MAX_CHANGES) });

/** The changes, one of the wrong shape refused at its own index (`changes[3].ttl`) for the store to name among
 * the others' refusals, instead of in a 400 of its own that would hide them. */
const shaped = (changes: unknown[]): ZoneChange[] => changes.map((c, i) => {
  const r = Change.safeParse(c, { error: zodMessages });
  return r.success ? r.data : { op: 'refused', issues: zodIssues(r.error.issues.map((x) => ({ ...x, path: ['changes', i, ...x.path] }))) };
});

const GenerationParams = ZoneParams.extend({
  generation: z.string().regex(/^[1-9][0-9]{0,14}$/, 'generation is a whole number from 1, in decimal digits').transform(Number),
});
const RestoreBody = z.strictObject({ dryRun: z.boolean().optional().meta({ description: 'answer what the restore would do and write nothing' }) });

const RevisionHead = z.object({
  generation: z.number().int().min(1),
  serial: z.number().int(),
  at: Timestamp,
  actor: z.string(),
  summary: z.string(),
}).meta({ id: 'ZoneRevision' });
const RevisionDetail = RevisionHead.extend({ diff: ZoneChangeResultSchema.shape.diff }).meta({ id: 'ZoneRevisionDetail' });

const REFUSED_400 = '`bad_request`: every refused change is in `details.issues`, in the changes\' order (`path` `changes[i]...`: a change of '
  + 'the wrong shape, invalid content, the SOA or another rrset the service manages, a delete of an rrset that is not there, a CNAME beside another '
  + 'type, a DS without an NS or an ALIAS beside an A or AAAA once the set is applied, two changes of one rrset); any other field of '
  + 'the wrong shape (`changes` not a list of 1 to 1,000, a `dryRun` not true or false, a field of another name) is named alone, as `body...`; '
  + 'a query parameter (`?dryRun=true`: `dryRun` goes in the body here)';
export const ZONE_412 = preconditionResponse('`If-Match` does not name the zone\'s current `ETag`');
export const CHANGE_409: [number, string] = [409, '`quota_exceeded` (rrsets per zone, zone file bytes, counted on the whole set) or `alias_limit` (more than 25 ALIAS rrsets in the zone)'];

/** A change set of more changes than this, or of a body of more bytes (a few large rrsets cost as many small ones;
 * one rrset fits in a DNS message of 64 KiB, so a single put never weighs more), is whole-zone work: its checks and
 * diff cost as an import's. */
const LARGE_CHANGE_SET = 100;
const LARGE_CHANGE_BYTES = 64 * 1024;
/** Whole-zone operations an organization may have waiting for a slot (ApiConfig.zoneWork). */
const ZONE_WORK_WAITING = 8;

const zoneWorkSlotsOf = new WeakMap<ApiConfig, FairSlots>();
/** The slots of whole-zone work, one set per API (its config): a few at once for the whole process, about its
 * cores, served organization by organization in turn (lib/fair-slots.ts). */
export function zoneWorkSlots(config: ApiConfig): FairSlots {
  let slots = zoneWorkSlotsOf.get(config);
  if (!slots) zoneWorkSlotsOf.set(config, slots = new FairSlots(config.zoneWork?.slots ?? availableParallelism(), config.zoneWork?.waitingPerOrg ?? ZONE_WORK_WAITING));
  return slots;
}

/** Aborts once the request's client went away (or its answer is out): work it waits for then leaves its queue. */
export function requestGone(http: Context): AbortSignal {
  const gone = new AbortController();
  http.res.once('close', () => gone.abort(new AppError(499, 'client_gone', 'the client went away before its work had a slot')));
  return gone.signal;
}

type ZoneWorkScope = { deps: Deps; org: { id: number }; http: Context };

/**
 * Runs a CPU-heavy unit of whole-zone work (an export's page; an import's parse, checks and diff; a restore's or a
 * large change set's diff) in one of the process's slots, in the organization's turn: one tenant's burst of them
 * delays another's by one unit, not by the burst. An organization with its most waiting gets 429 `rate_limited`
 * (api/limits.ts), but for `continuing` work; a dry run counts alike (it does the same work).
 */
export async function zoneWork<T>(c: ZoneWorkScope, work: () => Promise<T>, o: Acquire = {}): Promise<T> {
  const slots = zoneWorkSlots(c.deps.config);
  const done = await slots.run(`org:${c.org.id}`, work, { signal: o.signal ?? requestGone(c.http), ...(o.continuing !== undefined && { continuing: o.continuing }) });
  if (!done) throw zoneWorkRefused(slots.waitingPerKey);
  return done.value;
}

/** The 429 of an operation doing whole-zone work (`zoneWork`). */
export const ZONE_WORK_429: ResponseSpec = {
  description: 'or the organization already has its most whole-zone operations (exports, imports, restores, change sets of over '
    + `${LARGE_CHANGE_SET} changes or ${LARGE_CHANGE_BYTES / 1024} KiB, dry runs too) waiting for this API process (${ZONE_WORK_WAITING}); \`Retry-After\` says when to try again`,
  schema: ErrorSchema, headers: ['Retry-After', 'RateLimit-Policy', 'RateLimit'],
};

/** The answer of a zone write: its result, and the generation to wait for (getZone `waitGeneration`), which a dry
 * run does not send: its generation never comes. */
function changeAnswer(core: Core, zone: string, r: ZoneChangeResult, dryRun: boolean) {
  if (dryRun) return { status: 200, body: changeResultBody(r) };
  if (r.diff.length > 0) core.nudge('zone', zone);
  return { status: 200, body: changeResultBody(r), headers: { 'X-Generation': String(r.generation) } };
}

/** The 200 of a zone write (a change set, an import, a restore). */
export const CHANGE_200 = (what: string): ResponseSpec => ({
  description: `${what}; the generation to wait for in \`X-Generation\`, which a dry run does not send`,
  schema: ZoneChangeResultSchema, optionalHeaders: ['X-Generation'],
});

/**
 * Applies changes to a customer's zone as one change set and answers it as `/changes` does: for every operation
 * that writes a zone through a set (the zone file import besides this group's).
 */
export async function runZoneChanges(
  c: { deps: Deps; core: Core; org: { id: number; plan: string }; actor: string; conditions: Conditions },
  zoneParam: string, changes: ApplyZoneChanges['changes'], opts: { dryRun: boolean; source?: ZoneChangeSource; canonical?: boolean },
) {
  const ns = await nameservers(c.core);
  const zone = zoneName(zoneParam);
  const result = await applyZoneChanges(c.deps.store, {
    orgId: c.org.id, zone, changes, actor: c.actor, dryRun: opts.dryRun, quota: rrsetQuota(c.deps, c.org),
    precondition: zonePrecondition(c.conditions, zone, ns), ...(opts.source !== undefined && { source: opts.source }), canonical: opts.canonical ?? false,
  });
  return changeAnswer(c.core, zone, result, opts.dryRun);
}

export const zoneChangeOps: AnyOp[] = [
  defineOp({
    ...base,
    operationId: 'applyZoneChanges',
    method: 'post',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}/changes',
    summary: 'Apply puts and deletes of rrsets all or nothing, as one generation and one serial (or, with `dryRun`, answer what they would do)',
    role: 'member',
    params: ZoneParams,
    query: BodyDryRun,
    body: ChangesInput,
    documentedBody: ChangesBody,
    requestHeaders: ['IfMatch'],
    responses: {
      200: CHANGE_200('what changed (or would)'),
      400: { description: REFUSED_400, schema: ErrorSchema },
      412: ZONE_412,
      429: ZONE_WORK_429,
      ...errorResponses(CHANGE_409, DNS_503),
    },
    handler: async (c) => {
      const apply = () => runZoneChanges(c, c.params.zone, shaped(c.body.changes), { dryRun: c.body.dryRun ?? false });
      const large = c.body.changes.length > LARGE_CHANGE_SET || (c.http.state.bodyBytes as number) > LARGE_CHANGE_BYTES;
      return large ? zoneWork(c, apply) : apply();
    },
  }),
  defineOp({
    ...base,
    operationId: 'listZoneRevisions',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}/revisions',
    summary: 'List the zone\'s revisions (one per generation, kept 90 days), newest first',
    role: 'viewer',
    params: ZoneParams,
    query: NumberedListQuery,
    responses: {
      200: {
        description: `revisions, newest first: kept 90 days, and while the change sets' among them (imports and restores too) hold at most ${REVISION_BYTES_PER_ZONE_BYTES} `
          + 'times the plan\'s zone size of rrsets (before and after); past that the oldest go first, the newest is always kept',
        schema: pageOf(RevisionHead),
      },
      400: { description: '`bad_request`: a zone name of one label, an invalid `limit` or `cursor`', schema: ErrorSchema },
      ...errorResponses(DNS_503),
    },
    handler: async ({ deps, core, org, params, query }) => {
      await nameservers(core);
      const zone = await getZone(deps.store, org.id, zoneName(params.zone));
      const before = query.cursor === undefined ? undefined : Number(decodeCursor(query.cursor));
      const page = await listRevisions(deps.store, zone.name, query.limit, before);
      return { status: 200, body: { items: page.items, nextCursor: page.next === null ? null : encodeCursor([String(page.next)]) } };
    },
  }),
  defineOp({
    ...base,
    operationId: 'getZoneRevision',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}/revisions/{generation}',
    summary: 'Read one revision of the zone with its diff',
    role: 'viewer',
    params: GenerationParams,
    responses: {
      200: { description: 'the revision', schema: RevisionDetail },
      400: { description: '`bad_request`: a zone name of one label, a generation that is not a number', schema: ErrorSchema },
      ...errorResponses(DNS_503),
    },
    handler: async ({ deps, core, org, params }) => {
      await nameservers(core);
      const zone = await getZone(deps.store, org.id, zoneName(params.zone));
      const rev = await getRevision(deps.store, zone.name, params.generation);
      return { status: 200, body: { ...rev, diff: wireDiff(rev.diff) } };
    },
  }),
  defineOp({
    ...base,
    operationId: 'restoreZoneRevision',
    method: 'post',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}/revisions/{generation}/restore',
    summary: 'Put the zone\'s rrsets back as they were at a generation, as a new change set (a new generation and serial)',
    role: 'member',
    params: GenerationParams,
    query: BodyDryRun,
    body: RestoreBody,
    requestHeaders: ['IfMatch'],
    responses: {
      200: CHANGE_200('what changed (or would), as applyZoneChanges answers; the service\'s own rrsets are left as they are. Audited as one '
        + '`dns.zone.restore` (`details`: `generation`, `to`, `added`, `changed`, `removed`), not an event per rrset'),
      400: { description: '`bad_request`: a zone name of one label, a generation that is not a number, a query parameter (`?dryRun=true`: `dryRun` goes in the body here)', schema: ErrorSchema },
      412: ZONE_412,
      429: ZONE_WORK_429,
      ...errorResponses(CHANGE_409, DNS_503),
    },
    handler: async (c) => {
      const { deps, core, org, params, body, actor, conditions } = c;
      const ns = await nameservers(core);
      const zone = zoneName(params.zone);
      const dryRun = body.dryRun ?? false;
      const result = await zoneWork(c, () => restoreZoneRevision(deps.store, {
        orgId: org.id, zone, generation: params.generation, actor, dryRun, quota: rrsetQuota(deps, org), precondition: zonePrecondition(conditions, zone, ns),
      }));
      return changeAnswer(core, zone, result, dryRun);
    },
  }),
];
