/**
 * The zone reconciler: makes the nameserver serve exactly the stored zone, and says so only once it has
 * checked. Per zone name, one pass:
 * 1. Finalize: a deleted lifetime of the zone (a finalizer row) is purged from the nameserver (data, journal,
 *    DNSSEC keys) before anything else, so a zone created again, by anyone, never gets the old owner's records
 *    or keys; a zone the nameserver holds that the store does not have is removed the same way (not the catalog zone,
 *    which is ./catalog.ts's).
 * 2. Apply (./apply.ts) at the signing the zone is on its way to (./signing.ts).
 * 3. Check: the served serial is read back and compared with the one applied; only then is the zone Ready. An
 *    unsigned zone's incremental change reads it from the nameserver's answer to its commit (./apply.ts), while the
 *    nameserver still runs; every other pass, each one with nothing to apply included, asks the nameserver. Drift
 *    forgets what is served and applies again.
 * 4. Look, when due and only in a pass that applied nothing: at the secondaries (./secondaries.ts,
 *    secondaryCheckMs after a change is served, then every secondaryRetryMs while one is behind). A pass that
 *    applied asks for the next pass at once instead, so a slow lookup never holds up a change; the runner
 *    schedules every look (`requeueAfterMs`) and `idle()` sees it.
 *    What the resolver is asked runs beside the passes (./looks.ts), which only start the look and act on what
 *    the last one found: the parent (./parent.ts, every delegationTtlMs, from a pass that applied nothing), its DS
 *    while DNSSEC turns off (./signing.ts), ALIAS targets (./aliases.ts, before their answers expire). A server that
 *    never answers holds no pass, and so no other zone's change behind it. The look's end asks for a pass, which
 *    records what it found (a new ALIAS answer is a new generation, which that pass serves).
 * Each pass records its status once (store/status.ts recordStatus), and all time is the store's clock.
 */
import { StaleSerialError, UnservableZoneError } from '../../providers/nameserver/port';
import type { Resolver } from '../../providers/resolver';
import { aliasFacts, forgetAliases, zoneAliasesOf } from '../../store/aliases';
import { deleteKeys } from '../../store/dnssec-keys';
import { finalizersOf, finishFinalizer } from '../../store/finalizers';
import { dropStatus, recordStatus, type Judged } from '../../store/status';
import { allZoneNames, ZONE_STATUS, zoneByName, zoneStatusOf, type ZoneFacts, type ZoneRow, type ZoneStatus } from '../../store/zones';
import { isZoneName } from '../../zonefiles';
import { identityWatch, TerminalError, type Reconciler, type Result } from '../types';
import { serves, zoneApplier, type ApplyDeps, type Signing } from './apply';
import { aliasCondition, aliasLooks, dueIn } from './aliases';
import { zoneLooks } from './looks';
import { lookAtParent } from './parent';
import { lookAtSecondaries } from './secondaries';
import { keepKeys, type KeyDeps } from './keys';
import { confirmDs, lookAtDs, signedCondition, signingPlan, type DsLook } from './signing';

export interface ZoneReconcilerDeps extends ApplyDeps {
  resolver: Resolver;
  /** How long a delegation answer is trusted before it is looked up again. */
  delegationTtlMs?: number;
  /** While DNSSEC goes off, how often the parent's DS is looked at again. */
  dsWatchMs?: number;
  /** After a change is served, when the secondaries' serials are looked at; and again this long after, while
   * one is behind. */
  secondaryCheckMs?: number;
  secondaryRetryMs?: number;
  /** How far apart a zone's passes start at least (reconcilers/queue.ts `spacingMs`). */
  passSpacingMs?: number;
  /** Seals the signer's keys into the store (./keys.ts); without it they stay the signer's alone. */
  sealer?: KeyDeps['sealer'];
  /** The catalog zone, which the nameserver holds for the catalog reconciler (./catalog.ts): not a zone to remove. */
  catalogZone?: string;
}

/** Periodic drift check for a converged zone. */
const RESYNC_MS = 10 * 60_000;
/** A freshly signed zone has no keys for a moment; look for its DS values again soon. */
const DS_POLL_MS = 2_000;
/** While the nameserver is down, how often a zone looks whether it is served again. */
const DOWN_POLL_MS = 5_000;
const DS_WATCH_MS = 60_000;
const SECONDARY_CHECK_MS = 2_000;
/** A secondary that was down gets NOTIFY this often once behind: it catches up within a minute of returning. */
const SECONDARY_RETRY_MS = 30_000;
/**
 * A zone's passes start this far apart over a stream of changes (a quiet zone's first two may come closer:
 * PASS_BURST). A pass costs about the same for one change as for fifty (a
 * read, a render, one nameserver transaction, a new serial, a status write): a client writing records in a
 * loop got a pass and a serial for every write or two, which took a quarter of serve's time from the writes
 * themselves and sent a NOTIFY each to the secondaries. A change after a quiet spell is served at once.
 */
const PASS_SPACING_MS = 20;
/**
 * Passes a quiet zone may start within the spacing. With one, a change every 25 ms (bench/dns-latency.ts) waited
 * for the spacing whenever its write committed under 20 ms after the one before, which a slow write before it made
 * happen to about one change in twenty: up to 20 ms more, the p95 to p99 of the time to be served.
 */
const PASS_BURST = 2;

type Failure = { lastError: string | null; reason: string; message: string };

/** When each zone's next look of one sort is due, on the store's clock. A zone without an entry has none
 * pending, unless `dueWhenUnknown`: then its first look is due at once. */
function dueTimes(now: () => number, dueWhenUnknown: boolean) {
  const at = new Map<string, number>();
  return {
    /** The look is due `ms` from now; asked again, the later call wins (a change restarts the wait). */
    in: (name: string, ms: number): void => {
      at.set(name, now() + ms);
    },
    /** Milliseconds until the look is due (0 or less: due), undefined when none is pending. */
    left: (name: string): number | undefined => {
      const t = at.get(name);
      if (t === undefined) return dueWhenUnknown ? 0 : undefined;
      return t - now();
    },
    pending: (name: string): boolean => at.has(name),
    forget: (name: string): void => {
      at.delete(name);
    },
  };
}

export function zoneReconciler(d: ZoneReconcilerDeps): Reconciler {
  const applier = zoneApplier(d);
  const now = (): number => d.store.clock().getTime();
  const delegation = dueTimes(now, true);
  const secondaries = dueTimes(now, false);
  /** Set once the nameserver said it has no secondaries: nothing to look at, ever. */
  let noSecondaries = !d.nameserver.secondarySerials;
  const isDue = (left: number | undefined): boolean => left !== undefined && left <= 0;
  const looks = zoneLooks(d);
  const aliasLooking = aliasLooks({ ...d, looks });
  /** What the last look at the parent found (./parent.ts), for the next pass to record: of the zone's lifetime `uid`. */
  const parentFound = new Map<string, { uid: string; facts: Partial<ZoneFacts> }>();
  /** Each zone's way to unsigned under way, of its lifetime `uid`, with what the last look at the parent's DS since it
   * began found. A look that ends once the way was left (signed again, deleted) lands on a walk no pass reads. */
  const dsWalks = new Map<string, { uid: string; found?: DsLook }>();

  /** What went wrong, for the tenant (a reason and a message without server paths or the nameserver's own
   * words) and for operators (`lastError`, the whole failure). */
  const failure = (e: unknown, st?: ZoneStatus): Failure => {
    const health = d.nameserver.health();
    if (e instanceof UnservableZoneError) {
      return { lastError: e.message, reason: 'InvalidZoneName', message: 'this zone name breaks the zone name rule and is not served; delete the zone' };
    }
    if (!health.running) {
      return {
        lastError: `nameserver not running: ${health.lastError ?? 'not started'}${e ? `; ${(e as Error).message}` : ''}`,
        reason: 'NameserverDown',
        message: 'the nameserver is not running; the zone is served once it runs',
      };
    }
    return {
      lastError: (e as Error).message,
      reason: 'ApplyFailed',
      message: st?.facts.servedSerial != null
        ? 'the nameserver did not take this version of the zone and serves the last one it took; retrying'
        : 'the nameserver did not take the zone, which is not served yet; retrying',
    };
  };

  /** A pass that could not serve the zone's current generation: Ready False, judged at it, the status's
   * observedGeneration left at what was served before. */
  const recordFailure = (z: ZoneRow, f: Failure, facts: Partial<ZoneFacts>): Promise<boolean> =>
    recordStatus(d.store, ZONE_STATUS, z.name, {
      uid: z.uid, generation: z.generation, acted: false, facts, lastError: f.lastError,
      set: [{ type: 'Ready', status: 'False', reason: f.reason, message: f.message }],
    });

  /** Starts the look at the parent: beside the passes (./looks.ts), which it asks for one when it ends. */
  const startParentLook = (z: ZoneRow, st: ZoneStatus | undefined): void => {
    if (looks.underWay('parent', z.name)) return;
    delegation.in(z.name, d.delegationTtlMs ?? RESYNC_MS);
    looks.start('parent', z, async (ask) => {
      const facts = await ask(() => lookAtParent({ ...d, now: d.store.clock() }, z, st));
      if (facts) parentFound.set(z.name, { uid: z.uid, facts });
    });
  };

  /** The looks that are due, in a pass that applied nothing: the condition and facts they found. */
  const look = async (z: ZoneRow, st: ZoneStatus | undefined, servedSerial: number): Promise<{ set: Judged[]; facts: Partial<ZoneFacts> }> => {
    const out: { set: Judged[]; facts: Partial<ZoneFacts> } = { set: [], facts: {} };
    if (isDue(delegation.left(z.name))) startParentLook(z, st);
    const seen = isDue(secondaries.left(z.name)) ? await lookAtSecondaries(d, z.name, servedSerial).catch((e: Error) => {
      d.log.debug({ zone: z.name, err: e.message }, 'secondary check failed');
      return undefined;
    }) : undefined;
    if (seen === null) {
      noSecondaries = true;
      secondaries.forget(z.name);
    } else if (seen) {
      out.set.push(seen.condition);
      Object.assign(out.facts, seen.facts);
      if (seen.behind) secondaries.in(z.name, d.secondaryRetryMs ?? SECONDARY_RETRY_MS);
      else secondaries.forget(z.name);
    }
    return out;
  };

  /** Purges whatever the nameserver holds under `name` (data, journal, keys). A name that breaks the rule
   * never reached it. */
  const purge = async (name: string): Promise<void> => {
    if (isZoneName(name)) await d.nameserver.removeZone(name);
    await deleteKeys(d.store, name);
    applier.forget(name);
    delegation.forget(name);
    parentFound.delete(name);
    dsWalks.delete(name);
    secondaries.forget(name);
  };

  return {
    kind: 'zone',
    watches: [identityWatch('zone')],
    spacingMs: d.passSpacingMs ?? PASS_SPACING_MS,
    spacingBurst: PASS_BURST,
    background: looks,
    async keys() {
      // The nameserver's own zones too: one the store never had (or lost track of) is removed.
      const held = (await d.nameserver.zones().catch(() => [])).filter((name) => name !== d.catalogZone);
      return [...new Set([...(await allZoneNames(d.store)), ...held])].sort();
    },
    async reconcile(name): Promise<Result> {
      const finalizers = await finalizersOf(d.store, 'zone', name);
      let z = await zoneByName(d.store, name);
      const known = applier.served(name);
      if (finalizers.length > 0 || !z || (known && known.uid !== z.uid)) {
        await purge(name);
        for (const f of finalizers) await finishFinalizer(d.store, 'zone', f.uid);
        if (!z) {
          await dropStatus(d.store, 'zone', name);
          return {};
        }
      }
      const st = await zoneStatusOf(d.store, z);
      const walked = dsWalks.get(name)?.uid === z.uid ? dsWalks.get(name) : undefined;
      const plan = signingPlan({ now: d.store.clock(), watchMs: d.dsWatchMs ?? DS_WATCH_MS }, z, st, applier.served(name)?.dnssec ?? false, walked?.found);
      if (plan.signing !== 'delete-ds') dsWalks.delete(name);
      else if (!walked) dsWalks.set(name, { uid: z.uid });
      const signing: Signing = { dnssec: plan.signing !== 'off', deleteDs: plan.signing === 'delete-ds' };
      const parentDs = plan.parentDs !== undefined ? { parentDs: plan.parentDs } : {};
      let taken;
      try {
        taken = await applier.apply(z, st, signing);
      } catch (e) {
        // The signer served a serial past the text's: recorded as the floor the next text goes above.
        await recordFailure(z, failure(e, st), { ...(e instanceof StaleSerialError && { servedSerial: e.served }), ...parentDs });
        if (e instanceof StaleSerialError) return { requeueAfterMs: 0 };
        throw e instanceof UnservableZoneError ? new TerminalError(e.message) : e;
      }
      // Deleted meanwhile: the next pass finalizes it. DNSSEC turned on or off meanwhile: it plans the signing again.
      if (!taken) return { requeueAfterMs: 0 };
      const { served: applied, acted, committed } = taken;
      if (acted) z = (await zoneByName(d.store, name)) ?? z;
      const signed = applied.dnssec;
      const [servedSerial, signerDs] = await Promise.all([
        // The nameserver's own answer to the commit, where it tells (a zone it does not sign): a query of it here
        // cost a socket, a datagram each way and a wake-up of it and of the API's process per change, beside the
        // queries the zone's users send meanwhile. A pass with nothing to apply asks, and so finds a drift. Not once
        // the server went down since it answered: it serves nothing now, which the query says (down, below).
        committed !== null && d.nameserver.health().running ? committed : d.nameserver.servedSerial(name).catch(() => null),
        signed ? d.nameserver.ds(name) : [],
      ]);
      if (!serves(servedSerial, applied.serial, signed)) {
        // A nameserver that is down serves the applied files once it runs again: look again later. One that
        // runs but serves something else (it lost the zone, or restarted on an older file) drifted: apply again.
        const down = !d.nameserver.health().running;
        if (!down) applier.forget(name);
        const f = down ? failure(null) : { lastError: `served serial ${servedSerial} is not the applied ${applied.serial}`, reason: 'NotServed', message: 'the nameserver does not serve this version of the zone; applying it again' };
        await recordFailure(z, f, { servedSerial });
        if (down) return { requeueAfterMs: DOWN_POLL_MS };
        throw new Error(`zone ${name}: ${f.lastError}`);
      }
      // Not awaited until the status is written: on SQLite both writes then go in one commit (the store gathers the
      // writes of one turn), where one each cost a transaction, a commit and an announcement per change. They may still
      // end apart (PostgreSQL commits each on its own; after a failed sync SQLite refuses a durable floor write and
      // commits the status): a status ahead of the floor is read as a floor all the same (floorToPass, textSerial), and
      // the pass fails, so that the next one writes the floor again.
      const floorRaised = applier.recordServed(name, z, applied, servedSerial!);
      floorRaised.catch(() => undefined);
      if (signed && d.sealer) await keepKeys({ ...d, sealer: d.sealer }, z);
      const confirmed = await confirmDs(d, z, st, signerDs);
      const looked = acted ? { set: [], facts: {} } : await look(z, st, servedSerial!);
      const { aliases, stale } = await zoneAliasesOf(d.store, name);
      if (stale.length > 0) await forgetAliases(d.store, name, stale);
      if (!acted) aliasLooking.start(z, aliases.filter((a) => dueIn(a, now()) <= 0));
      const aliasCond = aliasCondition(aliases);
      const { pending } = plan;
      const ready: Judged = pending
        ? { type: 'Ready', status: 'False', reason: pending.reason, message: pending.message }
        : { type: 'Ready', status: 'True', reason: 'Served', message: `the nameserver serves generation ${applied.generation} (serial ${servedSerial})` };
      const signedCond = signedCondition(z, plan.signing, signerDs);
      // The DS the parent look found is the walk's to judge once DNSSEC goes off: it may have been asked while on.
      const parentSaw = parentFound.get(name);
      const { parentDs: parentDsSeen, ...parentFacts } = parentSaw?.uid === z.uid ? parentSaw.facts : {};
      const fromParent = { ...parentFacts, ...(z.dnssec !== 'off' && parentDsSeen !== undefined && { parentDs: parentDsSeen }) };
      await recordStatus(d.store, ZONE_STATUS, name, {
        uid: z.uid, generation: applied.generation,
        set: [ready, ...(signedCond ? [signedCond] : []), ...(aliasCond ? [aliasCond] : []), ...looked.set],
        drop: [...(signedCond ? [] : ['Signed']), ...(aliasCond ? [] : ['AliasResolved'])],
        facts: {
          servedSerial, renderedSerial: applied.serial, signerDs, signing: plan.signing, ...confirmed, ...parentDs, ...fromParent, ...looked.facts,
          ...((aliases.length > 0 || st?.facts.aliases) && { aliases: aliasFacts(aliases) }),
        },
        lastError: pending?.lastError ?? null,
      });
      await floorRaised;
      if (parentFound.get(name) === parentSaw) parentFound.delete(name);
      // Started once what the last look found is recorded: a look that found the DS gone is judged against the
      // last time it was seen, which must not be lost.
      const walk = dsWalks.get(name);
      if (pending && walk && pending.lookAt <= now()) {
        looks.start('ds', z, async (ask) => {
          const found = await ask(() => lookAtDs(d.resolver, name, now()));
          if (found) walk.found = found;
        });
      }
      const looksAtSecondaries = !noSecondaries && !looked.set.some((c) => c.type === 'SecondariesInSync');
      if (looksAtSecondaries && (servedSerial !== st?.facts.servedSerial
        || (!st?.conditions.some((c) => c.type === 'SecondariesInSync') && !secondaries.pending(name)))) {
        secondaries.in(name, d.secondaryCheckMs ?? SECONDARY_CHECK_MS);
      }
      const next = [
        // A look under way asks for the pass itself when it ends.
        (pending && !looks.underWay('ds', name) ? pending.lookAt - now() : undefined) ?? (signed && signerDs.length === 0 ? DS_POLL_MS : RESYNC_MS),
        await applier.flush(name, applied),
        delegation.left(name),
        noSecondaries ? undefined : secondaries.left(name),
        // A look under way asks for the pass itself when it ends.
        ...(aliasLooking.underWay(name) ? [] : aliases.map((a) => dueIn(a, now()))),
      ].filter((ms): ms is number => ms !== undefined);
      return { requeueAfterMs: Math.max(0, Math.min(...next)) };
    },
  } satisfies Reconciler;
}
