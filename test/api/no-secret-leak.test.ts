/**
 * ARCHITECTURE.md invariant: a secret value never appears in a response, a log line, an audit record or the
 * store (only sealed); bearer tokens never appear in logs or the store (only their SHA-256). The scan drives
 * every operation of the skeleton, including failures whose bodies carry the value, then searches everything.
 */
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { audit, secrets } from '../../store/schema';
import { startTestApi, type TestApi } from '../helpers/app';
import { storeBytes } from '../helpers/store';

const marker = (n: number): string => `Zq${n}-${randomUUID()}-PLAINTEXT-LEAK`;
/** Distinct values sent in different ways: accepted sets, refused sets and malformed bodies. */
const VALUES = Array.from({ length: 9 }, (_, i) => marker(i));
const UNKNOWN_TOKEN = `hp_unknown_${randomUUID().replace(/-/g, '')}`;

let t: TestApi;
const responses: string[] = [];

async function call(method: string, path: string, opts: { token?: string | null; body?: string; type?: string } = {}): Promise<number> {
  const headers: Record<string, string> = {};
  const token = opts.token === undefined ? t.tokens.admin : opts.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const res = await fetch(t.url + path, { method, headers, body: opts.body });
  const text = await res.text();
  await t.documented(method, path, { status: res.status, headers: res.headers, text });
  responses.push(`${res.status} ${JSON.stringify([...res.headers])} ${text}`);
  return res.status;
}

const S = '/v1/orgs/acme/projects/vault/secrets';

beforeAll(async () => {
  t = await startTestApi();
  const [v0, v1, v2, v3, v4, v5, v6, v7, v8] = VALUES as [string, ...string[]];
  expect(await call('POST', '/v1/orgs/acme/projects', { body: JSON.stringify({ name: 'vault' }) })).toBe(201);
  // Accepted: set, set again by another role, list, read, audit.
  expect(await call('PUT', `${S}/LEAK_TEST`, { body: JSON.stringify({ value: v0 }) })).toBe(200);
  expect(await call('PUT', `${S}/LEAK_TEST`, { token: t.tokens.member, body: JSON.stringify({ value: v1 }) })).toBe(200);
  expect(await call('PUT', `${S}/OTHER_ONE`, { body: JSON.stringify({ value: v2 }) })).toBe(200);
  expect(await call('GET', S)).toBe(200);
  expect(await call('GET', '/v1/orgs/acme/projects/vault')).toBe(200);
  // Refused, each with a value in the body: reserved and bad names, unknown fields, wrong role, bad JSON,
  // a body of the wrong type, an unknown token.
  expect(await call('PUT', `${S}/DB`, { body: JSON.stringify({ value: v3 }) })).toBe(400);
  expect(await call('PUT', `${S}/bad-name`, { body: JSON.stringify({ value: v3 }) })).toBe(400);
  expect(await call('PUT', `${S}/LEAK_TEST`, { body: JSON.stringify({ value: v4, previous: v4 }) })).toBe(400);
  expect(await call('PUT', `${S}/LEAK_TEST`, { token: t.tokens.viewer, body: JSON.stringify({ value: v5 }) })).toBe(403);
  expect(await call('PUT', `${S}/LEAK_TEST`, { body: `{"value": "${v6}"` })).toBe(400);
  expect(await call('PUT', `${S}/LEAK_TEST`, { body: JSON.stringify({ value: v6 }), type: 'text/plain' })).toBe(415);
  expect(await call('PUT', `${S}/LEAK_TEST`, { body: JSON.stringify({ value: [v7] }) })).toBe(400);
  expect(await call('PUT', `${S}/LEAK_TEST`, { body: JSON.stringify({ value: v7 + 'x'.repeat(70_000) }) })).toBe(400);
  expect(await call('PUT', `${S}/LEAK_TEST`, { token: UNKNOWN_TOKEN, body: JSON.stringify({ value: v8 }) })).toBe(401);
  expect(await call('PUT', '/v1/orgs/acme/projects/ghost/secrets/LEAK_TEST', { body: JSON.stringify({ value: v8 }) })).toBe(404);
  expect(await call('DELETE', `${S}/OTHER_ONE`)).toBe(204);
  expect(await call('GET', '/v1/orgs/acme/audit?limit=1000')).toBe(200);
});
afterAll(async () => { await t.close(); });

const dbBytes = (): Promise<Buffer> => storeBytes(t.store, t.dir);

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('no secret value leaves the core', () => {
  it('the scan is not vacuous: the traffic happened and the name is visible everywhere a name may be', async () => {
    expect(responses.length).toBe(18);
    expect(responses.join('\n')).toContain('LEAK_TEST');
    expect(t.logs.join('')).toContain('setSecret');
    expect((await dbBytes()).includes('LEAK_TEST')).toBe(true);
    const [stored] = await t.store.db.select({ sealed: secrets.sealed }).from(secrets).where(eq(secrets.name, 'LEAK_TEST'));
    expect(t.sealer.open('acme/vault/LEAK_TEST', stored!.sealed)).toBe(VALUES[1]);
  });

  it.each(VALUES.map((v, i) => [i, v]))('value %i is in no response body or header', (_i, value) => {
    for (const r of responses) expect(r).not.toContain(value);
  });

  it.each(VALUES.map((v, i) => [i, v]))('value %i is in no log line', (_i, value) => {
    expect(t.logs.join('')).not.toContain(value);
  });

  it.each(VALUES.map((v, i) => [i, v]))('value %i is in no audit record', async (_i, value) => {
    const rows = await t.store.db.select().from(audit);
    expect(rows.length).toBeGreaterThan(3);
    expect(JSON.stringify(rows)).not.toContain(value);
  });

  it.each(VALUES.map((v, i) => [i, v]))('value %i is not in the store, in plain or base64 form', async (_i, value) => {
    const bytes = await dbBytes();
    expect(bytes.includes(value)).toBe(false);
    expect(bytes.includes(Buffer.from(value).toString('base64'))).toBe(false);
    expect(bytes.includes(Buffer.from(value).toString('base64url'))).toBe(false);
  });
});

describe('bearer tokens are stored and logged only as SHA-256', () => {
  const tokens = (): [string, string][] => [...Object.entries(t.tokens), ['globex', t.other.token], ['unknown', UNKNOWN_TOKEN]];

  it('no token appears in any log line', () => {
    const logs = t.logs.join('');
    for (const [who, token] of tokens()) expect(logs, who).not.toContain(token);
  });

  it('no token appears in the database; issued tokens appear as their hex SHA-256', async () => {
    const bytes = await dbBytes();
    for (const [who, token] of tokens()) expect(bytes.includes(token), who).toBe(false);
    for (const role of ['viewer', 'member', 'admin', 'stranger'] as const) expect(bytes.includes(sha256(t.tokens[role])), role).toBe(true);
  });

  it('no token is echoed in a response', () => {
    for (const [who, token] of tokens()) for (const r of responses) expect(r, who).not.toContain(token);
  });
});
