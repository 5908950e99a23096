/**
 * Issue 6 item 1: every zone name the API accepts is one knotd serves, and no single zone, whatever its name
 * or file, keeps knotd from starting or other zones from being served.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createKnotNameserver, findKnot } from '../../../providers/nameserver/knot';
import { renderKnotConfig } from '../../../providers/nameserver/knot-config';
import { UnservableZoneError } from '../../../providers/nameserver/port';
import { checkZoneName, MAX_ZONE_NAME_LENGTH } from '../../../zonefiles';
import { query } from '../../../harness/dns';
import { freePort, hasKnot, knotTitle } from '../../helpers/knot';

const dirs: string[] = [];
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hostplane-knot-names-'));
  dirs.push(d);
  return d;
};

// Labels a hostile tenant would try: edge hyphens, "--" in every position, underscores, A-labels real and
// fake, Unicode, digits, and lengths near 63.
const label = fc.oneof(
  fc.stringMatching(/^[a-z0-9-]{1,12}$/),
  fc.stringMatching(/^_?[a-z0-9_-]{1,10}$/),
  fc.stringMatching(/^xn--[a-z0-9-]{0,10}$/),
  fc.constantFrom('xn--bcher-kva', 'xn--ls8h', 'xn--nxa', 'xn--', 'xn--zz', 'ab--cd', '-a', 'a-', '_dmarc', 'a_b', '123', 'a'.repeat(63), 'a'.repeat(64)),
  fc.constantFrom('bücher', 'ß', 'Ünïcödé', 'straße', '日本', 'ＡＢＣ'),
);
// Long labels too, so that names reach and pass the longest a zone may have.
const longLabel = fc.stringMatching(/^[a-z][a-z0-9]{40,62}$/);
const zoneName = fc.oneof(
  fc.array(label, { minLength: 1, maxLength: 4 }),
  fc.tuple(fc.array(longLabel, { minLength: 2, maxLength: 4 }), fc.constantFrom('test', 'example', 'com')).map(([ls, tld]) => [...ls, tld]),
).map((ls) => ls.join('.'));

const accepted = (): string[] => {
  const names = new Set<string>();
  fc.assert(fc.property(zoneName, (n) => {
    const r = checkZoneName(n);
    if (r.ok) names.add(r.name);
  }), { seed: 6, numRuns: 3000 });
  return [...names].sort();
};

const knot = findKnot();
const kzonecheck = spawnSync('kzonecheck', ['--version']).error === undefined;

describe.skipIf(!hasKnot() || !kzonecheck)(knotTitle('zone names against knotd'), () => {
  it('every generated name the rule accepts is in knot.conf, passes knotc conf-check and kzonecheck', () => {
    const names = accepted();
    expect(names.length).toBeGreaterThan(100);
    expect(Math.max(...names.map((n) => n.length))).toBeGreaterThan(MAX_ZONE_NAME_LENGTH - 40);
    const dir = tempDir();
    const config = renderKnotConfig({ dir, zonesDir: dir, listen: '127.0.0.1:5353', notify: [], zones: names.map((name) => ({ name, dnssec: false })) });
    for (const name of names) expect(config).toContain(`  - domain: ${name}.\n`);
    writeFileSync(join(dir, 'knot.conf'), config);
    expect(execFileSync(knot!.knotc, ['-c', join(dir, 'knot.conf'), 'conf-check'], { encoding: 'utf8' })).toContain('Configuration is valid');
    // kzonecheck is a process per zone: the longest names and an even spread of the others.
    const byLength = [...names].sort((x, y) => y.length - x.length);
    const checked = [...byLength.slice(0, 20), ...byLength.slice(20).filter((_, i) => i % Math.ceil(byLength.length / 60) === 0)];
    for (const name of checked) {
      const file = join(dir, `${name}.zone`);
      writeFileSync(file, `$ORIGIN ${name}.\n@ 300 IN SOA ns1.hostplane.test. hostmaster.${name}. 1 3600 600 604800 300\n@ 300 IN NS ns1.hostplane.test.\n`);
      const r = spawnSync('kzonecheck', ['-o', `${name}.`, file], { encoding: 'utf8' });
      expect(r.status, `${name}: ${r.stdout}${r.stderr}`).toBe(0);
    }
  });

  it('knotd serves accepted names; a zone named against the rule and a zone with a broken file keep no one else from being served', async () => {
    const dir = tempDir();
    const port = await freePort();
    const zonesDir = join(dir, 'zones');
    mkdirSync(zonesDir, { recursive: true });
    const names = accepted();
    const longest = names.reduce((a, b) => (b.length > a.length ? b : a));
    const good = [...names.filter((n) => n.length < 60).slice(0, 20), longest];
    const soa = (name: string, serial: number) =>
      `$ORIGIN ${name}.\n@ 300 IN SOA ns1.hostplane.test. hostmaster.${name}. ${serial} 3600 600 604800 300\n@ 300 IN NS ns1.hostplane.test.\n`;
    for (const name of good) writeFileSync(join(zonesDir, `${name}.zone`), soa(name, 7));
    writeFileSync(join(zonesDir, 'broken.example.zone'), 'this is not a zone file\n@ IN SOA (\n');
    const ns = createKnotNameserver({ dir: join(dir, 'knot'), zonesDir, listen: `127.0.0.1:${port}` });
    stops.push(() => ns.stop());
    const zones = [...good, 'broken.example', '-evil.test', 'trail-.test', 'xn--.test', 'a"b.test'].map((name) => ({ name, dnssec: false }));
    await ns.start(zones);
    expect(readFileSync(join(dir, 'knot', 'knot.conf'), 'utf8')).not.toMatch(/-evil|trail-|xn--\.test|a"b/);
    for (const name of good) expect(await ns.servedSerial(name), name).toBe(7);
    expect(await ns.servedSerial('broken.example')).toBeNull();
    await expect(ns.applyZone('-evil.test', soa('x.test', 1), { dnssec: false })).rejects.toBeInstanceOf(UnservableZoneError);
    // The broken zone gets a good file later, like any zone.
    await ns.applyZone('broken.example', soa('broken.example', 8), { dnssec: false });
    const r = await query({ host: '127.0.0.1', port }, 'broken.example', 'SOA');
    expect(r.rcode).toBe('NOERROR');
  });
});
