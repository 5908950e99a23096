import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findKnot } from '../../../providers/nameserver/knot';
import { parseHostPort, renderKnotConfig, zoneFilePath, zoneFqdn } from '../../../providers/nameserver/knot-config';
import { UnservableZoneError } from '../../../providers/nameserver/port';
import { hasKnot, knotTitle } from '../../helpers/knot';

const input = {
  dir: '/data/knot',
  zonesDir: '/data/zones',
  listen: '127.0.0.1:8053',
  notify: ['192.0.2.10:53', '[2001:db8::10]:5353', '192.0.2.10:5300'],
  zones: [
    { name: 'b.test', dnssec: true },
    { name: 'a.test', dnssec: false },
  ],
};

describe('renderKnotConfig', () => {
  it('keeps knotd inside its directory, off our zone files, and on our serials', () => {
    const text = renderKnotConfig(input);
    expect(text).toContain('rundir: "/data/knot/run"');
    expect(text).toContain('storage: "/data/knot/db"');
    expect(text).toContain('listen: "/data/knot/run/knot.sock"');
    expect(text).toContain('listen: 127.0.0.1@8053');
    expect(text).toMatch(/storage: "\/data\/zones"\n {4}file: "%s.zone"\n {4}zonefile-sync: -1\n {4}zonefile-load: whole\n {4}journal-content: changes\n {4}serial-policy: increment\n/);
  });

  it('notifies every secondary and lets each address transfer', () => {
    const text = renderKnotConfig(input);
    expect(text).toContain('  - id: secondary1\n    address: 192.0.2.10@53\n  - id: secondary2\n    address: 2001:db8::10@5353\n  - id: secondary3\n    address: 192.0.2.10@5300\n');
    expect(text).toContain('address: [192.0.2.10, 2001:db8::10]\n    action: transfer');
    expect(text).toContain('notify: [secondary1, secondary2, secondary3]\n    acl: [secondaries]');
    expect(renderKnotConfig({ ...input, notify: [] })).not.toMatch(/remote:|acl|notify/);
  });

  it('lists zones sorted, signed ones with the ECDSA P-256 policy', () => {
    const text = renderKnotConfig(input);
    expect(text).toContain('policy:\n  - id: hostplane\n    algorithm: ecdsap256sha256\n');
    expect(text.slice(text.indexOf('zone:'))).toBe('zone:\n  - domain: a.test.\n  - domain: b.test.\n    dnssec-signing: on\n    dnssec-policy: hostplane\n');
    expect(renderKnotConfig({ ...input, zones: [] })).not.toContain('zone:');
    expect(renderKnotConfig({ ...input, zones: [...input.zones].reverse() })).toBe(renderKnotConfig(input));
  });

  it('refuses what cannot be written into knot.conf', () => {
    expect(() => renderKnotConfig({ ...input, zonesDir: '/data/"zones' })).toThrow(/cannot be written/);
    expect(() => renderKnotConfig({ ...input, listen: 'localhost:53' })).toThrow(/ip:port/);
  });

  it('leaves out a zone whose name breaks the rule, so that it cannot keep knotd from starting', () => {
    const bad = ['a.test\n  - domain: evil.', '-evil.test', 'trail-.test', 'xn--.test', 'a_b.test', 'A.test'].map((name) => ({ name, dnssec: false }));
    const text = renderKnotConfig({ ...input, zones: [...bad, ...input.zones] });
    expect(text).toBe(renderKnotConfig(input));
  });
});

describe('names and addresses', () => {
  it('accepts LDH, underscore and punycode zone names only', () => {
    expect(zoneFqdn('xn--bcher-kva.example')).toBe('xn--bcher-kva.example.');
    expect(zoneFqdn('_acme.a.test')).toBe('_acme.a.test.');
    for (const bad of ['', 'A.test', 'a.test.', '../etc', 'a..test', '-a.test', 'a-.test', 'xn--.test', 'xn--zz.test', 'ab--c.test', 'a_b.test', 'test', `${'a'.repeat(64)}.test`]) {
      expect(() => zoneFqdn(bad), bad).toThrow(UnservableZoneError);
    }
    expect(() => zoneFilePath('/z', '../x')).toThrow(UnservableZoneError);
  });

  it('parses ip:port and [ipv6]:port', () => {
    expect(parseHostPort('127.0.0.1:8053')).toEqual({ host: '127.0.0.1', port: 8053 });
    expect(parseHostPort('[::1]:53')).toEqual({ host: '::1', port: 53 });
    for (const bad of ['::1:53', '127.0.0.1', '127.0.0.1:0', '127.0.0.1:70000']) expect(() => parseHostPort(bad), bad).toThrow();
  });
});

describe.skipIf(!hasKnot())(knotTitle('renderKnotConfig with knotc'), () => {
  it('writes a configuration knotc accepts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-knotconf-'));
    try {
      const file = join(dir, 'knot.conf');
      writeFileSync(file, renderKnotConfig({ ...input, dir, zonesDir: dir }));
      expect(execFileSync(findKnot()!.knotc, ['-c', file, 'conf-check'], { encoding: 'utf8' })).toContain('Configuration is valid');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
