/** defineOp's authentication modes (issue 7 item 7) on a test-only op list: user operations in `{orgSlug}` and
 * without it, node operations with and without `{nodeId}`, open operations; plus the CONTRACT's 401 rules
 * (`WWW-Authenticate: Bearer`, a case-insensitive scheme). No node operation exists yet: these ops stand in. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../../api/app';
import { defineOp, type AnyOp, type Deps } from '../../api/ops';
import { DEFAULT_PLANS } from '../../rules/plans';
import { captureLogger } from '../helpers/log';
import { createOrg, createUser, issueToken, registerNode, setMembership } from '../../store/accounts';
import { type Store } from '../../store/db';
import { openTestStore } from '../helpers/store';
import { startTestApi } from '../helpers/app';

const responses = { 200: { description: 'what the handler saw' } };

/** Each answers with the scope its handler received, so the tests see exactly what a handler gets. */
const testOps: AnyOp[] = [
  defineOp({
    operationId: 'orgThing', tag: 't', method: 'get', path: '/v1/orgs/{orgSlug}/thing', summary: 'org-scoped', role: 'member', needsCore: false,
    params: z.object({ orgSlug: z.string() }), responses,
    handler: async ({ org, role, principal, actor }) => ({ status: 200, body: { org: org.slug, role, email: principal.email, actor } }),
  }),
  defineOp({
    operationId: 'me', tag: 't', method: 'get', path: '/v1/me', summary: 'user-level', needsCore: false, responses,
    handler: async (c) => {
      // @ts-expect-error a user-level operation has no org in its context, not even a placeholder
      const org: unknown = c.org;
      return { status: 200, body: { email: c.principal.email, actor: c.actor, keys: Object.keys(c).sort(), org: org ?? null } };
    },
  }),
  defineOp({
    operationId: 'nodePing', tag: 't', method: 'post', path: '/v1/nodes/{nodeId}/ping', summary: 'node op of one node', auth: 'node', needsCore: false,
    params: z.object({ nodeId: z.string() }), responses,
    handler: async (c) => {
      // @ts-expect-error a node operation has no user principal
      const principal: unknown = c.principal;
      return { status: 200, body: { node: c.node.nodeId, actor: c.actor, keys: Object.keys(c).sort(), principal: principal ?? null } };
    },
  }),
  defineOp({
    operationId: 'nodeHello', tag: 't', method: 'get', path: '/v1/node/hello', summary: 'node op without {nodeId}', auth: 'node', needsCore: false, responses,
    handler: async ({ node }) => ({ status: 200, body: { node: node.nodeId } }),
  }),
  defineOp({
    operationId: 'open', tag: 't', method: 'get', path: '/v1/open', summary: 'no authentication', auth: 'none', needsCore: false, responses,
    handler: async (c) => {
      // @ts-expect-error an open operation has no caller
      const actor: unknown = c.actor;
      return { status: 200, body: { keys: Object.keys(c).sort(), actor: actor ?? null } };
    },
  }),
];

const BASE_KEYS = ['body', 'conditions', 'core', 'deps', 'http', 'params', 'query'];

let dir: string;
let store: Store;
let server: Server;
let url: string;
const tok: Record<'member' | 'viewer' | 'stranger' | 'n1' | 'n2', string> = { member: '', viewer: '', stranger: '', n1: '', n2: '' };

function appWith(ops: AnyOp[]) {
  const deps: Deps = { store, core: null, config: { appDomain: 'auth.test', plans: DEFAULT_PLANS, serviceDomains: [] } };
  return createApp(deps, captureLogger().log, undefined, ops);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hostplane-auth-'));
  store = await openTestStore(dir);
  await createOrg(store, 'acme', 'free');
  for (const [who, role] of [['member', 'member'], ['viewer', 'viewer']] as const) {
    await createUser(store, `${who}@acme.test`);
    await setMembership(store, 'acme', `${who}@acme.test`, role);
    tok[who] = await issueToken(store, `${who}@acme.test`);
  }
  await createUser(store, 'stranger@else.test');
  tok.stranger = await issueToken(store, 'stranger@else.test');
  tok.n1 = await registerNode(store, 'node-1');
  tok.n2 = await registerNode(store, 'node-2');
  server = createServer(appWith(testOps).handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, authorization?: string): Promise<{ status: number; body: any; headers: Headers }> {
  const r = await fetch(url + path, { method, headers: authorization === undefined ? {} : { authorization } });
  return { status: r.status, body: await r.json(), headers: r.headers };
}
const bearer = (t: string): string => `Bearer ${t}`;

function expect401(r: { status: number; body: any; headers: Headers }): void {
  expect(r.status).toBe(401);
  expect(r.body.code).toBe('unauthorized');
  expect(r.headers.get('www-authenticate')).toBe('Bearer');
}

describe('user operations in {orgSlug}', () => {
  it('a member gets the org and its role', async () => {
    const r = await call('GET', '/v1/orgs/acme/thing', bearer(tok.member));
    expect(r).toMatchObject({ status: 200, body: { org: 'acme', role: 'member', email: 'member@acme.test', actor: 'user:member@acme.test' } });
  });

  it('a too-low role is 403, a non-member and an unknown org read alike as 404', async () => {
    expect((await call('GET', '/v1/orgs/acme/thing', bearer(tok.viewer))).status).toBe(403);
    const stranger = await call('GET', '/v1/orgs/acme/thing', bearer(tok.stranger));
    const missing = await call('GET', '/v1/orgs/nope/thing', bearer(tok.member));
    expect([stranger.status, missing.status]).toEqual([404, 404]);
    expect(stranger.body.code).toBe(missing.body.code);
  });

  it('a node token is 401, as is none', async () => {
    expect401(await call('GET', '/v1/orgs/acme/thing', bearer(tok.n1)));
    expect401(await call('GET', '/v1/orgs/acme/thing'));
  });
});

describe('user operations without {orgSlug}', () => {
  it('get the caller and no org at all', async () => {
    const r = await call('GET', '/v1/me', bearer(tok.stranger));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ email: 'stranger@else.test', actor: 'user:stranger@else.test', keys: [...BASE_KEYS, 'actor', 'principal'].sort(), org: null });
  });

  it('a node token is 401', async () => {
    expect401(await call('GET', '/v1/me', bearer(tok.n1)));
  });
});

describe('node operations', () => {
  it('the node of {nodeId} with its own token gets itself as the caller, and no user', async () => {
    const r = await call('POST', '/v1/nodes/node-1/ping', bearer(tok.n1));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ node: 'node-1', actor: 'node:node-1', keys: [...BASE_KEYS, 'actor', 'node'].sort(), principal: null });
  });

  it('another node\'s {nodeId} is 404, the same whether that node exists or not', async () => {
    const other = await call('POST', '/v1/nodes/node-2/ping', bearer(tok.n1));
    const none = await call('POST', '/v1/nodes/node-9/ping', bearer(tok.n1));
    expect([other.status, none.status]).toEqual([404, 404]);
    expect(other.body.code).toBe('not_found');
    expect(other.body.message.replace('node-2', 'X')).toBe(none.body.message.replace('node-9', 'X'));
  });

  it('an operation without {nodeId} serves whichever node the token is', async () => {
    expect((await call('GET', '/v1/node/hello', bearer(tok.n2))).body).toEqual({ node: 'node-2' });
  });

  it('a user token is 401, for a member and for any user; an unknown token and none too', async () => {
    for (const t of [tok.member, tok.stranger, 'hpn_not-a-token']) expect401(await call('POST', '/v1/nodes/node-1/ping', bearer(t)));
    expect401(await call('POST', '/v1/nodes/node-1/ping'));
  });
});

describe('open operations', () => {
  it('answer without a token, and with any, and get no caller', async () => {
    for (const auth of [undefined, bearer('whatever'), bearer(tok.n1)]) {
      const r = await call('GET', '/v1/open', auth);
      expect(r).toMatchObject({ status: 200, body: { keys: BASE_KEYS, actor: null } });
    }
  });
});

describe('the Authorization header (CONTRACT)', () => {
  it('the scheme is case-insensitive', async () => {
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      expect((await call('GET', '/v1/me', `${scheme} ${tok.member}`)).status).toBe(200);
      expect((await call('POST', '/v1/nodes/node-1/ping', `${scheme}  ${tok.n1}`)).status).toBe(200);
    }
  });

  it('other schemes and malformed headers are 401', async () => {
    for (const h of [`Basic ${tok.member}`, tok.member, 'Bearer', `Bearer ${tok.member} extra`, `Bearer${tok.member}`]) expect401(await call('GET', '/v1/me', h));
  });

  it('the operations of the real API answer 401 with WWW-Authenticate too', async () => {
    const t = await startTestApi();
    try {
      const r = await t.call('GET', '/v1/orgs/acme/projects', { token: null });
      expect401({ status: r.status, body: r.body, headers: r.headers });
      expect((await t.call('GET', '/v1/orgs/acme/projects', { token: null, headers: { authorization: `bearer ${t.tokens.viewer}` } })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('mountOps refuses operations whose path and auth do not fit', () => {
  const op = (over: Record<string, unknown>): AnyOp => ({
    operationId: 'bad', tag: 't', method: 'get', path: '/v1/x', summary: 'bad', needsCore: false, responses,
    handler: async () => ({ status: 200 }), ...over,
  }) as AnyOp;
  it.each([
    ['a role without {orgSlug}', { role: 'viewer' }],
    ['{orgSlug} without a role', { path: '/v1/orgs/{orgSlug}/x' }],
    ['{orgSlug} with a null role', { path: '/v1/orgs/{orgSlug}/x', role: null }],
    ['a node operation in {orgSlug}', { auth: 'node', path: '/v1/orgs/{orgSlug}/x' }],
    ['a node operation with a role', { auth: 'node', role: 'admin' }],
    ['an open operation in {orgSlug}', { auth: 'none', path: '/v1/orgs/{orgSlug}/x' }],
    ['a parameter that is part of a segment', { auth: 'none', path: '/v1/x/{name}.json' }],
  ])('%s', (_what, over) => {
    expect(() => appWith([op(over)])).toThrow(/operation bad/);
  });
});

describe('an answer that cannot be written', () => {
  it('is a 500 for its request alone: the process and the next request carry on', async () => {
    const deps: Deps = { store, core: null, config: { appDomain: 'auth.test', plans: DEFAULT_PLANS, serviceDomains: [] } };
    const unwritable = defineOp({
      operationId: 'unwritable', tag: 't', method: 'get', path: '/v1/unwritable', summary: 'a body JSON cannot hold', auth: 'none', needsCore: false, responses,
      handler: async () => ({ status: 200, body: { n: 1n }, headers: { ETag: '"e"', 'Cache-Control': 'max-age=60' } }),
    });
    const fine = defineOp({
      operationId: 'fine', tag: 't', method: 'get', path: '/v1/fine', summary: 'ok', auth: 'none', needsCore: false, responses,
      handler: async () => ({ status: 200, body: { ok: true } }),
    });
    const { log, text } = captureLogger();
    const s = createServer(createApp(deps, log, undefined, [unwritable, fine]).handler);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    try {
      const bad = await fetch(`${base}/v1/unwritable`);
      expect(bad.status).toBe(500);
      // None of the headers meant for the answer that failed: a cache must not keep the 500 by them.
      expect([bad.headers.get('etag'), bad.headers.get('cache-control')]).toEqual([null, null]);
      expect(bad.headers.get('x-request-id')).toBeTruthy();
      expect(await bad.json()).toMatchObject({ code: 'internal', message: 'internal error' });
      expect(text()).toContain('unexpected error');
      expect((await fetch(`${base}/v1/fine`)).status).toBe(200);
    } finally {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });
});

