/** The console's sign-in limit (CONTRACT.md "Console"): 10 failed sign-ins a minute per client address and per
 * email, past which a sign-in is refused (429) before its password is even checked, so that a guesser learns
 * nothing more, not even from a right guess. In memory: with several API processes each counts for itself. */
import { addressKey } from '../../lib/http/http-server';
import { TokenBuckets, type Decision, type Rate } from '../../lib/http/rate-limit';

export const FAILED_SIGN_IN_RATE: Rate = { limit: 10, windowSeconds: 60 };

export class SignInLimits {
  private readonly byAddress: TokenBuckets;
  private readonly byEmail: TokenBuckets;

  constructor(rate: Rate = FAILED_SIGN_IN_RATE, now: () => number = () => Date.now()) {
    this.byAddress = new TokenBuckets(rate, now);
    this.byEmail = new TokenBuckets(rate, now);
  }

  /** Null when a sign-in from `address` as `email` may be tried; else the seconds until one may. */
  refused(address: string, email: string): number | null {
    const d: Decision[] = [this.byAddress.peek(addressKey(address)), this.byEmail.peek(email)];
    const blocked = d.filter((x) => !x.ok);
    return blocked.length === 0 ? null : Math.max(...blocked.map((x) => x.retryAfter));
  }

  failed(address: string, email: string): void {
    this.byAddress.take(addressKey(address));
    this.byEmail.take(email);
  }
}
