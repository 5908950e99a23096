/** lib/http/http-server.ts on an https.Server (`serve --tls-cert`): requests arrive on TLS sockets wrapping the
 * accepted ones, and are still counted as being answered, so long-polls over TLS are not taken for waiting
 * connections. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { harden } from '../../../lib/http/http-server';
import { hasOpenssl, makePki } from '../../../harness/tls';

const dir = mkdtempSync(join(tmpdir(), 'hostplane-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!hasOpenssl())('harden over TLS', () => {
  it('counts requests being answered on TLS connections as answered: long-polls beyond the waiting cap are served', async () => {
    const pki = makePki(dir);
    const server = createServer({ cert: readFileSync(pki.certPath), key: readFileSync(pki.keyPath) }, (_req, res) => {
      setTimeout(() => res.end('ok'), 600);
    });
    harden(server, { maxConnections: 10, maxConnectionsPerAddress: 10, maxWaitingConnectionsPerAddress: 1, headersTimeoutMs: 5000, requestTimeoutMs: 5000 });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const get = () => new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/', ca: pki.ca, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });
    // One after the other, so that at most one is waiting (for its handshake and headers) at a time; all three are
    // then being answered at once.
    const answers: Promise<number>[] = [];
    for (let i = 0; i < 3; i++) {
      answers.push(get());
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(await Promise.all(answers)).toEqual([200, 200, 200]);
    server.close();
    server.closeAllConnections();
  });
});
