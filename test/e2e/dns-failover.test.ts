/**
 * DNS across a failover (issue 23 item 3): two `serve` on one PostgreSQL, one sealing key file. The leader's knotd
 * is the hidden primary and the follower's serves nothing; once the leader is killed, the new leader's knotd signs
 * with the same DNSSEC keys (taken from the store, sealed), serves a serial above every one served before, and serves
 * what is written after the failover.
 */
import { join } from 'node:path';
import type { Answer } from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../../harness/dns';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';
import { hasKnot } from '../helpers/knot';
import { cleanup, http, runHostplane, startHostplane, tempDir, until, type Running } from '../helpers/proc';
import { onPostgres } from '../helpers/store';

const skipped = !onPostgres() ? 'runs in the PostgreSQL pass (HOSTPLANE_TEST_STORE=postgres): it needs two serve on one database'
  : postgresMissing() ?? (hasKnot() ? undefined : 'knotd is not installed (apt-get install knot knot-dnsutils knot-dnssecutils)');
if (skipped) process.stderr.write(`SKIPPED "DNS across a failover": ${skipped}\n`);

const ZONE = 'failover.test';

const leads = async (r: Running): Promise<boolean> => {
  const text = await (await fetch(r.metrics!)).text();
  return text.split('\n').some((l) => l === 'hostplane_leader 1');
};

/** The data of the answers of `type`. */
const answers = (r: { answers?: Answer[] }, type: string): unknown[] =>
  (r.answers ?? []).flatMap((a) => (a.type === type && 'data' in a ? [a.data] : []));
/** The DNSKEY set as a validating resolver compares it: flags, algorithm and public key of each key. */
const dnskeys = async (r: Running): Promise<string[]> =>
  answers(await query(r.dns!, ZONE, 'DNSKEY', { dnssecOk: true }), 'DNSKEY').map((data) => {
    const k = data as { flags: number; algorithm: number; key: Buffer };
    return `${k.flags} ${k.algorithm} ${k.key.toString('base64')}`;
  }).sort();
const serial = async (r: Running): Promise<number | undefined> =>
  (answers(await query(r.dns!, ZONE, 'SOA'), 'SOA')[0] as { serial: number } | undefined)?.serial;
const addresses = async (r: Running, name: string): Promise<string[]> => answers(await query(r.dns!, name, 'A'), 'A') as string[];

describe.skipIf(skipped)(`DNS across a failover${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  let cluster: Cluster;
  let databaseUrl: string;
  let keyFile: string;
  let token: string;

  const admin = async (...args: string[]) => {
    const r = await runHostplane(['admin', '--data', tempDir('hostplane-dnsfail-admin-'), '--database-url', databaseUrl, ...args]);
    if (r.code !== 0) throw new Error(`admin ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, string>;
  };
  const serve = (data = tempDir('hostplane-dnsfail-')): Promise<Running> => startHostplane([
    'serve', '--port', '0', '--data', data, '--dns-listen', '127.0.0.1:0', '--database-url', databaseUrl, '--sealing-key', keyFile,
  ], { timeoutMs: 60_000 });
  const putA = async (through: Running, name: string, address: string): Promise<void> => {
    const res = await http(through.url, 'PUT', `/v1/orgs/acme/dns/zones/${ZONE}/rrsets/${name}/A`, { token, body: { ttl: 300, records: [{ content: address }] } });
    expect(res.status, res.text).toBe(200);
  };

  beforeAll(async () => {
    cluster = await startCluster();
    databaseUrl = await cluster.createDatabase();
    keyFile = join(tempDir('hostplane-dnsfail-key-'), 'sealing.key');
    await admin('init');
    await admin('org', 'create', 'acme');
    await admin('user', 'create', 'owner@acme.test');
    await admin('member', 'add', 'acme', 'owner@acme.test', 'admin');
    token = (await admin('token', 'create', 'owner@acme.test')).token!;
  }, 120_000);
  afterAll(async () => {
    await cleanup();
    await cluster?.destroy();
  });

  it('the new leader\'s knotd signs with the same DNSKEY set, above every serial served before, and serves writes made after the failover; a follower\'s knotd serves nothing', async () => {
    const aDir = tempDir('hostplane-dnsfail-a-');
    const a = await serve(aDir);
    const b = await serve();
    expect(await leads(a)).toBe(true);

    expect((await http(b.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: ZONE } })).status).toBe(200);
    expect((await http(b.url, 'POST', `/v1/orgs/acme/dns/zones/${ZONE}/dnssec`, { token, body: { enabled: true } })).status).toBe(200);
    await putA(b, `www.${ZONE}`, '192.0.2.1');
    await until('the leader to serve the signed zone', async () => (await dnskeys(a)).length > 0 && (await addresses(a, `www.${ZONE}`))[0] === '192.0.2.1');
    const keys = await dnskeys(a);
    // The serial the leader serves settles once its pass has recorded the keys and checked the zone.
    await until('the zone to be ready', async () => (await http(b.url, 'GET', `/v1/orgs/acme/dns/zones/${ZONE}`, { token })).body.status?.ready === true);
    const before = (await serial(a))!;
    // The follower's knotd is no second primary: neither the zone nor the catalog.
    expect((await query(b.dns!, ZONE, 'SOA')).rcode).toBe('REFUSED');
    expect((await query(b.dns!, 'catalog.invalid', 'SOA')).rcode).toBe('REFUSED');

    a.proc.kill('SIGKILL');
    await a.exited;
    await until('b to lead', () => leads(b), 30_000, 100);
    await until('b\'s knotd to serve the zone', async () => (await serial(b)) !== undefined, 20_000);
    expect(await dnskeys(b)).toEqual(keys);
    expect(await serial(b)).toBeGreaterThan(before);
    expect(await addresses(b, `www.${ZONE}`)).toEqual(['192.0.2.1']);

    await putA(b, `api.${ZONE}`, '192.0.2.2');
    await until('a write after the failover to be served', async () => (await addresses(b, `api.${ZONE}`))[0] === '192.0.2.2');
    expect(await dnskeys(b)).toEqual(keys);

    // Back on its data dir while b leads, a's knotd stands by: what it served before is stale now.
    const again = await serve(aDir);
    expect(await leads(again)).toBe(false);
    expect((await query(again.dns!, ZONE, 'SOA')).rcode).toBe('REFUSED');
  }, 120_000);
});
