/** Provider calls of a reconcile pass go out only while its term is held (issue 23 item 2); an API request's are not
 * a term's and go out as they come. */
import { describe, expect, it } from 'vitest';
import { leaderOnly } from '../../providers/leader-only';
import { FencedError, withTerm } from '../../store/leader';

function counted() {
  const calls: string[] = [];
  const provider = {
    async create(name: string): Promise<string> {
      calls.push(name);
      return `made ${name}`;
    },
  };
  return { provider, calls };
}

describe('leaderOnly', () => {
  it('refuses a pass\'s call once its term is no longer held, without calling the provider', async () => {
    const { provider, calls } = counted();
    const held = new Set([7]);
    const p = leaderOnly(provider, (t) => held.has(t));
    await expect(withTerm(7, () => p.create('a'))).resolves.toBe('made a');
    held.delete(7);
    const refused = await withTerm(7, () => p.create('b')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FencedError);
    expect((refused as FencedError).term).toBe(7);
    expect(calls).toEqual(['a']);
  });

  it('passes a call made outside a pass (an API request) whatever leads', async () => {
    const { provider, calls } = counted();
    const p = leaderOnly(provider, () => false);
    await expect(p.create('request')).resolves.toBe('made request');
    expect(calls).toEqual(['request']);
  });
});
