/** OpenAPI 3.1 generated from the operations' zod schemas (JSON Schema 2020-12, which 3.1 uses as is). */
import { z } from 'zod';
import type { AnyOp } from './ops';
import { ErrorSchema } from './schemas';

type Json = Record<string, unknown>;

export function openApiDocument(ops: AnyOp[], info: { title: string; version: string }): Json {
  const components: Record<string, Json> = {};
  // Schemas with `.meta({ id })` become shared components; the rest are inlined.
  const schema = (s: z.ZodType, io: 'input' | 'output'): Json => {
    const generated = JSON.stringify(z.toJSONSchema(s, { io, unrepresentable: 'any', target: 'draft-2020-12' }));
    const out = JSON.parse(generated.replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
    const defs = (out.$defs ?? {}) as Record<string, Json>;
    delete out.$defs;
    delete out.$schema;
    for (const [id, def] of Object.entries(defs)) components[id] = def;
    const id = (s.meta() as { id?: string } | undefined)?.id;
    if (id) {
      components[id] = out;
      return { $ref: `#/components/schemas/${id}` };
    }
    return out;
  };
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of ops) {
    const parameters: Json[] = [];
    for (const [where, obj] of [['path', op.params], ['query', op.query]] as const) {
      if (!obj) continue;
      for (const [name, field] of Object.entries((obj as z.ZodObject).shape)) {
        parameters.push({ name, in: where, required: where === 'path' || !(field as z.ZodType).safeParse(undefined).success, schema: schema(field as z.ZodType, 'input') });
      }
    }
    const responses: Json = {};
    const documented = op.needsCore && !op.responses[503]
      ? { ...op.responses, 503: { description: '`no_core` (no core configured) or `core_unavailable` (the core does not answer)', schema: ErrorSchema } }
      : op.responses;
    for (const [status, r] of Object.entries(documented)) {
      responses[status] = r.schema ? { description: r.description, content: { 'application/json': { schema: schema(r.schema, 'output') } } } : { description: r.description };
    }
    (paths[op.path] ??= {})[op.method] = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      description: op.role ? `Minimum role: ${op.role}.${op.needsCore ? ' Needs the core component (503 `no_core` without it).' : ''}` : undefined,
      security: [{ bearer: [] }],
      parameters,
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: schema(op.body, 'input') } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: { schemas: components, securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  };
}
