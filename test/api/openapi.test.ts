/** The OpenAPI document is exact (issue 8 item 1): a valid OpenAPI 3.1 document without reference cycles whose
 * components are real schemas; request schemas as strict as the validation behind them; every status each
 * operation can answer; lists whose cursors are only those this API issued; and the reference page at /docs,
 * served whole by this API. Every answer of the API tests is checked against the document by
 * test/helpers/openapi.ts; here that checker is shown to catch what drifts. */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { allOps } from '../../api/app';
import type { AnyOp } from '../../api/ops';
import { registerNode } from '../../store/accounts';
import { startTestApi, type TestApi } from '../helpers/app';
import { OpenApiChecker, schemaCompiler } from '../helpers/openapi';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let t: TestApi;
let doc: Json;
beforeAll(async () => {
  t = await startTestApi({ plan: 'pro' });
  doc = await (await fetch(`${t.url}/openapi.json`)).json() as Json;
});
afterAll(async () => { await t.close(); });

const opById = (id: string): AnyOp => allOps.find((o) => o.operationId === id)!;

describe('the document', () => {
  it('passes an OpenAPI 3.1 validator', async () => {
    const validator = new Validator();
    const r = await validator.validate(structuredClone(doc));
    expect(r.errors, JSON.stringify(r.errors, null, 1)).toBeUndefined();
    expect(r.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('dereferences whole and without cycles', async () => {
    const validator = new Validator();
    expect((await validator.validate(structuredClone(doc))).valid).toBe(true);
    const whole = validator.resolveRefs();
    // A cycle would make the dereferenced document an object graph JSON cannot write.
    const text = JSON.stringify(whole);
    expect(text).not.toContain('"$ref"');
    expect(JSON.parse(text).paths['/v1/orgs/{orgSlug}/dns/zones/{zone}'].get.responses['200'].content['application/json'].schema.properties.rrsets.items.properties.type.enum)
      .toContain('TXT');
  });

  it('every component schema is a real schema, never a reference to itself', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    expect(Object.keys(schemas).sort()).toEqual(['AccessAuthorize', 'AccessAuthorizeRequest', 'AccessBypass', 'AccessPolicy', 'AccessPut', 'AccessRedeemRequest', 'AccessRedeemed', 'AuditRecord', 'AuthProviderPut', 'AuthSettings', 'AuthSettingsPatch', 'AuthStatus', 'Bundle', 'BundleProject', 'Condition', 'DS', 'Domain', 'DomainAuthCode', 'DomainAvailability', 'DomainContact', 'DomainDetail', 'DomainLedgerEntry', 'DomainList', 'Error', 'Hostname', 'HostnameList', 'NodeReport', 'NodeReportAnswer', 'Project', 'ProjectDetail', 'RRset', 'SecretMeta', 'SecretStatus', 'StorageStatus', 'Timestamp', 'Zone', 'ZoneChangeResult', 'ZoneDetail', 'ZoneRevision', 'ZoneRevisionDetail']);
    for (const [id, s] of Object.entries(schemas)) {
      expect(s.$ref, id).toBeUndefined();
      expect(s.type, id).toEqual(expect.any(String));
    }
    expect(schemas.Error!.required).toEqual(['code', 'message', 'requestId']);
    expect(schemas.Error!.additionalProperties).toBe(false);
    expect(schemas.ZoneDetail!.properties.rrsets.items).toEqual({ $ref: '#/components/schemas/RRset' });
    expect(schemas.Zone!.properties.ds.items).toEqual({ $ref: '#/components/schemas/DS' });
  });

  it.each(allOps.map((o) => [o.operationId, o] as const))('%s documents every status its edges can answer', (_id, op) => {
    const responses = doc.paths[op.path][op.method].responses as Json;
    const statuses = Object.keys(responses).map(Number);
    expect(statuses).toEqual(expect.arrayContaining([401, 429, 500]));
    if (op.body) expect(statuses).toEqual(expect.arrayContaining([400, 413, 415]));
    if (op.query) expect(statuses).toContain(400);
    if (op.needsCore) expect(statuses).toContain(503);
    if (op.role) expect(statuses).toEqual(expect.arrayContaining([403, 404]));
    for (const [status, r] of Object.entries(responses)) {
      const response = r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r;
      expect(response.headers['X-Request-Id'], status).toEqual({ $ref: '#/components/headers/X-Request-Id' });
      if (Number(status) >= 400) expect(response.content['application/json'].schema, status).toEqual({ $ref: '#/components/schemas/Error' });
    }
    expect(responses[401]).toEqual({ $ref: '#/components/responses/Unauthorized' });
    // An operation's own 429 (whole-zone work's, a node's held long-polls) keeps the edge's causes, and only its own
    // cause is added: another operation's never shows.
    expect(responses[429]).toEqual(op.responses[429]
      ? expect.objectContaining({ description: expect.stringMatching(new RegExp(`^\`rate_limited\`: too many failed authentications[^;]*; ${op.responses[429].description.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)) })
      : { $ref: '#/components/responses/RateLimited' });
  });

  it('path parameters that refuse values document 400: the rrset type, the secret name, a zone name of one label', () => {
    expect(doc.paths['/v1/orgs/{orgSlug}/dns/zones/{zone}/rrsets/{name}/{type}'].delete.responses[400]).toBeDefined();
    expect(doc.paths['/v1/orgs/{orgSlug}/dns/zones/{zone}'].delete.responses[400]).toBeDefined();
    expect(doc.paths['/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}'].put.responses[400]).toBeDefined();
    // Looked up, never validated: anything that is not there is 404.
    expect(doc.paths['/v1/orgs/{orgSlug}/projects/{projectName}'].get.responses[400]).toBeUndefined();
    expect(doc.paths['/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}'].delete.responses[400]).toBeUndefined();
  });

  it.each(allOps.filter((o) => o.secretAnswer).map((o) => [o.operationId, o] as const))('%s answers a secret: its 200 requires Cache-Control: no-store', (_id, op) => {
    expect(doc.paths[op.path][op.method].responses[200].headers['Cache-Control']).toEqual({ $ref: '#/components/headers/Cache-Control' });
  });

  it('the zone file operations say text/dns: importZone\'s body, exportZone\'s answer; their errors stay JSON', () => {
    const ops = doc.paths['/v1/orgs/{orgSlug}/dns/zones/{zone}/import'].post;
    expect(ops.operationId).toBe('importZone');
    expect(Object.keys(ops.requestBody.content)).toEqual(['text/dns']);
    expect(ops.requestBody.content['text/dns'].schema).toMatchObject({ type: 'string' });
    expect(ops.responses[415].description).toContain('text/dns');
    expect(Object.keys(ops.responses[200].content)).toEqual(['application/json']);
    const exp = doc.paths['/v1/orgs/{orgSlug}/dns/zones/{zone}/export'].get;
    expect(exp.operationId).toBe('exportZone');
    expect(exp.responses[200].content).toEqual({ 'text/dns': { schema: { type: 'string' } } });
    expect(Object.keys(exp.responses[200].headers)).toEqual(expect.arrayContaining(['ETag', 'X-Generation']));
    expect(exp.responses[404].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
  });

  it('405, 401 and 429 carry their headers: Allow, WWW-Authenticate, Retry-After', () => {
    const { responses, headers } = doc.components;
    expect(Object.keys(responses.MethodNotAllowed.headers)).toEqual(['X-Request-Id', 'Allow']);
    expect(Object.keys(responses.Unauthorized.headers)).toEqual(['X-Request-Id', 'WWW-Authenticate']);
    expect(Object.keys(responses.RateLimited.headers)).toEqual(['X-Request-Id', 'Retry-After', 'RateLimit-Policy', 'RateLimit']);
    expect(headers['Retry-After'].required).toBe(true);
    expect(responses.RateLimited.description).toContain('rate_limited');
  });
});

describe('request schemas are as strict as the validation', () => {
  const DS = { keyTag: 2371, algorithm: 13, digestType: 2, digest: 'ab'.repeat(32) };
  type Case = [what: string, value: unknown, accepted: boolean];
  const bodies: [string, Case[]][] = [
    ['putRRset', [
      ['a record', { records: [{ content: '192.0.2.1' }] }, true],
      ['ttl 604800', { records: [{ content: 'x' }], ttl: 604_800 }, true],
      ['ttl 59', { records: [{ content: 'x' }], ttl: 59 }, false],
      ['ttl 604801', { records: [{ content: 'x' }], ttl: 604_801 }, false],
      ['a fractional ttl', { records: [{ content: 'x' }], ttl: 300.5 }, false],
      ['a string ttl', { records: [{ content: 'x' }], ttl: '300' }, false],
      ['content of 65,535 characters', { records: [{ content: 'x'.repeat(65_535) }] }, true],
      ['content of 65,536 characters', { records: [{ content: 'x'.repeat(65_536) }] }, false],
      ['1001 records', { records: Array.from({ length: 1001 }, () => ({ content: 'x' })) }, false],
      ['no records', { records: [] }, false],
      ['an unknown field', { records: [{ content: 'x' }], proxied: true }, false],
    ]],
    ['setZoneDS', [
      ['a SHA-256 DS', { ds: [DS] }, true],
      ['lower and upper case hex', { ds: [{ ...DS, digest: 'aB'.repeat(32) }] }, true],
      ['a SHA-1 DS', { ds: [{ ...DS, digestType: 1, digest: 'ab'.repeat(20) }] }, true],
      ['a SHA-384 DS', { ds: [{ ...DS, digestType: 4, digest: 'ab'.repeat(48) }] }, true],
      ['another digest type with 64 bytes', { ds: [{ ...DS, digestType: 3, digest: 'ab'.repeat(64) }] }, true],
      ['SHA-256 of SHA-1 length', { ds: [{ ...DS, digest: 'ab'.repeat(20) }] }, false],
      ['SHA-1 of SHA-256 length', { ds: [{ ...DS, digestType: 1 }] }, false],
      ['SHA-384 of SHA-256 length', { ds: [{ ...DS, digestType: 4 }] }, false],
      ['an odd number of digits', { ds: [{ ...DS, digestType: 3, digest: 'a'.repeat(65) }] }, false],
      ['130 digits', { ds: [{ ...DS, digestType: 3, digest: 'ab'.repeat(65) }] }, false],
      ['non-hex digits', { ds: [{ ...DS, digest: 'xy'.repeat(32) }] }, false],
      ['keyTag 65536', { ds: [{ ...DS, keyTag: 65_536 }] }, false],
      ['17 values', { ds: Array.from({ length: 17 }, () => DS) }, false],
    ]],
    ['createProject', [
      ['a name', { name: 'blog' }, true],
      ['63 characters', { name: 'a'.repeat(63) }, true],
      ['64 characters', { name: 'a'.repeat(64) }, false],
      ['upper case', { name: 'Blog' }, false],
      ['a trailing hyphen', { name: 'blog-' }, false],
      ['database as a string', { name: 'blog', database: 'true' }, false],
    ]],
    ['setSecret', [
      ['a value of 64 KiB', { value: 'x'.repeat(65_536) }, true],
      ['a longer value', { value: 'x'.repeat(65_537) }, false],
      ['no value', {}, false],
    ]],
  ];
  it.each(bodies.flatMap(([id, cases]) => cases.map(([what, value, accepted]) => [id, what, value, accepted] as const)))(
    '%s body with %s: accepted=%s by the document and by the validation alike',
    (id, _what, value, accepted) => {
      const op = opById(id);
      const documented = schemaCompiler(doc)('paths', op.path, op.method, 'requestBody', 'content', 'application/json', 'schema');
      expect(documented(value), JSON.stringify(documented.errors)).toBe(accepted);
      expect((op.body as z.ZodType).safeParse(value).success).toBe(accepted);
    },
  );

  const parameters: [string, string, Case[]][] = [
    ['putRRset', 'type', [['A', 'A', true], ['TXT', 'TXT', true], ['SOA (409 managed_rrset)', 'SOA', true], ['lower case', 'a', false], ['HTTPS', 'HTTPS', true], ['DS', 'DS', true], ['SPF', 'SPF', false], ['"A "', 'A ', false]]],
    ['setSecret', 'secretName', [
      ['API_KEY', 'API_KEY', true], ['64 characters', `A${'B'.repeat(63)}`, true], ['65 characters', `A${'B'.repeat(64)}`, false],
      ['lower case', 'api_key', false], ['a leading digit', '1ABC', false], ['a hyphen', 'A-B', false],
    ]],
    ['listProjects', 'limit', [
      ['1', '1', true], ['1000', '1000', true], ['999', '999', true], ['0', '0', false], ['1001', '1001', false], ['0x10', '0x10', false],
      ['1e1', '1e1', false], ['" 10 "', ' 10 ', false], ['010', '010', false], ['-1', '-1', false], ['1.5', '1.5', false], ['an empty string', '', false],
    ]],
    ['getZone', 'limit', [['1000', '1000', true], ['1001', '1001', false], ['10000', '10000', false]]],
  ];
  it.each(parameters.flatMap(([id, name, cases]) => cases.map(([what, value, accepted]) => [id, name, what, value, accepted] as const)))(
    '%s parameter %s = %s: accepted=%s by the document and by the validation alike',
    (id, name, _what, value, accepted) => {
      const op = opById(id);
      const params = doc.paths[op.path][op.method].parameters as Json[];
      const index = params.findIndex((p) => p.name === name);
      const documented = schemaCompiler(doc)('paths', op.path, op.method, 'parameters', String(index), 'schema');
      expect(documented(value), JSON.stringify(documented.errors)).toBe(accepted);
      const where = params[index]!.in === 'path' ? op.params : op.query;
      expect((where as z.ZodObject).shape[name]!.safeParse(value).success).toBe(accepted);
    },
  );

  it('limit\'s default is documented as sent: a string of digits', () => {
    const limit = (doc.paths['/v1/orgs/{orgSlug}/projects'].get.parameters as Json[]).find((p) => p.name === 'limit')!;
    expect(limit).toMatchObject({ in: 'query', required: false, schema: { type: 'string', default: '100', pattern: '^(?:[1-9][0-9]{0,2}|1000)$' } });
  });
});

describe('the checker of answers catches drift', () => {
  let checker: OpenApiChecker;
  beforeAll(() => { checker = new OpenApiChecker(doc); });
  const json = (status: number, body: unknown, extra: Record<string, string> = {}) => ({
    status, text: JSON.stringify(body), headers: new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r1', ...extra }),
  });
  const page = { items: [{ name: 'blog', hostname: 'blog.example', database: false, createdAt: '2026-11-26T10:00:00.000Z', deletingSince: null }], nextCursor: null };
  const error = { code: 'not_found', message: 'project ghost not found', requestId: 'r1' };
  const P = '/v1/orgs/acme/projects';

  it('checks the content type of a text answer', () => {
    const text = (type: string) => ({ status: 200, text: '$ORIGIN example.com.\n', headers: new Headers({ 'content-type': type, 'x-request-id': 'r1', etag: '"1-a"', 'x-generation': '1' }) });
    const path = '/v1/orgs/acme/dns/zones/example.com/export';
    expect(checker.problems('GET', path, text('text/dns; charset=utf-8'))).toEqual([]);
    expect(checker.problems('GET', path, text('application/json'))).toEqual(['content-type is "application/json", not text/dns']);
  });

  it('passes what the document says', () => {
    expect(checker.problems('GET', `${P}?limit=5`, json(200, page))).toEqual([]);
    expect(checker.problems('GET', `${P}/ghost`, json(404, error))).toEqual([]);
    expect(checker.problems('DELETE', `${P}/blog/secrets/X`, { status: 204, text: '', headers: new Headers({ 'x-request-id': 'r1' }) })).toEqual([]);
    expect(checker.problems('PATCH', P, json(405, { ...error, code: 'method_not_allowed' }, { allow: 'GET, POST' }))).toEqual([]);
    expect(checker.problems('GET', '/healthz', json(200, { ok: true }))).toEqual([]);
  });

  it.each([
    ['an undocumented status', 'GET', P, json(418, error), /status 418 is not documented for listProjects/],
    ['a missing field', 'GET', P, json(200, { items: [] }), /must have required property 'nextCursor'/],
    ['an undocumented field', 'GET', P, json(200, { ...page, total: 1 }), /must NOT have additional properties/],
    ['a wrong type', 'GET', P, json(200, { ...page, nextCursor: 5 }), /nextCursor must be string/],
    ['a timestamp not in UTC', 'GET', P, json(200, { items: [{ ...page.items[0], createdAt: '2026-11-26T10:00:00+01:00' }], nextCursor: null }), /createdAt/],
    ['an error body with a stack', 'GET', `${P}/ghost`, json(404, { ...error, stack: 'at x' }), /additional properties/],
    ['an error code that is not snake_case', 'GET', `${P}/ghost`, json(404, { ...error, code: 'NotFound' }), /code must match pattern/],
    ['no X-Request-Id', 'GET', `${P}/ghost`, { ...json(404, error), headers: new Headers({ 'content-type': 'application/json' }) }, /header X-Request-Id is required/],
    ['a 401 without WWW-Authenticate', 'GET', P, json(401, { ...error, code: 'unauthorized' }), /header WWW-Authenticate is required/],
    ['a 405 without Allow', 'PATCH', P, json(405, { ...error, code: 'method_not_allowed' }), /header Allow is required/],
    ['a method the path lacks answered 200', 'PATCH', P, json(200, page), /has no PATCH operation/],
    ['a body on a 204', 'DELETE', `${P}/blog/secrets/X`, json(204, {}), /has no content/],
    ['text for JSON', 'GET', P, { ...json(200, page), headers: new Headers({ 'content-type': 'text/plain', 'x-request-id': 'r1' }) }, /content-type is "text\/plain"/],
  ] as const)('refuses %s', (_what, method, path, answer, problem) => {
    const problems = checker.problems(method, path, answer);
    expect(problems.join('\n')).toMatch(problem);
    expect(() => checker.check(method, path, answer)).toThrow(/does not match the OpenAPI document/);
  });
});

describe('lists: cursors are only those this API issued, and paging drops nothing', () => {
  const lists = [
    { id: 'listProjects', path: '/v1/orgs/acme/projects', key: 'name' },
    { id: 'listSecrets', path: '/v1/orgs/acme/projects/alpha/secrets', key: 'name' },
    { id: 'listZones', path: '/v1/orgs/acme/dns/zones', key: 'name' },
    { id: 'listAudit', path: '/v1/orgs/acme/audit', key: 'id' },
  ] as const;
  // Four of each list's items, and twelve audit records of their creation.
  beforeAll(async () => {
    for (const name of ['alpha', 'beta', 'gamma', 'delta']) expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name } })).status).toBe(201);
    for (const name of ['ONE', 'TWO', 'THREE', 'FOUR']) expect((await t.call('PUT', `/v1/orgs/acme/projects/alpha/secrets/${name}`, { body: { value: 'v' } })).status).toBe(200);
    for (const name of ['a.paging.example', 'b.paging.example', 'c.paging.example', 'd.paging.example']) {
      expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } })).status).toBe(200);
    }
  });

  const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64url');
  const foreign: [string, string][] = [
    ['characters outside base64url', '!!'],
    ['an empty cursor', ''],
    ['base64url that is not JSON', b64('not json')],
    ['a JSON string, not a list cursor', b64('"alpha"')],
    ['a list of a number', b64('[1]')],
    ['an rrset cursor of getZone', b64('["a.example","A"]')],
    ['padding, which this API never writes', `${b64('["alpha"]')}=`],
    ['bytes that are not UTF-8', b64(Buffer.from([0x5b, 0x22, 0xff, 0x22, 0x5d]))],
  ];
  it.each(lists.flatMap((l) => foreign.map(([what, cursor]) => [l.id, what, l, cursor] as const)))(
    '%s: a cursor of %s is 400 bad_request naming query.cursor',
    async (_id, _what, list, cursor) => {
      const r = await t.call('GET', `${list.path}?cursor=${encodeURIComponent(cursor)}`);
      expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
      expect(r.body.details.issues.map((i: { path: string }) => i.path)).toEqual(['query.cursor']);
    },
  );

  it('listAudit: a well-formed cursor of another list is none of its own', async () => {
    const r = await t.call('GET', `/v1/orgs/acme/audit?cursor=${b64('["alpha"]')}`);
    expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
  });

  it.each(lists.map((l) => [l.id, l] as const))('%s: every limit pages through all items once, a full last page included, ending with null', async (_id, list) => {
    const all = (await t.call('GET', `${list.path}?limit=1000`)).body;
    expect(all.nextCursor).toBeNull();
    const keys: string[] = all.items.map((i: Json) => i[list.key]);
    const n = keys.length;
    expect(n).toBeGreaterThanOrEqual(4);
    for (const limit of [1, 2, n - 1, n, n + 1]) {
      const seen: string[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const r = await t.call('GET', `${list.path}?limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
        expect(r.status).toBe(200);
        sizes.push(r.body.items.length);
        seen.push(...r.body.items.map((i: Json) => i[list.key]));
        cursor = r.body.nextCursor;
      } while (cursor !== null && sizes.length <= n);
      expect(seen, `limit ${limit}`).toEqual(keys);
      expect(sizes, `limit ${limit}`).toEqual([...Array.from({ length: Math.floor(n / limit) }, () => limit), ...(n % limit ? [n % limit] : [])]);
    }
  });
});

describe('/docs', () => {
  it('is an HTML page whose every asset is same-origin, served by this API, pointed at /openapi.json', async () => {
    const page = await fetch(`${t.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const html = await page.text();
    expect(html).not.toMatch(/\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    const assets = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((a) => !a.startsWith('data:'));
    expect(assets.sort()).toEqual(['/docs/init.js', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']);
    for (const asset of assets) {
      expect(asset).toMatch(/^\/[^/]/);
      const r = await fetch(t.url + asset);
      expect(r.status, asset).toBe(200);
      expect(r.headers.get('content-type'), asset).toMatch(asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      const text = await r.text();
      expect(text.length, asset).toBeGreaterThan(0);
      if (asset === '/docs/init.js') {
        expect(text).toContain('url: "/openapi.json"');
        expect(text).toContain('validatorUrl: null');
      }
    }
    expect((await fetch(`${t.url}/openapi.json`)).status).toBe(200);
  });

  it('serves nothing else from the package', async () => {
    for (const path of ['/docs/index.html', '/docs/swagger-initializer.js', '/docs/package.json', '/docs/swagger-ui-bundle.js.map']) {
      expect((await fetch(t.url + path)).status, path).toBe(404);
    }
  });
});

describe('a malformed path parameter gets an answer the document lists, for every operation', () => {
  // A well-formed value of each parameter (existing or not: 404 is always documented), and a body each operation
  // takes, so that only the parameter under test can be what is refused.
  const GOOD: Record<string, string> = {
    orgSlug: 'acme', projectName: 'blog', zone: 'example.com', name: 'www.example.com', type: 'A', host: 'www.example.com',
    provider: 'github', secretName: 'API_KEY', nodeId: 'n-params',
  };
  const BODIES: Record<string, unknown> = {
    putRRset: { records: [{ content: '192.0.2.1' }] }, setZoneDNSSEC: { enabled: true }, setZoneDS: { ds: [] },
    updateAuthSettings: { sessionDays: 30 }, setAuthProvider: { clientId: 'id', clientSecret: 'secret' }, renewDomain: { years: 1 },
    setDomainAutoRenew: { autoRenew: false }, setDomainLock: { locked: true }, setAccess: { mode: 'public' }, setSecret: { value: 'v' },
    redeemAccessCode: { code: 'c' }, reportNode: { bundleVersion: 0, projects: [] },
  };
  // No dot segments: fetch resolves them before sending, so they would test another path.
  const MALFORMED = ['-', 'a%20b', '%00', 'a..b', '%E2%82%AC%E2%82%AC', 'x'.repeat(300), 'xn--'];
  const cases = allOps.flatMap((op) => [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)
    .flatMap((param) => MALFORMED.map((value) => [op.operationId, param, value, op] as const)));

  let nodeToken: string;
  beforeAll(async () => {
    nodeToken = await registerNode(t.store, GOOD.nodeId!);
    expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: GOOD.projectName } })).status).toBe(201);
  });

  it.each(cases)('%s with {%s} = %j', async (_id, param, value, op) => {
    const path = op.path.replace(/\{(\w+)\}/g, (_m, p: string) => (p === param ? value : GOOD[p]!));
    const token = op.auth === 'node' ? nodeToken : t.tokens.admin;
    // t.call throws when the answer's status, headers or body are not the document's.
    const r = await t.call(op.method.toUpperCase(), path, { token, ...(op.operationId in BODIES ? { body: BODIES[op.operationId] } : {}) });
    expect(r.status).toBeLessThan(500);
  });
});
