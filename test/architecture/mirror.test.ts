/**
 * Every source of the service has its test at the mirrored path (`X/y.ts` → `test/X/y.test.ts`) or a line in
 * test/README.md saying where it is covered; a line there names a source that exists, has no mirrored test
 * (else the line is stale) and tests that exist. The sources are the folders bin/hostplane watches.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, tsFiles } from './graph';

const folders = /\{([a-z,]+)\}/.exec(readFileSync(join(root, 'bin', 'hostplane'), 'utf8'))![1]!.split(',');
const sources = tsFiles().filter((f) => folders.some((d) => f.startsWith(`${d}/`)));
const mirrored = (source: string): string => `test/${source.replace(/\.ts$/, '.test.ts')}`;
const hasMirror = (source: string): boolean => existsSync(join(root, mirrored(source)));

/** `path — where covered` lines of test/README.md. */
const listed = new Map([...readFileSync(join(root, 'test', 'README.md'), 'utf8').matchAll(/^(\S+\.ts) — (.+)$/gm)].map((m) => [m[1]!, m[2]!]));

describe('tests mirror the sources', () => {
  it('reads the source folders from bin/hostplane', () => {
    expect(folders).toEqual(expect.arrayContaining(['api', 'store', 'core', 'lib', 'agent']));
    expect(sources.length).toBeGreaterThan(100);
  });

  it('gives every source its mirrored test or a line in test/README.md', () => {
    expect(sources.filter((s) => !hasMirror(s) && !listed.has(s))).toEqual([]);
  });

  it('lists only sources that exist and have no mirrored test', () => {
    expect([...listed.keys()].filter((s) => !sources.includes(s))).toEqual([]);
    expect([...listed.keys()].filter(hasMirror)).toEqual([]);
  });

  it('names only tests that exist', () => {
    const named = [...listed.values()].flatMap((where) => where.match(/test\/\S+\.test\.ts/g) ?? []);
    expect(named.length).toBeGreaterThanOrEqual(listed.size);
    expect(named.filter((t) => !existsSync(join(root, t)))).toEqual([]);
  });
});
