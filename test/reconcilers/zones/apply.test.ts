import { describe, expect, it } from 'vitest';
import { changedKeys, hasKey, keyHashes } from '../../../reconcilers/zones/apply';

// Two keys of one 32-bit hash (FNV-1a), found by search: what a zone of many rrsets may hold.
const TWIN_A = 'n512789.example.com A';
const TWIN_B = 'n749192.example.com A';

describe('served rrset keys', () => {
  it('the twins share a hash (the table below relies on it)', () => {
    expect(hasKey(keyHashes([TWIN_A]), TWIN_B)).toBe(true);
  });

  it.each([
    { what: 'a removed key is no longer served', served: ['a A', 'b A'], removed: ['b A'], added: [], has: { 'a A': true, 'b A': false } },
    { what: 'a changed key (removed and added) stays served', served: ['a A'], removed: ['a A'], added: ['a A'], has: { 'a A': true } },
    { what: 'an added key is served', served: ['a A'], removed: [], added: ['c TXT'], has: { 'a A': true, 'c TXT': true } },
    { what: 'removing one of two rrsets of one hash keeps the other served', served: [TWIN_A, TWIN_B], removed: [TWIN_A], added: [], has: { [TWIN_B]: true } },
    { what: 'removing both of one hash serves neither', served: [TWIN_A, TWIN_B], removed: [TWIN_A, TWIN_B], added: [], has: { [TWIN_A]: false, [TWIN_B]: false } },
    { what: 'adding the twin of a served key, then removing the first, keeps the twin', served: [TWIN_A], removed: [], added: [TWIN_B], then: [TWIN_A], has: { [TWIN_B]: true } },
  ])('$what', ({ served, removed, added, then, has }) => {
    let keys = changedKeys(keyHashes(served), removed, added);
    if (then) keys = changedKeys(keys, then, []);
    for (const [key, want] of Object.entries(has)) expect(hasKey(keys, key), key).toBe(want);
  });
});
