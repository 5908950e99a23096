/**
 * Export as a master file: golden files; accepted by Knot's and BIND's checkers; read back by parseZoneFile as the
 * same rrsets; and zones written by BIND (named-compilezone) and by Knot (knotc zone-read) import unchanged, signed
 * ones too.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createKnotNameserver, type KnotNameserver } from '../../providers/nameserver/knot';
import { knotPaths } from '../../providers/nameserver/knot-config';
import type { ZoneConfig } from '../../providers/nameserver/port';
import { exportZoneFile, importChanges, parseZoneFile, validateRRset, type RRset, type ZoneSpec } from '../../zonefiles';
import { freePort, hasKnot, knotTitle } from '../helpers/knot';
import { zoneSpec } from './arbitraries';
import { asStored, fixtureNames, loadFixture } from './fixtures';

const has = (bin: string): boolean => spawnSync(bin, ['-v']).error === undefined;
/** A title that says, where everyone reads it, why its tests are skipped. */
function toolTitle(title: string, bin: string): string {
  if (has(bin)) return title;
  process.stderr.write(`SKIPPED "${title}": ${bin} is not installed (apt-get install knot-dnsutils bind9-utils)\n`);
  return `${title} (skipped: ${bin} not installed)`;
}

const dir = mkdtempSync(join(tmpdir(), 'hostplane-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exported = (spec: ZoneSpec): string => exportZoneFile(spec.name, spec.soa, spec.rrsets);
const byKey = (rrsets: RRset[]): RRset[] => [...rrsets].sort((a, b) => (`${a.name} ${a.type}` < `${b.name} ${b.type}` ? -1 : 1));
/** The zone's rrsets as the file would import them. */
const imported = (spec: ZoneSpec, text: string): RRset[] => byKey(parseZoneFile(text, spec.name).rrsets);
/** The zone's rrsets as the API stores them (records canonical and in order). */
const stored = (spec: ZoneSpec): RRset[] => byKey(spec.rrsets.map((r) => validateRRset(spec.name, r)));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

function run(bin: string, args: string[], cwd?: string): { status: number | null; out: string } {
  const r = spawnSync(bin, args, { encoding: 'utf8', cwd });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Every fixture, and a zone with ALIAS rrsets, which no fixture holds: a fixture is also what renderZone gives Knot,
 * which is never given an ALIAS (zonefiles/alias.ts). */
const basic = loadFixture('basic');
const withAlias: ZoneSpec = {
  ...basic,
  rrsets: [
    ...basic.rrsets,
    { name: `shop.${basic.name}`, type: 'ALIAS', ttl: 300, records: [{ content: 'cdn.example.net' }] },
    { name: `a-b_c.${basic.name}`, type: 'ALIAS', ttl: 60, records: [{ content: 'lb-1.eu.example.org' }] },
  ],
};
const exportedZones: [string, ZoneSpec][] = [...fixtureNames.map((name): [string, ZoneSpec] => [name, loadFixture(name)]), ['alias', withAlias]];

/** `spec`'s export as BIND writes it back (named-compilezone), names `style`. */
function compiled(name: string, spec: ZoneSpec, style: string, text = exported(spec)): { status: number | null; out: string } {
  return run('named-compilezone', [
    '-q', '-i', 'none', '-k', 'ignore', '-n', 'ignore', '-m', 'ignore', '-M', 'ignore', '-S', 'ignore', '-s', style, '-o', '-', spec.name,
    write(`${name}.bind.zone`, text),
  ]);
}

describe('exportZoneFile', () => {
  it.each(fixtureNames)('writes the golden file of %s', async (name) => {
    await expect(exported(loadFixture(name))).toMatchFileSnapshot(`../fixtures/zones/golden/export/${name}.zone`);
  });

  it('writes $ORIGIN, the SOA, then the rrsets in the order given, every owner absolute', () => {
    const text = exportZoneFile('example.com', loadFixture('basic').soa, [
      { name: 'example.com', type: 'MX', ttl: 300, records: [{ content: '20 b.example.com' }, { content: '10 a.example.com' }] },
      { name: 'a.example.com', type: 'TXT', ttl: 60, records: [{ content: 'x'.repeat(300) }] },
      { name: '*.example.com', type: 'A', ttl: 60, records: [{ content: '192.0.2.1' }] },
    ]);
    expect(text.split('\n')).toEqual([
      '$ORIGIN example.com.',
      expect.stringMatching(/^example\.com\. \d+ IN SOA /),
      'example.com. 300 IN MX 10 a.example.com.',
      'example.com. 300 IN MX 20 b.example.com.',
      `a.example.com. 60 IN TXT "${'x'.repeat(255)}" "${'x'.repeat(45)}"`,
      '*.example.com. 60 IN A 192.0.2.1',
      '',
    ]);
  });

  it.each(fixtureNames)('reads back as the same rrsets (%s)', (name) => {
    const spec = loadFixture(name);
    expect(imported(spec, exported(spec))).toEqual(stored(spec));
  });

  it('reads back as the same rrsets for generated zones, and importing it is no change in either mode', () => {
    fc.assert(fc.property(zoneSpec, (spec) => {
      const file = parseZoneFile(exported(spec), spec.name);
      expect(byKey(file.rrsets)).toEqual(stored(spec));
      const current = spec.rrsets.map((r) => ({ ...asStored(r), managedBy: r.name === spec.name && r.type === 'NS' ? 'system' : null }));
      for (const mode of ['merge', 'replace'] as const) {
        // The CNAME rule is the API's, not the generator's: a zone that breaks it is not one the API could export.
        try {
          expect(importChanges(spec.name, current, file, mode)).toEqual([]);
        } catch (e) {
          expect(String(e)).toMatch(/a CNAME cannot share its name/);
        }
      }
    }), { numRuns: 100 });
  });
});

describe(toolTitle('kzonecheck accepts every export', 'kzonecheck'), () => {
  it.skipIf(!has('kzonecheck')).each(exportedZones)('%s', (name, spec) => {
    const r = run('kzonecheck', ['-o', `${spec.name}.`, write(`${name}.kzc.zone`, exported(spec))]);
    expect(r.status, r.out).toBe(0);
  });
});

describe(toolTitle('named-checkzone accepts every export', 'named-checkzone'), () => {
  it.skipIf(!has('named-checkzone')).each(exportedZones)('%s', (name, spec) => {
    const r = run('named-checkzone', ['-i', 'local', '-k', 'ignore', '-n', 'ignore', '-m', 'ignore', '-M', 'ignore', '-S', 'ignore', spec.name, write(`${name}.ncz.zone`, exported(spec))]);
    expect(r.status, r.out).toBe(0);
  });
});

describe(toolTitle('a zone BIND writes (named-compilezone) imports unchanged', 'named-compilezone'), () => {
  it.skipIf(!has('named-compilezone')).each(exportedZones.flatMap(([name, spec]) => [[name, 'full', spec], [name, 'relative', spec]] as const))('%s, names %s', (name, style, spec) => {
    const r = compiled(name, spec, style);
    expect(r.status, r.out).toBe(0);
    expect(imported(spec, r.out)).toEqual(stored(spec));
  });

  // dnssec-signzone signs as BIND does, here with NSEC3; CDS and CDNSKEY are written in, as a zone leaving its
  // provider has them (RFC 8078 DELETE).
  it.skipIf(!has('named-compilezone') || !has('dnssec-signzone'))('signed with NSEC3: its DNSSEC records ignored, the DS at the delegation kept', () => {
    const spec = loadFixture('modern-types');
    const keys = mkdtempSync(join(dir, 'keys-'));
    for (const flags of [['-f', 'KSK'], []]) expect(run('dnssec-keygen', ['-q', '-K', keys, '-a', 'ECDSAP256SHA256', ...flags, spec.name]).status).toBe(0);
    const unsigned = `${exported(spec)}${spec.name}. 3600 IN CDS 0 0 0 00\n${spec.name}. 3600 IN CDNSKEY 0 3 0 AA==\n`;
    const signedFile = write('signed.bind.zone', unsigned);
    const signed = run('dnssec-signzone', ['-q', '-K', keys, '-3', 'ab', '-S', '-o', spec.name, '-f', `${signedFile}.signed`, signedFile], keys);
    expect(signed.status, signed.out).toBe(0);
    const r = compiled('signed', spec, 'full', readFileSync(`${signedFile}.signed`, 'utf8'));
    expect(r.status, r.out).toBe(0);
    for (const type of ['RRSIG', 'NSEC3', 'NSEC3PARAM', 'DNSKEY', 'CDS', 'CDNSKEY', 'DS']) expect(r.out).toMatch(new RegExp(`\\s${type}\\s`));
    expect(imported(spec, r.out)).toEqual(stored(spec));
  });
});

describe.skipIf(!hasKnot())(knotTitle('a zone Knot serves (knotc zone-read) imports unchanged'), () => {
  /** Runs `serve` against a knotd of its own serving `zones`, and answers `knotc zone-read` of a zone: every line
   * `[zone.] owner ttl type rdata`, read as it is. */
  async function withKnot(name: string, zones: ZoneConfig[], serve: (read: (zone: string) => string, ns: KnotNameserver) => Promise<void>): Promise<void> {
    const kdir = join(dir, name);
    const ns = createKnotNameserver({ dir: join(kdir, 'knot'), zonesDir: join(kdir, 'zones'), listen: `127.0.0.1:${await freePort()}` });
    const read = (zone: string): string => {
      const r = run('knotc', ['-s', knotPaths(join(kdir, 'knot')).socket, 'zone-read', `${zone}.`]);
      expect(r.status, r.out).toBe(0);
      return r.out;
    };
    try {
      await ns.start(zones);
      await serve(read, ns);
    } finally {
      await ns.stop();
    }
  }

  it('every export, its "[zone.]" prefixes and all', async () => {
    await withKnot('knot', [{ name: basic.name, dnssec: false }], async (read, ns) => {
      for (const [i, [name, spec]] of exportedZones.entries()) {
        // Fixtures share zone names: each one served goes above the serial of the one before.
        await ns.applyZone(spec.name, exported({ ...spec, soa: { ...spec.soa, serial: spec.soa.serial + i } }), { dnssec: false });
        const text = read(spec.name);
        expect(text).toMatch(/^\[[^\]]+\] /);
        expect(imported(spec, text), name).toEqual(stored(spec));
      }
    });
  });

  it('signed (with CDS/CDNSKEY DELETE): its DNSSEC records ignored, the DS at the delegation kept', async () => {
    const spec = loadFixture('modern-types');
    await withKnot('knot-signed', [{ name: spec.name, dnssec: true, deleteDs: true }], async (read, ns) => {
      await ns.applyZone(spec.name, exported(spec), { dnssec: true, deleteDs: true });
      const text = read(spec.name);
      for (const type of ['RRSIG', 'NSEC', 'DNSKEY', 'CDS', 'CDNSKEY', 'DS']) expect(text).toMatch(new RegExp(` ${type} `));
      expect(imported(spec, text)).toEqual(stored(spec));
    });
  });
});
