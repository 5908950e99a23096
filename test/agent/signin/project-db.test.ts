/** The agent's side of a project's database helper (agent/signin/project-db.ts), against small helpers written
 * here (plain node, so that they start quickly): deadlines, the bound on waiting calls, the idle stop, and a
 * helper that answers nonsense. The real helper (db-helper.ts) is driven through the sign-in handler in
 * signin.test.ts. */
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseUnavailable, ProjectDatabase, type HelperLimits } from '../../../agent/signin/project-db';
import { captureLogger } from '../../helpers/agent';

/** Answers `ready`, then each call with its pid, except `hang` (a query that never ends: nothing more is read),
 * `fail` (an error) and `long` (a line too long). */
const FAKE = `
process.stdout.write(JSON.stringify({ ready: true }) + '\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, op } = JSON.parse(line);
  if (op === 'hang') for (;;);
  if (op === 'long') return process.stdout.write('x'.repeat(100 * 1024));
  if (op === 'fail') return process.stdout.write(JSON.stringify({ id, ok: false, error: 'SQLITE_BUSY: database is locked' }) + '\\n');
  process.stdout.write(JSON.stringify({ id, ok: true, result: process.pid }) + '\\n');
}).on('close', () => process.exit(0));
`;

const opened: ProjectDatabase[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

function helper(limits: Partial<HelperLimits> = {}, script = FAKE) {
  const logs = captureLogger();
  const db = new ProjectDatabase({
    project: 'acme/shop', path: '/unused', user: () => null, log: logs.log,
    limits: { callTimeoutMs: 500, startTimeoutMs: 5_000, idleMs: 60_000, maxPending: 64, restart: { baseMs: 400, maxMs: 400, random: () => 1 }, ...limits },
    command: [process.execPath, '-e', script],
  });
  opened.push(db);
  return { db, logs };
}

const failure = (p: Promise<unknown>): Promise<DatabaseUnavailable> => p.then(() => { throw new Error('answered'); }, (e: DatabaseUnavailable) => e);

describe('the project database helper', () => {
  it('a call past its deadline kills the helper and fails every call it had; the next call starts another', async () => {
    const { db, logs } = helper();
    const pid = await db.call('pid', {});
    const started = Date.now();
    const [hung, queued] = await Promise.all([failure(db.call('hang', {})), failure(db.call('pid', {}))]);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(hung).toMatchObject({ kind: 'unavailable', message: 'a database call took longer than 500 ms' });
    expect(queued.kind).toBe('unavailable');
    expect(logs.text()).toContain('the database helper was stopped');
    // Not at once: a helper that fails is started again after a delay, so a broken database costs little.
    expect(await failure(db.call('pid', {}))).toMatchObject({ kind: 'unavailable', message: 'the database helper failed; it is started again after a delay' });
    await new Promise((r) => setTimeout(r, 450));
    const next = await db.call('pid', {});
    expect(next).not.toBe(pid);
  });

  it.each([['null'], ['[1]'], ['"text"'], ['{"id":1,"ok":false,"error":{"toString":1}}']])(
    'an answer that is not an object of ours (%s) kills the helper, never the agent',
    async (line) => {
      const { db, logs } = helper({}, `process.stdout.write(JSON.stringify({ ready: true }) + '\\n');
        process.stdin.once('data', () => process.stdout.write(${JSON.stringify(line)} + '\\n'));
        setInterval(() => {}, 1000);`);
      // Before, the agent's stdout listener threw here: an uncaught exception, every project on the node down.
      expect(await failure(db.call('pid', {}))).toMatchObject({ kind: 'unavailable' });
      expect(logs.text()).toMatch(/the database helper was stopped|a database call failed/);
    },
  );

  it('refuses calls beyond maxPending at once', async () => {
    const { db } = helper({ maxPending: 2, callTimeoutMs: 2_000 });
    await db.call('pid', {});
    const waiting = [failure(db.call('hang', {})), failure(db.call('hang', {}))];
    expect(await failure(db.call('pid', {}))).toMatchObject({ kind: 'busy' });
    db.close();
    await Promise.all(waiting);
  });

  it('a failed call fails alone: the helper stays', async () => {
    const { db } = helper();
    const pid = await db.call('pid', {});
    expect(await failure(db.call('fail', {}))).toMatchObject({ kind: 'unavailable', message: 'the database call failed: SQLITE_BUSY: database is locked' });
    expect(await db.call('pid', {})).toBe(pid);
  });

  it('stops after idleMs without calls', async () => {
    const { db } = helper({ idleMs: 100 });
    const pid = (await db.call('pid', {})) as number;
    expect(db.running).toBe(true);
    await new Promise((r) => setTimeout(r, 400));
    expect(db.running).toBe(false);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(await db.call('pid', {})).not.toBe(pid);
  });

  it('a helper that is not ready in time, or writes a line too long, is killed', async () => {
    const slow = helper({ startTimeoutMs: 200 }, 'setInterval(() => {}, 1000)').db;
    expect(await failure(slow.call('pid', {}))).toMatchObject({ message: 'the database helper was not ready within 200 ms' });
    const { db } = helper();
    expect(await failure(db.call('long', {}))).toMatchObject({ message: 'the database helper wrote a line too long' });
  });

  it('a helper that cannot open the database says why, and fails the call', async () => {
    const { db } = helper({}, `process.stdout.write(JSON.stringify({ ready: false, error: 'the project database is not a regular file' }) + '\\n'); process.exit(1)`);
    expect(await failure(db.call('pid', {}))).toMatchObject({ message: 'the database cannot be opened: the project database is not a regular file' });
  });
});
