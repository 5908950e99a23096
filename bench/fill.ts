/** Zones and their rrsets written through the store's own functions with serve not running, as the API writes
 * them and within the quotas of the bench's plan: what bench/memory.ts, bench/dns-secondaries.ts and
 * bench/zone-changes.ts start from. */
import { orgBySlug } from '../store/accounts';
import { openStore } from '../store/db';
import { applyZoneChanges, MAX_CHANGES, type ZoneChange } from '../store/zone-changes';
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

/** `zone` created for the bench org, then `fill` run with a function that applies a change set to it (through
 * applyZoneChanges, within the plan's quotas). With serve not running. */
async function inNewZone(data: string, plan: FillPlan, zone: string, fill: (apply: (changes: ZoneChange[]) => Promise<unknown>) => Promise<void>): Promise<void> {
  const store = openStore(data, { create: false });
  try {
    const org = await orgBySlug(store, ORG);
    if (!org) throw new Error(`no org ${ORG} in the store`);
    await createZone(store, { orgId: org.id, name: zone, nameservers: NAMESERVERS, actor: 'bench', quota: { plan: plan.name, limit: plan.zones } });
    await fill((changes) => applyZoneChanges(store, { orgId: org.id, zone, changes, actor: 'bench', quota: { plan: plan.name, rrsets: plan.rrsetsPerZone, bytes: plan.zoneBytes } }));
  } finally {
    store.close();
  }
}

/**
 * One zone for the bench org, filled with `count` rrsets (`r<i>.<zone>` A `addressOf(i)`) through applyZoneChanges
 * in sets of MAX_CHANGES, each set one generation and one commit: a zone of 100,000 rrsets in seconds, where
 * rrset-by-rrset writes take minutes.
 */
export async function fillZone(data: string, plan: FillPlan, zone: string, count: number): Promise<void> {
  await inNewZone(data, plan, zone, async (apply) => {
    for (let from = 0; from < count; from += MAX_CHANGES) {
      await apply(Array.from({ length: Math.min(MAX_CHANGES, count - from) }, (_, k) => ({
        op: 'put', name: `r${from + k}.${zone}`, type: 'A', ttl: 300, records: [{ content: addressOf(from + k) }],
      })));
    }
  });
}

/**
 * One zone for the bench org with `sets` change sets of one rrset each applied to it (`r<i % rrsets>.<zone>` A, new
 * addresses every round), FILL_BATCH at a time: a zone whose revisions are many change sets'.
 */
export async function fillRevisions(data: string, plan: FillPlan, zone: string, rrsets: number, sets: number): Promise<void> {
  await inNewZone(data, plan, zone, async (apply) => {
    for (let from = 0; from < sets; from += FILL_BATCH) {
      await Promise.all(Array.from({ length: Math.min(FILL_BATCH, sets - from) }, (_, k) => {
        const i = from + k;
        return apply([{ op: 'put', name: `r${i % rrsets}.${zone}`, type: 'A', ttl: 300, records: [{ content: addressOf(i % rrsets, 1 + Math.floor(i / rrsets)) }] }]);
      }));
    }
  });
}
