/**
 * What `npm run client:generate` writes to client/schema.ts, and what test/client/schema.test.ts compares that
 * file with: the OpenAPI document of the API, built offline from the operations (no store, no server), turned
 * into TypeScript types by openapi-typescript. Deterministic: the same operations give the same text.
 */
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { apiDocument } from '../api/app';

/** Where the generated types live, relative to the repository root. */
export const SCHEMA_FILE = 'client/schema.ts';

const HEADER = `/**
 * GENERATED FILE, do not edit: \`npm run client:generate\` writes it (scripts/generate-client.ts) from the OpenAPI
 * document the API serves at GET /openapi.json, with openapi-typescript. Change the operations in api/, then run
 * the script again; test/client/schema.test.ts fails while this file and the document disagree.
 */
`;

/** The text of client/schema.ts for `doc`. */
export async function renderSchema(doc: Record<string, unknown> = apiDocument()): Promise<string> {
  // A copy: openapi-typescript's bundler annotates the object it is given.
  const ast = await openapiTS(structuredClone(doc) as unknown as OpenAPI3, { silent: true });
  return HEADER + astToString(ast);
}
