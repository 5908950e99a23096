/**
 * --advertise-url (issue 23; docs/deployment.md "The replica token"): the leader lease names the URL the other
 * processes reach a process at, which for a --host of every address (0.0.0.0) is not the one it listens on, and the
 * followers send their forwarded calls there.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresMissing } from '../../harness/postgres';
import { leadsAt } from '../../harness/replicas';
import { countingProxy, type CountingProxy } from '../helpers/counting-proxy';
import { adminJson, bootstrapInStore, cleanup, http, startHostplane, tempDir, until } from '../helpers/proc';
import { databaseUrlFor, onPostgres } from '../helpers/store';

interface Status { leader: { url: string } | null; processes: { url: string }[] }

afterAll(cleanup);

describe('a serve listening on every address (the embedded store, or the test pass\'s database)', () => {
  it('names its --advertise-url in the lease and in admin status, not 0.0.0.0', async () => {
    const data = tempDir('hostplane-advertise-');
    const serve = await startHostplane(['serve', '--host', '0.0.0.0', '--port', '0', '--data', data, '--dns', 'off', '--advertise-url', 'http://192.0.2.10:8080/']);
    expect(serve.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    const status = await until('the lease', async () => {
      const s = await adminJson<Status>(data, 'status', '--json');
      return s.leader !== null && s;
    });
    expect(status.leader!.url).toBe('http://192.0.2.10:8080');
    expect(status.processes.map((p) => p.url)).toEqual(['http://192.0.2.10:8080']);
    await serve.stop();
  }, 60_000);
});

const skipped = onPostgres() ? postgresMissing() : 'needs two processes on one PostgreSQL: runs in the PostgreSQL pass (HOSTPLANE_TEST_STORE=postgres)';

describe.skipIf(skipped)(`a follower forwarding to a leader on every address${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let proxy: CountingProxy | undefined;
  afterAll(() => proxy?.close());

  it('sends its forwarded calls to the leader\'s --advertise-url', async () => {
    const base = tempDir('hostplane-advertise-pg-');
    const { token } = await bootstrapInStore(base, 'n1');
    const url = await databaseUrlFor(base);
    const keyFile = join(tempDir('hostplane-advertise-key-'), 'sealing.key');
    let leaderUrl = '';
    // In front of the leader, so that the test sees which of its URLs the follower calls.
    proxy = await countingProxy(() => leaderUrl);
    const common = ['--port', '0', '--dns', 'off', '--database-url', url, '--sealing-key', keyFile];
    const a = await startHostplane(['serve', '--host', '0.0.0.0', '--data', tempDir('hostplane-advertise-a-'), '--advertise-url', proxy.url, ...common], { timeoutMs: 60_000 });
    leaderUrl = a.url;
    await until('a to lead', () => leadsAt(a.metrics!), 30_000);
    const b = await startHostplane(['serve', '--data', tempDir('hostplane-advertise-b-'), ...common], { timeoutMs: 60_000 });
    const checked = await http(b.url, 'POST', '/v1/orgs/acme/domains/check', { token, body: { names: ['advertised.com'] } });
    expect(checked.status, checked.text).toBe(200);
    expect(checked.body).toMatchObject({ results: [{ name: 'advertised.com', available: true }] });
    expect(proxy.arrivals.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /internal/domain']);
  }, 120_000);
});
