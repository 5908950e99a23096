/**
 * The sandbox payment provider: a real HTTP server of ours with Stripe's charges API in small (create a charge
 * with an `Idempotency-Key`, find charges by key, refund a charge), declining the payment method
 * `pm_card_declined` (402, `card_declined`) and `pm_card_insufficient_funds`. `serve` and `core` start one on
 * loopback unless `--payment-url` names a real provider; tests start their own. Fault injection:
 * providers/sandbox-server.ts.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { startSandboxServer, type Answer, type Fault, type SandboxRoute } from '../sandbox-server';

export type PaymentOperation = 'charge' | 'find' | 'refund';

interface StoredCharge { id: string; key: string; amount: number; currency: string; paymentMethod: string; refunded: boolean; description: string }

export interface PaymentSandbox {
  url: string;
  fault(f: Fault<PaymentOperation> | null): void;
  calls: Record<string, number>;
  /** Charges made (declines are not charges). */
  charges(): { id: string; key: string; amountCents: number; currency: string; refunded: boolean; description: string }[];
  /** Refunds made. */
  refunds: number;
  close(): Promise<void>;
}

const ChargeBody = z.object({ amount: z.number().int().min(1), currency: z.string().min(3), payment_method: z.string().min(1), description: z.string().optional() });
const RefundBody = z.object({ charge: z.string().min(1) });
const DECLINES: Record<string, string> = { pm_card_declined: 'card_declined', pm_card_insufficient_funds: 'insufficient_funds' };

const error = (code: string, message: string) => ({ error: { type: 'api_error', code, message } });

export async function startPaymentSandbox(o: { host?: string; port?: number } = {}): Promise<PaymentSandbox> {
  const byKey = new Map<string, Answer>();
  const charges = new Map<string, StoredCharge>();
  const refundByCharge = new Map<string, { id: string; amount: number; charge: string }>();
  const refundByKey = new Map<string, Answer>();
  const view = (c: StoredCharge) => ({ id: c.id, object: 'charge', amount: c.amount, currency: c.currency, status: c.refunded ? 'refunded' : 'succeeded', refunded: c.refunded, metadata: { idempotency_key: c.key } });
  const keyOf = (req: { headers: Record<string, string | string[] | undefined> }): string | undefined => {
    const k = req.headers['idempotency-key'];
    return typeof k === 'string' && k ? k : undefined;
  };
  const routes: SandboxRoute<PaymentOperation>[] = [
    {
      match: (m, url) => (m === 'POST' && url.pathname === '/v1/charges' ? { op: 'charge', params: [] } : undefined),
      act: (_p, body, _url, req) => {
        const key = keyOf(req);
        if (!key) return { status: 400, body: error('missing_idempotency_key', 'charges need an Idempotency-Key') };
        const seen = byKey.get(key);
        if (seen) return seen;
        const b = ChargeBody.safeParse(body);
        if (!b.success) return { status: 400, body: error('parameter_invalid', 'amount, currency and payment_method are required') };
        let a: Answer;
        const decline = DECLINES[b.data.payment_method];
        if (decline) {
          a = { status: 402, body: { error: { type: 'card_error', code: 'card_declined', decline_code: decline, message: 'Your card was declined.' } } };
        } else {
          const c: StoredCharge = {
            id: `ch_${randomBytes(12).toString('hex')}`, key, amount: b.data.amount, currency: b.data.currency.toLowerCase(), paymentMethod: b.data.payment_method,
            refunded: false, description: b.data.description ?? '',
          };
          charges.set(c.id, c);
          a = { status: 200, body: view(c) };
        }
        byKey.set(key, a);
        return a;
      },
    },
    {
      match: (m, url) => (m === 'GET' && url.pathname === '/v1/charges' ? { op: 'find', params: [] } : undefined),
      act: (_p, _b, url) => {
        const key = url.searchParams.get('idempotency_key');
        return { status: 200, body: { object: 'list', data: [...charges.values()].filter((c) => c.key === key).map(view) } };
      },
    },
    {
      match: (m, url) => (m === 'POST' && url.pathname === '/v1/refunds' ? { op: 'refund', params: [] } : undefined),
      act: (_p, body, _url, req) => {
        const key = keyOf(req);
        if (!key) return { status: 400, body: error('missing_idempotency_key', 'refunds need an Idempotency-Key') };
        const seen = refundByKey.get(key);
        if (seen) return seen;
        const b = RefundBody.safeParse(body);
        if (!b.success) return { status: 400, body: error('parameter_invalid', 'charge is required') };
        const c = charges.get(b.data.charge);
        if (!c) return { status: 404, body: error('resource_missing', 'no such charge') };
        let r = refundByCharge.get(c.id);
        if (!r) {
          r = { id: `re_${randomBytes(12).toString('hex')}`, amount: c.amount, charge: c.id };
          refundByCharge.set(c.id, r);
          c.refunded = true;
        }
        const a = { status: 200, body: { object: 'refund', ...r } };
        refundByKey.set(key, a);
        return a;
      },
    },
  ];
  const server = await startSandboxServer(routes, { host: o.host, port: o.port, error });
  return {
    url: server.url,
    fault: (f) => server.fault(f),
    calls: server.calls,
    charges: () => [...charges.values()].map((c) => ({ id: c.id, key: c.key, amountCents: c.amount, currency: c.currency, refunded: c.refunded, description: c.description })),
    get refunds() { return refundByCharge.size; },
    close: () => server.close(),
  };
}
