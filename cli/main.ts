/** `hostplane serve | api | core | admin`. */
import { AppError } from '../lib/errors';
import { createLogger } from '../lib/log';
import { ADMIN_USAGE, runAdmin } from './admin';
import { list, parse, plans, type Flags, type ServerCommand } from './options';

const USAGE = `usage:
  hostplane serve [--port 8080] [--host 127.0.0.1] [--data ./data] [--dns on|off] [--dns-listen 127.0.0.1:8053]
                  [--app-domain hostplane.app] [--nameservers ns1,ns2] [--secondaries ip:port,...] [--plans plans.json]
                  [--service-domains d1,d2] [--metrics-listen 127.0.0.1:9464|off] [--incremental-from 5000]
                  [--max-connections N] [--max-connections-per-address N] [--max-waiting-connections-per-address N]
                  [--headers-timeout-ms 10000] [--request-timeout-ms 30000]
  hostplane core  --core-token T [--port N] [--data DIR] [dns, metrics and connection flags as serve]
  hostplane api   [--core-url URL --core-token T] [--port N] [--data DIR] [--app-domain D] [--plans ...]
  ${ADMIN_USAGE.replace(/\n/g, '\n  ')}`;

/** One line on stderr: a log collector or a terminal shows the whole reason, not the first line of a page. */
const oneLine = (message: string): string => message.replace(/\s*\n\s*/g, ' ');

/** Runs serve, api or core until a signal stops it; a start that fails prints one line and exits non-zero,
 * with nothing left running (run.ts stops what it started). */
async function runServer(command: ServerCommand, flags: Flags, args: string[]): Promise<number> {
  try {
    if (args.length > 0) throw new AppError(400, 'bad_request', `${command} takes no arguments, got ${args.join(' ')}`);
    const run = await import('./run');
    await { serve: run.runServe, api: run.runApi, core: run.runCore }[command](flags, createLogger());
    return -1;
  } catch (e) {
    process.stderr.write(`hostplane ${command}: ${oneLine((e as Error).message)}\n`);
    return e instanceof AppError && e.status === 400 ? 2 : 1;
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (e) {
    process.stderr.write(`hostplane: ${oneLine((e as Error).message)} (hostplane --help shows the usage)\n`);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (flags.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return flags.help ? 0 : 2;
  }
  // The servers load the API, the core and the reconcilers; admin commands need only the store, so they
  // import those lazily and an operator's one-shot command starts in a fraction of the time.
  if (command === 'serve' || command === 'api' || command === 'core') return runServer(command, flags, rest);
  if (command !== 'admin') {
    process.stderr.write(`unknown command ${command}\n${USAGE}\n`);
    return 2;
  }
  try {
    const out = await runAdmin(flags.data, rest, { plan: flags.plan, plans: plans(flags), nameservers: list(flags.nameservers) });
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof AppError) {
      process.stderr.write(`${JSON.stringify({ code: e.code, message: e.message })}\n`);
      return e.status === 400 ? 2 : 1;
    }
    process.stderr.write(`hostplane: ${(e as Error).message}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
});
