/**
 * DNS across a failover (issue 23 item 3): two `serve` on one PostgreSQL, one sealing key file. The leader's knotd
 * is the hidden primary and the follower's serves nothing; once the leader is killed, the new leader's knotd signs
 * with the same DNSSEC keys (taken from the store, sealed), serves a serial above every one served before, and serves
 * what is written after the failover. Its catalog zone lists each zone under the label the old leader's did, at a
 * serial above the old one's. BIND and Knot secondaries configured with both processes' addresses (as docs/dns.md
 * shows) follow the zone and the catalog from one leader to the next without a moment of not serving the zone.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Answer } from 'dns-packet';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { query, type Server } from '../../harness/dns';
import { postgresMissing, startCluster, type Cluster } from '../../harness/postgres';
import {
  hasSecondaryTools, secondariesTitle, startBindSecondary, startKnotSecondary, stopDaemons, type Secondary,
} from '../../harness/secondaries';
import { freePort, hasKnot } from '../helpers/knot';
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
const dnskeys = async (server: Server): Promise<string[]> =>
  answers(await query(server, ZONE, 'DNSKEY', { dnssecOk: true }), 'DNSKEY').map((data) => {
    const k = data as { flags: number; algorithm: number; key: Buffer };
    return `${k.flags} ${k.algorithm} ${k.key.toString('base64')}`;
  }).sort();
const serial = async (server: Server, zone = ZONE): Promise<number | undefined> =>
  (answers(await query(server, zone, 'SOA'), 'SOA')[0] as { serial: number } | undefined)?.serial;
const addresses = async (server: Server, name: string): Promise<string[]> => answers(await query(server, name, 'A'), 'A') as string[];

const CATALOG = 'catalog.invalid';
/** The catalog `server` transfers (AXFR with kdig): its serial, and each member zone's unique label (RFC 9432 4.1). */
const catalogOf = async (server: Server): Promise<{ serial: number; labels: Map<string, string> }> => {
  const { stdout } = await promisify(execFile)('kdig', [`@${server.host}`, '-p', String(server.port), '+noall', '+answer', CATALOG, 'AXFR']);
  const rows = stdout.trim().split('\n').map((l) => l.split(/\s+/));
  const soa = rows.find((f) => f[3] === 'SOA');
  return {
    serial: Number(soa?.[6]),
    labels: new Map(rows.filter((f) => f[3] === 'PTR').map((f) => [f[4]!.replace(/\.$/, ''), f[0]!.split('.')[0]!])),
  };
};
/** The catalog once it lists `zone`: the leader's catalog pass follows the zone's first serving. */
const catalogListing = (server: Server, zone: string) => until(`the catalog of ${server.port} to list ${zone}`, async () => {
  const c = await catalogOf(server);
  return c.labels.has(zone) && c;
});

/**
 * Asks `server` for `name` A one query after another until stopped, and keeps each answer that is not `address`: a
 * secondary that dropped its copy of the zone (a catalog member reset, RFC 9432 5.5) answers REFUSED, SERVFAIL or
 * NXDOMAIN until it has transferred it anew. A query without an answer (a busy machine) is asked again, not counted.
 */
const watchServing = (server: Server, name: string, address: string) => {
  let stopped = false;
  const gaps: string[] = [];
  let answered = 0;
  const done = (async () => {
    while (!stopped) {
      const r = await query(server, name, 'A', { timeoutMs: 1000 }).catch(() => null);
      if (!r) continue;
      answered++;
      const got = answers(r, 'A');
      if (r.rcode !== 'NOERROR' || got.length !== 1 || got[0] !== address) gaps.push(`${r.rcode} ${JSON.stringify(got)}`);
      // Sampling, not ordering: some room for the processes under test on two cores.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async (): Promise<{ gaps: string[]; answered: number }> => {
      stopped = true;
      await done;
      return { gaps, answered };
    },
  };
};

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
  const serve = (data = tempDir('hostplane-dnsfail-'), ...flags: string[]): Promise<Running> => startHostplane([
    'serve', '--port', '0', '--data', data, '--dns-listen', '127.0.0.1:0', '--database-url', databaseUrl, '--sealing-key', keyFile, ...flags,
  ], { timeoutMs: 60_000 });
  const putA = async (through: Running, name: string, address: string): Promise<void> => {
    const res = await http(through.url, 'PUT', `/v1/orgs/acme/dns/zones/${ZONE}/rrsets/${name}/A`, { token, body: { ttl: 300, records: [{ content: address }] } });
    expect(res.status, res.text).toBe(200);
  };
  /** Through `through`: the zone, signed, with www. A 192.0.2.1; resolves once the leader serves it and the zone is
   * ready (the serial the leader serves settles once its pass has recorded the keys and checked the zone). */
  const signedZone = async (through: Running, leader: Running): Promise<void> => {
    expect((await http(through.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: ZONE } })).status).toBe(200);
    expect((await http(through.url, 'POST', `/v1/orgs/acme/dns/zones/${ZONE}/dnssec`, { token, body: { enabled: true } })).status).toBe(200);
    await putA(through, `www.${ZONE}`, '192.0.2.1');
    await until('the leader to serve the signed zone', async () => (await dnskeys(leader.dns!)).length > 0 && (await addresses(leader.dns!, `www.${ZONE}`))[0] === '192.0.2.1');
    await until('the zone to be ready', async () => (await http(through.url, 'GET', `/v1/orgs/acme/dns/zones/${ZONE}`, { token })).body.status?.ready === true);
  };
  const killLeader = async (leader: Running, successor: Running): Promise<void> => {
    leader.proc.kill('SIGKILL');
    await leader.exited;
    await until('the successor to lead', () => leads(successor), 30_000, 100);
  };

  beforeAll(async () => {
    cluster = await startCluster();
  }, 120_000);
  // Each test its own installation (database and sealing key): its processes lead and follow from a fresh leader row.
  beforeEach(async () => {
    keyFile = join(tempDir('hostplane-dnsfail-key-'), 'sealing.key');
    databaseUrl = await cluster.createDatabase();
    await admin('init');
    await admin('org', 'create', 'acme');
    await admin('user', 'create', 'owner@acme.test');
    await admin('member', 'add', 'acme', 'owner@acme.test', 'admin');
    token = (await admin('token', 'create', 'owner@acme.test')).token!;
  }, 60_000);
  afterEach(async () => {
    await stopDaemons();
    await cleanup();
  });
  afterAll(async () => {
    await cluster?.destroy();
  });

  it('the new leader\'s knotd signs with the same DNSKEY set, above every serial served before, and serves writes made after the failover; a follower\'s knotd serves nothing', async () => {
    const aDir = tempDir('hostplane-dnsfail-a-');
    // A secondary's address is what may transfer (the catalog, read here by AXFR); nothing listens on the discard port.
    const transfers = ['--secondaries', '127.0.0.1:9'];
    const a = await serve(aDir, ...transfers);
    const b = await serve(undefined, ...transfers);
    expect(await leads(a)).toBe(true);

    await signedZone(b, a);
    const keys = await dnskeys(a.dns!);
    const before = (await serial(a.dns!))!;
    const catalogBefore = await catalogListing(a.dns!, ZONE);
    // The follower's knotd is no second primary: neither the zone nor the catalog.
    expect((await query(b.dns!, ZONE, 'SOA')).rcode).toBe('REFUSED');
    expect((await query(b.dns!, CATALOG, 'SOA')).rcode).toBe('REFUSED');

    await killLeader(a, b);
    await until('b\'s knotd to serve the zone', async () => (await serial(b.dns!)) !== undefined, 20_000);
    expect(await dnskeys(b.dns!)).toEqual(keys);
    expect(await serial(b.dns!)).toBeGreaterThan(before);
    expect(await addresses(b.dns!, `www.${ZONE}`)).toEqual(['192.0.2.1']);
    // The new leader's catalog: the same member label (a changed one would make every secondary drop its copy and
    // transfer it anew, RFC 9432 5.5), and a serial above the old leader's.
    const catalogAfter = await catalogListing(b.dns!, ZONE);
    expect(catalogAfter.labels).toEqual(catalogBefore.labels);
    expect(catalogAfter.serial).toBeGreaterThan(catalogBefore.serial);

    await putA(b, `api.${ZONE}`, '192.0.2.2');
    await until('a write after the failover to be served', async () => (await addresses(b.dns!, `api.${ZONE}`))[0] === '192.0.2.2');
    expect(await dnskeys(b.dns!)).toEqual(keys);

    // Back on its data dir while b leads, a's knotd stands by: what it served before is stale now.
    const again = await serve(aDir);
    expect(await leads(again)).toBe(false);
    expect((await query(again.dns!, ZONE, 'SOA')).rcode).toBe('REFUSED');
  }, 120_000);

  it.skipIf(!hasSecondaryTools())(secondariesTitle('BIND and Knot secondaries configured with both primaries follow the zone and the catalog across the failover'), async () => {
    const [bindPort, knotPort] = await Promise.all([freePort(), freePort()]);
    const notify = ['--secondaries', `127.0.0.1:${bindPort},127.0.0.1:${knotPort}`];
    const a = await serve(undefined, ...notify);
    const b = await serve(undefined, ...notify);
    expect(await leads(a)).toBe(true);
    await signedZone(b, a);
    const keys = await dnskeys(a.dns!);
    const before = (await serial(a.dns!))!;

    // Both list both primaries (docs/dns.md), in opposite orders: before the failover one asks the follower first
    // (REFUSED), after it the other asks the dead process first.
    const secondaries = await Promise.all([
      startBindSecondary({ primary: [b.dns!, a.dns!], port: bindPort }),
      startKnotSecondary({ primary: [a.dns!, b.dns!], port: knotPort }),
    ]);
    const log = (s: Secondary): string => `${s.kind}:\n${s.log().slice(-4000)}`;
    const leaderCatalog = await catalogListing(a.dns!, ZONE);
    const catalogBefore = await Promise.all(secondaries.map(async (s) => {
      await until(`${s.kind} to serve the leader's serial ${before}\n${log(s)}`, async () => (await s.soa(ZONE)) === before, 20_000);
      expect(await dnskeys(s.server), log(s)).toEqual(keys);
      // Knot refuses queries for a catalog it interprets over UDP; a transfer shows it from both.
      return until(`${s.kind} to hold the leader's catalog\n${log(s)}`, () => catalogOf(s.server).then((c) => c.serial === leaderCatalog.serial && c));
    }));
    const watching = secondaries.map((s) => watchServing(s.server, `www.${ZONE}`, '192.0.2.1'));

    await killLeader(a, b);
    await putA(b, `api.${ZONE}`, '192.0.2.2');
    // A zone created after the failover reaches the secondaries only through the new leader's catalog.
    const LATER = 'later.failover.test';
    expect((await http(b.url, 'POST', '/v1/orgs/acme/dns/zones', { token, body: { name: LATER } })).status).toBe(200);
    const catalogsAfter = await Promise.all(secondaries.map(async (s) => {
      await until(`${s.kind} to serve the write made after the failover\n${log(s)}`, async () => (await addresses(s.server, `api.${ZONE}`))[0] === '192.0.2.2', 30_000);
      expect(await serial(s.server), log(s)).toBeGreaterThan(before);
      expect(await serial(s.server), log(s)).toBe(await serial(b.dns!));
      expect(await dnskeys(s.server), log(s)).toEqual(keys);
      expect(await addresses(s.server, `www.${ZONE}`)).toEqual(['192.0.2.1']);
      await until(`${s.kind} to serve ${LATER}, a member of the new leader's catalog\n${log(s)}`, async () => (await s.soa(LATER)) !== null, 30_000);
      return catalogOf(s.server);
    }));
    const [bind, knot] = await Promise.all(watching.map((w) => w.stop()));
    expect(bind!.answered).toBeGreaterThan(10);
    expect(knot!.answered).toBeGreaterThan(10);
    expect(bind!.gaps, log(secondaries[0]!)).toEqual([]);
    expect(knot!.gaps, log(secondaries[1]!)).toEqual([]);
    secondaries.forEach((s, i) => {
      expect(catalogsAfter[i]!.serial, log(s)).toBeGreaterThan(catalogBefore[i]!.serial);
      // RFC 9432 5.5: a member whose unique label changed is reset (its copy dropped and transferred anew).
      expect(catalogsAfter[i]!.labels.get(ZONE), log(s)).toBe(catalogBefore[i]!.labels.get(ZONE));
    });
  }, 120_000);
});
