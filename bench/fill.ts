/** Zones and their rrsets written through the store's own functions with serve not running, as the API writes
 * them and within the quotas of the bench's plan: what bench/memory.ts and bench/dns-secondaries.ts start from. */
import { orgBySlug } from '../store/accounts';
import { openStore } from '../store/db';
import { createZone, putRRset } from '../store/zones';
import { checkCnameConflict, validateRRset } from '../zonefiles';
import { addressOf, NAMESERVERS, ORG } from './dns-sides';

/** Store writes issued together, to share a commit. */
const FILL_BATCH = 256;

export interface FillPlan { name: string; zones: number; rrsetsPerZone: number; zoneBytes: number }

/**
 * Every zone of `zones` for the bench org on `plan`, then in each `r<i>.<zone>` A `addressOf(i)` for i below
 * `count(zone)`, followed by the `extra(zone)` A rrsets in order. Writes are issued FILL_BATCH at a time.
 */
export async function fill(data: string, plan: FillPlan, zones: string[], count: (zone: string) => number,
  extra: (zone: string) => { name: string; address: string }[] = () => []): Promise<void> {
  const store = openStore(data, { create: false });
  try {
    const org = await orgBySlug(store, ORG);
    if (!org) throw new Error(`no org ${ORG} in the store`);
    let pending: Promise<unknown>[] = [];
    const flush = async (): Promise<void> => {
      await Promise.all(pending);
      pending = [];
    };
    const issue = async (write: Promise<unknown>): Promise<void> => {
      pending.push(write);
      if (pending.length >= FILL_BATCH) await flush();
    };
    for (const name of zones) {
      await issue(createZone(store, { orgId: org.id, name, nameservers: NAMESERVERS, actor: 'bench', quota: { plan: plan.name, limit: plan.zones } }));
    }
    await flush();
    const put = (zone: string, name: string, address: string): Promise<void> => {
      const rrset = validateRRset(zone, { name, type: 'A', ttl: 300, records: [{ content: address }] });
      return issue(putRRset(store, {
        orgId: org.id, zone, rrset, actor: 'bench', cnameConflict: checkCnameConflict, quota: { plan: plan.name, rrsets: plan.rrsetsPerZone, bytes: plan.zoneBytes },
      }));
    };
    for (const zone of zones) {
      for (let i = 0; i < count(zone); i++) await put(zone, `r${i}.${zone}`, addressOf(i));
      for (const x of extra(zone)) await put(zone, x.name, x.address);
    }
    await flush();
  } finally {
    store.close();
  }
}
