/**
 * The secondary configurations docs/dns.md shows are checked by the programs they are for: an operator copies
 * them, so a snippet that does not load is a defect like any other.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findExecutable } from '../../providers/nameserver/knot';

const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'dns.md'), 'utf8');
/** The first fenced block after `heading`. */
const snippet = (heading: string): string => {
  const at = doc.indexOf(heading);
  if (at < 0) throw new Error(`docs/dns.md has no "${heading}"`);
  const m = /```[a-z]*\n([\s\S]*?)```/.exec(doc.slice(at));
  if (!m) throw new Error(`no code block after "${heading}"`);
  return m[1]!;
};
const dir = mkdtempSync(join(tmpdir(), 'hostplane-docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = Buffer.alloc(32, 9).toString('base64');

const namedCheckconf = findExecutable('named-checkconf');
const knotc = findExecutable('knotc');

describe.skipIf(!namedCheckconf)(`docs/dns.md: the BIND secondary${namedCheckconf ? '' : ' (SKIPPED: named-checkconf not installed: apt-get install bind9-utils)'}`, () => {
  it.each(['### BIND', '#### Two primaries: BIND'])('%s loads in named-checkconf', (heading) => {
    const key = join(dir, 'xfr.key');
    writeFileSync(key, `key "xfr" { algorithm hmac-sha256; secret "${SECRET}"; };\n`);
    const conf = join(dir, 'named.conf');
    writeFileSync(conf, snippet(heading).replace('"/etc/bind/xfr.key"', JSON.stringify(key)).replaceAll('/var/cache/bind', dir));
    expect(() => execFileSync(namedCheckconf!, [conf], { encoding: 'utf8', stdio: 'pipe' })).not.toThrow();
  });
});

describe.skipIf(!knotc)(`docs/dns.md: the Knot secondary${knotc ? '' : ' (SKIPPED: knotc not installed)'}`, () => {
  it.each(['### Knot DNS', '#### Two primaries: Knot'])('%s passes knotc conf-check', (heading) => {
    const conf = join(dir, 'knot.conf');
    writeFileSync(conf, snippet(heading).replace('secret: "..."', `secret: ${SECRET}`));
    expect(execFileSync(knotc!, ['-c', conf, 'conf-check'], { encoding: 'utf8' })).toContain('Configuration is valid');
  });
});
