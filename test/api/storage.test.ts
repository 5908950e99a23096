/**
 * Storage (spec 4.6, part 3's grants table): grant idempotent with the prefix assigned once and owned by the
 * project (a grant after a revoke gets it back), the quota the plan's, `usedBytes` as last reported, revoke
 * idempotent (204) leaving the objects with an audit record saying deletion under a prefix does not exist yet,
 * roles, and 503 `no_core` without a core.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../../rules/plans';
import { orgBySlug, registerNode } from '../../store/accounts';
import { recordReport } from '../../store/nodes';
import { setPlacement } from '../../store/projects';
import { REVOKE_NOTE } from '../../store/storage';
import { startTestApi, type TestApi } from '../helpers/app';

const S = '/v1/orgs/acme/projects/files/storage';
let t: TestApi;
beforeAll(async () => {
  t = await startTestApi();
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'files' } })).status).toBe(201);
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'other' } })).status).toBe(201);
});
afterAll(async () => { await t.close(); });

const audit = async (event: string) => (await t.call('GET', '/v1/orgs/acme/audit?limit=1000')).body.items.filter((i: { event: string }) => i.event === event);

describe('storage', () => {
  it('reads as not granted, with no prefix, before any grant', async () => {
    const r = await t.call('GET', S, { token: t.tokens.viewer });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ granted: false, prefix: null, quotaBytes: null, usedBytes: null, usedBytesAt: null, conditions: [] });
  });

  it('grant is idempotent: the same prefix, the plan\'s quota, one change and one audit record', async () => {
    const first = await t.call('POST', S, { token: t.tokens.member });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ granted: true, prefix: expect.stringMatching(/^p[0-9a-f]{24}\/$/), quotaBytes: DEFAULT_PLANS.free!.storageBytes, usedBytes: null });
    expect(first.body.conditions).toEqual([expect.objectContaining({ type: 'WithinQuota', status: 'Unknown' })]);
    const again = await t.call('POST', S, { token: t.tokens.member });
    expect(again.status).toBe(200);
    expect(again.body.prefix).toBe(first.body.prefix);
    expect(await audit('storage.grant')).toHaveLength(1);
    expect(t.nudges.filter((n) => n.kind === 'storage')).toHaveLength(1);
    // Another project gets another prefix.
    const other = await t.call('POST', '/v1/orgs/acme/projects/other/storage', { token: t.tokens.member });
    expect(other.body.prefix).not.toBe(first.body.prefix);
  });

  it('revoke is idempotent (204 twice), keeps the prefix and says in its audit record that objects stay', async () => {
    const { prefix } = (await t.call('GET', S, { token: t.tokens.viewer })).body;
    expect((await t.call('DELETE', S, { token: t.tokens.admin })).status).toBe(204);
    expect((await t.call('DELETE', S, { token: t.tokens.admin })).status).toBe(204);
    const revokes = await audit('storage.revoke');
    expect(revokes).toHaveLength(1);
    expect(revokes[0].details).toEqual({ prefix, objectsDeleted: false, note: REVOKE_NOTE });
    expect(REVOKE_NOTE).toMatch(/does not exist yet/);
    const after = await t.call('GET', S, { token: t.tokens.viewer });
    expect(after.body).toMatchObject({ granted: false, prefix, quotaBytes: null });
    expect((await t.call('GET', '/v1/orgs/acme/projects/files', { token: t.tokens.viewer })).body.grants.storage).toBe(false);
  });

  it('a grant after a revoke gets the same prefix back, so the objects under it appear again', async () => {
    const { prefix } = (await t.call('GET', S, { token: t.tokens.viewer })).body;
    const r = await t.call('POST', S, { token: t.tokens.member });
    expect(r.body).toMatchObject({ granted: true, prefix });
    expect(await audit('storage.grant')).toHaveLength(3);
    expect((await t.call('GET', '/v1/orgs/acme/projects/files', { token: t.tokens.viewer })).body.grants.storage).toBe(true);
  });

  it('usedBytes is the last report with its time; over the quota is a condition, not a refusal', async () => {
    await registerNode(t.store, 'storage-node');
    const acme = (await orgBySlug(t.store, 'acme'))!;
    await setPlacement(t.store, acme.id, 'files', 'storage-node');
    await recordReport(t.store, 'storage-node', { bundleVersion: 0, projects: [{ org: 'acme', project: 'files', usedBytes: 2 * DEFAULT_PLANS.free!.storageBytes }] });
    const r = await t.call('GET', S, { token: t.tokens.viewer });
    expect(r.body).toMatchObject({ usedBytes: 2 * DEFAULT_PLANS.free!.storageBytes, usedBytesAt: expect.any(String) });
    expect(r.body.conditions).toEqual([expect.objectContaining({ type: 'WithinQuota', status: 'False', reason: 'OverQuota' })]);
  });

  it('roles: viewer reads, member grants, admin revokes; another org is 404', async () => {
    expect((await t.call('POST', S, { token: t.tokens.viewer })).status).toBe(403);
    expect((await t.call('DELETE', S, { token: t.tokens.member })).status).toBe(403);
    expect((await t.call('GET', S, { token: t.other.token })).status).toBe(404);
    expect((await t.call('GET', '/v1/orgs/acme/projects/ghost/storage', { token: t.tokens.viewer })).status).toBe(404);
  });

  it('the quota is the plan\'s: a pro organization gets pro\'s', async () => {
    const pro = await startTestApi({ plan: 'pro' });
    try {
      await pro.call('POST', '/v1/orgs/acme/projects', { body: { name: 'big' } });
      const r = await pro.call('POST', '/v1/orgs/acme/projects/big/storage');
      expect(r.body.quotaBytes).toBe(DEFAULT_PLANS.pro!.storageBytes);
    } finally {
      await pro.close();
    }
  });
});

describe('without a core', () => {
  it('every storage operation and the bundle answer 503 no_core', async () => {
    const bare = await startTestApi({ core: null });
    try {
      await bare.call('POST', '/v1/orgs/acme/projects', { body: { name: 'files' } });
      for (const method of ['GET', 'POST', 'DELETE']) {
        const r = await bare.call(method, S);
        expect(r.status, method).toBe(503);
        expect(r.body.code).toBe('no_core');
      }
      const token = await registerNode(bare.store, 'n1');
      const b = await bare.call('GET', '/v1/nodes/n1/bundle', { token });
      expect(b.status).toBe(503);
      expect(b.body.code).toBe('no_core');
    } finally {
      await bare.close();
    }
  });
});
