/** The agent's control-plane client over HTTP and HTTPS (a private CA given as `--ca` would be): the long-poll's
 * If-None-Match and wait, 304 as "unchanged", the ETag as version, errors with status and code, the report, the
 * redeem of an access code. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneError, httpControlPlane, MAX_FAILURE_CHARS } from '../../../agent/sync/control';
import { hasOpenssl, makePki, type TestPki } from '../../../harness/tls';

const dir = mkdtempSync(join(tmpdir(), 'hostplane-control-'));
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
let answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(500).end();
let pki: TestPki;
let url = '';
let server: ReturnType<typeof createHttpsServer>;

beforeAll(async () => {
  if (!hasOpenssl()) return;
  pki = makePki(dir);
  server = createHttpsServer({ cert: readFileSync(pki.certPath), key: readFileSync(pki.keyPath) }, (req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      answer(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.close();
  server?.closeAllConnections();
  rmSync(dir, { recursive: true, force: true });
});

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

describe.skipIf(!hasOpenssl())('control plane client', () => {
  it('fetches the bundle over HTTPS trusting the private CA, with the ETag as its version', async () => {
    const cp = httpControlPlane({ baseUrl: url, nodeId: 'n1', token: 'node-token-1', ca: pki.ca });
    answer = (_req, res) => json(res, 200, { nodeId: 'n1', version: 12, projects: [{ org: 'acme', project: 'blog', hostnames: ['blog.test'], database: false, secrets: [{ name: 'K', version: 1, value: 'v' }], storage: null, access: { mode: 'public', passwordHash: null, bypassHash: null }, signIn: null }] }, { etag: '"12"' });
    const a = await cp.bundle({ version: null, waitSeconds: 30 });
    expect(a).toMatchObject({ kind: 'changed', version: '12', bundle: { projects: [{ org: 'acme', project: 'blog', secrets: [{ name: 'K', value: 'v' }], database: false, access: { mode: 'public' } }] } });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/nodes/n1/bundle', headers: { authorization: 'Bearer node-token-1' } });
    expect(seen.at(-1)!.headers['if-none-match']).toBeUndefined();
    cp.close();
  });

  it('long-polls with If-None-Match and ?wait, and takes 304 as unchanged', async () => {
    const cp = httpControlPlane({ baseUrl: url, nodeId: 'n1', token: 't', ca: pki.ca });
    answer = (_req, res) => res.writeHead(304, { etag: '"12"' }).end();
    expect(await cp.bundle({ version: '12', waitSeconds: 30 })).toEqual({ kind: 'unchanged' });
    expect(seen.at(-1)).toMatchObject({ url: '/v1/nodes/n1/bundle?wait=30', headers: { 'if-none-match': '"12"' } });
    cp.close();
  });

  it('fails with the status and error code of an error answer, never its body', async () => {
    const cp = httpControlPlane({ baseUrl: url, nodeId: 'n1', token: 't', ca: pki.ca });
    answer = (_req, res) => json(res, 401, { code: 'unauthorized', message: 'a token is needed' });
    const e = await cp.bundle({ version: null, waitSeconds: 30 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ControlPlaneError);
    expect(e).toMatchObject({ status: 401, code: 'unauthorized', message: 'bundle: 401 unauthorized' });
    answer = (_req, res) => json(res, 200, { projects: [{ org: 'acme', secrets: [{ name: 'K', value: 'secret-in-a-bad-bundle' }] }] }, { etag: '"3"' });
    const bad = await cp.bundle({ version: null, waitSeconds: 30 }).catch((x: unknown) => x as Error);
    expect((bad as Error).message).toMatch(/^bundle: unexpected shape at /);
    expect((bad as Error).message).not.toContain('secret-in-a-bad-bundle');
    cp.close();
  });

  it('refuses a control plane whose certificate it cannot verify (no --ca)', async () => {
    const cp = httpControlPlane({ baseUrl: url, nodeId: 'n1', token: 't' });
    await expect(cp.bundle({ version: null, waitSeconds: 30 })).rejects.toThrow(/self.signed|unable to (get|verify)/i);
    cp.close();
  });

  it('posts the report: applied versions (numbers when they are ones), usage and failures, cut short', async () => {
    const cp = httpControlPlane({ baseUrl: url, nodeId: 'n1', token: 't', ca: pki.ca });
    answer = (_req, res) => res.writeHead(204).end();
    await cp.report({
      bundleVersion: '12',
      projects: [
        { org: 'acme', project: 'blog', usedBytes: 42, appliedVersion: '14', failure: null },
        { org: 'acme', project: 'shop', usedBytes: 0, appliedVersion: null, failure: 'x'.repeat(MAX_FAILURE_CHARS + 1) },
      ],
    });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/v1/nodes/n1/report', headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({
      bundleVersion: 12,
      projects: [
        { org: 'acme', project: 'blog', usedBytes: 42, appliedVersion: 14, failure: null },
        { org: 'acme', project: 'shop', usedBytes: 0, failure: 'x'.repeat(MAX_FAILURE_CHARS) },
      ],
    });
    answer = (_req, res) => json(res, 404, { code: 'not_found', message: 'node not found' });
    await expect(cp.report({ bundleVersion: '12', projects: [] })).rejects.toMatchObject({ status: 404, code: 'not_found' });
    cp.close();
  });

  it('redeems an access code: who and where on 200, null on 404, an error otherwise', async () => {
    const cp = httpControlPlane({ baseUrl: url, nodeId: 'n1', token: 't', ca: pki.ca });
    const redeemed = { host: 'blog.test', next: '/x', user: 'ada@acme.test', org: 'acme', role: 'member' };
    answer = (_req, res) => json(res, 200, redeemed);
    expect(await cp.redeem('code-1')).toEqual(redeemed);
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/v1/nodes/n1/access/redeem' });
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ code: 'code-1' });
    answer = (_req, res) => json(res, 404, { code: 'not_found', message: 'no such code' });
    expect(await cp.redeem('code-1')).toBeNull();
    answer = (_req, res) => json(res, 503, { code: 'no_core', message: 'down' });
    await expect(cp.redeem('code-2')).rejects.toMatchObject({ status: 503, code: 'no_core' });
    cp.close();
  });
});
