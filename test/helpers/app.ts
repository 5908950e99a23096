/** In-process API for tests: the real request listener (createApp) on an ephemeral port over a store in a temp dir, with an org,
 * users of every role and their tokens already made through the same store functions the admin CLI uses. */
import { mkdtempSync, rmSync } from 'node:fs';
import type client from 'prom-client';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../api/app';
import type { ApiConfig } from '../../api/ops';
import type { ConsoleOptions } from '../../api/console/routes';
import { localCore } from '../../core/local';
import type { Logger } from '../../lib/log';
import { captureLogger } from './log';
import type { DomainService } from '../../sagas/domains';
import type { Core, DnsInfo, NudgeKind } from '../../core/port';
import { KEY_FILE, openSealer, type Sealer } from '../../core/sealing';
import { createOrg, createUser, issueToken, setMembership, type Role } from '../../store/accounts';
import type { Store } from '../../store/db';
import { openTestStore } from './store';
import { DEFAULT_PLANS } from '../../rules/plans';
import { OpenApiChecker, type Answer } from './openapi';

export interface TestApi {
  url: string;
  /** The app's request listener, for a test that serves it on a transport of its own (a Unix socket's small buffers). */
  handler: RequestListener;
  store: Store;
  sealer: Sealer;
  dir: string;
  /** The app's metrics, as /metrics serves them. */
  registry: client.Registry;
  /** The app's config: its process-wide state (the whole-zone work's slots, api/zone-changes.ts) is found by it. */
  config: ApiConfig;
  /** Every log line the app wrote, for scans that prove no secret reaches the logs. */
  logs: string[];
  nudges: { kind: NudgeKind; key: string }[];
  tokens: Record<Role | 'stranger', string>;
  /** A second org with its own admin, for cross-organization checks. */
  other: { slug: string; token: string };
  /** A request as a client sends it; the answer must match the served OpenAPI document (see `documented`). */
  call(method: string, path: string, opts?: { token?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  /** Throws when an answer departs from the served /openapi.json; for tests that send requests themselves. */
  documented(method: string, path: string, answer: Answer): Promise<void>;
  close(): Promise<void>;
}

export interface TestApiOptions {
  /** The store to serve (closed with the API); default: this pass's store of a temp dir (test/helpers/store.ts). */
  store?: Store;
  config?: Partial<ApiConfig>;
  /** `null` runs the API without a core (503 no_core). */
  core?: null;
  dns?: DnsInfo;
  plan?: string;
  /** The core's domain operations (sagas/domains.ts) over the test's store and sealer; without them they answer 503
   * `registrar_not_configured`. */
  domains?: (d: { store: Store; sealer: Sealer; log: Logger; nudge: (kind: NudgeKind, key: string) => void }) => DomainService;
  /** The core's verifyHostname over the test's store; without it verifyHostname answers 503 `no_core`. */
  verifyHostname?: (store: Store) => (name: string) => Promise<void>;
  /** The console's sign-in limit and verification bound (api/console/routes.ts). */
  console?: ConsoleOptions;
}

export async function startTestApi(opts: TestApiOptions = {}): Promise<TestApi> {
  const dir = mkdtempSync(join(tmpdir(), 'hostplane-test-'));
  const store = opts.store ?? await openTestStore(dir);
  const sealer = openSealer(join(dir, KEY_FILE));
  const { log, lines: logs } = captureLogger();
  const nudges: { kind: NudgeKind; key: string }[] = [];
  const core: Core | null = opts.core === null ? null : localCore({
    sealer,
    dns: opts.dns ?? { configured: true, nameservers: ['ns1.hostplane.test', 'ns2.hostplane.test'] },
    nudge: (kind, key) => nudges.push({ kind, key }),
    domains: opts.domains?.({ store, sealer, log, nudge: (kind, key) => nudges.push({ kind, key }) }),
    verifyHostname: opts.verifyHostname?.(store),
  });
  const config: ApiConfig = { appDomain: 'hostplane.test', plans: DEFAULT_PLANS, serviceDomains: [], ...opts.config };
  const app = createApp({ store, core, config }, log, undefined, undefined, opts.console);

  const org = await createOrg(store, 'acme', opts.plan ?? 'free');
  const tokens = {} as Record<Role | 'stranger', string>;
  for (const role of ['viewer', 'member', 'admin'] as Role[]) {
    await createUser(store, `${role}@acme.test`);
    await setMembership(store, org.slug, `${role}@acme.test`, role);
    tokens[role] = await issueToken(store, `${role}@acme.test`);
  }
  await createOrg(store, 'globex', 'free');
  await createUser(store, 'admin@globex.test');
  await setMembership(store, 'globex', 'admin@globex.test', 'admin');
  const otherToken = await issueToken(store, 'admin@globex.test');
  await createUser(store, 'stranger@nowhere.test');
  tokens.stranger = await issueToken(store, 'stranger@nowhere.test');

  const server: Server = createServer(app.handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let checker: Promise<OpenApiChecker> | undefined;
  const documented = async (method: string, path: string, answer: Answer): Promise<void> => {
    checker ??= fetch(`${url}/openapi.json`).then(async (r) => new OpenApiChecker(await r.json() as Record<string, unknown>));
    (await checker).check(method, path, answer);
  };

  return {
    url, handler: app.handler, store, sealer, dir, config, logs, nudges, tokens, registry: app.registry,
    other: { slug: 'globex', token: otherToken },
    documented,
    async call(method, path, o = {}) {
      const token = o.token === undefined ? tokens.admin : o.token;
      const headers: Record<string, string> = { ...o.headers };
      if (token) headers.authorization = `Bearer ${token}`;
      let body: string | undefined = o.raw;
      if (o.body !== undefined) body = JSON.stringify(o.body);
      if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
      const res = await fetch(url + path, { method, headers, body });
      const text = await res.text();
      await documented(method, path, { status: res.status, headers: res.headers, text });
      let parsed: unknown = text;
      try { parsed = text ? JSON.parse(text) : undefined; } catch { /* non-JSON bodies stay text */ }
      return { status: res.status, body: parsed, headers: res.headers };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
