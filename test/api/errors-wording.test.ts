/** Error details in one style (issue 8 item 3): field paths as `body.records[0].content`, our own wording
 * instead of zod's defaults, and valid JSON of the wrong type said to be that, not "not valid JSON". */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/app';

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi({ plan: 'pro' });
  expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: 'words.example' } })).status).toBe(200);
});
afterAll(async () => { await t.close(); });

const PROJECTS = '/v1/orgs/acme/projects';
const RRSET = '/v1/orgs/acme/dns/zones/words.example/rrsets/www.words.example/A';
const ZONES = '/v1/orgs/acme/dns/zones';

type Issue = { path: string; message: string };

const cases: [what: string, method: string, path: string, body: unknown, issues: Issue[]][] = [
  ['a missing field', 'POST', PROJECTS, {}, [{ path: 'body.name', message: 'name is required' }]],
  ['a number for a string', 'POST', PROJECTS, { name: 1 }, [{ path: 'body.name', message: 'name must be a string' }]],
  ['a string for a boolean', 'POST', PROJECTS, { name: 'ok', database: 'true' }, [{ path: 'body.database', message: 'database must be true or false' }]],
  ['null for a string', 'POST', PROJECTS, { name: null }, [{ path: 'body.name', message: 'name must be a string' }]],
  ['two unknown fields', 'POST', PROJECTS, { name: 'ok', owner: 'me', team: 1 }, [
    { path: 'body.owner', message: 'owner is not a field of this request' },
    { path: 'body.team', message: 'team is not a field of this request' },
  ]],
  ['a nested wrong type', 'PUT', RRSET, { records: [{ content: '192.0.2.1' }, { content: 3 }] }, [
    { path: 'body.records[1].content', message: 'records[1].content must be a string' },
  ]],
  ['a nested unknown field', 'PUT', RRSET, { records: [{ content: '192.0.2.1', priority: 1 }] }, [
    { path: 'body.records[0].priority', message: 'records[0].priority is not a field of this request' },
  ]],
  ['a list that is not one', 'PUT', RRSET, { records: { content: '192.0.2.1' } }, [{ path: 'body.records', message: 'records must be a list' }]],
  ['an empty list', 'PUT', RRSET, { records: [] }, [{ path: 'body.records', message: 'records must not be empty' }]],
  ['a fractional number', 'PUT', RRSET, { records: [{ content: '192.0.2.1' }], ttl: 300.5 }, [{ path: 'body.ttl', message: 'ttl must be a whole number' }]],
  ['a number under its minimum', 'PUT', RRSET, { records: [{ content: '192.0.2.1' }], ttl: 59 }, [{ path: 'body.ttl', message: 'ttl must be at least 60' }]],
  ['a number over its maximum', 'PUT', RRSET, { records: [{ content: '192.0.2.1' }], ttl: 604_801 }, [{ path: 'body.ttl', message: 'ttl must be at most 604800' }]],
  ['an empty string', 'POST', ZONES, { name: '' }, [{ path: 'body.name', message: 'name must not be empty' }]],
];

describe('zod issues in our own words', () => {
  it.each(cases)('%s → 400 with details.issues in one style', async (_what, method, path, body, issues) => {
    const r = await t.call(method, path, { body });
    expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([400, 'bad_request']);
    expect(r.body.details.issues).toEqual(issues);
    expect(r.body.message).toBe(`invalid request body: ${issues[0]!.message}`);
  });

  it('a schema\'s own message is kept, under the same path style', async () => {
    const r = await t.call('POST', PROJECTS, { body: { name: 'Not A Label' } });
    expect(r.body.details.issues).toEqual([{ path: 'body.name', message: expect.stringMatching(/^a project name is a DNS label/) }]);
    const q = await t.call('GET', `${PROJECTS}?limit=0`);
    expect(q.body.details.issues).toEqual([{ path: 'query.limit', message: expect.stringMatching(/^limit is a whole number from 1 to 1000/) }]);
  });

  it('no answer of this table words an issue as zod does', async () => {
    for (const [, method, path, body] of cases) {
      const r = await t.call(method, path, { body });
      expect(JSON.stringify(r.body)).not.toMatch(/Invalid input|expected \w+, received|Too (small|big)|Unrecognized key/);
    }
  });
});

describe('bodies that are not a JSON object', () => {
  it.each(['[]', '"x"', '3', 'null', 'true', '[{"name":"x"}]'])('valid JSON of the wrong type (%s) is "the body must be a JSON object"', async (raw) => {
    const r = await t.call('POST', PROJECTS, { raw });
    expect([r.status, r.body.code, r.body.message]).toEqual([400, 'bad_request', 'the body must be a JSON object']);
    expect(r.body.details.issues).toEqual([{ path: 'body', message: 'the body must be a JSON object' }]);
  });

  it.each(['{"name":', 'not json', '{"name":"x",}'])('%s is "not valid JSON"', async (raw) => {
    const r = await t.call('POST', PROJECTS, { raw });
    expect([r.status, r.body.code, r.body.message]).toEqual([400, 'bad_request', 'the request body is not valid JSON']);
  });
});
