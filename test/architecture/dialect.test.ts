/**
 * The store modules and everything that reads the store run on SQLite and on PostgreSQL alike (docs/store.md,
 * issue 22): the store's `db` is drizzle's node-postgres database there, which has none of the SQLite dialect's
 * synchronous calls, and no better-sqlite3 connection under it. So no service source uses what only SQLite has.
 * A failure names the file, the line and the form, so the fix starts from the message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, tsFiles } from './graph';

/** What runs on SQLite alone, and what to do instead. */
const SQLITE_ONLY: { form: string; re: RegExp }[] = [
  { form: 'a synchronous drizzle call (await the builder, or .execute() a prepared query)', re: /\.(get|all|run)\(\)|(\)|^)\s*\.values\(\)/ },
  { form: 'a prepared query run synchronously (.execute(params), [0] for one row)', re: /\.prepare\(\)\)?\s*\.(get|all|run|values)\(|\.(get|all)\(\{/ },
  { form: 'drizzle\'s SQLite-only raw SQL on a database (s.raw / tx.raw)', re: /\b(db|tx)\.(get|all|run|values)(<[^>]*>)?\(/ },
  { form: 'the better-sqlite3 connection (s.raw / tx.raw)', re: /\bsqlite\.(prepare|exec|transaction|pragma)\b|\$client\b|\.pluck\(/ },
  { form: 'a synchronous transaction on the read side (one statement, or a generation check: store/zones.ts)', re: /\.transaction\(/ },
  { form: 'SQL only SQLite has (branch on s.dialect in one small function)', re: /(?<![.\w])(json_type|json_extract|strftime|datetime|julianday|group_concat|ifnull)\(|INSERT OR (IGNORE|REPLACE)|LIMIT -1\b|PRAGMA / },
];

/** Sources that are SQLite by design: the SQLite store itself, and the node agent's own sign-in database. */
const SQLITE_BY_DESIGN = ['store/db.ts', 'store/data-migrations.ts', 'agent/signin/'];

/** Uses that stay for now, each with its reason; every one must still be there (a stale entry fails). */
const ALLOWED: { file: string; line: RegExp; why: string }[] = [
  { file: 'store/projects.ts', line: /json_type\(/, why: 'the SQLite branch of `carries`, beside its PostgreSQL one' },
];

const folders = /\{([a-z,]+)\}/.exec(readFileSync(join(root, 'bin', 'hostplane'), 'utf8'))![1]!.split(',');
const sources = tsFiles().filter((f) => folders.some((d) => f.startsWith(`${d}/`)) && !SQLITE_BY_DESIGN.some((p) => f.startsWith(p)));

/** `file:line: form` for every line of `text` that uses a SQLite-only form, comments aside. */
function sqliteOnlyUses(file: string, text: string): { file: string; line: string; at: string }[] {
  return text.split('\n').flatMap((line, i) => {
    const code = line.replace(/^\s*(\*|\/\/|\/\*\*?).*$/, '').replace(/\s\/\/ .*$/, '');
    return SQLITE_ONLY.filter(({ re }) => re.test(code)).map(({ form }) => ({ file, line: code.trim(), at: `${file}:${i + 1}: ${form}` }));
  });
}

const allowed = (u: { file: string; line: string }): boolean => ALLOWED.some((a) => a.file === u.file && a.line.test(u.line));
const uses = sources.flatMap((f) => sqliteOnlyUses(f, readFileSync(join(root, f), 'utf8')));

describe('the store is dialect-neutral', () => {
  it('reads the service\'s sources (the folders bin/hostplane watches)', () => {
    expect(sources).toEqual(expect.arrayContaining(['store/zones.ts', 'api/wait.ts', 'reconcilers/runner.ts', 'agent/agent.ts']));
    expect(sources.some((f) => f.startsWith('agent/signin/'))).toBe(false);
  });

  it('uses nothing only SQLite has outside the SQLite store', () => {
    expect(uses.filter((u) => !allowed(u)).map((u) => `${u.at}\n    ${u.line}`)).toEqual([]);
  });

  it('allows only uses that are still there', () => {
    expect(ALLOWED.filter((a) => !uses.some((u) => u.file === a.file && a.line.test(u.line))).map((a) => `${a.file} ${a.line}: ${a.why}`)).toEqual([]);
  });
});

describe('sqliteOnlyUses', () => {
  const found = (line: string): string[] => sqliteOnlyUses('x.ts', line).map((u) => u.at);

  it.each([
    'const u = s.db.select().from(users).where(eq(users.id, id)).get();',
    'const rows = q.select().from(zones).all();',
    'await tx.delete(zones).run();',
    'const v = s.db.select().from(t)\n  .values();',
    'const row = s.prepared(\'k\', (db) => db.select().from(t).prepare()).get({ name });',
    'await tx.prepared(\'k\', (db) => db.insert(t).values({ a: sql.placeholder(\'a\') }).prepare()).run(row);',
    'const grant = q.grant.get({ id: projectId });',
    'const rows = s.db.all<Row>(sql`SELECT 1`);',
    'tx.run(sql`DELETE FROM t`);',
    'const q = s.prepared(\'k\', (_db, sqlite) => sqlite.prepare(\'SELECT 1\'));',
    'const c = (s.db as unknown as { $client: Database }).$client;',
    'return s.db.transaction(() => read());',
    'sql`json_type(${t.sections}, ${path}) IS NOT NULL`',
    'INSERT OR IGNORE INTO t VALUES (?)',
    'SELECT strftime(\'%s\', at) FROM t',
    'SELECT group_concat(name) FROM t',
    'SELECT ifnull(a, 0) FROM t',
    'SELECT name FROM t LIMIT -1 OFFSET 5',
  ])('finds %s', (line) => {
    expect(found(line)).not.toEqual([]);
  });

  it.each([
    'const [u] = await s.db.select().from(users).where(eq(users.id, id)).limit(1);',
    'const [row] = await s.prepared(\'k\', (db) => db.select().from(t).prepare()).execute({ name });',
    'const rows = await s.raw<Row>(\'k\', \'SELECT name AS "createdAt" FROM t WHERE a = ?\', [a]);',
    'const n = byName.get(key) ?? 0;',
    'for (const w of waiting.values()) clearTimeout(w.timer);',
    'return [...byEmail.values()];',
    'await Promise.all(queues().map((q) => q.onIdle()));',
    ' * `.get()` and `.all()` exist only in drizzle\'s SQLite dialect.',
    'SELECT coalesce(sum(bytes), 0) FROM rrsets',
    'export const Timestamp = z.iso.datetime();',
    'const out = await command.run({ s, flags, opts, note }, rest);',
  ])('passes %s', (line) => {
    expect(found(line)).toEqual([]);
  });
});
