/** The store's sealed values, sampled by key id for the check of the sealing key at start (core/sealing.ts
 * checkSealingKey). The rows come with what their sealing context is made of, not the context: that is the core's. */
import { and, eq, isNotNull, not, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { OAuthProviderName } from '../rules/oauth-providers';
import type { Store } from './db';
import { authProviders, domainPurchases, nodeBundles, orgs, projects, secrets } from './schema';

export type SealedValue =
  | { kind: 'secret'; org: string; project: string; name: string; sealed: string }
  | { kind: 'authProvider'; org: string; project: string; provider: OAuthProviderName; sealed: string }
  | { kind: 'bundle'; nodeId: string; sealed: string }
  | { kind: 'purchase'; orgId: number; name: string; sealed: string };

/** Values sealed with key `sealedWith`, or with none of `sealedWithNone` (every sealed value when it is empty). */
export type KeyFilter = { sealedWith: string } | { sealedWithNone: readonly string[] };

/** A sealed value names its key second: `v1.<key id>.<nonce>.<body>`. A prefix compared with substr (not LIKE,
 * whose `_` and `%` a key id could hold) reads the same on SQLite and PostgreSQL. */
function sealedWith(column: AnyColumn, id: string): SQL {
  const prefix = `v1.${id}.`;
  return sql`substr(${column}, 1, ${sql.raw(String(prefix.length))}) = ${prefix}`;
}

const admits = (column: AnyColumn, f: KeyFilter): SQL | undefined =>
  'sealedWith' in f ? sealedWith(column, f.sealedWith) : and(...f.sealedWithNone.map((id) => not(sealedWith(column, id))));

/** At most one value of each kind the store seals (project secrets, projects' OAuth client secrets, node
 * bundles, open purchases' contacts) that `filter` admits: four reads, each stopping at its first match. */
export async function sealedSamples(s: Store, filter: KeyFilter): Promise<SealedValue[]> {
  const [secret] = await s.db.select({ org: orgs.slug, project: projects.name, name: secrets.name, sealed: secrets.sealed }).from(secrets)
    .innerJoin(projects, eq(projects.id, secrets.projectId)).innerJoin(orgs, eq(orgs.id, projects.orgId))
    .where(admits(secrets.sealed, filter)).limit(1);
  const [auth] = await s.db.select({ org: orgs.slug, project: projects.name, provider: authProviders.provider, sealed: authProviders.sealedSecret })
    .from(authProviders).innerJoin(projects, eq(projects.id, authProviders.projectId)).innerJoin(orgs, eq(orgs.id, projects.orgId))
    .where(admits(authProviders.sealedSecret, filter)).limit(1);
  const [bundle] = await s.db.select({ nodeId: nodeBundles.nodeId, sealed: nodeBundles.sealed }).from(nodeBundles)
    .where(admits(nodeBundles.sealed, filter)).limit(1);
  const [purchase] = await s.db.select({ orgId: domainPurchases.orgId, name: domainPurchases.name, sealed: domainPurchases.contactSealed }).from(domainPurchases)
    .where(and(isNotNull(domainPurchases.contactSealed), admits(domainPurchases.contactSealed, filter))).limit(1);
  return [
    ...(secret ? [{ kind: 'secret' as const, ...secret }] : []),
    ...(auth ? [{ kind: 'authProvider' as const, ...auth }] : []),
    ...(bundle ? [{ kind: 'bundle' as const, ...bundle }] : []),
    ...(purchase?.sealed ? [{ kind: 'purchase' as const, ...purchase, sealed: purchase.sealed }] : []),
  ];
}
