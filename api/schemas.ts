/** Schemas shared by several groups. */
import { z } from 'zod';

export const ErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
  requestId: z.string().meta({ description: 'the `X-Request-Id` of this answer, for support requests' }),
}).meta({ id: 'Error' });

/** `?limit=`: decimal digits only (`0x10`, `1e1` and ` 10 ` are not limits), 1..max. */
export const Limit = (max: number, fallback: number) => z.string()
  .regex(/^[1-9][0-9]*$/, `limit is a whole number from 1 to ${max}`)
  .transform(Number)
  .pipe(z.number().max(max, `limit is at most ${max}`))
  .default(fallback);

/** `?limit=` (default 100, max 1000) and `?cursor=`, as CONTRACT.md fixes for every list. */
export const ListQuery = z.object({
  limit: Limit(1000, 100),
  cursor: z.string().regex(/^[A-Za-z0-9_-]*$/, 'not a cursor of this API').optional(),
});

export const pageOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });

export const OrgParams = z.object({ orgSlug: z.string() });
export const ProjectParams = OrgParams.extend({ projectName: z.string() });

export const Timestamp = z.string().meta({ description: 'RFC 3339, UTC', example: '2026-11-26T10:00:00Z' });

/** One condition of a reconciled resource's status, in the shape Kubernetes users know. */
export const ConditionSchema = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().meta({ description: 'CamelCase, for programs' }),
  message: z.string().meta({ description: 'for people; never carries a server path' }),
  observedGeneration: z.number().int().meta({ description: 'the generation the condition was judged at' }),
  lastTransitionTime: Timestamp.meta({ description: 'when `status` last changed' }),
}).meta({ id: 'Condition' });

/** Error responses common to org-scoped operations; each operation adds its own. */
export const errorResponses = (...extra: [number, string][]) => {
  const out: Record<number, { description: string; schema: typeof ErrorSchema }> = {
    401: { description: 'missing or unknown bearer token (`unauthorized`)', schema: ErrorSchema },
    403: { description: 'role too low (`forbidden`)', schema: ErrorSchema },
    404: { description: 'organization or target not found, or not the caller\'s (`not_found`)', schema: ErrorSchema },
  };
  for (const [status, description] of extra) out[status] = { description, schema: ErrorSchema };
  return out;
};
