/** DNSSEC keys between the signer and the store (reconcilers/zones/keys.ts). */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY_FILE, openSealer, type Sealer } from '../../../core/sealing';
import { keepKeys, keysToImport } from '../../../reconcilers/zones/keys';
import { createOrg } from '../../../store/accounts';
import { type Store } from '../../../store/db';
import { storedKeys } from '../../../store/dnssec-keys';
import { createZone, zoneByName } from '../../../store/zones';
import { FakeNameserver } from '../../helpers/fake-nameserver';
import { tempDir } from '../../helpers/proc';
import { openTestStore } from '../../helpers/store';

const ZONE = 'example.com';

describe('DNSSEC keys in the store', () => {
  let store: Store;
  let sealer: Sealer;
  let ns: FakeNameserver;
  let zone: { name: string; uid: string };

  beforeEach(async () => {
    store = await openTestStore(':memory:');
    sealer = openSealer(join(tempDir('hostplane-keys-'), KEY_FILE));
    ns = new FakeNameserver();
    const { id } = await createOrg(store, 'acme', 'free');
    await createZone(store, { orgId: id, name: ZONE, nameservers: ['ns1.hostplane.test'], actor: 'test', quota: null });
    zone = (await zoneByName(store, ZONE))!;
    ns.served.set(ZONE, { text: '', serial: 1, dnssec: true, deleteDs: false });
  });
  afterEach(() => store.close());

  it('keeps the signer\'s keys sealed, writes nothing while they are the same, and gives them back opened for the next leader', async () => {
    await keepKeys({ store, nameserver: ns, sealer }, zone);
    const stored = await storedKeys(store, ZONE, zone.uid);
    expect(stored.map((k) => k.keyId)).toEqual(['k1', 'z1']);
    expect(stored.some((k) => k.sealed.includes('PEM'))).toBe(false);
    let seals = 0;
    await keepKeys({ store, nameserver: ns, sealer: { ...sealer, seal: (c, p) => (seals++, sealer.seal(c, p)) } }, zone);
    expect(seals).toBe(0);
    expect((await keysToImport({ store, sealer }, [ZONE, 'gone.example'])).get(ZONE)).toEqual(ns.keys);
  });

  it('stores nothing for a signer without keys yet', async () => {
    ns.keys = [];
    await keepKeys({ store, nameserver: ns, sealer }, zone);
    expect(await keysToImport({ store, sealer }, [ZONE])).toEqual(new Map());
  });

  it('does not open keys with another installation\'s sealing key', async () => {
    await keepKeys({ store, nameserver: ns, sealer }, zone);
    const other = openSealer(join(tempDir('hostplane-keys-other-'), KEY_FILE));
    await expect(keysToImport({ store, sealer: other }, [ZONE])).rejects.toThrow();
  });
});
