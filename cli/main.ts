/** `hostplane serve | api | core | node-agent | admin | help`. Every failure is one line on stderr, `hostplane: <message>`
 * (a server that fails to start names itself: `hostplane serve: <message>`), and the exit code says which
 * kind: 2 a usage error (a flag, an argument, the environment), 1 anything else. */
import { AppError, badRequest, messageOf } from '../lib/errors';
import { createLogger, logLevel } from '../lib/log';
import { adminGroup, findAdminCommand, runAdmin } from './admin';
import { adminCommandHelp, adminGroupHelp, adminHelp, mainHelp, nodeAgentHelp, serverHelp, version } from './help';
import { checkGiven, list, parse, plans, SERVER_COMMANDS, type FlagName, type Flags, type ServerCommand } from './options';

/** One line on stderr: a log collector or a terminal shows the whole reason, not the first line of a page. */
const oneLine = (message: string): string => message.replace(/\s*\n\s*/g, ' ');

const isServer = (c: string | undefined): c is ServerCommand => (SERVER_COMMANDS as readonly string[]).includes(c ?? '');

/** The exit code of a failure: 2 for what the caller got wrong in the command line, 1 for the rest. */
const exitCode = (e: unknown): number => (e instanceof AppError && e.status === 400 ? 2 : 1);

function fail(e: unknown, who = 'hostplane'): number {
  process.stderr.write(`${who}: ${oneLine(messageOf(e))}\n`);
  return exitCode(e);
}

/** node:util's parse errors, in our words. */
function parseError(e: Error & { code?: string }, argv: string[]): AppError {
  const command = argv[0] && !argv[0].startsWith('-') ? `hostplane ${argv[0]} --help` : 'hostplane --help';
  const unknown = /Unknown option '([^']+)'/.exec(e.message);
  if (unknown) return badRequest(`unknown flag ${unknown[1]} (${command} lists the flags)`);
  const missing = /Option '(-\S+)(?:, (--\S+))?.*argument missing/.exec(e.message);
  if (missing) return badRequest(`${missing[2] ?? missing[1]} needs a value (${command} lists the flags)`);
  return badRequest(`${e.message} (${command} lists the flags)`);
}

/** Runs serve, api or core until a signal stops it; a start that fails prints one line and exits non-zero,
 * with nothing left running (run.ts stops what it started). */
async function runServer(command: ServerCommand, flags: Flags, given: Set<FlagName>, args: string[]): Promise<number> {
  let log;
  try {
    checkGiven(command, given);
    log = createLogger({ level: logLevel() });
  } catch (e) {
    return fail(e);
  }
  try {
    if (args.length > 0) throw badRequest(`${command} takes no arguments, got ${args.join(' ')}`);
    const run = await import('./run');
    await { serve: run.runServe, api: run.runApi, core: run.runCore }[command](flags, given, log);
    return -1;
  } catch (e) {
    // Named after the command: the line lands among the service's logs (test/e2e/lifecycle.test.ts).
    return fail(e, `hostplane ${command}`);
  }
}

/** Runs the reference node until a signal stops it; like the servers, a start that fails is one line. */
async function runAgent(flags: Flags, given: Set<FlagName>, args: string[]): Promise<number> {
  let log;
  let agent;
  let settings;
  try {
    checkGiven('node-agent', given);
    if (args.length > 0) throw badRequest(`node-agent takes no arguments, got ${args.join(' ')}`);
    log = createLogger({ level: logLevel() });
    agent = await import('./node-agent');
    settings = agent.nodeAgentSettings(flags);
  } catch (e) {
    return fail(e);
  }
  try {
    await agent.runNodeAgent(settings, log);
    return -1;
  } catch (e) {
    return fail(e, 'hostplane node-agent');
  }
}

/** `help [command...]` and `--help`: what to print, or undefined for a command that does not exist. */
function helpFor(words: string[]): string | undefined {
  const [command, ...rest] = words;
  if (command === undefined || command === 'help') return mainHelp();
  if (isServer(command)) return serverHelp(command);
  if (command === 'node-agent') return nodeAgentHelp();
  if (command !== 'admin') return undefined;
  if (rest.length === 0) return adminHelp();
  const found = findAdminCommand(rest);
  if (found) return adminCommandHelp(found.command);
  const group = adminGroup(rest);
  return group.length > 0 ? adminGroupHelp(rest, group) : undefined;
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (e) {
    return fail(parseError(e as Error, argv));
  }
  const { values: flags, positionals, given } = parsed;
  const [command, ...rest] = positionals;
  if (flags.version) {
    process.stdout.write(`hostplane ${version()}\n`);
    return 0;
  }
  // `admin help [command]` as `help admin [command]`.
  if (command === 'admin' && rest[0] === 'help') return main(['help', 'admin', ...rest.slice(1)]);
  if (flags.help || command === 'help') {
    const asked = command === 'help' ? rest : positionals;
    const text = helpFor(asked);
    if (text === undefined) return fail(badRequest(`unknown command ${asked.join(' ')} (hostplane help lists the commands)`));
    process.stdout.write(`${text}\n`);
    return 0;
  }
  if (!command) return fail(badRequest('a command is needed: serve, api, core or admin (hostplane help describes them)'));
  // The servers load the API, the core and the reconcilers; admin commands need only the store, so they
  // import those lazily and an operator's one-shot command starts in a fraction of the time.
  if (isServer(command)) return runServer(command, flags, given, rest);
  if (command === 'node-agent') return runAgent(flags, given, rest);
  if (command !== 'admin') return fail(badRequest(`unknown command ${command} (hostplane help lists the commands)`));
  try {
    const out = await runAdmin(flags, given, rest, { plans: plans(flags), nameservers: list(flags.nameservers) }, (note) => {
      process.stderr.write(`${oneLine(note)}\n`);
    });
    process.stdout.write('json' in out ? `${JSON.stringify(out.json)}\n` : `${out.text}\n`);
    return 0;
  } catch (e) {
    return fail(e);
  }
}

main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
});
