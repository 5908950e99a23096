/**
 * Issue 7 item 2 through `serve`: a zone is Ready only while what knotd serves was checked. A knotd that
 * restarts behind serve's back and cannot load a zone file (changed on disk meanwhile) is noticed at once:
 * the zone reads not Ready, and the reconciler applies it again until it is served.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../harness/dns';
import { freePort, hasKnot, knotTitle } from '../helpers/knot';
import { bootstrapWithCli, cleanup, http, startHostplane, tempDir, type Running } from '../helpers/proc';

async function eventually<T>(fn: () => Promise<T>, check: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last = await fn();
  while (!check(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    last = await fn();
  }
  return last;
}

describe.skipIf(!hasKnot())(knotTitle('drift between knotd and the store'), () => {
  let serve: Running;
  let token: string;
  let dir: string;
  let dns: { host: string; port: number };
  const zone = '/v1/orgs/acme/dns/zones/drift.example';
  const status = async () => (await http(serve.url, 'GET', zone, { token })).body.status;
  const answer = async () => {
    const r = await query(dns, 'www.drift.example', 'A').catch(() => undefined);
    return r ? { rcode: r.rcode, a: (r.answers ?? []).flatMap((x) => (x.type === 'A' ? [x.data] : [])) } : { rcode: 'no answer', a: [] };
  };

  beforeAll(async () => {
    dir = tempDir();
    token = await bootstrapWithCli(dir);
    dns = { host: '127.0.0.1', port: await freePort() };
    serve = await startHostplane(['serve', '--port', '0', '--data', dir, '--dns-listen', `127.0.0.1:${dns.port}`]);
    expect((await http(serve.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: 'drift.example' } })).status).toBe(200);
    expect((await http(serve.url, 'PUT', `${zone}/rrsets/www.drift.example/A`, { token, body: { records: [{ content: '192.0.2.5' }] } })).status).toBe(200);
  });
  afterAll(cleanup);

  it('a knotd restarted on a zone file it cannot load: not Ready at once, then applied again and served', async () => {
    expect((await eventually(status, (s) => s.ready)).ready).toBe(true);
    expect(await answer()).toEqual({ rcode: 'NOERROR', a: ['192.0.2.5'] });
    appendFileSync(join(dir, 'zones', 'drift.example.zone'), 'garbage line here !!!\n');
    const knotd = execFileSync('pgrep', ['-f', `${join(dir, 'knot', 'knot.conf')}$`], { encoding: 'utf8' }).trim().split('\n')[0]!;
    process.kill(Number(knotd), 'SIGKILL');
    // Well before the ten-minute resync: the restart itself makes every zone be checked.
    const back = await eventually(answer, (r) => r.rcode === 'NOERROR' && r.a.length === 1, 15_000);
    expect(back).toEqual({ rcode: 'NOERROR', a: ['192.0.2.5'] });
    const st = await eventually(status, (s) => s.ready, 5_000);
    expect(st.ready).toBe(true);
    expect(serve.stderr()).toMatch(/does not serve this version of the zone|not the applied/);
  }, 40_000);
});
