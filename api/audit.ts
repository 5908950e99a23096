/** Audit read (CONTRACT.md): the organization's audit records, newest first. */
import { z } from 'zod';
import { AppError } from '../lib/errors';
import { listAudit } from '../store/feed';
import { decodeCursor, toPage } from '../store/paging';
import { defineOp, type AnyOp } from './ops';
import { ListQuery, OrgParams, Timestamp, errorResponses, pageOf } from './schemas';

const AuditRecord = z.object({
  id: z.string(), at: Timestamp, event: z.string(), actor: z.string(), target: z.string(),
  details: z.record(z.string(), z.unknown()),
}).meta({ id: 'AuditRecord' });

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
    query: ListQuery,
    responses: { 200: { description: 'audit records', schema: pageOf(AuditRecord) }, ...errorResponses() },
    handler: async ({ deps, org, query }) => {
      let before: number | undefined;
      if (query.cursor !== undefined) {
        before = Number(decodeCursor(query.cursor));
        if (!Number.isSafeInteger(before)) throw new AppError(400, 'bad_request', 'not a cursor of this API');
      }
      const rows = await listAudit(deps.store, org.id, query.limit + 1, before);
      return { status: 200, body: toPage(rows, query.limit, (r) => r.id) };
    },
  }),
];
