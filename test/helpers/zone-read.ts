import type { Store } from '../../store/db';
import { GENERATION_READS, getZone, zoneChangesSince, zoneSnapshot, type ZoneDelta } from '../../store/zones';

/** What changed in a zone since `since`, as zoneChangesSince reads it for a test that expects the changes
 * themselves: a `more` (tombstones pruned past `since`) or a missing zone fails the test. */
export async function deltaSince(s: Store, name: string, since: number): Promise<ZoneDelta> {
  const delta = await zoneChangesSince(s, name, since, 1_000_000);
  if (!delta || 'more' in delta) throw new Error(`zone ${name}: no changes since ${since} to read (${delta ? 'read it whole' : 'no zone'})`);
  return delta;
}

/** A customer's zone with every rrset of one generation, in getZone's order (the apex rrsets, then the others by
 * name and type): what an export of it at that generation lists. Tries again while writes land between the two
 * reads. */
export async function zoneWithRRsets(s: Store, orgId: number, name: string) {
  for (let attempt = 1; ; attempt++) {
    const zone = await getZone(s, orgId, name);
    const snap = await zoneSnapshot(s, name);
    if (snap && snap.zone.uid === zone.uid && snap.zone.generation === zone.generation) {
      return { zone, rrsets: [...snap.rrsets.filter((r) => r.name === name), ...snap.rrsets.filter((r) => r.name !== name)] };
    }
    if (attempt >= GENERATION_READS) throw new Error(`zone ${name} changed during each of ${GENERATION_READS} reads`);
  }
}
