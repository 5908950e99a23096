import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKnotNameserver, findKnot } from '../../../providers/nameserver/knot';
import { configuredZones, parseHostPort, parseTsigKey, renderKnotConfig, zoneFilePath, zoneFqdn } from '../../../providers/nameserver/knot-config';
import { UnservableZoneError } from '../../../providers/nameserver/port';
import { freePort, hasKnot, knotTitle } from '../../helpers/knot';

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
    expect(text).toMatch(/storage: "\/data\/zones"\n {4}file: "%s.zone"\n {4}zonefile-sync: -1\n {4}zonefile-load: difference\n {4}journal-content: changes\n {4}serial-policy: increment\n/);
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
    const zones = (t: string): string => t.slice(t.indexOf('\nzone:\n') + 1);
    expect(zones(text)).toBe([
      'zone:', '  - domain: a.test.', '  - domain: b.test.', '    dnssec-signing: on', '    dnssec-policy: hostplane', '',
    ].join('\n'));
    expect(zones(renderKnotConfig({ ...input, zones: [] }))).not.toContain('a.test');
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

describe('catalog zone, TSIG and the way to unsigned', () => {
  it('has knotd generate no catalog: the catalog reconciler writes it as one of the zones, so a new leader keeps its member labels', () => {
    const text = renderKnotConfig(input);
    expect(text).not.toMatch(/catalog/);
    const withCatalog = renderKnotConfig({ ...input, zones: [...input.zones, { name: 'catalog.invalid', dnssec: false }] });
    expect([...configuredZones(withCatalog)]).toEqual([['a.test', 'off'], ['b.test', 'on'], ['catalog.invalid', 'off']]);
    // Notified and transferred like any zone: the default template's.
    expect(withCatalog.match(/notify: \[secondary1, secondary2, secondary3\]\n {4}acl: \[secondaries\]/g)).toHaveLength(1);
  });

  it('signs NOTIFY and requires the key on transfers when given one', () => {
    const tsig = { name: 'xfr-key', algorithm: 'hmac-sha256', secret: Buffer.alloc(32, 7).toString('base64') };
    const text = renderKnotConfig({ ...input, tsig });
    expect(text).toContain(`key:\n  - id: xfr-key.\n    algorithm: hmac-sha256\n    secret: ${tsig.secret}\n`);
    expect(text).toContain('  - id: secondary1\n    address: 192.0.2.10@53\n    key: xfr-key.\n');
    expect(text).toContain('    address: [192.0.2.10, 2001:db8::10]\n    key: xfr-key.\n    action: transfer');
    expect(renderKnotConfig(input)).not.toContain('key:');
  });

  it('asks the parent to delete the DS with a policy of the same algorithm, and reads it back', () => {
    const text = renderKnotConfig({ ...input, zones: [{ name: 'a.test', dnssec: true, deleteDs: true }, { name: 'b.test', dnssec: true }] });
    expect(text).toContain('  - id: hostplane-ds-delete\n    algorithm: ecdsap256sha256\n    cds-cdnskey-publish: delete-dnssec\n');
    expect(text).toContain('  - domain: a.test.\n    dnssec-signing: on\n    dnssec-policy: hostplane-ds-delete\n');
    expect([...configuredZones(text)]).toEqual([['a.test', 'delete-ds'], ['b.test', 'on']]);
  });

  it.each([
    ['BIND (tsig-keygen)', 'key "xfr-key" {\n\talgorithm hmac-sha256;\n\tsecret "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=";\n};\n'],
    ['Knot (keymgr -t)', '# hmac-sha256:xfr-key:...\nkey:\n  - id: xfr-key\n    algorithm: hmac-sha256\n    secret: c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=\n'],
  ])('reads a TSIG key file as %s writes it', (_, file) => {
    expect(parseTsigKey(file)).toEqual({ name: 'xfr-key', algorithm: 'hmac-sha256', secret: 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=' });
  });

  it.each([
    ['no key', 'hello', /no key name/],
    ['an unknown algorithm', 'key "k" { algorithm hmac-foo; secret "c2VjcmV0c2VjcmV0c2VjcmV0"; };', /no supported algorithm/],
    ['a short secret', 'key "k" { algorithm hmac-sha256; secret "c2hvcnQ="; };', /at least 16 bytes/],
  ])('refuses a TSIG key file with %s, without echoing a secret', (_, file, message) => {
    expect(() => parseTsigKey(file)).toThrow(message);
    try {
      parseTsigKey(file);
    } catch (err) {
      expect((err as Error).message).not.toContain('c2');
    }
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
  it.each([
    ['plain', {}],
    ['without zones', { zones: [] }],
    ['with TSIG and a zone deleting its DS', {
      tsig: { name: 'xfr-key', algorithm: 'hmac-sha256', secret: Buffer.alloc(32, 7).toString('base64') },
      zones: [...input.zones, { name: 'c.test', dnssec: true, deleteDs: true }],
    }],
  ])('writes a configuration knotc accepts: %s', (_, extra) => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-knotconf-'));
    try {
      const file = join(dir, 'knot.conf');
      writeFileSync(file, renderKnotConfig({ ...input, ...extra, dir, zonesDir: dir }));
      expect(execFileSync(findKnot()!.knotc, ['-c', file, 'conf-check'], { encoding: 'utf8' })).toContain('Configuration is valid');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('knot.conf on disk', () => {
  it('is written 0600, also over an older 0644 one: it holds the TSIG secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hostplane-knotconf-'));
    // No knotd needed: the configuration is written before knotd is launched, and /bin/false fails that launch.
    const ns = createKnotNameserver({
      dir: join(dir, 'knot'), zonesDir: join(dir, 'zones'), listen: `127.0.0.1:${await freePort()}`,
      knotd: '/bin/false', knotc: '/bin/false', keymgr: '/bin/false',
      tsig: { name: 'xfr-key', algorithm: 'hmac-sha256', secret: Buffer.alloc(32, 7).toString('base64') },
    });
    try {
      mkdirSync(join(dir, 'knot'), { recursive: true });
      writeFileSync(join(dir, 'knot', 'knot.conf'), '', { mode: 0o644 });
      await ns.start([{ name: 'a.test', dnssec: false }]).catch(() => undefined);
      const conf = join(dir, 'knot', 'knot.conf');
      expect(readFileSync(conf, 'utf8')).toContain('secret: ');
      expect((statSync(conf).mode & 0o777).toString(8)).toBe('600');
    } finally {
      await ns.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
