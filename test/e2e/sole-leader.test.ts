/**
 * `serve` on SQLite is the only process that can lead (the data dir's lock): frozen past the 15 s lease of a
 * shared store (a loaded machine, a long import), it must go on leading in the same term when it wakes, not step
 * down and lead again with its reconcilers and nameserver restarted (store/leader.ts SOLE_CANDIDATE_LEASE).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { metricSum } from '../../harness/replicas';
import { cleanup, runHostplane, startHostplane, tempDir, until } from '../helpers/proc';
import { onPostgres } from '../helpers/store';

const skip = onPostgres() ? 'the PostgreSQL pass: there several processes bid, and test/e2e/leader.test.ts covers the lease' : null;
/** Past LEASE_MS (15 s) and the 10 s deadline at which a shared store's leader steps down. */
const FREEZE_MS = 16_000;

interface Status { leader: { term: number } | null; processes: { heartbeatAt: string }[] }

describe.skipIf(skip !== null)(`serve on SQLite, the sole candidate${skip ? ` (skipped: ${skip})` : ''}`, () => {
  afterAll(cleanup);

  it('keeps leading in the same term after a freeze longer than the lease', async () => {
    const data = tempDir('hostplane-sole-');
    const r = await startHostplane(['serve', '--port', '0', '--data', data, '--dns', 'off', '--registrar', 'off']);
    const status = async (): Promise<Status> => {
      const s = await runHostplane(['admin', '--data', data, 'status', '--json']);
      if (s.code !== 0) throw new Error(s.stderr);
      return JSON.parse(s.stdout) as Status;
    };
    try {
      await until('serve to lead', async () => (await metricSum(r.metrics!, 'hostplane_leader')) === 1, 30_000);
      const term = (await status()).leader!.term;
      r.proc.kill('SIGSTOP');
      // The freeze itself is what is tested, not an order waited for.
      await new Promise((res) => setTimeout(res, FREEZE_MS));
      const thawed = Date.now();
      r.proc.kill('SIGCONT');
      // Its first write after the thaw: a shared store's leader has stepped down by then (its deadline timer is
      // due at once) and its next bid, which records the heartbeat, starts a new term.
      const after = await until('a heartbeat after the thaw', async () => {
        const s = await status();
        return s.processes.some((p) => Date.parse(p.heartbeatAt) > thawed) && s;
      }, 30_000, 200);
      expect(after.leader?.term).toBe(term);
      expect(await metricSum(r.metrics!, 'hostplane_leader')).toBe(1);
      expect(r.stderr()).not.toContain('no longer the leader');
    } finally {
      r.proc.kill('SIGCONT');
      await r.stop();
    }
  }, 120_000);
});
