/**
 * The bundle's sign-in section (issue 12 item 1): null without a grant; with one, the grant's id and settings, the plan's
 * user limit and per registered provider the client id, the client secret opened from `auth/<provider>` and the
 * operator's endpoints. Only the nodes the project is placed on carry it, never as a worker's env binding. Every
 * sign-in write is a 'project' change the reconciler maps to the project's nodes; a provider set again with the same
 * secret builds no new version. The grant id is made with the grant and kept while it lasts: a revoke and a grant
 * again give another, which ends the sessions of the first on the node.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { secretContext, type Sealer } from '../../core/sealing';
import { clientSecretName, REAL_ENDPOINTS, type OAuthProviderName, type ProviderEndpointTable } from '../../rules/oauth-providers';
import { DEFAULT_PLANS } from '../../rules/plans';
import { bundleReconciler } from '../../reconcilers/bundles';
import type { Reconciler } from '../../reconcilers/types';
import { createOrg, registerNode, setOrgPlan } from '../../store/accounts';
import { deleteAuthProvider, grantAuth, revokeAuth, setAuthProvider, updateAuthSettings } from '../../store/auth';
import type { Store } from '../../store/db';
import { changesSince, latestSeq } from '../../store/feed';
import { bundleVersion } from '../../store/nodes';
import { createProject, setPlacement } from '../../store/projects';
import { setSecret } from '../../store/secrets';
import { closeBundleEnv, openBundleEnv, openedBundle } from '../helpers/bundles';

const noAbort = new AbortController().signal;
const SANDBOX = 'http://127.0.0.1:4999';
const ENDPOINTS: ProviderEndpointTable = {
  ...REAL_ENDPOINTS,
  github: { authorize: `${SANDBOX}/github/authorize`, token: `${SANDBOX}/github/token`, userInfo: `${SANDBOX}/github/user`, emails: `${SANDBOX}/github/emails` },
};
const GH_SECRET = 'gh-secret-bundle-0c9e';
const KAKAO_SECRET = 'kakao-secret-bundle-71aa';

let dir: string;
let s: Store;
let sealer: Sealer;
let r: Reconciler;
let orgId: number;
let projectId: number;
const w = () => ({ orgId, projectId, projectName: 'shop', actor: 'test' });
const opened = (node: string) => openedBundle(s, sealer, node);
const provider = (name: OAuthProviderName, clientId: string, secret: string) =>
  setAuthProvider(s, { ...w(), provider: name, clientId, sealed: sealer.seal(secretContext('acme', 'shop', clientSecretName(name)), secret) });

/** The changes recorded after `seq`, as `kind/key`. */
const changedSince = async (seq: number): Promise<string[]> => (await changesSince(s, seq)).map((c) => `${c.kind}/${c.key}`);

beforeEach(async () => {
  ({ dir, s, sealer } = await openBundleEnv('hostplane-signin-bundle-'));
  r = bundleReconciler({ store: s, sealer, plans: DEFAULT_PLANS, oauthEndpoints: ENDPOINTS });
  orgId = (await createOrg(s, 'acme', 'pro')).id;
  projectId = (await createProject(s, { orgId, plan: 'pro', limit: 100, name: 'shop', database: true, hostname: 'shop.hostplane.test', actor: 'test' })).id;
  await createProject(s, { orgId, plan: 'pro', limit: 100, name: 'blog', database: true, hostname: 'blog.hostplane.test', actor: 'test' });
  await registerNode(s, 'a');
  await registerNode(s, 'b');
  await setPlacement(s, orgId, 'shop', 'a');
  await setPlacement(s, orgId, 'blog', 'b');
});
afterEach(() => {
  closeBundleEnv({ dir, s });
});

describe('sign-in in the bundle', () => {
  it('carries settings, the plan\'s user limit and the providers with opened secrets and the configured endpoints', async () => {
    await grantAuth(s, w());
    await updateAuthSettings(s, { ...w(), patch: { sessionDays: 7 } });
    await provider('kakao', 'kakao-id', KAKAO_SECRET);
    await provider('github', 'gh-id', GH_SECRET);
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.signIn).toEqual({
      grant: expect.stringMatching(/^[0-9a-f]{32}$/),
      settings: { sessionDays: 7 },
      maxUsers: DEFAULT_PLANS.pro!.signInUsers,
      providers: [
        { provider: 'github', clientId: 'gh-id', clientSecret: GH_SECRET, endpoints: ENDPOINTS.github },
        { provider: 'kakao', clientId: 'kakao-id', clientSecret: KAKAO_SECRET, endpoints: REAL_ENDPOINTS.kakao },
      ],
    });
  });

  it('the grant id: kept by a repeated grant, settings and providers; another after a revoke and a grant, even unseen between', async () => {
    const grantOf = async (): Promise<string> => {
      await r.reconcile('a', noAbort);
      return (await opened('a'))[0]!.signIn!.grant;
    };
    await grantAuth(s, w());
    const first = await grantOf();
    await grantAuth(s, w());
    await updateAuthSettings(s, { ...w(), patch: { sessionDays: 3 } });
    await provider('github', 'gh-id', GH_SECRET);
    expect(await grantOf()).toBe(first);
    // Revoked and granted again before the bundle is built: the node never sees the section go, and still must not
    // take the sessions of the first grant as this one's.
    await revokeAuth(s, w());
    await grantAuth(s, w());
    const second = await grantOf();
    expect(second).not.toBe(first);
    expect(second).toMatch(/^[0-9a-f]{32}$/);
  });

  it('a plan change wakes every project granted sign-in: maxUsers follows the plan', async () => {
    await grantAuth(s, w());
    await r.reconcile('a', noAbort);
    const seq = await latestSeq(s);
    await setOrgPlan(s, 'acme', 'free');
    expect(await changedSince(seq)).toEqual([`project/${projectId}`]);
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.signIn!.maxUsers).toBe(DEFAULT_PLANS.free!.signInUsers);
  });

  it('the client secret reaches only the node hosting the project, and never as an env binding of its worker', async () => {
    await grantAuth(s, w());
    await provider('github', 'gh-id', GH_SECRET);
    await setSecret(s, { orgId, projectId, projectName: 'shop', name: 'API_KEY', sealed: sealer.seal(secretContext('acme', 'shop', 'API_KEY'), 'v'), actor: 'test' });
    await r.reconcile('a', noAbort);
    await r.reconcile('b', noAbort);
    const [shop] = await opened('a');
    expect(shop!.secrets.map((x) => x.name)).toEqual(['API_KEY']);
    expect(JSON.stringify(shop!.secrets)).not.toContain(GH_SECRET);
    expect(JSON.stringify(await opened('b'))).not.toContain(GH_SECRET);
    expect((await opened('b'))[0]!.signIn).toBeNull();
  });

  it('without a grant there is no sign-in section, registered providers or not', async () => {
    await provider('github', 'gh-id', GH_SECRET);
    await r.reconcile('a', noAbort);
    expect((await opened('a'))[0]!.signIn).toBeNull();
    expect(JSON.stringify(await opened('a'))).not.toContain(GH_SECRET);
  });

  it('every sign-in write wakes the project\'s nodes; a revoke drops the section, a provider set again alike builds nothing', async () => {
    const writes: [string, () => Promise<unknown>][] = [
      ['grant', () => grantAuth(s, w())],
      ['settings', () => updateAuthSettings(s, { ...w(), patch: { sessionDays: 9 } })],
      ['provider set', () => provider('github', 'gh-id', GH_SECRET)],
      ['provider delete', () => deleteAuthProvider(s, { ...w(), provider: 'github' })],
      ['revoke', () => revokeAuth(s, w())],
    ];
    // A 'project' change is one the reconciler maps to the project's nodes.
    expect(await r.watches.find((x) => x.kind === 'project')!.keys(String(projectId))).toEqual(['a']);
    for (const [what, write] of writes) {
      const seq = await latestSeq(s);
      await write();
      expect(await changedSince(seq), what).toEqual([`project/${projectId}`]);
    }
    await grantAuth(s, w());
    await provider('github', 'gh-id', GH_SECRET);
    await r.reconcile('a', noAbort);
    const v = await bundleVersion(s, 'a');
    // Sealed anew (another nonce), the same secret: the built bundle is the same.
    await provider('github', 'gh-id', GH_SECRET);
    await r.reconcile('a', noAbort);
    expect(await bundleVersion(s, 'a')).toBe(v);
    await revokeAuth(s, w());
    await r.reconcile('a', noAbort);
    expect(await bundleVersion(s, 'a')).toBeGreaterThan(v);
    expect((await opened('a'))[0]!.signIn).toBeNull();
  });
});
