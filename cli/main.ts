/** `hostplane serve | api | core | admin`. */
import { AppError } from '../lib/errors';
import { createLogger } from '../lib/log';
import { openStore } from '../store/db';
import { ADMIN_USAGE, runAdmin } from './admin';
import { list, parse, plans } from './options';

const USAGE = `usage:
  hostplane serve [--port 8080] [--data ./data] [--dns on|off] [--dns-listen 127.0.0.1:8053]
                  [--app-domain hostplane.app] [--nameservers ns1,ns2] [--secondaries ip:port,...] [--plans plans.json]
                  [--service-domains d1,d2] [--metrics-listen 127.0.0.1:9464|off]
                  [--max-connections N] [--max-connections-per-address N] [--max-waiting-connections-per-address N]
                  [--headers-timeout-ms 10000] [--request-timeout-ms 30000]
  hostplane core  --core-token T [--port N] [--data DIR] [dns, metrics and connection flags as serve]
  hostplane api   [--core-url URL --core-token T] [--port N] [--data DIR] [--app-domain D] [--plans ...]
  ${ADMIN_USAGE.replace(/\n/g, '\n  ')}`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values: flags, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (flags.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return flags.help ? 0 : 2;
  }
  try {
    switch (command) {
      // The servers load the API, the core and the reconcilers; admin commands need only the store, so they
      // import those lazily and an operator's one-shot command starts in a fraction of the time.
      case 'serve':
        await (await import('./run')).runServe(flags, createLogger());
        return -1;
      case 'api':
        await (await import('./run')).runApi(flags, createLogger());
        return -1;
      case 'core':
        await (await import('./run')).runCore(flags, createLogger());
        return -1;
      case 'admin': {
        const store = openStore(flags.data);
        try {
          const out = await runAdmin(store, rest, { plan: flags.plan, plans: plans(flags), nameservers: list(flags.nameservers) });
          process.stdout.write(`${JSON.stringify(out)}\n`);
          return 0;
        } finally {
          store.close();
        }
      }
      default:
        process.stderr.write(`unknown command ${command}\n${USAGE}\n`);
        return 2;
    }
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
