/** DNSSEC keys and the served-serial floor in the store (store/dnssec-keys.ts), on SQLite and PostgreSQL alike. */
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dnssecKeyContext, KEY_FILE, openSealer, type Sealer } from '../../core/sealing';
import { type Store } from '../../store/db';
import { deleteKeys, raiseServedSerial, replaceKeys, servedSerialFloor, storedKeys } from '../../store/dnssec-keys';
import { FencedError, fencedStore, withTerm } from '../../store/leader';
import { onPostgres, openTestStore } from '../helpers/store';
import { tempDir } from '../helpers/proc';

let s: Store;
let sealer: Sealer;
const ZONE = 'example.com';

beforeEach(async () => {
  s = await openTestStore(':memory:');
  sealer = openSealer(join(tempDir('hostplane-dnssec-keys-'), KEY_FILE));
});
afterEach(() => s.close());

const key = (keyId: string, active: number, uid = 'u1') => ({
  keyId, attrs: { ksk: keyId.startsWith('k'), zsk: !keyId.startsWith('k'), tag: 1, algorithm: 13, size: 256, active },
  seal: () => sealer.seal(dnssecKeyContext(ZONE, uid, keyId), `PEM of ${keyId}`),
});

describe('stored DNSSEC keys', () => {
  it('are sealed: they open with the installation\'s key under their zone, lifetime and key id only', async () => {
    await replaceKeys(s, ZONE, 'u1', [key('k1', 10), key('z1', 10)]);
    const stored = await storedKeys(s, ZONE, 'u1');
    expect(stored.map((k) => k.keyId)).toEqual(['k1', 'z1']);
    expect(stored[0]!.sealed).not.toContain('PEM');
    expect(sealer.open(dnssecKeyContext(ZONE, 'u1', 'k1'), stored[0]!.sealed)).toBe('PEM of k1');
    expect(() => sealer.open(dnssecKeyContext(ZONE, 'u1', 'z1'), stored[0]!.sealed)).toThrow();
    expect(() => sealer.open(dnssecKeyContext(ZONE, 'u2', 'k1'), stored[0]!.sealed)).toThrow();
    expect(() => sealer.open(dnssecKeyContext('other.com', 'u1', 'k1'), stored[0]!.sealed)).toThrow();
  });

  it('follow the signer\'s rollovers: a new key is added, a moved timer updated, a deleted key deleted; only new keys are sealed', async () => {
    await replaceKeys(s, ZONE, 'u1', [key('k1', 10), key('z1', 10)]);
    const sealedBefore = (await storedKeys(s, ZONE, 'u1')).find((k) => k.keyId === 'k1')!.sealed;
    let sealed = 0;
    const counted = (k: ReturnType<typeof key>) => ({ ...k, seal: () => (sealed++, k.seal()) });
    await replaceKeys(s, ZONE, 'u1', [counted(key('k1', 20)), counted(key('z2', 20))]);
    const after = await storedKeys(s, ZONE, 'u1');
    expect(after.map((k) => [k.keyId, k.attrs.active])).toEqual([['k1', 20], ['z2', 20]]);
    expect(sealed).toBe(1);
    expect(after.find((k) => k.keyId === 'k1')!.sealed).toBe(sealedBefore);
  });

  it('belong to one lifetime of the zone: another lifetime\'s replace drops them, and deleteKeys forgets the zone\'s', async () => {
    await replaceKeys(s, ZONE, 'u1', [key('k1', 10)]);
    await replaceKeys(s, ZONE, 'u2', [key('k1', 10, 'u2')]);
    expect(await storedKeys(s, ZONE, 'u1')).toEqual([]);
    expect((await storedKeys(s, ZONE, 'u2')).map((k) => k.keyId)).toEqual(['k1']);
    await deleteKeys(s, ZONE);
    expect(await storedKeys(s, ZONE, 'u2')).toEqual([]);
  });

  it('are written only by the current leader: a write of a superseded term is refused', async () => {
    const fenced = fencedStore(s);
    await expect(withTerm(7, () => replaceKeys(fenced, ZONE, 'u1', [key('k1', 10)]))).rejects.toBeInstanceOf(FencedError);
    await expect(withTerm(7, () => raiseServedSerial(fenced, ZONE, 5))).rejects.toBeInstanceOf(FencedError);
    expect(await storedKeys(s, ZONE, 'u1')).toEqual([]);
    expect(await servedSerialFloor(s, ZONE)).toBeNull();
  });
});

describe('the served-serial floor', () => {
  it('only rises, in RFC 1982 terms (past 2^32 the later serial is the smaller number)', async () => {
    expect(await servedSerialFloor(s, ZONE)).toBeNull();
    await raiseServedSerial(s, ZONE, 2026112901);
    await raiseServedSerial(s, ZONE, 2026112800);
    expect(await servedSerialFloor(s, ZONE)).toBe(2026112901);
    await raiseServedSerial(s, ZONE, 4000000000);
    await raiseServedSerial(s, ZONE, 4294967290);
    await raiseServedSerial(s, ZONE, 3);
    expect(await servedSerialFloor(s, ZONE)).toBe(3);
  });

  it.skipIf(!onPostgres())(`is never lowered by a raise that read it before another's committed${onPostgres() ? '' : ' (skipped: SQLite runs one write at a time)'}`, async () => {
    await raiseServedSerial(s, ZONE, 5);
    const original = pg.Client.prototype.query as (...a: unknown[]) => unknown;
    const query = vi.spyOn(pg.Client.prototype, 'query');
    let raised = false;
    // Between the floor's read (it read 5) and its upsert, another write raises the floor to 7 and commits.
    query.mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text ?? '';
      if (!raised && /insert into "zone_served_serials"/i.test(text)) {
        raised = true;
        return (async () => {
          await raiseServedSerial(s, ZONE, 7);
          return original.apply(this, args);
        })();
      }
      return original.apply(this, args);
    } as never);
    try {
      await raiseServedSerial(s, ZONE, 6);
    } finally {
      query.mockRestore();
    }
    expect(raised).toBe(true);
    expect(await servedSerialFloor(s, ZONE)).toBe(7);
  });

  it.skipIf(!onPostgres())(`is raised in two round trips on PostgreSQL${onPostgres() ? '' : ' (skipped: SQLite pass)'}`, async () => {
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      // BEGIN with the floor's read, then the new floor with NOTIFY, COMMIT and the flush.
      await raiseServedSerial(s, ZONE, 2026112901);
      expect(query.mock.calls.length).toBe(2);
    } finally {
      query.mockRestore();
    }
    expect(await servedSerialFloor(s, ZONE)).toBe(2026112901);
  });
});
