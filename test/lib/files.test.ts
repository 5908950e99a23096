import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceFile, stageFile } from '../../lib/files';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hostplane-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('stageFile', () => {
  const cases: { name: string; before: string | null; steps: ('place' | 'keep' | 'undo')[]; after: string | null }[] = [
    { name: 'placed and kept: the new text, nothing aside', before: 'old', steps: ['place', 'keep'], after: 'new' },
    { name: 'placed and undone: the old text back', before: 'old', steps: ['place', 'undo'], after: 'old' },
    { name: 'undone before placing: the old text untouched', before: 'old', steps: ['undo'], after: 'old' },
    { name: 'no file before, placed and undone: no file', before: null, steps: ['place', 'undo'], after: null },
    { name: 'no file before, placed and kept: the new text', before: null, steps: ['place', 'keep'], after: 'new' },
  ];
  it.each(cases)('$name', ({ before, steps, after }) => {
    const path = join(dir, 'zone.example.zone');
    if (before !== null) writeFileSync(path, before);
    const staged = stageFile(path, 'new');
    // Until placed, readers see the old file.
    expect(existsSync(path) ? readFileSync(path, 'utf8') : null).toBe(before);
    for (const step of steps) staged[step]();
    expect(existsSync(path) ? readFileSync(path, 'utf8') : null).toBe(after);
    // No temp or aside file is left behind.
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('a failed write leaves no temp file and the old file as it was', () => {
    const path = join(dir, 'missing-dir', 'zone');
    expect(() => stageFile(path, 'new')).toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('replaceFile', () => {
  it('replaces the content and leaves no temp file', async () => {
    const path = join(dir, 'f');
    writeFileSync(path, 'old');
    await replaceFile(path, 'new');
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['f']);
  });
});
