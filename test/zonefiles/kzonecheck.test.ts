import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_TXT_BYTES, renderZone, type ZoneSpec } from '../../zonefiles';
import { zoneSpec } from './arbitraries';
import { fixtureNames, loadFixture, testSoa } from './fixtures';

const hasKzonecheck = spawnSync('kzonecheck', ['--version']).error === undefined;

describe(hasKzonecheck ? 'kzonecheck' : 'kzonecheck (skipped: kzonecheck not installed)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hostplane-zonefiles-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs Knot's zone checker (syntax and semantic checks) on the rendered zone. */
  function kzonecheck(spec: ZoneSpec): { status: number | null; output: string } {
    const file = join(dir, `${spec.name}.zone`);
    writeFileSync(file, renderZone(spec));
    const r = spawnSync('kzonecheck', ['-o', `${spec.name}.`, file], { encoding: 'utf8' });
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  }

  it.skipIf(!hasKzonecheck).each(fixtureNames)('accepts the rendered %s fixture', (name) => {
    const { status, output } = kzonecheck(loadFixture(name));
    expect(status, output).toBe(0);
  });

  const withTxt = (bytes: number): ZoneSpec => ({
    name: 'example.com',
    soa: testSoa,
    rrsets: [
      { name: 'example.com', type: 'NS', ttl: 3600, records: [{ content: 'ns1.hostplane.net' }] },
      { name: 'example.com', type: 'TXT', ttl: 3600, records: [{ content: 'x'.repeat(bytes) }] },
    ],
  });

  it.skipIf(!hasKzonecheck)('accepts a TXT value of MAX_TXT_BYTES and refuses one byte more', () => {
    expect(kzonecheck(withTxt(MAX_TXT_BYTES)).status).toBe(0);
    expect(kzonecheck(withTxt(MAX_TXT_BYTES + 1)).status).not.toBe(0);
  });

  it.skipIf(!hasKzonecheck)('accepts generated zones that keep the CNAME rule', () => {
    const apexNs = { name: 'example.com', type: 'NS' as const, ttl: 3600, records: [{ content: 'ns1.hostplane.net' }] };
    const valid = zoneSpec.map((spec) => {
      // The renderer does not enforce CNAME coexistence (the API does, at write time), so drop such CNAMEs.
      const others = new Set(spec.rrsets.filter((r) => r.type !== 'CNAME').map((r) => r.name));
      const rrsets = spec.rrsets.filter((r) => !(r.type === 'CNAME' && others.has(r.name)) && !(r.type === 'NS' && r.name === spec.name));
      return { ...spec, rrsets: [apexNs, ...rrsets] };
    });
    fc.assert(
      fc.property(valid, (spec) => {
        const { status, output } = kzonecheck(spec);
        expect(status, `${output}\n${renderZone(spec)}`).toBe(0);
      }),
      { numRuns: 40 },
    );
  });
});
