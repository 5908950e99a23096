/** The agent's HTTPS front end with its redirecting plain HTTP listener, and the gate wired to the control
 * plane's redeem and to the key kept in the node's directory. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAgent, type RunningAgent } from '../../agent/agent';
import type { BundleAnswer, ControlPlane, Redeemed, Report } from '../../agent/sync/control';
import { bundleOf, captureLogger, cookiesOf, fakeWorker, send } from '../helpers/agent';
import { until } from '../helpers/proc';
import { hasOpenssl, makePki } from '../../harness/tls';

const dir = mkdtempSync(join(tmpdir(), 'hostplane-access-agent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Answers one bundle, then holds; redeems the codes it was given. */
class OneBundle implements ControlPlane {
  private sent = false;
  readonly redeemed: string[] = [];
  constructor(private readonly answer: BundleAnswer, private readonly codes: Record<string, Redeemed>) {}
  bundle(opts: { signal?: AbortSignal }): Promise<BundleAnswer> {
    if (!this.sent) {
      this.sent = true;
      return Promise.resolve(this.answer);
    }
    return new Promise((resolve) => opts.signal?.addEventListener('abort', () => resolve({ kind: 'unchanged' })));
  }
  report(_r: Report): Promise<void> {
    return Promise.resolve();
  }
  redeem(code: string): Promise<Redeemed | null> {
    this.redeemed.push(code);
    const r = this.codes[code] ?? null;
    delete this.codes[code];
    return Promise.resolve(r);
  }
  close(): void {}
}

const HOST = 'team.hostplane.test';

describe.skipIf(!hasOpenssl())('agent with TLS', () => {
  const pki = makePki(mkdtempSync(join(dir, 'pki-')));
  const nodeDir = join(dir, 'node');
  const bundle = bundleOf('7', [{ project: 'team', hostnames: [HOST], access: { mode: 'org', passwordHash: null, bypassHash: null, version: 2 } }]);
  const start = async (control: ControlPlane): Promise<RunningAgent> => startAgent({
    dir: nodeDir, control, command: ['unused'], listen: { host: '127.0.0.1', port: 0 }, log: captureLogger().log,
    tls: { cert: readFileSync(pki.certPath), key: readFileSync(pki.keyPath) }, httpListen: { host: '127.0.0.1', port: 0 },
    access: { dashboardUrl: 'https://dash.hostplane.test/access' },
    supervisor: { start: fakeWorker },
  });

  it('serves HTTPS; plain HTTP redirects (308) to it for the hosts it serves, and is 404 for others', async () => {
    const agent = await start(new OneBundle({ kind: 'changed', ...bundle }, {}));
    try {
      expect(agent.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      await until('the front end', async () => (await send(agent.url, { host: HOST, ca: pki.ca })).status === 302, 5000, 20);
      expect((await send(agent.url, { host: HOST, ca: pki.ca })).headers['strict-transport-security']).toBe('max-age=31536000');
      const port = new URL(agent.url).port;
      const r = await send(agent.httpUrl!, { host: `${HOST}:80`, path: '/a/b?c=1', method: 'POST', body: 'x' });
      expect(r.status).toBe(308);
      expect(r.headers['strict-transport-security']).toBeUndefined();
      const clear = await send(agent.httpUrl!, { host: HOST, headers: { 'service-access-bypass': 'x'.repeat(43) } });
      expect(clear.status).toBe(400);
      expect(clear.headers.location).toBeUndefined();
      expect(JSON.parse(clear.body)).toMatchObject({ code: 'https_required' });
      expect(r.headers.location).toBe(`https://${HOST}:${port}/a/b?c=1`);
      expect((await send(agent.httpUrl!, { host: 'other.test' })).status).toBe(404);
    } finally {
      await agent.stop();
    }
  });

  /** A code of the form authorizeAccess issues (43 base64url characters), and the round trip's state. */
  const CODE = 'c'.repeat(43);
  const STATE = 's'.repeat(22);
  const STATE_COOKIE = `__Host-service-access-state=${STATE}`;

  it('redeems the callback\'s code at the control plane; the session outlives a restart (the key is in the node\'s dir)', async () => {
    const redeemed: Redeemed = { host: HOST, next: '/home', user: 'ada@acme.test', org: 'acme', role: 'member' };
    let agent = await start(new OneBundle({ kind: 'changed', ...bundle }, { [CODE]: redeemed }));
    let cookie: string;
    try {
      await until('the front end', async () => (await send(agent.url, { host: HOST, ca: pki.ca })).status === 302, 5000, 20);
      const cb = await send(agent.url, { host: HOST, ca: pki.ca, path: `/__service/access/callback?code=${CODE}&next=%2Fhome&state=${STATE}`, headers: { cookie: STATE_COOKIE } });
      expect(cb.status).toBe(302);
      cookie = cookiesOf(cb);
      expect((await send(agent.url, { host: HOST, ca: pki.ca, headers: { cookie } })).status).toBe(200);
      // Spent: the same link again is refused.
      expect((await send(agent.url, { host: HOST, ca: pki.ca, path: `/__service/access/callback?code=${CODE}&next=%2Fhome&state=${STATE}`, headers: { cookie: STATE_COOKIE } })).status).toBe(403);
    } finally {
      await agent.stop();
    }
    agent = await start(new OneBundle({ kind: 'changed', ...bundle }, {}));
    try {
      await until('the session admitted', async () => (await send(agent.url, { host: HOST, ca: pki.ca, headers: { cookie } })).status === 200, 5000, 20);
    } finally {
      await agent.stop();
    }
  });
});
