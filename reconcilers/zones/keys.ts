/**
 * DNSSEC keys across leaders: the leader's signer generates and rolls a zone's keys, and each signed pass puts the
 * signer's key set in the store (sealed) when it differs; a process that becomes leader gives its signer the stored
 * keys before it signs anything (keysToImport), so the DNSKEY set a validating resolver sees never changes with the
 * leader.
 */
import { dnssecKeyContext, type Sealer } from '../../core/sealing';
import { sameKeys, type DnssecKey, type Nameserver } from '../../providers/nameserver/port';
import type { Store } from '../../store/db';
import { replaceKeys, storedKeys } from '../../store/dnssec-keys';
import { zoneByName } from '../../store/zones';

export interface KeyDeps {
  store: Store;
  nameserver: Nameserver;
  sealer: Pick<Sealer, 'seal' | 'open'>;
}

/** Stores the signer's keys of the signed zone `z` when they are not what the store holds for its lifetime. */
export async function keepKeys(d: KeyDeps, z: { name: string; uid: string }): Promise<void> {
  if (!d.nameserver.dnssecKeys) return;
  const signer = await d.nameserver.dnssecKeys(z.name);
  if (signer.length === 0 || sameKeys(signer, await storedKeys(d.store, z.name, z.uid))) return;
  await replaceKeys(d.store, z.name, z.uid, signer.map((k) => ({
    keyId: k.keyId, attrs: k.attrs, seal: () => d.sealer.seal(dnssecKeyContext(z.name, z.uid, k.keyId), k.pem),
  })));
}

/** The stored keys of every zone in `names` that has some, opened, for the signer of a new leader. */
export async function keysToImport(d: Omit<KeyDeps, 'nameserver'>, names: string[]): Promise<Map<string, DnssecKey[]>> {
  const out = new Map<string, DnssecKey[]>();
  for (const name of names) {
    const z = await zoneByName(d.store, name);
    if (!z) continue;
    const keys = await storedKeys(d.store, name, z.uid);
    if (keys.length > 0) {
      out.set(name, keys.map((k) => ({ keyId: k.keyId, attrs: k.attrs, pem: d.sealer.open(dnssecKeyContext(name, z.uid, k.keyId), k.sealed) })));
    }
  }
  return out;
}
