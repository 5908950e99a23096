/** DNS zones group (spec 4.1): eight operations over zones and rrsets on the service's own nameservers.
 * Handlers write desired rows only; the zone reconciler converges the nameserver and records status. */
import { z } from 'zod';
import { AppError, badRequest } from '../lib/errors';
import type { Core } from '../core/port';
import { conditionOf, isReady } from '../lib/conditions';
import { zoneNameRefusal } from '../rules/domains';
import { planOf } from '../rules/plans';
import {
  createZone, deleteRRset, deleteZone, getZone, listZones, putRRset, setZoneDnssec, setZoneDs, zoneRRsetPage, zoneRRsetPageJson,
  type RRsetCursor, type RRsetPrecondition, type ZoneChangeResult, type ZonePrecondition, type ZoneWithStatus,
} from '../store/zones';
import { cursorValue, encodeCursor } from '../store/paging';
import {
  checkCnameConflict, MAX_MESSAGE_BYTES, MAX_RDATA_BYTES, MAX_RECORDS, MAX_TTL, MIN_TTL, normalizeHostname, normalizeZoneName, RECORD_TYPES,
  resolveOwner, validateRRset, type RecordType,
} from '../zonefiles';
import { soaContent, soaFor } from '../zonefiles/soa';
import {
  notModified, notModifiedResponse, preconditionResponse, rrsetTag, rrsetTagger, soaTag, writePrecondition, zoneTag, type Conditions,
} from './conditional';
import { platformDomains } from './hostnames';
import { defineOp, type AnyOp, type Deps } from './ops';
import { ConditionSchema, CursorText, ErrorSchema, Limit, ListQuery, OrgParams, Timestamp, WaitSeconds, errorResponses, pageOf } from './schemas';
import { holdUntil, MAX_HELD_WAITS_PER_ORG, MAX_WAIT_SECONDS } from './wait';

export const ZoneParams = OrgParams.extend({
  zone: z.string().meta({ description: 'an existing zone\'s name, read in its normalized form (lower case, no trailing dot); a name of one label is 400' }),
});
/** getZone pages its rrsets (docs/api.md): at most 1,000 per answer, and about 1 MiB of zone file. */
const RRSETS_PER_PAGE = 1000;
const PAGE_BYTES = 1024 * 1024;
const RRsetCursorText = CursorText.transform((c, ctx): RRsetCursor => {
  const v = cursorValue(c);
  if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string') return { name: v[0], type: v[1] };
  ctx.addIssue({ code: 'custom', message: 'not a cursor of this API' });
  return z.NEVER;
});
const GetZoneQuery = z.strictObject({
  limit: Limit(RRSETS_PER_PAGE, RRSETS_PER_PAGE),
  cursor: RRsetCursorText.optional(),
  waitGeneration: z.string().regex(/^[1-9][0-9]{0,14}$/, 'waitGeneration is a generation: a whole number from 1, in decimal digits').transform(Number).optional()
    .meta({
      description: 'hold the answer until the zone is served at this generation or a later one (its `Ready` condition True, judged at it or later), '
        + 'or until `wait` ends; then answer the zone as it is. A write\'s `X-Generation` is the number to wait for',
    }),
  wait: WaitSeconds.optional()
    .meta({
      description: `seconds to hold for \`waitGeneration\` at most: 0 to ${MAX_WAIT_SECONDS}, default ${MAX_WAIT_SECONDS}; only with \`waitGeneration\`. `
        + `An organization holds at most ${MAX_HELD_WAITS_PER_ORG} waits at once (per API process): beyond that the zone is answered at once as it is `
        + '(200, `status` says whether it is served yet), as when `wait` ends; poll again',
    }),
});
const encodeRRsetCursor = (c: RRsetCursor): string => encodeCursor([c.name, c.type]);
const RRsetParams = ZoneParams.extend({
  name: z.string().meta({ description: 'the owner: an absolute name inside the zone without the trailing dot (`www.example.com`), or `@` for the apex' }),
  type: z.enum([...RECORD_TYPES, 'SOA']).meta({ description: 'upper case; SOA is the service\'s own (409 `managed_rrset`)' }),
});

/** Hex digits of the digest per DS digest type (RFC 3658 SHA-1, RFC 4509 SHA-256, RFC 6605 SHA-384). */
const DIGEST_HEX: Record<number, number> = { 1: 40, 2: 64, 4: 96 };
/** DIGEST_HEX as JSON Schema, which a refinement does not reach. */
const digestLengths = {
  allOf: Object.entries(DIGEST_HEX).map(([type, hex]) => ({
    if: { properties: { digestType: { type: 'integer', const: Number(type) } }, required: ['digestType'] },
    then: { properties: { digest: { type: 'string', minLength: hex, maxLength: hex } } },
  })),
};
const dsNumbers = {
  keyTag: z.number().int().min(0).max(65_535),
  algorithm: z.number().int().min(0).max(255),
  digestType: z.number().int().min(0).max(255),
};
const DsValue = z.strictObject({
  ...dsNumbers,
  digest: z.string().regex(/^(?:[0-9a-fA-F]{2}){20,64}$/, 'digest is hex, 40 to 128 digits, whole bytes').transform((d) => d.toUpperCase())
    .meta({ description: 'hex, whole bytes: 40 digits for digest type 1 (SHA-1), 64 for 2 (SHA-256), 96 for 4 (SHA-384), 40 to 128 for others' }),
}).refine((v) => DIGEST_HEX[v.digestType] === undefined || v.digest.length === DIGEST_HEX[v.digestType], {
  message: 'digest length does not match digestType (1: 40, 2: 64, 4: 96 hex digits)', path: ['digest'],
}).meta(digestLengths);
/** A DS value as answered: the digest is stored in upper case. */
const DsRecord = z.object({ ...dsNumbers, digest: z.string().regex(/^(?:[0-9A-F]{2}){20,64}$/) }).meta({ id: 'DS', ...digestLengths });

const CreateZoneBody = z.strictObject({
  name: z.string().min(1).max(253).meta({
    description: 'at least two labels; normalized (lower case, A-labels, no trailing dot) to at most 232 characters; '
      + 'not a public suffix, nor at or under the app domain, the registrable domain of the nameservers or of the fallback origin, or a service domain',
  }),
});
const PutRRsetBody = z.strictObject({
  records: z.array(z.strictObject({
    content: z.string().max(MAX_RDATA_BYTES).meta({
      description: 'the record in zone-file form (`192.0.2.1`, `10 mail.example.com`, a TXT value as it is; HTTPS/SVCB in RFC 9460 form, `1 . alpn=h2,h3 port=443`; '
        + 'TLSA `3 1 1 <hex>`; SSHFP `4 2 <hex>`; NAPTR `100 10 "S" "SIP+D2U" "" _sip._udp.example.com`; DS `<key tag> <algorithm> <digest type> <hex>`, only '
        + 'at a name with NS below the apex; ALIAS one host name, `cdn.example.net`, served as its A and AAAA, at any name but beside no A or AAAA'
        + `); no record's data is over ${MAX_RDATA_BYTES} octets, `
        + `and the rrset, with room for DNSSEC signatures, must fit one DNS message of ${MAX_MESSAGE_BYTES} octets (a TXT value of about 60,000 bytes at most, `
        + 'less under a long zone name): else 400 naming the record',
    }),
  })).min(1).max(MAX_RECORDS).meta({ description: 'the whole new content of the rrset' }),
  ttl: z.number().int().min(MIN_TTL).max(MAX_TTL).optional().meta({ description: 'seconds; default 3600' }),
});
const SetDnssecBody = z.strictObject({ enabled: z.boolean() });
const SetDsBody = z.strictObject({ ds: z.array(DsValue).max(16) });

/** SOA serials are unsigned 32-bit numbers (RFC 1982). */
const Serial = z.number().int().min(0).max(2 ** 32 - 1);
const Generation = z.number().int().min(0);
const ZoneStatus = z.object({
  generation: Generation,
  observedGeneration: Generation.nullable(),
  ready: z.boolean().meta({ description: 'the nameserver was checked to serve this generation (the Ready condition is True at it)' }),
  conditions: z.array(ConditionSchema).meta({
    description: '`Ready` (reasons `Served`, `NotServed`, `ApplyFailed`, `NameserverDown`, `InvalidZoneName`; while DNSSEC turns off `WaitingForParent`, `WaitingForCaches`, `ParentDsUnknown`), '
      + '`Signed` with DNSSEC on or turning off (`KeysPublished`, `KeysPending`, `DeletingDs`: CDS/CDNSKEY DELETE published for the parent) '
      + 'with secondaries configured, `SecondariesInSync` (`InSync`, `SecondaryBehind`: the message names each secondary behind and the serial it serves) '
      + 'and, with ALIAS rrsets, `AliasResolved` (`Resolved`; `TargetNotResolving`, `NotResolvedYet`: the message names each ALIAS and its target)',
  }),
  servedSerial: Serial.nullable().meta({ description: 'the SOA serial the nameserver answered with (a signer may serve more than `serial`)' }),
  lastError: z.string().nullable().meta({ description: 'the Ready condition\'s message while it is not True, else null' }),
  reconciledAt: Timestamp.nullable().meta({ description: 'when the reconciler last recorded a change of this status' }),
  signerDs: z.array(DsRecord).meta({ description: 'DS values the signer reports for the parent (observed; record them with setZoneDS)' }),
  aliases: z.array(z.object({
    name: z.string(),
    target: z.string(),
    addresses: z.array(z.string()).meta({ description: 'the A then AAAA addresses served at `name` (at most 16 of each); [] while the target never resolved (nothing is served there)' }),
    ttl: z.number().int().nullable().meta({ description: 'their TTL: the target\'s, at least 30 and at most 300 seconds' }),
    resolvedAt: Timestamp.nullable().meta({ description: 'when the target last answered with addresses' }),
    checkedAt: Timestamp.nullable().meta({ description: 'when the target was last asked (again before three quarters of `ttl` pass; every 30 s while it fails)' }),
    error: z.string().nullable().meta({ description: 'why the last look found no addresses: the target has no public A or AAAA (a name that does not exist, one without them and one with only non-public addresses read alike), or the resolver failed; the last addresses stay served' }),
  })).meta({ description: 'what each ALIAS rrset\'s target resolved to, as served (observed; the `AliasResolved` condition sums it up)' }),
});
const Zone = z.object({
  name: z.string(),
  dnssec: z.enum(['off', 'signing', 'ds_pending']),
  ds: z.array(DsRecord),
  delegated: z.boolean().meta({ description: 'whether the parent delegates the zone to the service\'s nameservers (observed)' }),
  nameservers: z.array(z.string()),
  serial: Serial,
  createdAt: Timestamp,
  status: ZoneStatus,
}).meta({ id: 'Zone' });
const RRset = z.object({
  name: z.string(),
  type: z.enum([...RECORD_TYPES, 'SOA']),
  ttl: z.number().int().min(MIN_TTL).max(MAX_TTL),
  records: z.array(z.object({ content: z.string() })),
  managedBy: z.enum(['system', 'app', 'acme']).nullable(),
  etag: z.string().meta({ description: 'the rrset\'s own entity tag, for `If-Match` on putRRset and deleteRRset; a write that changes nothing keeps it' }),
}).meta({ id: 'RRset' });
const ZoneDetail = Zone.extend({
  rrsets: z.array(RRset).meta({ description: 'one page of rrsets: the first holds the SOA and every apex rrset' }),
  nextCursor: z.string().nullable().meta({ description: 'pass as `cursor` for the next page of rrsets; null on the last page' }),
}).meta({ id: 'ZoneDetail' });

/** An rrset's content in a diff. */
const RRsetContent = z.object({ ttl: z.number().int(), records: z.array(z.object({ content: z.string() })) });
/** What a zone write did or, dry, would do: the answer of change sets, restores and dry runs. */
export const ZoneChangeResultSchema = z.object({
  generation: Generation.meta({ description: 'the zone\'s generation after the change (unchanged when nothing changed); with `dryRun`, the one it would take' }),
  serial: Serial.meta({
    description: 'the zone\'s SOA serial after the change; with `dryRun`, the one it would take. A signed zone is served with a serial at or above it '
      + '(the signer counts its own re-signing): getZone\'s `status.servedSerial` is the one the nameserver answers with',
  }),
  diff: z.array(z.object({
    op: z.enum(['add', 'remove', 'change']),
    name: z.string(),
    type: z.string(),
    before: RRsetContent.nullable().meta({ description: 'the rrset before, null when it was not there' }),
    after: RRsetContent.nullable().meta({ description: 'the rrset after, null when it is removed' }),
  })).meta({ description: 'the rrsets that change, in the order of the request; a change to what is stored already is not listed' }),
}).meta({ id: 'ZoneChangeResult' });

/** The wire form of a diff: the owner of each rrset stays in the store's revision. */
export const wireDiff = (diff: ZoneChangeResult['diff']) => diff.map((d) => ({ op: d.op, name: d.name, type: d.type, before: d.before, after: d.after }));

export const changeResultBody = (r: ZoneChangeResult): z.input<typeof ZoneChangeResultSchema> => ({ generation: r.generation, serial: r.serial, diff: wireDiff(r.diff) });

const DryRunQuery = z.strictObject({
  dryRun: z.enum(['true', 'false']).transform((v) => v === 'true').optional()
    .meta({ description: '`true`: answer what the write would do (`diff`, and the generation and serial it would take), checked exactly as the write, and write nothing' }),
});

export const DNS_503: [number, string] = [503, '`dns_not_configured` (no own DNS), `no_core` or `core_unavailable`'];

/** The headers of an answer that carries a zone: its tag and its generation (the convergence receipt). */
const zoneHeaders = (zn: ZoneWithStatus, ns: string[]): Record<string, string> => ({ ETag: zoneTag(zn, ns), 'X-Generation': String(zn.generation) });

/** The zone's precondition, checked in the write's transaction; none without conditions (no status read). */
export function zonePrecondition(c: Conditions, name: string, ns: string[]): ZonePrecondition | undefined {
  return writePrecondition(c, `zone ${name}`, (cur: ZoneWithStatus) => zoneTag(cur, ns));
}

function rrsetPrecondition(c: Conditions, name: string, type: string): RRsetPrecondition | undefined {
  return writePrecondition(c, `rrset ${name} ${type}`, rrsetTag);
}

/** Served at `generation` or a later one: the Ready condition is True and was judged at it or later. */
function servedAt(zn: ZoneWithStatus, generation: number): boolean {
  const ready = conditionOf(zn.status?.conditions ?? [], 'Ready');
  return ready?.status === 'True' && ready.observedGeneration >= generation;
}

/** DNS operations need the core and a deployment with its own nameservers. */
export async function nameservers(core: Core): Promise<string[]> {
  const info = await core.dns();
  if (!info.configured) throw new AppError(503, 'dns_not_configured', 'this deployment runs no DNS of its own');
  return info.nameservers;
}

/** An existing zone's name in a path: looser than a new zone's rule, so zones made before it stay reachable. */
export function zoneName(raw: string): string {
  const name = normalizeHostname(raw);
  if (!name.includes('.')) throw badRequest(`a zone needs at least two labels: ${name}`);
  return name;
}

function zoneBody(zn: ZoneWithStatus, ns: string[]) {
  const conditions = zn.status?.conditions ?? [];
  const ready = conditionOf(conditions, 'Ready');
  return {
    name: zn.name,
    dnssec: zn.dnssec,
    ds: zn.ds,
    delegated: zn.status?.facts.delegated ?? false,
    nameservers: ns,
    serial: zn.serial,
    createdAt: zn.createdAt,
    status: {
      generation: zn.generation,
      observedGeneration: zn.status?.observedGeneration ?? null,
      ready: isReady(conditions, zn.generation),
      conditions,
      servedSerial: zn.status?.facts.servedSerial ?? null,
      lastError: ready && ready.status !== 'True' ? ready.message : null,
      reconciledAt: zn.status?.reconciledAt ?? null,
      signerDs: zn.status?.facts.signerDs ?? [],
      aliases: zn.status?.facts.aliases ?? [],
    },
  };
}

/** The zone with one page of its rrsets; the first page starts with the SOA, which counts toward `limit`. */
async function zoneDetail(deps: Deps, zn: ZoneWithStatus, ns: string[], page: { limit: number; cursor?: RRsetCursor } = { limit: RRSETS_PER_PAGE }) {
  const first = page.cursor === undefined;
  const { items, next } = await zoneRRsetPage(deps.store, zn.name, first ? page.limit - 1 : page.limit, PAGE_BYTES, page.cursor);
  const soa = soaFor(zn.name, zn.serial, ns);
  // Built field by field (no rest and spread copies): on a page of 1,000 rrsets it is most of the answer's cost.
  const tagOf = rrsetTagger(zn.uid);
  const rrsets = items.map((r) => ({ name: r.name, type: r.type, ttl: r.ttl, records: r.records, managedBy: r.managedBy, etag: tagOf(r.changedGen) }));
  return {
    ...zoneBody(zn, ns),
    rrsets: first
      ? [{ name: zn.name, type: 'SOA', ttl: soa.ttl, records: [{ content: soaContent(soa) }], managedBy: 'system', etag: soaTag(zn) }, ...rrsets]
      : rrsets,
    nextCursor: next && encodeRRsetCursor(next),
  };
}

/**
 * `zoneDetail` as JSON text, for getZone: each rrset's records are the JSON text the store holds (written by
 * JSON.stringify of the validated records), spliced in; parsing them only to serialize them again was most of the
 * answer's cost. The same document as `zoneDetail`'s, field for field.
 */
async function zoneDetailJson(deps: Deps, zn: ZoneWithStatus, ns: string[], page: { limit: number; cursor?: RRsetCursor }): Promise<string> {
  const first = page.cursor === undefined;
  const { items, next } = await zoneRRsetPageJson(deps.store, zn.name, first ? page.limit - 1 : page.limit, PAGE_BYTES, page.cursor);
  const tagOf = rrsetTagger(zn.uid);
  const parts: string[] = [];
  if (first) {
    const soa = soaFor(zn.name, zn.serial, ns);
    parts.push(JSON.stringify({ name: zn.name, type: 'SOA', ttl: soa.ttl, records: [{ content: soaContent(soa) }], managedBy: 'system', etag: soaTag(zn) }));
  }
  for (const r of items) {
    parts.push(`{"name":${JSON.stringify(r.name)},"type":${JSON.stringify(r.type)},"ttl":${r.ttl},"records":${r.records},"managedBy":${JSON.stringify(r.managed_by)},"etag":${JSON.stringify(tagOf(r.changed_gen))}}`);
  }
  const head = JSON.stringify(zoneBody(zn, ns));
  return `${head.slice(0, -1)},"rrsets":[${parts.join(',')}],"nextCursor":${JSON.stringify(next && encodeRRsetCursor(next))}}`;
}

/** The zone, owner and type an rrset path names. SOA is the service's own (409 `managed_rrset`), but only once
 * the zone is known to be the caller's: another organization's zone must read as 404 first. */
async function rrsetKey(deps: Deps, orgId: number, p: { zone: string; name: string; type: RecordType | 'SOA' }): Promise<{ zone: string; name: string; type: RecordType }> {
  const zone = zoneName(p.zone);
  const name = resolveOwner(p.name, zone);
  if (p.type !== 'SOA') return { zone, name, type: p.type };
  await getZone(deps.store, orgId, zone);
  throw new AppError(409, 'managed_rrset', `${name} SOA is managed by the service`);
}

export const base = { tag: 'dns', needsCore: true } as const;

/** The plan's per-zone limits on a customer's rrset writes. */
export function rrsetQuota(deps: Deps, org: { plan: string }): { plan: string; rrsets: number; bytes: number } {
  const plan = planOf(deps.config.plans, org.plan);
  return { plan: org.plan, rrsets: plan.rrsetsPerZone, bytes: plan.zoneBytes };
}

export const dnsOps: AnyOp[] = [
  defineOp({
    ...base,
    operationId: 'listZones',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/dns/zones',
    summary: 'List the organization\'s zones (without rrsets)',
    role: 'viewer',
    params: OrgParams,
    query: ListQuery,
    responses: { 200: { description: 'zones by name', schema: pageOf(Zone) }, ...errorResponses(DNS_503) },
    handler: async ({ deps, core, org, query }) => {
      const ns = await nameservers(core);
      const page = await listZones(deps.store, org.id, query.limit, query.cursor);
      return { status: 200, body: { items: page.items.map((zn) => zoneBody(zn, ns)), nextCursor: page.nextCursor } };
    },
  }),
  defineOp({
    ...base,
    operationId: 'createZone',
    method: 'post',
    path: '/v1/orgs/{orgSlug}/dns/zones',
    summary: 'Create a zone (idempotent for the same organization)',
    role: 'admin',
    params: OrgParams,
    body: CreateZoneBody,
    responses: {
      200: { description: 'the zone, new or existing', schema: ZoneDetail, headers: ['ETag', 'X-Generation'] },
      400: { description: '`bad_request`: an invalid zone name, a public suffix, or a domain of this service', schema: ErrorSchema },
      ...errorResponses([409, '`zone_taken`: another organization holds the zone, or one above or below it; `quota_exceeded`: the plan\'s zone quota'], DNS_503),
    },
    handler: async ({ deps, core, org, body, actor }) => {
      const ns = await nameservers(core);
      const name = normalizeZoneName(body.name);
      const refusal = zoneNameRefusal(name, platformDomains(deps, ns));
      if (refusal) throw badRequest(refusal);
      const quota = { plan: org.plan, limit: planOf(deps.config.plans, org.plan).zones };
      const { zone, created } = await createZone(deps.store, { orgId: org.id, name, nameservers: ns, actor, quota });
      if (created) core.nudge('zone', zone.name);
      return { status: 200, body: await zoneDetail(deps, zone, ns), headers: zoneHeaders(zone, ns) };
    },
  }),
  defineOp({
    ...base,
    operationId: 'getZone',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}',
    summary: 'Read a zone with one page of its rrsets (`limit` up to 1,000, `cursor`) and its reconcile status',
    role: 'viewer',
    params: ZoneParams,
    query: GetZoneQuery,
    requestHeaders: ['IfNoneMatch'],
    responses: {
      200: {
        description: 'the zone and a page of rrsets; a page may hold fewer than `limit` when its rrsets are large. With `waitGeneration`, once it is served '
          + 'at that generation, or when `wait` ends (then `status` says why not)',
        schema: ZoneDetail, headers: ['ETag', 'X-Generation'],
      },
      304: notModifiedResponse(['X-Generation']),
      400: { description: '`bad_request`: a zone name of one label, an invalid `limit`, `cursor`, `waitGeneration` or `wait`, or `wait` without `waitGeneration`', schema: ErrorSchema },
      ...errorResponses(DNS_503),
    },
    handler: async ({ deps, core, org, params, query, http, conditions }) => {
      const ns = await nameservers(core);
      const name = zoneName(params.zone);
      const read = () => getZone(deps.store, org.id, name);
      const { waitGeneration } = query;
      if (query.wait !== undefined && waitGeneration === undefined) {
        throw badRequest('invalid request query: query.wait needs waitGeneration', { issues: [{ path: 'query.wait', message: 'wait needs waitGeneration' }] });
      }
      let zn: ZoneWithStatus;
      if (waitGeneration === undefined) zn = await read();
      else {
        // A client that goes away ends its wait.
        const gone = new AbortController();
        const abort = (): void => gone.abort();
        http.res.once('close', abort);
        try {
          const deadline = Date.now() + (query.wait ?? MAX_WAIT_SECONDS) * 1000;
          zn = await holdUntil(deps.store, 'zone', name, { deadline, signal: gone.signal, owner: `org:${org.id}` }, read, (z) => servedAt(z, waitGeneration));
        } finally {
          http.res.off('close', abort);
        }
      }
      const headers = zoneHeaders(zn, ns);
      if (notModified(conditions, headers.ETag!)) return { status: 304, headers };
      return { status: 200, json: await zoneDetailJson(deps, zn, ns, query), headers };
    },
  }),
  defineOp({
    ...base,
    operationId: 'deleteZone',
    method: 'delete',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}',
    summary: 'Delete a zone and all its records (move NS at the registrar first)',
    role: 'admin',
    params: ZoneParams,
    requestHeaders: ['IfMatch'],
    responses: {
      204: { description: 'deleted' },
      400: { description: '`bad_request`: a zone name of one label', schema: ErrorSchema },
      412: preconditionResponse('`If-Match` does not name the zone\'s current `ETag`'),
      ...errorResponses(DNS_503),
    },
    handler: async ({ deps, core, org, params, actor, conditions }) => {
      const ns = await nameservers(core);
      const name = zoneName(params.zone);
      await deleteZone(deps.store, { orgId: org.id, name, actor, precondition: zonePrecondition(conditions, name, ns) });
      core.nudge('zone', name);
      return { status: 204 };
    },
  }),
  defineOp({
    ...base,
    operationId: 'putRRset',
    method: 'put',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}/rrsets/{name}/{type}',
    summary: 'Replace the whole rrset (name + type); `records` is its entire new content',
    role: 'member',
    params: RRsetParams,
    query: DryRunQuery,
    body: PutRRsetBody,
    requestHeaders: ['IfMatch', 'IfNoneMatch'],
    responses: {
      200: {
        description: 'the stored rrset; `ETag` is its tag, `X-Generation` the zone\'s generation that serves it (unchanged when the rrset was already so). '
          + 'With `dryRun=true`: a ZoneChangeResult, nothing written, and neither header (no rrset is stored under that tag, and that generation never comes)',
        schema: z.union([RRset, ZoneChangeResultSchema]), optionalHeaders: ['ETag', 'X-Generation'],
      },
      412: preconditionResponse('`If-Match` does not name the rrset\'s current `ETag` (or there is no such rrset), or `If-None-Match: *` and the rrset exists'),
      400: { description: '`bad_request`: an invalid zone name, owner, type, TTL or record content (`details.issues` names each record)', schema: ErrorSchema },
      ...errorResponses([409, '`managed_rrset`, `cname_conflict`, `ds_without_delegation` (a DS where there is no NS), `alias_conflict` (an ALIAS beside an A or AAAA), `alias_limit` (more than 25 ALIAS rrsets in the zone), or `quota_exceeded` (rrsets per zone, zone file bytes)'], DNS_503),
    },
    handler: async ({ deps, core, org, params, query, body, actor, conditions }) => {
      await nameservers(core);
      const { zone, name, type } = await rrsetKey(deps, org.id, params);
      const rrset = validateRRset(zone, { name, type, ttl: body.ttl ?? 3600, records: body.records });
      const precondition = rrsetPrecondition(conditions, name, type);
      const dryRun = query.dryRun ?? false;
      const stored = await putRRset(deps.store, {
        orgId: org.id, zone, rrset, actor, cnameConflict: checkCnameConflict, quota: rrsetQuota(deps, org), precondition, dryRun,
      });
      if (dryRun) return { status: 200, body: changeResultBody(stored) };
      const tag = rrsetTag(stored.version);
      const headers = { ETag: tag, 'X-Generation': String(stored.generation) };
      // A put of what is stored committed no change: a pass for it would find nothing to do.
      if (stored.changed) core.nudge('zone', zone);
      return { status: 200, body: { ...stored.rrset, etag: tag }, headers };
    },
  }),
  defineOp({
    ...base,
    operationId: 'deleteRRset',
    method: 'delete',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}/rrsets/{name}/{type}',
    summary: 'Delete an rrset',
    role: 'member',
    params: RRsetParams,
    query: DryRunQuery,
    requestHeaders: ['IfMatch'],
    responses: {
      200: { description: 'with `dryRun=true`: what the deletion would do, nothing written', schema: ZoneChangeResultSchema },
      204: { description: 'deleted; `X-Generation` is the zone\'s generation without the rrset', headers: ['X-Generation'] },
      400: { description: '`bad_request`: an invalid zone name, owner or type', schema: ErrorSchema },
      412: preconditionResponse('`If-Match` does not name the rrset\'s current `ETag`'),
      ...errorResponses([409, '`managed_rrset`, or `ds_without_delegation` (the NS of a name that has a DS)'], DNS_503),
    },
    handler: async ({ deps, core, org, params, query, actor, conditions }) => {
      await nameservers(core);
      const { zone, name, type } = await rrsetKey(deps, org.id, params);
      const precondition = rrsetPrecondition(conditions, name, type);
      const dryRun = query.dryRun ?? false;
      const deleted = await deleteRRset(deps.store, { orgId: org.id, zone, name, type, actor, precondition, dryRun });
      if (dryRun) return { status: 200, body: changeResultBody(deleted) };
      const { generation } = deleted;
      core.nudge('zone', zone);
      return { status: 204, headers: { 'X-Generation': String(generation) } };
    },
  }),
  defineOp({
    ...base,
    operationId: 'setZoneDNSSEC',
    method: 'post',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}/dnssec',
    summary: 'Turn DNSSEC signing on (off → signing) or off (deletes the recorded DS values)',
    role: 'admin',
    params: ZoneParams,
    body: SetDnssecBody,
    requestHeaders: ['IfMatch'],
    responses: {
      200: { description: 'the zone', schema: Zone, headers: ['ETag', 'X-Generation'] },
      400: { description: '`bad_request`: a zone name of one label, or an invalid body', schema: ErrorSchema },
      412: preconditionResponse('`If-Match` does not name the zone\'s current `ETag`'),
      ...errorResponses(DNS_503),
    },
    handler: async ({ deps, core, org, params, body, actor, conditions }) => {
      const ns = await nameservers(core);
      const name = zoneName(params.zone);
      const precondition = zonePrecondition(conditions, name, ns);
      const zone = await setZoneDnssec(deps.store, { orgId: org.id, zone: name, enabled: body.enabled, actor, precondition });
      core.nudge('zone', zone.name);
      return { status: 200, body: zoneBody(zone, ns), headers: zoneHeaders(zone, ns) };
    },
  }),
  defineOp({
    ...base,
    operationId: 'setZoneDS',
    method: 'put',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}/dnssec/ds',
    summary: 'Record the DS values present at the parent (signing → ds_pending; an empty list means none yet)',
    role: 'admin',
    params: ZoneParams,
    body: SetDsBody,
    requestHeaders: ['IfMatch'],
    responses: {
      200: { description: 'the zone', schema: Zone, headers: ['ETag', 'X-Generation'] },
      400: { description: '`bad_request`: a zone name of one label, or invalid DS values', schema: ErrorSchema },
      412: preconditionResponse('`If-Match` does not name the zone\'s current `ETag`'),
      ...errorResponses([409, '`dnssec_off`'], DNS_503),
    },
    handler: async ({ deps, core, org, params, body, actor, conditions }) => {
      const ns = await nameservers(core);
      const name = zoneName(params.zone);
      const precondition = zonePrecondition(conditions, name, ns);
      const zone = await setZoneDs(deps.store, { orgId: org.id, zone: name, ds: body.ds, actor, precondition });
      return { status: 200, body: zoneBody(zone, ns), headers: zoneHeaders(zone, ns) };
    },
  }),
];
