/**
 * The sandbox registrar: a real HTTP server of ours with a reseller registrar's JSON API (availability with
 * first-year and renewal prices, register with nameservers and a registrant contact, renew, transfer lock, auth
 * code, info; a domain can be transferred out of the account). `serve` and `core` start one on loopback unless
 * `--registrar-url` names a real registrar; tests start their own. Fault injection: providers/sandbox-server.ts.
 *
 * Registry rules of the sandbox: a name whose first label starts with `reserved` or `taken` is unavailable, as is
 * one made so with `registryTake`; `.dev` and `.app` cost more than the rest, with a first-year discount.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { startSandboxServer, type Fault, type SandboxRoute } from '../sandbox-server';

export type RegistrarOperation = 'check' | 'register' | 'info' | 'renew' | 'lock' | 'auth_code' | 'transfer_out';

interface Held {
  name: string; ref: string; years: number; expiresAt: string; locked: boolean; nameservers: string[]; autoRenew: boolean;
  registeredAt: string; authCode: string; contact: unknown; renewals: string[];
}

export interface RegistrarSandbox {
  url: string;
  fault(f: Fault<RegistrarOperation> | null): void;
  calls: Record<string, number>;
  /** Domains in the account now. */
  domains(): { name: string; ref: string; expiresAt: string; locked: boolean; nameservers: string[]; autoRenew: boolean; renewals: number }[];
  /** Successful registrations ever made (a registration answered again for its ref is not one). */
  registrations: number;
  /** Renewals ever made. */
  renewalCount: number;
  /** The registry gives `name` to someone else: unavailable from now on. */
  registryTake(name: string): void;
  /** The domain leaves the account (a transfer out completed). */
  transferOut(name: string): void;
  /** Sets facts at the registrar, as the registrar itself would change them (its own renewal, a lock). */
  set(name: string, facts: Partial<{ expiresAt: string; locked: boolean; autoRenew: boolean; nameservers: string[] }>): void;
  close(): Promise<void>;
}

const Contact = z.object({
  name: z.string().min(1), email: z.string().min(3), phone: z.string().min(3),
  address: z.object({ line1: z.string().min(1), line2: z.string().optional(), city: z.string().min(1), state: z.string().optional(), postalCode: z.string().min(1) }),
  country: z.string().length(2),
});
const RegisterBody = z.object({
  name: z.string().min(3), years: z.number().int().min(1).max(10), nameservers: z.array(z.string()).min(1), contact: Contact, ref: z.string().min(1),
});
const RenewBody = z.object({ years: z.number().int().min(1).max(10), ref: z.string().min(1) });
const LockBody = z.object({ locked: z.boolean() });
const CheckBody = z.object({ names: z.array(z.string()).min(1).max(50) });

const error = (code: string, message: string) => ({ error: { code, message } });

export function prices(name: string): { priceCents: number; renewalCents: number } {
  const tld = name.slice(name.lastIndexOf('.') + 1);
  if (tld === 'dev' || tld === 'app') return { priceCents: 1_200, renewalCents: 2_000 };
  return { priceCents: 899, renewalCents: 1_599 };
}

const addYears = (iso: string, years: number): string => {
  const d = new Date(iso);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
};

export async function startRegistrarSandbox(o: { host?: string; port?: number; now?: () => Date } = {}): Promise<RegistrarSandbox> {
  const now = o.now ?? (() => new Date());
  const held = new Map<string, Held>();
  const taken = new Set<string>();
  let registrations = 0;
  let renewalCount = 0;
  const unavailable = (name: string): boolean => /^(reserved|taken)/.test(name) || taken.has(name);
  const view = (h: Held) => ({
    name: h.name, ref: h.ref, expires_at: h.expiresAt, locked: h.locked, nameservers: h.nameservers, auto_renew: h.autoRenew, registered_at: h.registeredAt,
  });
  const domainRoute = (op: RegistrarOperation, method: string, suffix: string): RegExp & { op?: RegistrarOperation } => Object.assign(new RegExp(`^/v1/domains/([^/]+)${suffix}$`), { op, method });
  const routes: SandboxRoute<RegistrarOperation>[] = [
    {
      match: (m, url) => (m === 'POST' && url.pathname === '/v1/domains/check' ? { op: 'check', params: [] } : undefined),
      act: (_p, body) => {
        const b = CheckBody.safeParse(body);
        if (!b.success) return { status: 400, body: error('bad_request', 'names is required') };
        return {
          status: 200,
          body: { results: b.data.names.map((n) => ({ name: n, available: !unavailable(n) && !held.has(n), ...snake(prices(n)), currency: 'USD' })) },
        };
      },
    },
    {
      match: (m, url) => (m === 'POST' && url.pathname === '/v1/domains' ? { op: 'register', params: [] } : undefined),
      act: (_p, body) => {
        const b = RegisterBody.safeParse(body);
        if (!b.success) return { status: 400, body: error('bad_request', 'invalid registration') };
        const cur = held.get(b.data.name);
        if (cur && cur.ref === b.data.ref) return { status: 200, body: { domain: view(cur) } };
        if (cur || unavailable(b.data.name)) return { status: 409, body: error('unavailable', `${b.data.name} is not available for registration`) };
        const at = now().toISOString().replace(/\.\d{3}Z$/, 'Z');
        const h: Held = {
          name: b.data.name, ref: b.data.ref, years: b.data.years, expiresAt: addYears(at, b.data.years), locked: true, nameservers: b.data.nameservers,
          autoRenew: true, registeredAt: at, authCode: randomBytes(12).toString('base64url'), contact: b.data.contact, renewals: [],
        };
        held.set(h.name, h);
        registrations++;
        return { status: 201, body: { domain: view(h) } };
      },
    },
    ...([
      ['info', 'GET', ''], ['renew', 'POST', '/renew'], ['lock', 'PUT', '/lock'], ['auth_code', 'POST', '/auth_code'], ['transfer_out', 'POST', '/transfer_out'],
    ] as const).map(([op, method, suffix]): SandboxRoute<RegistrarOperation> => {
      const re = domainRoute(op, method, suffix);
      return {
        match: (m, url) => {
          const r = m === method ? re.exec(url.pathname) : null;
          return r ? { op, params: [decodeURIComponent(r[1]!)] } : undefined;
        },
        act: (params, body) => {
          const h = held.get(params[0]!);
          if (!h) return { status: 404, body: error('not_found', `${params[0]} is not in this account`) };
          switch (op) {
            case 'info': return { status: 200, body: { domain: view(h) } };
            case 'renew': {
              const b = RenewBody.safeParse(body);
              if (!b.success) return { status: 400, body: error('bad_request', 'years and ref are required') };
              if (!h.renewals.includes(b.data.ref)) {
                h.renewals.push(b.data.ref);
                h.expiresAt = addYears(h.expiresAt, b.data.years);
                renewalCount++;
              }
              return { status: 200, body: { domain: view(h) } };
            }
            case 'lock': {
              const b = LockBody.safeParse(body);
              if (!b.success) return { status: 400, body: error('bad_request', 'locked is required') };
              h.locked = b.data.locked;
              return { status: 200, body: { domain: view(h) } };
            }
            case 'auth_code': return { status: 200, body: { auth_code: h.authCode } };
            case 'transfer_out': {
              held.delete(h.name);
              return { status: 200, body: { ok: true } };
            }
          }
        },
      };
    }),
  ];
  const server = await startSandboxServer(routes, { host: o.host, port: o.port, error });
  return {
    url: server.url,
    fault: (f) => server.fault(f),
    calls: server.calls,
    domains: () => [...held.values()].map((h) => ({
      name: h.name, ref: h.ref, expiresAt: h.expiresAt, locked: h.locked, nameservers: h.nameservers, autoRenew: h.autoRenew, renewals: h.renewals.length,
    })),
    get registrations() { return registrations; },
    get renewalCount() { return renewalCount; },
    registryTake: (name) => { taken.add(name); },
    transferOut: (name) => { held.delete(name); },
    set: (name, facts) => {
      const h = held.get(name);
      if (h) Object.assign(h, facts);
    },
    close: () => server.close(),
  };
}

const snake = (p: { priceCents: number; renewalCents: number }) => ({ price_cents: p.priceCents, renewal_cents: p.renewalCents });
