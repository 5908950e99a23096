/** An edge provider that records what it was asked (sample-controller style) and holds hostnames in memory; `down`
 * makes every call fail as an edge outage does. Contract-tested beside the HTTP adapter over the sandbox. */
import { EdgeError, type CertificateStatus, type Edge, type EdgeHostname } from '../../providers/edge/port';

export type EdgeAction = { op: 'ensure' | 'remove'; hostname: string; ref: string };

export class FakeEdge implements Edge {
  actions: EdgeAction[] = [];
  held = new Map<string, EdgeHostname>();
  /** When set, every call fails with this message. */
  down: string | null = null;
  /** What new hostnames' certificates read. */
  certificate: CertificateStatus = 'active';
  private next = 1;

  async ensure(hostname: string, ref: string): Promise<EdgeHostname> {
    this.actions.push({ op: 'ensure', hostname, ref });
    if (this.down) throw new EdgeError(this.down);
    const cur = this.held.get(hostname);
    if (cur && cur.ref === ref) return { ...cur, certificate: this.certificate };
    const h: EdgeHostname = { id: `edge-${this.next++}`, hostname, ref, certificate: this.certificate };
    this.held.set(hostname, h);
    return h;
  }

  async remove(hostname: string, ref: string): Promise<void> {
    this.actions.push({ op: 'remove', hostname, ref });
    if (this.down) throw new EdgeError(this.down);
    if (this.held.get(hostname)?.ref === ref) this.held.delete(hostname);
  }
}
