/** client/schema.ts is what `npm run client:generate` makes of the OpenAPI document today: a change to an
 * operation, schema, status or header that was not followed by the script fails here, saying what to run. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiDocument } from '../../api/app';
import { renderSchema, SCHEMA_FILE } from '../../scripts/client-schema';
import { startTestApi, type TestApi } from '../helpers/app';
import { ROOT } from '../helpers/proc';

/** Where two texts part: the first differing line of each, numbered, for the failure message. */
function firstDifference(committed: string, generated: string): string {
  const a = committed.split('\n');
  const b = generated.split('\n');
  const i = a.findIndex((line, n) => line !== b[n]);
  const at = i === -1 ? a.length : i;
  return `line ${at + 1}: the file has ${JSON.stringify(a[at] ?? '(end of file)')}, the document gives ${JSON.stringify(b[at] ?? '(end of file)')}`;
}

describe('client/schema.ts', () => {
  it('is what `npm run client:generate` makes of the current OpenAPI document', async () => {
    const generated = await renderSchema();
    let committed: string;
    try {
      committed = readFileSync(join(ROOT, SCHEMA_FILE), 'utf8').replace(/\r\n/g, '\n');
    } catch {
      throw new Error(`${SCHEMA_FILE} is missing: run \`npm run client:generate\``);
    }
    if (committed !== generated) {
      throw new Error(`${SCHEMA_FILE} is out of date with the OpenAPI document (api/ changed since it was generated): `
        + `run \`npm run client:generate\` and commit the result. First difference at ${firstDifference(committed, generated)}`);
    }
  });
});

describe('the document the client is generated from', () => {
  let t: TestApi;
  beforeAll(async () => { t = await startTestApi(); });
  afterAll(async () => { await t.close(); });

  it('is the one the API serves at GET /openapi.json', async () => {
    const served = await (await fetch(`${t.url}/openapi.json`)).json() as Record<string, unknown>;
    // `info` (title, version) is no part of any type; everything else must be the served document exactly.
    const { info: _served, ...servedRest } = served;
    const { info: _offline, ...offlineRest } = apiDocument();
    expect(offlineRest, 'scripts/client-schema.ts builds the document differently from api/app.ts').toEqual(servedRest);
  });
});
