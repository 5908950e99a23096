/** A CLI that explains itself: `help`, `--help` of every command (made from the parser's own table, and held
 * here to the flag tables of docs/configuration.md), `--version`, one error format with exit 2 for usage errors, and the log
 * level checked before anything starts. */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERY_ADMIN_COMMAND } from '../../cli/admin';
import { OPTIONS } from '../../cli/options';
import { createLogger } from '../../lib/log';
import { BIN, cleanup, ROOT, runHostplane, tempDir, type CliResult } from '../helpers/proc';

afterAll(cleanup);

interface FlagDoc { arg: string; default: string; meaning: string; commands: string[] }

/** The flags a `--help` text lists: `  --name ARG  (default: D)` and the indented lines that follow. */
function flagsInHelp(text: string): Map<string, Omit<FlagDoc, 'commands'>> {
  const flags = new Map<string, Omit<FlagDoc, 'commands'>>();
  let current: Omit<FlagDoc, 'commands'> | undefined;
  for (const line of text.split('\n')) {
    const m = /^ {2}--([a-z-]+)(?: (\S+))? {2}\(default: (.*)\)$/.exec(line);
    if (m) {
      current = { arg: m[2] ?? '', default: m[3]!, meaning: '' };
      flags.set(m[1]!, current);
    } else if (current && line.startsWith('      ')) {
      current.meaning = `${current.meaning} ${line.trim()}`.trim();
    } else {
      current = undefined;
    }
  }
  return flags;
}

/** The rows of the flag tables of docs/configuration.md (`| flag | commands | default | meaning |`). */
function flagsInConfigurationPage(): Map<string, FlagDoc> {
  const flags = new Map<string, FlagDoc>();
  for (const line of readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8').split('\n')) {
    if (!/^\s*\| `--/.test(line)) continue;
    const cells = line.trim().slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
    expect(cells, line).toHaveLength(4);
    const m = /^`--([a-z-]+)(?: (.+))?`$/.exec(cells[0]!);
    expect(m, line).not.toBeNull();
    flags.set(m![1]!, { arg: m![2] ?? '', commands: cells[1]!.split(', '), default: cells[2]!.replace(/`/g, ''), meaning: cells[3]! });
  }
  return flags;
}

const ok = async (...args: string[]): Promise<string> => {
  const r = await runHostplane(args);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
};

describe('help', () => {
  const help: Record<string, string> = {};
  beforeAll(async () => {
    [help.main, help.helpCmd, help.serve, help.api, help.core, help.admin, help.helpServe, help['node-agent']] = await Promise.all([
      ok('--help'), ok('help'), ok('serve', '--help'), ok('api', '-h'), ok('core', '--help'), ok('admin', '--help'), ok('help', 'serve'),
      ok('node-agent', '--help'),
    ]);
  }, 60_000);

  it('hostplane help lists every command and the environment', () => {
    expect(help.helpCmd).toBe(help.main);
    for (const c of ['serve', 'api', 'core', 'node-agent', 'admin', 'help']) expect(help.main).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    expect(help.main).toContain('HOSTPLANE_LOG_LEVEL  (default: info)');
    expect(help.main).toContain('--version');
    expect(help.helpServe).toBe(help.serve);
  });

  it('docs/configuration.md and --help agree: every flag, its argument, commands, default and meaning', () => {
    const fromHelp = new Map<string, FlagDoc>();
    for (const command of ['serve', 'api', 'core', 'admin', 'node-agent']) {
      for (const [name, doc] of flagsInHelp(help[command]!)) {
        const seen = fromHelp.get(name);
        if (seen) {
          expect({ ...doc, commands: seen.commands }, `--${name} in ${command} --help`).toEqual(seen);
          seen.commands.push(command);
        } else {
          fromHelp.set(name, { ...doc, commands: [command] });
        }
      }
    }
    const documented = flagsInConfigurationPage();
    expect([...documented.keys()].sort()).toEqual([...fromHelp.keys()].sort());
    for (const [name, doc] of fromHelp) expect(documented.get(name), `--${name}`).toEqual({ ...doc, default: doc.default.replace(/`/g, '') });
  });

  it('every flag the parser takes is described, but --help and --version, which every command takes', () => {
    const described = new Set(['serve', 'api', 'core', 'admin', 'node-agent'].flatMap((c) => [...flagsInHelp(help[c]!).keys()]));
    expect([...described].sort()).toEqual(Object.keys(OPTIONS).filter((f) => f !== 'help' && f !== 'version').sort());
  });

  it('admin --help lists every admin command; admin <command> --help describes it with its flags', async () => {
    for (const c of EVERY_ADMIN_COMMAND.map((x) => x.name)) expect(help.admin).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    const tokenCreate = await ok('admin', 'token', 'create', '--help');
    expect(tokenCreate).toMatch(/^usage: hostplane admin --data DIR token create <email> \[--name NAME\] \[--expires-in DURATION\] \[--expires-at TIME\]\n/);
    expect([...flagsInHelp(tokenCreate).keys()]).toEqual(['data', 'database-url', 'name', 'expires-in', 'expires-at']);
    expect(await ok('help', 'admin', 'token', 'create')).toBe(tokenCreate);
    expect([...flagsInHelp(await ok('admin', 'org', 'list', '--help')).keys()]).toEqual(['data', 'database-url', 'json']);
    expect(await ok('admin', 'help', 'token', 'create')).toBe(tokenCreate);
  });

  it('admin migrate-store --help names its required --from and no --data: it opens the stores its flags name', async () => {
    const migrate = await ok('admin', 'migrate-store', '--help');
    expect(migrate).toMatch(/^usage: hostplane admin migrate-store --from DIR \[--to URL\]\n/);
    expect([...flagsInHelp(migrate).keys()]).toEqual(['from', 'to']);
  });

  it('admin <group> --help lists the group\'s commands, as do admin help <group> and help admin <group>', async () => {
    const token = await ok('admin', 'token', '--help');
    expect(token).toMatch(/^usage: hostplane admin --data DIR token <command>/);
    for (const c of ['token create', 'token list', 'token revoke']) expect(token).toMatch(new RegExp(`^  ${c}\\b`, 'm'));
    expect(token).not.toMatch(/^  org /m);
    expect(await ok('admin', 'help', 'token')).toBe(token);
    expect(await ok('help', 'admin', 'token')).toBe(token);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await ok('--version')).toBe(`hostplane ${version}\n`);
    expect(await ok('-v')).toBe(`hostplane ${version}\n`);
  });
});

describe('one error format: `hostplane: <message>` on stderr, exit 2 for usage errors', () => {
  const cases: [string, string[], string][] = [
    ['no command', [], 'a command is needed: serve, api, core or admin (hostplane help describes them)'],
    ['an unknown command', ['deploy'], 'unknown command deploy (hostplane help lists the commands)'],
    ['help of an unknown command', ['help', 'deploy'], 'unknown command deploy (hostplane help lists the commands)'],
    ['an unknown flag', ['serve', '--prot', '80'], 'unknown flag --prot (hostplane serve --help lists the flags)'],
    ['a flag without its value', ['serve', '--port'], '--port needs a value (hostplane serve --help lists the flags)'],
    ['a flag of another command', ['api', '--dns', 'off'], 'api takes no --dns (hostplane api --help lists its flags)'],
    ['an admin flag on a server', ['serve', '--json'], 'serve takes no --json (hostplane serve --help lists its flags)'],
    ['an unknown admin command', ['admin', 'org', 'delete', 'acme'], 'unknown admin command org delete acme (hostplane admin --help lists them)'],
    ['an admin group without its command', ['admin', 'token'], 'admin token needs a subcommand: create, list, revoke (hostplane admin token --help describes them)'],
    ['help of an unknown admin command', ['admin', 'nope', '--help'], 'unknown command admin nope (hostplane help lists the commands)'],
    ['admin migrate-store without --from', ['admin', 'migrate-store', '--to', 'postgres://localhost/db'], 'usage: hostplane admin migrate-store --from DIR [--to URL]'],
    ['admin migrate-store with --data', ['admin', 'migrate-store', '--data', 'd', '--from', 'd'], 'admin migrate-store takes no --data (hostplane admin migrate-store --help lists its flags)'],
    ['admin migrate-store to a URL that is none', ['admin', 'migrate-store', '--from', 'd', '--to', 'not a url'], '--to is not a URL (postgres://user:password@host:port/database)'],
  ];
  it.concurrent.each(cases)('%s', async (_label, args, message) => {
    const r = await runHostplane(args);
    expect(r).toEqual({ code: 2, stdout: '', stderr: `hostplane: ${message}\n` });
  });
});

describe('logging', () => {
  const withEnv = (args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> => new Promise((res) => {
    execFile(BIN, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 20_000 }, (error, stdout, stderr) => {
      res({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });

  it.concurrent.each(['serve', 'api', 'core'])('%s with an unknown HOSTPLANE_LOG_LEVEL stops before it starts anything, exit 2', async (command) => {
    const dir = tempDir('hostplane-loglevel-');
    const r = await withEnv([command, '--data', dir, '--port', '0', '--metrics-listen', 'off'], { HOSTPLANE_LOG_LEVEL: 'verbose' });
    expect(r).toEqual({
      code: 2, stdout: '',
      stderr: 'hostplane: unknown HOSTPLANE_LOG_LEVEL "verbose" (one of fatal, error, warn, info, debug, trace, silent)\n',
    });
  });

  it('log lines carry an ISO 8601 time', () => {
    const lines: string[] = [];
    const log = createLogger({ destination: new Writable({ write: (c, _e, cb) => { lines.push(String(c)); cb(); } }) });
    log.info('hello');
    const line = JSON.parse(lines[0]!) as { time: string; msg: string };
    expect(line.msg).toBe('hello');
    expect(line.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Math.abs(Date.parse(line.time) - Date.now())).toBeLessThan(60_000);
  });
});
