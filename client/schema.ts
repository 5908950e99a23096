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
        get?: never;
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
        delete?: never;
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
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
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
                /** @description `Ready` (reasons `Served`, `NotServed`, `ApplyFailed`, `NameserverDown`, `InvalidZoneName`; while DNSSEC turns off `WaitingForParent`, `WaitingForCaches`, `ParentDsUnknown`), `Signed` with DNSSEC on or turning off (`KeysPublished`, `KeysPending`, `DeletingDs`: CDS/CDNSKEY DELETE published for the parent) and, with secondaries configured, `SecondariesInSync` (`InSync`, `SecondaryBehind`: the message names each secondary behind and the serial it serves) */
                conditions: components["schemas"]["Condition"][];
                /** @description the SOA serial the nameserver answered with (a signer may serve more than `serial`) */
                servedSerial: number | null;
                /** @description the Ready condition's message while it is not True, else null */
                lastError: string | null;
                /** @description when the reconciler last recorded a change of this status */
                reconciledAt: components["schemas"]["Timestamp"] | null;
                /** @description DS values the signer reports for the parent (observed; record them with setZoneDS) */
                signerDs: components["schemas"]["DS"][];
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
                /** @description `Ready` (reasons `Served`, `NotServed`, `ApplyFailed`, `NameserverDown`, `InvalidZoneName`; while DNSSEC turns off `WaitingForParent`, `WaitingForCaches`, `ParentDsUnknown`), `Signed` with DNSSEC on or turning off (`KeysPublished`, `KeysPending`, `DeletingDs`: CDS/CDNSKEY DELETE published for the parent) and, with secondaries configured, `SecondariesInSync` (`InSync`, `SecondaryBehind`: the message names each secondary behind and the serial it serves) */
                conditions: components["schemas"]["Condition"][];
                /** @description the SOA serial the nameserver answered with (a signer may serve more than `serial`) */
                servedSerial: number | null;
                /** @description the Ready condition's message while it is not True, else null */
                lastError: string | null;
                /** @description when the reconciler last recorded a change of this status */
                reconciledAt: components["schemas"]["Timestamp"] | null;
                /** @description DS values the signer reports for the parent (observed; record them with setZoneDS) */
                signerDs: components["schemas"]["DS"][];
            };
            /** @description one page of rrsets: the first holds the SOA and every apex rrset */
            rrsets: components["schemas"]["RRset"][];
            /** @description pass as `cursor` for the next page of rrsets; null on the last page */
            nextCursor: string | null;
        };
        RRset: {
            name: string;
            /** @enum {string} */
            type: "A" | "AAAA" | "CAA" | "CNAME" | "MX" | "NS" | "PTR" | "SRV" | "TXT" | "SOA";
            ttl: number;
            records: {
                content: string;
            }[];
            managedBy: ("system" | "app" | "acme") | null;
            /** @description the rrset's own entity tag, for `If-Match` on putRRset and deleteRRset; a write that changes nothing keeps it */
            etag: string;
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
            /** @description custom hostnames: the TXT record at `_service-verify.<name>` with the token, or a CNAME of the name to the fallback origin (at a zone apex, where a CNAME cannot be, the TXT). A name in a zone the organization runs here needs neither. Empty for the default hostname */
            verify: {
                /** @enum {string} */
                type: "TXT" | "CNAME";
                name: string;
                value: string;
            }[];
            /** @description what stands in the way, in words: for a pending name what each proof sees ("TXT at _service-verify.x has 'abc', expected 'def'", "CNAME of x points to y, expected z", "no such name (NXDOMAIN)", "resolver 10.0.0.2 did not answer in 2 s"); for an active one an edge failure; else null */
            lastError: string | null;
            createdAt: components["schemas"]["Timestamp"];
            /** @description when a proof passed */
            verifiedAt: components["schemas"]["Timestamp"] | null;
            generation: number;
            /** @description `Verified` (`ZoneOwned`, `TxtRecord`, `Cname`, `NoProof`), `Ready` (`Active`, `PendingVerification`, `WaitingForCleanup`, `Activating`, `EdgeUnavailable`, `CertificatePending`), and for active names `EdgeConfigured`, `CertificateReady` (`Issued`, `PendingValidation`), `Resolves` (whether public DNS points the name to the edge) and, for a name in a zone of the organization, `ManagedRecord` (`Written`, `CustomerRRset`: the rrset in the way, `NoEdgeAddresses`) */
            conditions: components["schemas"]["Condition"][];
        };
        SecretMeta: {
            name: string;
            version: number;
            updatedAt: components["schemas"]["Timestamp"];
        };
        Project: {
            name: string;
            hostname: string;
            database: boolean;
            createdAt: components["schemas"]["Timestamp"];
        };
        ProjectDetail: {
            name: string;
            hostname: string;
            database: boolean;
            createdAt: components["schemas"]["Timestamp"];
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
            placements: {
                nodeId: string;
                createdAt: components["schemas"]["Timestamp"];
            }[];
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
        /** @description `no_core`: the API runs without its core component; `core_unavailable`: the core does not answer */
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
        /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's. Checked in the write's transaction, after the checks that answer 404 or 409 */
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
        /** @description the limit that applies (IETF draft-ietf-httpapi-ratelimit-headers): `"failed-auth";q=100;w=60` (failed authentications per client address) or `"token";q=N;w=S` (requests per token, where configured); on a 429, and on every answer to a token with a limit */
        "RateLimit-Policy": string;
        /** @description the limit's state: `"<policy>";r=<requests left>;t=<seconds until the quota is whole again>` */
        RateLimit: string;
        /** @description `true` on an answer replayed for an `Idempotency-Key` (the answer of its first request), absent otherwise */
        "Idempotent-Replayed": "true";
        /** @description the path of the resource the request created */
        Location: string;
        /** @description the strong entity tag of the resource as answered: send it in `If-None-Match` (a GET answers 304 while it holds) or `If-Match` (a write answers 412 `precondition_failed` once it no longer holds) */
        ETag: string;
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
                    /** @description at least two labels; normalized (lower case, A-labels, no trailing dot) to at most 232 characters; not a public suffix, nor at or under the app domain, the nameservers' registrable domain or a service domain */
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
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's. Checked in the write's transaction, after the checks that answer 404 or 409 */
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
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's. Checked in the write's transaction, after the checks that answer 404 or 409 */
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
                type: "A" | "AAAA" | "CAA" | "CNAME" | "MX" | "NS" | "PTR" | "SRV" | "TXT" | "SOA";
            };
            cookie?: never;
        };
        /** @description JSON in UTF-8, at most 1048576 bytes (1 MiB); an empty body reads as `{}` */
        requestBody: {
            content: {
                "application/json": {
                    /** @description the whole new content of the rrset */
                    records: {
                        /** @description the record in zone-file form (`192.0.2.1`, `10 mail.example.com`, a TXT value as it is); no record's data is over 65535 octets, and the rrset, with room for DNSSEC signatures, must fit one DNS message of 65535 octets (a TXT value of about 60,000 bytes at most, less under a long zone name): else 400 naming the record */
                        content: string;
                    }[];
                    /** @description seconds; default 3600 */
                    ttl?: number;
                };
            };
        };
        responses: {
            /** @description the stored rrset; `ETag` is its tag, `X-Generation` the zone's generation that serves it (unchanged when the rrset was already so) */
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
                    "application/json": components["schemas"]["RRset"];
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
            /** @description `managed_rrset`, `cname_conflict`, or `quota_exceeded` (rrsets per zone, zone file bytes) */
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
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's. Checked in the write's transaction, after the checks that answer 404 or 409 */
                "If-Match"?: components["parameters"]["IfMatch"];
                /** @description echoed in the answer when it is 1 to 128 characters `A-Za-z0-9_.:-`; otherwise the answer gets a fresh id */
                "X-Request-Id"?: components["parameters"]["RequestId"];
            };
            path: {
                orgSlug: string;
                zone: string;
                name: string;
                type: "A" | "AAAA" | "CAA" | "CNAME" | "MX" | "NS" | "PTR" | "SRV" | "TXT" | "SOA";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
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
            /** @description `managed_rrset` */
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
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's. Checked in the write's transaction, after the checks that answer 404 or 409 */
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
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's. Checked in the write's transaction, after the checks that answer 404 or 409 */
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
            /** @description `hostname_taken`: another project (of any organization) holds the name; `idempotency_in_progress`: a request with this `Idempotency-Key` is still running; send it again once it has answered */
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
        };
    };
    deleteHostname: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's. Checked in the write's transaction, after the checks that answer 404 or 409 */
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
        };
    };
    setSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's. Checked in the write's transaction, after the checks that answer 404 or 409 */
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
                    /** @description at most 65,536 characters; never answered back */
                    value: string;
                };
            };
        };
        responses: {
            /** @description the new version; `ETag` is its tag */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Policy": components["headers"]["RateLimit-Policy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SecretMeta"];
                };
            };
            /** @description `bad_request` (name or body) or `reserved_name` */
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
                /** @description one or more `ETag`s (or `*`: the resource exists): the write happens only if the resource's current tag is one of them, else 412 `precondition_failed`; rrset writes compare the rrset's tag, zone operations the zone's. Checked in the write's transaction, after the checks that answer 404 or 409 */
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
        };
    };
    listAudit: {
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
        };
    };
}
