/**
 * GENERATED FILE, do not edit: `npm run client:generate` writes it (scripts/generate-client.ts) from the OpenAPI
 * document the API serves at GET /openapi.json, with openapi-typescript. Change the operations in api/, then run
 * the script again; test/client/schema.test.ts fails while this file and the document disagree.
 */
export interface paths {
    "/v1/orgs/{orgSlug}/dns/zones": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the organization's zones (without rrsets)
         * @description Minimum role: viewer. Needs the core component (503 `no_core` without it).
         */
        get: operations["listZones"];
        put?: never;
        /**
         * Create a zone (idempotent for the same organization)
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        post: operations["createZone"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/dns/zones/{zone}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a zone with one page of its rrsets (`limit` up to 1,000, `cursor`) and its reconcile status
         * @description Minimum role: viewer. Needs the core component (503 `no_core` without it).
         */
        get: operations["getZone"];
        put?: never;
        post?: never;
        /**
         * Delete a zone and all its records (move NS at the registrar first)
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        delete: operations["deleteZone"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/dns/zones/{zone}/rrsets/{name}/{type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Replace the whole rrset (name + type); `records` is its entire new content
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        put: operations["putRRset"];
        post?: never;
        /**
         * Delete an rrset
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        delete: operations["deleteRRset"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/dns/zones/{zone}/dnssec": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn DNSSEC signing on (off → signing) or off (deletes the recorded DS values)
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        post: operations["setZoneDNSSEC"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/dns/zones/{zone}/dnssec/ds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Record the DS values present at the parent (signing → ds_pending; an empty list means none yet)
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        put: operations["setZoneDS"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/dns/zones/{zone}/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply puts and deletes of rrsets all or nothing, as one generation and one serial (or, with `dryRun`, answer what they would do)
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        post: operations["applyZoneChanges"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/dns/zones/{zone}/revisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the zone's revisions (one per generation, kept 90 days), newest first
         * @description Minimum role: viewer. Needs the core component (503 `no_core` without it).
         */
        get: operations["listZoneRevisions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/dns/zones/{zone}/revisions/{generation}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read one revision of the zone with its diff
         * @description Minimum role: viewer. Needs the core component (503 `no_core` without it).
         */
        get: operations["getZoneRevision"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/dns/zones/{zone}/revisions/{generation}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Put the zone's rrsets back as they were at a generation, as a new change set (a new generation and serial)
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        post: operations["restoreZoneRevision"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/dns/zones/{zone}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The zone as an RFC 1035 master file (`text/dns`): `$ORIGIN`, the SOA, then every rrset getZone lists, in its order, names absolute
         * @description Minimum role: viewer. Needs the core component (503 `no_core` without it).
         */
        get: operations["exportZone"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/dns/zones/{zone}/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import an RFC 1035 master file (`text/dns`) into the zone as one change set, merging or replacing (or, with `dryRun`, answer what it would do)
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        post: operations["importZone"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}/auth": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the sign-in grant: settings, registered providers (client ids only) and the hosts to register callbacks on
         * @description Minimum role: viewer. Needs the core component (503 `no_core` without it).
         */
        get: operations["getAuth"];
        put?: never;
        /**
         * Grant sign-in (idempotent): settings start at their defaults; again, settings and providers stay
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        post: operations["grantAuth"];
        /**
         * Revoke sign-in (idempotent): the users stay in the project database, the providers stay registered
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        delete: operations["revokeAuth"];
        options?: never;
        head?: never;
        /**
         * Change the sign-in settings sent; the others are kept
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        patch: operations["updateAuthSettings"];
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}/auth/providers/{provider}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Register (or replace) the project's own OAuth app for a provider; the client secret is sealed and never returned
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        put: operations["setAuthProvider"];
        post?: never;
        /**
         * Remove a provider (idempotent): its users stay, only their way in through it goes; registering it again restores it
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        delete: operations["deleteAuthProvider"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the organization's domains, bought and imported, by name (the registrar's last known answers: no registrar call)
         * @description Minimum role: viewer. Needs the core component (503 `no_core` without it).
         */
        get: operations["listDomains"];
        put?: never;
        /**
         * Buy a domain: reserve, charge, register with the service's nameservers, create its zone. Sending the same request again is safe: it resumes a purchase that stopped midway and answers a finished one with 200. The registry's verification mail goes to `contact.email`: tell the user before buying
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        post: operations["purchaseDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/domains/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ask the registrar whether names are available, with the first year's price and the renewal price
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        post: operations["checkDomains"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/domains/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a domain registered elsewhere: creates its zone (no registrar call); DNS is run here once its NS point to the service's nameservers
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        post: operations["importDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/domains/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a domain with its recent ledger (charges, refunds, renewals); the registrar's last known answers, no registrar call
         * @description Minimum role: viewer.
         */
        get: operations["getDomain"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/domains/{name}/renew": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Renew at the registrar now, then bill the purchase's payment method (a declined charge is a ledger entry; the domain stays renewed)
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        post: operations["renewDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/domains/{name}/auto-renew": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set the stored auto-renew intent only. Auto-renew at the registrar stays on: the service renews first and bills afterwards, because a domain is lost if renewal is a day late. Tell users that turning it off here cancels nothing at the registrar
         * @description Minimum role: admin.
         */
        post: operations["setDomainAutoRenew"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/domains/{name}/lock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn the transfer lock on or off at the registrar
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        post: operations["setDomainLock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/domains/{name}/auth-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get the transfer auth code from the registrar. The way out is open at once; the 60-day registration lock is advice. The code is in this answer only (never stored, so `Idempotency-Key` is ignored)
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        post: operations["getDomainAuthCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/domains/{name}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Re-read expiry, lock and nameservers from the registrar (authoritative); not in the service's account → `transferred_out`. An imported domain's delegation is read instead; it is never marked transferred out
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        post: operations["syncDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}/access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the deployment access policy; a project never set reads `public`
         * @description Minimum role: viewer. Needs the core component (503 `no_core` without it).
         */
        get: operations["getAccess"];
        /**
         * Set the access mode; an omitted password keeps the stored one
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        put: operations["setAccess"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}/access/bypass": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create the bypass secret (shown once); the previous one stops working at once
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        post: operations["newAccessBypass"];
        /**
         * Remove the bypass secret (idempotent); the policy is unchanged
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        delete: operations["revokeAccessBypass"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/access/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign-in round trip to an `org`-protected deployment: a redirect to its callback with a one-time code */
        post: operations["authorizeAccess"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/nodes/{nodeId}/access/redeem": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Redeem an authorizeAccess code, once, on a node that serves its host */
        post: operations["redeemAccessCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}/hostnames": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the project's hostnames: the default one (`kind` `default`) with the custom ones, by name
         * @description Minimum role: viewer.
         */
        get: operations["listHostnames"];
        put?: never;
        /**
         * Attach a custom hostname: held for the project at once as `pending_dns`, routed once ownership is proven (idempotent for the same project)
         * @description Minimum role: member.
         */
        post: operations["addHostname"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}/hostnames/{host}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Detach a custom hostname: the name is free at once; the edge provider's hostname and the managed record are removed after
         * @description Minimum role: member.
         */
        delete: operations["deleteHostname"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}/hostnames/{host}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Judge the ownership proofs now, as the check every minute does; answers the hostname as judged (active, or pending with `lastError`)
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        post: operations["verifyHostname"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}/storage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the storage grant: prefix, quota and last reported usage
         * @description Minimum role: viewer. Needs the core component (503 `no_core` without it).
         */
        get: operations["getStorage"];
        put?: never;
        /**
         * Grant object storage (idempotent): the prefix is assigned once, the quota is the plan's
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        post: operations["grantStorage"];
        /**
         * Revoke the storage grant (idempotent); objects under the prefix are kept
         * @description Minimum role: admin. Needs the core component (503 `no_core` without it).
         */
        delete: operations["revokeStorage"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}/secrets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List secret names and versions (never values)
         * @description Minimum role: member.
         */
        get: operations["listSecrets"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a secret's version and on which nodes it is applied or pending (never its value)
         * @description Minimum role: member.
         */
        get: operations["getSecret"];
        /**
         * Set a secret value; every call raises its version
         * @description Minimum role: member. Needs the core component (503 `no_core` without it).
         */
        put: operations["setSecret"];
        post?: never;
        /**
         * Delete a secret
         * @description Minimum role: member.
         */
        delete: operations["deleteSecret"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the organization's projects
         * @description Minimum role: viewer.
         */
        get: operations["listProjects"];
        put?: never;
        /**
         * Create a project and issue its default hostname
         * @description Minimum role: member.
         */
        post: operations["createProject"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/projects/{projectName}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a project with its hostnames and placements
         * @description Minimum role: viewer.
         */
        get: operations["getProject"];
        put?: never;
        post?: never;
        /**
         * Delete a project with its hostnames, secrets, grants, access and sign-in settings and placements (beyond the spec)
         * @description Minimum role: admin.
         */
        delete: operations["deleteProject"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/orgs/{orgSlug}/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the organization's audit log, newest first
         * @description Minimum role: admin.
         */
        get: operations["listAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/nodes/{nodeId}/bundle": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The node's convergence bundle; long-poll with `If-None-Match` and `wait` */
        get: operations["getNodeBundle"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/nodes/{nodeId}/report": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Record what the node observed: the bundle version it applied, and per project the version it runs, why its worker does not run, and the storage it uses */
        post: operations["reportNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AuthSettingsPatch: {
            /** @description 1 to 365; omitted: unchanged */
            sessionDays?: number;
        };
        AuthProviderPut: {
            /** @description the OAuth app's client id (not empty or blank, else 400 `invalid_provider`) */
            clientId: string;
            /** @description the OAuth app's client secret (not empty or blank, else 400 `invalid_provider`): sealed, never returned, audited or listed among the secrets */
            clientSecret: string;
        };
        /** @description the registrant: personal data, sent to the registrar only. Never answered, logged or put in the audit log; kept sealed only while the purchase is open */
        DomainContact: {
            name: string;
            /**
             * Format: email
             * @description the registry's verification mail goes here: tell the registrant before buying
             */
            email: string;
            /** @description `+CC.NUMBER` (EPP form): `+1.5555550100` */
            phone: string;
            address: {
                line1: string;
                line2?: string;
                city: string;
                state?: string;
                postalCode: string;
            };
            /** @description ISO 3166-1 alpha-2, upper case */
            country: string;
        };
        AccessPut: {
            /** @enum {string} */
            mode: "public" | "org" | "password";
            /** @description a new shared password, 8 to 1,024 characters; omitted: the stored one is kept. `password` mode with none sent nor stored is 400 */
            password?: string;
        };
        AccessAuthorizeRequest: {
            /** @description the hostname of the deployment: a default or an active custom hostname the service routes, else 404 */
            to: string;
            /** @description where to go after sign-in: a path only (`/dash?x=1`); an absolute or protocol-relative address is 400 */
            next: string;
            /** @description the `state` the node sent the browser to the dashboard with, passed on unchanged: it comes back in `redirect`, and the node admits the callback only in the browser that started the round trip (the reference node requires it) */
            state?: string;
        };
        AccessRedeemRequest: {
            code: string;
        };
        NodeReport: {
            /** @description the bundle version whose every worker runs on the node (0: none yet); without a project's own `appliedVersion`, the version that project runs at */
            bundleVersion: number;
            /** @description per placed project; projects not placed on the node are ignored */
            projects: {
                org: string;
                project: string;
                /** @description bytes under the project's storage prefix, as measured now */
                usedBytes: number;
                /** @description the newest bundle version the node runs this project as that bundle has it: rollouts of the project are judged by it, so a co-tenant whose worker cannot start holds only its own. Absent: `bundleVersion` */
                appliedVersion?: number;
                /** @description why the project's wanted worker does not run on the node, in a few words its tenant may read (no path, no value); null or absent: it runs */
                failure?: string | null;
            }[];
        };
        Error: {
            /** @description snake_case, for programs; each response names the codes it carries */
            code: string;
            /** @description for people; never a stack trace or an internal message */
            message: string;
            /** @description `bad_request`: `issues`, a list of `{path, message}` naming each invalid field (`body.name`, `query.limit`, `records[0].content`); other codes say what they add */
            details?: {
                [key: string]: unknown;
            };
            /** @description the `X-Request-Id` of this answer, for support requests */
            requestId: string;
        };
        Zone: {
            name: string;
            /** @enum {string} */
            dnssec: "off" | "signing" | "ds_pending";
            ds: components["schemas"]["DS"][];
            /** @description whether the parent delegates the zone to the service's nameservers (observed) */
            delegated: boolean;
            nameservers: string[];
            serial: number;
            createdAt: components["schemas"]["Timestamp"];
            status: {
                generation: number;
                observedGeneration: number | null;
                /** @description the nameserver was checked to serve this generation (the Ready condition is True at it) */
                ready: boolean;
                /** @description `Ready` (reasons `Served`, `NotServed`, `ApplyFailed`, `NameserverDown`, `InvalidZoneName`; while DNSSEC turns off `WaitingForParent`, `WaitingForCaches`, `ParentDsUnknown`), `Signed` with DNSSEC on or turning off (`KeysPublished`, `KeysPending`, `DeletingDs`: CDS/CDNSKEY DELETE published for the parent) with secondaries configured, `SecondariesInSync` (`InSync`, `SecondaryBehind`: the message names each secondary behind and the serial it serves) and, with ALIAS rrsets, `AliasResolved` (`Resolved`; `TargetNotResolving`, `NotResolvedYet`: the message names each ALIAS and its target) */
                conditions: components["schemas"]["Condition"][];
                /** @description the SOA serial the nameserver answered with (a signer may serve more than `serial`) */
                servedSerial: number | null;
                /** @description the Ready condition's message while it is not True, else null */
                lastError: string | null;
                /** @description when the reconciler last recorded a change of this status */
                reconciledAt: components["schemas"]["Timestamp"] | null;
                /** @description DS values the signer reports for the parent (observed; record them with setZoneDS) */
                signerDs: components["schemas"]["DS"][];
                /** @description what each ALIAS rrset's target resolved to, as served (observed; the `AliasResolved` condition sums it up) */
                aliases: {
                    name: string;
                    target: string;
                    /** @description the A then AAAA addresses served at `name` (at most 16 of each); [] while the target never resolved (nothing is served there) */
                    addresses: string[];
                    /** @description their TTL: the target's, at least 30 and at most 300 seconds */
                    ttl: number | null;
                    /** @description when the target last answered with addresses */
                    resolvedAt: components["schemas"]["Timestamp"] | null;
                    /** @description when the target was last asked (again before three quarters of `ttl` pass; every 30 s while it fails) */
                    checkedAt: components["schemas"]["Timestamp"] | null;
                    /** @description why the last look found no addresses: the target has no public A or AAAA (a name that does not exist, one without them and one with only non-public addresses read alike), or the resolver failed; the last addresses stay served */
                    error: string | null;
                }[];
            };
        };
        DS: {
            keyTag: number;
            algorithm: number;
            digestType: number;
            digest: string;
        } & (unknown & unknown & unknown);
        /**
         * Format: date-time
         * @description RFC 3339, UTC
         * @example 2026-11-26T10:00:00Z
         */
        Timestamp: string;
        Condition: {
            type: string;
            /** @enum {string} */
            status: "True" | "False" | "Unknown";
            /** @description CamelCase, for programs */
            reason: string;
            /** @description for people; never carries a server path */
            message: string;
            /** @description the generation the condition was judged at */
            observedGeneration: number;
            /** @description when `status` last changed */
            lastTransitionTime: components["schemas"]["Timestamp"];
        };
        ZoneDetail: {
            name: string;
            /** @enum {string} */
            dnssec: "off" | "signing" | "ds_pending";
            ds: components["schemas"]["DS"][];
            /** @description whether the parent delegates the zone to the service's nameservers (observed) */
            delegated: boolean;
            nameservers: string[];
            serial: number;
            createdAt: components["schemas"]["Timestamp"];
            status: {
                generation: number;
                observedGeneration: number | null;
                /** @description the nameserver was checked to serve this generation (the Ready condition is True at it) */
                ready: boolean;
                /** @description `Ready` (reasons `Served`, `NotServed`, `ApplyFailed`, `NameserverDown`, `InvalidZoneName`; while DNSSEC turns off `WaitingForParent`, `WaitingForCaches`, `ParentDsUnknown`), `Signed` with DNSSEC on or turning off (`KeysPublished`, `KeysPending`, `DeletingDs`: CDS/CDNSKEY DELETE published for the parent) with secondaries configured, `SecondariesInSync` (`InSync`, `SecondaryBehind`: the message names each secondary behind and the serial it serves) and, with ALIAS rrsets, `AliasResolved` (`Resolved`; `TargetNotResolving`, `NotResolvedYet`: the message names each ALIAS and its target) */
                conditions: components["schemas"]["Condition"][];
                /** @description the SOA serial the nameserver answered with (a signer may serve more than `serial`) */
                servedSerial: number | null;
                /** @description the Ready condition's message while it is not True, else null */
                lastError: string | null;
                /** @description when the reconciler last recorded a change of this status */
                reconciledAt: components["schemas"]["Timestamp"] | null;
                /** @description DS values the signer reports for the parent (observed; record them with setZoneDS) */
                signerDs: components["schemas"]["DS"][];
                /** @description what each ALIAS rrset's target resolved to, as served (observed; the `AliasResolved` condition sums it up) */
                aliases: {
                    name: string;
                    target: string;
                    /** @description the A then AAAA addresses served at `name` (at most 16 of each); [] while the target never resolved (nothing is served there) */
                    addresses: string[];
                    /** @description their TTL: the target's, at least 30 and at most 300 seconds */
                    ttl: number | null;
                    /** @description when the target last answered with addresses */
                    resolvedAt: components["schemas"]["Timestamp"] | null;
                    /** @description when the target was last asked (again before three quarters of `ttl` pass; every 30 s while it fails) */
                    checkedAt: components["schemas"]["Timestamp"] | null;
                    /** @description why the last look found no addresses: the target has no public A or AAAA (a name that does not exist, one without them and one with only non-public addresses read alike), or the resolver failed; the last addresses stay served */
                    error: string | null;
                }[];
            };
            /** @description one page of rrsets: the first holds the SOA and every apex rrset */
            rrsets: components["schemas"]["RRset"][];
            /** @description pass as `cursor` for the next page of rrsets; null on the last page */
            nextCursor: string | null;
        };
        RRset: {
            name: string;
            /** @enum {string} */
            type: "A" | "AAAA" | "ALIAS" | "CAA" | "CNAME" | "DS" | "HTTPS" | "MX" | "NAPTR" | "NS" | "PTR" | "SRV" | "SSHFP" | "SVCB" | "TLSA" | "TXT" | "SOA";
            ttl: number;
            records: {
                content: string;
            }[];
            managedBy: ("system" | "app" | "acme") | null;
            /** @description the rrset's own entity tag, for `If-Match` on putRRset and deleteRRset; a write that changes nothing keeps it */
            etag: string;
        };
        ZoneChangeResult: {
            /** @description the zone's generation after the change (unchanged when nothing changed); with `dryRun`, the one it would take */
            generation: number;
            /** @description the zone's SOA serial after the change; with `dryRun`, the one it would take. A signed zone is served with a serial at or above it (the signer counts its own re-signing): getZone's `status.servedSerial` is the one the nameserver answers with */
            serial: number;
            /** @description the rrsets that change, in the order of the request; a change to what is stored already is not listed */
            diff: {
                /** @enum {string} */
                op: "add" | "remove" | "change";
                name: string;
                type: string;
                /** @description the rrset before, null when it was not there */
                before: {
                    ttl: number;
                    records: {
                        content: string;
                    }[];
                } | null;
                /** @description the rrset after, null when it is removed */
                after: {
                    ttl: number;
                    records: {
                        content: string;
                    }[];
                } | null;
            }[];
        };
        ZoneRevision: {
            generation: number;
            serial: number;
            at: components["schemas"]["Timestamp"];
            actor: string;
            summary: string;
        };
        ZoneRevisionDetail: {
            generation: number;
            serial: number;
            at: components["schemas"]["Timestamp"];
            actor: string;
            summary: string;
            /** @description the rrsets that change, in the order of the request; a change to what is stored already is not listed */
            diff: {
                /** @enum {string} */
                op: "add" | "remove" | "change";
                name: string;
                type: string;
                /** @description the rrset before, null when it was not there */
                before: {
                    ttl: number;
                    records: {
                        content: string;
                    }[];
                } | null;
                /** @description the rrset after, null when it is removed */
                after: {
                    ttl: number;
                    records: {
                        content: string;
                    }[];
                } | null;
            }[];
        };
        AuthStatus: {
            /** @description the project has sign-in: its node runs the sign-in worker under `/__service/auth/*` */
            granted: boolean;
            /** @description null without a grant; a grant starts with the defaults */
            settings: components["schemas"]["AuthSettings"] | null;
            /** @description the registered providers by name, client id only (the client secret is never returned). They are the project's: a revoke keeps them, and a grant again uses them */
            providers: {
                /** @enum {string} */
                provider: "github" | "google" | "kakao";
                clientId: string;
            }[];
            /** @description the project's routable hostnames (default and active custom), by name: register `https://<host>/__service/auth/callback/<provider>` with each provider for each of them */
            hosts: string[];
        };
        AuthSettings: {
            /** @description how long a signed-in session lasts, in days (1 to 365, default 30); it also bounds the session table (150 MB ceiling) */
            sessionDays: number;
        };
        DomainList: {
            items: components["schemas"]["Domain"][];
            /** @description pass as `cursor` for the next page; null on the last page */
            nextCursor: string | null;
        };
        Domain: {
            name: string;
            /**
             * @description `pending`: a purchase under way (send it again to finish it); `active`: registered in the service's registrar account; `expired`: past its expiry; `transferred_out`: the registrar says it is no longer in the account; `imported`: registered elsewhere, its DNS run here
             * @enum {string}
             */
            status: "pending" | "active" | "expired" | "transferred_out" | "imported";
            /** @description as the registrar last answered (authoritative there); null for imported and pending domains */
            expiresAt: components["schemas"]["Timestamp"] | null;
            /** @description the transfer lock, as the registrar last answered */
            locked: boolean;
            /** @description as the registrar last answered; for an imported domain its delegation as last read */
            nameservers: string[];
            /** @description the stored intent only: with it the service renews ahead of expiry and bills after. Renewal at the registrar stays on either way, because a domain renewed a day late is lost: turning this off does not cancel anything there; tell users so */
            autoRenew: boolean;
            /** @description while `pending`: the step the purchase stopped at (`reserved`, `charging`, `charged`, `registering`, `registered`); else null */
            purchaseStep: string | null;
            createdAt: components["schemas"]["Timestamp"];
            /** @description when the registrar (or, imported, the delegation) was last read */
            syncedAt: components["schemas"]["Timestamp"] | null;
            /** @description `Synced` (`Synced`, `RegistrarUnavailable`: the registrar could not be read, the facts are the last known), `Renewed` (`Renewed`, `RenewalFailed`), `RenewalPaid` (`Paid`, `PaymentDeclined`: the renewal charge was declined, the domain stays renewed) */
            conditions: components["schemas"]["Condition"][];
        };
        DomainAvailability: {
            results: {
                name: string;
                available: boolean;
                /** @description first registration, one year */
                priceCents: number;
                /** @description one year of renewal (first-year discounts make it differ) */
                renewalCents: number;
                currency: string;
            }[];
        };
        DomainDetail: {
            name: string;
            /**
             * @description `pending`: a purchase under way (send it again to finish it); `active`: registered in the service's registrar account; `expired`: past its expiry; `transferred_out`: the registrar says it is no longer in the account; `imported`: registered elsewhere, its DNS run here
             * @enum {string}
             */
            status: "pending" | "active" | "expired" | "transferred_out" | "imported";
            /** @description as the registrar last answered (authoritative there); null for imported and pending domains */
            expiresAt: components["schemas"]["Timestamp"] | null;
            /** @description the transfer lock, as the registrar last answered */
            locked: boolean;
            /** @description as the registrar last answered; for an imported domain its delegation as last read */
            nameservers: string[];
            /** @description the stored intent only: with it the service renews ahead of expiry and bills after. Renewal at the registrar stays on either way, because a domain renewed a day late is lost: turning this off does not cancel anything there; tell users so */
            autoRenew: boolean;
            /** @description while `pending`: the step the purchase stopped at (`reserved`, `charging`, `charged`, `registering`, `registered`); else null */
            purchaseStep: string | null;
            createdAt: components["schemas"]["Timestamp"];
            /** @description when the registrar (or, imported, the delegation) was last read */
            syncedAt: components["schemas"]["Timestamp"] | null;
            /** @description `Synced` (`Synced`, `RegistrarUnavailable`: the registrar could not be read, the facts are the last known), `Renewed` (`Renewed`, `RenewalFailed`), `RenewalPaid` (`Paid`, `PaymentDeclined`: the renewal charge was declined, the domain stays renewed) */
            conditions: components["schemas"]["Condition"][];
            /** @description the latest 50 ledger entries, newest first */
            ledger: components["schemas"]["DomainLedgerEntry"][];
        };
        DomainLedgerEntry: {
            at: components["schemas"]["Timestamp"];
            /**
             * @description `charge` (the purchase), `refund` (a purchase the registry refused after the charge: a negative amount), `renewal` (billed after a renewal), `renewal_declined` (the renewal charge was declined: the domain stays renewed, the amount is owed)
             * @enum {string}
             */
            kind: "charge" | "refund" | "renewal" | "renewal_declined";
            amountCents: number;
            currency: string;
            note: string;
        };
        DomainAuthCode: {
            /** @description the transfer code: the way out is open at once. Never logged or audited */
            authCode: string;
            /** @description advice: registries refuse a transfer within 60 days of registration; null when past */
            transferLockedUntil: components["schemas"]["Timestamp"] | null;
        };
        AccessPolicy: {
            /**
             * @description `public`: anyone; `org`: members of the project's organization (member role or above); `password`: one shared password
             * @enum {string}
             */
            mode: "public" | "org" | "password";
            /** @description a password is stored (as a slow hash; it is never returned) */
            hasPassword: boolean;
            /** @description a bypass secret is set (`Service-Access-Bypass` header; stored as a hash) */
            hasBypass: boolean;
            /** @description null: never set (the project is `public`) */
            updatedAt: components["schemas"]["Timestamp"] | null;
            /** @description per node the project is placed on (none before its first deploy), by node id */
            rollout: {
                nodeId: string;
                /**
                 * @description `applied`: the node reported running a bundle with this policy (mode, password, bypass secret, and the organization's members as they are now); `pending`: not yet
                 * @enum {string}
                 */
                state: "applied" | "pending";
                /** @description why the node does not run the project's wanted worker, as it last reported (a `pending` that will not end by waiting); null: it runs, or the node did not say */
                failure: string | null;
            }[];
        };
        AccessBypass: {
            /** @description send as `Service-Access-Bypass: <secret>`; shown only here, and the previous one stops working at once */
            secret: string;
        };
        AccessAuthorize: {
            /** @description `https://<to>/__service/access/callback?code=...&next=...[&state=...]`: the code is single use, valid 60 s, bound to host, user and `next` */
            redirect: string;
        };
        AccessRedeemed: {
            host: string;
            next: string;
            /** @description the user's email */
            user: string;
            org: string;
            /**
             * @description the user's role in the org now; in `org` mode the node admits member and admin
             * @enum {string}
             */
            role: "viewer" | "member" | "admin";
        };
        HostnameList: {
            items: components["schemas"]["Hostname"][];
            /** @description pass as `cursor` for the next page; null on the last page */
            nextCursor: string | null;
        };
        Hostname: {
            /** @description lower case, punycode */
            name: string;
            /** @enum {string} */
            kind: "default" | "custom";
            /**
             * @description `pending_dns` until an ownership proof passes (checked every minute, or at once by verifyHostname); `active`: verified and routed. There is no way to `active` without a proof; a pending name never verified is deleted 7 days (by default) after it was added
             * @enum {string}
             */
            status: "pending_dns" | "active";
            /** @description custom hostnames: the TXT record at `_service-verify.<name>` with the token, or a CNAME of the name to the organization's own origin under the fallback origin (`o-<hex>.<fallback origin>`: a CNAME to the shared origin would not say which organization it is for; at a zone apex, where a CNAME cannot be, the TXT). A name in a zone the organization runs here needs neither. Empty for the default hostname */
            verify: {
                /** @enum {string} */
                type: "TXT" | "CNAME";
                name: string;
                value: string;
            }[];
            /** @description what stands in the way, in words: for a pending name what each proof sees ("no TXT record with the token 'def' at _service-verify.x" for a name that does not exist and one without the record alike, "TXT at _service-verify.x has 'abc', expected 'def'", "no CNAME to z at x", "CNAME of x points to y, expected z", "CNAME of x points elsewhere, expected z", "TXT at _service-verify.x: the resolver did not answer in 2 s"). What a record holds is shown only at a name in public DNS (under an ICANN public suffix: not `.test`, `.internal`, `.local` and the like), and a CNAME target only when it is one too, as the resolver may know names only the service's own network has (a name outside public DNS ends with "x is outside public DNS (no ICANN top-level domain), so what its names hold is not shown here; the operators' log has it at debug level"); for an active name an edge failure; else null */
            lastError: string | null;
            createdAt: components["schemas"]["Timestamp"];
            /** @description when a proof passed */
            verifiedAt: components["schemas"]["Timestamp"] | null;
            generation: number;
            /** @description `Verified` (`ZoneOwned`, `TxtRecord`, `Cname`, `NoProof`), `Ready` (`Active`, `PendingVerification`, `WaitingForCleanup`, `Activating`, `EdgeUnavailable`, `CertificatePending`), and for active names `EdgeConfigured`, `CertificateReady` (`Issued`, `PendingValidation`), `Resolves` (whether public DNS points the name to the edge: `PointsToEdge`, `PointsElsewhere`, `NoRecord` alike for no such name, no record and a name outside public DNS, `ResolverFailed`) and, for a name in a zone of the organization, `ManagedRecord` (`Written`, `CustomerRRset`: the rrset in the way, `NoEdgeAddresses`) */
            conditions: components["schemas"]["Condition"][];
        };
        StorageStatus: {
            granted: boolean;
            /** @description the project's object key prefix, assigned at its first grant and kept for good (also after a revoke: its objects stay); null before */
            prefix: string | null;
            /** @description the plan's storage quota while granted; null otherwise */
            quotaBytes: number | null;
            /** @description as the node last reported it (null: never); lags by the reporting period and may pass the quota */
            usedBytes: number | null;
            /** @description when `usedBytes` was reported */
            usedBytesAt: components["schemas"]["Timestamp"] | null;
            /** @description `WithinQuota`: False once the reported usage passes the quota (the object store enforces it), Unknown before a report */
            conditions: components["schemas"]["Condition"][];
        };
        SecretMeta: {
            name: string;
            version: number;
            updatedAt: components["schemas"]["Timestamp"];
        };
        SecretStatus: {
            name: string;
            version: number;
            updatedAt: components["schemas"]["Timestamp"];
            /** @description per node the project is placed on (none before its first deploy), by node id */
            rollout: {
                nodeId: string;
                /**
                 * @description `applied`: the node reported running a bundle with this version (or a later one); `pending`: not yet
                 * @enum {string}
                 */
                state: "applied" | "pending";
                /** @description why the node does not run the project's wanted worker, as it last reported (a `pending` that will not end by waiting); null: it runs, or the node did not say */
                failure: string | null;
            }[];
        };
        Project: {
            name: string;
            hostname: string;
            database: boolean;
            createdAt: components["schemas"]["Timestamp"];
            /** @description when its deletion was asked (deleteProject); null while it lives. A project being deleted keeps its name and its place in the plan's project count until its cleanup is done, then reads as 404 */
            deletingSince: components["schemas"]["Timestamp"] | null;
        };
        ProjectDetail: {
            name: string;
            hostname: string;
            database: boolean;
            createdAt: components["schemas"]["Timestamp"];
            /** @description when its deletion was asked (deleteProject); null while it lives. A project being deleted keeps its name and its place in the plan's project count until its cleanup is done, then reads as 404 */
            deletingSince: components["schemas"]["Timestamp"] | null;
            hostnames: {
                name: string;
                /** @enum {string} */
                kind: "default" | "custom";
                status: string;
            }[];
            grants: {
                auth: boolean;
                storage: boolean;
            };
            /** @description the nodes the project is placed on; empty until its first deploy */
            placements: {
                nodeId: string;
                createdAt: components["schemas"]["Timestamp"];
                /** @description the node's bundle version that carries the project as it is now; null until the node's bundle takes it */
                version: number | null;
                /** @description the bundle version the node last reported running the project at; null: it never reported */
                appliedVersion: number | null;
                /** @description the node runs the project as it is now (`appliedVersion` ≥ `version`) */
                applied: boolean;
                /** @description why the node does not run the project's wanted worker, as it last reported; null: it runs, or the node did not say */
                failure: string | null;
                /** @description the node's last report */
                reportedAt: components["schemas"]["Timestamp"] | null;
            }[];
            /** @description while the project is being deleted: what its deletion still waits for; null otherwise */
            cleanup: {
                /** @description custom hostnames whose edge hostname or managed records are still being removed */
                hostnames: string[];
                /** @description nodes whose bundle still carries the project: they stop its workers at their next bundle */
                nodes: string[];
            } | null;
        };
        AuditRecord: {
            id: string;
            at: components["schemas"]["Timestamp"];
            event: string;
            actor: string;
            target: string;
            details: {
                [key: string]: unknown;
            };
        };
        Bundle: {
            nodeId: string;
            /** @description the bundle version, also its `ETag`; it only rises. 0: nothing built for the node yet */
            version: number;
            /** @description the projects placed on the node, by org and name */
            projects: components["schemas"]["BundleProject"][];
        };
        BundleProject: {
            org: string;
            project: string;
            /** @description the project's lifetime (16 random bytes, hex): a project deleted and created again under the name has another, and the node gives it a database and a worker user of its own */
            uid: string;
            /** @description routable hostnames: the default one and the active custom ones; any other Host is 404 `unknown_hostname` */
            hostnames: string[];
            /** @description the project has a database: `SERVICE_DB_PATH`, a SQLite file on the node */
            database: boolean;
            /** @description env bindings, by name: each as the environment variable of its name */
            secrets: {
                /** @description the environment variable the worker gets it as */
                name: string;
                version: number;
                /** @description the secret value: the bundle is the one place it leaves the core */
                value: string;
            }[];
            /** @description null without a storage grant */
            storage: {
                /** @description the project's object key prefix (ends with `/`): `SERVICE_STORAGE_DIR` on the reference node */
                prefix: string;
                /** @description `SERVICE_STORAGE_QUOTA_BYTES`, the plan's; the object store enforces it */
                quotaBytes: number;
            } | null;
            /** @description deployment access (setAccess); `public` at version 0 when never set */
            access: {
                /** @enum {string} */
                mode: "public" | "org" | "password";
                /** @description the shared password as a scrypt PHC string (`$scrypt$ln=17,r=8,p=1$salt$key`); null: none */
                passwordHash: string | null;
                /** @description SHA-256 (hex) of the bypass secret sent as `Service-Access-Bypass`; null: none */
                bypassHash: string | null;
                /** @description the policy version: rises with the mode or the password; sessions made under an older one end (0: never set) */
                version: number;
                /** @description the organization's members version: rises when a member's role changes or a member leaves; `org`-mode sessions made under an older one end */
                membersVersion: number;
            };
            /** @description end-user sign-in; null without a grant */
            signIn: {
                /** @description the grant's id, new at each grant (16 random bytes, hex): a session made under another grant does not count, so a revoke and a grant again end sessions */
                grant: string;
                settings: {
                    /** @description how long a session lasts, in days */
                    sessionDays: number;
                };
                /** @description the plan's sign-in users per project: sign-ups beyond it are refused by the node */
                maxUsers: number;
                /** @description the registered providers, by name; callbacks come to `https://<host>/__service/auth/callback/<provider>` */
                providers: {
                    /** @enum {string} */
                    provider: "github" | "google" | "kakao";
                    clientId: string;
                    /** @description the project's OAuth client secret: the bundle is the one place it leaves the core */
                    clientSecret: string;
                    /** @description where the node reaches the provider, as the operator configured it (`--oauth-providers`: the real providers, a sandbox or a file) */
                    endpoints: {
                        authorize: string;
                        token: string;
                        userInfo: string;
                        /** @description where verified email addresses are read when the user info may lack one (GitHub); null: none */
                        emails: string | null;
                    };
                }[];
            } | null;
        };
        NodeReportAnswer: {
            /** @description the version of the node's current bundle */
            desiredVersion: number;
            /** @description reported projects not placed on this node: not recorded */
            ignored: {
                org: string;
                project: string;
            }[];
        };
    };
    responses: {
        /** @description `bad_request`: an invalid path parameter, query or body; `details.issues` names each invalid field */
        BadRequest: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `unauthorized`: no `Authorization: Bearer` token, an unknown one, or one of the other kind (a user's on a node operation, a node's on a user operation) */
        Unauthorized: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `method_not_allowed`: the path exists, the method does not; `Allow` lists those it has */
        MethodNotAllowed: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                Allow: components["headers"]["Allow"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
        IdempotencyInProgress: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `payload_too_large`: the body is over 1048576 bytes (1 MiB) */
        PayloadTooLarge: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `unsupported_media_type`: a body that is not `application/json` in UTF-8, or a compressed one */
        UnsupportedMediaType: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `idempotency_key_reused`: this `Idempotency-Key` went with another request (operation, path, body or `If-Match` / `If-None-Match`) in the last 24 hours */
        IdempotencyKeyReused: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `rate_limited`: too many failed authentications from this address, or too many requests with this token where a limit is configured */
        RateLimited: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                "Retry-After": components["headers"]["Retry-After"];
                "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `internal`: an unexpected failure; the message says no more, `requestId` finds it in the server's log */
        Internal: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description `store_unavailable`: the store (PostgreSQL, with `--database-url`) cannot be reached for a moment; retry after the seconds its `Retry-After` header gives. `no_core`: the API runs without its core component; `core_unavailable`: the core does not answer; on a process of several, also while no leader is elected or the leader does not answer an operation that calls a provider (then with `Retry-After`) */
        Unavailable: {
            headers: {
                "X-Request-Id": components["headers"]["X-Request-Id"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
        IfMatch: string;
        /** @description on a GET, one or more `ETag`s: 304 with no body while the current tag is one of them; on a write, `*` makes it create only (412 `precondition_failed` when the resource exists) and a tag refuses it while the resource still has that tag */
        IfNoneMatch: string;
        /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
        IdempotencyKey: string;
        /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
        RequestId: string;
    };
    requestBodies: never;
    headers: {
        /** @description the id of this answer: the client's `X-Request-Id` when it sent one of 1 to 128 characters `A-Za-z0-9_.:-`, else a fresh one */
        "X-Request-Id": string;
        /** @description the scheme requests must use (RFC 6750) */
        "WWW-Authenticate": string;
        /** @description the methods the path has */
        Allow: string;
        /** @description seconds until the limit lets a request through again */
        "Retry-After": number;
        /** @description the limit that applies (IETF draft-ietf-httpapi-ratelimit-headers): `"failed-auth";q=100;w=60` (failed authentications per client address) or `"token";q=N;w=S` (requests per token, where configured); on a 429, and on every answer to a token with a limit; `"zone-work";q=N;qu="concurrent-requests"` (whole-zone operations of an organization waiting, on their 429) */
        "RateLimit-Policy": string;
        /** @description the limit's state: `"<policy>";r=<requests left>;t=<seconds until the quota is whole again>` */
        RateLimit: string;
        /** @description `true` on an answer replayed for an `Idempotency-Key` (the answer of its first request), absent otherwise */
        "Idempotent-Replayed": "true";
        /** @description the path of the resource the request created */
        Location: string;
        /** @description the strong entity tag of the resource as answered: send it in `If-None-Match` (a GET answers 304 while it holds) or `If-Match` (a write answers 412 `precondition_failed` once it no longer holds) */
        ETag: string;
        /** @description `no-store`: the answer carries secret values (a node's bundle, a bypass secret, a transfer code), which no cache may keep */
        "Cache-Control": "no-store";
        /** @description the generation of the reconciled resource after this request: a GET of it with `?waitGeneration=` this number and `wait=` holds until it is served at it */
        "X-Generation": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listZones: {
        parameters: {
            query?: {
                limit?: string;
                cursor?: string;
            };
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description zones by name */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Zone"][];
                        /** @description pass as `cursor` for the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createZone: {
        parameters: {
            query?: never;
            header?: {
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    /** @description at least two labels; normalized (lower case, A-labels, no trailing dot) to at most 232 characters; not a public suffix, nor at or under the app domain, the registrable domain of the nameservers or of the fallback origin, or a service domain */
                    name: string;
                };
            };
        };
        responses: {
            /** @description the zone, new or existing */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Generation": components["headers"]["X-Generation"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ZoneDetail"];
                };
            };
            /** @description `bad_request`: an invalid zone name, a public suffix, or a domain of this service */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `zone_taken`: another organization holds the zone, or one above or below it; `quota_exceeded`: the plan's zone quota; `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getZone: {
        parameters: {
            query?: {
                limit?: string;
                cursor?: string;
                waitGeneration?: string;
                wait?: string;
            };
            header?: {
                /** @description on a GET, one or more `ETag`s: 304 with no body while the current tag is one of them; on a write, `*` makes it create only (412 `precondition_failed` when the resource exists) and a tag refuses it while the resource still has that tag */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the zone and a page of rrsets; a page may hold fewer than `limit` when its rrsets are large. With `waitGeneration`, once it is served at that generation, or when `wait` ends (then `status` says why not) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Generation": components["headers"]["X-Generation"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ZoneDetail"];
                };
            };
            /** @description not modified: `If-None-Match` names the current `ETag`; no body */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Generation": components["headers"]["X-Generation"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: a zone name of one label, an invalid `limit`, `cursor`, `waitGeneration` or `wait`, or `wait` without `waitGeneration` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteZone: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: a zone name of one label */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the zone's current `ETag` */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putRRset: {
        parameters: {
            query?: {
                dryRun?: "true" | "false";
            };
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description on a GET, one or more `ETag`s: 304 with no body while the current tag is one of them; on a write, `*` makes it create only (412 `precondition_failed` when the resource exists) and a tag refuses it while the resource still has that tag */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
                name: string;
                type: "A" | "AAAA" | "ALIAS" | "CAA" | "CNAME" | "DS" | "HTTPS" | "MX" | "NAPTR" | "NS" | "PTR" | "SRV" | "SSHFP" | "SVCB" | "TLSA" | "TXT" | "SOA";
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    /** @description the whole new content of the rrset */
                    records: {
                        /** @description the record in zone-file form (`192.0.2.1`, `10 mail.example.com`, a TXT value as it is; HTTPS/SVCB in RFC 9460 form, `1 . alpn=h2,h3 port=443`; TLSA `3 1 1 <hex>`; SSHFP `4 2 <hex>`; NAPTR `100 10 "S" "SIP+D2U" "" _sip._udp.example.com`; DS `<key tag> <algorithm> <digest type> <hex>`, only at a name with NS below the apex; ALIAS one host name, `cdn.example.net`, served as its A and AAAA, at any name but beside no A or AAAA); no record's data is over 65535 octets, and the rrset, with room for DNSSEC signatures, must fit one DNS message of 65535 octets (a TXT value of about 60,000 bytes at most, less under a long zone name): else 400 naming the record */
                        content: string;
                    }[];
                    /** @description seconds; default 3600 */
                    ttl?: number;
                };
            };
        };
        responses: {
            /** @description the stored rrset; `ETag` is its tag, `X-Generation` the zone's generation that serves it (unchanged when the rrset was already so). With `dryRun=true`: a ZoneChangeResult, nothing written, and neither header (no rrset is stored under that tag, and that generation never comes) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description the strong entity tag of the resource as answered: send it in `If-None-Match` (a GET answers 304 while it holds) or `If-Match` (a write answers 412 `precondition_failed` once it no longer holds) */
                    ETag?: string;
                    /** @description the generation of the reconciled resource after this request: a GET of it with `?waitGeneration=` this number and `wait=` holds until it is served at it */
                    "X-Generation"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RRset"] | components["schemas"]["ZoneChangeResult"];
                };
            };
            /** @description `bad_request`: an invalid zone name, owner, type, TTL or record content (`details.issues` names each record) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `managed_rrset`, `cname_conflict`, `ds_without_delegation` (a DS where there is no NS), `alias_conflict` (an ALIAS beside an A or AAAA), `alias_limit` (more than 25 ALIAS rrsets in the zone), or `quota_exceeded` (rrsets per zone, zone file bytes) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the rrset's current `ETag` (or there is no such rrset), or `If-None-Match: *` and the rrset exists */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteRRset: {
        parameters: {
            query?: {
                dryRun?: "true" | "false";
            };
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
                name: string;
                type: "A" | "AAAA" | "ALIAS" | "CAA" | "CNAME" | "DS" | "HTTPS" | "MX" | "NAPTR" | "NS" | "PTR" | "SRV" | "SSHFP" | "SVCB" | "TLSA" | "TXT" | "SOA";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description with `dryRun=true`: what the deletion would do, nothing written */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ZoneChangeResult"];
                };
            };
            /** @description deleted; `X-Generation` is the zone's generation without the rrset */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "X-Generation": components["headers"]["X-Generation"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: an invalid zone name, owner or type */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `managed_rrset`, or `ds_without_delegation` (the NS of a name that has a DS) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the rrset's current `ETag` */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setZoneDNSSEC: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    enabled: boolean;
                };
            };
        };
        responses: {
            /** @description the zone */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Generation": components["headers"]["X-Generation"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Zone"];
                };
            };
            /** @description `bad_request`: a zone name of one label, or an invalid body */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            409: components["responses"]["IdempotencyInProgress"];
            /** @description `precondition_failed`: `If-Match` does not name the zone's current `ETag` */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setZoneDS: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    ds: ({
                        keyTag: number;
                        algorithm: number;
                        digestType: number;
                        /** @description hex, whole bytes: 40 digits for digest type 1 (SHA-1), 64 for 2 (SHA-256), 96 for 4 (SHA-384), 40 to 128 for others */
                        digest: string;
                    } & (unknown & unknown & unknown))[];
                };
            };
        };
        responses: {
            /** @description the zone */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Generation": components["headers"]["X-Generation"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Zone"];
                };
            };
            /** @description `bad_request`: a zone name of one label, or invalid DS values */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `dnssec_off` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the zone's current `ETag` */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    applyZoneChanges: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    /** @description 1 to 1000 changes, at most one per rrset (name and type) */
                    changes: ({
                        /** @constant */
                        op: "put";
                        /** @description the owner: an absolute name inside the zone without the trailing dot, or `@` for the apex */
                        name: string;
                        /**
                         * @description upper case; SOA is the service's own (refused)
                         * @enum {string}
                         */
                        type: "A" | "AAAA" | "ALIAS" | "CAA" | "CNAME" | "DS" | "HTTPS" | "MX" | "NAPTR" | "NS" | "PTR" | "SRV" | "SSHFP" | "SVCB" | "TLSA" | "TXT" | "SOA";
                        /** @description seconds; default 3600 */
                        ttl?: number;
                        /** @description the whole new content of the rrset, as putRRset's */
                        records: {
                            content: string;
                        }[];
                    } | {
                        /** @constant */
                        op: "delete";
                        /** @description the owner: an absolute name inside the zone without the trailing dot, or `@` for the apex */
                        name: string;
                        /**
                         * @description upper case; SOA is the service's own (refused)
                         * @enum {string}
                         */
                        type: "A" | "AAAA" | "ALIAS" | "CAA" | "CNAME" | "DS" | "HTTPS" | "MX" | "NAPTR" | "NS" | "PTR" | "SRV" | "SSHFP" | "SVCB" | "TLSA" | "TXT" | "SOA";
                    })[];
                    /** @description answer what the set would do, checked exactly as the write, and write nothing */
                    dryRun?: boolean;
                };
            };
        };
        responses: {
            /** @description what changed (or would); the generation to wait for in `X-Generation`, which a dry run does not send */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description the generation of the reconciled resource after this request: a GET of it with `?waitGeneration=` this number and `wait=` holds until it is served at it */
                    "X-Generation"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ZoneChangeResult"];
                };
            };
            /** @description `bad_request`: every refused change is in `details.issues`, in the changes' order (`path` `changes[i]...`: a change of the wrong shape, invalid content, the SOA or another rrset the service manages, a delete of an rrset that is not there, a CNAME beside another type, a DS without an NS or an ALIAS beside an A or AAAA once the set is applied, two changes of one rrset); any other field of the wrong shape (`changes` not a list of 1 to 1,000, a `dryRun` not true or false, a field of another name) is named alone, as `body...`; a query parameter (`?dryRun=true`: `dryRun` goes in the body here) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `quota_exceeded` (rrsets per zone, zone file bytes, counted on the whole set) or `alias_limit` (more than 25 ALIAS rrsets in the zone); `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the zone's current `ETag` */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            /** @description `rate_limited`: too many failed authentications from this address, or too many requests with this token where a limit is configured; or the organization already has its most whole-zone operations (exports, imports, restores, change sets of over 100 changes or 64 KiB, dry runs too) waiting for this API process (8); `Retry-After` says when to try again */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listZoneRevisions: {
        parameters: {
            query?: {
                limit?: string;
                cursor?: string;
            };
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description revisions, newest first: kept 90 days, and while the change sets' among them (imports and restores too) hold at most 8 times the plan's zone size of rrsets (before and after); past that the oldest go first, the newest is always kept */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["ZoneRevision"][];
                        /** @description pass as `cursor` for the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            /** @description `bad_request`: a zone name of one label, an invalid `limit` or `cursor` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getZoneRevision: {
        parameters: {
            query?: never;
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
                generation: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the revision */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ZoneRevisionDetail"];
                };
            };
            /** @description `bad_request`: a zone name of one label, a generation that is not a number */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    restoreZoneRevision: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
                generation: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody?: {
            content: {
                "application/json": {
                    /** @description answer what the restore would do and write nothing */
                    dryRun?: boolean;
                };
            };
        };
        responses: {
            /** @description what changed (or would), as applyZoneChanges answers; the service's own rrsets are left as they are. Audited as one `dns.zone.restore` (`details`: `generation`, `to`, `added`, `changed`, `removed`), not an event per rrset; the generation to wait for in `X-Generation`, which a dry run does not send */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description the generation of the reconciled resource after this request: a GET of it with `?waitGeneration=` this number and `wait=` holds until it is served at it */
                    "X-Generation"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ZoneChangeResult"];
                };
            };
            /** @description `bad_request`: a zone name of one label, a generation that is not a number, a query parameter (`?dryRun=true`: `dryRun` goes in the body here) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `quota_exceeded` (rrsets per zone, zone file bytes, counted on the whole set) or `alias_limit` (more than 25 ALIAS rrsets in the zone); `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the zone's current `ETag` */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            /** @description `rate_limited`: too many failed authentications from this address, or too many requests with this token where a limit is configured; or the organization already has its most whole-zone operations (exports, imports, restores, change sets of over 100 changes or 64 KiB, dry runs too) waiting for this API process (8); `Retry-After` says when to try again */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportZone: {
        parameters: {
            query?: never;
            header?: {
                /** @description on a GET, one or more `ETag`s: 304 with no body while the current tag is one of them; on a write, `*` makes it create only (412 `precondition_failed` when the resource exists) and a tag refuses it while the resource still has that tag */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the master file; TXT values split into strings of 255 bytes as served; an ALIAS in RFC 3597's generic form under PowerDNS's type code (`TYPE65401 \# <length> <hex>`, the target in wire form), after a comment naming it (`; ALIAS cdn.example.net.`), so that kzonecheck, BIND and Knot take the file. Importing it again changes nothing. `ETag` is getZone's. Streamed as it is read: should a write change a part of the zone not sent yet, or a reading held back for over 5 minutes be overtaken by the pruning of deletions made since it began, the answer ends unfinished (read it again); a client that takes none of it for 30 s (up to 60 s) is disconnected */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Generation": components["headers"]["X-Generation"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "text/dns": string;
                };
            };
            /** @description not modified: `If-None-Match` names the current `ETag`; no body */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Generation": components["headers"]["X-Generation"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: a zone name of one label */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many failed authentications from this address, or too many requests with this token where a limit is configured; or the organization already has its most whole-zone operations (exports, imports, restores, change sets of over 100 changes or 64 KiB, dry runs too) waiting for this API process (8); `Retry-After` says when to try again */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    importZone: {
        parameters: {
            query?: {
                mode?: "merge" | "replace";
                dryRun?: "true" | "false";
            };
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
            };
            cookie?: never;
        };
        /** @description text/dns in UTF-8, at most 1048576 bytes (1 MiB) */
        requestBody: {
            content: {
                "text/dns": string;
            };
        };
        responses: {
            /** @description what changed (or would), as `/changes` answers. Audited as one `dns.zone.import` (`details`: `mode`, `to`, `added`, `changed`, `removed`), not an event per rrset; the generation to wait for in `X-Generation`, which a dry run does not send */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description the generation of the reconciled resource after this request: a GET of it with `?waitGeneration=` this number and `wait=` holds until it is served at it */
                    "X-Generation"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ZoneChangeResult"];
                };
            };
            /** @description `bad_request`: an empty file, or lines that cannot be taken: `details.issues[].path` is `line N` (the line a record starts on) for each, with what is wrong (syntax, an unsupported type or directive, content the API refuses, a name outside the zone, a line of another zone, an SOA below the apex, a change to an rrset the service manages, a CNAME beside other types); a zone name of one label, an invalid `mode` or `dryRun` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `quota_exceeded` (rrsets per zone, zone file bytes, counted on the whole set) or `alias_limit` (more than 25 ALIAS rrsets in the zone); `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the zone's current `ETag` */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `payload_too_large`: the file is over 1048576 bytes (1 MiB) */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `unsupported_media_type`: a body that is not `text/dns` in UTF-8, or a compressed one */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["IdempotencyKeyReused"];
            /** @description `rate_limited`: too many failed authentications from this address, or too many requests with this token where a limit is configured; or the organization already has its most whole-zone operations (exports, imports, restores, change sets of over 100 changes or 64 KiB, dry runs too) waiting for this API process (8); `Retry-After` says when to try again */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured` (no own DNS), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAuth: {
        parameters: {
            query?: never;
            header?: {
                /** @description on a GET, one or more `ETag`s: 304 with no body while the current tag is one of them; on a write, `*` makes it create only (412 `precondition_failed` when the resource exists) and a tag refuses it while the resource still has that tag */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the sign-in state (`granted: false` when never granted: not a 404) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthStatus"];
                };
            };
            /** @description not modified: `If-None-Match` names the current `ETag`; no body */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    grantAuth: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description granted (again: unchanged) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthStatus"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `database_required`: the project has no database, where the user table lives; `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the sign-in state's current `ETag` (getAuth) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeAuth: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description not granted (any more); granting again lets the same people sign in */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the sign-in state's current `ETag` (getAuth) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAuthSettings: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["AuthSettingsPatch"];
            };
        };
        responses: {
            /** @description the state with the settings as stored */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthStatus"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the sign-in state's current `ETag` (getAuth) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setAuthProvider: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
                provider: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuthProviderPut"];
            };
        };
        responses: {
            /** @description the state with the provider registered (with or without a grant) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthStatus"];
                };
            };
            /** @description `invalid_provider`: the provider is none of `github`, `google`, `kakao`, or `clientId` or `clientSecret` is empty; `bad_request`: a body of another shape */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the sign-in state's current `ETag` (getAuth) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core, which seals client secrets */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteAuthProvider: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
                provider: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the provider is not registered (any more); a name that never was, whatever it is, is 204 too */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the sign-in state's current `ETag` (getAuth) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listDomains: {
        parameters: {
            query?: {
                limit?: string;
                cursor?: string;
            };
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description domains by name */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    purchaseDomain: {
        parameters: {
            query?: never;
            header?: {
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    /** @description a registrable domain (`example.com`): stored lower case, in punycode; not a public suffix, nor at or under a domain of the service */
                    name: string;
                    /**
                     * @description registration years, 1 to 10; default 1
                     * @default 1
                     */
                    years?: number;
                    contact: components["schemas"]["DomainContact"];
                    /** @description the payment provider's reference of a payment method (`pm_card_visa`; the sandbox declines `pm_card_declined`): never card data. Kept as the reference renewals are billed to */
                    paymentMethod: string;
                };
            };
        };
        responses: {
            /** @description the domain was already bought by this organization: nothing was charged again */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description this request finished the purchase (new, or resumed); `Location` is the domain's path */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Location: components["headers"]["Location"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description `bad_request`: an invalid body or name (a public suffix, a domain of the service), or a purchase of the name with other terms is under way (`details.fields` names the terms that differ: `years`, `paymentMethod`, `contact`) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `payment_failed`: the payment method was declined (`details.declineCode`); nothing was charged, the name is free again */
            402: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `domain_taken`: another organization holds the name, is buying it, or runs a zone at, above or below it; `domain_unavailable`: the registry refuses the name (a charge already made was refunded); `quota_exceeded`: the plan's zone quota (checked before any charge); `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `saga_incomplete` (the purchase stopped midway, at the payment or after the registration) or `registrar_error` (the registrar failed): send the same request again to resume; nothing is charged or registered twice */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `registrar_not_configured`, `dns_not_configured`, `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    checkDomains: {
        parameters: {
            query?: never;
            header?: {
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    names: string[];
                };
            };
        };
        responses: {
            /** @description availability per name, in the order asked */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainAvailability"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            409: components["responses"]["IdempotencyInProgress"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `registrar_error`: the registrar failed or did not answer; send the request again */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `registrar_not_configured` (no registrar in this deployment), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    importDomain: {
        parameters: {
            query?: never;
            header?: {
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    /** @description a registrable domain (`example.com`): stored lower case, in punycode; not a public suffix, nor at or under a domain of the service */
                    name: string;
                };
            };
        };
        responses: {
            /** @description already imported (or bought) by this organization: unchanged */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description imported; `Location` is the domain's path */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Location: components["headers"]["Location"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description `bad_request`: an invalid name, a public suffix, or a domain of this service */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `domain_taken`: another organization holds the name or a zone at, above or below it; `quota_exceeded`: the plan's zone quota; `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `dns_not_configured`, `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDomain: {
        parameters: {
            query?: never;
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the domain */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainDetail"];
                };
            };
            /** @description `bad_request`: `{name}` is not a domain name */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    renewDomain: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                name: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * @description years to add, 1 to 10; default 1
                     * @default 1
                     */
                    years?: number;
                };
            };
        };
        responses: {
            /** @description the domain with its new expiry */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description `bad_request`: an invalid body; an imported domain (renew it at its own registrar), a transferred-out one, or a purchase not finished; or a renewal that would run the registration more than 10 years ahead (registries refuse it; `details`: `limitYears`, `expiresAt`, `latestExpiresAt`) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            409: components["responses"]["IdempotencyInProgress"];
            /** @description `precondition_failed`: `If-Match` does not name the domain's current `ETag` (getDomain) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `registrar_error`: the registrar failed or did not answer; send the request again */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `registrar_not_configured` (no registrar in this deployment), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setDomainAutoRenew: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                name: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    autoRenew: boolean;
                };
            };
        };
        responses: {
            /** @description the domain with the intent stored; renewal at the registrar stays on */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            409: components["responses"]["IdempotencyInProgress"];
            /** @description `precondition_failed`: `If-Match` does not name the domain's current `ETag` (getDomain) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    setDomainLock: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                name: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    locked: boolean;
                };
            };
        };
        responses: {
            /** @description the domain with the lock as the registrar now answers it */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            /** @description `bad_request`: an invalid body; an imported domain (lock it at its own registrar), a transferred-out one, or a purchase not finished */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            409: components["responses"]["IdempotencyInProgress"];
            /** @description `precondition_failed`: `If-Match` does not name the domain's current `ETag` (getDomain) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `registrar_error`: the registrar failed or did not answer; send the request again */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `registrar_not_configured` (no registrar in this deployment), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDomainAuthCode: {
        parameters: {
            query?: never;
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the code (`Cache-Control: no-store`: no cache on the way may keep it) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainAuthCode"];
                };
            };
            /** @description `bad_request`: a transferred-out domain, or a purchase not finished */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: no such domain of the organization, or an imported one (its own registrar gives its code) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `registrar_error`: the registrar failed or did not answer; send the request again */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `registrar_not_configured` (no registrar in this deployment), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    syncDomain: {
        parameters: {
            query?: never;
            header?: {
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the domain as the registrar (or public DNS) now answers */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Domain"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            409: components["responses"]["IdempotencyInProgress"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `registrar_error`: the registrar failed or did not answer; send the request again */
            502: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `registrar_not_configured` (no registrar in this deployment), `no_core` or `core_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAccess: {
        parameters: {
            query?: never;
            header?: {
                /** @description on a GET, one or more `ETag`s: 304 with no body while the current tag is one of them; on a write, `*` makes it create only (412 `precondition_failed` when the resource exists) and a tag refuses it while the resource still has that tag */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the policy (`public` when never set: not a 404) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessPolicy"];
                };
            };
            /** @description not modified: `If-None-Match` names the current `ETag`; no body */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setAccess: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccessPut"];
            };
        };
        responses: {
            /** @description the policy as stored */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessPolicy"];
                };
            };
            /** @description `bad_request`: an invalid body, or mode `password` with no password sent and none stored */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the policy's current `ETag` (getAccess) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    newAccessBypass: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the new secret, in this answer only (`Cache-Control: no-store`) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessBypass"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the policy's current `ETag` (getAccess) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeAccessBypass: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description no bypass secret (any more) */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the policy's current `ETag` (getAccess) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    authorizeAccess: {
        parameters: {
            query?: never;
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path?: never;
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccessAuthorizeRequest"];
            };
        };
        responses: {
            /** @description where to move the browser (`Cache-Control: no-store`) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessAuthorize"];
                };
            };
            /** @description `bad_request`: `next` is not a path on the same host, or an invalid body */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `forbidden`: the caller is no member of the host's organization (viewer is enough) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `not_found`: `to` is no hostname the service routes */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    redeemAccessCode: {
        parameters: {
            query?: never;
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                nodeId: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccessRedeemRequest"];
            };
        };
        responses: {
            /** @description who was let in, where to, and their role now */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccessRedeemed"];
                };
            };
            /** @description `bad_request`: an invalid body */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description `not_found`: another node's id; or the code is unknown, expired, already redeemed, or for a host this node does not serve */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listHostnames: {
        parameters: {
            query?: {
                limit?: string;
                cursor?: string;
            };
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the hostnames, by name */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostnameList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    addHostname: {
        parameters: {
            query?: never;
            header?: {
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    /** @description the hostname (`www.customer.com`): stored lower case and in punycode; at least two labels of letters, digits and inner hyphens; not a wildcard, URL, IP address or public suffix, nor at or under the app domain or a domain of the service */
                    name: string;
                };
            };
        };
        responses: {
            /** @description the hostname, new or the project's existing row unchanged (same token) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Generation": components["headers"]["X-Generation"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Hostname"];
                };
            };
            /** @description `bad_request`: a malformed name (an empty or over-long label, a leading hyphen, a URL, spaces, an IP address, one label), a wildcard, a public suffix, or a name at or under the app domain or a domain of the service */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `hostname_taken`: another project (of any organization) holds the name (inside a zone this organization runs here and public DNS delegates to the service, another organization's row yields unless the zone's records prove it for that organization); `quota_exceeded`: the plan's custom hostnames per organization (`details`: `quota` `hostnames`, `limit`, `count`, `plan`); `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteHostname: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
                host: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: the project's default hostname (the deployment decides it), or a malformed name */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the hostname's current `ETag` */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    verifyHostname: {
        parameters: {
            query?: never;
            header?: {
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
                host: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the hostname after the judgement; a resolver that does not answer is its `lastError` */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "X-Generation": components["headers"]["X-Generation"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Hostname"];
                };
            };
            /** @description `bad_request`: a malformed name */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            409: components["responses"]["IdempotencyInProgress"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getStorage: {
        parameters: {
            query?: never;
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the grant state; `ETag` is its tag for `If-Match` on grantStorage and revokeStorage */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StorageStatus"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    grantStorage: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description granted (again: unchanged) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StorageStatus"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            409: components["responses"]["IdempotencyInProgress"];
            /** @description `precondition_failed`: `If-Match` does not name the grant state's current `ETag` (getStorage) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeStorage: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description not granted (any more); the objects and the prefix stay */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the grant state's current `ETag` (getStorage) */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core component */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSecrets: {
        parameters: {
            query?: {
                limit?: string;
                cursor?: string;
            };
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description names and versions */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["SecretMeta"][];
                        /** @description pass as `cursor` for the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
                secretName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the secret and its rollout; `ETag` is the secret's tag for `If-Match` on setSecret and deleteSecret (it does not follow the rollout, so no 304 is answered) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretStatus"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    setSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description on a GET, one or more `ETag`s: 304 with no body while the current tag is one of them; on a write, `*` makes it create only (412 `precondition_failed` when the resource exists) and a tag refuses it while the resource still has that tag */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
                secretName: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    /** @description at most 65,536 characters, and the plan's bytes per value in UTF-8 (32 KiB by default: a worker gets it as one environment string); no NUL (U+0000), which no environment string can hold; never answered back */
                    value: string;
                };
            };
        };
        responses: {
            /** @description the new version and its rollout (at once: pending on every node); `ETag` is its tag */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretStatus"];
                };
            };
            /** @description `bad_request` (name or body; a name that changes how a process loads or runs, `details.rule` naming the rule it breaks; a value with a NUL (U+0000); a value over the plan's bytes per value, `details`: `limitBytes`, `bytes`) or `reserved_name` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `quota_exceeded`: the project's secrets (`NAME=value`, in bytes) would pass the plan's `secretBytes` (`details`: `quota` `secret_bytes`, `limit`, `count`, `plan`), or the bundle of a node the project is placed on would pass its bound of 8 MiB (`quota` `bundle_bytes`, `limit`, `count`: its bytes now, `plan`) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the secret's current `ETag` (or it is not set), or `If-None-Match: *` and it is set */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core, which seals values */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's, the others the tag their resource's GET answers. Checked after the checks that answer 404, 403 or 409: in the write's transaction, except on the access policy, sign-in and domain writes, where it is checked just before the write */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
                secretName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `precondition_failed`: `If-Match` does not name the secret's current `ETag` */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listProjects: {
        parameters: {
            query?: {
                limit?: string;
                cursor?: string;
            };
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the projects, by name */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Project"][];
                        /** @description pass as `cursor` for the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    createProject: {
        parameters: {
            query?: never;
            header?: {
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    /** @description a DNS label, the first label of the default hostname `<name>.<app domain>` */
                    name: string;
                    /**
                     * @description whether the project gets a database binding
                     * @default false
                     */
                    database?: boolean;
                };
            };
        };
        responses: {
            /** @description created; `Location` is its path, `ETag` the tag getProject answers for it */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    Location: components["headers"]["Location"];
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"];
                };
            };
            /** @description invalid body (`bad_request`) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `project_name_taken`, `hostname_taken` or `project_limit` (details: limit, count, plan); `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getProject: {
        parameters: {
            query?: never;
            header?: {
                /** @description on a GET, one or more `ETag`s: 304 with no body while the current tag is one of them; on a write, `*` makes it create only (412 `precondition_failed` when the resource exists) and a tag refuses it while the resource still has that tag */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the project */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectDetail"];
                };
            };
            /** @description not modified: `If-None-Match` names the current `ETag`; no body */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    deleteProject: {
        parameters: {
            query?: never;
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                projectName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description being deleted: the project as getProject answers it now, `cleanup` saying what was left at the delete's commit (the reconcilers may have done some of it since); getProject answers so until the cleanup is done, then 404. Sending the delete again answers the same */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectDetail"];
                };
            };
            /** @description deleted: nothing was left to clean up, and its name and its place in the plan's project count are free */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    listAudit: {
        parameters: {
            query?: {
                limit?: string;
                cursor?: string;
                actor?: string;
                target?: string;
            };
            header?: {
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description audit records */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["AuditRecord"][];
                        /** @description pass as `cursor` for the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            /** @description role too low (`forbidden`) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description organization or target not found, or not the caller's (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
    getNodeBundle: {
        parameters: {
            query?: {
                wait?: string;
            };
            header?: {
                /** @description on a GET, one or more `ETag`s: 304 with no body while the current tag is one of them; on a write, `*` makes it create only (412 `precondition_failed` when the resource exists) and a tag refuses it while the resource still has that tag */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                nodeId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the bundle; `ETag` is its version. `Cache-Control: no-store`: it carries secret values */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Bundle"];
                };
            };
            /** @description `If-None-Match` names the current version (after `wait`, if given, passed without a newer one); no body */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["Cache-Control"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `bad_request`: an invalid `wait` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description another node's id (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `rate_limited`: too many failed authentications from this address, or too many requests with this token where a limit is configured; or a long-poll while the node already has its most (4) held; `Retry-After` says when to try again */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["Internal"];
            /** @description `no_core`: the API runs without its core, which opens bundles */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    reportNode: {
        parameters: {
            query?: never;
            header?: {
                /** @description a key of the caller's choosing (a UUID), 1 to 255 printable ASCII characters: the same caller, key and request (operation, path, body, `If-Match` and `If-None-Match`) within 24 hours get the first answer again (status, body, `Location`, `ETag`, `X-Generation`; `Idempotent-Replayed: true`); the key with another request is 422 `idempotency_key_reused`; while the first runs, 409 `idempotency_in_progress`. Keys are per caller: the user in the organization, never shared with another user or org. Not stored, so sending again runs the operation: 5xx, 400, 401, 403, 404 of the organization, 429, and answers larger than 64 KiB. A caller holds at most 1,000 keys within the 24 hours: a new key beyond that drops its oldest answered one (which then runs again if sent again) */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                nodeId: string;
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": components["schemas"]["NodeReport"];
            };
        };
        responses: {
            /** @description recorded */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeReportAnswer"];
                };
            };
            /** @description `bad_request`: an invalid body, or a bundle version the node was never given */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description another node's id (`not_found`) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            409: components["responses"]["IdempotencyInProgress"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["IdempotencyKeyReused"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
        };
    };
}
