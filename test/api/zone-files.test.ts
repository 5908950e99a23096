/**
 * Zone files through HTTP (CONTRACT.md "Zone changes, files and revisions"): exportZone answers the zone as getZone
 * lists it, as a master file Knot's checker accepts, with getZone's tag; importZone takes `text/dns` only, up to
 * 1 MiB, names refused lines, and importing an export is no change in either mode.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { zoneWorkSlots } from '../../api/zone-changes';
import { orgBySlug } from '../../store/accounts';
import { applyZoneChanges } from '../../store/zone-changes';
import { putManagedRRset } from '../../store/zones';
import { zoneWithRRsets } from '../helpers/zone-read';
import { exportZoneFile, MAX_ZONE_FILE_BYTES } from '../../zonefiles';
import { soaFor } from '../../zonefiles/soa';
import { listenOnSocket } from '../helpers/agent';
import { startTestApi, type TestApi } from '../helpers/app';
import { until } from '../helpers/proc';

const ZONE = 'files.example';
const Z = `/v1/orgs/acme/dns/zones/${ZONE}`;
const TEXT = { 'content-type': 'text/dns' };
const hasKzonecheck = spawnSync('kzonecheck', ['--version']).error === undefined;

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi({ plan: 'pro' });
  expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name: ZONE } })).status).toBe(200);
  const put = async (name: string, type: string, records: string[], ttl = 300) =>
    expect((await t.call('PUT', `${Z}/rrsets/${name}/${type}`, { body: { ttl, records: records.map((content) => ({ content })) } })).status).toBe(200);
  await put('@', 'A', ['192.0.2.1']);
  await put('@', 'MX', ['10 mail.files.example', '20 backup.example.net']);
  await put(`www.${ZONE}`, 'CNAME', [ZONE]);
  await put(`long.${ZONE}`, 'TXT', ['x'.repeat(600), 'café "quoted"; \\ back']);
  await put(`_sip._tcp.${ZONE}`, 'SRV', ['10 5 5060 sip.files.example']);
  await put(`*.apps.${ZONE}`, 'AAAA', ['2001:db8::1']);
  await put(`@`, 'CAA', ['0 issue "letsencrypt.org"']);
  // A hostname's record: the service's, shown by getZone and exported like the others.
  await putManagedRRset(t.store, { zone: ZONE, rrset: { name: `app.${ZONE}`, type: 'CNAME', ttl: 300, records: [{ content: 'edge.hostplane.test' }] }, managedBy: 'app', actor: 'system' });
});
afterAll(async () => { await t.close(); });

const exportText = async (): Promise<{ text: string; headers: Headers }> => {
  const r = await t.call('GET', `${Z}/export`);
  expect(r.status).toBe(200);
  return { text: r.body as string, headers: r.headers };
};

describe('exportZone', () => {
  it('answers text/dns: $ORIGIN, the SOA, then every rrset getZone lists, in its order, names absolute; getZone\'s ETag', async () => {
    const zone = await t.call('GET', Z);
    const { text, headers } = await exportText();
    expect(headers.get('content-type')).toBe('text/dns; charset=utf-8');
    expect(headers.get('etag')).toBe(zone.headers.get('etag'));
    expect(headers.get('x-generation')).toBe(zone.headers.get('x-generation'));
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(`$ORIGIN ${ZONE}.`);
    expect(lines[1]).toBe(`${ZONE}. 3600 IN SOA ns1.hostplane.test. hostmaster.${ZONE}. ${zone.body.serial} 10800 3600 1209600 300`);
    // Each rrset getZone lists, in its order: the owners and types of the lines, with repeats folded.
    const listed = (zone.body.rrsets as { name: string; type: string }[]).map((r) => `${r.name}. ${r.type}`);
    const written = lines.slice(1).map((l) => l.split(' ')).map((f) => `${f[0]} ${f[3]}`).filter((k, i, all) => all[i - 1] !== k);
    expect(written).toEqual(listed);
    expect(text).toContain(`long.${ZONE}. 300 IN TXT "${'x'.repeat(255)}" "${'x'.repeat(255)}" "${'x'.repeat(90)}"`);
    expect(text).toContain(`app.${ZONE}. 300 IN CNAME edge.hostplane.test.`);
  });

  it('answers 304 to If-None-Match with its tag, and 404 for another organization\'s zone', async () => {
    const { headers } = await exportText();
    const again = await t.call('GET', `${Z}/export`, { headers: { 'if-none-match': headers.get('etag')! } });
    expect(again.status).toBe(304);
    const other = await t.call('GET', `${Z}/export`, { token: t.other.token });
    expect(other.status).toBe(404);
  });

  it('streams a zone of many pages byte for byte as the whole zone rendered at once (exportZoneFile) reads', async () => {
    const name = 'pages.example';
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } })).status).toBe(200);
    const org = (await orgBySlug(t.store, 'acme'))!;
    for (let from = 0; from < 2500; from += 1000) {
      await applyZoneChanges(t.store, {
        orgId: org.id, zone: name, actor: 'test', quota: null, changes: Array.from({ length: 1000 }, (_, i) => ({
          op: 'put' as const, name: `h${from + i}.${name}`, type: i % 2 ? 'A' : 'TXT', ttl: 300, records: [{ content: i % 2 ? '192.0.2.1' : `v ${from + i}` }],
        })),
      });
    }
    const r = await t.call('GET', `/v1/orgs/acme/dns/zones/${name}/export`);
    expect(r.status).toBe(200);
    const { zone, rrsets } = await zoneWithRRsets(t.store, org.id, name);
    expect(r.body).toBe(exportZoneFile(name, soaFor(name, zone.serial, ['ns1.hostplane.test', 'ns2.hostplane.test']), rrsets));
    expect(rrsets.length).toBeGreaterThan(2500);
  });

  it.skipIf(!hasKzonecheck)(`is accepted by kzonecheck${hasKzonecheck ? '' : ' (skipped: kzonecheck not installed)'}`, async () => {
    const file = join(t.dir, 'export.zone');
    writeFileSync(file, (await exportText()).text);
    const r = spawnSync('kzonecheck', ['-o', `${ZONE}.`, file], { encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });
});

/** A zone of acme's of 400 rrsets of 4 KiB: 1.6 MiB, pages of 256 KiB, far over a Unix socket's buffer. */
async function largeZone(api: TestApi, name: string): Promise<void> {
  expect((await api.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } })).status).toBe(200);
  const org = (await orgBySlug(api.store, 'acme'))!;
  await applyZoneChanges(api.store, {
    orgId: org.id, zone: name, actor: 'test', quota: null, changes: Array.from({ length: 400 }, (_, i) => ({
      op: 'put' as const, name: `t${i}.${name}`, type: 'TXT', ttl: 300, records: Array.from({ length: 4 }, (_, r) => ({ content: `${r}${'x'.repeat(999)}` })),
    })),
  });
}

describe('exportZone to a client that stops reading', () => {
  it('is ended once the client took nothing for stalledAnswerMs, logged, and reads no page after', async () => {
    const stalled = await startTestApi({ plan: 'pro', config: { stalledAnswerMs: 1000 } });
    const server = createServer(stalled.handler);
    // A Unix socket's buffer (net.core.wmem_default, 208 KiB here) is far below the zone, unlike loopback TCP's autotuned ones.
    const listening = await listenOnSocket(server);
    try {
      const name = 'stalled.example';
      await largeZone(stalled, name);
      const raw = vi.spyOn(stalled.store, 'raw');
      const pagesRead = () => raw.mock.calls.filter(([key]) => key === 'zoneRRsetPage').length;

      const client = connect(listening.socketPath);
      let received = 0;
      client.on('data', (chunk: Buffer) => { received += chunk.length; });
      const closed = new Promise((r) => client.on('close', r));
      client.once('data', () => client.pause());
      client.write(`GET /v1/orgs/acme/dns/zones/${name}/export HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${stalled.tokens.admin}\r\n\r\n`);
      const warning = await until('the stalled answer\'s warning', () => stalled.logs.find((l) => l.includes('took nothing of a streamed answer')));
      expect(JSON.parse(warning)).toMatchObject({ level: 40, operation: 'exportZone', ms: 1000 });
      const readWhenEnded = pagesRead();
      client.resume();
      await closed;
      expect(pagesRead()).toBe(readWhenEnded);

      const whole = await stalled.call('GET', `/v1/orgs/acme/dns/zones/${name}/export`);
      const pages = pagesRead() - readWhenEnded;
      expect(whole.status).toBe(200);
      expect(received).toBeLessThan((whole.body as string).length);
      // The ended answer read the pages the socket's buffer took, a few of the zone's.
      expect(pages).toBeGreaterThan(4);
      expect(readWhenEnded).toBeLessThan(pages);
    } finally {
      await listening.close();
      await stalled.close();
    }
  });
});

describe('exportZone to a client that reads slowly', () => {
  it('holds no slot of whole-zone work between pages: with one slot, another export is answered whole while it stalls', async () => {
    const slow = await startTestApi({ plan: 'pro', config: { zoneWork: { slots: 1 }, stalledAnswerMs: 600_000 } });
    const server = createServer(slow.handler);
    const listening = await listenOnSocket(server);
    try {
      const name = 'slow.example';
      await largeZone(slow, name);
      const client = connect(listening.socketPath);
      let closed = false;
      client.on('close', () => { closed = true; });
      const started = new Promise((r) => client.once('data', () => r(client.pause())));
      client.write(`GET /v1/orgs/acme/dns/zones/${name}/export HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${slow.tokens.admin}\r\n\r\n`);
      await started;
      const whole = await slow.call('GET', `/v1/orgs/acme/dns/zones/${name}/export`);
      expect(whole.status).toBe(200);
      expect((whole.body as string).length).toBeGreaterThan(1_600_000);
      expect(closed).toBe(false);
      await until('the stalled export to give its slot back', () => zoneWorkSlots(slow.config).load.running === 0);
      client.destroy();
    } finally {
      await listening.close();
      await slow.close();
    }
  });
});

describe('importZone', () => {
  it('an export imported again is no change, merging or replacing, dry or not', async () => {
    const { text } = await exportText();
    const before = await t.call('GET', Z);
    for (const query of ['mode=merge&dryRun=true', 'mode=replace&dryRun=true', 'mode=merge', 'mode=replace']) {
      const r = await t.call('POST', `${Z}/import?${query}`, { raw: text, headers: TEXT });
      expect([r.status, r.body], query).toEqual([200, { generation: before.body.status.generation, serial: before.body.serial, diff: [] }]);
      expect(r.headers.get('x-generation')).toBe(query.includes('dryRun') ? null : String(before.body.status.generation));
    }
    const after = await t.call('GET', Z);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  });

  it('refuses each line it cannot take, naming its number, and changes nothing', async () => {
    const before = await t.call('GET', Z);
    const r = await t.call('POST', `${Z}/import?mode=replace`, {
      raw: ['$TTL 300', 'ok A 192.0.2.1', 'bad A 192.0.2.300', '$INCLUDE other.zone', 'app CNAME elsewhere.example.'].join('\n'),
      headers: TEXT,
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect(r.body.details.issues).toEqual([
      { path: 'line 3', message: expect.stringContaining('A record "192.0.2.300"') },
      { path: 'line 4', message: '$INCLUDE is not supported: put the included records in the file itself' },
    ]);
    // The managed rrset is checked once the file reads whole.
    const managed = await t.call('POST', `${Z}/import`, { raw: '$TTL 300\n\napp CNAME elsewhere.example.\n', headers: TEXT });
    expect([managed.status, managed.body.details.issues]).toEqual([400, [{ path: 'line 3', message: `app.${ZONE} CNAME is managed by the service (app); a file cannot change it` }]]);
    expect((await t.call('GET', Z)).headers.get('etag')).toBe(before.headers.get('etag'));
  });

  it('takes text/dns only (415), up to 1 MiB (413), not empty (400)', async () => {
    const json = await t.call('POST', `${Z}/import`, { body: { file: 'x' } });
    expect([json.status, json.body.code]).toEqual([415, 'unsupported_media_type']);
    const big = await t.call('POST', `${Z}/import`, { raw: `;${'x'.repeat(MAX_ZONE_FILE_BYTES)}\n`, headers: TEXT });
    expect([big.status, big.body.code]).toEqual([413, 'payload_too_large']);
    const empty = await t.call('POST', `${Z}/import`, { raw: ' \n', headers: TEXT });
    expect([empty.status, empty.body.message]).toEqual([400, 'the body is empty: send the zone file as text/dns']);
    const mode = await t.call('POST', `${Z}/import?mode=upsert`, { raw: '$TTL 300\n', headers: TEXT });
    expect(mode.status).toBe(400);
  });

  it('applies a merge as one change set (one generation, its revision naming the import), a dry run first writing nothing', async () => {
    const generation = async (): Promise<number> => Number((await t.call('GET', Z)).headers.get('x-generation'));
    const before = await generation();
    const dry = await t.call('POST', `${Z}/import?mode=merge&dryRun=true`, { raw: '$TTL 300\nnew A 192.0.2.77\nnew2 TXT "two"\n', headers: TEXT });
    expect(dry.status).toBe(200);
    expect(dry.body.diff.map((d: { op: string; name: string }) => [d.op, d.name])).toEqual([['add', `new.${ZONE}`], ['add', `new2.${ZONE}`]]);
    expect(dry.body.generation).toBe(before + 1);
    expect(await generation()).toBe(before);
    const real = await t.call('POST', `${Z}/import?mode=merge`, { raw: '$TTL 300\nnew A 192.0.2.77\nnew2 TXT "two"\n', headers: TEXT });
    expect([real.status, real.body.generation, real.body.serial]).toEqual([200, dry.body.generation, dry.body.serial]);
    expect(real.body.diff).toEqual(dry.body.diff);
    const revisions = await t.call('GET', `${Z}/revisions`);
    expect(revisions.body.items[0]).toMatchObject({ generation: real.body.generation, summary: expect.stringMatching(/^zone file imported \(merge\): 2 rrsets/) });
  });

  it('replaces: the customer\'s rrsets the file lacks are deleted in the same generation, the service\'s stay; a stale If-Match is 412', async () => {
    const zone = await t.call('GET', Z);
    const stale = await t.call('POST', `${Z}/import?mode=replace`, { raw: '$TTL 300\nonly A 192.0.2.9\n', headers: { ...TEXT, 'if-match': '"stale"' } });
    expect(stale.status).toBe(412);
    const r = await t.call('POST', `${Z}/import?mode=replace`, { raw: '$TTL 300\nonly A 192.0.2.9\n', headers: { ...TEXT, 'if-match': zone.headers.get('etag')! } });
    expect(r.status).toBe(200);
    expect(r.body.generation).toBe(Number(zone.headers.get('x-generation')) + 1);
    const left = (await t.call('GET', Z)).body.rrsets.map((x: { name: string; type: string }) => `${x.name} ${x.type}`);
    expect([...left].sort()).toEqual([`${ZONE} NS`, `${ZONE} SOA`, `app.${ZONE} CNAME`, `only.${ZONE} A`].sort());
  });

  it('is audited as one event with what it changed, not an event per rrset: a few bytes replacing a zone write one row', async () => {
    const audit = async () => (await t.call('GET', '/v1/orgs/acme/audit?limit=100')).body.items as { id: string; event: string; target: string; details: Record<string, unknown> }[];
    const before = Number((await audit())[0]?.id ?? 0);
    const lines = Array.from({ length: 30 }, (_, i) => `bulk${i} A 192.0.2.${i + 1}`).join('\n');
    const merged = await t.call('POST', `${Z}/import?mode=merge`, { raw: `$TTL 300\n${lines}\n`, headers: TEXT });
    const replaced = await t.call('POST', `${Z}/import?mode=replace`, { raw: '$TTL 300\nlast A 192.0.2.9\n', headers: TEXT });
    expect([merged.status, replaced.status]).toEqual([200, 200]);
    const added = (await audit()).filter((e) => Number(e.id) > before);
    expect(added.map((e) => [e.event, e.target, e.details])).toEqual([
      ['dns.zone.import', ZONE, { mode: 'replace', to: replaced.body.generation, added: 1, changed: 0, removed: replaced.body.diff.length - 1 }],
      ['dns.zone.import', ZONE, { mode: 'merge', to: merged.body.generation, added: 30, changed: 0, removed: 0 }],
    ]);
    expect(replaced.body.diff.length).toBeGreaterThan(30);
  });
});
