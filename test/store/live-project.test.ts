/** checkLiveProject: a write that read its project just before the project's deletion answers 404, never a database
 * error (a 500 at the API). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors';
import { createOrg } from '../../store/accounts';
import { type Store } from '../../store/db';
import { openTestStore } from '../helpers/store';
import { createProject, deleteProject, getProject } from '../../store/projects';
import { setSecret } from '../../store/secrets';
import { setAccessPolicy, setBypass } from '../../store/access';
import { grantAuth } from '../../store/auth';
import { grantStorage } from '../../store/storage';
import { addHostname } from '../../store/hostnames';
import { setAuthProvider } from '../../store/auth';

describe('writes racing deleteProject', () => {
  let s: Store;
  let orgId: number;
  beforeEach(async () => {
    s = await openTestStore(':memory:');
    orgId = (await createOrg(s, 'acme', 'free')).id;
  });
  afterEach(() => s.close());

  const readThenDelete = async () => {
    await createProject(s, { orgId, plan: 'free', limit: 3, name: 'blog', database: false, hostname: 'blog.hostplane.test', actor: 't' });
    const p = await getProject(s, orgId, 'blog');
    expect((await deleteProject(s, { orgId, name: 'blog', actor: 't' })).left).toBeNull();
    return { orgId, projectId: p.id, projectName: p.name, actor: 't' };
  };

  it.each([
    ['setSecret', (w: Awaited<ReturnType<typeof readThenDelete>>) => setSecret(s, { ...w, name: 'API_KEY', sealed: 'x' })],
    ['setAccessPolicy', (w: Awaited<ReturnType<typeof readThenDelete>>) => setAccessPolicy(s, { ...w, mode: 'org' })],
    ['setBypass', (w: Awaited<ReturnType<typeof readThenDelete>>) => setBypass(s, { ...w, bypassHash: 'h' })],
    ['grantAuth', (w: Awaited<ReturnType<typeof readThenDelete>>) => grantAuth(s, w)],
    ['setAuthProvider', (w: Awaited<ReturnType<typeof readThenDelete>>) => setAuthProvider(s, { ...w, provider: 'github', clientId: 'c', sealed: 'x' })],
    ['addHostname', (w: Awaited<ReturnType<typeof readThenDelete>>) => addHostname(s, { ...w, name: 'www.shop.test' })],
    ['grantStorage', (w: Awaited<ReturnType<typeof readThenDelete>>) => grantStorage(s, { ...w, quotaBytes: 1 })],
  ] as const)('%s after the project is gone is 404 not_found', async (_name, write) => {
    const w = await readThenDelete();
    const e = await write(w).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppError);
    expect(e).toMatchObject({ status: 404, code: 'not_found' });
  });
});
