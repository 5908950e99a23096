/** Flags shared by the `serve`, `api`, `core` and `admin` commands, with their defaults. */
import { lookup } from 'node:dns/promises';
import { parseArgs } from 'node:util';
import { badRequest } from '../lib/errors';
import { connectionLimits, DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, descriptorLimit, type HardeningOptions } from '../lib/http/http-server';
import { DEFAULT_PLANS, readPlans, type Plans } from '../rules/plans';
import { readProviderEndpoints, REAL_ENDPOINTS, type ProviderEndpointTable } from '../rules/oauth-providers';
import { rateLimitFlag } from '../lib/http/rate-limit';
import { readFileSync } from 'node:fs';
import { parseHostPort, parseTsigKey, type TsigKey } from '../providers/nameserver/knot-config';
import { parseResolverAddress } from '../providers/resolver';
import { DEFER_FILE_RRSETS } from '../reconcilers/zones/apply';
import { checkName, checkZoneName } from '../zonefiles/names';
import { checkHostname, defaultFallbackOrigin } from '../rules/hostnames';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { databaseUrlOf } from '../store/open';

/** The parser's flags (node:util parseArgs) with their defaults; FLAG_HELP says what each one means. */
export const OPTIONS = {
  port: { type: 'string', default: '8080' },
  host: { type: 'string', default: '127.0.0.1' },
  'advertise-url': { type: 'string' },
  data: { type: 'string', default: './data' },
  'database-url': { type: 'string' },
  // No parser default: it lies in --data (core/sealing.ts defaultKeyPath).
  'sealing-key': { type: 'string' },
  'app-domain': { type: 'string', default: 'hostplane.app' },
  plans: { type: 'string' },
  plan: { type: 'string', default: 'free' },
  'core-url': { type: 'string' },
  'core-token': { type: 'string' },
  dns: { type: 'string', default: 'on' },
  'dns-listen': { type: 'string', default: '127.0.0.1:8053' },
  nameservers: { type: 'string', default: 'ns1.hostplane.net,ns2.hostplane.net' },
  secondaries: { type: 'string', default: '' },
  'catalog-zone': { type: 'string', default: 'catalog.invalid' },
  'tsig-key': { type: 'string' },
  resolver: { type: 'string' },
  'service-domains': { type: 'string', default: '' },
  'defer-file-from': { type: 'string', default: String(DEFER_FILE_RRSETS) },
  'metrics-listen': { type: 'string', default: '127.0.0.1:9464' },
  'max-connections': { type: 'string' },
  'max-connections-per-address': { type: 'string' },
  'max-waiting-connections-per-address': { type: 'string' },
  'headers-timeout-ms': { type: 'string', default: String(DEFAULT_HEADERS_TIMEOUT_MS) },
  'request-timeout-ms': { type: 'string', default: String(DEFAULT_REQUEST_TIMEOUT_MS) },
  'rate-limit': { type: 'string' },
  'edge-url': { type: 'string' },
  'fallback-origin': { type: 'string' },
  'edge-addresses': { type: 'string', default: '' },
  'verify-interval-ms': { type: 'string', default: '60000' },
  'hostname-expiry': { type: 'string', default: '7d' },
  registrar: { type: 'string', default: 'on' },
  'registrar-url': { type: 'string' },
  'payment-url': { type: 'string' },
  'purchase-abandon-after': { type: 'string', default: '24h' },
  'domain-sync-interval': { type: 'string', default: '6h' },
  'domain-renew-before': { type: 'string', default: '30d' },
  // No parser default: serve's and core's differ (oauthProviders).
  'oauth-providers': { type: 'string' },
  name: { type: 'string', default: 'cli' },
  'expires-in': { type: 'string' },
  'expires-at': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'trust-proxy': { type: 'boolean' },
  node: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  dir: { type: 'string' },
  control: { type: 'string' },
  worker: { type: 'string' },
  listen: { type: 'string', default: '127.0.0.1:8090' },
  ca: { type: 'string' },
  'report-interval-ms': { type: 'string', default: '10000' },
  'worker-uid-base': { type: 'string', default: '2000000000' },
  'allow-shared-user': { type: 'boolean' },
  'http-listen': { type: 'string' },
  'dashboard-url': { type: 'string' },
  'access-session': { type: 'string', default: '24h' },
  json: { type: 'boolean' },
  from: { type: 'string' },
  to: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

export type FlagName = keyof typeof OPTIONS;
export type Command = 'serve' | 'api' | 'core' | 'admin' | 'node-agent';
export const SERVER_COMMANDS = ['serve', 'api', 'core'] as const;
const ALL = SERVER_COMMANDS;

/** What `--help` and the flag tables of docs/configuration.md say about each flag. The type makes it exhaustive: a flag the
 * parser knows and help does not explain does not compile. */
export interface FlagHelp {
  /** The value's placeholder (`N`, `DIR`); none for a switch. */
  arg?: string;
  /** The default as shown, where it is not the parser's own (a computed one, or none). */
  shown?: string;
  /** The commands that take it (admin: `ADMIN_COMMANDS` says which of its commands). */
  commands: readonly Command[];
  help: string;
}

export const FLAG_HELP: Record<FlagName, FlagHelp> = {
  port: {
    arg: 'N', commands: ALL,
    help: 'listen port; `0` picks a free one (the first line `./bin/hostplane serve` prints says which; `npm start -- --port 0` prints npm\'s banner before it)',
  },
  host: { arg: 'H', commands: ALL, help: 'listen address' },
  'advertise-url': {
    arg: 'URL', shown: 'HOSTPLANE_ADVERTISE_URL, else the listening URL', commands: ALL,
    help: 'the URL (`http://10.0.0.1:8080`: scheme, address, port) at which the other processes of the installation reach this one: the leader lease and `admin status` name it, and followers send the leader its forwarded calls there. Needed when `--host` listens on every address (`0.0.0.0`, `::`), which no other machine can send to: `serve` and `core` with PostgreSQL as the store refuse to start so without it',
  },
  data: {
    arg: 'DIR', commands: [...ALL, 'admin'],
    help: 'SQLite store (WAL, synced before each write is answered), sealing key file (mode 0600), zone files, Knot\'s state',
  },
  'database-url': {
    arg: 'URL', shown: 'HOSTPLANE_DATABASE_URL, else SQLite in --data', commands: [...ALL, 'admin'],
    help: 'PostgreSQL as the store (`postgres://USER[:PASS]@HOST:PORT/DB`, or `postgres://USER@localhost/DB?host=/socket/dir`; TLS with `sslmode=` `require`, `verify-ca` or `verify-full`, and `sslrootcert`, `sslcert`, `sslkey` as libpq names them; no other URL parameter; given empty it is refused): several processes and machines share it; the schema is created on first start. The password never reaches logs or `admin status`; pass it in the environment variable to keep it off the command line',
  },
  'sealing-key': {
    arg: 'FILE', shown: 'DATA/sealing.key', commands: ['serve', 'core'],
    help: 'the keys that seal secret values, OAuth client secrets, bundles and purchase contacts: give every `serve` and `core` of an installation the same file, and back it up with the store. Created (mode 0600) when missing, but only while the store holds nothing sealed; a file that does not open the store\'s sealed values is refused at start, naming it, before anything is written. A data dir with only the `sealing-keys.json` of an older version keeps using that file',
  },
  'app-domain': { arg: 'D', commands: ['serve', 'api'], help: 'projects get the default hostname `<project>.<D>`' },
  plans: {
    arg: 'FILE', shown: 'the built-in free and pro plans', commands: ['serve', 'api', 'core', 'admin'],
    help: 'the plan table as a JSON file, replacing the default one as a whole: `{"free": {"projects": 3, "zones": 50, "rrsetsPerZone": 5000, "zoneBytes": 5242880, "storageBytes": 1073741824, "signInUsers": 5000, "hostnames": 20, "secretValueBytes": 32768, "secretBytes": 65536}, ...}` (every limit given)',
  },
  plan: { arg: 'PLAN', commands: ['admin'], help: 'the plan of a new organization: a name in the plan table' },
  'core-url': { arg: 'URL', commands: ['api'], help: 'address of a separate `hostplane core`; without it core operations answer 503 `no_core`' },
  'core-token': { arg: 'T', shown: 'HOSTPLANE_CORE_TOKEN', commands: ['api', 'core'], help: 'shared secret between `api` and `core`' },
  dns: { arg: 'on|off', commands: ['serve', 'core'], help: '`off`: no own DNS, DNS operations answer 503 `dns_not_configured`' },
  'dns-listen': { arg: 'IP:PORT', commands: ['serve', 'core'], help: 'where the managed Knot DNS (hidden primary) answers; port `0` picks one free for UDP and TCP, named as `dns` in the first stdout line' },
  nameservers: { arg: 'a,b', commands: ['serve', 'core', 'admin'], help: 'public nameserver names: zones\' NS and SOA MNAME' },
  secondaries: {
    arg: 'IP:PORT,...', commands: ['serve', 'core'],
    help: 'public secondaries: NOTIFY goes to them and they may transfer (IXFR/AXFR); their serials show in each zone\'s status',
  },
  'catalog-zone': {
    arg: 'NAME', commands: ALL,
    help: 'the catalog zone (RFC 9432) listing every zone, for secondaries to learn the zone set from; tenants cannot create a zone of this name',
  },
  'tsig-key': {
    arg: 'FILE', commands: ['serve', 'core'],
    help: 'a TSIG key (as `tsig-keygen NAME` or `keymgr -t NAME` writes it): NOTIFY is signed with it and transfers need it',
  },
  resolver: {
    arg: 'IP[:PORT],...', shown: 'the system\'s', commands: ['serve', 'core'],
    help: 'the resolvers asked as public DNS: zones\' delegation and parent DS checks, custom hostnames\' ownership proofs, a bought domain\'s delegation. On one machine, where nothing is delegated to it, give serve its own Knot DNS (its `--dns-listen`, as `127.0.0.1:8053`) so that names in its zones resolve; never in production, where a zone anyone creates would then prove itself. What tenants read of a failed lookup (ALIAS, hostname proofs) says "the resolver", never its address; since the system\'s resolver may know the service\'s own network, ALIAS targets are served only their public addresses, and what tenants read of a custom hostname\'s proofs and `Resolves` is the same for a name that does not exist and one without the record, and shows what is there only at a name in public DNS (a CNAME target only in public DNS too, addresses only public ones); the operators\' log (debug) has the whole answer',
  },
  'service-domains': {
    arg: 'a,b', commands: ['serve', 'api'],
    help: 'domains of the service besides the app domain and the nameservers\' registrable domain: tenants cannot create zones at or under any of them (`admin zone create` can)',
  },
  'defer-file-from': {
    arg: 'N', commands: ['serve', 'core'],
    help: "zones with at least N rrsets have their zone file written apart from their changes, within 5 s (Knot's journal holds the changes meanwhile); smaller zones get theirs with each change",
  },
  'metrics-listen': {
    arg: 'HOST:PORT', commands: ALL,
    help: 'where `serve`, `api` and `core` serve `GET /metrics`; `off` disables it, port `0` picks a free one; the default, when another process holds it, is left for a free port with a warning (given, it must be free)',
  },
  'max-connections': {
    arg: 'N', shown: 'descriptor limit − reserve', commands: ALL,
    help: 'open connections of the `--port` listener; the reserve (an eighth of the limit, 128 to 1024) keeps descriptors for the store, zone files, Knot and the metrics listener; over it: 503 `overloaded` with `Retry-After`',
  },
  'max-connections-per-address': {
    arg: 'N', shown: '¾ of `--max-connections`', commands: ALL,
    help: 'open connections from one address (IPv6: one /64), busy or not: room for many nodes long-polling from behind one NAT',
  },
  'max-waiting-connections-per-address': {
    arg: 'N', shown: '⅛ of `--max-connections`, 8 to 1024', commands: ALL,
    help: 'connections from one address with no request being answered (sending headers, idle keep-alive): what slow clients hold',
  },
  'headers-timeout-ms': { arg: 'N', commands: ALL, help: 'a request\'s headers must arrive within this; then 408 `request_timeout`' },
  'request-timeout-ms': {
    arg: 'N', commands: ALL,
    help: 'a request\'s body must have arrived within this; answering it is not limited (long-polls)',
  },
  'rate-limit': {
    arg: 'N/s', shown: 'off', commands: ['serve', 'api'],
    help: 'requests per token (`N/s`, `N/min` or `N/h`: a burst of N, then N a window); over it 429 `rate_limited` with `Retry-After` and the `RateLimit` headers; each API process counts for itself',
  },
  'edge-url': {
    arg: 'URL', shown: 'a sandbox on loopback', commands: ['serve', 'core'],
    help: 'the edge provider\'s custom-hostname API: active custom hostnames are registered there and their certificate status read; without it a sandbox edge of ours runs in the process',
  },
  'fallback-origin': {
    arg: 'HOST', shown: '`edge.` + the nameservers\' registrable domain', commands: ALL,
    help: 'the managed records\' CNAME target; customers point a custom hostname\'s CNAME at their organization\'s label under it (`o-<hex>.HOST`, the verify guidance and the CNAME proof), so serve `*.HOST` at the edge too; tenants cannot take its registrable domain, or a name under it, as a zone or a custom hostname; give `api` and `core` the same',
  },
  'edge-addresses': {
    arg: 'IP,...', commands: ['serve', 'core'],
    help: 'the edge\'s addresses: a custom hostname at a zone apex of ours gets A/AAAA records of them (a CNAME cannot be there), and an apex resolving to them `Resolves`',
  },
  'verify-interval-ms': {
    arg: 'N', commands: ['serve', 'core'],
    help: 'how often every pending and active custom hostname is judged again (ownership proofs, `Resolves`, the edge\'s certificate)',
  },
  'hostname-expiry': {
    arg: 'DURATION', commands: ['serve', 'core'],
    help: 'a custom hostname still `pending_dns` this long after it was added is deleted, so that names cannot be held forever: a number and `m`, `h` or `d`',
  },
  registrar: {
    arg: 'on|off', commands: ['serve', 'core'],
    help: '`off`: no registrar and payment provider, checkDomains and purchaseDomain (and the registrar\'s other operations) answer 503 `registrar_not_configured`',
  },
  'registrar-url': {
    arg: 'URL', shown: 'a sandbox on loopback', commands: ['serve', 'core'],
    help: 'the registrar\'s API: domains are checked, registered, renewed, locked and synced there; without it a sandbox registrar of ours runs in the process',
  },
  'payment-url': {
    arg: 'URL', shown: 'a sandbox on loopback', commands: ['serve', 'core'],
    help: 'the payment provider\'s API (Stripe-shaped charges and refunds): purchases and renewals are billed there; without it a sandbox of ours runs in the process',
  },
  'purchase-abandon-after': {
    arg: 'DURATION', commands: ['serve', 'core'],
    help: 'a domain purchase not sent again this long after its last step is finished by the domain reconciler when it was charged and the name can still be registered, and refunded otherwise: a number and `s`, `m`, `h` or `d`',
  },
  'domain-sync-interval': {
    arg: 'DURATION', commands: ['serve', 'core'],
    help: 'how often every bought domain is read from the registrar (expiry, lock, nameservers, transfers out): a number and `s`, `m`, `h` or `d`',
  },
  'domain-renew-before': {
    arg: 'DURATION', commands: ['serve', 'core'],
    help: 'how long before expiry a domain with `autoRenew` is renewed (then billed): a number and `s`, `m`, `h` or `d`',
  },
  'oauth-providers': {
    arg: 'real|sandbox|FILE', shown: 'sandbox (serve), real (core)', commands: ['serve', 'core'],
    help: 'where nodes reach the sign-in providers (GitHub, Google, Kakao), as bundles tell them: `real`, the providers\' public endpoints; `sandbox`, a sandbox OAuth provider of ours started on loopback (its URL and control token in `DATA/oauth-sandbox.json`, mode 0600); or a JSON file `{"github": {"authorize": URL, "token": URL, "userInfo": URL, "emails": URL or null}, ...}` (the providers it does not name keep the real ones)',
  },
  name: { arg: 'NAME', commands: ['admin'], help: 'what to call a new token: `token list` shows it' },
  'expires-in': {
    arg: 'DURATION', commands: ['admin'],
    help: 'a new token stops working this long from now: a number and `m`, `h` or `d` (`90m`, `12h`, `30d`)',
  },
  'expires-at': { arg: 'TIME', commands: ['admin'], help: 'a new token stops working at this ISO 8601 time (`2027-01-31T00:00:00Z`)' },
  'tls-cert': {
    arg: 'FILE', commands: ['serve', 'api', 'node-agent'],
    help: 'with `--tls-key`: the API (`serve`, `api`), or the node\'s front end (`node-agent`, on `--listen`), listens with TLS (HTTPS) with this PEM certificate chain, read at start. Nodes should reach the API so (bundles carry secret values); a node without it serves plain HTTP, where projects in `org` or `password` access mode answer 403 `https_required`',
  },
  'tls-key': { arg: 'FILE', commands: ['serve', 'api', 'node-agent'], help: 'the PEM private key of `--tls-cert`' },
  'trust-proxy': {
    shown: 'off', commands: ['serve', 'api'],
    help: 'the API is reached only through a proxy that terminates TLS: its `X-Forwarded-Proto` says whether the request came over HTTPS (the console\'s cookies are then `__Host-` and Secure) and the last address of `X-Forwarded-For` is the client\'s (sign-in and authentication limits count it). Off by default: without it these headers are ignored, since a client could send them itself',
  },
  node: { arg: 'ID', commands: ['node-agent'], help: 'the node\'s id, as `admin node register` made it (required)' },
  'token-file': {
    arg: 'FILE', commands: ['node-agent'],
    help: 'a file holding the node token `admin node register` printed (or give it in HOSTPLANE_NODE_TOKEN, which the agent takes out of its environment once read)',
  },
  token: {
    arg: 'T', commands: ['node-agent'],
    help: 'the node token in the command line, which every process on the machine can read: refused as root, where workers run as their own users; use `--token-file` or HOSTPLANE_NODE_TOKEN',
  },
  dir: {
    arg: 'D', commands: ['node-agent'],
    help: 'the node\'s state (required): `bundle.json` (mode 0600; served from at start until the control plane answers), `storage/` (a directory per storage prefix), `databases/` (a directory with a SQLite file per project with a database), `logs/` (each worker\'s output), `users.json` (each project\'s worker uid index, as root), `run/` (each worker\'s Unix socket, in a directory of its project\'s user), `access.key` and `signin.key` (mode 0600, made at first start: the keys of the node\'s deployment access sessions and of sign-in\'s login cookies)',
  },
  control: { arg: 'URL', commands: ['node-agent'], help: 'the control plane (`serve` or `api`), http or https (required)' },
  worker: {
    arg: 'CMD', shown: 'the built-in worker', commands: ['node-agent'],
    help: 'the command each placed project runs (through `sh -c`) with its bindings in the environment, listening for HTTP on the Unix socket `SERVICE_SOCKET` (a worker gets no TCP port); ready once it answers there below 500',
  },
  listen: {
    arg: 'HOST:PORT', commands: ['node-agent'],
    help: 'the front end, routing by `Host` to the project\'s worker after the access gate (HTTPS with `--tls-cert`); port `0` picks a free one (the first stdout line says which)',
  },
  ca: { arg: 'FILE', commands: ['node-agent'], help: 'PEM certificates trusted for an https `--control` besides the system\'s (a private CA)' },
  'report-interval-ms': {
    arg: 'N', commands: ['node-agent'],
    help: 'reports (applied bundle version, each project\'s applied version, failure and measured `usedBytes`) go out after each applied bundle or project and at least this often',
  },
  'worker-uid-base': {
    arg: 'N', commands: ['node-agent'],
    help: 'as root, each project\'s worker runs as uid and gid N + the project\'s index (kept in `D/users.json`), owning its storage and database directories (0700); the range must be unused (and mapped, in a user namespace)',
  },
  'allow-shared-user': {
    shown: 'off', commands: ['node-agent'],
    help: 'not root, workers share the agent\'s user and can read each other\'s data and `bundle.json`: only projects of one organization run unless this is given',
  },
  'http-listen': {
    arg: 'HOST:PORT', commands: ['node-agent'],
    help: 'with `--tls-cert`: a plain HTTP listener that only redirects (308) to the same host and path on the HTTPS front end; a host no project here serves is 404',
  },
  'dashboard-url': {
    arg: 'URL', commands: ['node-agent'],
    help: 'the dashboard screen that signs members in for projects in `org` access mode (it calls authorizeAccess): the node sends browsers there with `?to=<host>&next=<path>`; without it those requests answer 503 `dashboard_not_configured`',
  },
  'access-session': {
    arg: 'DURATION', commands: ['node-agent'],
    help: 'how long a deployment access session lasts (the cookie `__Host-service-access`, after the password or the dashboard): a number and `m`, `h` or `d`, up to `365d`; a changed password or mode ends sessions at once',
  },
  json: { shown: 'off', commands: ['admin'], help: 'lists and `status` print JSON (a list: an array) instead of aligned columns' },
  from: { arg: 'DIR', commands: ['admin'], help: '`migrate-store`: the data dir whose SQLite store is copied (required)' },
  to: {
    arg: 'URL', shown: 'HOSTPLANE_DATABASE_URL', commands: ['admin'],
    help: '`migrate-store`: the empty PostgreSQL database it is copied into (`postgres://...`, as `--database-url`); its password is never printed',
  },
  help: { commands: [...ALL, 'admin'], help: 'describes the command and its flags' },
  version: { commands: [], help: 'prints the version' },
};

/** A flag's default as help and docs/configuration.md show it: `none` when it has none. */
export function shownDefault(name: FlagName): string {
  const spec = FLAG_HELP[name];
  if (spec.shown !== undefined) return spec.shown;
  const d = (OPTIONS[name] as { default?: string | boolean }).default;
  return typeof d === 'string' && d !== '' ? d : 'none';
}

/** The flags of one command, in the table's order (without `--help`, which every command takes). */
export const flagsOf = (command: Command): FlagName[] =>
  (Object.keys(FLAG_HELP) as FlagName[]).filter((f) => f !== 'help' && FLAG_HELP[f].commands.includes(command));

/** Parses argv strictly; `given` holds the flags written out, not those filled in by a default. */
export function parse(argv: string[]) {
  const { values, positionals, tokens } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true, tokens: true });
  const given = new Set(tokens.flatMap((t) => (t.kind === 'option' ? [t.name as FlagName] : [])));
  return { values, positionals, given };
}

/** Refuses flags the command does not take: ignored, `hostplane api --dns off` would look as if it did something. */
export function checkGiven(command: Command, given: Iterable<FlagName>, allowed: readonly FlagName[] = flagsOf(command), what: string = command): void {
  for (const flag of given) {
    if (flag !== 'help' && !allowed.includes(flag)) throw badRequest(`${what} takes no --${flag} (hostplane ${what} --help lists its flags)`);
  }
}

export type Flags = ReturnType<typeof parse>['values'];

export function port(flags: Flags): number {
  const n = Number(flags.port);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw badRequest(`invalid --port ${flags.port}`);
  return n;
}

/** `--plans FILE`: a JSON plan table replacing the default one as a whole. */
export function plans(flags: Flags): Plans {
  if (!flags.plans) return DEFAULT_PLANS;
  try {
    return readPlans(flags.plans);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
}

/** The shared secret between `api` and `core`: `--core-token` or HOSTPLANE_CORE_TOKEN. */
export function coreToken(flags: Flags): string | undefined {
  return flags['core-token'] ?? process.env.HOSTPLANE_CORE_TOKEN;
}

export const list = (s: string | undefined): string[] => (s ?? '').split(',').map((x) => x.trim()).filter(Boolean);

/** `--defer-file-from N`: zones with at least N rrsets have their file written apart from their changes. */
export function deferFileFrom(flags: Flags): number {
  const n = Number(flags['defer-file-from']);
  if (!Number.isInteger(n) || n < 0) throw badRequest(`invalid --defer-file-from ${flags['defer-file-from']}`);
  return n;
}

export const DURATION_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A flag's duration, a number and one of `units` (`7d`, `24h`), in milliseconds; null when it is none, or zero
 * (each flag says what it takes in its own usage error). */
export function durationMs(text: string, units: Record<string, number> = DURATION_UNITS): number | null {
  const m = /^(\d{1,6})([a-z])$/.exec(text);
  const unit = m ? units[m[2]!] : undefined;
  return m && unit !== undefined && Number(m[1]) !== 0 ? Number(m[1]) * unit : null;
}

/** A flag's value that must be an http or https URL, or the usage error saying so. */
export function httpUrlFlag(flag: string, value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw badRequest(`invalid --${flag} ${value}; expected an http or https URL`);
  return value;
}

/** Whether `host` is the unspecified address, which listens on every interface and names none to send to. */
const everyAddress = (host: string): boolean => {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return bare === '' || (isIP(bare) !== 0 && /^[0:.]+$/.test(bare));
};

/** `--advertise-url` (else HOSTPLANE_ADVERTISE_URL) as an origin, or undefined when neither is given. */
export function advertiseUrl(flags: Flags): string | undefined {
  const value = flags['advertise-url'] ?? (process.env.HOSTPLANE_ADVERTISE_URL || undefined);
  if (value === undefined) return undefined;
  const url = new URL(httpUrlFlag('advertise-url', value));
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) {
    throw badRequest(`invalid --advertise-url ${value}; expected a scheme, an address and a port only, as http://10.0.0.1:8080`);
  }
  if (everyAddress(url.hostname)) throw badRequest(`invalid --advertise-url ${value}: ${url.hostname} is every address of a machine, not one another machine can reach`);
  return url.origin;
}

/** A flag's file, read, or the usage error naming the flag, the file and why it cannot be read. */
export function readFlagFile(flag: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (e) {
    throw badRequest(`--${flag} ${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The custom hostname settings of `serve` and `core`: fallback origin, edge addresses, check interval, expiry. */
export function hostnameSettings(flags: Flags): { fallbackOrigin: string; edgeAddresses: string[]; intervalMs: number; pendingTtlMs: number } {
  const origin = (flags['fallback-origin'] ?? defaultFallbackOrigin(list(flags.nameservers))).toLowerCase().replace(/\.$/, '');
  const checked = checkHostname(origin);
  if (!checked.ok) throw badRequest(`invalid --fallback-origin ${origin}: it ${checked.reason}`);
  const edgeAddresses = list(flags['edge-addresses']);
  for (const a of edgeAddresses) if (isIP(a) === 0) throw badRequest(`invalid --edge-addresses: ${a} is not an IP address`);
  const interval = flags['verify-interval-ms'];
  const intervalMs = Number(interval);
  if (!/^\d+$/.test(interval) || intervalMs < 100) throw badRequest(`invalid --verify-interval-ms ${interval}; expected milliseconds, at least 100`);
  const pendingTtlMs = durationMs(flags['hostname-expiry']);
  if (pendingTtlMs === null) throw badRequest(`invalid --hostname-expiry ${flags['hostname-expiry']}; expected a number and m, h or d, as 7d`);
  return { fallbackOrigin: checked.name, edgeAddresses: edgeAddresses.map((a) => a.toLowerCase()), intervalMs, pendingTtlMs };
}

/** `--edge-url`: an http(s) URL, or undefined for the sandbox. */
export function edgeUrl(flags: Flags): string | undefined {
  const url = flags['edge-url'];
  return url === undefined ? undefined : httpUrlFlag('edge-url', url);
}

type HardeningFlag = 'max-connections' | 'max-connections-per-address' | 'max-waiting-connections-per-address' | 'headers-timeout-ms' | 'request-timeout-ms';

function positive(flags: Flags, name: HardeningFlag): number | undefined {
  const given = flags[name];
  if (given === undefined) return undefined;
  const n = Number(given);
  if (!/^\d+$/.test(given) || !Number.isSafeInteger(n) || n < 1) throw badRequest(`invalid --${name} ${given}; expected a positive integer`);
  return n;
}

/** Timeouts and connection caps of the HTTP listeners: the caps not given derive from the descriptor limit. */
export function serverHardening(flags: Flags, descriptors = descriptorLimit()): HardeningOptions {
  const headersTimeoutMs = positive(flags, 'headers-timeout-ms') ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeoutMs = positive(flags, 'request-timeout-ms') ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (headersTimeoutMs > requestTimeoutMs) {
    throw badRequest(`--headers-timeout-ms ${headersTimeoutMs} exceeds --request-timeout-ms ${requestTimeoutMs}: headers are part of the request`);
  }
  const limits = connectionLimits(descriptors, {
    maxConnections: positive(flags, 'max-connections'),
    maxConnectionsPerAddress: positive(flags, 'max-connections-per-address'),
    maxWaitingConnectionsPerAddress: positive(flags, 'max-waiting-connections-per-address'),
  });
  return { ...limits, headersTimeoutMs, requestTimeoutMs };
}

/** A listen address `HOST:PORT` (`[v6]:PORT` for IPv6; port 0 picks a free one), or null when `given` is not one. */
export function listenAddress(given: string): { host: string; port: number } | null {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(given);
  const port = Number(m?.[3]);
  if (!m || port > 65535) return null;
  return { host: (m[1] ?? m[2])!, port };
}

/** `--metrics-listen HOST:PORT` (`[v6]:PORT` for IPv6), or null for `off`. */
export function metricsListen(flags: Flags): { host: string; port: number } | null {
  const given = flags['metrics-listen'];
  if (given === 'off') return null;
  const at = listenAddress(given);
  if (!at) throw badRequest(`invalid --metrics-listen ${given}; expected HOST:PORT, [IPv6]:PORT or off`);
  return at;
}

export type ServerCommand = 'serve' | 'api' | 'core';

function hostNames(flag: 'app-domain' | 'nameservers' | 'service-domains', given: string[]): void {
  for (const name of given) {
    const r = checkName(name, false);
    if (!r.ok) throw badRequest(`invalid --${flag} ${JSON.stringify(name)}: it ${r.reason}`);
  }
}

function hostPorts(flag: 'dns-listen' | 'secondaries', given: string[]): void {
  for (const value of given) {
    try {
      // A DNS port of 0 is picked at start; a secondary is somewhere to send NOTIFY, so it needs a real port.
      parseHostPort(value, flag === 'dns-listen');
    } catch (e) {
      throw badRequest(`invalid --${flag}: ${(e as Error).message}`);
    }
  }
}

/** The TSIG key of `--tsig-key`, read and checked; null without the flag. */
export function tsigKey(flags: Flags): TsigKey | null {
  const file = flags['tsig-key'];
  if (file === undefined) return null;
  const text = readFlagFile('tsig-key', file).toString('utf8');
  try {
    return parseTsigKey(text);
  } catch (e) {
    throw badRequest(`--tsig-key ${file}: ${(e as Error).message}`);
  }
}

/** `--tls-cert FILE --tls-key FILE` (both or neither), read and checked as a pair TLS takes: the API or the node's
 * front end listens with TLS. Null without them. */
export function tlsFiles(flags: Flags): { cert: Buffer; key: Buffer } | null {
  const cert = flags['tls-cert'];
  const key = flags['tls-key'];
  if (cert === undefined && key === undefined) return null;
  if (cert === undefined || key === undefined) throw badRequest('--tls-cert and --tls-key go together');
  const files = { cert: readFlagFile('tls-cert', cert), key: readFlagFile('tls-key', key) };
  try {
    createSecureContext(files);
  } catch (e) {
    throw badRequest(`--tls-cert, --tls-key: ${(e as Error).message}`);
  }
  return files;
}

/** `--oauth-providers`: the endpoint table nodes get (`real`, or a file's), or `sandbox` for one of ours on loopback
 * that the command starts. `serve` defaults to the sandbox, `core` to the real providers. */
export function oauthProviders(command: 'serve' | 'core', flags: Flags): ProviderEndpointTable | 'sandbox' {
  const given = flags['oauth-providers'] ?? (command === 'serve' ? 'sandbox' : 'real');
  if (given === 'sandbox') return 'sandbox';
  if (given === 'real') return REAL_ENDPOINTS;
  try {
    return readProviderEndpoints(given);
  } catch (e) {
    throw badRequest(`invalid --oauth-providers: ${(e as Error).message}; expected real, sandbox or a JSON file of provider endpoints`);
  }
}

/** Checks every flag of a long-running command before it starts anything: a mistake found once knotd, the
 * store or the reconcilers are up leaves a half-started process to tear down, and files in the data dir.
 * Throws a bad request naming the first bad flag. The API host is resolved here too; whether its port is free
 * is only known by listening. */
export async function checkServerFlags(command: ServerCommand, flags: Flags): Promise<void> {
  port(flags);
  if (!flags.data) throw badRequest('--data must name a directory');
  hostNames('app-domain', [flags['app-domain']]);
  plans(flags);
  hostNames('service-domains', list(flags['service-domains']));
  const catalog = checkZoneName(flags['catalog-zone']);
  if (!catalog.ok) throw badRequest(`invalid --catalog-zone ${flags['catalog-zone']}: it ${catalog.reason}`);
  metricsListen(flags);
  serverHardening(flags);
  try { rateLimitFlag(flags['rate-limit']); } catch (e) { throw badRequest((e as Error).message); }
  hostnameSettings(flags);
  tlsFiles(flags);
  // Only serve and core lead, and only on PostgreSQL are there others to forward to the URL the lease names.
  if (advertiseUrl(flags) === undefined && command !== 'api' && everyAddress(flags.host) && databaseUrlOf(flags['database-url']) !== undefined) {
    throw badRequest(`--host ${flags.host || '""'} listens on every address, so it names none the other processes can send the leader's calls to: give --advertise-url (or HOSTPLANE_ADVERTISE_URL), the URL they reach this process at, as http://10.0.0.1:${port(flags) || 'PORT'}`);
  }
  if (command !== 'api') {
    edgeUrl(flags);
    oauthProviders(command, flags);
  }
  if (command === 'api') {
    const url = flags['core-url'];
    if (url !== undefined) {
      httpUrlFlag('core-url', url);
      if (!coreToken(flags)) throw badRequest('--core-url needs --core-token or HOSTPLANE_CORE_TOKEN');
    }
  } else {
    if (command === 'core' && !coreToken(flags)) throw badRequest('core needs --core-token or HOSTPLANE_CORE_TOKEN (shared with the api process)');
    if (flags.dns !== 'on' && flags.dns !== 'off') throw badRequest(`--dns takes on or off, not ${flags.dns}`);
    hostPorts('dns-listen', [flags['dns-listen']]);
    hostPorts('secondaries', list(flags.secondaries));
    tsigKey(flags);
    for (const r of list(flags.resolver)) {
      try {
        parseResolverAddress(r);
      } catch (e) {
        throw badRequest(`invalid --resolver: ${(e as Error).message}`);
      }
    }
    const nameservers = list(flags.nameservers);
    if (nameservers.length === 0) throw badRequest('--nameservers needs at least one name: zones get them as NS and SOA MNAME');
    hostNames('nameservers', nameservers);
    deferFileFrom(flags);
  }
  try {
    await lookup(flags.host);
  } catch (e) {
    throw badRequest(`invalid --host ${flags.host}: ${(e as NodeJS.ErrnoException).code === 'ENOTFOUND' ? 'no such host' : (e as Error).message}`);
  }
}

const DOMAIN_UNITS: Record<string, number> = { s: 1_000, ...DURATION_UNITS };

/** The domain settings of `serve` and `core`: the registrar (`off`, a URL or the sandbox), the payment provider,
 * and the domain reconciler's durations. */
export function domainSettings(flags: Flags): {
  registrar: boolean; registrarUrl?: string; paymentUrl?: string; abandonAfterMs: number; syncIntervalMs: number; renewBeforeMs: number;
} {
  if (flags.registrar !== 'on' && flags.registrar !== 'off') throw badRequest(`--registrar takes on or off, not ${flags.registrar}`);
  const url = (flag: 'registrar-url' | 'payment-url'): string | undefined => {
    const u = flags[flag];
    return u === undefined ? undefined : httpUrlFlag(flag, u);
  };
  const duration = (flag: 'purchase-abandon-after' | 'domain-sync-interval' | 'domain-renew-before'): number => {
    const ms = durationMs(flags[flag], DOMAIN_UNITS);
    if (ms === null) throw badRequest(`invalid --${flag} ${flags[flag]}; expected a number and s, m, h or d, as 24h`);
    return ms;
  };
  return {
    registrar: flags.registrar === 'on', registrarUrl: url('registrar-url'), paymentUrl: url('payment-url'),
    abandonAfterMs: duration('purchase-abandon-after'), syncIntervalMs: duration('domain-sync-interval'), renewBeforeMs: duration('domain-renew-before'),
  };
}
