/** `admin status` for people (issue 20 item 4): a table per kind of resource, every condition with its reason,
 * and each last error in full after the tables; `--json` is the same data unchanged. */
import { describe, expect, it } from 'vitest';
import { StatusReport, type StatusData } from '../../cli/status';
import type { Condition } from '../../lib/conditions';

const AT = '2026-11-26T10:00:00Z';
const cond = (type: string, status: Condition['status'], reason: string): Condition =>
  ({ type, status, reason, message: '', observedGeneration: 1, lastTransitionTime: AT });

const data: StatusData = {
  changeSeq: 42,
  leader: { url: 'http://10.0.0.2:8080', term: 3, since: AT, renewedAt: AT, expiresAt: '2026-11-26T10:00:15.000Z' },
  processes: [
    { holder: 'a:/srv/hp', url: 'http://10.0.0.1:8080', pid: 41, startedAt: AT, heartbeatAt: AT, leader: false },
    { holder: 'b:/srv/hp', url: 'http://10.0.0.2:8080', pid: 52, startedAt: AT, heartbeatAt: AT, leader: true },
  ],
  zones: [{
    zone: 'example.com', generation: 3, observedGeneration: 2, ready: false, conditions: [cond('Ready', 'False', 'NameserverDown')], desiredSerial: 2026112603,
    servedSerial: 2026112602, secondaries: [{ address: '192.0.2.53:53', serial: null }], lastError: 'knotc: connection refused (/data/knot/knot.sock)', reconciledAt: AT,
  }],
  hostnames: [{
    hostname: 'www.customer.com', org: 'acme', project: 'blog', status: 'active', generation: 1, observedGeneration: 1, ready: true,
    conditions: [cond('Ready', 'True', 'Routed')], lastError: null, reconciledAt: AT,
  }],
  hostnameFinalizers: [{ uid: 'u1', name: 'old.customer.com', orgId: 1, deletedAt: AT }],
  nodes: [{
    nodeId: 'node-1', desiredVersion: 9, appliedVersion: 7, lastReportAt: AT, conditions: [cond('Applied', 'False', 'OlderBundle'), cond('Stale', 'False', 'Reporting')],
    pendingSecrets: [{ org: 'acme', project: 'blog', name: 'STRIPE_KEY', version: 2 }, { org: 'acme', project: 'blog', name: 'DB_URL', version: 1 }],
  }],
  domains: [{ domain: 'bought.com', status: 'active', expiresAt: '2027-11-26T10:00:00Z', syncedAt: AT, conditions: [cond('Synced', 'True', 'Synced')], lastError: null }],
  projects: {
    unplaced: [{ org: 'acme', project: 'shop' }],
    deleting: [{ org: 'acme', project: 'old', deletingSince: AT, cleanup: { hostnames: ['www.old.test'], nodes: ['node-1', 'node-2'] } }],
  },
};

describe('StatusReport', () => {
  const text = new StatusReport(data).text();

  it('prints each kind as aligned columns, observed before desired, conditions with their reasons', () => {
    expect(text).toBe([
      'change feed at 42',
      `leader http://10.0.0.2:8080 (term 3, since ${AT})`,
      '',
      'PROCESSES',
      'PROCESS    URL                   PID  LEADER  LAST HEARTBEAT',
      `a:/srv/hp  http://10.0.0.1:8080  41   no      ${AT}`,
      `b:/srv/hp  http://10.0.0.2:8080  52   yes     ${AT}`,
      '',
      'ZONES',
      'NAME         READY  OBSERVED/GENERATION  SERIAL      SERVED                      CONDITIONS',
      'example.com  no     2/3                  2026112603  2026112602,192.0.2.53:53=-  Ready=False (NameserverDown)',
      '',
      'HOSTNAMES',
      'NAME              PROJECT    STATUS  READY  CONDITIONS',
      'www.customer.com  acme/blog  active  yes    Ready=True (Routed)',
      '',
      'DELETED HOSTNAMES NOT YET CLEANED UP',
      'NAME              DELETED',
      `old.customer.com  ${AT}`,
      '',
      'NODES',
      'NODE    APPLIED/BUNDLE  LAST REPORT           CONDITIONS                                            SECRETS NOT RUNNING YET',
      `node-1  7/9             ${AT}  Applied=False (OlderBundle), Stale=False (Reporting)  acme/blog/STRIPE_KEY@2,acme/blog/DB_URL@1`,
      '',
      'DOMAINS',
      'NAME        STATUS  EXPIRES               SYNCED                CONDITIONS',
      `bought.com  active  2027-11-26T10:00:00Z  ${AT}  Synced=True (Synced)`,
      '',
      'PROJECTS ON NO NODE',
      'PROJECT',
      'acme/shop',
      '',
      'PROJECTS BEING DELETED',
      'PROJECT   SINCE                 WAITS FOR',
      `acme/old  ${AT}  hostname www.old.test,node node-1,node node-2`,
      '',
      'LAST ERRORS',
      'zone example.com: knotc: connection refused (/data/knot/knot.sock)',
    ].join('\n'));
  });

  it('says (none) for an empty kind and leaves out the sections that would be empty extras', () => {
    const empty = new StatusReport({ changeSeq: 0, leader: null, processes: [], zones: [], hostnames: [], hostnameFinalizers: [], nodes: [], domains: [], projects: { unplaced: [], deleting: [] } }).text();
    expect(empty).toBe('change feed at 0\nleader: none (no process holds the lease)\n\nPROCESSES\n(none)\n\nZONES\n(none)\n\nHOSTNAMES\n(none)\n\nNODES\n(none)\n\nDOMAINS\n(none)');
  });

  it('--json is the status data unchanged', () => {
    expect(new StatusReport(data).json()).toBe(data);
  });
});
