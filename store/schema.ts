/**
 * The desired-state store. API handlers write desired rows (each with a `generation` that rises on every
 * change) and append to `changes`; reconcilers write only the *_status rows. Timestamps are RFC 3339 text.
 */
import { sql } from 'drizzle-orm';
import { integer, primaryKey, sqliteTable, text, index, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { Condition } from '../lib/conditions';
import { OAUTH_PROVIDERS } from '../rules/oauth-providers';

export const orgs = sqliteTable('orgs', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  slug: text('slug').notNull().unique(),
  plan: text('plan').notNull(),
  createdAt: text('created_at').notNull(),
  /** Rises when a member's role changes or a member is removed: the bundles carry it, and a node's `org`-mode
   * access sessions made under an older one end (agent/gate/access-gate.ts). */
  membersVersion: integer('members_version').notNull().default(0),
});

export const users = sqliteTable('users', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  email: text('email').notNull().unique(),
  createdAt: text('created_at').notNull(),
  /** The console's sign-in password as a scrypt PHC string (lib/access-hash.ts); null: the user cannot sign in
   * to the console (`admin user password` sets it). */
  passwordHash: text('password_hash'),
});

export const memberships = sqliteTable(
  'memberships',
  {
    orgId: integer('org_id').notNull().references(() => orgs.id),
    userId: integer('user_id').notNull().references(() => users.id),
    role: text('role', { enum: ['viewer', 'member', 'admin'] }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.userId] })],
);

/** Bearer tokens, stored only as the hex SHA-256 of the token. A token's id is the first characters of its hash
 * (store/accounts.ts `tokenId`): it names the token in `admin token list/revoke` and reveals nothing of it. */
export const tokens = sqliteTable('tokens', {
  hash: text('hash').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id),
  createdAt: text('created_at').notNull(),
  /** What the operator called it (`admin token create --name`); tokens made before names read 'unnamed'. */
  name: text('name').notNull().default('unnamed'),
  /** RFC 3339; from then on the token authenticates no more. Null: it does not expire. */
  expiresAt: text('expires_at'),
});

/** Console sign-in sessions (console/): the cookie's value is stored only as its hash, as API tokens are. A
 * password change deletes the user's sessions. `csrf`: the token every form of the session carries. */
export const consoleSessions = sqliteTable('console_sessions', {
  hash: text('hash').primaryKey(),
  userId: integer('user_id').notNull().references(() => users.id),
  csrf: text('csrf').notNull(),
  createdAt: text('created_at').notNull(),
  expiresAt: text('expires_at').notNull(),
}, (t) => [index('console_sessions_user').on(t.userId)]);

export const nodes = sqliteTable('nodes', {
  id: text('id').primaryKey(),
  tokenHash: text('token_hash').notNull().unique(),
  createdAt: text('created_at').notNull(),
});

export const projects = sqliteTable(
  'projects',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    orgId: integer('org_id').notNull().references(() => orgs.id),
    name: text('name').notNull(),
    /** The project's lifetime (16 random bytes, hex): a project deleted and created again under the name gets
     * another, so a node keeps the two apart (its database and worker user; docs/api.md, Nodes). Given to projects
     * made before lifetimes were recorded by their migration. */
    uid: text('uid').notNull().default(''),
    database: integer('database', { mode: 'boolean' }).notNull(),
    generation: integer('generation').notNull(),
    createdAt: text('created_at').notNull(),
    /** When its deletion was asked (deleteProject); null while it lives. A project being deleted keeps this row, and
     * with it its name, its default hostname and its place in the plan's count, until the project reconciler has
     * seen its cleanup done (reconcilers/projects.ts): nothing of it is handed to anyone half-cleaned. */
    deletingSince: text('deleting_since'),
  },
  (t) => [uniqueIndex('projects_org_name').on(t.orgId, t.name)],
);

/** Every hostname a project holds, default and custom; the primary key makes a name held once, globally. */
export const hostnames = sqliteTable(
  'hostnames',
  {
    name: text('name').primaryKey(),
    projectId: integer('project_id').notNull().references(() => projects.id),
    kind: text('kind', { enum: ['default', 'custom'] }).notNull(),
    /** `pending_dns` until an ownership proof passed, then `active` (routable); a default hostname is `active`. */
    status: text('status').notNull(),
    createdAt: text('created_at').notNull(),
    /** A custom hostname's lifetime: the name deleted and added again (by anyone) gets another, so the edge
     * provider's hostname and managed records of the old one are told apart. Empty for default hostnames. */
    uid: text('uid').notNull().default(''),
    /** The value the TXT proof at `_service-verify.<name>` must equal; null for default hostnames. */
    token: text('token'),
    /** Rises when what the hostname routes changes (activation): conditions carry the generation they judged. */
    generation: integer('generation').notNull().default(1),
    /** When a proof first passed, and which (`zone`, `txt`, `cname`); null while pending. */
    verifiedAt: text('verified_at'),
    proof: text('proof'),
  },
  (t) => [index('hostnames_project').on(t.projectId)],
);

/**
 * A deleted custom hostname whose cleanup is not done yet: the edge provider's custom hostname of that lifetime
 * and the managed records at the name in a zone of the organization. The hostname reconciler lists it until both
 * are gone, across crashes and edge outages; a row for the name added again meanwhile stays pending until then.
 */
export const hostnameFinalizers = sqliteTable('hostname_finalizers', {
  uid: text('uid').primaryKey(),
  name: text('name').notNull(),
  orgId: integer('org_id').notNull(),
  deletedAt: text('deleted_at').notNull(),
  /** The project that held the name: a project being deleted is finalized only once none of these are left. Null
   * for rows from before it was recorded. */
  projectId: integer('project_id'),
}, (t) => [index('hostname_finalizers_name').on(t.name), index('hostname_finalizers_project').on(t.projectId)]);

export const placements = sqliteTable(
  'placements',
  {
    projectId: integer('project_id').notNull().references(() => projects.id),
    nodeId: text('node_id').notNull().references(() => nodes.id),
    createdAt: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.nodeId] })],
);

/** Secret values exist here only sealed (AES-256-GCM, context `org/project/name` as AAD). */
export const secrets = sqliteTable(
  'secrets',
  {
    projectId: integer('project_id').notNull().references(() => projects.id),
    name: text('name').notNull(),
    version: integer('version').notNull(),
    sealed: text('sealed').notNull(),
    updatedAt: text('updated_at').notNull(),
    /** The secret's lifetime: deleted and set again it gets another, so its ETag never repeats an old one
     * (api/secrets.ts). Empty for secrets set before lifetimes were recorded. */
    uid: text('uid').notNull().default(''),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.name] })],
);

/** The change feed: one row per desired-state change, `seq` strictly increasing. Reconcilers and nodes follow it. */
export const changes = sqliteTable('changes', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  kind: text('kind').notNull(),
  key: text('key').notNull(),
  at: text('at').notNull(),
});

/** Where each follower of the change feed has read up to, and when it last said so: the feed is pruned no
 * further than the slowest follower seen lately (store/feed.ts `pruneFeed`). */
export const feedConsumers = sqliteTable('feed_consumers', {
  id: text('id').primaryKey(),
  seq: integer('seq').notNull(),
  seenAt: text('seen_at').notNull(),
});

/** Facts about the store itself, by key. `copied_from_sqlite`: the SQLite store `admin migrate-store` copied this
 * one from, with a digest of its rows, so that the command run again is a no-op and refuses any other source. */
export const storeMeta = sqliteTable('store_meta', {
  key: text('key').primaryKey(),
  value: text('value', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  at: text('at').notNull(),
});

/** Append-only: triggers in the migrations make UPDATE and DELETE fail. */
export const audit = sqliteTable(
  'audit',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    orgId: integer('org_id').notNull(),
    at: text('at').notNull(),
    event: text('event').notNull(),
    actor: text('actor').notNull(),
    target: text('target').notNull(),
    details: text('details', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
  },
  (t) => [index('audit_org').on(t.orgId, t.id)],
);

export const zones = sqliteTable(
  'zones',
  {
    name: text('name').primaryKey(),
    /** The zone's lifetime: a zone deleted and created again under the name gets a new one. */
    uid: text('uid').notNull(),
    orgId: integer('org_id').notNull().references(() => orgs.id),
    dnssec: text('dnssec', { enum: ['off', 'signing', 'ds_pending'] }).notNull(),
    ds: text('ds', { mode: 'json' }).$type<DsValue[]>().notNull(),
    serial: integer('serial').notNull(),
    generation: integer('generation').notNull(),
    createdAt: text('created_at').notNull(),
    /** Stored rrsets and the sum of their rendered bytes, kept by every rrset write: the plan's per-zone quotas. */
    rrsetCount: integer('rrset_count').notNull().default(0),
    bytes: integer('bytes').notNull().default(0),
    /** Deletions at or below this generation may have lost their tombstones (store/rrset-tombstones.ts):
     * raised in the transaction that deletes them, so that a reader of the changes since an earlier generation
     * knows to read the zone whole. */
    tombstonesPrunedTo: integer('tombstones_pruned_to').notNull().default(0),
    /** The sum of the zone's revisions' `bytes`, kept by every write that adds or deletes revisions: a change set's
     * cap (store/zone-revisions.ts `capZoneRevisions`) reads only the revisions it drops. */
    revisionBytes: integer('revision_bytes').notNull().default(0),
  },
  (t) => [index('zones_org').on(t.orgId, t.name)],
);

export interface DsValue { keyTag: number; algorithm: number; digestType: number; digest: string }

export const rrsets = sqliteTable(
  'rrsets',
  {
    zone: text('zone').notNull().references(() => zones.name, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type').notNull(),
    ttl: integer('ttl').notNull(),
    records: text('records', { mode: 'json' }).$type<{ content: string }[]>().notNull(),
    managedBy: text('managed_by'),
    /** The zone generation that last wrote this rrset: the zone reconciler re-reads only what changed. */
    changedGen: integer('changed_gen').notNull().default(0),
    /** Bytes of the rrset's lines in the zone file (`renderedBytes`); summed into `zones.bytes`. */
    bytes: integer('bytes').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.zone, t.name, t.type] }), index('rrsets_zone_changed').on(t.zone, t.changedGen),
    // Each zone pass reads its ALIAS rrsets: a partial index finds them without a scan of the zone, and costs the
    // writes of every other type nothing.
    index('rrsets_zone_alias').on(t.zone, t.name).where(sql`type = 'ALIAS'`),
  ],
);

/**
 * What the zone reconciler last found of each ALIAS target (an observed fact, as resource_status is): the addresses
 * served at the ALIAS's name as A and AAAA. `resolvedAt` is the last answer's time (null: never answered); `error`
 * says why the last look found none, while the last answer goes on being served.
 */
export const zoneAliases = sqliteTable('zone_aliases', {
  zone: text('zone').notNull().references(() => zones.name, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  target: text('target').notNull(),
  a: text('a', { mode: 'json' }).$type<string[]>().notNull(),
  aaaa: text('aaaa', { mode: 'json' }).$type<string[]>().notNull(),
  /** The served TTL: the target's, capped (zonefiles/alias.ts). */
  ttl: integer('ttl').notNull(),
  resolvedAt: text('resolved_at'),
  checkedAt: text('checked_at').notNull(),
  error: text('error'),
}, (t) => [primaryKey({ columns: [t.zone, t.name] })]);

/** Deleted rrsets, with the zone generation that deleted them and when, so the reconciler sees deletions without
 * re-reading the whole zone. Pruned once the zone's reconciler has applied them and a grace has passed
 * (store/rrset-tombstones.ts); dropped with the zone. */
export const rrsetTombstones = sqliteTable(
  'rrset_tombstones',
  {
    zone: text('zone').notNull(),
    name: text('name').notNull(),
    type: text('type').notNull(),
    gen: integer('gen').notNull(),
    /** '' for the tombstones written before the column: older than any grace. */
    at: text('at').notNull().default(''),
  },
  // A pass reads the zone's tombstones after the generation it serves (zoneChangesSince): by generation, not every
  // tombstone of the zone, which a zone of many unpruned deletions would make most of each change's read.
  (t) => [primaryKey({ columns: [t.zone, t.name, t.type] }), index('rrset_tombstones_zone_gen').on(t.zone, t.gen)],
);

/** One rrset's change in a zone revision: `before`/`after` are the rrset's TTL and records, null where it was or
 * is absent; `managedBy` its owner (null: the customer's), which a restore leaves alone. */
export interface RevisionChange {
  op: 'add' | 'remove' | 'change';
  name: string;
  type: string;
  before: { ttl: number; records: { content: string }[] } | null;
  after: { ttl: number; records: { content: string }[] } | null;
  managedBy: string | null;
}

/** Every generation of a zone: who made it, when, and the rrsets it changed (store/zone-changes.ts), written in the
 * change's own transaction. Dropped with the zone; pruned after 90 days. */
export const zoneRevisions = sqliteTable(
  'zone_revisions',
  {
    zone: text('zone').notNull().references(() => zones.name, { onDelete: 'cascade' }),
    generation: integer('generation').notNull(),
    serial: integer('serial').notNull(),
    at: text('at').notNull(),
    actor: text('actor').notNull(),
    summary: text('summary').notNull(),
    diff: text('diff', { mode: 'json' }).$type<RevisionChange[]>().notNull(),
    /** The rendered bytes of the rrsets a change set's diff holds, before and after (0 for a single rrset's write):
     * what store/zone-revisions.ts `capZoneRevisions` counts against the zone's cap. */
    bytes: integer('bytes').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.zone, t.generation] }), index('zone_revisions_at').on(t.at)],
);

/**
 * The status of every reconciled resource, one model for every kind (docs/reconcile.md): the lifetime it
 * describes, the generation it observed, conditions in the shape Kubernetes users know, and the kind's
 * observed facts. Written only by reconcilers. `last_error` is the whole failure for operators (admin
 * status, logs); tenants read the conditions, whose messages carry no server paths.
 */
export const resourceStatus = sqliteTable(
  'resource_status',
  {
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    uid: text('uid').notNull(),
    observedGeneration: integer('observed_generation').notNull(),
    conditions: text('conditions', { mode: 'json' }).$type<Condition[]>().notNull(),
    facts: text('facts', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    lastError: text('last_error'),
    reconciledAt: text('reconciled_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key] })],
);

/**
 * A deleted zone whose cleanup in the nameserver (purge of its data, journal and DNSSEC keys) is not done
 * yet: the zone reconciler lists it until it is, also across a crash, and purges it before it serves a
 * zone created again under the name (by anyone) from scratch.
 */
export const zoneFinalizers = sqliteTable('zone_finalizers', {
  uid: text('uid').primaryKey(),
  name: text('name').notNull(),
  deletedAt: text('deleted_at').notNull(),
}, (t) => [index('zone_finalizers_name').on(t.name)]);

/** Sign-in grant: the row's existence is the grant (spec part 3). Written by the app-auth group (store/auth.ts).
 * `grant_id` (16 random bytes, hex) is made with the row and goes to the bundle: a node honours a session only
 * under the grant it was made under, so a revoke followed by a grant ends sessions however the node learns of it.
 * (Its default only lets the column be added to rows from before it; the migration gives those an id of their own.) */
export const authGrants = sqliteTable('auth_grants', {
  projectId: integer('project_id').primaryKey().references(() => projects.id),
  grantId: text('grant_id').notNull().default(''),
  settings: text('settings', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  createdAt: text('created_at').notNull(),
});

/**
 * A project's own OAuth app per sign-in provider (spec 4.2 rule 5; store/auth.ts). The client secret is sealed as
 * a project secret is, under the reserved name `auth/<provider>`. It is a table of its own, not rows of `secrets`,
 * so that listSecrets, getSecret and the worker's env bindings, which read `secrets`, cannot come upon it. Rows
 * outlive a revoke of the grant: they are the project's app credentials, and a grant again finds them.
 */
export const authProviders = sqliteTable(
  'auth_providers',
  {
    projectId: integer('project_id').notNull().references(() => projects.id),
    provider: text('provider', { enum: OAUTH_PROVIDERS }).notNull(),
    clientId: text('client_id').notNull(),
    sealedSecret: text('sealed_secret').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.provider] })],
);

/** Storage grant: the prefix is assigned once and kept across repeated grants. Written by the storage group. */
export const storageGrants = sqliteTable('storage_grants', {
  projectId: integer('project_id').primaryKey().references(() => projects.id),
  prefix: text('prefix').notNull().unique(),
  quotaBytes: integer('quota_bytes').notNull(),
  createdAt: text('created_at').notNull(),
});

/** The last serial a deleted zone had, so a zone created again under its name never serves a lower serial:
 * secondaries that kept the old copy would otherwise ignore the new zone. */
export const zoneTombstones = sqliteTable('zone_tombstones', {
  name: text('name').primaryKey(),
  serial: integer('serial').notNull(),
});

/**
 * Idempotency-Key records (api/idempotency.ts): per caller (`scope`: the user and the org of the operation),
 * the request's fingerprint and, once the operation has answered, the answer to replay for 24 hours. A row
 * whose `status` is null is a request still running, held until `locked_until`. Expired rows are pruned.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    operation: text('operation').notNull(),
    /** Hex SHA-256 of the operation, the path, the query and the canonical JSON of the body. */
    fingerprint: text('fingerprint').notNull(),
    /** Null while the first request runs; then the answer's status. */
    status: integer('status'),
    /** The answer's replayed headers (Location, ETag, X-Generation) as a JSON object. */
    headers: text('headers', { mode: 'json' }).$type<Record<string, string>>(),
    /** The answer's body as JSON text; an error body without its requestId (a replay gets its own). */
    body: text('body'),
    createdAt: text('created_at').notNull(),
    /** RFC 3339: the lease of a running request; past it, a request with the key may take the row over. */
    lockedUntil: text('locked_until').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.key] }),
    index('idempotency_keys_expires').on(t.expiresAt),
    /** A scope's records oldest first: the per-scope cap counts and drops through it (store/idempotency.ts). */
    index('idempotency_keys_scope_created').on(t.scope, t.createdAt),
  ],
);

/**
 * Domains of organizations (spec 4.3), bought through the purchase saga or imported. The name is held once,
 * globally (the primary key), from the purchase's reservation on: a `pending` row is a purchase under way. The
 * registrar is authoritative for expiry, lock, nameservers and its own auto-renew; these columns are its last
 * known answer (an imported domain's nameservers: its delegation as last read).
 */
export const domains = sqliteTable(
  'domains',
  {
    name: text('name').primaryKey(),
    orgId: integer('org_id').notNull().references(() => orgs.id),
    /** This lifetime of the domain in the organization: bought again after a transfer out, it gets another. */
    uid: text('uid').notNull(),
    status: text('status', { enum: ['pending', 'active', 'expired', 'transferred_out', 'imported'] }).notNull(),
    expiresAt: text('expires_at'),
    locked: integer('locked', { mode: 'boolean' }).notNull().default(false),
    nameservers: text('nameservers', { mode: 'json' }).$type<string[]>().notNull(),
    /** The stored intent (setDomainAutoRenew); renewal at the registrar stays on whatever it is. */
    autoRenew: integer('auto_renew', { mode: 'boolean' }).notNull().default(true),
    /** The purchase's payment method as the payment provider's reference only (renewals are billed to it). */
    paymentRef: text('payment_ref'),
    /** A renewal under way, stored before each external call of it: `{fromExpiresAt, years, state, ...}`. */
    renewal: text('renewal', { mode: 'json' }).$type<Record<string, unknown>>(),
    syncedAt: text('synced_at'),
    generation: integer('generation').notNull().default(1),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('domains_org').on(t.orgId, t.name)],
);

/**
 * The purchase saga (reserve → charge → register → create zone → done), one row per purchase, each step stored
 * before the external call it makes. One open purchase per name (the partial unique index); the registrant
 * contact is kept only sealed, and only while the purchase is open (to finish an abandoned one).
 */
export const domainPurchases = sqliteTable(
  'domain_purchases',
  {
    id: text('id').primaryKey(),
    orgId: integer('org_id').notNull().references(() => orgs.id),
    name: text('name').notNull(),
    years: integer('years').notNull(),
    paymentMethod: text('payment_method').notNull(),
    contactSealed: text('contact_sealed'),
    step: text('step').notNull(),
    /** 1 while the saga is open (not done, refunded or failed). */
    open: integer('open').notNull().default(1),
    amountCents: integer('amount_cents'),
    currency: text('currency'),
    chargeId: text('charge_id'),
    actor: text('actor').notNull(),
    lastError: text('last_error'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('domain_purchases_open_name').on(t.name).where(sql`open = 1`),
    index('domain_purchases_org_name').on(t.orgId, t.name),
  ],
);

/** Money moved for a domain of an organization: charges, refunds, renewals (getDomain shows the recent ones). */
export const domainLedger = sqliteTable(
  'domain_ledger',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    orgId: integer('org_id').notNull(),
    name: text('name').notNull(),
    at: text('at').notNull(),
    kind: text('kind').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    note: text('note').notNull(),
    /** The payment provider's id of the charge or refund; never card data. */
    reference: text('reference'),
  },
  (t) => [index('domain_ledger_org_name').on(t.orgId, t.name, t.id)],
);

/** The storage prefix a project owns: assigned at its first storage grant and kept for the project's life (not
 * the grant's), so a grant after a revoke gets the same prefix and the objects under it appear again. */
export const storagePrefixes = sqliteTable('storage_prefixes', {
  projectId: integer('project_id').primaryKey().references(() => projects.id),
  prefix: text('prefix').notNull().unique(),
  createdAt: text('created_at').notNull(),
});

/** What a node's bundle carries of one project, beside the sealed bundle: the bundle version at which the
 * project's part last changed, and per secret its version and the bundle version that first carried it. */
export interface BundleSection {
  version: number;
  /** `bytes`: the secret's entry as the bundle's JSON has it, which a replacing setSecret frees (store/nodes.ts
   * checkSecretFits); absent from sections built before it was kept. */
  secrets: Record<string, { version: number; since: number; bytes?: number }>;
  /** The access section's digest (store/nodes.ts accessDigest) and the first bundle version that carried it. */
  access?: { digest: string; since: number };
}

/**
 * A node's convergence bundle as the bundle reconciler last built it (reconcilers/bundles.ts): sealed whole
 * (it holds secret values; context `bundle/<nodeId>`), with its version, a change-feed seq, so it only rises.
 * A node without a row has the empty bundle at version 0.
 */
export const nodeBundles = sqliteTable('node_bundles', {
  nodeId: text('node_id').primaryKey().references(() => nodes.id),
  version: integer('version').notNull(),
  sealed: text('sealed').notNull(),
  /** Per project id. */
  sections: text('sections', { mode: 'json' }).$type<Record<string, BundleSection>>().notNull(),
  builtAt: text('built_at').notNull(),
});

/** A node's last report (POST /v1/nodes/{nodeId}/report): the bundle version it applied, and when. */
export const nodeReports = sqliteTable('node_reports', {
  nodeId: text('node_id').primaryKey().references(() => nodes.id),
  appliedVersion: integer('applied_version').notNull(),
  reportedAt: text('reported_at').notNull(),
});

/** What each node a project is placed on last reported of it: the storage it uses, and how far the node runs it. */
export const projectUsage = sqliteTable(
  'project_usage',
  {
    projectId: integer('project_id').notNull().references(() => projects.id),
    nodeId: text('node_id').notNull().references(() => nodes.id),
    usedBytes: integer('used_bytes').notNull(),
    reportedAt: text('reported_at').notNull(),
    /** The bundle version the node has applied for this project; null: the node reported only its whole-node
     * version (an older agent), which then stands for every project on it. */
    appliedVersion: integer('applied_version'),
    /** Why the project's wanted worker does not run on the node (a short reason from the node); null: it runs. */
    failure: text('failure'),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.nodeId] })],
);

/**
 * A project's deployment access policy (spec 4.4; api/access.ts). No row: `public`. The password and the bypass
 * secret are kept only as hashes (scrypt for the password, SHA-256 of 32 random bytes for the bypass); `version`
 * rises with every change, so the node ends sessions made under an older policy.
 */
export const accessPolicies = sqliteTable('access_policies', {
  projectId: integer('project_id').primaryKey().references(() => projects.id),
  mode: text('mode', { enum: ['public', 'org', 'password'] }).notNull(),
  passwordHash: text('password_hash'),
  bypassHash: text('bypass_hash'),
  version: integer('version').notNull(),
  updatedAt: text('updated_at').notNull(),
});

/** One-time codes of authorizeAccess: only the SHA-256 of the code is kept; a redeem deletes the row. */
export const accessCodes = sqliteTable('access_codes', {
  codeHash: text('code_hash').primaryKey(),
  host: text('host').notNull(),
  projectId: integer('project_id').notNull().references(() => projects.id),
  userId: integer('user_id').notNull().references(() => users.id),
  next: text('next').notNull(),
  expiresAt: text('expires_at').notNull(),
}, (t) => [index('access_codes_expires').on(t.expiresAt)]);

/**
 * Who runs the reconcilers, the hidden primary's changes and the provider calls (store/leader.ts): one row per
 * installation. Times are milliseconds of the DATABASE's clock, so that processes on machines whose clocks disagree
 * still agree on when a lease ends. `term` rises with every new leader; fenced writes carry it.
 */
export const leader = sqliteTable('leader', {
  id: integer('id').primaryKey(),
  term: integer('term').notNull(),
  /** The process that holds it: host and data dir (store/leader.ts holderOf). */
  holder: text('holder').notNull(),
  /** Its API's listening URL. */
  url: text('url').notNull(),
  sinceMs: integer('since_ms').notNull(),
  renewedMs: integer('renewed_ms').notNull(),
  expiresMs: integer('expires_ms').notNull(),
});

/** Every process heard from lately, one row per holder (serve and core: host and data dir; api: host and URL):
 * `admin status` lists them. */
export const processes = sqliteTable('processes', {
  holder: text('holder').primaryKey(),
  url: text('url').notNull(),
  pid: integer('pid').notNull(),
  startedMs: integer('started_ms').notNull(),
  heartbeatMs: integer('heartbeat_ms').notNull(),
});

/**
 * The DNSSEC keys of each signed zone's lifetime (`uid`), as the leader's knotd holds them in its KASP database,
 * so that a new leader's knotd signs with the same keys (store/dnssec-keys.ts). `attrs` is keymgr's description of
 * the key (role, algorithm, timers) as JSON; `sealed` its private key (PEM), sealed with the installation's key.
 */
export const dnssecKeys = sqliteTable('dnssec_keys', {
  zone: text('zone').notNull(),
  keyId: text('key_id').notNull(),
  uid: text('uid').notNull(),
  attrs: text('attrs').notNull(),
  sealed: text('sealed').notNull(),
}, (t) => [primaryKey({ columns: [t.zone, t.keyId] })]);

/** The highest SOA serial any leader's knotd may have served of each zone (a leader raises it before it applies):
 * a new leader's first serial goes above it, whatever its own knotd's journal says. */
export const zoneServedSerials = sqliteTable('zone_served_serials', {
  zone: text('zone').primaryKey(),
  serial: integer('serial').notNull(),
});
