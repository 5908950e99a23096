/**
 * The registrar port over the reseller JSON API the sandbox serves (providers/registrar/sandbox.ts). Every call
 * has a deadline. `register` and `renew` carry the caller's ref, which makes them idempotent at the registrar;
 * a registration whose answer was lost is also found by `info` before it is sent again.
 */
import { z } from 'zod';
import { callJson, parseJson } from '../sandbox-server';
import { RegistrarError, RegistrarRefused, type Registrar, type RegistrarDomain } from './port';

const REGISTRAR_TIMEOUT_MS = 5_000;

const Domain = z.object({
  name: z.string(), ref: z.string(), expires_at: z.string(), locked: z.boolean(), nameservers: z.array(z.string()), auto_renew: z.boolean(), registered_at: z.string(),
});
const One = z.object({ domain: Domain });
const Results = z.object({
  results: z.array(z.object({ name: z.string(), available: z.boolean(), price_cents: z.number().int(), renewal_cents: z.number().int(), currency: z.string() })),
});
const Code = z.object({ auth_code: z.string().min(1) });

const toPort = (d: z.infer<typeof Domain>): RegistrarDomain => ({
  name: d.name, ref: d.ref, expiresAt: d.expires_at, locked: d.locked, nameservers: d.nameservers, autoRenew: d.auto_renew, registeredAt: d.registered_at,
});

export function httpRegistrar(baseUrl: string, opts: { timeoutMs?: number } = {}): Registrar {
  const timeoutMs = opts.timeoutMs ?? REGISTRAR_TIMEOUT_MS;
  const fail = (message: string): RegistrarError => new RegistrarError(message);
  const call = (what: string, method: string, path: string, body?: unknown) =>
    callJson(baseUrl, method, path, body, { timeoutMs }, fail, 'registrar', what);
  const failed = (what: string, status: number, json: unknown): RegistrarError => {
    const message = (json as { error?: { message?: string } } | undefined)?.error?.message;
    return new RegistrarError(`the registrar answered ${status} to ${what}${message ? `: ${message}` : ''}`);
  };
  const parse = <T>(schema: z.ZodType<T>, what: string, json: unknown): T => parseJson(schema, json, fail, 'registrar', what);
  const path = (name: string, suffix = ''): string => `/v1/domains/${encodeURIComponent(name)}${suffix}`;
  const domainCall = async (what: string, method: string, name: string, suffix: string, body?: unknown): Promise<RegistrarDomain> => {
    const r = await call(what, method, path(name, suffix), body);
    if (r.status === 404) throw new RegistrarRefused('not_found', `${name} is not in the service's registrar account`);
    if (r.status !== 200) throw failed(what, r.status, r.json);
    return toPort(parse(One, what, r.json).domain);
  };
  const info = async (name: string): Promise<RegistrarDomain | null> => {
    const what = `the lookup of ${name}`;
    const r = await call(what, 'GET', path(name));
    if (r.status === 404) return null;
    if (r.status !== 200) throw failed(what, r.status, r.json);
    return toPort(parse(One, what, r.json).domain);
  };
  return {
    async check(names) {
      const what = 'the availability check';
      const r = await call(what, 'POST', '/v1/domains/check', { names });
      if (r.status !== 200) throw failed(what, r.status, r.json);
      return parse(Results, what, r.json).results.map((x) => ({
        name: x.name, available: x.available, priceCents: x.price_cents, renewalCents: x.renewal_cents, currency: x.currency,
      }));
    },
    async register(p) {
      const what = `the registration of ${p.name}`;
      // Registered already for this purchase: a call whose answer was lost.
      const before = await info(p.name);
      if (before && before.ref === p.ref) return before;
      if (before) throw new RegistrarRefused('unavailable', `${p.name} is not available for registration`);
      const r = await call(what, 'POST', '/v1/domains', p);
      if (r.status === 409) throw new RegistrarRefused('unavailable', `${p.name} is not available for registration`);
      if (r.status !== 200 && r.status !== 201) throw failed(what, r.status, r.json);
      return toPort(parse(One, what, r.json).domain);
    },
    renew: (p) => domainCall(`the renewal of ${p.name}`, 'POST', p.name, '/renew', { years: p.years, ref: p.ref }),
    setLock: (name, locked) => domainCall(`the lock change of ${name}`, 'PUT', name, '/lock', { locked }),
    async authCode(name) {
      const what = `the auth code of ${name}`;
      const r = await call(what, 'POST', path(name, '/auth_code'));
      if (r.status === 404) throw new RegistrarRefused('not_found', `${name} is not in the service's registrar account`);
      if (r.status !== 200) throw failed(what, r.status, r.json);
      return parse(Code, what, r.json).auth_code;
    },
    info,
  };
}
