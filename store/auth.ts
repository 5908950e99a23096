/**
 * End-user sign-in for an app (spec 4.2, part 3's grants table): the grant (its row is the grant; settings start at
 * their defaults) and the project's own OAuth app per provider, its client secret sealed by the core and never read
 * here. Providers are the project's, not the grant's: a revoke leaves them, so a grant again signs the same people in
 * through the same apps. Every change of what a node runs records a 'project' change, so the bundle reconciler
 * rebuilds the bundles of the project's nodes. Audit records name providers and client ids, never a secret.
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { AppError } from '../lib/errors';
import type { OAuthProviderName } from '../rules/oauth-providers';
import { iso, type Store, type Tx } from './db';
import { checkLiveProject } from './live-project';
import type { ProjectWrite } from './projects';
import { appendAudit, recordChange } from './feed';
import { routableHostnames } from './hostnames';
import { authGrants, authProviders } from './schema';

export interface AuthSettings {
  /** How long a signed-in session lasts, in days (1..365). It also bounds the session table, which must stay inside
   * the 150 MB ceiling of spec part 8. */
  sessionDays: number;
}

/** What a grant starts with (CONTRACT.md: sessionDays default 30). */
export const AUTH_DEFAULTS: AuthSettings = { sessionDays: 30 };

/** Stored settings over the defaults: a field added later reads its default on a grant made before it. */
const settingsOf = (stored: Record<string, unknown>): AuthSettings => ({ ...AUTH_DEFAULTS, ...stored } as AuthSettings);

export interface AuthState {
  granted: boolean;
  /** Null without a grant. */
  settings: AuthSettings | null;
  /** Registered providers by name, client ids only. */
  providers: { provider: OAuthProviderName; clientId: string }[];
  /** The project's routable hostnames (default, active custom), by name: where callbacks are registered. */
  hosts: string[];
}

async function grantOf(tx: Tx, projectId: number): Promise<AuthSettings | undefined> {
  const [row] = await tx.select({ settings: authGrants.settings }).from(authGrants).where(eq(authGrants.projectId, projectId));
  return row && settingsOf(row.settings);
}

export async function authState(s: Store, projectId: number): Promise<AuthState> {
  const [grant] = await s.db.select({ settings: authGrants.settings }).from(authGrants).where(eq(authGrants.projectId, projectId)).limit(1);
  const providers = await s.db.select({ provider: authProviders.provider, clientId: authProviders.clientId }).from(authProviders)
    .where(eq(authProviders.projectId, projectId)).orderBy(asc(authProviders.provider));
  return { granted: grant !== undefined, settings: grant ? settingsOf(grant.settings) : null, providers, hosts: await routableHostnames(s, projectId) };
}

/**
 * grantAuth: idempotent. A project not granted gets the default settings and a new grant id; a granted one keeps
 * its settings, grant id and providers, and the call changes nothing (no change, no audit record). Answers whether
 * this call granted.
 */
export async function grantAuth(s: Store, p: ProjectWrite): Promise<{ granted: boolean }> {
  const now = s.clock();
  return s.write(async (tx) => {
    await checkLiveProject(tx, p);
    const inserted = await tx.insert(authGrants).values({ projectId: p.projectId, grantId: randomBytes(16).toString('hex'), settings: { ...AUTH_DEFAULTS }, createdAt: iso(now) })
      .onConflictDoNothing().returning({ id: authGrants.projectId });
    if (inserted.length === 0) return { granted: false };
    await recordChange(s, tx, 'project', String(p.projectId), now);
    await appendAudit(tx, { orgId: p.orgId, event: 'auth.grant', actor: p.actor, target: p.projectName, details: { settings: AUTH_DEFAULTS } }, now);
    return { granted: true };
  });
}

/**
 * updateAuthSettings: the fields given replace theirs, the others stay. 404 `not_granted` without a grant. A patch
 * that changes nothing records no change (the bundle stays), but is audited like any call. Answers whether it changed.
 */
export async function updateAuthSettings(s: Store, p: ProjectWrite & { patch: Partial<AuthSettings> }): Promise<{ changed: boolean }> {
  const now = s.clock();
  return s.write(async (tx) => {
    await tx.lock(`project/${p.projectId}`);
    const old = await grantOf(tx, p.projectId);
    if (!old) throw new AppError(404, 'not_granted', `project ${p.projectName} has no sign-in grant: grant it first (POST .../auth)`);
    const settings: AuthSettings = { ...old, ...p.patch };
    const changed = JSON.stringify(settings) !== JSON.stringify(old);
    if (changed) {
      await tx.update(authGrants).set({ settings: { ...settings } }).where(eq(authGrants.projectId, p.projectId));
      await recordChange(s, tx, 'project', String(p.projectId), now);
    }
    await appendAudit(tx, { orgId: p.orgId, event: 'auth.settings', actor: p.actor, target: p.projectName, details: { set: p.patch, settings } }, now);
    return { changed };
  });
}

/** revokeAuth: idempotent. Removes the grant, never the users (they live in the project's database) nor the
 * providers. Answers whether this call revoked. */
export async function revokeAuth(s: Store, p: ProjectWrite): Promise<{ revoked: boolean }> {
  const now = s.clock();
  return s.write(async (tx) => {
    const gone = await tx.delete(authGrants).where(eq(authGrants.projectId, p.projectId)).returning({ id: authGrants.projectId });
    if (gone.length === 0) return { revoked: false };
    await recordChange(s, tx, 'project', String(p.projectId), now);
    await appendAudit(tx, { orgId: p.orgId, event: 'auth.revoke', actor: p.actor, target: p.projectName, details: { usersDeleted: false } }, now);
    return { revoked: true };
  });
}

/**
 * setAuthProvider: registers or replaces the project's app for `provider`, its client secret sealed by the core
 * (`sealed`). Each seal differs, so the row is written on every call; the bundle, which holds the opened secret,
 * only gets a new version when the secret or client id did change.
 */
export async function setAuthProvider(s: Store, p: ProjectWrite & { provider: OAuthProviderName; clientId: string; sealed: string }): Promise<void> {
  const now = s.clock();
  await s.write(async (tx) => {
    await checkLiveProject(tx, p);
    const row = { clientId: p.clientId, sealedSecret: p.sealed, updatedAt: iso(now) };
    await tx.insert(authProviders).values({ projectId: p.projectId, provider: p.provider, ...row })
      .onConflictDoUpdate({ target: [authProviders.projectId, authProviders.provider], set: row });
    await recordChange(s, tx, 'project', String(p.projectId), now);
    await appendAudit(tx, {
      orgId: p.orgId, event: 'auth.provider.set', actor: p.actor, target: `${p.projectName}/${p.provider}`, details: { provider: p.provider, clientId: p.clientId },
    }, now);
  });
}

/** deleteAuthProvider: idempotent; the users stay, only their way in through this provider goes. Answers whether
 * this call removed one. */
export async function deleteAuthProvider(s: Store, p: ProjectWrite & { provider: string }): Promise<{ deleted: boolean }> {
  const now = s.clock();
  return s.write(async (tx) => {
    const gone = await tx.delete(authProviders)
      .where(and(eq(authProviders.projectId, p.projectId), eq(authProviders.provider, p.provider as OAuthProviderName)))
      .returning({ provider: authProviders.provider });
    if (gone.length === 0) return { deleted: false };
    await recordChange(s, tx, 'project', String(p.projectId), now);
    await appendAudit(tx, { orgId: p.orgId, event: 'auth.provider.delete', actor: p.actor, target: `${p.projectName}/${p.provider}`, details: { provider: p.provider } }, now);
    return { deleted: true };
  });
}

/** The sign-in of granted projects as the bundle needs it: the grant's id and settings, and providers with their
 * secrets still sealed. */
export interface AuthForBundle {
  grant: string;
  settings: AuthSettings;
  providers: { provider: OAuthProviderName; clientId: string; sealed: string }[];
}

export async function authForBundle(s: Store, projectIds: number[]): Promise<Map<number, AuthForBundle>> {
  const out = new Map<number, AuthForBundle>();
  if (projectIds.length === 0) return out;
  for (const g of await s.db.select().from(authGrants).where(inArray(authGrants.projectId, projectIds))) {
    out.set(g.projectId, { grant: g.grantId, settings: settingsOf(g.settings), providers: [] });
  }
  const rows = await s.db.select().from(authProviders).where(inArray(authProviders.projectId, [...out.keys()]))
    .orderBy(asc(authProviders.provider));
  for (const r of rows) out.get(r.projectId)!.providers.push({ provider: r.provider, clientId: r.clientId, sealed: r.sealedSecret });
  return out;
}
