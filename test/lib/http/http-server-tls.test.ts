/** lib/http/http-server.ts on an https.Server (`serve --tls-cert`): requests arrive on TLS sockets wrapping the
 * accepted ones, and are still counted as being answered, so long-polls over TLS are not taken for waiting
 * connections. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { harden } from '../../../lib/http/http-server';
import { until } from '../../helpers/proc';
import { hasOpenssl, makePki } from '../../../harness/tls';

const dir = mkdtempSync(join(tmpdir(), 'hostplane-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!hasOpenssl())('harden over TLS', () => {
  it('counts requests being answered on TLS connections as answered: long-polls beyond the waiting cap are served', async () => {
    const pki = makePki(dir);
    // Each answer is held until all three requests are being answered: they are then answered together.
    const held: ServerResponse[] = [];
    const server = createServer({ cert: readFileSync(pki.certPath), key: readFileSync(pki.keyPath) }, (_req, res) => {
      held.push(res);
      if (held.length === 3) for (const r of held) r.end('ok');
    });
    harden(server, { maxConnections: 10, maxConnectionsPerAddress: 10, maxWaitingConnectionsPerAddress: 1, headersTimeoutMs: 5000, requestTimeoutMs: 5000 });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    // Settles with the status or the error, so that a refused request fails the test's expectation and is never
    // an unhandled rejection while the next one is started.
    const get = () => new Promise<number | Error>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/', ca: pki.ca, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', resolve);
      req.end();
    });
    // The next request starts once the one before is being answered (its handler has it), so that at most one is
    // ever waiting (for its handshake and headers), however slow the machine; all three are then being answered.
    const answers: Promise<number | Error>[] = [];
    const settled = new Set<number>();
    for (let i = 0; i < 3; i++) {
      answers.push(get().finally(() => settled.add(i)));
      await until(`request ${i + 1} being answered`, () => held.length > i || settled.has(i));
    }
    expect(await Promise.all(answers)).toEqual([200, 200, 200]);
    server.close();
    server.closeAllConnections();
  });
});
