/** Where a resource stands for the console's counts (rules/resource-state.ts), case by case. */
import { describe, expect, it } from 'vitest';
import type { Condition } from '../../lib/conditions';
import { attentionOf, resourceState, type Judgeable, type ResourceState } from '../../rules/resource-state';

const c = (type: string, status: Condition['status'], reason: string, at = '2026-11-29T00:00:00.000Z'): Condition =>
  ({ type, status, reason, message: `${type} ${reason}`, observedGeneration: 1, lastTransitionTime: at });
const at = (over: Partial<Judgeable>): Judgeable => ({ generation: 1, observedGeneration: 1, conditions: [], deletingSince: null, ...over });

describe('resourceState', () => {
  const cases: [string, Judgeable, ResourceState][] = [
    ['every condition True at its generation', at({ conditions: [c('Ready', 'True', 'Served')] }), 'ready'],
    ['no conditions (a domain synced, a project) at its generation', at({}), 'ready'],
    ['no status yet', at({ observedGeneration: null }), 'progressing'],
    ['Ready True for an older generation', at({ generation: 2, conditions: [c('Ready', 'True', 'Served')] }), 'progressing'],
    ['no proof of ownership yet: the customer must act', at({ conditions: [c('Ready', 'False', 'PendingVerification'), c('Verified', 'False', 'NoProof')] }), 'failing'],
    ['waiting on a certificate', at({ conditions: [c('Ready', 'False', 'CertificatePending'), c('CertificateReady', 'False', 'PendingValidation')] }), 'progressing'],
    ['waiting on the parent\'s DS', at({ conditions: [c('Ready', 'False', 'WaitingForParent')] }), 'progressing'],
    ['the nameserver refused it', at({ conditions: [c('Ready', 'False', 'ApplyFailed')] }), 'failing'],
    ['Ready True but a secondary behind', at({ conditions: [c('Ready', 'True', 'Served'), c('SecondariesInSync', 'False', 'SecondaryBehind')] }), 'failing'],
    ['a condition Unknown (resolver failed)', at({ conditions: [c('Resolves', 'Unknown', 'ResolverFailed')] }), 'failing'],
    ['deleting, whatever its conditions', at({ deletingSince: '2026-11-29T00:00:00.000Z', conditions: [c('Ready', 'False', 'ApplyFailed')] }), 'deleting'],
  ];
  it.each(cases)('%s', (_what, r, want) => {
    expect(resourceState(r)).toBe(want);
  });
});

describe('attentionOf', () => {
  it('lists the conditions that are not True, longest so first', () => {
    const list = [c('Ready', 'False', 'ApplyFailed', '2026-11-29T02:00:00.000Z'), c('Signed', 'True', 'KeysPublished'), c('SecondariesInSync', 'False', 'SecondaryBehind', '2026-11-29T01:00:00.000Z')];
    expect(attentionOf(list).map((x) => x.type)).toEqual(['SecondariesInSync', 'Ready']);
  });
});
