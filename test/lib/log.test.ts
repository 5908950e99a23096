import { spawn } from 'node:child_process';
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
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const logModule = fileURLToPath(new URL('../../lib/log.ts', import.meta.url));
  /** Runs `body` in a process of its own with a logger on stderr (`log`, and `line` for request lines); reads
   * its stderr `slowly` (pausing after each chunk: the pipe stays full, so writes are under way at the exit). */
  async function stderrOf(body: string, slowly = false): Promise<{ status: number | null; lines: { msg: string; reqId?: string; n?: number }[] }> {
    const code = `import { createLogger, exitAfterFlush, requestLineWriter } from ${JSON.stringify(logModule)};
      const log = createLogger({ level: 'info' });
      const line = requestLineWriter(log);
      const request = (i) => line({ reqId: 'r' + i, method: 'GET', path: '/' + 'p'.repeat(100), operation: 'op', status: 200, ms: 1 });
      ${body}`;
    const child = spawn(process.execPath, ['--import', tsx, '--input-type=module', '-e', code], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, HOSTPLANE_LOG_LEVEL: '' } });
    let text = '';
    const err = child.stderr!.setEncoding('utf8');
    err.on('data', (c: string) => {
      text += c;
      if (!slowly) return;
      err.pause();
      setImmediate(() => err.resume());
    });
    const status = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    return { status, lines: text.trim().split('\n').map((l) => JSON.parse(l) as { msg: string; reqId?: string; n?: number }) };
  }
  /** A line's name: its request id, or its message with its `n`. */
  const nameOf = (l: { msg: string; reqId?: string; n?: number }): string => l.reqId ?? (l.n === undefined ? l.msg : `${l.msg}${l.n}`);

  it('writes every line by an exit in the same turn, in the order logged', async () => {
    // Nothing is written before the exit (under 4 KiB, no timer had its turn): pino's exit handler writes it all.
    const { status, lines } = await stderrOf(`log.info('starting');
      for (let i = 0; i < 3; i++) request(i);
      log.warn('stopping');
      process.exit(0);`);
    expect(status).toBe(0);
    expect(lines.map(nameOf)).toEqual(['starting', 'r0', 'r1', 'r2', 'stopping']);
  });

  it('exitAfterFlush leaves once stderr took every line, in the order logged, with a reader slower than the writes', async () => {
    // 3,000 request lines with a pino line after every 100: about 700 KiB, many writes, some under way at the exit.
    const { status, lines } = await stderrOf(`for (let i = 0; i < 3000; i++) {
        request(i);
        if (i % 100 === 99) log.info({ n: i }, 'after');
      }
      log.info('stopped');
      exitAfterFlush(log, 0, 20000);`, true);
    expect(status).toBe(0);
    const expected: string[] = [];
    for (let i = 0; i < 3000; i++) {
      expected.push(`r${i}`);
      if (i % 100 === 99) expected.push(`after${i}`);
    }
    expect(lines.map(nameOf)).toEqual([...expected, 'stopped']);
  }, 30_000);
});
