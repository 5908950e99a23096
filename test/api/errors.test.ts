/** The error model (CONTRACT.md conventions, spec part 7) and the operability endpoints: every failure gets its
 * code and the body {code, message, details?}, never a 500 or a stack trace; X-Request-Id on every response;
 * /healthz and a generated /openapi.json; /metrics is not public (test/e2e/connections.test.ts reads it on its own
 * listener). */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allOps } from '../../api/app';
import { toErrorBody } from '../../api/errors';
import { framesOf, messageOf, reasonOf } from '../../lib/errors';
import { onPostgres, openTestStore } from '../helpers/store';
import { orgs } from '../../store/schema';
import { WriteAbortedError } from '../../store/db';
import { DrizzleQueryError } from 'drizzle-orm';
import { startTestApi, type TestApi } from '../helpers/app';
import { until } from '../helpers/proc';

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi({ plan: 'pro' });
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'alpha' } })).status).toBe(201);
});
afterAll(async () => { await t.close(); });

interface Raw { status: number; text: string; headers: Headers }

/** A request with full control of headers and body; answers the raw text. */
async function raw(method: string, path: string, opts: { body?: string; headers?: Record<string, string>; token?: string | null } = {}): Promise<Raw> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? t.tokens.admin : opts.token;
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(t.url + path, { method, headers, body: opts.body });
  const answer = { status: res.status, text: await res.text(), headers: res.headers };
  await t.documented(method, path, answer);
  return answer;
}
const json = { 'content-type': 'application/json' };

/** Every error answer of this file, checked for shape and leaks at the end. */
const errorAnswers: { label: string; r: Raw }[] = [];
async function expectError(label: string, r: Raw, status: number, code: string): Promise<Record<string, any>> {
  errorAnswers.push({ label, r });
  expect(r.status, `${label}: ${r.text}`).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(r.text) as Record<string, any>;
  expect(body.code).toBe(code);
  return body;
}

const PROJECTS = '/v1/orgs/acme/projects';
const SECRET = '/v1/orgs/acme/projects/alpha/secrets/ERR_CHECK';

describe('bad bodies', () => {
  const malformed = ['{"name":', '{name: "x"}', "{'name':'x'}", '{"name":"x",}', 'not json', '{"name":"x"}}'];
  it.each(malformed)('malformed JSON %j is 400 bad_request', async (body) => {
    await expectError('malformed', await raw('POST', PROJECTS, { body, headers: json }), 400, 'bad_request');
  });

  it.each(['null', '"blog"', '42', '[]', '[{"name":"x"}]', 'true'])('JSON that is not an object (%s) is 400 bad_request', async (body) => {
    await expectError('not an object', await raw('POST', PROJECTS, { body, headers: json }), 400, 'bad_request');
  });

  const wrongTypes: [string, string, unknown, string][] = [
    ['createProject name: number', PROJECTS, { name: 1 }, 'body.name'],
    ['createProject database: string', PROJECTS, { name: 'typed', database: 'true' }, 'body.database'],
    ['createProject name: object', PROJECTS, { name: { first: 'x' } }, 'body.name'],
    ['setSecret value: number', SECRET, { value: 7 }, 'body.value'],
    ['setSecret value: array', SECRET, { value: ['a'] }, 'body.value'],
  ];
  it.each(wrongTypes)('wrong type (%s) is 400 with details.issues naming the field', async (label, path, body, field) => {
    const method = path === PROJECTS ? 'POST' : 'PUT';
    const b = await expectError(label, await raw(method, path, { body: JSON.stringify(body), headers: json }), 400, 'bad_request');
    expect(b.details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: field })]));
  });

  it.each([
    ['createProject', 'POST', PROJECTS, { name: 'extra', owner: 'me' }],
    ['setSecret', 'PUT', SECRET, { value: 'v', version: 9 }],
  ] as const)('unknown fields in a %s body are 400 bad_request', async (label, method, path, body) => {
    const b = await expectError(label, await raw(method, path, { body: JSON.stringify(body), headers: json }), 400, 'bad_request');
    expect(b.details.issues.length).toBeGreaterThan(0);
  });

  it.each([
    ['malformed JSON', '{"name":'],
    ['a body over 1 MiB', JSON.stringify({ name: 'big', pad: 'x'.repeat(1024 * 1024 + 10) })],
  ])('%s from a caller without a valid token is 401: bodies are read only after authentication', async (_label, body) => {
    await expectError('no token', await raw('POST', PROJECTS, { body, headers: json, token: null }), 401, 'unauthorized');
    await expectError('stranger', await raw('POST', PROJECTS, { body, headers: json, token: t.tokens.stranger }), 404, 'not_found');
    await expectError('viewer', await raw('POST', PROJECTS, { body, headers: json, token: t.tokens.viewer }), 403, 'forbidden');
  });

  it('a body over 1 MiB is 413 payload_too_large', async () => {
    const body = JSON.stringify({ name: 'big', pad: 'x'.repeat(1024 * 1024 + 10) });
    await expectError('too large', await raw('POST', PROJECTS, { body, headers: json }), 413, 'payload_too_large');
  });

  it('a body just under 1 MiB is read, not refused for its size', async () => {
    const body = JSON.stringify({ name: 'big', pad: 'x'.repeat(1024 * 1024 - 100) });
    expect(body.length).toBeLessThan(1024 * 1024);
    // Read and then refused for its unknown field: proof that the limit is not lower than 1 MiB.
    await expectError('under limit', await raw('POST', PROJECTS, { body, headers: json }), 400, 'bad_request');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x'])(
    'a %s body is 415 unsupported_media_type',
    async (type) => {
      await expectError(type, await raw('POST', PROJECTS, { body: '{"name":"typed-wrong"}', headers: { 'content-type': type } }), 415, 'unsupported_media_type');
      expect((await t.call('GET', `${PROJECTS}/typed-wrong`)).status).toBe(404);
    },
  );

  it('a body sent chunked (no Content-Length) must be JSON too: 415, and nothing created', async () => {
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${t.url}${PROJECTS}`, { method: 'POST', headers: { authorization: `Bearer ${t.tokens.admin}`, 'content-type': 'text/plain' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => { text += String(c); }).on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.write('{"name":"chunked-');
      req.end('wrong"}');
    });
    expect(answer.status, answer.text).toBe(415);
    expect(JSON.parse(answer.text)).toMatchObject({ code: 'unsupported_media_type' });
    expect((await t.call('GET', `${PROJECTS}/chunked-wrong`)).status).toBe(404);
  });

  it('application/json with a charset parameter is accepted', async () => {
    const r = await raw('POST', PROJECTS, { body: '{"name":"charset"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(r.status).toBe(201);
  });
});

describe('routes and methods', () => {
  it.each(['/nope', '/v1', '/v1/orgs', '/v1/orgs/acme', '/v1/orgs/acme/nothing', '/v2/orgs/acme/projects', '/v1/orgs/acme/projects/alpha/secrets/A/B'])(
    'unknown route %s is 404 not_found',
    async (path) => {
      await expectError(path, await raw('GET', path), 404, 'not_found');
    },
  );

  // PostgreSQL's text cannot hold U+0000: looked up there, such a name failed the query with a 500.
  it.each([
    ['orgSlug', '/v1/orgs/%00/projects', 'organization \0 not found'],
    ['projectName', `${PROJECTS}/a%00b`, 'projectName not found: no name holds U+0000'],
    ['secretName', `${PROJECTS}/alpha/secrets/A%00`, 'secretName not found: no name holds U+0000'],
  ])('a path parameter holding U+0000 (%s) names nothing: 404 not_found on either store, 401 first', async (_param, path, message) => {
    expect((await expectError(path, await raw('GET', path), 404, 'not_found')).message).toBe(message);
    await expectError(path, await raw('GET', path, { token: null }), 401, 'unauthorized');
  });

  it.each([
    ['DELETE', PROJECTS, ['GET', 'POST']],
    ['PATCH', PROJECTS, ['GET', 'POST']],
    ['PUT', `${PROJECTS}/alpha`, ['GET']],
    ['POST', '/v1/orgs/acme/projects/alpha/secrets/X', ['PUT', 'DELETE']],
    ['POST', '/healthz', ['GET']],
    ['DELETE', '/v1/orgs/acme/audit', ['GET']],
  ] as const)('%s %s is 405 method_not_allowed with an Allow header', async (method, path, allowed) => {
    const r = await raw(method, path, method === 'DELETE' ? {} : { body: '{}', headers: json });
    await expectError(`${method} ${path}`, r, 405, 'method_not_allowed');
    const allow = (r.headers.get('allow') ?? '').split(/\s*,\s*/);
    for (const m of allowed) expect(allow).toContain(m);
    expect(allow).not.toContain(method);
  });

  /** The raw answer to `GET <target>`, sent as is. The socket stays open for writing: Node's server aborts a request
   * whose client half-closed, which an answer computed within the same turn (SQLite's reads) outran. */
  const ask = (target: string) => new Promise<string>((resolve, reject) => {
    const { port } = new URL(t.url);
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.tokens.admin}\r\nConnection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (c: Buffer) => { text += String(c); }).on('end', () => resolve(text)).on('error', reject);
  });

  /** Each operation path, with its methods as Allow names them. */
  const methodsAt = new Map<string, string[]>();
  for (const op of allOps) methodsAt.set(op.path, [...(methodsAt.get(op.path) ?? []), ...(op.method === 'get' ? ['GET', 'HEAD'] : [op.method.toUpperCase()])]);
  const isParam = (seg: string): boolean => /^\{\w+\}$/.test(seg);
  /** Paths with a literal segment where another path of the same operations has a parameter, and all else alike. */
  const literalBesideParam = [...methodsAt].flatMap(([literal, own]) => [...methodsAt].flatMap(([param, theirs]) => {
    const a = literal.split('/');
    const b = param.split('/');
    const within = a.length === b.length && b.every((seg, i) => isParam(seg) || (!isParam(a[i]!) && seg.toLowerCase() === a[i]!.toLowerCase()));
    const differs = b.some((seg, i) => isParam(seg) && !isParam(a[i]!));
    return within && differs ? [{ literal, own, param, missing: theirs.filter((m) => !own.includes(m)) }] : [];
  }));

  it('the table of literal paths beside parameter paths is not empty (it would test nothing)', () => {
    expect(literalBesideParam.map((x) => x.literal)).toContain('/v1/orgs/{orgSlug}/domains/check');
  });

  it.each(literalBesideParam.map((x) => [x.literal, x.param, x] as const))(
    '%s is its own route beside %s: a method of the other alone is 405, and Allow and OPTIONS name its own methods',
    async (literal, _param, { own, missing }) => {
      const path = literal.replace(/\{orgSlug\}/, 'acme').replace(/\{(\w+)\}/g, 'some-$1');
      expect(missing.length).toBeGreaterThan(0);
      for (const method of missing) {
        // A HEAD answer has no body to check against the document.
        const r = method === 'HEAD' ? await fetch(t.url + path, { method }) : await raw(method, path);
        if (method !== 'HEAD') await expectError(`${method} ${path}`, r as Raw, 405, 'method_not_allowed');
        expect(r.status, `${method} ${path}`).toBe(405);
        expect((r.headers.get('allow') ?? '').split(/\s*,\s*/).sort(), `${method} ${path}`).toEqual([...own].sort());
      }
      const options = await fetch(t.url + path, { method: 'OPTIONS' });
      expect(options.status).toBe(200);
      expect((options.headers.get('allow') ?? '').split(/\s*,\s*/).sort()).toEqual([...own].sort());
    },
  );

  it('a request target in absolute form reaches its operation, and a fragment is no part of the path', async () => {
    const { port } = new URL(t.url);
    for (const target of [`http://127.0.0.1:${port}${PROJECTS}/alpha`, `HTTP://h${PROJECTS}/alpha?x=1`, `${PROJECTS}/alpha#frag`, `${PROJECTS}/alpha?x=1#frag`]) {
      const answer = await ask(target);
      expect(answer.split('\r\n')[0], target).toBe('HTTP/1.1 200 OK');
      expect(answer, target).toContain('"name":"alpha"');
    }
  });

  it('a path is matched as sent: `..` is not resolved, in either form of target', async () => {
    // Resolved, these would be the project list (200): a front proxy's path filter must see what the API matches.
    for (const target of [`${PROJECTS}/alpha/..`, `http://h${PROJECTS}/alpha/..`, `${PROJECTS}/alpha/%2e%2e`]) {
      expect((await ask(target)).split('\r\n')[0], target).toBe('HTTP/1.1 404 Not Found');
    }
  });

  it('a target the URL parser refuses is 400 with the JSON error body and its request id, and a request line', async () => {
    const answer = await ask('http://[::1/healthz');
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head!.toLowerCase()).toContain('x-request-id:');
    const { requestId } = JSON.parse(body!) as { requestId: string };
    expect(requestId).toBeTruthy();
    expect(JSON.parse(body!)).toMatchObject({ code: 'bad_request' });
    // The target as sent: it has no path of its own.
    await until('its request line', () => t.logs.some((l) => l.includes(`"reqId":"${requestId}"`) && l.includes('"path":"http://[::1/healthz"')));
  });

  it('a client gone before its answer is logged as 499, aborted', async () => {
    const { port } = new URL(t.url);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`POST ${PROJECTS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.tokens.admin}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`);
        setTimeout(() => { socket.destroy(); resolve(); }, 50);
      });
    });
    await until('the aborted request line', () => t.logs.some((l) => l.includes('"aborted":true')));
    const line = JSON.parse(t.logs.find((l) => l.includes('"aborted":true'))!) as Record<string, unknown>;
    expect(line).toMatchObject({ method: 'POST', path: PROJECTS, operation: 'createProject', status: 499, aborted: true });
  });

  it('HEAD answers as GET without the body, OPTIONS lists the methods, another method is 501, a trailing slash is the same path', async () => {
    const headers = { authorization: `Bearer ${t.tokens.admin}` };
    const get = await fetch(`${t.url}${PROJECTS}/alpha`, { headers });
    const text = await get.text();
    const head = await fetch(`${t.url}${PROJECTS}/alpha`, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(await head.text()).toBe('');
    const options = await fetch(`${t.url}${PROJECTS}`, { method: 'OPTIONS', headers });
    expect(options.status).toBe(200);
    expect((options.headers.get('allow') ?? '').split(/\s*,\s*/).sort()).toEqual(['GET', 'HEAD', 'POST']);
    const other = await fetch(`${t.url}${PROJECTS}`, { method: 'PROPFIND', headers });
    expect(other.status).toBe(501);
    expect((await other.json() as { code: string }).code).toBe('not_implemented');
    const slash = await fetch(`${t.url}${PROJECTS}/alpha/`, { headers });
    expect(slash.status).toBe(200);
    expect(await slash.text()).toBe(text);
  });

  it('a path segment with broken percent-encoding is never a 500', async () => {
    for (const path of ['/v1/orgs/%ZZ/projects', `${PROJECTS}/%E0%A4%A`, `${PROJECTS}/alpha/secrets/%C0`]) {
      const r = await raw('GET', path);
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.status, path).toBeLessThan(500);
      errorAnswers.push({ label: path, r });
    }
  });
});

describe('error bodies', () => {
  it('every error answer of this file is exactly {code, message, details?, requestId} with no stack or internal path', async () => {
    // A few more kinds, so that the scan covers 401, 403, 404 and 409 too.
    errorAnswers.push({ label: '401', r: await raw('GET', PROJECTS, { token: null }) });
    errorAnswers.push({ label: '403', r: await raw('GET', '/v1/orgs/acme/audit', { token: t.tokens.viewer }) });
    errorAnswers.push({ label: '404', r: await raw('GET', `${PROJECTS}/ghost`) });
    errorAnswers.push({ label: '409', r: await raw('POST', PROJECTS, { body: '{"name":"alpha"}', headers: json }) });
    errorAnswers.push({ label: '400 reserved', r: await raw('PUT', '/v1/orgs/acme/projects/alpha/secrets/DB', { body: '{"value":"v"}', headers: json }) });
    expect(errorAnswers.length).toBeGreaterThan(40);
    for (const { label, r } of errorAnswers) {
      expect(r.status, label).toBeGreaterThanOrEqual(400);
      expect(r.status, label).not.toBe(500);
      const body = JSON.parse(r.text) as Record<string, unknown>;
      expect(Object.keys(body).filter((k) => !['code', 'message', 'details', 'requestId'].includes(k)), label).toEqual([]);
      expect(body.requestId, label).toBe(r.headers.get('x-request-id'));
      expect(body.code, label).toMatch(/^[a-z][a-z_]*$/);
      expect(typeof body.message, label).toBe('string');
      expect((body.message as string).length, label).toBeGreaterThan(0);
      if ('details' in body) expect(typeof body.details === 'object' && body.details !== null && !Array.isArray(body.details), label).toBe(true);
      expect(r.text, label).not.toMatch(/\n\s+at |\bat [\w.<>]+ \(|node:internal|node_modules|\/work\/|\.ts:\d+|stack/);
    }
  });

  // What node-postgres throws for U+0000 in a text parameter or a jsonb cast, as drizzle wraps it: a field whose
  // schema let U+0000 through is the request's fault on PostgreSQL too, not a 500.
  it.each(['22021', '22P05'])('a store error refusing text (%s) is 400 bad_request', (code) => {
    const refused = new Error('Failed query: insert ...', { cause: Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code }) });
    const { status, body, unexpected } = toErrorBody(refused);
    expect({ status, code: body.code, unexpected }).toEqual({ status: 400, code: 'bad_request', unexpected: false });
    expect(body.message).toMatch(/U\+0000/);
  });
});

describe('failures in logs and on stderr', () => {
  // drizzle's message for a failed query lists its parameters: values of the request (an email, a sealed secret).
  it('name a failed query by its reason and statement, never its parameters', async () => {
    const s = await openTestStore();
    try {
      const failed = await s.write(async (tx) => tx.insert(orgs).values({ slug: 'secret-value-1', plan: 'secret-value-2' } as never))
        .catch((e: unknown) => e);
      // node-postgres's failures come wrapped with the parameters; better-sqlite3's as SQLite's own error.
      if (onPostgres()) expect((failed as Error).message).toContain('secret-value-1');
      for (const text of [reasonOf(failed), messageOf(failed), framesOf(failed) ?? '']) expect(text).not.toContain('secret-value');
      expect(reasonOf(failed)).toMatch(/null/i);
      if (onPostgres()) expect(messageOf(failed)).toMatch(/^null value .* \(in: insert into "orgs"/i);
    } finally {
      s.close();
    }
  });

  it('a rolled-back write names its failed query without the parameters too', () => {
    const query = new DrizzleQueryError('insert into "orgs" ("slug") values ($1)', ['secret-value-3'], new Error('duplicate key value'));
    const aborted = new WriteAbortedError(query);
    for (const text of [aborted.message, reasonOf(aborted), messageOf(aborted)]) expect(text).not.toContain('secret-value');
    expect(reasonOf(aborted)).toMatch(/rolled back .*duplicate key value \(in: insert into "orgs"/);
  });

  it('carry every cause of other errors, outermost first', () => {
    expect(reasonOf(new Error('outer', { cause: new Error('inner') }))).toBe('outer: inner');
    expect(messageOf(new Error('outer', { cause: new Error('inner') }))).toBe('outer');
    expect(reasonOf('text')).toBe('text');
  });
});

describe('request ids', () => {
  it('every response carries X-Request-Id, a fresh one per request', async () => {
    const answers = [
      await raw('GET', '/healthz'),
      await raw('GET', PROJECTS),
      await raw('GET', PROJECTS, { token: null }),
      await raw('GET', '/nope'),
      await raw('PATCH', PROJECTS),
      await raw('POST', PROJECTS, { body: 'x', headers: json }),
      await raw('POST', PROJECTS, { body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 1) }), headers: json }),
      await raw('GET', '/metrics'),
      await raw('GET', '/openapi.json'),
    ];
    const ids = answers.map((a) => a.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^\S{8,}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a request id sent by the client is echoed, on success and on error', async () => {
    const ok = await raw('GET', PROJECTS, { headers: { 'x-request-id': 'client-req.42:abc' } });
    expect(ok.headers.get('x-request-id')).toBe('client-req.42:abc');
    const err = await raw('GET', PROJECTS, { token: null, headers: { 'x-request-id': 'client-req-401' } });
    expect(err.status).toBe(401);
    expect(err.headers.get('x-request-id')).toBe('client-req-401');
  });

  it('the request id reaches the log line of the request', async () => {
    await raw('GET', PROJECTS, { headers: { 'x-request-id': 'trace-me-5150' } });
    const line = t.logs.find((l) => l.includes('trace-me-5150'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ operation: 'listProjects', status: 200 });
  });
});

describe('operability endpoints', () => {
  it('/healthz answers 200 without a token', async () => {
    const r = await raw('GET', '/healthz', { token: null });
    expect(r.status).toBe(200);
  });

  it('/metrics is not served on the API port', async () => {
    await expectError('metrics', await raw('GET', '/metrics', { token: null }), 404, 'not_found');
  });

  describe('/openapi.json', () => {
    let doc: any;
    beforeAll(async () => {
      const r = await raw('GET', '/openapi.json', { token: null });
      expect(r.status).toBe(200);
      doc = JSON.parse(r.text);
    });

    it('is OpenAPI 3.1.0', () => {
      expect(doc.openapi).toBe('3.1.0');
      expect(typeof doc.info.title).toBe('string');
      expect(typeof doc.info.version).toBe('string');
    });

    it('holds the walking skeleton\'s operations', () => {
      const ids = allOps.map((o) => o.operationId);
      for (const id of ['listProjects', 'createProject', 'getProject', 'listSecrets', 'setSecret', 'deleteSecret', 'listAudit']) expect(ids).toContain(id);
    });

    it.each(allOps.map((o) => [o.operationId, o.method.toUpperCase(), o.path, o] as const))('%s is documented at %s %s', (id, _m, _p, op) => {
      const entry = doc.paths[op.path]?.[op.method];
      expect(entry, `${op.method} ${op.path}`).toBeDefined();
      expect(entry.operationId).toBe(id);
      for (const name of op.path.match(/\{(\w+)\}/g)?.map((p) => p.slice(1, -1)) ?? []) {
        expect(entry.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name, in: 'path', required: true })]));
      }
      for (const status of Object.keys(op.responses)) expect(entry.responses[status]).toBeDefined();
      if (op.body) expect(entry.requestBody.content[op.bodyType ?? 'application/json'].schema).toBeDefined();
    });

    it('documents exactly the operations of allOps, each operationId once', () => {
      const documented = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)
        .flatMap((methods) => Object.values(methods).map((m) => m.operationId));
      expect(new Set(documented).size).toBe(documented.length);
      expect([...documented].sort()).toEqual(allOps.map((o) => o.operationId).sort());
    });

    it('every $ref points at a component the document defines', () => {
      const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) {
        const target = ref.slice('"$ref":"'.length, -1);
        expect(target).toMatch(/^#\/components\/(schemas|responses|headers|parameters)\/[\w.-]+$/);
        const [, , kind, name] = target.split('/');
        expect(doc.components[kind!][name!], target).toBeDefined();
      }
    });

    it('the request schemas come from the zod schemas: createProject\'s name pattern and strict fields', () => {
      const schema = doc.paths['/v1/orgs/{orgSlug}/projects'].post.requestBody.content['application/json'].schema;
      expect(schema.properties.name.pattern).toBe('^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$');
      expect(schema.additionalProperties).toBe(false);
      expect(schema.required).toEqual(['name']);
    });
  });
});
