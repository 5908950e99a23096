/**
 * The built-in worker of the reference node (`hostplane node-agent` without `--worker`): a small HTTP server on
 * the Unix socket `SERVICE_SOCKET` (a worker has no TCP port: agent/workers/worker-process.ts) that shows what it runs
 * with, never a value:
 *
 * - any `GET`: `{"org", "project", "bundleVersion", "bindings": {"NAME": "<SHA-256 hex of the value>"}}`, for
 *   every binding the agent named in `SERVICE_BINDINGS` (secrets, `SERVICE_STORAGE_DIR`, ...);
 * - `PUT /files/<name>`: writes the body to `<name>` in `SERVICE_STORAGE_DIR` (201 `{"name", "bytes"}`; 404
 *   `storage_not_granted` without storage), so that a test can use storage as a worker does.
 *
 * It stops on SIGTERM after the requests it is answering, and when its stdin closes (the agent is gone).
 */
import { bindingHash } from './bindings';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

const env = process.env;
const names = (env.SERVICE_BINDINGS ?? '').split(',').filter(Boolean);
const bindings: Record<string, string> = {};
for (const name of names) bindings[name] = bindingHash(env[name] ?? '');
const identity = JSON.stringify({ org: env.SERVICE_ORG, project: env.SERVICE_PROJECT, bundleVersion: env.SERVICE_BUNDLE_VERSION, bindings });

const json = (res: ServerResponse, status: number, body: string): void => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(body);
};

const server = createServer((req, res) => {
  const file = /^\/files\/([A-Za-z0-9][A-Za-z0-9._-]{0,127})$/.exec(req.url ?? '');
  if (req.method === 'PUT' && file) {
    const dir = env.SERVICE_STORAGE_DIR;
    if (!dir) return json(res, 404, JSON.stringify({ code: 'storage_not_granted', message: 'this project has no storage' }));
    mkdirSync(dir, { recursive: true });
    const path = join(dir, file[1]!);
    let bytes = 0;
    req.on('data', (c: Buffer) => { bytes += c.length; });
    pipeline(req, createWriteStream(path)).then(
      () => json(res, 201, JSON.stringify({ name: file[1], bytes })),
      () => json(res, 500, JSON.stringify({ code: 'internal', message: 'the file could not be written' })),
    );
    return;
  }
  req.resume();
  json(res, 200, identity);
});
server.keepAliveTimeout = 65_000;
if (!env.SERVICE_SOCKET) {
  process.stderr.write('SERVICE_SOCKET is not set: the node agent gives a worker the Unix socket to listen on\n');
  process.exit(2);
}
server.listen(env.SERVICE_SOCKET);

const stop = (): void => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5000).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
process.stdin.on('end', stop).on('error', stop).resume();
