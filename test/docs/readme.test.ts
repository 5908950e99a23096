/**
 * The top-level README is a front door: what hostplane is, its parts, the two set-up commands, a first
 * walk-through and where to read more. It grew to 29 KB of flag tables and essays once; these limits keep what
 * outgrows it in docs/, where docs/README.md says each thing goes.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unfenced } from '../helpers/markdown';

const readme = readFileSync(join(resolve(__dirname, '..', '..'), 'README.md'), 'utf8');

/** The body rows (without the header and its delimiter row) of each Markdown table, with the table's first line. */
function tables(markdown: string): { header: string; rows: number }[] {
  const out: { header: string; rows: number }[] = [];
  let run: string[] = [];
  const close = (): void => {
    if (run.length >= 2 && /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/.test(run[1]!)) out.push({ header: run[0]!.trim(), rows: run.length - 2 });
    run = [];
  };
  for (const line of unfenced(markdown).split('\n')) {
    if (/^\s*\|/.test(line)) run.push(line);
    else close();
  }
  close();
  return out;
}

describe('README.md', () => {
  it('is at most 8 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(8 * 1024);
  });

  it('is at most 150 lines', () => {
    expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(150);
  });

  it('has no table over 10 rows', () => {
    expect(tables(readme).filter((t) => t.rows > 10)).toEqual([]);
  });

  it('gives the two set-up commands', () => {
    const commands = [...readme.matchAll(/^```sh\n(npm [^\n]*)\n```$/gm)].map((m) => m[1]);
    expect(commands).toEqual(['npm ci && npm start', 'npm ci && npm test']);
  });
});

describe('the table counter', () => {
  it('counts body rows of each table, indented ones too, and not tables in code', () => {
    const md = '| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 | 4 |\n\ntext\n\n  | x |\n  | --- |\n  | 1 |\n\n```\n| c |\n|---|\n| 9 |\n```\n';
    expect(tables(md)).toEqual([{ header: '| a | b |', rows: 2 }, { header: '| x |', rows: 1 }]);
  });

  it('does not take lines that start with a bar but have no delimiter row for a table', () => {
    expect(tables('| not a table\n| either\n')).toEqual([]);
  });
});
