/**
 * What a new leader's knotd needs to take over the hidden primary without a resolver or a secondary noticing: each
 * signed zone's DNSSEC keys (sealed by the caller; the store never sees a private key in the clear) and the highest
 * serial any leader may have served of each zone. Written by the leader's zone passes, so fenced by their term.
 */
import { and, eq, sql } from 'drizzle-orm';
import { SERIAL_HALF, serialGreater } from '../zonefiles';
import type { Db, Store } from './db';
import { runLast } from './feed';
import { dnssecKeys, zoneServedSerials } from './schema';

/** RFC 1982's 2^31, as a literal of the statement (a constant, not a parameter). */
const half = sql.raw(String(SERIAL_HALF));

/** One key as stored: its private key sealed. */
export interface StoredKey {
  keyId: string;
  /** keymgr's description of the key (role, algorithm, timers), as the nameserver port reads and writes it. */
  attrs: Record<string, unknown>;
  sealed: string;
}

/** The keys stored for the zone's lifetime `uid`, by key id. */
export async function storedKeys(s: Store, zone: string, uid: string): Promise<StoredKey[]> {
  const rows = await s.db.select({ keyId: dnssecKeys.keyId, attrs: dnssecKeys.attrs, sealed: dnssecKeys.sealed }).from(dnssecKeys)
    .where(and(eq(dnssecKeys.zone, zone), eq(dnssecKeys.uid, uid))).orderBy(dnssecKeys.keyId);
  return rows.map((r) => ({ keyId: r.keyId, attrs: JSON.parse(r.attrs) as Record<string, unknown>, sealed: r.sealed }));
}

/**
 * Makes the zone's stored keys exactly `keys` for lifetime `uid`: a key the signer added (a rollover's new key) is
 * inserted, one whose timers moved is updated, one it deleted is deleted, and keys of an earlier lifetime go.
 * `keys` come unsealed only as far as the caller needs: `seal` is called for keys the store does not hold yet.
 */
export async function replaceKeys(
  s: Store, zone: string, uid: string, keys: { keyId: string; attrs: Record<string, unknown>; seal: () => string }[],
): Promise<void> {
  await s.write(async (tx) => {
    const held = new Map((await tx.select({ keyId: dnssecKeys.keyId, uid: dnssecKeys.uid, attrs: dnssecKeys.attrs }).from(dnssecKeys)
      .where(eq(dnssecKeys.zone, zone))).map((r) => [r.keyId, r]));
    const wanted = new Set(keys.map((k) => k.keyId));
    for (const [keyId, row] of held) {
      if (!wanted.has(keyId) || row.uid !== uid) await tx.delete(dnssecKeys).where(and(eq(dnssecKeys.zone, zone), eq(dnssecKeys.keyId, keyId)));
    }
    for (const k of keys) {
      const attrs = JSON.stringify(k.attrs);
      const row = held.get(k.keyId);
      if (!row || row.uid !== uid) await tx.insert(dnssecKeys).values({ zone, keyId: k.keyId, uid, attrs, sealed: k.seal() });
      else if (row.attrs !== attrs) await tx.update(dnssecKeys).set({ attrs }).where(and(eq(dnssecKeys.zone, zone), eq(dnssecKeys.keyId, k.keyId)));
    }
  });
}

/** Forgets the zone's keys: its lifetime ended, and a zone created again under the name gets new ones. */
export async function deleteKeys(s: Store, zone: string): Promise<void> {
  await s.write(async (tx) => {
    await tx.delete(dnssecKeys).where(eq(dnssecKeys.zone, zone));
  });
}

/** The floor's read, prepared once: every zone change reads it (raiseServedSerial), where building and preparing the
 * statement anew cost more than running it. */
const floorOf = (db: Db) => db.select({ serial: zoneServedSerials.serial }).from(zoneServedSerials).where(eq(zoneServedSerials.zone, sql.placeholder('zone'))).prepare();

/** The highest serial any leader may have served of the zone; null when none was recorded. */
export async function servedSerialFloor(s: Store, zone: string): Promise<number | null> {
  const [row] = await s.prepared('servedSerialFloor', floorOf).execute({ zone });
  return row?.serial ?? null;
}

/** Raises the zone's recorded floor to `serial` (RFC 1982: a serial that is not later leaves it as it is).
 * `committed` is called once the write has committed, which on SQLite comes before its sync (Tx.afterCommit);
 * `durable: false` where the store already holds a floor as high (Store.write). */
export async function raiseServedSerial(s: Store, zone: string, serial: number, opts: { committed?: () => void; durable?: boolean } = {}): Promise<void> {
  const { committed, durable } = opts;
  await s.write(async (tx) => {
    if (committed) tx.afterCommit(committed);
    const [row] = await tx.prepared('servedSerialFloor', floorOf).execute({ zone });
    if (row && !serialGreater(serial, row.serial)) return;
    // Raised before every zone change is served: on PostgreSQL sent with the COMMIT. The read above does not lock the
    // row there, so another process's (or a failed pass's late) write may raise it meanwhile: the upsert itself only
    // ever raises it (RFC 1982 order, as serialGreater).
    await runLast(tx, {
      key: 'raiseServedSerial',
      build: (db) => db.insert(zoneServedSerials).values({ zone: sql.placeholder('zone'), serial: sql.placeholder('serial') })
        .onConflictDoUpdate({
          target: zoneServedSerials.zone,
          set: { serial: sql`excluded.serial` },
          setWhere: sql`(excluded.serial > ${zoneServedSerials.serial} AND excluded.serial - ${zoneServedSerials.serial} < ${half})
            OR (excluded.serial < ${zoneServedSerials.serial} AND ${zoneServedSerials.serial} - excluded.serial > ${half})`,
        }),
      values: { zone, serial },
    });
  }, { durable });
}
