/** Storage on the reference node: a directory per prefix that no prefix can leave, and its usage measured. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prefixPath, storageDir } from '../../../agent/layout';
import { usedBytes } from '../../../agent/sync/usage';

const dir = mkdtempSync(join(tmpdir(), 'hostplane-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('storage directories', () => {
  it('map a prefix to a path under storage/, segment by segment', () => {
    expect(storageDir('/n', 'acme/blog-1f3a/')).toBe('/n/storage/acme/blog-1f3a');
    expect(prefixPath('p_7/')).toBe('p_7');
  });

  it.each(['../../etc/', 'a/../../b/', '/abs/olute/', '.hidden/x/', 'a b/'])('keep %j inside storage/', (prefix) => {
    const p = prefixPath(prefix);
    expect(p.split('/').every((s) => s !== '..' && !s.startsWith('.') && !s.includes(' '))).toBe(true);
    expect(storageDir('/n', prefix).startsWith('/n/storage/')).toBe(true);
  });

  it('refuse an empty prefix', () => {
    expect(() => prefixPath('/')).toThrow('an empty storage prefix');
  });
});

describe('usedBytes', () => {
  it('sums the sizes of the files under the directory, nested ones too, not following links', async () => {
    const d = join(dir, 'p');
    mkdirSync(join(d, 'a', 'b'), { recursive: true });
    writeFileSync(join(d, 'one'), 'x'.repeat(1000));
    writeFileSync(join(d, 'a', 'b', 'two'), 'y'.repeat(234));
    writeFileSync(join(dir, 'outside'), 'z'.repeat(100_000));
    symlinkSync(join(dir, 'outside'), join(d, 'link'));
    const linkSize = (await import('node:fs')).lstatSync(join(d, 'link')).size;
    expect(await usedBytes(d)).toBe(1234 + linkSize);
  });

  it('is 0 for a directory that does not exist yet', async () => {
    expect(await usedBytes(join(dir, 'missing'))).toBe(0);
  });
});
