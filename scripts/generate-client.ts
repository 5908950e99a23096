/** `npm run client:generate`: (re)writes client/schema.ts, the types of the typed client, from the OpenAPI
 * document of the operations in api/. Run it whenever an operation, schema, status or header changes. */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSchema, SCHEMA_FILE } from './client-schema';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', SCHEMA_FILE);
const text = await renderSchema();
let before = '';
try { before = readFileSync(file, 'utf8'); } catch { /* first generation */ }
if (text === before) {
  process.stdout.write(`${SCHEMA_FILE} is up to date\n`);
} else {
  writeFileSync(file, text);
  process.stdout.write(`wrote ${SCHEMA_FILE}\n`);
}
