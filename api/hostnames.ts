/** Custom hostnames group (spec 4.5): listHostnames, addHostname, deleteHostname, verifyHostname. Handlers write
 * desired rows only; the hostname reconciler judges the proofs, activates and routes (reconcilers/hostnames.ts).
 * verifyHostname is the one call-out: the core's immediate judgement through the Core port. */
import { z } from 'zod';
import { AppError } from '../lib/errors';
import { hostnameRefusal, normalizeCustomHostname, orgOrigin, verifyName } from '../rules/hostnames';
import type { PlatformDomains } from '../rules/domains';
import { planOf } from '../rules/plans';
import { addHostname, deleteHostname, hostnameOfProject, listHostnames, zoneHolding, type HostnameWithStatus } from '../store/hostnames';
import { getProject } from '../store/projects';
import { digest, etag, preconditionResponse, writePrecondition } from './conditional';
import { defineOp, type AnyOp, type Deps } from './ops';
import { ConditionSchema, ErrorSchema, ListQuery, pageOf, ProjectParams, Timestamp, errorResponses } from './schemas';

/** Without `--fallback-origin`: `edge.` + the registrable domain of the default nameservers (`ns1.hostplane.net`). */
export const DEFAULT_FALLBACK_ORIGIN = 'edge.hostplane.net';

export const fallbackOf = (deps: Deps): string => deps.config.fallbackOrigin ?? DEFAULT_FALLBACK_ORIGIN;

/**
 * The service's own domains, which no tenant takes as a custom hostname, a zone or a domain to buy or import: the app
 * domain, `--service-domains`, and the registrable domains of the nameservers and of the fallback origin, whatever
 * domain that is in (its zone holds every organization's `o-<hex>` origin that customers' CNAMEs point at).
 */
export const platformDomains = (deps: Deps, nameservers: string[]): PlatformDomains => ({
  appDomain: deps.config.appDomain,
  nameservers: [fallbackOf(deps), ...nameservers],
  serviceDomains: deps.config.serviceDomains,
});

/** How often addHostname judges another organization's row inside the caller's zone and asks for the name again. */
const CLAIM_ATTEMPTS = 3;

const HostParams = ProjectParams.extend({
  host: z.string().meta({ description: 'the hostname, in either spelling: Unicode or punycode, any case (`Bücher.example.com` is `xn--bcher-kva.example.com`)' }),
});

const AddHostnameBody = z.strictObject({
  name: z.string().min(1).max(253).meta({
    description: 'the hostname (`www.customer.com`): stored lower case and in punycode; at least two labels of letters, digits and inner hyphens; '
      + 'not a wildcard, URL, IP address or public suffix, nor at or under the app domain or a domain of the service',
  }),
});

const VerifyRecord = z.object({
  type: z.enum(['TXT', 'CNAME']),
  name: z.string(),
  value: z.string(),
}).meta({ description: 'a record that proves ownership once public DNS serves it; either one is enough' });

const Hostname = z.object({
  name: z.string().meta({ description: 'lower case, punycode' }),
  kind: z.enum(['default', 'custom']),
  status: z.enum(['pending_dns', 'active']).meta({
    description: '`pending_dns` until an ownership proof passes (checked every minute, or at once by verifyHostname); `active`: verified and routed. '
      + 'There is no way to `active` without a proof; a pending name never verified is deleted 7 days (by default) after it was added',
  }),
  verify: z.array(VerifyRecord).meta({
    description: 'custom hostnames: the TXT record at `_service-verify.<name>` with the token, or a CNAME of the name to the organization\'s own origin under '
      + 'the fallback origin (`o-<hex>.<fallback origin>`: a CNAME to the shared origin would not say which organization it is for; at a zone apex, where a '
      + 'CNAME cannot be, the TXT). A name in a zone the organization runs here needs neither. Empty for the default hostname',
  }),
  lastError: z.string().nullable().meta({
    description: 'what stands in the way, in words: for a pending name what each proof sees ("no TXT record with the token \'def\' at _service-verify.x" '
      + 'for a name that does not exist and one without the record alike, "TXT at _service-verify.x has \'abc\', expected \'def\'", "no CNAME to z at x", '
      + '"CNAME of x points to y, expected z", "CNAME of x points elsewhere, expected z", "TXT at _service-verify.x: the resolver did not answer in 2 s"). '
      + 'What a record holds is shown only at a name in public DNS (under an ICANN public suffix: not `.test`, `.internal`, `.local` and the like), and a '
      + 'CNAME target only when it is one too, as the resolver may know names only the service\'s own network has (a name outside public DNS ends with '
      + '"x is outside public DNS (no ICANN top-level domain), so what its names hold is not shown here; the operators\' log has it at debug level"); '
      + 'for an active name an edge failure; else null',
  }),
  createdAt: Timestamp,
  verifiedAt: Timestamp.nullable().meta({ description: 'when a proof passed' }),
  generation: z.number().int().min(1),
  conditions: z.array(ConditionSchema).meta({
    description: '`Verified` (`ZoneOwned`, `TxtRecord`, `Cname`, `NoProof`), `Ready` (`Active`, `PendingVerification`, `WaitingForCleanup`, `Activating`, `EdgeUnavailable`, '
      + '`CertificatePending`), and for active names `EdgeConfigured`, `CertificateReady` (`Issued`, `PendingValidation`), `Resolves` (whether public DNS points '
      + 'the name to the edge: `PointsToEdge`, `PointsElsewhere`, `NoRecord` alike for no such name, no record and a name outside public DNS, `ResolverFailed`) and, for a name in a zone of the organization, `ManagedRecord` (`Written`, `CustomerRRset`: the rrset in the way, `NoEdgeAddresses`)',
  }),
}).meta({ id: 'Hostname' });

const HostnameList = pageOf(Hostname).meta({ id: 'HostnameList' });

export function hostnameBody(h: HostnameWithStatus, origin: string): z.input<typeof Hostname> {
  const custom = h.kind === 'custom';
  return {
    name: h.name,
    kind: h.kind,
    status: h.status,
    verify: custom
      ? [{ type: 'TXT', name: verifyName(h.name), value: h.token ?? '' }, { type: 'CNAME', name: h.name, value: origin }]
      : [],
    lastError: custom ? (h.observed?.lastError ?? null) : null,
    createdAt: h.createdAt,
    verifiedAt: h.verifiedAt,
    generation: h.generation,
    conditions: h.observed?.conditions ?? [],
  };
}

/** A hostname's tag: its generation, and a digest of what moves without it (lifetime, state, observed status), so
 * `If-Match` on deleteHostname fails once the name was deleted and added again, or judged again. */
export function hostnameTag(h: HostnameWithStatus): string {
  const st = h.observed;
  return etag(h.generation, digest(JSON.stringify([h.uid, h.status, h.verifiedAt, st && [st.observedGeneration, st.conditions, st.facts, st.lastError]])));
}

const headersOf = (h: HostnameWithStatus): Record<string, string> => ({ ETag: hostnameTag(h), 'X-Generation': String(h.generation) });

const base = { tag: 'hostnames' } as const;
const PATH = '/v1/orgs/{orgSlug}/projects/{projectName}/hostnames';

export const hostnameOps: AnyOp[] = [
  defineOp({
    ...base,
    operationId: 'listHostnames',
    method: 'get',
    path: PATH,
    summary: 'List the project\'s hostnames: the default one (`kind` `default`) with the custom ones, by name',
    role: 'viewer',
    needsCore: false,
    params: ProjectParams,
    query: ListQuery,
    responses: { 200: { description: 'the hostnames, by name', schema: HostnameList }, ...errorResponses() },
    handler: async ({ deps, org, params, query }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      const page = await listHostnames(deps.store, p.id, query.limit, query.cursor);
      const origin = orgOrigin(fallbackOf(deps), org.id);
      return { status: 200, body: { items: page.items.map((h) => hostnameBody(h, origin)), nextCursor: page.nextCursor } };
    },
  }),
  defineOp({
    ...base,
    operationId: 'addHostname',
    method: 'post',
    path: PATH,
    summary: 'Attach a custom hostname: held for the project at once as `pending_dns`, routed once ownership is proven (idempotent for the same project)',
    role: 'member',
    needsCore: false,
    params: ProjectParams,
    body: AddHostnameBody,
    responses: {
      200: { description: 'the hostname, new or the project\'s existing row unchanged (same token)', schema: Hostname, headers: ['ETag', 'X-Generation'] },
      400: {
        description: '`bad_request`: a malformed name (an empty or over-long label, a leading hyphen, a URL, spaces, an IP address, one label), a wildcard, a public suffix, '
          + 'or a name at or under the app domain or a domain of the service',
        schema: ErrorSchema,
      },
      ...errorResponses([409, '`hostname_taken`: another project (of any organization) holds the name (inside a zone this organization runs here and '
        + 'public DNS delegates to the service, another organization\'s row yields unless the zone\'s records prove it for that organization); `quota_exceeded`: the plan\'s custom hostnames per organization (`details`: `quota` `hostnames`, '
        + '`limit`, `count`, `plan`)']),
    },
    handler: async ({ deps, core, org, params, body, actor }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      const name = normalizeCustomHostname(body.name);
      const fallback = fallbackOf(deps);
      // The nameservers' domain is the service's whatever domain the fallback origin is in.
      const refusal = hostnameRefusal(name, platformDomains(deps, core ? (await core.dns()).nameservers : []));
      if (refusal) throw refusal;
      const quota = { plan: org.plan, limit: planOf(deps.config.plans, org.plan).hostnames };
      const add = () => addHostname(deps.store, { orgId: org.id, projectId: p.id, projectName: p.name, name, actor, quota });
      // Inside a zone this organization runs here, another organization's row stands only while the zone's records
      // prove it: judged now (the reconciler releases it when they do not, and public DNS delegates the zone here),
      // and the name is asked for again, a few times, since the other organization may add it again in between.
      let zoneOwner: boolean | undefined;
      const claim = async (attempt: number): Promise<Awaited<ReturnType<typeof add>>> => {
        try {
          return await add();
        } catch (e) {
          if (attempt >= CLAIM_ATTEMPTS || !(e instanceof AppError && e.code === 'hostname_taken') || !core) throw e;
          zoneOwner ??= (await zoneHolding(deps.store, name))?.orgId === org.id;
          if (!zoneOwner) throw e;
          await core.verifyHostname(name);
          return claim(attempt + 1);
        }
      };
      const { hostname, created } = await claim(0);
      if (created) core?.nudge('hostname', name);
      return { status: 200, body: hostnameBody(hostname, orgOrigin(fallback, org.id)), headers: headersOf(hostname) };
    },
  }),
  defineOp({
    ...base,
    operationId: 'deleteHostname',
    method: 'delete',
    path: `${PATH}/{host}`,
    summary: 'Detach a custom hostname: the name is free at once; the edge provider\'s hostname and the managed record are removed after',
    role: 'member',
    needsCore: false,
    params: HostParams,
    requestHeaders: ['IfMatch'],
    responses: {
      204: { description: 'deleted' },
      400: { description: '`bad_request`: the project\'s default hostname (the deployment decides it), or a malformed name', schema: ErrorSchema },
      412: preconditionResponse('`If-Match` does not name the hostname\'s current `ETag`'),
      ...errorResponses(),
    },
    handler: async ({ deps, core, org, params, actor, conditions }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      const name = normalizeCustomHostname(params.host);
      const precondition = writePrecondition(conditions, `hostname ${name}`, hostnameTag);
      await deleteHostname(deps.store, { orgId: org.id, projectId: p.id, projectName: p.name, name, actor, precondition });
      core?.nudge('hostname', name);
      return { status: 204 };
    },
  }),
  defineOp({
    ...base,
    operationId: 'verifyHostname',
    method: 'post',
    path: `${PATH}/{host}/verify`,
    summary: 'Judge the ownership proofs now, as the check every minute does; answers the hostname as judged (active, or pending with `lastError`)',
    role: 'member',
    needsCore: true,
    params: HostParams,
    responses: {
      200: { description: 'the hostname after the judgement; a resolver that does not answer is its `lastError`', schema: Hostname, headers: ['ETag', 'X-Generation'] },
      400: { description: '`bad_request`: a malformed name', schema: ErrorSchema },
      ...errorResponses(),
    },
    handler: async ({ deps, core, org, params }) => {
      const p = await getProject(deps.store, org.id, params.projectName);
      const name = normalizeCustomHostname(params.host);
      const before = await hostnameOfProject(deps.store, p.id, name);
      if (before.kind === 'custom') await core.verifyHostname(name);
      const h = await hostnameOfProject(deps.store, p.id, name);
      return { status: 200, body: hostnameBody(h, orgOrigin(fallbackOf(deps), org.id)), headers: headersOf(h) };
    },
  }),
];
