import type { Store } from '../../store/db';
import { GENERATION_READS, getZone, zoneSnapshot } from '../../store/zones';

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
