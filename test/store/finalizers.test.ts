/** One finalizer API for every kind that leaves state outside the store when deleted (zones, custom hostnames). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOrg } from '../../store/accounts';
import { type Store } from '../../store/db';
import { openTestStore } from '../helpers/store';
import { finalizersOf, finishFinalizer } from '../../store/finalizers';
import { createZone, deleteZone, zoneByName } from '../../store/zones';

describe('finalizers', () => {
  let s: Store;
  let orgId: number;
  beforeEach(async () => {
    s = await openTestStore(':memory:');
    orgId = (await createOrg(s, 'acme', 'free')).id;
  });
  afterEach(() => s.close());

  it('lists each deleted lifetime of a name until its cleanup is finished, kind by kind', async () => {
    const lifetimes: string[] = [];
    for (let i = 0; i < 2; i++) {
      await createZone(s, { orgId, name: 'gone.test', nameservers: ['ns1.test'], actor: 't', quota: null });
      lifetimes.push((await zoneByName(s, 'gone.test'))!.uid);
      await deleteZone(s, { orgId, name: 'gone.test', actor: 't' });
    }
    expect((await finalizersOf(s, 'zone', 'gone.test')).map((f) => f.uid).sort()).toEqual([...lifetimes].sort());
    expect(await finalizersOf(s, 'hostname', 'gone.test')).toEqual([]);
    await finishFinalizer(s, 'hostname', lifetimes[0]!);
    expect(await finalizersOf(s, 'zone', 'gone.test')).toHaveLength(2);
    await finishFinalizer(s, 'zone', lifetimes[0]!);
    expect(await finalizersOf(s, 'zone', 'gone.test')).toEqual([expect.objectContaining({ uid: lifetimes[1], name: 'gone.test' })]);
  });
});
