/** The core component's internal HTTP face, used by a separate `api` process through `core/client.ts`. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { z } from 'zod';
import type { Core } from './port';

const SealBody = z.strictObject({ context: z.string().min(1), plaintext: z.string() });
const NudgeBody = z.strictObject({ kind: z.enum(['zone', 'node']), key: z.string().min(1) });

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > 2 * 1024 * 1024) throw new Error('body too large');
    chunks.push(c as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Serves the Core port; every call must carry the shared core token (compared as fixed-length digests). */
export function coreServer(core: Core, token: string): Server {
  const expected = digest(token);
  return createServer(async (req, res) => {
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.url === '/healthz') return send(200, { ok: true });
    const auth = req.headers.authorization ?? '';
    const given = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    if (!timingSafeEqual(digest(given), expected)) return send(401, { code: 'unauthorized', message: 'core token required' });
    try {
      if (req.method === 'POST' && req.url === '/internal/seal') {
        const b = SealBody.parse(await readJson(req));
        return send(200, { sealed: await core.seal(b.context, b.plaintext) });
      }
      if (req.method === 'GET' && req.url === '/internal/dns') return send(200, await core.dns());
      if (req.method === 'POST' && req.url === '/internal/nudge') {
        const b = NudgeBody.parse(await readJson(req));
        core.nudge(b.kind, b.key);
        return send(202, {});
      }
      return send(404, { code: 'not_found', message: 'no such core call' });
    } catch {
      return send(400, { code: 'bad_request', message: 'invalid core call' });
    }
  });
}
