/** Domains group (spec 4.3): ten operations. Reads come from the store (the registrar's last known answers,
 * written by the core and the domain reconciler), so a registrar outage fails no read. checkDomains,
 * purchaseDomain, renewDomain, setDomainLock, getDomainAuthCode and syncDomain ask the registrar (and the payment
 * provider) at once, through the Core port (sagas/domains.ts); importDomain calls no registrar. */
import { z } from 'zod';
import { AppError, badRequest } from '../lib/errors';
import { MAX_TERM_YEARS, zoneNameRefusal } from '../rules/domains';
import { planOf } from '../rules/plans';
import type { Core } from '../core/port';
import { domainOf, heldByOther, importDomainRow, ledgerOf, listDomains, setAutoRenew, type DomainWithStatus } from '../store/domains';
import { createZone } from '../store/zones';
import { normalizeZoneName } from '../zonefiles';
import { NO_STORE, checkBeforeWrite, digest, etag, preconditionResponse, type Conditions } from './conditional';
import { platformDomains } from './hostnames';
import { defineOp, type AnyOp, type Deps } from './ops';
import { ConditionSchema, ErrorSchema, ListQuery, OrgParams, Timestamp, errorResponses, pageOf } from './schemas';

const NameParams = OrgParams.extend({ name: z.string().meta({ description: 'the domain, in either spelling: Unicode or punycode, any case' }) });

const DomainName = z.string().min(1).max(253).meta({
  description: 'a registrable domain (`example.com`): stored lower case, in punycode; not a public suffix, nor at or under a domain of the service',
});

const Contact = z.strictObject({
  name: z.string().min(1).max(255),
  email: z.email().max(254).meta({ description: 'the registry\'s verification mail goes here: tell the registrant before buying' }),
  phone: z.string().regex(/^\+[0-9]{1,3}\.[0-9]{4,14}$/, 'phone is +CC.NUMBER, as +1.5555550100').meta({ description: '`+CC.NUMBER` (EPP form): `+1.5555550100`' }),
  address: z.strictObject({
    line1: z.string().min(1).max(255),
    line2: z.string().max(255).optional(),
    city: z.string().min(1).max(255),
    state: z.string().max(255).optional(),
    postalCode: z.string().min(1).max(32),
  }),
  country: z.string().regex(/^[A-Z]{2}$/, 'country is an ISO 3166-1 alpha-2 code in upper case, as US').meta({ description: 'ISO 3166-1 alpha-2, upper case' }),
}).meta({
  id: 'DomainContact',
  description: 'the registrant: personal data, sent to the registrar only. Never answered, logged or put in the audit log; kept sealed only while the purchase is open',
});

const PurchaseBody = z.strictObject({
  name: DomainName,
  years: z.number().int().min(1).max(10).default(1).meta({ description: 'registration years, 1 to 10; default 1' }),
  contact: Contact,
  paymentMethod: z.string().regex(/^pm_[A-Za-z0-9_]{1,100}$/, 'paymentMethod is a payment method reference, as pm_card_visa').meta({
    description: 'the payment provider\'s reference of a payment method (`pm_card_visa`; the sandbox declines `pm_card_declined`): never card data. Kept as the reference renewals are billed to',
  }),
});
const CheckBody = z.strictObject({ names: z.array(DomainName).min(1).max(50) });
const ImportBody = z.strictObject({ name: DomainName });
const RenewBody = z.strictObject({ years: z.number().int().min(1).max(10).default(1).meta({ description: 'years to add, 1 to 10; default 1' }) });
const AutoRenewBody = z.strictObject({ autoRenew: z.boolean() });
const LockBody = z.strictObject({ locked: z.boolean() });

const LedgerEntry = z.object({
  at: Timestamp,
  kind: z.enum(['charge', 'refund', 'renewal', 'renewal_declined']).meta({
    description: '`charge` (the purchase), `refund` (a purchase the registry refused after the charge: a negative amount), `renewal` (billed after a renewal), '
      + '`renewal_declined` (the renewal charge was declined: the domain stays renewed, the amount is owed)',
  }),
  amountCents: z.number().int(),
  currency: z.string(),
  note: z.string(),
}).meta({ id: 'DomainLedgerEntry' });

const Domain = z.object({
  name: z.string(),
  status: z.enum(['pending', 'active', 'expired', 'transferred_out', 'imported']).meta({
    description: '`pending`: a purchase under way (send it again to finish it); `active`: registered in the service\'s registrar account; `expired`: past its expiry; '
      + '`transferred_out`: the registrar says it is no longer in the account; `imported`: registered elsewhere, its DNS run here',
  }),
  expiresAt: Timestamp.nullable().meta({ description: 'as the registrar last answered (authoritative there); null for imported and pending domains' }),
  locked: z.boolean().meta({ description: 'the transfer lock, as the registrar last answered' }),
  nameservers: z.array(z.string()).meta({ description: 'as the registrar last answered; for an imported domain its delegation as last read' }),
  autoRenew: z.boolean().meta({
    description: 'the stored intent only: with it the service renews ahead of expiry and bills after. Renewal at the registrar stays on either way, because a domain '
      + 'renewed a day late is lost: turning this off does not cancel anything there; tell users so',
  }),
  purchaseStep: z.string().nullable().meta({ description: 'while `pending`: the step the purchase stopped at (`reserved`, `charging`, `charged`, `registering`, `registered`); else null' }),
  createdAt: Timestamp,
  syncedAt: Timestamp.nullable().meta({ description: 'when the registrar (or, imported, the delegation) was last read' }),
  conditions: z.array(ConditionSchema).meta({
    description: '`Synced` (`Synced`, `RegistrarUnavailable`: the registrar could not be read, the facts are the last known), `Renewed` (`Renewed`, `RenewalFailed`), '
      + '`RenewalPaid` (`Paid`, `PaymentDeclined`: the renewal charge was declined, the domain stays renewed)',
  }),
}).meta({ id: 'Domain' });
const DomainDetail = Domain.extend({ ledger: z.array(LedgerEntry).meta({ description: 'the latest 50 ledger entries, newest first' }) }).meta({ id: 'DomainDetail' });
const DomainList = pageOf(Domain).meta({ id: 'DomainList' });
const CheckResult = z.object({
  results: z.array(z.object({
    name: z.string(),
    available: z.boolean(),
    priceCents: z.number().int().meta({ description: 'first registration, one year' }),
    renewalCents: z.number().int().meta({ description: 'one year of renewal (first-year discounts make it differ)' }),
    currency: z.string(),
  })),
}).meta({ id: 'DomainAvailability' });
const AuthCode = z.object({
  authCode: z.string().meta({ description: 'the transfer code: the way out is open at once. Never logged or audited' }),
  transferLockedUntil: Timestamp.nullable().meta({ description: 'advice: registries refuse a transfer within 60 days of registration; null when past' }),
}).meta({ id: 'DomainAuthCode' });

const REGISTRAR_502: [number, string] = [502, '`registrar_error`: the registrar failed or did not answer; send the request again'];
const REGISTRAR_503: [number, string] = [503, '`registrar_not_configured` (no registrar in this deployment), `no_core` or `core_unavailable`'];

/** A domain name as given: lower case punycode, no trailing dot. */
export function domainName(raw: string): string {
  try {
    return normalizeZoneName(raw);
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw badRequest(`${raw} is not a domain name`);
  }
}

/** A name a tenant may register or import: refused like a zone name (the service's own domains, public suffixes). */
async function tenantName(deps: Deps, core: Core, raw: string): Promise<{ name: string; nameservers: string[] }> {
  const info = await core.dns();
  if (!info.configured) throw new AppError(503, 'dns_not_configured', 'this deployment runs no DNS of its own');
  const name = domainName(raw);
  const refusal = zoneNameRefusal(name, platformDomains(deps, info.nameservers));
  if (refusal) throw badRequest(refusal);
  return { name, nameservers: info.nameservers };
}

export function domainBody(d: DomainWithStatus): z.input<typeof Domain> {
  return {
    name: d.name, status: d.status, expiresAt: d.expiresAt, locked: d.locked, nameservers: d.nameservers, autoRenew: d.autoRenew,
    purchaseStep: d.purchaseStep, createdAt: d.createdAt, syncedAt: d.syncedAt, conditions: d.observed?.conditions ?? [],
  };
}

export const domainTag = (d: DomainWithStatus): string => etag(d.generation, digest(JSON.stringify([d.uid, d.status, d.purchaseStep, d.syncedAt, d.observed?.conditions])));

const PRECONDITION = preconditionResponse('`If-Match` does not name the domain\'s current `ETag` (getDomain)');

/** `If-Match` against the domain's tag, before the write (or the registrar call); 404 when it is not the org's. */
const checkDomain = (deps: Deps, conditions: Conditions, orgId: number, name: string): Promise<void> =>
  checkBeforeWrite(conditions, `domain ${name}`, async () => domainTag(await domainOf(deps.store, orgId, name)));

async function answer(deps: Deps, orgId: number, name: string, status = 200, extra: Record<string, string> = {}) {
  const d = await domainOf(deps.store, orgId, name);
  return { status, body: domainBody(d), headers: { ETag: domainTag(d), ...extra } };
}

const base = { tag: 'domains' } as const;
const PATH = '/v1/orgs/{orgSlug}/domains';

export const domainOps: AnyOp[] = [
  defineOp({
    ...base,
    operationId: 'listDomains',
    method: 'get',
    path: PATH,
    summary: 'List the organization\'s domains, bought and imported, by name (the registrar\'s last known answers: no registrar call)',
    role: 'viewer',
    needsCore: true,
    params: OrgParams,
    query: ListQuery,
    responses: { 200: { description: 'domains by name', schema: DomainList }, ...errorResponses() },
    handler: async ({ deps, org, query }) => {
      const page = await listDomains(deps.store, org.id, query.limit, query.cursor);
      return { status: 200, body: { items: page.items.map(domainBody), nextCursor: page.nextCursor } };
    },
  }),
  defineOp({
    ...base,
    operationId: 'purchaseDomain',
    method: 'post',
    path: PATH,
    summary: 'Buy a domain: reserve, charge, register with the service\'s nameservers, create its zone. Sending the same request again is safe: it resumes '
      + 'a purchase that stopped midway and answers a finished one with 200. The registry\'s verification mail goes to `contact.email`: tell the user before buying',
    role: 'admin',
    needsCore: true,
    params: OrgParams,
    body: PurchaseBody,
    responses: {
      200: { description: 'the domain was already bought by this organization: nothing was charged again', schema: Domain, headers: ['ETag'] },
      201: { description: 'this request finished the purchase (new, or resumed); `Location` is the domain\'s path', schema: Domain, headers: ['Location', 'ETag'] },
      400: {
        description: '`bad_request`: an invalid body or name (a public suffix, a domain of the service), or a purchase of the name with other terms is under way '
          + '(`details.fields` names the terms that differ: `years`, `paymentMethod`, `contact`)',
        schema: ErrorSchema,
      },
      402: { description: '`payment_failed`: the payment method was declined (`details.declineCode`); nothing was charged, the name is free again', schema: ErrorSchema },
      ...errorResponses(
        [409, '`domain_taken`: another organization holds the name, is buying it, or runs a zone at, above or below it; `domain_unavailable`: the registry refuses the '
          + 'name (a charge already made was refunded); `quota_exceeded`: the plan\'s zone quota (checked before any charge)'],
        [502, '`saga_incomplete` (the purchase stopped midway, at the payment or after the registration) or `registrar_error` (the registrar failed): send the same '
          + 'request again to resume; nothing is charged or registered twice'],
        [503, '`registrar_not_configured`, `dns_not_configured`, `no_core` or `core_unavailable`'],
      ),
    },
    handler: async ({ deps, core, org, body, actor }) => {
      const { name } = await tenantName(deps, core, body.name);
      const zoneLimit = planOf(deps.config.plans, org.plan).zones;
      const { created } = await core.domain('purchase', {
        orgId: org.id, plan: org.plan, zoneLimit, name, years: body.years, contact: body.contact, paymentMethod: body.paymentMethod, actor,
      });
      return answer(deps, org.id, name, created ? 201 : 200, created ? { Location: `/v1/orgs/${org.slug}/domains/${name}` } : {});
    },
  }),
  defineOp({
    ...base,
    operationId: 'checkDomains',
    method: 'post',
    path: `${PATH}/check`,
    summary: 'Ask the registrar whether names are available, with the first year\'s price and the renewal price',
    role: 'member',
    needsCore: true,
    params: OrgParams,
    body: CheckBody,
    responses: {
      200: { description: 'availability per name, in the order asked', schema: CheckResult },
      ...errorResponses(REGISTRAR_502, REGISTRAR_503),
    },
    handler: async ({ core, body }) => {
      const names = body.names.map(domainName);
      return { status: 200, body: await core.domain('check', { names }) };
    },
  }),
  defineOp({
    ...base,
    operationId: 'importDomain',
    method: 'post',
    path: `${PATH}/import`,
    summary: 'Import a domain registered elsewhere: creates its zone (no registrar call); DNS is run here once its NS point to the service\'s nameservers',
    role: 'admin',
    needsCore: true,
    params: OrgParams,
    body: ImportBody,
    responses: {
      200: { description: 'already imported (or bought) by this organization: unchanged', schema: Domain, headers: ['ETag'] },
      201: { description: 'imported; `Location` is the domain\'s path', schema: Domain, headers: ['Location', 'ETag'] },
      400: { description: '`bad_request`: an invalid name, a public suffix, or a domain of this service', schema: ErrorSchema },
      ...errorResponses(
        [409, '`domain_taken`: another organization holds the name or a zone at, above or below it; `quota_exceeded`: the plan\'s zone quota'],
        [503, '`dns_not_configured`, `no_core` or `core_unavailable`'],
      ),
    },
    handler: async ({ deps, core, org, body, actor }) => {
      const { name, nameservers } = await tenantName(deps, core, body.name);
      if (await heldByOther(deps.store, org.id, name)) throw new AppError(409, 'domain_taken', `${name} is held by another organization`);
      const quota = { plan: org.plan, limit: planOf(deps.config.plans, org.plan).zones };
      try {
        const z = await createZone(deps.store, { orgId: org.id, name, nameservers, actor, quota });
        if (z.created) core.nudge('zone', name);
      } catch (e) {
        if (e instanceof AppError && e.code === 'zone_taken') throw new AppError(409, 'domain_taken', `${name} (or a zone above or below it) belongs to another organization`);
        throw e;
      }
      const { created } = await importDomainRow(deps.store, { orgId: org.id, name, nameservers, actor });
      if (created) core.nudge('domain', name);
      return answer(deps, org.id, name, created ? 201 : 200, created ? { Location: `/v1/orgs/${org.slug}/domains/${name}` } : {});
    },
  }),
  defineOp({
    ...base,
    operationId: 'getDomain',
    method: 'get',
    path: `${PATH}/{name}`,
    summary: 'Read a domain with its recent ledger (charges, refunds, renewals); the registrar\'s last known answers, no registrar call',
    role: 'viewer',
    needsCore: false,
    params: NameParams,
    responses: {
      200: { description: 'the domain', schema: DomainDetail, headers: ['ETag'] },
      400: { description: '`bad_request`: `{name}` is not a domain name', schema: ErrorSchema },
      ...errorResponses(),
    },
    handler: async ({ deps, org, params }) => {
      const name = domainName(params.name);
      const d = await domainOf(deps.store, org.id, name);
      return { status: 200, body: { ...domainBody(d), ledger: await ledgerOf(deps.store, org.id, name) }, headers: { ETag: domainTag(d) } };
    },
  }),
  defineOp({
    ...base,
    operationId: 'renewDomain',
    method: 'post',
    path: `${PATH}/{name}/renew`,
    summary: 'Renew at the registrar now, then bill the purchase\'s payment method (a declined charge is a ledger entry; the domain stays renewed)',
    role: 'admin',
    needsCore: true,
    params: NameParams,
    body: RenewBody,
    requestHeaders: ['IfMatch'],
    responses: {
      412: PRECONDITION,
      200: { description: 'the domain with its new expiry', schema: Domain, headers: ['ETag'] },
      400: {
        description: '`bad_request`: an invalid body; an imported domain (renew it at its own registrar), a transferred-out one, or a purchase not finished; '
          + `or a renewal that would run the registration more than ${MAX_TERM_YEARS} years ahead (registries refuse it; \`details\`: \`limitYears\`, \`expiresAt\`, \`latestExpiresAt\`)`,
        schema: ErrorSchema,
      },
      ...errorResponses(REGISTRAR_502, REGISTRAR_503),
    },
    handler: async ({ deps, core, org, params, body, actor, conditions }) => {
      const name = domainName(params.name);
      await domainOf(deps.store, org.id, name);
      await checkDomain(deps, conditions, org.id, name);
      await core.domain('renew', { orgId: org.id, name, years: body.years, actor });
      return answer(deps, org.id, name);
    },
  }),
  defineOp({
    ...base,
    operationId: 'setDomainAutoRenew',
    method: 'post',
    path: `${PATH}/{name}/auto-renew`,
    summary: 'Set the stored auto-renew intent only. Auto-renew at the registrar stays on: the service renews first and bills afterwards, because a domain is lost '
      + 'if renewal is a day late. Tell users that turning it off here cancels nothing at the registrar',
    role: 'admin',
    needsCore: false,
    params: NameParams,
    body: AutoRenewBody,
    requestHeaders: ['IfMatch'],
    responses: {
      200: { description: 'the domain with the intent stored; renewal at the registrar stays on', schema: Domain, headers: ['ETag'] },
      412: PRECONDITION,
      ...errorResponses(),
    },
    handler: async ({ deps, core, org, params, body, actor, conditions }) => {
      const name = domainName(params.name);
      await checkDomain(deps, conditions, org.id, name);
      await setAutoRenew(deps.store, { orgId: org.id, name, autoRenew: body.autoRenew, actor });
      core?.nudge('domain', name);
      return answer(deps, org.id, name);
    },
  }),
  defineOp({
    ...base,
    operationId: 'setDomainLock',
    method: 'post',
    path: `${PATH}/{name}/lock`,
    summary: 'Turn the transfer lock on or off at the registrar',
    role: 'admin',
    needsCore: true,
    params: NameParams,
    body: LockBody,
    requestHeaders: ['IfMatch'],
    responses: {
      412: PRECONDITION,
      200: { description: 'the domain with the lock as the registrar now answers it', schema: Domain, headers: ['ETag'] },
      400: { description: '`bad_request`: an invalid body; an imported domain (lock it at its own registrar), a transferred-out one, or a purchase not finished', schema: ErrorSchema },
      ...errorResponses(REGISTRAR_502, REGISTRAR_503),
    },
    handler: async ({ deps, core, org, params, body, actor, conditions }) => {
      const name = domainName(params.name);
      await domainOf(deps.store, org.id, name);
      await checkDomain(deps, conditions, org.id, name);
      await core.domain('lock', { orgId: org.id, name, locked: body.locked, actor });
      return answer(deps, org.id, name);
    },
  }),
  defineOp({
    ...base,
    operationId: 'getDomainAuthCode',
    method: 'post',
    path: `${PATH}/{name}/auth-code`,
    summary: 'Get the transfer auth code from the registrar. The way out is open at once; the 60-day registration lock is advice. The code is in this answer only '
      + '(never stored, so `Idempotency-Key` is ignored)',
    role: 'admin',
    needsCore: true,
    secretAnswer: true,
    params: NameParams,
    responses: {
      200: { description: 'the code (`Cache-Control: no-store`: no cache on the way may keep it)', schema: AuthCode, headers: ['Cache-Control'] },
      ...errorResponses(REGISTRAR_502, REGISTRAR_503),
      404: { description: '`not_found`: no such domain of the organization, or an imported one (its own registrar gives its code)', schema: ErrorSchema },
      400: { description: '`bad_request`: a transferred-out domain, or a purchase not finished', schema: ErrorSchema },
    },
    handler: async ({ deps, core, org, params, actor }) => {
      const name = domainName(params.name);
      await domainOf(deps.store, org.id, name);
      return { status: 200, body: await core.domain('authCode', { orgId: org.id, name, actor }), headers: NO_STORE };
    },
  }),
  defineOp({
    ...base,
    operationId: 'syncDomain',
    method: 'post',
    path: `${PATH}/{name}/sync`,
    summary: 'Re-read expiry, lock and nameservers from the registrar (authoritative); not in the service\'s account → `transferred_out`. An imported domain\'s '
      + 'delegation is read instead; it is never marked transferred out',
    role: 'member',
    needsCore: true,
    params: NameParams,
    responses: {
      200: { description: 'the domain as the registrar (or public DNS) now answers', schema: Domain, headers: ['ETag'] },
      ...errorResponses(REGISTRAR_502, REGISTRAR_503),
    },
    handler: async ({ deps, core, org, params }) => {
      const name = domainName(params.name);
      await domainOf(deps.store, org.id, name);
      await core.domain('sync', { orgId: org.id, name });
      return answer(deps, org.id, name);
    },
  }),
];
