/**
 * The payment provider port, in the shape of Stripe's charges API: a charge of an amount to a payment method
 * (`pm_card_visa`), made once per idempotency key; refunds of a charge; a charge found again by its key.
 *
 * Contract:
 * - `charge` is idempotent by `idempotencyKey`: the same key answers the first charge (or its decline) again,
 *   so a charge whose answer was lost and is sent again never charges twice. A refused payment method is
 *   `PaymentDeclined` (the provider's decline code, e.g. `card_declined`), never a generic failure.
 * - `refund` is idempotent by `idempotencyKey` and by charge: a charge is refunded at most once.
 * - `findCharge` answers the charge made with a key, or null when none was made (for finishing abandoned work).
 * - A failure (no answer in time, a refusal of the call) is `PaymentError`, with a message for people: never the
 *   payment method's data.
 */

export interface Charge {
  id: string;
  amountCents: number;
  currency: string;
  status: 'succeeded' | 'refunded';
}

export interface Payments {
  charge(p: { amountCents: number; currency: string; paymentMethod: string; idempotencyKey: string; description: string }): Promise<Charge>;
  refund(p: { chargeId: string; idempotencyKey: string }): Promise<{ id: string; amountCents: number }>;
  findCharge(idempotencyKey: string): Promise<Charge | null>;
}

export class PaymentError extends Error {
  override name = 'PaymentError';
}

export class PaymentDeclined extends Error {
  override name = 'PaymentDeclined';
  constructor(readonly declineCode: string, message: string) {
    super(message);
  }
}
