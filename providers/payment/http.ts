/** The payment port over the Stripe-shaped API the sandbox serves (providers/payment/sandbox.ts): the idempotency
 * key travels as Stripe's `Idempotency-Key` header; a decline is 402 with a `decline_code`. */
import { z } from 'zod';
import { callJson, parseJson } from '../sandbox-server';
import { PaymentDeclined, PaymentError, type Charge, type Payments } from './port';

const PAYMENT_TIMEOUT_MS = 5_000;

const ChargeBody = z.object({ id: z.string(), amount: z.number().int(), currency: z.string(), status: z.enum(['succeeded', 'refunded']) });
const List = z.object({ data: z.array(ChargeBody) });
const Refund = z.object({ id: z.string(), amount: z.number().int() });

const toPort = (c: z.infer<typeof ChargeBody>): Charge => ({ id: c.id, amountCents: c.amount, currency: c.currency, status: c.status });

export function httpPayments(baseUrl: string, opts: { timeoutMs?: number } = {}): Payments {
  const timeoutMs = opts.timeoutMs ?? PAYMENT_TIMEOUT_MS;
  const fail = (message: string): PaymentError => new PaymentError(message);
  const call = (what: string, method: string, path: string, body: unknown, key?: string) =>
    callJson(baseUrl, method, path, body, { timeoutMs, headers: key ? { 'idempotency-key': key } : {} }, fail, 'payment provider', what);
  const failed = (what: string, status: number, json: unknown): PaymentError => {
    const code = (json as { error?: { code?: string } } | undefined)?.error?.code;
    return new PaymentError(`the payment provider answered ${status} to ${what}${code ? ` (${code})` : ''}`);
  };
  const parse = <T>(schema: z.ZodType<T>, what: string, json: unknown): T => parseJson(schema, json, fail, 'payment provider', what);
  return {
    async charge(p) {
      const what = 'the charge';
      const r = await call(what, 'POST', '/v1/charges', { amount: p.amountCents, currency: p.currency, payment_method: p.paymentMethod, description: p.description }, p.idempotencyKey);
      if (r.status === 402) {
        const e = (r.json as { error?: { decline_code?: string; code?: string } } | undefined)?.error;
        throw new PaymentDeclined(e?.decline_code ?? e?.code ?? 'declined', 'the payment method was declined');
      }
      if (r.status !== 200) throw failed(what, r.status, r.json);
      return toPort(parse(ChargeBody, what, r.json));
    },
    async refund(p) {
      const what = 'the refund';
      const r = await call(what, 'POST', '/v1/refunds', { charge: p.chargeId }, p.idempotencyKey);
      if (r.status !== 200) throw failed(what, r.status, r.json);
      const x = parse(Refund, what, r.json);
      return { id: x.id, amountCents: x.amount };
    },
    async findCharge(key) {
      const what = 'the charge lookup';
      const r = await call(what, 'GET', `/v1/charges?idempotency_key=${encodeURIComponent(key)}`, undefined);
      if (r.status !== 200) throw failed(what, r.status, r.json);
      return parse(List, what, r.json).data.map(toPort)[0] ?? null;
    },
  };
}
