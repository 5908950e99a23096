/** The console's sign-in limit (api/console/limits.ts): 10 failures a minute per address and per email, refused
 * before the password is checked, regained over the minute. */
import { describe, expect, it } from 'vitest';
import { SignInLimits } from '../../../api/console/limits';

describe('the sign-in limit', () => {
  it('refuses an address after 10 failures, for any email, until the minute regains one', () => {
    let now = 0;
    const l = new SignInLimits(undefined, () => now);
    for (let i = 0; i < 10; i++) {
      expect(l.refused('192.0.2.1', `u${i}@x.test`)).toBeNull();
      l.failed('192.0.2.1', `u${i}@x.test`);
    }
    expect(l.refused('192.0.2.1', 'new@x.test')).toBe(6);
    expect(l.refused('192.0.2.2', 'new@x.test')).toBeNull();
    now += 6_000;
    expect(l.refused('192.0.2.1', 'new@x.test')).toBeNull();
  });

  it('refuses an email after 10 failures, from any address', () => {
    const l = new SignInLimits(undefined, () => 0);
    for (let i = 0; i < 10; i++) l.failed(`198.51.100.${i}`, 'ada@x.test');
    expect(l.refused('203.0.113.9', 'ada@x.test')).toBeGreaterThan(0);
    expect(l.refused('203.0.113.9', 'bob@x.test')).toBeNull();
  });

  it('counts an IPv6 /64 as one address', () => {
    const l = new SignInLimits(undefined, () => 0);
    for (let i = 0; i < 10; i++) l.failed(`2001:db8::${i + 1}`, `u${i}@x.test`);
    expect(l.refused('2001:db8::ffff', 'other@x.test')).toBeGreaterThan(0);
  });
});
