/**
 * The registrar port: the service's account at a domain registrar, in the shape of the reseller APIs of the
 * big registrars (OpenSRS, Gandi, Namecheap; EPP underneath): availability with prices, register, renew, lock,
 * auth code, info. Domains registered here are in the service's account; the registrar is authoritative for
 * their expiry, lock, nameservers and auto-renew.
 *
 * Contract:
 * - `register` is idempotent by `ref` (the purchase): a domain already registered in the account for the same
 *   ref is answered as it is, so a call whose answer was lost (the registrar acted, the caller gave up) and is
 *   sent again never registers twice. A name the registry refuses (taken, reserved, premium) is
 *   `RegistrarRefused` with code `unavailable`, never a generic failure.
 * - `renew` is idempotent by `ref` (one per renewal: the domain and the expiry it renews from).
 * - `info` answers null when the domain is not in the account (transferred out, or never registered here).
 * - A failure (no answer in time, a refusal of the call, a body of another shape) is `RegistrarError`, with a
 *   message for people: no credentials, no contact data. The caller decides whether to retry.
 * - Contact data goes to the registrar only: no method returns it.
 */

export interface Contact {
  name: string;
  email: string;
  phone: string;
  address: { line1: string; line2?: string; city: string; state?: string; postalCode: string };
  country: string;
}

export interface Availability {
  name: string;
  available: boolean;
  /** First registration, one year. */
  priceCents: number;
  /** One year of renewal. */
  renewalCents: number;
  currency: string;
}

export interface RegistrarDomain {
  name: string;
  expiresAt: string;
  locked: boolean;
  nameservers: string[];
  /** The registrar's own auto-renew of the domain. */
  autoRenew: boolean;
  /** The ref the domain was registered with. */
  ref: string;
  registeredAt: string;
}

export interface Registrar {
  check(names: string[]): Promise<Availability[]>;
  register(p: { name: string; years: number; nameservers: string[]; contact: Contact; ref: string }): Promise<RegistrarDomain>;
  renew(p: { name: string; years: number; ref: string }): Promise<RegistrarDomain>;
  setLock(name: string, locked: boolean): Promise<RegistrarDomain>;
  authCode(name: string): Promise<string>;
  info(name: string): Promise<RegistrarDomain | null>;
}

/** The registrar did not do what was asked: it did not answer in time, refused the call, or failed. */
export class RegistrarError extends Error {
  override name = 'RegistrarError';
}

/** The registry refused the name (`unavailable`) or the domain is not in the account (`not_found`). */
export class RegistrarRefused extends Error {
  override name = 'RegistrarRefused';
  constructor(readonly code: 'unavailable' | 'not_found', message: string) {
    super(message);
  }
}
