/**
 * Every relative link in README.md and docs/*.md names a file or directory of the repository (and, when it
 * names a heading of a Markdown file, that heading): a reader who follows one never lands outside the repo or
 * on nothing. Links with a scheme (https:, mailto:) and pure in-page anchors of other files are left alone.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unfenced } from '../helpers/markdown';

const root = resolve(__dirname, '..', '..');
const docs = join(root, 'docs');
const pages = [join(root, 'README.md'), ...readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => join(docs, f))];

/** Markdown without its fenced and inline code, where brackets are not links. */
const prose = (text: string): string => unfenced(text).replace(/`[^`\n]*`/g, '');

/** Inline links and images `[text](target "title")`, and reference definitions `[id]: target`. */
function links(text: string): string[] {
  const body = prose(text);
  const out: string[] = [];
  for (const m of body.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push(m[1]!);
  for (const m of body.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/gm)) out.push(m[1]!);
  return out;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, duplicates numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of unfenced(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const external = (target: string): boolean => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

describe.each(pages.map((p) => [relative(root, p), p]))('%s', (_name, page) => {
  const text = readFileSync(page, 'utf8');
  const relativeLinks = links(text).filter((t) => !external(t));

  it('links only to files inside the repository that exist', () => {
    const broken: string[] = [];
    for (const target of relativeLinks) {
      const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
      if (pathPart === '') {
        if (anchor !== undefined && !anchors(text).has(anchor)) broken.push(`${target} (no such heading here)`);
        continue;
      }
      const file = resolve(dirname(page), decodeURIComponent(pathPart));
      const rel = relative(root, file);
      if (rel.startsWith('..') || resolve(root, rel) !== file) {
        broken.push(`${target} (outside the repository)`);
        continue;
      }
      if (!existsSync(file)) {
        broken.push(`${target} (no such file)`);
        continue;
      }
      if (anchor !== undefined && statSync(file).isFile() && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${target} (no heading #${anchor} in ${rel})`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the link scanner', () => {
  it('finds inline links, images and reference definitions, not code', () => {
    const md = '[a](x.md) ![b](img/y.png "t") `[c](no.md)`\n```\n[d](no2.md)\n```\n[ref]: ./z.md\n';
    expect(links(md)).toEqual(['x.md', 'img/y.png', './z.md']);
  });

  it('makes the anchors GitHub makes', () => {
    expect([...anchors('# The store: the write contract\n## Waiting for convergence (from the API side)\n### Node bundles (`reconcilers/bundles.ts`)\n## A\n## A\n')])
      .toEqual(['the-store-the-write-contract', 'waiting-for-convergence-from-the-api-side', 'node-bundles-reconcilersbundlests', 'a', 'a-1']);
  });

  it('reads every page', () => {
    expect(pages.length).toBeGreaterThan(1);
    expect(pages.map((p) => relative(root, p))).toContain('README.md');
  });
});
