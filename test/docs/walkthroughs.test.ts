/**
 * The walk-throughs (README.md's and docs/walkthrough-nodes.md) are pasted as they are, so what they run must
 * exist: every `./bin/hostplane` command with only flags its `--help` lists, every `hp` (admin) command with its
 * arguments and flags, and every `api` call an operation of the OpenAPI document with that method. Running them
 * is done by hand (the pages say on which ports); this catches a flag or a path renamed under them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiDocument } from '../../api/app';
import { findAdminCommand } from '../../cli/admin';
import { nodeAgentHelp, serverHelp } from '../../cli/help';
import { ROOT } from '../helpers/proc';

const PAGES = ['README.md', 'docs/walkthrough-nodes.md'];

/** The shell lines of a page's `sh` blocks, continuation lines joined, comment lines left out. */
function shellLines(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const blocks = [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  return blocks.flatMap((b) => b.replace(/\\\n\s*/g, ' ').split('\n')).filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
}

/** The words of a command up to where the shell ends it (a pipe, a redirection, `;`, `&`, `)`). */
const wordsOf = (rest: string): string[] => rest.split(/\s*(?:[|;&)>]|2>).*$/)[0]!.trim().split(/\s+/).filter(Boolean);

const flagsIn = (help: string): Set<string> => new Set([...help.matchAll(/^ {2}--([a-z-]+)/gm)].map((m) => m[1]!));
const HELP: Record<string, Set<string>> = {
  serve: flagsIn(serverHelp('serve')), api: flagsIn(serverHelp('api')), core: flagsIn(serverHelp('core')), 'node-agent': flagsIn(nodeAgentHelp()),
};

/** The operations of the OpenAPI document, as [method, path pattern]. */
const OPERATIONS = Object.entries((apiDocument() as { paths: Record<string, Record<string, unknown>> }).paths).flatMap(([path, ops]) =>
  Object.keys(ops).map((method) => [method.toUpperCase(), new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`)] as const));

describe.each(PAGES)('%s', (page) => {
  const lines = shellLines(page);

  it('has shell blocks to check', () => {
    expect(lines.length).toBeGreaterThan(5);
  });

  it('runs ./bin/hostplane commands with flags their --help lists', () => {
    const calls = lines.flatMap((l) => [...l.matchAll(/\.\/bin\/hostplane (\S+)(.*)/g)].map((m) => ({ command: m[1]!, words: wordsOf(m[2]!) })));
    expect(calls.length).toBeGreaterThan(0);
    for (const { command, words } of calls) {
      if (command === 'admin') {
        expect(words.slice(0, 2), 'the hp function').toEqual(['--data', './data']);
        continue;
      }
      expect(HELP[command], `./bin/hostplane ${command}`).toBeDefined();
      for (const w of words.filter((x) => x.startsWith('--'))) expect(HELP[command]!.has(w.slice(2)), `${command} ${w}`).toBe(true);
    }
  });

  it('runs hp commands that exist, with their arguments and flags', () => {
    const calls = lines.flatMap((l) => [...l.matchAll(/(?:^|\$\(|;\s*)hp ([^)|;&]*)/g)].map((m) => wordsOf(m[1]!)));
    expect(calls.length).toBeGreaterThan(0);
    for (const words of calls) {
      const found = findAdminCommand(words);
      expect(found, `hp ${words.join(' ')}`).toBeDefined();
      const flags = found!.rest.filter((w) => w.startsWith('--')).map((w) => w.slice(2));
      expect(found!.rest.length - flags.length, `hp ${words.join(' ')}: arguments`).toBe(found!.command.args.length);
      for (const f of flags) expect(found!.command.flags as readonly string[], `hp ${words.join(' ')}`).toContain(f);
    }
  });

  it('calls operations of the API with their methods', () => {
    const calls = lines.flatMap((l) => [...l.matchAll(/\bapi ((?:-X \S+ )?)(?:-\S+ )*"?\$API([^\s"?]*)/g)]
      .map((m) => ({ method: m[1]!.trim().split(' ')[1] ?? 'GET', path: `/v1/orgs/acme${m[2]!}` })));
    expect(calls.length).toBeGreaterThan(0);
    for (const { method, path } of calls) {
      expect(OPERATIONS.some(([m, re]) => m === method && re.test(path)), `${method} ${path}`).toBe(true);
    }
  });
});
