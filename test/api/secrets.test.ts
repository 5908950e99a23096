/** Secrets (spec 4.7, CONTRACT.md): names, reserved names, versions, values never returned, sealing by the
 * core with the `org/project/name` context, and the audit records of set and delete. */
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, projects, secrets } from '../../store/schema';
import { DEFAULT_PLANS } from '../../rules/plans';
import { bundleReconciler } from '../../reconcilers/bundles';
import { orgBySlug, registerNode } from '../../store/accounts';
import { MAX_BUNDLE_BYTES } from '../../store/nodes';
import { setPlacement } from '../../store/projects';
import { startTestApi, type TestApi } from '../helpers/app';

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const S = '/v1/orgs/acme/projects/alpha/secrets';

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi();
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'alpha' } })).status).toBe(201);
  expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'beta' } })).status).toBe(201);
});
afterAll(async () => { await t.close(); });

const projectId = async (name: string): Promise<number> =>
  (await t.store.db.select({ id: projects.id }).from(projects).where(eq(projects.name, name)))[0]!.id;
const sealedRow = async (name: string, project = 'alpha') =>
  (await t.store.db.select({ sealed: secrets.sealed, version: secrets.version }).from(secrets)
    .where(and(eq(secrets.name, name), eq(secrets.projectId, await projectId(project)))))[0];

describe('secret names (CONTRACT: ^[A-Z][A-Z0-9_]{0,63}$)', () => {
  const good = ['A', 'API_KEY', 'X1', 'DATABASE_URL', 'DB_URL', 'DBX', 'ASSETS_CDN', 'SERVICE', 'SERVICEX', 'A_', `A${'B'.repeat(63)}`, 'Z9_9'];
  it.each(good)('%s is accepted', async (name) => {
    const r = await t.call('PUT', `${S}/${name}`, { token: t.tokens.member, body: { value: 'v' } });
    expect(r.status).toBe(200);
    expect(r.body.name).toBe(name);
  });

  const bad = ['a', 'api_key', 'Api', '1ABC', '_A', 'A-B', 'A.B', 'A B', `A${'B'.repeat(64)}`, 'ÄBC', 'A$', 'db', 'service_x', '%20A'];
  it.each(bad)('%s is 400 bad_request', async (name) => {
    const r = await t.call('PUT', `${S}/${encodeURIComponent(name)}`, { body: { value: 'v' } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
  });

  const reserved = ['DB', 'ASSETS', 'SERVICE_', 'SERVICE_X', 'SERVICE_TOKEN', 'SERVICE__'];
  it.each(reserved)('%s is 400 reserved_name', async (name) => {
    const r = await t.call('PUT', `${S}/${name}`, { body: { value: 'v' } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('reserved_name');
  });

  it('no refused name was stored', async () => {
    const names = (await t.call('GET', S)).body.items.map((i: { name: string }) => i.name);
    for (const n of [...bad, ...reserved]) expect(names).not.toContain(n);
    expect(names.sort()).toEqual([...good].sort());
  });
});

describe('secret names that change how a process loads or runs are refused (a worker would run them first)', () => {
  const B = '/v1/orgs/acme/projects/beta/secrets';
  const refused: [name: string, rule: string][] = [
    ['NODE_OPTIONS', 'NODE_*'], ['NODE_PATH', 'NODE_*'], ['LD_PRELOAD', 'LD_*'], ['LD_LIBRARY_PATH', 'LD_*'],
    ['DYLD_INSERT_LIBRARIES', 'DYLD_*'], ['PATH', 'PATH'], ['HOME', 'HOME'], ['SHELL', 'SHELL'], ['BASH_ENV', 'BASH_*'], ['ENV', 'ENV'],
    ['IFS', 'IFS'], ['PYTHONPATH', 'PYTHON*'], ['PYTHONSTARTUP', 'PYTHON*'], ['PERL5OPT', 'PERL*'], ['PERL5LIB', 'PERL*'],
    ['RUBYOPT', 'RUBY*'], ['RUBYLIB', 'RUBY*'], ['JAVA_TOOL_OPTIONS', 'JAVA_TOOL_OPTIONS'], ['GCONV_PATH', 'GCONV_PATH'],
    ['GLIBC_TUNABLES', 'GLIBC_TUNABLES'], ['TZDIR', 'TZDIR'], ['LOCPATH', 'LOCPATH'], ['OPENSSL_CONF', 'OPENSSL_CONF'],
  ];
  it.each(refused)('%s is 400 bad_request naming the rule %s', async (name, rule) => {
    const r = await t.call('PUT', `${B}/${name}`, { token: t.tokens.member, body: { value: '--import=data:text/javascript,process.exit(1)' } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect(r.body.message).toContain(name);
    expect(r.body.message).toContain(`rule ${rule}`);
    expect(r.body.details).toEqual({ rule });
    expect(JSON.stringify(r.body)).not.toContain('process.exit');
  });

  const accepted = ['NODE_ENV', 'NODE', 'NODES_URL', 'PATHS', 'HOMEPAGE_URL', 'ENVIRONMENT', 'SHELLY'];
  it.each(accepted)('%s, which only looks like one, is accepted', async (name) => {
    expect((await t.call('PUT', `${B}/${name}`, { token: t.tokens.member, body: { value: 'v' } })).status).toBe(200);
  });

  it('none was stored, and the OpenAPI document says which they are', async () => {
    const names = (await t.call('GET', B)).body.items.map((i: { name: string }) => i.name);
    expect(names.sort()).toEqual([...accepted].sort());
    const doc = (await t.call('GET', '/openapi.json')).body as { paths: Record<string, { put?: { parameters?: { name: string; schema?: { description?: string }; description?: string }[] } }> };
    const param = doc.paths['/v1/orgs/{orgSlug}/projects/{projectName}/secrets/{secretName}']!.put!.parameters!.find((p) => p.name === 'secretName')!;
    const description = param.description ?? param.schema?.description ?? '';
    for (const rule of ['`NODE_*`', '`LD_*`', '`DYLD_*`', '`PATH`', '`HOME`', '`BASH_*`', '`PYTHON*`', '`PERL*`', '`JAVA_TOOL_OPTIONS`', '`GCONV_PATH`']) {
      expect(description).toContain(rule);
    }
  });
});

describe('setSecret bodies', () => {
  const bodies: [string, string | undefined, unknown][] = [
    ['no value', undefined, {}],
    ['value not a string', undefined, { value: 42 }],
    ['value null', undefined, { value: null }],
    ['an unknown field', undefined, { value: 'v', ttl: 3 }],
    ['an array', '[]', undefined],
    ['a value over 64 KiB', undefined, { value: 'x'.repeat(65_537) }],
  ];
  it.each(bodies)('%s is 400 bad_request', async (_label, raw, body) => {
    const r = await t.call('PUT', `${S}/BODY_CHECK`, raw === undefined ? { body } : { raw });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('bad_request');
    expect((await t.call('GET', S)).body.items.map((i: { name: string }) => i.name)).not.toContain('BODY_CHECK');
  });

  // Issue 20 item 7: a NUL was stored, and the node then could not start the worker (ERR_INVALID_ARG_VALUE), for good.
  it.each([['in the middle', 'pa55\u0000word'], ['alone', '\u0000'], ['at the end', 'pa55word\u0000']])(
    'a value with NUL (U+0000) %s is 400 bad_request saying a value may not contain NUL; nothing stored, nothing echoed', async (_where, value) => {
      const r = await t.call('PUT', `${S}/NUL`, { body: { value } });
      expect([r.status, r.body.code], JSON.stringify(r.body)).toEqual([400, 'bad_request']);
      expect(r.body.message).toMatch(/may not contain NUL/);
      expect(r.body.details.issues).toEqual([{ path: 'body.value', message: expect.stringMatching(/may not contain NUL/) }]);
      expect(JSON.stringify(r.body)).not.toContain('pa55');
      expect(await sealedRow('NUL')).toBeUndefined();
    },
  );

  it('other control characters (tab, newline, U+0001) stay values a worker can be given', async () => {
    expect((await t.call('PUT', `${S}/CONTROL`, { body: { value: 'a\tb\nc\u0001d\r' } })).status).toBe(200);
  });

  it('a value of exactly the plan\'s bytes per value is accepted', async () => {
    expect((await t.call('PUT', `${S}/BIG`, { body: { value: 'x'.repeat(DEFAULT_PLANS.free!.secretValueBytes) } })).status).toBe(200);
  });
});

/** Issue 20 item 7: a value no worker could be started with (Linux takes 128 KiB per environment string) stalled
 * the project's rollout for good; the plan bounds each value and a project's whole environment of secrets. */
describe('secret sizes are the plan\'s', () => {
  const B = '/v1/orgs/acme/projects/gamma/secrets';
  beforeAll(async () => {
    expect((await t.call('POST', '/v1/orgs/acme/projects', { body: { name: 'gamma' } })).status).toBe(201);
  });

  it('a value over the bytes per value is 400 naming the limit, counted in bytes: 65,536 € are 196,608', async () => {
    const limit = DEFAULT_PLANS.free!.secretValueBytes;
    for (const [value, bytes] of [['€'.repeat(65_536), 196_608], ['x'.repeat(limit + 1), limit + 1]] as const) {
      const r = await t.call('PUT', `${B}/HUGE`, { body: { value } });
      expect([r.status, r.body.code]).toEqual([400, 'bad_request']);
      expect(r.body.details).toEqual({ limitBytes: limit, bytes });
      expect(r.body.message).toContain(`${limit} bytes per secret value`);
    }
    expect((await t.call('GET', B)).body.items).toEqual([]);
  });

  it('a project\'s secrets past the plan\'s bytes (NAME=value) are 409 quota_exceeded; replacing a value counts it once', async () => {
    const value = 'v'.repeat(30 * 1024);
    expect((await t.call('PUT', `${B}/ONE`, { body: { value } })).status).toBe(200);
    expect((await t.call('PUT', `${B}/TWO`, { body: { value } })).status).toBe(200);
    expect((await t.call('PUT', `${B}/TWO`, { body: { value } })).status).toBe(200);
    const over = await t.call('PUT', `${B}/THREE`, { body: { value } });
    expect([over.status, over.body.code]).toEqual([409, 'quota_exceeded']);
    expect(over.body.details).toEqual({ quota: 'secret_bytes', limit: DEFAULT_PLANS.free!.secretBytes, count: 2 * ('ONE='.length + value.length), plan: 'free' });
    expect((await t.call('DELETE', `${B}/ONE`)).status).toBe(204);
    expect((await t.call('PUT', `${B}/THREE`, { body: { value } })).status).toBe(200);
  });
});

describe('versions and values', () => {
  it('every set raises the version: 1, 2, 3, and answers exactly {name, version, updatedAt, rollout}', async () => {
    for (const want of [1, 2, 3]) {
      const r = await t.call('PUT', `${S}/ROTATING`, { token: t.tokens.member, body: { value: `value-${want}` } });
      expect(r.status).toBe(200);
      // rollout: where the new version runs (none: the project is placed nowhere).
      expect(r.body).toEqual({ name: 'ROTATING', version: want, updatedAt: expect.stringMatching(RFC3339_UTC), rollout: [] });
    }
  });

  it('setting the same value again still raises the version (not idempotent)', async () => {
    const a = await t.call('PUT', `${S}/SAME`, { body: { value: 'same' } });
    const b = await t.call('PUT', `${S}/SAME`, { body: { value: 'same' } });
    expect(b.body.version).toBe(a.body.version + 1);
    // A fresh random nonce each time: the stored sealed value changes too.
    const first = (await sealedRow('SAME'))!.sealed;
    await t.call('PUT', `${S}/SAME`, { body: { value: 'same' } });
    expect((await sealedRow('SAME'))!.sealed).not.toBe(first);
  });

  it('versions are per project', async () => {
    const r = await t.call('PUT', '/v1/orgs/acme/projects/beta/secrets/ROTATING', { body: { value: 'b' } });
    expect(r.body.version).toBe(1);
  });

  it('listSecrets returns names, versions and updatedAt only, by name', async () => {
    const r = await t.call('GET', S, { token: t.tokens.member });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['items', 'nextCursor']);
    const items = r.body.items as Record<string, unknown>[];
    for (const item of items) expect(Object.keys(item).sort()).toEqual(['name', 'updatedAt', 'version']);
    expect(items.find((i) => i.name === 'ROTATING')).toEqual({ name: 'ROTATING', version: 3, updatedAt: expect.stringMatching(RFC3339_UTC) });
    const names = items.map((i) => i.name as string);
    expect(names).toEqual([...names].sort());
    expect(JSON.stringify(r.body)).not.toContain('value-3');
  });

  it('listSecrets pages with nextCursor and drops nothing', async () => {
    const all = (await t.call('GET', S)).body.items.map((i: { name: string }) => i.name);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await t.call('GET', `${S}?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.body.items.length).toBeLessThanOrEqual(3);
      seen.push(...r.body.items.map((i: { name: string }) => i.name));
      cursor = r.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it('the stored row holds a sealed value that opens only under its own context org/project/name', async () => {
    await t.call('PUT', `${S}/SEALED`, { body: { value: 'open sesame' } });
    const row = (await sealedRow('SEALED'))!;
    expect(row.sealed).not.toContain('open sesame');
    expect(row.sealed).not.toContain(Buffer.from('open sesame').toString('base64'));
    expect(t.sealer.open('acme/alpha/SEALED', row.sealed)).toBe('open sesame');
    for (const ctx of ['acme/alpha/OTHER', 'acme/beta/SEALED', 'globex/alpha/SEALED', '']) {
      expect(() => t.sealer.open(ctx, row.sealed)).toThrow();
    }
  });

  it('a sealed value copied into another row fails to open there', async () => {
    await t.call('PUT', `${S}/SOURCE`, { body: { value: 'moved' } });
    await t.call('PUT', `${S}/TARGET`, { body: { value: 'stays' } });
    const source = (await sealedRow('SOURCE'))!.sealed;
    await t.store.db.update(secrets).set({ sealed: source }).where(and(eq(secrets.name, 'TARGET'), eq(secrets.projectId, await projectId('alpha'))));
    const target = (await sealedRow('TARGET'))!.sealed;
    expect(() => t.sealer.open('acme/alpha/TARGET', target)).toThrow();
  });
});

describe('deleteSecret', () => {
  it('deletes with 204 and an empty body; the name leaves the list', async () => {
    await t.call('PUT', `${S}/GOING`, { body: { value: 'bye' } });
    const r = await t.call('DELETE', `${S}/GOING`, { token: t.tokens.member });
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    const names = (await t.call('GET', S)).body.items.map((i: { name: string }) => i.name);
    expect(names).not.toContain('GOING');
    expect(await sealedRow('GOING')).toBeUndefined();
  });

  it('a second delete of the same name is 404', async () => {
    await t.call('PUT', `${S}/TWICE`, { body: { value: 'x' } });
    expect((await t.call('DELETE', `${S}/TWICE`)).status).toBe(204);
    const r = await t.call('DELETE', `${S}/TWICE`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });

  it('a name that never existed is 404; so is a name that exists in another project only', async () => {
    expect((await t.call('DELETE', `${S}/NEVER_SET`)).status).toBe(404);
    await t.call('PUT', '/v1/orgs/acme/projects/beta/secrets/ONLY_BETA', { body: { value: 'b' } });
    expect((await t.call('DELETE', `${S}/ONLY_BETA`)).status).toBe(404);
    expect(await sealedRow('ONLY_BETA', 'beta')).toBeDefined();
  });

  it('on a project that does not exist, list, set and delete are 404', async () => {
    const base = '/v1/orgs/acme/projects/ghost/secrets';
    expect((await t.call('GET', base)).status).toBe(404);
    expect((await t.call('PUT', `${base}/X`, { body: { value: 'v' } })).status).toBe(404);
    expect((await t.call('DELETE', `${base}/X`)).status).toBe(404);
  });
});

describe('audit of secret changes', () => {
  it('secret.set and secret.delete name the secret and never hold its value', async () => {
    const value = 'audit-must-not-see-this-7f3a';
    await t.call('PUT', `${S}/AUDITED`, { token: t.tokens.member, body: { value } });
    await t.call('PUT', `${S}/AUDITED`, { token: t.tokens.member, body: { value } });
    await t.call('DELETE', `${S}/AUDITED`, { token: t.tokens.member });

    const rows = await t.store.db.select().from(audit).where(eq(audit.target, 'alpha/AUDITED')).orderBy(audit.id);
    expect(rows.map((r) => r.event)).toEqual(['secret.set', 'secret.set', 'secret.delete']);
    for (const r of rows) {
      expect(r.actor).toBe('user:member@acme.test');
      expect(JSON.stringify(r)).not.toContain(value);
    }
    expect(rows[0]!.details).toEqual({ version: 1 });
    expect(rows[1]!.details).toEqual({ version: 2 });

    const api = await t.call('GET', '/v1/orgs/acme/audit?limit=1000');
    expect(api.status).toBe(200);
    const events = (api.body.items as { event: string; target: string }[]).filter((i) => i.target === 'alpha/AUDITED').map((i) => i.event);
    expect(events).toEqual(['secret.delete', 'secret.set', 'secret.set']);
    expect(JSON.stringify(api.body)).not.toContain(value);
  });

  it('refused sets write no audit record', async () => {
    const count = async () => (await t.store.db.select().from(audit)).length;
    const before = await count();
    await t.call('PUT', `${S}/DB`, { body: { value: 'v' } });
    await t.call('PUT', `${S}/lower`, { body: { value: 'v' } });
    await t.call('PUT', `${S}/OK_NAME`, { token: t.tokens.viewer, body: { value: 'v' } });
    expect(await count()).toBe(before);
  });
});

describe('without a core', () => {
  let bare: TestApi;
  beforeAll(async () => {
    bare = await startTestApi({ core: null });
    await bare.call('POST', '/v1/orgs/acme/projects', { body: { name: 'alpha' } });
  });
  afterAll(async () => { await bare.close(); });

  it('setSecret is 503 no_core and stores nothing', async () => {
    const r = await bare.call('PUT', `${S}/NEEDS_CORE`, { body: { value: 'v' } });
    expect(r.status).toBe(503);
    expect(r.body.code).toBe('no_core');
    expect((await bare.call('GET', S)).body.items).toEqual([]);
  });

  it('listSecrets and deleteSecret still work', async () => {
    expect((await bare.call('GET', S)).status).toBe(200);
    expect((await bare.call('DELETE', `${S}/NOT_THERE`)).status).toBe(404);
  });
});

/** Issue 20 item 7: a node's bundle carries every project placed on it, and the node takes it whole; a value that
 * would take some node's bundle past MAX_BUNDLE_BYTES is refused at setSecret. */
describe('a node\'s bundle is bounded', () => {
  let big: TestApi;
  const P = '/v1/orgs/acme/projects/huge/secrets';
  // The most a value may hold (65,536 characters), each 6 bytes in the bundle's JSON (`\u0001`).
  const value = '\u0001'.repeat(65_536);
  const bytes = Buffer.byteLength(JSON.stringify(value));
  beforeAll(async () => {
    const plans = { free: { ...DEFAULT_PLANS.free!, secretValueBytes: value.length, secretBytes: 16 * 1024 * 1024 } };
    big = await startTestApi({ config: { plans } });
    expect((await big.call('POST', '/v1/orgs/acme/projects', { body: { name: 'huge' } })).status).toBe(201);
    await registerNode(big.store, 'n1');
    await setPlacement(big.store, (await orgBySlug(big.store, 'acme'))!.id, 'huge', 'n1');
  });
  afterAll(async () => { await big.close(); });

  it('a value that would take the bundle of a node the project is on past the bound is 409 quota_exceeded; a same-size replacement is not', async () => {
    const r = bundleReconciler({ store: big.store, sealer: big.sealer, plans: DEFAULT_PLANS });
    const n = Math.floor(MAX_BUNDLE_BYTES / (bytes + 64));
    for (let i = 0; i < n; i++) expect((await big.call('PUT', `${P}/S${i}`, { body: { value } })).status).toBe(200);
    // Judged against the bundle as last built.
    expect((await big.call('PUT', `${P}/ONE_MORE`, { body: { value } })).status).toBe(200);
    expect((await big.call('DELETE', `${P}/ONE_MORE`)).status).toBe(204);
    await r.reconcile('n1', new AbortController().signal);
    const over = await big.call('PUT', `${P}/ONE_MORE`, { body: { value } });
    expect([over.status, over.body.code]).toEqual([409, 'quota_exceeded']);
    expect(over.body.details).toEqual({ quota: 'bundle_bytes', limit: MAX_BUNDLE_BYTES, count: expect.any(Number), plan: 'free' });
    expect(over.body.details.count).toBeGreaterThan(n * bytes);
    expect(over.body.message).toContain('node n1');
    // Another value of the same length in place of one: it may grow the bundle by its version's digits at most.
    expect((await big.call('PUT', `${P}/S0`, { body: { value: '\u0002'.repeat(65_536) } })).status).toBe(200);
    expect((await big.call('PUT', `${P}/SMALL`, { body: { value: 'fits' } })).status).toBe(200);
  }, 60_000);
});
