/** D/bundle.json: written atomically with mode 0600, read back whole; a reader never sees a torn file. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBundleFile, writeBundleFile } from '../../../agent/sync/bundle-file';
import { bundleOf } from '../../helpers/agent';

const dir = mkdtempSync(join(tmpdir(), 'hostplane-bundle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bundle file', () => {
  it('is written with mode 0600 (it holds secret values) and read back as written', () => {
    const b = bundleOf('7', [{ env: { KEY: 'v' }, storage: { prefix: 'acme/blog/', quotaBytes: 10 } }]);
    writeBundleFile(dir, b);
    expect(statSync(join(dir, 'bundle.json')).mode & 0o777).toBe(0o600);
    expect(readBundleFile(dir)).toEqual(b);
  });

  it('stays 0600 when it replaces a file of wider mode, and leaves no temp file beside it', () => {
    writeFileSync(join(dir, 'bundle.json'), '{}', { mode: 0o644 });
    writeBundleFile(dir, bundleOf('8', []));
    expect(statSync(join(dir, 'bundle.json')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['bundle.json']);
  });

  it('is replaced atomically: a reader polling while it is rewritten only ever sees a whole bundle', async () => {
    const big = (v: number) => bundleOf(String(v), Array.from({ length: 200 }, (_, i) => ({ project: `p${i}`, hostnames: [`p${i}.test`], env: { KEY: 'x'.repeat(500) } })));
    writeBundleFile(dir, big(0));
    let reads = 0;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        const b = JSON.parse(readFileSync(join(dir, 'bundle.json'), 'utf8')) as { version: string; bundle: { projects: unknown[] } };
        expect(b.bundle.projects).toHaveLength(200);
        reads++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let v = 1; v <= 40; v++) {
      writeBundleFile(dir, big(v));
      await new Promise((r) => setImmediate(r));
    }
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(10);
    expect(readBundleFile(dir)?.version).toBe('40');
  });

  it('reads as none when there is no file, and refuses one it did not write without quoting it', () => {
    const empty = mkdtempSync(join(tmpdir(), 'hostplane-bundle-'));
    expect(readBundleFile(empty)).toBeNull();
    writeFileSync(join(empty, 'bundle.json'), '{"secret": "do-not-print"');
    expect(() => readBundleFile(empty)).toThrow(/is not JSON$/);
    writeFileSync(join(empty, 'bundle.json'), '{"version": 1, "bundle": {"secret": "do-not-print"}}');
    expect(() => readBundleFile(empty)).toThrow(/is not a bundle the agent wrote$/);
    rmSync(empty, { recursive: true });
  });
});
