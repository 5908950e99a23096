/** Secret writes that decide on what is stored (the plan's bytes per project, an If-Match precondition) decide one
 * after another, also when they run at once on PostgreSQL. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOrg } from '../../store/accounts';
import { type Store } from '../../store/db';
import { createProject } from '../../store/projects';
import { secrets } from '../../store/schema';
import { deleteSecret, setSecret, type SecretPrecondition } from '../../store/secrets';
import { AppError } from '../../lib/errors';
import { openTestStore } from '../helpers/store';

let s: Store;
let project: { orgId: number; projectId: number; projectName: string; actor: string };

beforeEach(async () => {
  s = await openTestStore(':memory:');
  const org = await createOrg(s, 'acme', 'free');
  const p = await createProject(s, { orgId: org.id, plan: 'free', limit: 3, name: 'blog', database: false, hostname: 'blog.hostplane.test', actor: 't' });
  project = { orgId: org.id, projectId: p.id, projectName: 'blog', actor: 't' };
});
afterEach(() => s.close());

/** `n` writes at once, each on a connection already open on PostgreSQL, as a loaded server runs them. */
async function atOnce<T>(n: number, write: (i: number) => Promise<T>): Promise<PromiseSettledResult<T>[]> {
  await Promise.all(Array.from({ length: n }, () => s.db.select().from(secrets)));
  return Promise.allSettled(Array.from({ length: n }, (_, i) => write(i)));
}
/** As api/conditional.ts checks an If-Match of the version read before. */
const ifMatch = (version: number): SecretPrecondition => (current) => {
  if (current?.version !== version) throw new AppError(412, 'precondition_failed', 'the secret changed');
};
const fulfilled = (results: PromiseSettledResult<unknown>[]) => results.filter((r) => r.status === 'fulfilled').length;
const reasons = (results: PromiseSettledResult<unknown>[]) => results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));

describe('concurrent secret writes', () => {
  it('over the plan\'s bytes: one takes the room left, the others 409 quota_exceeded', async () => {
    // NAME=value of 10 bytes each (names of 2 characters, values of 7): room for 2.
    const quota = { plan: 'free', limit: 20, valueBytes: (sealed: string) => sealed.length };
    await setSecret(s, { ...project, name: 'S0', sealed: 'x'.repeat(7), quota });
    const results = await atOnce(5, (i) => setSecret(s, { ...project, name: `S${i + 1}`, sealed: 'x'.repeat(7), quota }));
    expect(fulfilled(results)).toBe(1);
    for (const e of reasons(results)) expect(e).toMatchObject({ code: 'quota_exceeded' });
    expect(await s.db.select().from(secrets)).toHaveLength(2);
  });

  it('with the same If-Match: one write wins, the others 412 precondition_failed', async () => {
    const first = await setSecret(s, { ...project, name: 'KEY', sealed: 'v1' });
    const sets = await atOnce(4, (i) => setSecret(s, { ...project, name: 'KEY', sealed: `v${i + 2}`, precondition: ifMatch(first.version) }));
    expect(fulfilled(sets)).toBe(1);
    for (const e of reasons(sets)) expect(e).toMatchObject({ code: 'precondition_failed' });
    const [stored] = await s.db.select().from(secrets);
    expect(stored!.version).toBe(first.version + 1);
  });

  it('a set and a delete with the same If-Match: one of them, never the delete of the value the set wrote', async () => {
    const first = await setSecret(s, { ...project, name: 'KEY', sealed: 'v1' });
    const results = await atOnce<unknown>(4, (i) => (i % 2
      ? deleteSecret(s, { ...project, name: 'KEY', precondition: ifMatch(first.version) })
      : setSecret(s, { ...project, name: 'KEY', sealed: `v${i + 2}`, precondition: ifMatch(first.version) })));
    expect(fulfilled(results)).toBe(1);
    const stored = await s.db.select().from(secrets);
    // Deleted, or set once: a value written after the check is never deleted on the strength of it.
    expect(stored.length === 0 || stored[0]!.version === first.version + 1).toBe(true);
  });
});
