/** The control protocol client against a stand-in server that speaks libknot's wire format. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ControlLine, CtlError, KnotControl, type CtlData } from '../../../providers/nameserver/knot-ctl';

const DATA = 1;
const BLOCK = 3;
const item = (code: number, text: string): Buffer => {
  const b = Buffer.from(text);
  const head = Buffer.alloc(3);
  head.writeUInt8(code, 0);
  head.writeUInt16BE(b.length, 1);
  return Buffer.concat([head, b]);
};

/** The commands on a line of their own, which keeps no connection afterwards. */
async function control(path: string, commands: CtlData[], timeoutMs: number): Promise<CtlData[][]> {
  const line = new ControlLine(path, 60_000);
  try {
    return await line.commands(commands, timeoutMs);
  } finally {
    line.drop();
  }
}

/** A stand-in knotd on a control socket in a temp dir of its own: `handle` speaks for it on each connection. Its
 * `close` ends every connection, the server and the dir. */
async function standIn(handle: (sock: Socket) => void): Promise<{ path: string; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'hp-ctl-stand-in-'));
  const path = join(dir, 'knot.sock');
  const sockets: Socket[] = [];
  const server = createServer((sock) => {
    sockets.push(sock);
    sock.on('error', () => undefined);
    handle(sock);
  });
  await new Promise<void>((r) => server.listen(path, r));
  return {
    path,
    close: async () => {
      for (const sock of sockets) sock.destroy();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('knot control protocol', () => {
  let dir: string;
  let server: Server;
  const received: Buffer[] = [];
  const path = () => join(dir, 'knot.sock');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hp-ctl-'));
    server = createServer((sock) => {
      sock.on('data', (chunk) => {
        received.push(chunk);
        if (chunk[chunk.length - 1] !== BLOCK) return;
        // zone-reload of "bad." fails; anything else answers one data unit, split over two writes.
        if (chunk.includes(Buffer.from('bad.'))) sock.write(Buffer.concat([Buffer.of(DATA), item(16 + 2, 'no such zone found'), Buffer.of(BLOCK)]));
        else {
          const answer = Buffer.concat([Buffer.of(DATA), item(16 + 6, 'example.com.'), item(16 + 10, 'é ok'), Buffer.of(BLOCK)]);
          sock.write(answer.subarray(0, 5));
          setTimeout(() => sock.write(answer.subarray(5)), 5);
        }
      });
    });
    await new Promise<void>((r) => server.listen(path(), r));
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends each command as a DATA unit of coded items closed by BLOCK, and reads answers split across packets', async () => {
    received.length = 0;
    const [units] = await control(path(), [{ cmd: 'zone-reload', zone: 'example.com.', flags: 'B' }], 2000);
    expect(units).toEqual([{ zone: 'example.com.', data: 'é ok' }]);
    // The session ends with END after the last command; it may land a moment after the answer.
    for (let i = 0; i < 100 && Buffer.concat(received).at(-1) !== 0; i++) await new Promise((r) => setTimeout(r, 5));
    const sent = Buffer.concat(received);
    expect(sent.subarray(0, sent.length - 1)).toEqual(Buffer.concat([
      Buffer.of(DATA), item(16, 'zone-reload'), item(17, 'B'), item(22, 'example.com.'), Buffer.of(BLOCK),
    ]));
    expect(sent[sent.length - 1]).toBe(0);
  });

  it('turns an error item into a CtlError naming the command and zone, and stops there', async () => {
    received.length = 0;
    const err = await control(path(), [{ cmd: 'zone-reload', zone: 'bad.' }, { cmd: 'zone-reload', zone: 'never.' }], 2000).catch((e) => e);
    expect(err).toBeInstanceOf(CtlError);
    expect(err.message).toBe('zone-reload bad.: no such zone found');
    expect(Buffer.concat(received).includes(Buffer.from('never.'))).toBe(false);
  });

  it('fails clearly when nothing listens on the socket', async () => {
    await expect(control(join(dir, 'missing.sock'), [{ cmd: 'status' }], 500)).rejects.toThrow(/ENOENT|connect/);
  });
});

describe('knot control protocol, commands sent together', () => {
  it('sends a pipeline in one write, reads answers that arrive together, and after a refused command rejects once all are answered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hp-ctl-pipe-'));
    const path = join(dir, 'knot.sock');
    const writes: number[] = [];
    // Answers nothing until three commands are in, then all three in one write: a client that waits for each
    // answer before sending the next command never gets one. The second command is refused.
    const server = createServer((sock) => {
      let blocks = 0;
      sock.on('data', (chunk) => {
        writes.push(chunk.filter((b) => b === BLOCK).length);
        blocks += chunk.filter((b) => b === BLOCK).length;
        if (blocks === 3) {
          sock.write(Buffer.concat([
            Buffer.of(DATA), item(16 + 10, 'one'), Buffer.of(BLOCK),
            Buffer.of(DATA), item(16 + 2, 'no such record'), Buffer.of(BLOCK),
            Buffer.of(DATA), item(16 + 10, 'three'), Buffer.of(BLOCK),
          ]));
        }
        if (blocks === 4) sock.write(Buffer.concat([Buffer.of(DATA), item(16 + 10, 'four'), Buffer.of(BLOCK)]));
      });
    });
    await new Promise<void>((r) => server.listen(path, r));
    const ctl = KnotControl.open(path);
    try {
      const err = await ctl.pipeline([{ cmd: 'zone-begin', zone: 'a.' }, { cmd: 'zone-unset', zone: 'a.' }, { cmd: 'zone-set', zone: 'a.' }], 2000).catch((e) => e);
      expect(err).toBeInstanceOf(CtlError);
      expect(err.message).toBe('zone-unset a.: no such record');
      // The three answers were all read: the next call gets its own.
      await expect(ctl.call({ cmd: 'zone-abort', zone: 'a.' }, 2000)).resolves.toEqual([{ data: 'four' }]);
      expect(writes[0]).toBe(3);
    } finally {
      ctl.close();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('knot control protocol on a connection opened for commands at once', () => {
  it('sends commands written before the connection is up with it, and answers them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hp-ctl-open-'));
    const path = join(dir, 'knot.sock');
    const server = createServer((sock) => {
      sock.on('data', (chunk) => {
        if (chunk[chunk.length - 1] === BLOCK) sock.write(Buffer.concat([Buffer.of(DATA), item(16 + 10, 'begun'), Buffer.of(BLOCK), Buffer.of(DATA), Buffer.of(BLOCK)]));
      });
    });
    await new Promise<void>((r) => server.listen(path, r));
    const ctl = KnotControl.open(path);
    try {
      await expect(ctl.pipeline([{ cmd: 'zone-begin', zone: 'a.' }, { cmd: 'zone-set', zone: 'a.' }], 2000)).resolves.toEqual([[{ data: 'begun' }], [{}]]);
    } finally {
      ctl.close();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails the first call when nothing listens, and a later call at once rather than after its timeout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hp-ctl-open-'));
    try {
      const ctl = KnotControl.open(join(dir, 'missing.sock'));
      await expect(ctl.pipeline([{ cmd: 'zone-begin', zone: 'a.' }], 60_000)).rejects.toThrow(/ENOENT/);
      // The abort a failed transaction sends (knot.ts) must not wait the whole control timeout.
      await expect(ctl.call({ cmd: 'zone-abort', zone: 'a.' }, 60_000)).rejects.toThrow('the connection is closed (zone-abort not sent)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('knot control protocol when the server goes away', () => {
  // An uncaught error here fails the whole run: vitest reports it as an unhandled error.
  it('a reset after the answer is no uncaught error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hp-ctl-reset-'));
    const path = join(dir, 'knot.sock');
    const server = createServer((sock) => {
      sock.on('data', (chunk) => {
        if (chunk[chunk.length - 1] !== BLOCK) return;
        sock.write(Buffer.of(BLOCK));
        sock.destroy();
      });
    });
    await new Promise<void>((r) => server.listen(path, r));
    try {
      await expect(control(path, [{ cmd: 'status' }], 2000)).resolves.toEqual([[]]);
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('knot control protocol with pipelines sent before the last one was answered', () => {
  it('gives each its own answers, in the order sent, also when both arrive in one packet', async () => {
    let held: Buffer[] = [];
    let count = 0;
    // Answers nothing until the fourth command has come, then each with its number, all in one write.
    const knotd = await standIn((sock) => {
      sock.on('data', (chunk) => {
        for (const byte of chunk) if (byte === BLOCK) held.push(Buffer.concat([Buffer.of(DATA), item(16 + 10, String(++count)), Buffer.of(BLOCK)]));
        if (count === 4) {
          sock.write(Buffer.concat(held));
          held = [];
        }
      });
    });
    try {
      const ctl = KnotControl.open(knotd.path);
      const first = ctl.pipeline([{ cmd: 'zone-begin', zone: 'a.' }, { cmd: 'zone-get', zone: 'a.' }], 2000);
      const second = ctl.pipeline([{ cmd: 'zone-set', zone: 'a.' }, { cmd: 'zone-set', zone: 'a.' }], 2000);
      expect(await first).toEqual([[{ data: '1' }], [{ data: '2' }]]);
      expect(await second).toEqual([[{ data: '3' }], [{ data: '4' }]]);
      ctl.close();
    } finally {
      await knotd.close();
    }
  });
});

describe('knot control protocol after a pipeline timed out', () => {
  it('sends nothing more on that connection: a late answer is never read as the next command\'s', async () => {
    // Answers the first command only once the second has come: late for the first, in time for the second.
    const knotd = await standIn((sock) => {
      let n = 0;
      sock.on('data', (chunk) => {
        for (const byte of chunk) if (byte === BLOCK) n++;
        if (n === 2) sock.write(Buffer.concat([1, 2].map((i) => Buffer.concat([Buffer.of(DATA), item(16 + 10, `answer ${i}`), Buffer.of(BLOCK)]))));
      });
    });
    try {
      const ctl = KnotControl.open(knotd.path);
      await expect(ctl.call({ cmd: 'zone-begin', zone: 'a.' }, 50)).rejects.toThrow('not answered within 50 ms');
      await expect(ctl.call({ cmd: 'zone-abort', zone: 'a.' }, 2000)).rejects.toThrow('the connection is closed');
    } finally {
      await knotd.close();
    }
  });
});

describe('knot control line', () => {
  /** A long synchronous step of this process: the timers that close kept connections cannot run meanwhile. */
  const stall = (ms: number): void => void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

  /** A stand-in answering every command with an empty answer; it counts connections and tells when each ends. */
  async function counting(): Promise<{ path: string; connections: Socket[]; ended: Promise<void>[]; close: () => Promise<void> }> {
    const connections: Socket[] = [];
    const ended: Promise<void>[] = [];
    const knotd = await standIn((sock) => {
      connections.push(sock);
      ended.push(new Promise((r) => sock.once('close', () => r())));
      sock.on('data', (chunk) => {
        for (const byte of chunk) if (byte === BLOCK) sock.write(Buffer.of(BLOCK));
      });
    });
    return { ...knotd, connections, ended };
  }

  it('keeps the connection for the next use, and closes it once its time since it opened is up', async () => {
    const knotd = await counting();
    try {
      const line = new ControlLine(knotd.path, 500);
      const opened = performance.now();
      for (const cmd of ['zone-begin', 'zone-set', 'zone-commit']) {
        const ctl = line.take();
        await ctl.call({ cmd, zone: 'a.' }, 2000);
        line.give(ctl, true);
      }
      expect(knotd.connections).toHaveLength(1);
      await knotd.ended[0];
      expect(performance.now() - opened).toBeGreaterThanOrEqual(495);
    } finally {
      await knotd.close();
    }
  });

  it('keeps a connection only until its time since it opened, however recently it was used, and also when the loop stalled past that time', async () => {
    const knotd = await counting();
    try {
      const line = new ControlLine(knotd.path, 300);
      const a = line.take();
      await a.call({ cmd: 'status' }, 2000);
      // Used until past its time: a stream of changes would otherwise hold knotd's one control connection from
      // everyone else (an operator's knotc) for as long as it lasts.
      stall(350);
      line.give(a, true);
      const b = line.take();
      expect(b).not.toBe(a);
      await b.call({ cmd: 'status' }, 2000);
      line.give(b, true);
      // Kept, and past its time before its timer could close it: by then knotd may have dropped it (its control
      // timeout), and a command sent on it would fail.
      stall(350);
      const c = line.take();
      expect(c).not.toBe(b);
      await c.call({ cmd: 'status' }, 2000);
      line.give(c, false);
      await Promise.all(knotd.ended);
      expect(knotd.connections).toHaveLength(3);
    } finally {
      await knotd.close();
    }
  });

  it('keeps no connection after commands outside a transaction, and runs them on the one kept', async () => {
    const knotd = await counting();
    try {
      const line = new ControlLine(knotd.path, 60_000);
      const ctl = line.take();
      await ctl.call({ cmd: 'zone-commit', zone: 'a.' }, 2000);
      line.give(ctl, true);
      await line.commands([{ cmd: 'zone-reload', zone: 'a.' }], 2000);
      expect(knotd.connections).toHaveLength(1);
      // Closed at once, not a minute later: another program's knotc reading the zone just reloaded goes through.
      await knotd.ended[0];
    } finally {
      await knotd.close();
    }
  });

  it('puts a new connection in the place of one given back past its time: the next use finds one connected', async () => {
    const knotd = await counting();
    try {
      const line = new ControlLine(knotd.path, 100);
      const a = line.take();
      await a.call({ cmd: 'status' }, 2000);
      stall(150);
      line.give(a, true);
      await knotd.ended[0];
      await vi.waitFor(() => expect(knotd.connections).toHaveLength(2));
      const b = line.take();
      expect(b).not.toBe(a);
      await b.call({ cmd: 'status' }, 2000);
      expect(knotd.connections).toHaveLength(2);
      line.give(b, false);
      await knotd.ended[1];
    } finally {
      await knotd.close();
    }
  });

  it('keeps none while another connection of its own is open, out of step, or while an exclusive user runs', async () => {
    const knotd = await counting();
    try {
      const line = new ControlLine(knotd.path, 60_000);
      const [a, b] = [line.take(), line.take()];
      await Promise.all([a.call({ cmd: 'status' }, 2000), b.call({ cmd: 'status' }, 2000)]);
      expect(knotd.connections).toHaveLength(2);
      // b is still open: knotd would serve it only once a closed.
      line.give(a, true);
      await knotd.ended[0];
      line.give(b, true);
      expect(line.take()).toBe(b);
      line.give(b, false);
      await knotd.ended[1];

      await line.commands([{ cmd: 'status' }], 2000);
      expect(knotd.connections).toHaveLength(3);
      let inside = 0;
      await line.apart(async () => {
        await knotd.ended[2];
        // A connection given back while it runs is not kept either.
        await line.commands([{ cmd: 'status' }], 2000);
        await knotd.ended[3];
        inside++;
      });
      expect(inside).toBe(1);
      await line.commands([{ cmd: 'status' }], 2000);
      expect(knotd.connections).toHaveLength(5);
      line.drop();
      await knotd.ended[4];
    } finally {
      await knotd.close();
    }
  });

  it('does not use a kept connection the server closed', async () => {
    const knotd = await counting();
    try {
      const line = new ControlLine(knotd.path, 60_000);
      const ctl = line.take();
      await ctl.call({ cmd: 'status' }, 2000);
      line.give(ctl, true);
      knotd.connections[0]!.destroy();
      await vi.waitFor(() => expect(ctl.usable).toBe(false));
      await expect(line.commands([{ cmd: 'status' }], 2000)).resolves.toEqual([[]]);
      expect(knotd.connections).toHaveLength(2);
      line.drop();
    } finally {
      await knotd.close();
    }
  });
});
