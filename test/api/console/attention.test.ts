/**
 * Each kind's "needs attention" list (api/console/attention.ts) and the organization page's cut of them: the page
 * shows the longest few with how many more, and links each kind's list, which pages through all of them longest
 * first; any member reads them, an outsider finds nothing.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../lib/access-hash';
import { resourceStatus, zones } from '../../../store/schema';
import { setPasswordHash } from '../../../store/sessions';
import { startTestApi, type TestApi } from '../../helpers/app';
import { signedInAt } from '../../helpers/console-browser';

const PASSWORD = 'correct horse battery staple';
const FAILING = 5;

let t: TestApi;
beforeAll(async () => {
  t = await startTestApi({ console: { pageSizes: { attention: 2, orgAttention: 3 } } });
  const hash = await hashPassword(PASSWORD);
  for (const email of ['viewer@acme.test', 'stranger@nowhere.test']) await setPasswordHash(t.store, email, hash);
  for (let i = 0; i < FAILING; i++) {
    const name = `failing-${i}.test`;
    expect((await t.call('POST', '/v1/orgs/acme/dns/zones', { body: { name } })).status).toBe(200);
    const [zone] = await t.store.db.select().from(zones).where(eq(zones.name, name));
    // The later the zone, the longer it has failed: the list's order is not the names'.
    const since = new Date(Date.UTC(2026, 10, 1, 0, 60 - i)).toISOString();
    await t.store.write(async (tx) => {
      await tx.insert(resourceStatus).values({
        kind: 'zone', key: name, uid: zone!.uid, observedGeneration: zone!.generation, facts: {}, lastError: null, reconciledAt: since,
        conditions: [{ type: 'Ready', status: 'False', reason: 'ApplyFailed', message: `refused ${name}`, observedGeneration: zone!.generation, lastTransitionTime: since }],
      });
    });
  }
}, 120_000);
afterAll(async () => { await t.close(); });

const namesIn = (text: string): string[] => [...text.matchAll(/<td>(failing-\d\.test)<\/td>/g)].map((m) => m[1]!);

describe('the needs attention lists', { timeout: 120_000 }, () => {
  it('shows the longest few on the organization\'s page, with how many more and a link to each kind\'s list', async () => {
    const b = await signedInAt(t.url, 'viewer@acme.test', PASSWORD);
    const org = await b.go('GET', '/console/orgs/acme');
    expect(namesIn(org.text)).toEqual(['failing-4.test', 'failing-3.test', 'failing-2.test']);
    expect(org.text).toContain('<p>And 2 more.</p>');
    expect(org.text).toContain('<a href="/console/orgs/acme/attention/zones">Zones: 5 not True</a>');
    expect(org.text).not.toContain('/attention/hostnames');
  });

  it('pages through one kind\'s conditions, longest first', async () => {
    const b = await signedInAt(t.url, 'viewer@acme.test', PASSWORD);
    let path: string | undefined = '/console/orgs/acme/attention/zones';
    const seen: string[] = [];
    while (path !== undefined) {
      const r = await b.go('GET', path);
      expect(r.status, path).toBe(200);
      expect(r.text).toContain('<h1>Zones that need attention in acme</h1>');
      seen.push(...namesIn(r.text));
      path = /<a rel="next" href="([^"]+)">/.exec(r.text)?.[1]?.replaceAll('&amp;', '&');
    }
    expect(seen).toEqual(['failing-4.test', 'failing-3.test', 'failing-2.test', 'failing-1.test', 'failing-0.test']);
    const none = await b.go('GET', '/console/orgs/acme/attention/domains');
    expect(none.text).toContain('Nothing: every condition of these is True.');
  });

  it('is refused for an outsider, an unknown kind and a cursor of another list', async () => {
    const outsider = await signedInAt(t.url, 'stranger@nowhere.test', PASSWORD);
    expect((await outsider.go('GET', '/console/orgs/acme/attention/zones')).status).toBe(404);
    const b = await signedInAt(t.url, 'viewer@acme.test', PASSWORD);
    expect((await b.go('GET', '/console/orgs/acme/attention/projects')).status).toBe(404);
    const bad = await b.go('GET', '/console/orgs/acme/attention/zones?cursor=nonsense');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('not a cursor of this list');
  });
});
