/**
 * The zone's lookups through the resolver, beside the zone passes: ALIAS targets (./aliases.ts), the delegation
 * (./parent.ts) and, while DNSSEC turns off, the parent's DS (./signing.ts). A silent server holds a lookup for
 * seconds, and the zone queue runs only a few passes at once: a pass that waited for one held every other tenant's
 * changes behind it. So a pass only starts a look, and acts on what the last one found; the look's end asks for a
 * pass of the zone. Looks start inside a pass, so a look of a leader that lost its term writes nothing: what it
 * records goes through the store's fenced writes, or through the next pass.
 */
import { FairSlots } from '../../lib/fair-slots';
import type { Logger } from '../../lib/log';

/** Lookups asked at once, over all zones and kinds. Organizations take them in turn: a tenant whose names never
 * answer holds at most these, and another tenant's lookup waits for one of them, not for all that tenant's. */
export const LOOKUPS_AT_ONCE = 16;

/** The kinds of look, at most one of each under way per zone. */
export type LookKind = 'alias' | 'parent' | 'ds';

/** Runs `lookup` in its turn among the lookups of every zone; undefined once the looks stopped. */
export type Ask = <T>(lookup: () => Promise<T>) => Promise<T | undefined>;

export type Looks = ReturnType<typeof zoneLooks>;

export function zoneLooks(d: { log: Logger }) {
  // Unbounded per organization: at most one look of each kind per zone waits, and none is ever refused.
  const lookups = new FairSlots(LOOKUPS_AT_ONCE, Infinity);
  const underWay = new Map<string, Promise<void>>();
  let pass: (zone: string) => void = () => {};
  let stopped = false;
  const askAs = (orgId: number): Ask => async (lookup) => (await lookups.run(String(orgId), async () => (stopped ? undefined : lookup())))!.value;
  const keyOf = (kind: LookKind, zone: string): string => `${kind} ${zone}`;
  return {
    /** Starts `look` of `kind` in zone `z`, unless one is under way there; its end asks for a pass of the zone. */
    start(kind: LookKind, z: { name: string; orgId: number }, look: (ask: Ask) => Promise<void>): void {
      const zone = z.name;
      const key = keyOf(kind, zone);
      if (stopped || underWay.has(key)) return;
      const running = look(askAs(z.orgId)).catch((e: unknown) => {
        // The store could not take what it found (down, or this process no longer leads): the pass finds it still due.
        d.log.warn({ zone, look: kind, err: (e as Error).message }, 'recording a look failed');
      }).finally(() => {
        underWay.delete(key);
        if (!stopped) pass(zone);
      });
      underWay.set(key, running);
    },
    underWay: (kind: LookKind, zone: string): boolean => underWay.has(keyOf(kind, zone)),
    stopped: (): boolean => stopped,
    /** `passOf(zone)` queues a pass of the zone, as a change of it does. */
    attach(passOf: (zone: string) => void): void {
      pass = passOf;
    },
    busy: (): boolean => underWay.size > 0,
    async onIdle(): Promise<void> {
      while (underWay.size > 0) await Promise.all(underWay.values());
    },
    /** Starts nothing more (what waits for its turn ends at once) and waits for what is asking the resolver. */
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all(underWay.values());
    },
  };
}
