/** `admin status` for people: a table per kind of resource and the failures in full after them; `--json` prints
 * what `readStatus` answers, unchanged, for machines. */
import type { Condition } from '../lib/conditions';
import type { readStatus } from '../store/read-model';
import { Listing } from './listing';

export type StatusData = Awaited<ReturnType<typeof readStatus>>;

/** `Ready=False (NameserverDown)`: the reason always, since whether True is good depends on the type (`Stale`). */
export const conditionsCell = (conditions: readonly Condition[]): string =>
  conditions.map((c) => `${c.type}=${c.status} (${c.reason})`).join(', ');

const yesNo = (b: boolean): string => (b ? 'yes' : 'no');

export class StatusReport {
  constructor(readonly data: StatusData) {}

  json(): StatusData {
    return this.data;
  }

  text(): string {
    const d = this.data;
    const section = (title: string, l: Listing): string => `${title}\n${l.rows.length === 0 ? '(none)' : l.text()}`;
    const failures = [
      ...d.zones.map((z) => ['zone', z.zone, z.lastError] as const),
      ...d.hostnames.map((h) => ['hostname', h.hostname, h.lastError] as const),
      ...d.domains.map((x) => ['domain', x.domain, x.lastError] as const),
    ].filter(([, , e]) => e !== null).map(([kind, name, e]) => `${kind} ${name}: ${e}`);
    const parts = [
      `change feed at ${d.changeSeq}\n${d.leader ? `leader ${d.leader.url} (term ${d.leader.term}, since ${d.leader.since})` : 'leader: none (no process holds the lease)'}`,
      section('PROCESSES', new Listing(
        [['PROCESS', 'holder'], ['URL', 'url'], ['PID', 'pid'], ['LEADER', 'leader'], ['LAST HEARTBEAT', 'heartbeatAt']],
        d.processes.map((p) => ({ ...p, leader: yesNo(p.leader) })),
      )),
      section('ZONES', new Listing(
        [['NAME', 'zone'], ['READY', 'ready'], ['OBSERVED/GENERATION', 'generation'], ['SERIAL', 'serial'], ['SERVED', 'served'], ['CONDITIONS', 'conditions']],
        d.zones.map((z) => ({
          zone: z.zone, ready: yesNo(z.ready), generation: `${z.observedGeneration ?? '-'}/${z.generation}`, serial: z.desiredSerial,
          served: [z.servedSerial, ...z.secondaries.map((s) => `${s.address}=${s.serial ?? '-'}`)].filter((x) => x !== null),
          conditions: conditionsCell(z.conditions),
        })),
      )),
      section('HOSTNAMES', new Listing(
        [['NAME', 'hostname'], ['PROJECT', 'project'], ['STATUS', 'status'], ['READY', 'ready'], ['CONDITIONS', 'conditions']],
        d.hostnames.map((h) => ({ hostname: h.hostname, project: `${h.org}/${h.project}`, status: h.status, ready: yesNo(h.ready), conditions: conditionsCell(h.conditions) })),
      )),
      ...(d.hostnameFinalizers.length === 0 ? [] : [section('DELETED HOSTNAMES NOT YET CLEANED UP', new Listing([['NAME', 'name'], ['DELETED', 'deletedAt']], d.hostnameFinalizers.map((f) => ({ ...f }))))]),
      section('NODES', new Listing(
        [['NODE', 'nodeId'], ['APPLIED/BUNDLE', 'bundle'], ['LAST REPORT', 'lastReportAt'], ['CONDITIONS', 'conditions'], ['SECRETS NOT RUNNING YET', 'pending']],
        d.nodes.map((n) => ({
          nodeId: n.nodeId, bundle: `${n.appliedVersion ?? '-'}/${n.desiredVersion}`, lastReportAt: n.lastReportAt, conditions: conditionsCell(n.conditions),
          pending: n.pendingSecrets.map((p) => `${p.org}/${p.project}/${p.name}@${p.version}`),
        })),
      )),
      section('DOMAINS', new Listing(
        [['NAME', 'domain'], ['STATUS', 'status'], ['EXPIRES', 'expiresAt'], ['SYNCED', 'syncedAt'], ['CONDITIONS', 'conditions']],
        d.domains.map((x) => ({ ...x, conditions: conditionsCell(x.conditions) })),
      )),
      ...(d.projects.unplaced.length === 0 ? [] : [section('PROJECTS ON NO NODE', new Listing([['PROJECT', 'project']], d.projects.unplaced.map((p) => ({ project: `${p.org}/${p.project}` }))))]),
      ...(d.projects.deleting.length === 0 ? [] : [section('PROJECTS BEING DELETED', new Listing(
        [['PROJECT', 'project'], ['SINCE', 'since'], ['WAITS FOR', 'waits']],
        d.projects.deleting.map((p) => ({ project: `${p.org}/${p.project}`, since: p.deletingSince, waits: [...p.cleanup.hostnames.map((h) => `hostname ${h}`), ...p.cleanup.nodes.map((n) => `node ${n}`)] })),
      ))]),
      ...(failures.length === 0 ? [] : [`LAST ERRORS\n${failures.join('\n')}`]),
    ];
    return parts.join('\n\n');
  }
}
