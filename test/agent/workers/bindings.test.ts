import { describe, expect, it } from 'vitest';
import { bindings } from '../../../agent/workers/bindings';
import { NodeBundle } from '../../../agent/sync/bundle';

const project = { org: 'acme', project: 'shop', hostnames: ['shop.example.test'], database: true };
const endpoints = { authorize: 'https://a.test/authorize', token: 'https://a.test/token', userInfo: 'https://a.test/user', emails: null };

describe('the bundle\'s signIn section', () => {
  it('is null when the control plane sends none (no grant)', () => {
    expect(NodeBundle.parse({ projects: [project] }).projects[0]!.signIn).toBeNull();
  });

  it('reads settings, maxUsers and providers with their endpoints, keeping fields it does not know', () => {
    const signIn = { grant: 'ab'.repeat(16), settings: { sessionDays: 7, later: true }, maxUsers: 5000, providers: [{ provider: 'github', clientId: 'id', clientSecret: 's', endpoints: { ...endpoints, emails: 'https://a.test/emails' } }] };
    expect(NodeBundle.parse({ projects: [{ ...project, signIn }] }).projects[0]!.signIn).toEqual(signIn);
  });

  it('defaults sessionDays to 30 and keeps a provider this node does not know (it is not served)', () => {
    const parsed = NodeBundle.parse({ projects: [{ ...project, signIn: { grant: 'ab'.repeat(16), settings: {}, maxUsers: 1, providers: [{ provider: 'later', clientId: 'i', clientSecret: 's', endpoints }] } }] });
    expect(parsed.projects[0]!.signIn).toMatchObject({ settings: { sessionDays: 30 }, providers: [{ provider: 'later' }] });
  });

  it('gives the worker the grant id and sessionDays with a grant, and neither without one (sign-in is off)', () => {
    const signIn = { grant: 'cd'.repeat(16), settings: { sessionDays: 7 }, maxUsers: 5, providers: [] };
    const places = { storageDir: null, dbPath: '/d/shop.sqlite' };
    const granted = bindings(NodeBundle.parse({ projects: [{ ...project, signIn }] }).projects[0]!, places);
    expect(granted).toMatchObject({ SERVICE_DB_PATH: '/d/shop.sqlite', SERVICE_AUTH_GRANT: 'cd'.repeat(16), SERVICE_AUTH_SESSION_DAYS: '7' });
    const revoked = bindings(NodeBundle.parse({ projects: [project] }).projects[0]!, places);
    expect(Object.keys(revoked)).toEqual(['SERVICE_DB_PATH']);
  });

  it('refuses a sessionDays out of 1..365, an authorize URL that is not http(s) and a missing or malformed grant id', () => {
    const bad = (signIn: unknown) => NodeBundle.safeParse({ projects: [{ ...project, signIn }] }).success;
    const grant = 'ab'.repeat(16);
    expect(bad({ grant, settings: { sessionDays: 1 }, maxUsers: 1, providers: [] })).toBe(true);
    expect(bad({ settings: { sessionDays: 1 }, maxUsers: 1, providers: [] })).toBe(false);
    expect(bad({ grant: 'AB'.repeat(16), settings: { sessionDays: 1 }, maxUsers: 1, providers: [] })).toBe(false);
    expect(bad({ grant, settings: { sessionDays: 366 }, maxUsers: 1, providers: [] })).toBe(false);
    expect(bad({ grant, settings: { sessionDays: 1 }, maxUsers: 1, providers: [{ provider: 'github', clientId: 'i', clientSecret: 's', endpoints: { ...endpoints, authorize: 'javascript:alert(1)' } }] })).toBe(false);
  });
});
