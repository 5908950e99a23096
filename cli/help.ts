/** What `hostplane help` and every `--help` print, made from the tables the parser and the admin dispatcher
 * use (FLAG_HELP, ADMIN_COMMANDS): help cannot list a flag the parser does not take, nor miss one. */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOG_LEVELS } from '../lib/log';
import { EVERY_ADMIN_COMMAND, flagsOfAdmin, synopsis, usageOf, type AdminCommand } from './admin';
import { FLAG_HELP, flagsOf, shownDefault, type FlagName, type ServerCommand } from './options';

const WIDTH = 100;
const INDENT = '      ';

/** `text` in lines of at most WIDTH columns (a longer word gets a line of its own), each after `indent`. */
export function wrap(text: string, indent = INDENT): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join('\n');
}

/** One flag: `  --port N  (default: 8080)` and what it means below it. */
export function flagHelp(name: FlagName): string {
  const { arg } = FLAG_HELP[name];
  return `  --${name}${arg ? ` ${arg}` : ''}  (default: ${shownDefault(name)})\n${wrap(FLAG_HELP[name].help)}`;
}

/** The package's version, from the package.json above this file (in the sources and in dist/ alike). */
export function version(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'hostplane' && pkg.version) return pkg.version;
    } catch {
      // not here: one level up
    }
  }
  return 'unknown';
}

export const SERVER_HELP: Record<ServerCommand, string> = {
  serve: 'everything in one process: the API, the core, the reconcilers and the Knot DNS supervisor. One serve or core owns a data dir at a time.',
  api: 'the API of the split deployment, on the data dir of a `hostplane core`; without --core-url it serves what needs no core.',
  core: 'the core of the split deployment: the sealing key, the nameserver it supervises and the reconcilers.',
};

const ADMIN_SUMMARY = 'the operator CLI: bootstraps what the API does not (organizations, users, memberships, tokens, nodes, the platform\'s own zones). It prints JSON on stdout; the list commands print aligned columns, or JSON with --json.';

/** `hostplane help`, `hostplane --help`. */
export function mainHelp(): string {
  const commands: [string, string][] = [
    ['serve', SERVER_HELP.serve.split('. ')[0]!],
    ['api', 'the API of the split deployment'],
    ['core', 'the core of the split deployment'],
    ['node-agent', 'the reference node: runs the projects placed on a node (hostplane node-agent --help)'],
    ['admin', 'the operator CLI (hostplane admin --help lists its commands)'],
    ['help [command]', 'describes hostplane, or a command'],
  ];
  return [
    `hostplane ${version()}: the control plane of an application hosting platform`,
    '',
    'usage: hostplane <command> [flags]',
    '',
    'commands:',
    ...commands.map(([c, h]) => `  ${c.padEnd(16)}${h}`),
    '',
    'flags of every command:',
    '  -h, --help      describes the command and its flags',
    '  -v, --version   prints the version',
    '',
    'environment:',
    '  HOSTPLANE_LOG_LEVEL  (default: info)',
    wrap(`level of the JSON log lines on stderr: one of ${LOG_LEVELS.join(', ')}`),
    '',
    '`hostplane <command> --help` lists the command\'s flags with their defaults. A failure prints',
    '`hostplane: <message>` on stderr and exits 2 for a usage error, 1 for any other.',
  ].join('\n');
}

/** `hostplane serve --help` (api, core). */
export function serverHelp(command: ServerCommand): string {
  return [
    `usage: hostplane ${command} [flags]`,
    '',
    wrap(SERVER_HELP[command], ''),
    '',
    'flags:',
    ...flagsOf(command).map(flagHelp),
  ].join('\n');
}

export const NODE_AGENT_HELP = 'the reference node: long-polls the node\'s bundle from the control plane, writes it to D/bundle.json (mode 0600), runs a worker per placed project with its bindings (secrets as their own names, SERVICE_STORAGE_DIR, SERVICE_STORAGE_QUOTA_BYTES, SERVICE_DB_PATH), routes requests by Host to them behind the deployment access gate (HTTPS with --tls-cert), replaces a worker with no downtime when its bindings change, and reports the applied version and storage usage. When the control plane cannot be reached it keeps serving the last bundle.';

/** `hostplane node-agent --help`. */
export function nodeAgentHelp(): string {
  return [
    'usage: hostplane node-agent --node ID --token-file FILE --dir D --control URL [flags]',
    '',
    wrap(NODE_AGENT_HELP, ''),
    '',
    'flags:',
    ...flagsOf('node-agent').map(flagHelp),
  ].join('\n');
}

const commandLine = (c: Omit<AdminCommand, 'run'>): string => `  ${synopsis(c)}\n${wrap(c.help)}`;

/** `hostplane admin --help`. */
export function adminHelp(): string {
  const used = new Set<FlagName>(EVERY_ADMIN_COMMAND.flatMap(flagsOfAdmin));
  return [
    'usage: hostplane admin --data DIR <command> [arguments] [flags]',
    '',
    wrap(ADMIN_SUMMARY, ''),
    '',
    'commands (`hostplane admin <command> --help` describes one):',
    ...EVERY_ADMIN_COMMAND.map(commandLine),
    '',
    'flags:',
    ...flagsOf('admin').filter((f) => used.has(f)).map(flagHelp),
  ].join('\n');
}

/** `hostplane admin <group> --help` (`token`): its commands. */
export function adminGroupHelp(words: string[], commands: Omit<AdminCommand, 'run'>[]): string {
  return [
    `usage: hostplane admin --data DIR ${words.join(' ')} <command> [arguments] [flags]`,
    '',
    `commands (\`hostplane admin ${words.join(' ')} <command> --help\` describes one):`,
    ...commands.map(commandLine),
  ].join('\n');
}

/** `hostplane admin <command> --help`. */
export function adminCommandHelp(c: Omit<AdminCommand, 'run'>): string {
  return [
    `usage: ${usageOf(c)}`,
    '',
    wrap(c.help, ''),
    '',
    'flags:',
    ...flagsOfAdmin(c).map(flagHelp),
  ].join('\n');
}
