/** The node agent's fetch reads an answer whole only up to MAX_ANSWER_BYTES: a control plane (broken, or not the
 * real one) that answers without end fails the request, as an unreachable one would, rather than taking the
 * node's memory. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES, nodeFetch } from '../../../agent/sync/fetch';

let server: Server;
let url: string;
/** Bytes the server writes for `/<n>`, in 1 MiB chunks, as fast as it is read. */
beforeAll(async () => {
  server = createServer((req, res) => {
    let left = Number(req.url!.slice(1));
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const more = (): void => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        if (!res.write(chunk.subarray(0, n))) return void res.once('drain', more);
      }
      res.end();
    };
    res.on('close', () => { left = 0; });
    more();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  server.closeAllConnections();
});

describe('nodeFetch', () => {
  it('reads an answer of the bound whole, and fails one past it without reading it all', async () => {
    const f = nodeFetch();
    try {
      expect((await (await f.fetch(`${url}/${MAX_ANSWER_BYTES}`)).arrayBuffer()).byteLength).toBe(MAX_ANSWER_BYTES);
      // Reduced to words: an answer read whole is too large for an assertion's message.
      const past = await f.fetch(`${url}/${2 * MAX_ANSWER_BYTES}`).then((r) => `answered ${r.status}`, (e: Error) => e.message);
      expect(past).toBe(`the answer passes ${MAX_ANSWER_BYTES} bytes: not read`);
    } finally {
      f.close();
    }
  });
});
