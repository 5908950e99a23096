/**
 * The hostname reconciler (spec 4.5, part 3's hostname table). Per custom hostname name, one pass:
 * 1. Finalize: each deleted lifetime of the name (a finalizer row) is removed from the edge provider and its
 *    managed records from the organization's zone; until that is done, a row added again under the name stays
 *    `pending_dns` (it cannot be routed to the new owner while the old one's state is still out there).
 * 1b. Release: an active row of another organization inside a zone here that public DNS delegates to us, which the
 *    zone's records do not prove for it, goes (releaseHostname); so does an active row whose zone proof went with its
 *    zone, unless its records prove it now. A pending one goes so when it is judged on request (`verify`: the zone's
 *    owner adding the name, or verifyHostname), not at every pass. A lookup that fails releases nothing.
 * 2. Verify (pending rows): expired ones are deleted; otherwise the three ownership proofs are judged (the name
 *    lies in a zone of ours of the same organization; the TXT at `_service-verify.<host>` equals the token; the
 *    CNAME of `<host>` points to the organization's own origin under the fallback origin, `orgOrigin`). One passing activates the row; none passing records what
 *    is seen, in words, as `lastError`. A resolver that fails is a finding too, never an exception. The resolver
 *    may be the system's, which knows the service's own network: the tenant's words read the same for a name that
 *    does not exist and one without the record, and echo a seen value only where no private view can have made it
 *    (a name in public DNS, `inPublicDns`, pointing to one, or public addresses); the operators' log has it all.
 * 3. Route (active rows): the edge provider gets the hostname (and reports its certificate), a name inside a zone
 *    of the organization gets its managed record there (a CNAME to the fallback origin, at an apex A/AAAA of the
 *    edge), unless the customer has an rrset in the way; `Resolves` says whether public DNS points to us.
 * Every pending and active name is judged again every `intervalMs` (a minute by default). `verify` runs step 2
 * at once for verifyHostname, bounded by the resolver's timeout, and leaves step 3 to the loop.
 */
import { AppError } from '../lib/errors';
import { inPublicDns, orgOrigin, verifyName } from '../rules/hostnames';
import { keyedSerial } from '../lib/keyed-serial';
import type { Logger } from '../lib/log';
import type { Edge } from '../providers/edge/port';
import { ResolverError, type Lookup, type RecordLookups, type Resolver } from '../providers/resolver';
import type { Store } from '../store/db';
import {
  activateHostname, allHostnameKeys, expireHostname, HOSTNAME_STATUS, hostnameByName, hostnamesUnder, releaseHostname, rrsetsAtName, zoneHolding, type HostnameFacts,
  type HostnameToReconcile, type Proof,
} from '../store/hostnames';
import { finalizersOf, finishFinalizer } from '../store/finalizers';
import { dropStatus, recordStatus, type Judged } from '../store/status';
import { deleteManagedRRset, putManagedRRset } from '../store/zones';
import { FencedError } from '../store/leader';
import { isPublicAddress } from '../zonefiles';
import { identityWatch, type Reconciler, type Result } from './types';

export interface HostnameReconcilerDeps {
  store: Store;
  resolver: RecordLookups & Pick<Resolver, 'ns'>;
  /** The service's public nameservers: a zone of ours proves a name only once public DNS delegates it to them. */
  nameservers: string[];
  edge: Edge;
  /** Where customers point their CNAME (`--fallback-origin`); the managed CNAME's target. */
  fallbackOrigin: string;
  /** The edge's addresses (`--edge-addresses`): the managed A/AAAA at a zone apex, where no CNAME can be. */
  edgeAddresses: string[];
  log: Logger;
  /** How often every pending and active hostname is judged again. Default a minute (spec part 8). */
  intervalMs?: number;
  /** A pending row never verified is deleted this long after it was added. Default 7 days. */
  pendingTtlMs?: number;
  /** While the edge validates a certificate, how often it is asked again. */
  certificatePollMs?: number;
}

export interface HostnameReconciler extends Reconciler {
  /** verifyHostname's judgement, now: a row another organization's zone overrules is released (as is an active row
   * whose zone proof went with its zone); else finalizer state, expiry, proofs, activation and the recorded status of
   * a pending row, and an active row is left as it is. Resolves within the resolver's timeout; never throws for DNS. */
  verify(name: string): Promise<void>;
}

/** Passes at once in the hostname runner: a pass waits on the resolver (two questions a name), not on the CPU,
 * and 10,000 names must be judged well within the minute. */
export const HOSTNAME_CONCURRENCY = 64;
export const VERIFY_INTERVAL_MS = 60_000;
/** How often at most the hostnames under one zone are looked up again for its changes (a lone change: at once). */
const ZONE_WATCH_SPACING_MS = 250;
export const PENDING_TTL_MS = 7 * 24 * 3_600_000;
const CERTIFICATE_POLL_MS = 5_000;
/** The TTL of managed records: short, so that a deleted hostname stops pointing at the edge soon. */
const MANAGED_TTL = 300;
/** The types a hostname's managed record may have. */
const MANAGED_TYPES = ['CNAME', 'A', 'AAAA'] as const;

const PROOFS: Record<Proof, { reason: string; message: (host: string) => string }> = {
  zone: { reason: 'ZoneOwned', message: () => 'the name lies in a zone the organization runs on the service, delegated to its nameservers' },
  txt: { reason: 'TxtRecord', message: (host) => `the TXT record at _service-verify.${host} holds the token` },
  cname: { reason: 'Cname', message: () => 'the name is a CNAME to the organization\'s origin under the fallback origin' },
};
const verifiedBy = (proof: Proof, host: string): Judged => ({ type: 'Verified', status: 'True', reason: PROOFS[proof].reason, message: PROOFS[proof].message(host) });

/** What the proofs saw: the one that passed, or each one's finding in words. */
interface Judgement { proof: Proof | null; findings: string[] }

const quoted = (values: string[]): string => values.map((v) => `'${v}'`).join(', ');
/** Where a CNAME points, as the tenant may read it: its targets only when all are in public DNS. */
const pointsTo = (targets: string[]): string => (targets.every(inPublicDns) ? `points to ${targets.join(', ')}` : 'points elsewhere');
// The tenant reads this (lastError, the Verified condition): "the resolver", not the address of the service's own.
const failure = (e: unknown): string => (e instanceof ResolverError ? e.unnamed : `the lookup failed (${(e as Error).message})`);

/** Why the findings of a name outside public DNS say only that its proof is missing. */
export const notShown = (name: string): string =>
  `${name} is outside public DNS (no ICANN top-level domain), so what its names hold is not shown here; the operators' log has it at debug level`;

/** What a lookup said, whole, for the operators' log (debug): the resolver's address and the values included. */
const said = (l: PromiseSettledResult<Lookup>): string => {
  if (l.status === 'rejected') return (l.reason as Error).message;
  return l.value.kind === 'records' ? l.value.values.join(', ') : l.value.kind === 'nxdomain' ? 'NXDOMAIN' : 'no record';
};

/**
 * The finding of a lookup (`what`) at `name` that did not pass, as a tenant reads it: `absent` for a name that does not exist,
 * has no record of the type, or is outside public DNS whatever it has (telling those apart would tell which internal
 * names exist); else what is seen, by `seen`, which echoes values only where they cannot come from a private view.
 */
function finding(what: string, name: string, looked: PromiseSettledResult<Lookup>, absent: string, seen: (values: string[]) => string): string {
  if (looked.status === 'rejected') return `${what}: ${failure(looked.reason)}`;
  const l = looked.value;
  return l.kind === 'records' && inPublicDns(name) ? seen(l.values) : absent;
}

export function hostnameReconciler(d: HostnameReconcilerDeps): HostnameReconciler {
  const intervalMs = d.intervalMs ?? VERIFY_INTERVAL_MS;
  const pendingTtlMs = d.pendingTtlMs ?? PENDING_TTL_MS;
  const certificatePollMs = d.certificatePollMs ?? CERTIFICATE_POLL_MS;
  const edgeV4 = d.edgeAddresses.filter((a) => !a.includes(':'));
  const edgeV6 = d.edgeAddresses.filter((a) => a.includes(':'));

  /** Verification of one name runs one at a time, whether the loop or verifyHostname asked for it: two would
   * both judge and race to record. */
  const serially = keyedSerial();

  const ours = new Set(d.nameservers.map((n) => n.toLowerCase().replace(/\.$/, '')));
  /** A zone anyone may create here proves nothing by itself: only one public DNS delegates to our nameservers
   * does (the registrant put it there). Null when it is delegated; else what is seen, in words, as in `finding`:
   * the nameservers of a zone outside public DNS are never shown, nor ones outside public DNS. */
  const undelegated = async (zone: string): Promise<string | null> => {
    try {
      const ns = await d.resolver.ns(zone);
      if (ns.length > 0 && ns.every((h) => ours.has(h))) return null;
      d.log.debug({ zone, ns }, 'a zone of the organization is not delegated to the service\'s nameservers');
      const expected = [...ours].join(', ');
      return ns.length > 0 && inPublicDns(zone)
        ? `zone ${zone} is yours here, but public DNS delegates it to ${ns.every(inPublicDns) ? ns.join(', ') : 'other nameservers'}, expected ${expected}`
        : `zone ${zone} is yours here, but public DNS does not delegate it to ${expected}`;
    } catch (e) {
      d.log.debug({ zone, err: (e as Error).message }, 'the delegation of a zone of the organization could not be looked up');
      return `NS of zone ${zone}: ${failure(e)}`;
    }
  };

  /** The two proofs a name's own records give: the TXT with the row's token, or a CNAME to its organization's origin.
   * `looked`: both lookups answered, so that no proof is a finding rather than a failure. */
  const recordProof = async (h: HostnameToReconcile) => {
    const [txt, cname] = await Promise.allSettled([d.resolver.txt(verifyName(h.name)), d.resolver.cname(h.name)]);
    const proof: Proof | null = txt.status === 'fulfilled' && txt.value.kind === 'records' && txt.value.values.includes(h.token!) ? 'txt'
      : cname.status === 'fulfilled' && cname.value.kind === 'records' && cname.value.values.includes(orgOrigin(d.fallbackOrigin, h.orgId)) ? 'cname'
        : null;
    return { proof, txt, cname, looked: txt.status === 'fulfilled' && cname.status === 'fulfilled' };
  };

  /**
   * Why a row must go whatever its status (releaseHostname), or null while it stands. A name inside a zone here that
   * public DNS delegates to the service is the zone's organization's: another organization's row stands only while
   * the zone's records prove it (the zone's owner wrote that organization's token, or pointed the name at its origin);
   * an active row proven by its zone stands only while its organization runs that zone here, or its records prove it
   * now. Never on a lookup that failed: a resolver outage releases nothing.
   */
  const overruled = async (h: HostnameToReconcile): Promise<{ zone: string | null; why: string } | null> => {
    const zone = await zoneHolding(d.store, h.name);
    const foreign = !!zone && zone.orgId !== h.orgId && (await undelegated(zone.name)) === null;
    const zoneGone = h.status === 'active' && h.proof === 'zone' && (!zone || zone.orgId !== h.orgId);
    if (!foreign && !zoneGone) return null;
    const r = await recordProof(h);
    if (r.proof || !r.looked) return null;
    return foreign
      ? { zone: zone!.name, why: `${h.name} lies in zone ${zone!.name} of another organization, whose records do not prove it for this one` }
      : { zone: null, why: `${h.name} was proven by a zone of the organization that it no longer runs here, and its records do not prove it` };
  };

  const judge = async (h: HostnameToReconcile): Promise<Judgement> => {
    const zone = await zoneHolding(d.store, h.name);
    const zoneFinding = zone && zone.orgId === h.orgId ? await undelegated(zone.name) : undefined;
    if (zoneFinding === null) return { proof: 'zone', findings: [] };
    const txtAt = verifyName(h.name);
    const origin = orgOrigin(d.fallbackOrigin, h.orgId);
    const { proof, txt, cname } = await recordProof(h);
    if (proof) return { proof, findings: [] };
    d.log.debug({ hostname: h.name, txt: said(txt), cname: said(cname) }, 'no ownership proof of a custom hostname passes');
    return {
      proof: null,
      findings: [
        ...(zoneFinding ? [zoneFinding] : []),
        finding(`TXT at ${txtAt}`, txtAt, txt, `no TXT record with the token '${h.token}' at ${txtAt}`, (v) => `TXT at ${txtAt} has ${quoted(v)}, expected '${h.token}'`),
        finding(`CNAME of ${h.name}`, h.name, cname, `no CNAME to ${origin} at ${h.name}`, (v) => `CNAME of ${h.name} ${pointsTo(v)}, expected ${origin}`),
        // Said of the name alone, so it tells nothing of what the resolver knows: the owner of a local name (`.test`)
        // learns why its findings say so little, and where to look.
        ...(inPublicDns(h.name) ? [] : [notShown(h.name)]),
      ],
    };
  };

  /** Whether public DNS points the name to us: a CNAME to the fallback origin (the shared one the managed records
   * use, or the organization's), or only the edge's addresses. What else is seen reads as in `finding`. */
  const resolves = async (name: string, orgId: number): Promise<Judged> => {
    const base = { type: 'Resolves' };
    const expected = `expected a CNAME to ${d.fallbackOrigin}`;
    /** `seen`: what the name has, in the tenant's words, or null when it has neither a CNAME nor an address. */
    const elsewhere = (seen: string | null, detail: string): Judged => {
      d.log.debug({ hostname: name, seen: detail }, 'a custom hostname does not point to the edge');
      return seen !== null && inPublicDns(name)
        ? { ...base, status: 'False', reason: 'PointsElsewhere', message: `${seen}, ${expected}` }
        : { ...base, status: 'False', reason: 'NoRecord', message: `no CNAME to ${d.fallbackOrigin} and none of the edge's addresses at ${name}` };
    };
    try {
      const cname = await d.resolver.cname(name);
      if (cname.kind === 'records') {
        return cname.values.some((v) => v === d.fallbackOrigin || v === orgOrigin(d.fallbackOrigin, orgId))
          ? { ...base, status: 'True', reason: 'PointsToEdge', message: `${name} is a CNAME to ${d.fallbackOrigin}` }
          : elsewhere(`CNAME of ${name} ${pointsTo(cname.values)}`, `CNAME ${cname.values.join(', ')}`);
      }
      const addresses = cname.kind === 'nxdomain' ? cname : await d.resolver.addresses(name);
      if (addresses.kind !== 'records') return elsewhere(null, addresses.kind === 'nxdomain' ? 'NXDOMAIN' : 'no CNAME and no address');
      if (d.edgeAddresses.length > 0 && addresses.values.every((a) => d.edgeAddresses.includes(a))) {
        return { ...base, status: 'True', reason: 'PointsToEdge', message: `${name} resolves to the edge's addresses (${addresses.values.join(', ')})` };
      }
      const shown = addresses.values.every(isPublicAddress) ? addresses.values.join(', ') : 'other addresses';
      return elsewhere(`${name} resolves to ${shown}`, addresses.values.join(', '));
    } catch (e) {
      d.log.debug({ hostname: name, err: (e as Error).message }, 'a custom hostname\'s Resolves could not be judged');
      return { ...base, status: 'Unknown', reason: 'ResolverFailed', message: `${name}: ${failure(e)}` };
    }
  };

  /** Records what a pass judged of `h`, at its generation. */
  const record = (h: HostnameToReconcile, p: { set: Judged[]; drop?: string[]; facts?: Partial<HostnameFacts>; lastError: string | null }): Promise<boolean> =>
    recordStatus(d.store, HOSTNAME_STATUS, h.name, { uid: h.uid, generation: h.generation, ...p });

  const ready = (status: Judged['status'], reason: string, message: string): Judged => ({ type: 'Ready', status, reason, message });

  /** Removes the managed records of a name in the organization's zone (a deleted lifetime's). A customer's
   * rrset there is not ours to remove. */
  const removeRecords = async (name: string, orgId: number, keep: readonly string[] = []): Promise<void> => {
    const zone = await zoneHolding(d.store, name);
    if (!zone || zone.orgId !== orgId) return;
    const ours = (await rrsetsAtName(d.store, zone.name, name)).filter((r) => r.managedBy === 'app' && MANAGED_TYPES.includes(r.type as never) && !keep.includes(r.type));
    for (const r of ours) await deleteManagedRRset(d.store, { zone: zone.name, name, type: r.type, managedBy: 'app', actor: 'system' });
  };

  /** Step 1: answers the failure that keeps a lifetime from being cleaned up, or null when all are done. */
  const finalize = async (name: string): Promise<string | null> => {
    let failed: string | null = null;
    for (const f of await finalizersOf(d.store, 'hostname', name)) {
      try {
        await d.edge.remove(name, f.uid);
        await removeRecords(name, f.orgId);
        await finishFinalizer(d.store, 'hostname', f.uid);
      } catch (e) {
        // This process no longer leads: the cleanup is the new leader's, not a failure to retry here.
        if (e instanceof FencedError) throw e;
        failed = (e as Error).message;
        d.log.warn({ hostname: name, uid: f.uid, err: failed }, 'cleanup of a deleted hostname failed; retrying');
      }
    }
    return failed;
  };

  /** Step 2 for a pending row, recorded. Answers whether the row is active now. */
  const verifyPending = async (h: HostnameToReconcile, waitingFor: string | null): Promise<boolean> => {
    if (d.store.clock().getTime() - Date.parse(h.createdAt) >= pendingTtlMs) {
      await expireHostname(d.store, { name: h.name, uid: h.uid });
      return false;
    }
    const j = await judge(h);
    if (j.proof && waitingFor === null && (await activateHostname(d.store, { name: h.name, uid: h.uid, proof: j.proof }))) {
      // What verifyHostname answers until the routing step has run: verified, nothing in the way any more.
      const active = await hostnameByName(d.store, h.name);
      if (active?.uid === h.uid) {
        await record(active, { set: [verifiedBy(j.proof, h.name), ready('False', 'Activating', 'verified; the edge provider is being given the hostname')], lastError: null });
      }
      return true;
    }
    const verified: Judged = j.proof
      ? verifiedBy(j.proof, h.name)
      : { type: 'Verified', status: 'False', reason: 'NoProof', message: j.findings.join('; ') };
    const lastError = waitingFor !== null ? `the previous holder of ${h.name} is still being removed from the edge: ${waitingFor}` : j.findings.join('; ');
    await record(h, {
      set: [verified, waitingFor !== null
        ? ready('False', 'WaitingForCleanup', lastError)
        : ready('False', 'PendingVerification', 'no ownership proof passes yet; the hostname is not routed')],
      lastError,
    });
    return false;
  };

  /** The managed record of an active hostname: the condition that says what was done, and the fact. */
  const route = async (h: HostnameToReconcile): Promise<{ cond: Judged | null; record: HostnameFacts['record'] }> => {
    const zone = await zoneHolding(d.store, h.name);
    if (!zone || zone.orgId !== h.orgId) return { cond: null, record: null };
    const apex = zone.name === h.name;
    const desired: Record<string, string[]> = apex
      ? { ...(edgeV4.length && { A: edgeV4 }), ...(edgeV6.length && { AAAA: edgeV6 }) }
      : { CNAME: [d.fallbackOrigin] };
    const base = { type: 'ManagedRecord' };
    if (Object.keys(desired).length === 0) {
      await removeRecords(h.name, h.orgId);
      return {
        cond: { ...base, status: 'False', reason: 'NoEdgeAddresses', message: `${h.name} is the apex of zone ${zone.name}, where no CNAME can be, and the service has no edge addresses for A/AAAA records` },
        record: null,
      };
    }
    const at = await rrsetsAtName(d.store, zone.name, h.name);
    // A CNAME shares its name with nothing; A/AAAA are in the way only of the same types.
    const inTheWay = at.filter((r) => r.managedBy !== 'app' && (desired.CNAME ? true : r.type in desired || r.type === 'CNAME'));
    const blocked = (rrs: { type: string }[]): { cond: Judged; record: null } => ({
      cond: {
        ...base, status: 'False', reason: 'CustomerRRset',
        message: `${h.name} ${rrs.map((r) => r.type).join(', ')} in zone ${zone.name} is in the way: the hostname is active without a record of the service; delete that rrset for the service to manage it`,
      },
      record: null,
    });
    if (inTheWay.length > 0) return blocked(inTheWay);
    try {
      for (const [type, values] of Object.entries(desired)) {
        await putManagedRRset(d.store, {
          zone: zone.name, rrset: { name: h.name, type: type as 'A', ttl: MANAGED_TTL, records: values.map((content) => ({ content })) }, managedBy: 'app', actor: 'system',
        });
      }
      await removeRecords(h.name, h.orgId, Object.keys(desired));
    } catch (e) {
      // The customer wrote an rrset there since it was read: theirs wins.
      if (e instanceof AppError && e.status === 409) return blocked(await rrsetsAtName(d.store, zone.name, h.name).then((rs) => rs.filter((r) => r.managedBy !== 'app')));
      throw e;
    }
    const text = Object.entries(desired).map(([t, v]) => `${t} ${v.join(', ')}`).join('; ');
    return { cond: { ...base, status: 'True', reason: 'Written', message: `${h.name} ${text} in zone ${zone.name}` }, record: { zone: zone.name, types: Object.keys(desired) } };
  };

  /** Step 3 for an active row, recorded. */
  const converge = async (h: HostnameToReconcile): Promise<Result> => {
    const managed = await route(h);
    const resolving = await resolves(h.name, h.orgId);
    const routing = [verifiedBy(h.proof ?? 'txt', h.name), managed.cond, resolving].filter((c): c is Judged => c !== null);
    const drop = managed.cond ? [] : ['ManagedRecord'];
    let edge;
    try {
      edge = await d.edge.ensure(h.name, h.uid);
    } catch (e) {
      // Not the edge's failure: this process no longer leads, and the status is the new leader's to write.
      if (e instanceof FencedError) throw e;
      const message = (e as Error).message;
      await record(h, {
        set: [
          ...routing,
          { type: 'EdgeConfigured', status: 'False', reason: 'EdgeUnavailable', message: `${message}; retrying` },
          { type: 'CertificateReady', status: 'Unknown', reason: 'EdgeUnavailable', message: 'the edge provider could not be asked' },
          ready('False', 'EdgeUnavailable', 'the hostname is verified; the edge provider has not taken it yet'),
        ],
        drop,
        facts: { record: managed.record },
        lastError: message,
      });
      throw e;
    }
    const issued = edge.certificate === 'active';
    await record(h, {
      set: [
        ...routing,
        { type: 'EdgeConfigured', status: 'True', reason: 'Registered', message: `the edge provider routes ${h.name}` },
        issued
          ? { type: 'CertificateReady', status: 'True', reason: 'Issued', message: 'the edge serves a certificate for the hostname' }
          : { type: 'CertificateReady', status: 'False', reason: 'PendingValidation', message: 'the edge is validating the hostname and issuing its certificate' },
        issued ? ready('True', 'Active', `${h.name} is routed to the project over HTTPS`) : ready('False', 'CertificatePending', 'routed once the edge has issued the certificate'),
      ],
      drop,
      facts: { edge: { id: edge.id, certificate: edge.certificate }, record: managed.record },
      lastError: null,
    });
    return { requeueAfterMs: issued ? intervalMs : Math.min(intervalMs, certificatePollMs) };
  };

  /** Releases the lifetime `uid` of `name` when it is overruled; answers whether it did. Run serially per name. */
  const release = async (name: string, uid: string): Promise<boolean> => {
    const h = await hostnameByName(d.store, name);
    if (!h || h.uid !== uid || h.kind !== 'custom') return false;
    const o = await overruled(h);
    if (!o) return false;
    const released = await releaseHostname(d.store, { name, uid, ...o });
    if (released) d.log.info({ hostname: name, zone: o.zone, why: o.why }, 'a custom hostname was released');
    return released;
  };

  return {
    kind: 'hostname',
    concurrency: HOSTNAME_CONCURRENCY,
    watches: [
      identityWatch('hostname'),
      // A zone created, deleted or changed may pass or fail the zone proof and moves managed records. Finding the
      // names under a zone is a query: under a stream of writes to one zone it runs at most every ZONE_WATCH_SPACING_MS.
      { kind: 'zone', keys: (zone) => hostnamesUnder(d.store, zone), spacingMs: ZONE_WATCH_SPACING_MS },
    ],
    keys: () => allHostnameKeys(d.store),
    async reconcile(name): Promise<Result> {
      const cleanup = await finalize(name);
      let h = await hostnameByName(d.store, name);
      if (!h || h.kind !== 'custom') {
        if (!h) await dropStatus(d.store, 'hostname', name);
        if (cleanup !== null) throw new Error(`cleanup of ${name}: ${cleanup}`);
        return {};
      }
      // A pending row goes only when it is asked to be judged (verify: the zone's owner adding the name, or the row's
      // own verifyHostname): released at the pass its add wakes, it could never be proven by the TXT of its token,
      // which the zone's owner can write only once the add has answered it.
      if (h.status === 'active' && (await serially(name, () => release(name, h!.uid)))) {
        if (cleanup !== null) throw new Error(`cleanup of ${name}: ${cleanup}`);
        return { requeueAfterMs: 0 };
      }
      if (h.status === 'pending_dns') {
        let activated = false;
        await serially(name, async () => {
          const fresh = await hostnameByName(d.store, name);
          if (fresh?.uid === h!.uid && fresh.status === 'pending_dns') activated = await verifyPending(fresh, cleanup);
        });
        if (cleanup !== null) throw new Error(`cleanup of ${name}: ${cleanup}`);
        if (!activated) return { requeueAfterMs: intervalMs };
        h = await hostnameByName(d.store, name);
        if (!h || h.status !== 'active') return {};
      }
      return converge(h);
    },
    async verify(name) {
      await serially(name, async () => {
        const h = await hostnameByName(d.store, name);
        if (!h || h.kind !== 'custom' || (await release(name, h.uid)) || h.status !== 'pending_dns') return;
        const waiting = (await finalizersOf(d.store, 'hostname', name)).length > 0;
        await verifyPending(h, waiting ? 'cleanup in progress' : null);
      });
    },
  } satisfies HostnameReconciler;
}
