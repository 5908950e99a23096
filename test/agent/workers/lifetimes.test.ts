/** Which places a project lifetime has on the node (agent/workers/lifetimes.ts); the supervisor's use of them, with
 * workers, is in test/agent/isolation.test.ts, and with real processes in test/e2e/project-lifetimes.test.ts. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { adoptNameKeyed, placesOf } from '../../../agent/workers/lifetimes';
import { bundleOf } from '../../helpers/agent';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'hostplane-lifetimes-'));
  dirs.push(d);
  return d;
};
const U1 = '1'.repeat(32);
const U2 = '2'.repeat(32);
const blog = (uid?: string) => bundleOf('1', [uid ? { project: 'blog', uid } : { project: 'blog' }]).bundle.projects[0]!;

describe('project lifetimes on the node', () => {
  it('a bundle without lifetimes has the name-keyed places; one with a lifetime, places of its own', () => {
    const dir = tempDir();
    expect(placesOf(dir, blog())).toEqual({
      uid: null, userKey: 'acme/blog', databaseDir: join(dir, 'databases', 'acme', 'blog'), databasePath: join(dir, 'databases', 'acme', 'blog', 'blog.sqlite'),
    });
    expect(placesOf(dir, blog(U1))).toEqual({
      uid: U1, userKey: `acme/blog#${U1}`,
      databaseDir: join(dir, 'databases', 'acme', `blog.${U1}`), databasePath: join(dir, 'databases', 'acme', `blog.${U1}`, 'blog.sqlite'),
    });
  });

  it('the name-keyed places go to the lifetime that follows a bundle without lifetimes, once, and to no other', () => {
    const dir = tempDir();
    adoptNameKeyed(dir, blog(U1), undefined); // first seen with its lifetime: nothing to adopt
    adoptNameKeyed(dir, blog(U1), blog(U2)); // follows another lifetime: nothing either
    expect(placesOf(dir, blog(U1)).uid).toBe(U1);
    adoptNameKeyed(dir, blog(U1), blog());
    expect(placesOf(dir, blog(U1)).uid).toBeNull();
    adoptNameKeyed(dir, blog(U2), blog());
    expect(placesOf(dir, blog(U2)).uid).toBe(U2);
    expect(placesOf(dir, blog(U1)).userKey).toBe('acme/blog');
  });

  it('refuses a lifetimes.json it did not write', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'lifetimes.json'), JSON.stringify({ 'acme/blog': '../../etc' }));
    expect(() => placesOf(dir, blog(U1))).toThrow(/is not a file the agent wrote/);
  });
});
