/** Zone files in and out (CONTRACT.md "Zone changes, files and revisions"): export as an RFC 1035 master file, and
 * import one as a change set. The file format is zonefiles/'s (parse.ts, render.ts, import.ts). */
import { z } from 'zod';
import { badRequest } from '../lib/errors';
import { pageByPage } from '../lib/page-stream';
import { getZone, zoneRRsetsAt } from '../store/zones';
import { exportHead, exportLines, importChanges, MAX_ZONE_FILE_BYTES, parseZoneFile } from '../zonefiles';
import { soaFor } from '../zonefiles/soa';
import { notModified, notModifiedResponse, zoneTag } from './conditional';
import { base, DNS_503, nameservers, zoneName, ZoneParams } from './dns';
import { defineOp, type AnyOp } from './ops';
import { CHANGE_200, CHANGE_409, requestGone, runZoneChanges, ZONE_412, ZONE_WORK_429, zoneWork } from './zone-changes';
import { ErrorSchema, errorResponses } from './schemas';

/** Rrsets read and rendered at a time by an export, and their stored bytes at most (a page of large TXT rrsets is
 * fewer of them): it is streamed, so that its memory does not grow with the zone. */
const EXPORT_PAGE = 1000;
const EXPORT_PAGE_BYTES = 256 * 1024;

/** Served as `text/dns` (RFC 4027), in UTF-8 (which is ASCII: the renderer escapes every other byte). */
const TEXT_DNS = 'text/dns';

const ImportQuery = z.strictObject({
  mode: z.enum(['merge', 'replace']).optional().meta({
    description: '`merge` (default): the file\'s rrsets are put where they differ, the others stay; `replace`: the customer\'s rrsets the file lacks are '
      + 'also deleted. Either way the service\'s own rrsets stay: the file\'s apex SOA and apex NS are ignored, and so are its DNSSEC records (RRSIG, '
      + 'NSEC, NSEC3, NSEC3PARAM, DNSKEY, CDS, CDNSKEY: the service signs a zone itself, DNSSEC being the zone\'s own setting; a DS at a delegation '
      + 'is the customer\'s and imported); a change to another rrset the service manages (a hostname\'s, an ACME challenge) is refused at its line',
  }),
  dryRun: z.enum(['true', 'false']).transform((v) => v === 'true').optional()
    .meta({ description: '`true`: answer what the import would do (`diff`, the generation and serial it would take) and write nothing' }),
});
const ImportBody = z.string().meta({
  description: `an RFC 1035 master file of the zone, at most ${MAX_ZONE_FILE_BYTES} bytes: \`$ORIGIN\` (the zone by default), \`$TTL\`, \`@\`, relative names, `
    + 'an omitted owner, parentheses, `;` comments, quoted strings with `\\"` and `\\DDD`, TTL units (`1h30m`), class `IN` or none; not `$INCLUDE` nor `$GENERATE`. '
    + 'Records of one name and type take the first one\'s TTL, as BIND does. `knotc zone-read`\'s line prefix `[<zone>.]` is read when it names this zone. '
    + 'An ALIAS is read as `ALIAS <target>.` (PowerDNS, by hand) or as an export writes it, `TYPE65401 \\# <length> <hex>` (RFC 3597)',
});

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
        description: 'the master file; TXT values split into strings of 255 bytes as served; an ALIAS in RFC 3597\'s generic form under PowerDNS\'s type '
          + 'code (`TYPE65401 \\# <length> <hex>`, the target in wire form), after a comment naming it (`; ALIAS cdn.example.net.`), so that kzonecheck, '
          + 'BIND and Knot take the file. Importing it again changes nothing. `ETag` is getZone\'s. '
          + 'Streamed as it is read: should a write change a part of the zone not sent yet, or a reading held back for over 5 minutes be '
          + 'overtaken by the pruning of deletions made since it began, the answer ends unfinished (read it again); a client that takes none of it '
          + 'for 30 s (up to 60 s) is disconnected',
        textType: TEXT_DNS, headers: ['ETag', 'X-Generation'],
      },
      304: notModifiedResponse(['X-Generation']),
      400: { description: '`bad_request`: a zone name of one label', schema: ErrorSchema },
      429: ZONE_WORK_429,
      ...errorResponses(DNS_503),
    },
    handler: async (c) => {
      const { deps, core, org, params, conditions } = c;
      const ns = await nameservers(core);
      const name = zoneName(params.zone);
      const zone = await getZone(deps.store, org.id, name);
      const headers = { ETag: zoneTag(zone, ns), 'X-Generation': String(zone.generation) };
      if (notModified(conditions, headers.ETag)) return { status: 304, headers };
      const soa = soaFor(name, zone.serial, ns);
      async function* pages(): AsyncGenerator<string> {
        let head = exportHead(name, soa);
        for await (const page of zoneRRsetsAt(deps.store, zone, EXPORT_PAGE, EXPORT_PAGE_BYTES)) {
          yield head + exportLines(name, page);
          head = '';
        }
      }
      // Each page is read and rendered in a slot of its own (api/zone-changes.ts `zoneWork`), none held while the
      // client takes it; the first before answering, so that a refusal is still a 429.
      const gone = requestGone(c.http);
      const source = pages();
      const first = await zoneWork(c, () => source.next(), { signal: gone });
      async function* inTurns(): AsyncGenerator<string> {
        try {
          for (let p = first; !p.done; p = await zoneWork(c, () => source.next(), { signal: gone, continuing: true })) yield p.value;
        } finally {
          await source.return(undefined);
        }
      }
      return { status: 200, text: { type: `${TEXT_DNS}; charset=utf-8`, body: pageByPage(inTurns()) }, headers };
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
    requestHeaders: ['IfMatch'],
    responses: {
      200: CHANGE_200('what changed (or would), as `/changes` answers. Audited as one `dns.zone.import` (`details`: `mode`, `to`, `added`, `changed`, '
        + '`removed`), not an event per rrset'),
      400: {
        description: '`bad_request`: an empty file, or lines that cannot be taken: `details.issues[].path` is `line N` (the line a record starts on) for each, '
          + 'with what is wrong (syntax, an unsupported type or directive, content the API refuses, a name outside the zone, a line of another zone, '
          + 'an SOA below the apex, a change to an rrset the service manages, a CNAME beside other types); a zone name of one label, an invalid `mode` or `dryRun`',
        schema: ErrorSchema,
      },
      413: { description: `\`payload_too_large\`: the file is over ${MAX_ZONE_FILE_BYTES} bytes (1 MiB)`, schema: ErrorSchema },
      415: { description: '`unsupported_media_type`: a body that is not `text/dns` in UTF-8, or a compressed one', schema: ErrorSchema },
      412: ZONE_412,
      429: ZONE_WORK_429,
      ...errorResponses(CHANGE_409, DNS_503),
    },
    // The file is read before the write; what it changes is worked out in the write, from the zone as it holds
    // it under its lock (store/zone-changes.ts).
    handler: async (c) => {
      await nameservers(c.core);
      const name = zoneName(c.params.zone);
      await getZone(c.deps.store, c.org.id, name);
      if (c.body.trim() === '') throw badRequest(`the body is empty: send the zone file as ${TEXT_DNS}`);
      const mode = c.query.mode ?? 'merge';
      return zoneWork(c, async () => {
        const file = parseZoneFile(c.body, name);
        return runZoneChanges(c, c.params.zone, (current) => importChanges(name, current, file, mode), {
          dryRun: c.query.dryRun ?? false, canonical: true,
          source: { summary: `zone file imported (${mode})`, event: 'dns.zone.import', details: { mode } },
        });
      });
    },
  }),
];
