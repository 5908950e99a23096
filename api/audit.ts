/** Audit read (docs/api.md, The audit log): the organization's audit records, newest first, of one actor or target. */
import { z } from 'zod';
import { listAudit } from '../store/feed';
import { decodeCursor, toPage } from '../store/paging';
import { defineOp, type AnyOp } from './ops';
import { NumberedListQuery, OrgParams, Timestamp, errorResponses, pageOf } from './schemas';

const AuditRecord = z.object({
  id: z.string().regex(/^[1-9][0-9]*$/), at: Timestamp, event: z.string(), actor: z.string(), target: z.string(),
  details: z.record(z.string(), z.unknown()),
}).meta({ id: 'AuditRecord' });

/** The audit log pages by record id. */
const AuditQuery = NumberedListQuery.extend({
  actor: z.string().min(1).max(320).optional().meta({ description: 'only the records of this actor (`user:<email>`, `node:<id>`)' }),
  target: z.string().min(1).max(512).optional()
    .meta({ description: 'only the records of this target and of the targets under it (`blog` is also `blog/API_KEY`; a zone, also its rrsets)' }),
});

export const auditOps: AnyOp[] = [
  defineOp({
    operationId: 'listAudit',
    tag: 'audit',
    method: 'get',
    path: '/v1/orgs/{orgSlug}/audit',
    summary: 'Read the organization\'s audit log, newest first',
    role: 'admin',
    needsCore: false,
    params: OrgParams,
    query: AuditQuery,
    responses: { 200: { description: 'audit records', schema: pageOf(AuditRecord) }, ...errorResponses() },
    handler: async ({ deps, org, query }) => {
      const before = query.cursor === undefined ? undefined : Number(decodeCursor(query.cursor));
      const rows = await listAudit(deps.store, org.id, query.limit + 1, before, { actor: query.actor, target: query.target });
      return { status: 200, body: toPage(rows, query.limit, (r) => r.id) };
    },
  }),
];
