/** Zone files in and out (CONTRACT.md "Zone changes, files and revisions"): export as an RFC 1035 master file, and
 * import one as a change set. The file format is zonefiles/'s (parse.ts, render.ts, import.ts). */
import { z } from 'zod';
import { AppError, badRequest } from '../lib/errors';
import { zoneWithRRsets, type ZoneWithStatus } from '../store/zones';
import { exportZoneFile, importChanges, MAX_ZONE_FILE_BYTES, parseZoneFile, type ZoneChange } from '../zonefiles';
import { soaFor } from '../zonefiles/soa';
import { notModified, notModifiedResponse, zoneTag } from './conditional';
import { base, DNS_503, nameservers, zoneName, ZoneParams } from './dns';
import { defineOp, type AnyOp, type Reply } from './ops';
import { ErrorSchema, errorResponses } from './schemas';

/** Served as `text/dns` (RFC 4027), in UTF-8 (which is ASCII: the renderer escapes every other byte). */
const TEXT_DNS = 'text/dns';

const ImportQuery = z.strictObject({
  mode: z.enum(['merge', 'replace']).optional().meta({
    description: '`merge` (default): the file\'s rrsets are put where they differ, the others stay; `replace`: the customer\'s rrsets the file lacks are '
      + 'also deleted. Either way the service\'s own rrsets stay: the file\'s SOA and apex NS are ignored, and a change to another rrset the service '
      + 'manages (a hostname\'s, an ACME challenge) is refused at its line',
  }),
  dryRun: z.enum(['true', 'false']).transform((v) => v === 'true').optional()
    .meta({ description: '`true`: answer what the import would do (`diff`, the generation and serial it would take) and write nothing' }),
});
const ImportBody = z.string().meta({
  description: `an RFC 1035 master file of the zone, at most ${MAX_ZONE_FILE_BYTES} bytes: \`$ORIGIN\` (the zone by default), \`$TTL\`, \`@\`, relative names, `
    + 'an omitted owner, parentheses, `;` comments, quoted strings with `\\"` and `\\DDD`, TTL units (`1h30m`), class `IN` or none; not `$INCLUDE` nor `$GENERATE`. '
    + 'Records of one name and type take the first one\'s TTL, as BIND does',
});

const RRsetContent = z.object({ ttl: z.number().int(), records: z.array(z.object({ content: z.string() })) });
/** The answer of `/changes`, which an import is. */
const ImportResult = z.object({
  generation: z.number().int().min(0).meta({ description: 'the zone\'s generation after the import (unchanged when nothing changed); with `dryRun`, the one it would take' }),
  serial: z.number().int().min(0).max(2 ** 32 - 1).meta({ description: 'the zone\'s SOA serial after the import; with `dryRun`, the one it would take' }),
  diff: z.array(z.object({
    op: z.enum(['add', 'remove', 'change']),
    name: z.string(),
    type: z.string(),
    before: RRsetContent.nullable(),
    after: RRsetContent.nullable(),
  })).meta({ description: 'the rrsets that change; an import of what the zone holds lists none' }),
});

/**
 * The import's apply step: its changes as ONE change set, answered as `/changes` answers. To be connected to the
 * change-set operation (branch `changesets`: api/zone-changes.ts `runZoneChanges`, over store/zone-changes.ts
 * `applyZoneChanges`), which writes them all or nothing as one generation and one serial, with the zone's
 * `If-Match` and the dry run. putRRset and deleteRRset cannot stand in for it: each writes in a transaction and a
 * generation of its own, so a refused change halfway would leave the zone half imported. Until it is connected,
 * an import that changes nothing answers so (the zone as it is, an empty diff), and one that would change something
 * is 501 `not_implemented`.
 */
function applyImport(zone: ZoneWithStatus, changes: ZoneChange[]): Reply {
  if (changes.length > 0) {
    throw new AppError(501, 'not_implemented', `the import would make ${changes.length} changes, and this build cannot apply a change set yet`);
  }
  return { status: 200, body: { generation: zone.generation, serial: zone.serial, diff: [] }, headers: { 'X-Generation': String(zone.generation) } };
}

export const zoneFileOps: AnyOp[] = [
  defineOp({
    ...base,
    operationId: 'exportZone',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}/export',
    summary: 'The zone as an RFC 1035 master file (`text/dns`): `$ORIGIN`, the SOA, then every rrset getZone lists, in its order, names absolute',
    role: 'viewer',
    params: ZoneParams,
    requestHeaders: ['IfNoneMatch'],
    responses: {
      200: {
        description: 'the master file; TXT values split into strings of 255 bytes as served. Importing it again changes nothing. `ETag` is getZone\'s',
        textType: TEXT_DNS, headers: ['ETag', 'X-Generation'],
      },
      304: notModifiedResponse(['X-Generation']),
      400: { description: '`bad_request`: a zone name of one label', schema: ErrorSchema },
      ...errorResponses(DNS_503),
    },
    handler: async ({ deps, core, org, params, conditions }) => {
      const ns = await nameservers(core);
      const name = zoneName(params.zone);
      const { zone, rrsets } = await zoneWithRRsets(deps.store, org.id, name);
      const headers = { ETag: zoneTag(zone, ns), 'X-Generation': String(zone.generation) };
      if (notModified(conditions, headers.ETag)) return { status: 304, headers };
      return { status: 200, text: { type: `${TEXT_DNS}; charset=utf-8`, body: exportZoneFile(name, soaFor(name, zone.serial, ns), rrsets) }, headers };
    },
  }),
  defineOp({
    ...base,
    operationId: 'importZone',
    method: 'post',
    path: '/v1/orgs/{orgSlug}/dns/zones/{zone}/import',
    summary: 'Import an RFC 1035 master file (`text/dns`) into the zone as one change set, merging or replacing (or, with `dryRun`, answer what it would do)',
    role: 'member',
    params: ZoneParams,
    query: ImportQuery,
    body: ImportBody,
    bodyType: TEXT_DNS,
    responses: {
      200: { description: 'what changed (or would), as `/changes` answers; the generation to wait for in `X-Generation`', schema: ImportResult, headers: ['X-Generation'] },
      400: {
        description: '`bad_request`: an empty file, or lines that cannot be taken: `details.issues[].path` is `line N` (the line a record starts on) for each, '
          + 'with what is wrong (syntax, an unsupported type or directive, content the API refuses, a name outside the zone, a change to an rrset the '
          + 'service manages, a CNAME beside other types); a zone name of one label, an invalid `mode` or `dryRun`',
        schema: ErrorSchema,
      },
      413: { description: `\`payload_too_large\`: the file is over ${MAX_ZONE_FILE_BYTES} bytes (1 MiB)`, schema: ErrorSchema },
      415: { description: '`unsupported_media_type`: a body that is not `text/dns` in UTF-8, or a compressed one', schema: ErrorSchema },
      501: { description: '`not_implemented`: the import would change the zone, and this build cannot apply a change set yet', schema: ErrorSchema },
      ...errorResponses(DNS_503),
    },
    handler: async ({ deps, core, org, params, query, body }) => {
      await nameservers(core);
      const name = zoneName(params.zone);
      const { zone, rrsets } = await zoneWithRRsets(deps.store, org.id, name);
      if (body.trim() === '') throw badRequest(`the body is empty: send the zone file as ${TEXT_DNS}`);
      const changes = importChanges(name, rrsets, parseZoneFile(body, name), query.mode ?? 'merge');
      return applyImport(zone, changes);
    },
  }),
];
