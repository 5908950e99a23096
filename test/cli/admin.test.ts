/** The operator CLI (CONTRACT.md): `./bin/hostplane admin --data DIR ...` run as a real process. Every command
 * prints JSON on stdout; bad input exits non-zero with a clear message on stderr and nothing on stdout. Only
 * `init` creates a store. */
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, nodePrincipalByToken, principalByToken } from '../../store/accounts';
import { onPostgres, openTestStore } from '../helpers/store';
import { openStore } from '../../store/db';
import { createProject } from '../../store/projects';
import { getProjectDetail } from '../../store/read-model';
import { orgs, tokens } from '../../store/schema';
import { verifyPassword } from '../../lib/access-hash';
import { openSession, passwordHashOf, sessionByToken, signInRecord } from '../../store/sessions';
import { admin, adminJson, cleanup, runHostplane, tempDir } from '../helpers/proc';

afterAll(cleanup);

describe('every command, on one data dir', () => {
  let dir: string;
  const out: Record<string, any> = {};

  beforeAll(async () => {
    dir = tempDir('hostplane-admin-');
    await adminJson(dir, 'init');
    // Independent commands run side by side; the rest wait for what they need.
    [out.orgPro, out.orgFree, out.user] = await Promise.all([
      adminJson(dir, 'org', 'create', 'acme', '--plan', 'pro'),
      adminJson(dir, 'org', 'create', 'globex'),
      adminJson(dir, 'user', 'create', 'Ada@Acme.Test'),
    ]);
    [out.member, out.token, out.node] = await Promise.all([
      adminJson(dir, 'member', 'add', 'acme', 'ada@acme.test', 'member'),
      adminJson(dir, 'token', 'create', 'ada@acme.test'),
      adminJson(dir, 'node', 'register', 'node-1'),
    ]);
    // Projects come from the API; this test makes one through the store the API uses.
    const s = await openTestStore(dir);
    try {
      const [org] = await s.db.select().from(orgs).where(eq(orgs.slug, 'acme'));
      await createProject(s, { orgId: org!.id, plan: 'pro', limit: 100, name: 'blog', database: false, hostname: 'blog.hostplane.app', actor: 'test' });
    } finally {
      s.close();
    }
    [out.placement, out.role] = await Promise.all([
      adminJson(dir, 'placement', 'set', 'acme', 'blog', 'node-1'),
      adminJson(dir, 'member', 'add', 'globex', 'ada@acme.test', 'viewer'),
    ]);
    [out.status, out.statusText] = await Promise.all([adminJson(dir, 'status', '--json'), admin(dir, 'status')]);
  }, 60_000);

  it('org create prints the org, its plan and project limit; --plan defaults to free', () => {
    expect(out.orgPro).toEqual({ slug: 'acme', plan: 'pro', projectLimit: 100 });
    expect(out.orgFree).toEqual({ slug: 'globex', plan: 'free', projectLimit: 3 });
  });

  it('user create prints the user, email in lower case', () => {
    expect(out.user).toEqual({ email: 'ada@acme.test' });
  });

  it('user password reads the password from stdin (one line end dropped), stores only its scrypt hash, and ends the user\'s console sessions', async () => {
    const password = 'correct horse battery staple';
    const s = await openTestStore(dir);
    try {
      const { userId } = (await signInRecord(s, 'ada@acme.test'))!;
      const before = await openSession(s, userId);
      const r = await runHostplane(['admin', '--data', dir, 'user', 'password', 'Ada@Acme.Test'], `${password}\n`);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ email: 'ada@acme.test', sessionsEnded: 1 });
      const hash = (await passwordHashOf(s, userId))!;
      expect(hash).toMatch(/^\$scrypt\$/);
      expect(await verifyPassword(password, hash)).toBe(true);
      expect(await sessionByToken(s, before.token)).toBeUndefined();
    } finally {
      s.close();
    }
  });

  it('user password refuses a password under 12 characters and an unknown user, changing nothing', async () => {
    const short = await runHostplane(['admin', '--data', dir, 'user', 'password', 'ada@acme.test'], 'eleven char\n');
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('the password must have 12 to 1024 characters (it has 11)');
    const unknown = await runHostplane(['admin', '--data', dir, 'user', 'password', 'nobody@acme.test'], 'a long enough password\n');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('user nobody@acme.test not found');
    expect(short.stdout + unknown.stdout).toBe('');
  });

  it('member add prints the membership; previousRole is null for a new member', () => {
    expect(out.member).toEqual({ org: 'acme', email: 'ada@acme.test', role: 'member', previousRole: null });
    expect(out.role).toEqual({ org: 'globex', email: 'ada@acme.test', role: 'viewer', previousRole: null });
  });

  it('token create prints {token, id, name, email, expiresAt}: a working bearer token, stored only as its SHA-256', async () => {
    expect(out.token).toEqual({ token: expect.any(String), id: hashToken(out.token.token).slice(0, 12), name: 'cli', email: 'ada@acme.test', expiresAt: null });
    expect(out.token.token).toMatch(/^\S{32,}$/);
    const s = await openTestStore(dir);
    try {
      expect(await principalByToken(s, out.token.token)).toMatchObject({ email: 'ada@acme.test' });
      const stored = (await s.db.select({ hash: tokens.hash }).from(tokens)).map((r) => r.hash);
      expect(stored).toContain(hashToken(out.token.token));
      expect(stored).not.toContain(out.token.token);
    } finally {
      s.close();
    }
  });

  it('node register prints {nodeId, token}', () => {
    expect(out.node).toEqual({ nodeId: 'node-1', token: expect.stringMatching(/^\S{32,}$/) });
    expect(out.node.token).not.toBe(out.token.token);
  });

  it('placement set prints the placement and the project then reads as placed', async () => {
    expect(out.placement).toEqual({ org: 'acme', project: 'blog', nodeId: 'node-1' });
    const s = await openTestStore(dir);
    try {
      const [org] = await s.db.select().from(orgs).where(eq(orgs.slug, 'acme'));
      expect((await getProjectDetail(s, org!.id, 'blog')).placements.map((p) => p.nodeId)).toEqual(['node-1']);
    } finally {
      s.close();
    }
  });

  it('zone create makes the platform\'s own zones, which the API refuses to tenants; again is no change', async () => {
    expect(await adminJson(dir, 'zone', 'create', 'acme', 'Hostplane.App')).toEqual({ org: 'acme', zone: 'hostplane.app', created: true });
    expect(await adminJson(dir, 'zone', 'create', 'acme', 'hostplane.app')).toEqual({ org: 'acme', zone: 'hostplane.app', created: false });
  });

  it('status --json prints the reconcile status as JSON, with the change feed position', () => {
    expect(out.status).toMatchObject({ changeSeq: expect.any(Number) });
    expect(out.status.changeSeq).toBeGreaterThanOrEqual(2); // the project and the placement
  });

  it('status without --json prints a table per kind for people', () => {
    expect(out.statusText).toMatchObject({ code: 0, stderr: '' });
    const lines: string[] = out.statusText.stdout.split('\n');
    expect(lines[0]).toBe(`change feed at ${out.status.changeSeq}`);
    expect(lines).toEqual(expect.arrayContaining(['ZONES', 'HOSTNAMES', 'NODES', 'DOMAINS']));
    expect(lines.find((l) => l.startsWith('node-1 '))).toMatch(/^node-1 +-\/0 +- +Applied=False \(NeverReported\), Stale=True \(NeverReported\) +-$/);
  });
});

describe('nodes and placements: list, placement remove, token rotate, node remove (issue 20 items 5 and 7)', () => {
  let dir: string;
  const node: Record<string, string> = {};
  /** What the store says of a node token: the node it authenticates, or none. */
  const tokenNode = async (token: string) => {
    const s = await openTestStore(dir);
    try {
      return (await nodePrincipalByToken(s, token))?.nodeId ?? null;
    } finally {
      s.close();
    }
  };

  beforeAll(async () => {
    dir = tempDir('hostplane-admin-nodes-');
    await adminJson(dir, 'init');
    await adminJson(dir, 'org', 'create', 'acme');
    for (const id of ['n1', 'n2']) node[id] = (await adminJson<{ token: string }>(dir, 'node', 'register', id)).token;
    const s = await openTestStore(dir);
    try {
      const [org] = await s.db.select().from(orgs).where(eq(orgs.slug, 'acme'));
      for (const name of ['blog', 'shop']) await createProject(s, { orgId: org!.id, plan: 'free', limit: 3, name, database: false, hostname: `${name}.hostplane.app`, actor: 'test' });
    } finally {
      s.close();
    }
    for (const [project, id] of [['blog', 'n1'], ['shop', 'n1'], ['blog', 'n2']]) await adminJson(dir, 'placement', 'set', 'acme', project!, id!);
  }, 60_000);

  it('node list shows each node with its projects, as columns or --json', async () => {
    expect(await adminJson(dir, 'node', 'list', '--json')).toEqual([
      { nodeId: 'n1', createdAt: expect.any(String), projects: ['acme/blog', 'acme/shop'], lastReportAt: null },
      { nodeId: 'n2', createdAt: expect.any(String), projects: ['acme/blog'], lastReportAt: null },
    ]);
    const text = (await admin(dir, 'node', 'list')).stdout.split('\n');
    expect(text[0]).toMatch(/^NODE +CREATED +PROJECTS +LAST REPORT$/);
    expect(text[1]).toMatch(/^n1 .* acme\/blog,acme\/shop +-$/);
  });

  it('placement remove takes the project off the node; again says it was not there and is no error', async () => {
    expect(await adminJson(dir, 'placement', 'remove', 'acme', 'blog', 'n2')).toEqual({ org: 'acme', project: 'blog', nodeId: 'n2', removed: true });
    const again = await admin(dir, 'placement', 'remove', 'acme', 'blog', 'n2');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ removed: false });
    expect(again.stderr).toContain('acme/blog was not placed on n2');
    expect((await adminJson<{ projects: string[] }[]>(dir, 'node', 'list', '--json'))[1]!.projects).toEqual([]);
  });

  it('node token rotate prints a new token once; the old one is refused from then on', async () => {
    const r = await adminJson<{ nodeId: string; token: string }>(dir, 'node', 'token', 'rotate', 'n2');
    expect(r).toEqual({ nodeId: 'n2', token: expect.stringMatching(/^\S{32,}$/) });
    expect(await tokenNode(node.n2!)).toBeNull();
    expect(await tokenNode(r.token)).toBe('n2');
  });

  it('node remove refuses its token, unplaces its projects and prints them; admin status lists projects placed nowhere', async () => {
    expect(await adminJson(dir, 'node', 'remove', 'n1')).toEqual({ nodeId: 'n1', unplaced: ['acme/blog', 'acme/shop'] });
    expect(await tokenNode(node.n1!)).toBeNull();
    expect((await adminJson<{ nodeId: string }[]>(dir, 'node', 'list', '--json')).map((n) => n.nodeId)).toEqual(['n2']);
    const status = await adminJson<{ projects: unknown }>(dir, 'status', '--json');
    expect(status.projects).toEqual({ unplaced: [{ org: 'acme', project: 'blog' }, { org: 'acme', project: 'shop' }], deleting: [] });
  });

  it.each([['node', 'remove', 'ghost'], ['node', 'token', 'rotate', 'ghost'], ['placement', 'remove', 'acme', 'ghost', 'n2'], ['placement', 'remove', 'acme', 'shop', 'ghost']])('%s %s %s … of something unknown exits 1 naming it', async (...args) => {
    const r = await admin(dir, ...args);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/ghost not found/);
  });
});

describe('bad input: non-zero exit, a clear message on stderr, nothing on stdout', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('hostplane-admin-bad-');
    await adminJson(dir, 'init');
    await adminJson(dir, 'org', 'create', 'acme');
    await Promise.all([adminJson(dir, 'user', 'create', 'ada@acme.test'), adminJson(dir, 'node', 'register', 'node-1')]);
  }, 60_000);

  const cases: [string, string[], RegExp][] = [
    ['a slug with capitals', ['org', 'create', 'Bad_Slug'], /slug/i],
    ['an unknown plan', ['org', 'create', 'newco', '--plan', 'gold'], /plan/i],
    ['an existing org', ['org', 'create', 'acme'], /exists/i],
    ['a missing slug', ['org', 'create'], /usage/i],
    ['a malformed email', ['user', 'create', 'not-an-email'], /email/i],
    // Past RFC 5321's 254, and past what PostgreSQL's unique index on the email takes (a raw query error there).
    ['an email longer than 254 characters', ['user', 'create', `${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(90)}@acme.test`], /invalid email/i],
    ['an unknown role', ['member', 'add', 'acme', 'ada@acme.test', 'owner'], /role/i],
    ['missing member args', ['member', 'add', 'acme'], /usage/i],
    ['an unknown org for member add', ['member', 'add', 'nope', 'ada@acme.test', 'admin'], /not found/i],
    ['a token for an unknown user', ['token', 'create', 'ghost@acme.test'], /not found/i],
    ['a malformed node id', ['node', 'register', 'Node_1'], /node id/i],
    ['a placement of an unknown project', ['placement', 'set', 'acme', 'ghost', 'node-1'], /not found/i],
    ['an unknown command', ['frobnicate'], /unknown|usage/i],
    ['no command at all', [], /unknown|usage/i],
    ['an unknown option', ['status', '--bogus'], /bogus|unknown option/i],
    ['a flag the command does not take', ['status', '--plan', 'pro'], /admin status takes no --plan/],
    ['an unknown plan for set-plan', ['org', 'set-plan', 'acme', 'gold'], /unknown plan gold; plans: free, pro/],
    ['set-plan of an unknown org', ['org', 'set-plan', 'nope', 'pro'], /organization nope not found/],
    ['a malformed token id', ['token', 'revoke', 'hp_abc'], /invalid token id/],
    ['both expiries', ['token', 'create', 'ada@acme.test', '--expires-in', '1d', '--expires-at', '2099-01-01T00:00:00Z'], /not both/],
    ['a bad --expires-in', ['token', 'create', 'ada@acme.test', '--expires-in', '30 days'], /invalid --expires-in/],
    ['a zero --expires-in', ['token', 'create', 'ada@acme.test', '--expires-in', '0d'], /invalid --expires-in/],
    ['an --expires-at without offset', ['token', 'create', 'ada@acme.test', '--expires-at', '2099-01-01T00:00:00'], /invalid --expires-at/],
    ['an --expires-at in the past', ['token', 'create', 'ada@acme.test', '--expires-at', '2001-01-01T00:00:00Z'], /not in the future/],
    ['an empty token name', ['token', 'create', 'ada@acme.test', '--name', ''], /invalid token name/],
    ['a zone name against the rule', ['zone', 'create', 'acme', 'trail-.test'], /invalid zone name/i],
    ['a zone for an unknown org', ['zone', 'create', 'nope', 'example.test'], /not found/i],
  ];

  it.concurrent.each(cases)('%s', async (_label, args, message) => {
    const r = await admin(dir, ...args);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/^hostplane: [^\n]+\n$/);
    expect(r.stderr).not.toMatch(/\n\s+at |node:internal|\.ts:\d+/);
  });

  it('usage errors exit 2, failures 1', async () => {
    expect((await admin(dir, 'org', 'create')).code).toBe(2);
    expect((await admin(dir, 'org', 'create', 'acme', '--bogus')).code).toBe(2);
    expect((await admin(dir, 'org', 'create', 'acme')).code).toBe(1);
    expect((await admin(dir, 'member', 'add', 'nope', 'ada@acme.test', 'admin')).code).toBe(1);
  });

  it('nothing was created by the refused commands', async () => {
    const s = await openTestStore(dir);
    try {
      expect(await s.db.select({ slug: orgs.slug, plan: orgs.plan }).from(orgs)).toEqual([{ slug: 'acme', plan: 'free' }]);
      expect(await s.db.select().from(tokens)).toEqual([]);
    } finally {
      s.close();
    }
  });
});

// The store of these tests is SQLite's file in the data dir, its modes and its absence; with --database-url the
// store is the database, which `init` and the first start migrate (docs/store.md).
describe.skipIf(onPostgres())('init, and a data dir without a store (SQLite: the store is a file in the data dir)', () => {
  it('init creates the data dir (0700) and an empty, migrated store (0600); again it keeps what is there', async () => {
    const dir = join(tempDir('hostplane-admin-init-'), 'nested', 'data');
    expect(await adminJson(dir, 'init')).toEqual({ store: resolve(dir, 'hostplane.db'), created: true });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'hostplane.db')).mode & 0o777).toBe(0o600);
    const slugs = async (): Promise<{ slug: string }[]> => {
      const s = openStore(dir, { create: false });
      try {
        return await s.db.select({ slug: orgs.slug }).from(orgs);
      } finally {
        s.close();
      }
    };
    expect(await slugs()).toEqual([]);

    await adminJson(dir, 'org', 'create', 'acme');
    expect(await adminJson(dir, 'init')).toEqual({ store: resolve(dir, 'hostplane.db'), created: false });
    expect(await slugs()).toEqual([{ slug: 'acme' }]);
  });

  it('init takes no arguments', async () => {
    const dir = join(tempDir('hostplane-admin-init-'), 'data');
    const r = await admin(dir, 'init', 'now');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/usage: .* init/);
    expect(existsSync(dir)).toBe(false);
  });

  const commands = [
    ['org', 'create', 'acme'],
    ['user', 'create', 'ada@acme.test'],
    ['token', 'create', 'ada@acme.test'],
    ['node', 'register', 'node-1'],
    ['zone', 'create', 'acme', 'example.test'],
    ['status'],
  ].map((args) => ({ args, command: args.join(' ') }));

  it.concurrent.each(commands)('$command refuses, says how to make one, and creates nothing', async ({ args }) => {
    const parent = tempDir('hostplane-admin-nostore-');
    const missing = join(parent, 'typo');
    const empty = join(parent, 'empty');
    mkdirSync(empty);
    for (const dir of [missing, empty]) {
      const r = await admin(dir, ...args);
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`no store in ${dir}`);
      expect(r.stderr).toContain(`hostplane admin --data ${dir} init`);
    }
    expect(readdirSync(parent).sort()).toEqual(['empty']);
    expect(readdirSync(empty)).toEqual([]);
  });
});
