import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { catalogLabel, renderCatalog, type Catalog } from '../../zonefiles/catalog';

const twoMembers: Catalog = {
  name: 'catalog.invalid',
  serial: 2026112900,
  members: [
    { zone: 'failover.test', uid: '0b6b1a52-6a39-4c57-9a43-5f1c0e2d8e11' },
    { zone: 'example.com', uid: '7f7d3c8e-2b1a-4f0e-8d6c-1a2b3c4d5e6f' },
  ],
};

describe('renderCatalog', () => {
  it('renders its golden catalog: SOA and NS at invalid., version 2, one PTR per member under its label', async () => {
    await expect(renderCatalog(twoMembers)).toMatchFileSnapshot('../fixtures/catalog/two-members.zone');
  });

  it('renders an empty catalog as SOA, NS and version alone', async () => {
    await expect(renderCatalog({ ...twoMembers, members: [] })).toMatchFileSnapshot('../fixtures/catalog/empty.zone');
  });

  it('renders the same text whatever the order of the members', () => {
    expect(renderCatalog({ ...twoMembers, members: [...twoMembers.members].reverse() })).toBe(renderCatalog(twoMembers));
  });

  it('labels a member by its zone\'s lifetime alone: the same uid the same label, another lifetime of the name another', () => {
    const [first] = twoMembers.members;
    expect(catalogLabel(first!.uid)).toBe(catalogLabel(first!.uid));
    expect(catalogLabel(first!.uid)).toMatch(/^[0-9a-f]{16}$/);
    expect(catalogLabel('1c2d3e4f-0000-4000-8000-000000000000')).not.toBe(catalogLabel(first!.uid));
    // Renamed catalog or changed serial: the members keep their labels.
    const labels = (text: string): string[] => text.split('\n').filter((l) => l.includes(' PTR ')).map((l) => l.split('.')[0]!);
    expect(labels(renderCatalog({ ...twoMembers, serial: 7 }))).toEqual(labels(renderCatalog(twoMembers)));
  });

  it('gives 10,000 zones 10,000 different labels', () => {
    const labels = new Set(Array.from({ length: 10_000 }, () => catalogLabel(crypto.randomUUID())));
    expect(labels.size).toBe(10_000);
  });
});

const hasKzonecheck = spawnSync('kzonecheck', ['--version']).error === undefined;

describe.skipIf(!hasKzonecheck)(`the catalog under kzonecheck${hasKzonecheck ? '' : ' (skipped: kzonecheck not installed)'}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'hostplane-catalog-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is a zone Knot loads', () => {
    const file = join(dir, 'catalog.invalid.zone');
    writeFileSync(file, renderCatalog(twoMembers));
    const r = spawnSync('kzonecheck', ['-o', 'catalog.invalid.', file], { encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });
});
