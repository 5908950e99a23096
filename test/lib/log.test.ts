import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger, requestLineWriter, type RequestLine } from '../../lib/log';

/** A logger whose lines the test reads, at `level`. */
function logger(level = 'info') {
  const lines: string[] = [];
  const log = createLogger({ level, destination: new Writable({ write: (c, _e, cb) => { lines.push(String(c)); cb(); } }) });
  return { log, lines };
}

const LINES: RequestLine[] = [
  { reqId: 'c0ffee-1', method: 'GET', path: '/v1/orgs/acme/projects/web', operation: 'getProject', status: 200, ms: 0.4 },
  { reqId: 'a.b:c-d_e', method: 'PUT', path: '/v1/orgs/acme/dns/zones/x.test/rrsets/"quoted"\\back\u2028é/A', operation: 'putRRset', status: 412, ms: 12 },
  { reqId: 'x', method: 'DELETE', path: '/', operation: 'none', status: 404, ms: 1000.5, aborted: true },
];

describe('the request line', () => {
  it.each(LINES)('is the line log.info(fields, "request") writes, time aside: %j', (fields) => {
    const generic = logger();
    generic.log.info(fields, 'request');
    const fast = logger();
    requestLineWriter(fast.log)(fields);
    expect(fast.lines).toHaveLength(1);
    expect(fast.lines[0]!.endsWith('\n')).toBe(true);
    const strip = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');
    // Byte for byte, key order included.
    expect(strip(fast.lines[0]!)).toBe(strip(generic.lines[0]!));
    expect(JSON.parse(fast.lines[0]!).time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("carries a child logger's bindings, as its info would", () => {
    const { log, lines } = logger();
    const child = log.child({ component: 'api' });
    requestLineWriter(child)(LINES[0]!);
    child.info(LINES[0]!, 'request');
    const [a, b] = lines.map((l) => l.replace(/"time":"[^"]+"/, ''));
    expect(a).toBe(b);
    expect(JSON.parse(lines[0]!)).toMatchObject({ svc: 'hostplane', component: 'api', msg: 'request' });
  });

  it('is not written below the info level', () => {
    for (const level of ['warn', 'silent']) {
      const { log, lines } = logger(level);
      requestLineWriter(log)(LINES[0]!);
      expect(lines).toEqual([]);
    }
  });
});

describe('standard error', () => {
  it('carries pino lines at once and request lines in a batch, all of them written by exit', () => {
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const log = fileURLToPath(new URL('../../lib/log.ts', import.meta.url));
    // The process ends on its own turn: no timer of the batch has fired, so only the exit handlers write the batch.
    const code = `import { createLogger, requestLineWriter } from ${JSON.stringify(log)};
      const log = createLogger({ level: 'info' });
      log.info('starting');
      const line = requestLineWriter(log);
      for (let i = 0; i < 3; i++) line({ reqId: 'r' + i, method: 'GET', path: '/p', operation: 'op', status: 200, ms: 1 });
      log.warn('stopping');
      process.exit(0);`;
    const r = spawnSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', code], { encoding: 'utf8', env: { ...process.env, HOSTPLANE_LOG_LEVEL: '' } });
    expect(r.status).toBe(0);
    const lines = r.stderr.trim().split('\n').map((l) => JSON.parse(l) as { msg: string; reqId?: string });
    // In the order they were logged: the batch is written before the pino line that follows it.
    expect(lines.map((l) => l.reqId ?? l.msg)).toEqual(['starting', 'r0', 'r1', 'r2', 'stopping']);
  });

  it('exitAfterFlush leaves once stderr took every line, with a reader slower than the writes', async () => {
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const log = fileURLToPath(new URL('../../lib/log.ts', import.meta.url));
    const code = `import { createLogger, exitAfterFlush, requestLineWriter } from ${JSON.stringify(log)};
      const log = createLogger({ level: 'info' });
      const line = requestLineWriter(log);
      for (let i = 0; i < 3000; i++) line({ reqId: 'r' + i, method: 'GET', path: '/' + 'p'.repeat(100), operation: 'op', status: 200, ms: 1 });
      log.info('stopped');
      exitAfterFlush(log, 0, 20000);`;
    const child = spawn(process.execPath, ['--import', tsx, '--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, HOSTPLANE_LOG_LEVEL: '' } });
    // A slow reader: the pipe stays full, and a write is under way when the process wants to leave.
    let text = '';
    const err = child.stderr!.setEncoding('utf8');
    err.on('data', (c: string) => {
      text += c;
      err.pause();
      setTimeout(() => err.resume(), 3);
    });
    const status = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    expect(status).toBe(0);
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { reqId?: string; msg: string });
    expect(lines.filter((l) => l.reqId).length).toBe(3000);
    expect(lines.some((l) => l.msg === 'stopped')).toBe(true);
  }, 30_000);
});

