/**
 * Knot's control protocol spoken directly on knotd's control socket, as knotc itself does: a knotc process
 * costs ~8 ms to start, which was most of the time from a zone write to its answer being served.
 *
 * Wire format (libknot/control): a message is a run of units, each a type byte (END 0, DATA 1, EXTRA 2,
 * BLOCK 3); a DATA or EXTRA unit is followed by items, each a code byte (16 + item index), a big-endian
 * u16 length and that many bytes of text. BLOCK ends a request and a response.
 */
import { createConnection, type Socket } from 'node:net';

const UNIT = { END: 0, DATA: 1, EXTRA: 2, BLOCK: 3 } as const;
const ITEMS = ['cmd', 'flags', 'error', 'section', 'item', 'id', 'zone', 'owner', 'ttl', 'type', 'data', 'filter'] as const;
const ITEM_OFFSET = 16;

export type CtlItem = (typeof ITEMS)[number];
export type CtlData = Partial<Record<CtlItem, string>>;

/** A command knotd answered with an error item. */
export class CtlError extends Error {
  override name = 'CtlError';
}

/** Commands as one buffer, each a DATA unit and its BLOCK, sized first and written in place: a change's transaction
 * is a few dozen items, and a buffer of each (its text, its head) cost more than writing them. */
function encode(commands: CtlData[]): Buffer {
  let size = 0;
  for (const unit of commands) {
    size += 2;
    for (const key of ITEMS) {
      const value = unit[key];
      if (value === undefined) continue;
      const length = Buffer.byteLength(value, 'utf8');
      if (length > 0xffff) throw new Error(`knot control item ${key} is longer than 65535 bytes`);
      size += 3 + length;
    }
  }
  const buf = Buffer.allocUnsafe(size);
  let at = 0;
  for (const unit of commands) {
    buf[at++] = UNIT.DATA;
    ITEMS.forEach((key, i) => {
      const value = unit[key];
      if (value === undefined) return;
      buf[at] = ITEM_OFFSET + i;
      const length = buf.write(value, at + 3, 'utf8');
      buf.writeUInt16BE(length, at + 1);
      at += 3 + length;
    });
    buf[at++] = UNIT.BLOCK;
  }
  return buf;
}

/** The data units of the response at the head of `buf` and the bytes it takes; null until its closing BLOCK has
 * arrived. */
function decode(buf: Buffer): { units: CtlData[]; end: number } | null {
  const units: CtlData[] = [];
  let at = 0;
  let current: CtlData | null = null;
  while (at < buf.length) {
    const code = buf[at]!;
    if (code === UNIT.BLOCK || code === UNIT.END) return { units, end: at + 1 };
    if (code === UNIT.DATA || code === UNIT.EXTRA) {
      current = {};
      units.push(current);
      at += 1;
      continue;
    }
    const key = ITEMS[code - ITEM_OFFSET];
    if (!key || !current) throw new Error(`knot control: unexpected byte ${code} in a response`);
    if (at + 3 > buf.length) return null;
    const len = buf.readUInt16BE(at + 1);
    if (at + 3 + len > buf.length) return null;
    current[key] = buf.toString('utf8', at + 3, at + 3 + len);
    at += 3 + len;
  }
  return null;
}

/** One connection to knotd's control socket; commands on it run one after another. */
export class KnotControl {
  private constructor(private readonly socket: Socket) {}

  /**
   * A connection to send commands on at once: the socket holds what is written until it is connected, so the first
   * commands go with the connection instead of after a turn that learns of it (a wake-up of knotd and of this process
   * fewer). A connection that fails fails the first call.
   */
  static open(path: string): KnotControl {
    const socket = createConnection(path);
    // A failure or a reset between or after calls (knotd stopping or crashing) must not become an uncaught
    // exception: a call in flight learns of it through its own listeners, and nothing else is waiting.
    socket.on('error', () => undefined);
    return new KnotControl(socket);
  }

  /** Sends one command (its units, then BLOCK) and resolves with the response's data units; rejects with
   * CtlError when knotd answers with an error. */
  async call(command: CtlData, timeoutMs: number): Promise<CtlData[]> {
    const [units] = await this.pipeline([command], timeoutMs);
    return units!;
  }

  /**
   * Sends the commands in one write and resolves with each one's data units, in order: knotd reads them one
   * after another from the socket, so a zone transaction of many commands costs one round trip instead of one
   * per command (each a wake-up of knotd and of this process, milliseconds on a loaded machine). When knotd
   * refuses some, this rejects with the first one's CtlError once every command is answered, so that the
   * connection stays in step for what is sent next (zone-abort). A pipeline sent before the last one's answers
   * came goes at once too: its answers are read after those.
   */
  pipeline(commands: CtlData[], timeoutMs: number): Promise<CtlData[][]> {
    // Written to a connection that is gone (knotd closed it, or it never came), a command would wait out its timeout.
    if (this.socket.destroyed) return Promise.reject(this.closedBefore(commands, 'sent'));
    this.socket.write(encode(commands));
    const answered = this.turn.then(() => this.answers(commands, timeoutMs));
    this.turn = answered.then(() => undefined, () => undefined);
    return answered;
  }

  /** Answers read past the pipeline they followed: the start of the next one's. */
  private rest: Buffer = Buffer.alloc(0);
  /** The last pipeline's answers read: the next one's follow them. */
  private turn: Promise<void> = Promise.resolve();

  private closedBefore(commands: CtlData[], not: 'sent' | 'answered'): Error {
    return new Error(`knot control: the connection is closed (${commands.map((c) => c.cmd).join(', ')} not ${not})`);
  }

  /** Reads the answers to `commands`, the next on the connection. */
  private answers(commands: CtlData[], timeoutMs: number): Promise<CtlData[][]> {
    if (this.socket.destroyed && this.rest.length === 0) return Promise.reject(this.closedBefore(commands, 'answered'));
    return new Promise((resolve, reject) => {
      let buf = this.rest;
      this.rest = Buffer.alloc(0);
      const answers: CtlData[][] = [];
      let refused: CtlError | null = null;
      let settled = false;
      const done = (err: Error | null): void => {
        settled = true;
        clearTimeout(timer);
        this.socket.off('data', onData);
        this.socket.off('error', onError);
        this.socket.off('close', onClose);
        this.rest = buf;
        if (err) reject(err);
        else resolve(answers);
      };
      const named = (c: CtlData): string => `${c.cmd}${c.zone ? ` ${c.zone}` : ''}`;
      const read = (): void => {
        for (;;) {
          let answer: ReturnType<typeof decode>;
          try {
            answer = decode(buf);
          } catch (e) {
            outOfStep(e as Error);
            return;
          }
          if (!answer) return;
          buf = buf.subarray(answer.end);
          const failed = answer.units.find((u) => u.error !== undefined);
          if (failed) refused ??= new CtlError(`${named(commands[answers.length]!)}: ${failed.error}`);
          answers.push(answer.units);
          if (answers.length === commands.length) {
            done(refused);
            return;
          }
        }
      };
      const onData = (chunk: Buffer): void => {
        buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
        read();
      };
      const onError = (e: Error): void => done(e);
      const onClose = (): void => done(new Error(`knot control: connection closed during ${named(commands[answers.length] ?? commands.at(-1)!)}`));
      // Answers that may still come would be read as the next pipeline's: the connection goes, and what is sent on it
      // later fails at once.
      const outOfStep = (e: Error): void => {
        done(e);
        this.rest = Buffer.alloc(0);
        this.socket.destroy();
      };
      const timer = setTimeout(() => outOfStep(new Error(`knot control: ${commands.map((c) => c.cmd).join(', ')} not answered within ${timeoutMs} ms`)), timeoutMs);
      this.socket.on('data', onData);
      this.socket.on('error', onError);
      this.socket.on('close', onClose);
      read();
      if (!settled && this.socket.destroyed) onClose();
    });
  }

  /** Tells knotd the session ends and closes the connection. */
  close(): void {
    if (!this.socket.destroyed) this.socket.end(Buffer.of(UNIT.END));
  }

  /** Whether commands can still go out and be answered: neither side closed it. */
  get usable(): boolean {
    return !this.socket.destroyed && !this.socket.readableEnded && this.socket.writable;
  }

  /** Whether the connection alone keeps the process running (not while it waits, unused, for the next user). */
  hold(held: boolean): void {
    if (held) this.socket.ref();
    else this.socket.unref();
  }
}

/**
 * knotd's control socket, with the last connection kept open for the next user. A transaction on a connection
 * opened for it waited for the connection before its first command could go (a turn of this process's loop, taken
 * by whatever else was ready then: after a write's sync, its whole answer), and cost knotd an accept; on a kept one
 * the commands go at once.
 *
 * knotd serves one control connection at a time, for every zone, and takes the others in the order they came, ours
 * and any other program's (an operator's knotc): the one kept holds them all back. So a connection is kept only
 * while no other of ours is open and no exclusive user (`apart`: a knotc process, a stop of knotd) runs, and only
 * until `keptMs` after it opened, however often it was used since: a stream of changes that reused it without end
 * would hold a waiting knotc back for as long as it lasts. One given back past its time closes, and a new one opened
 * in its place is kept instead: knotd serves what waited behind the old one first, and the stream's next change
 * finds a connection all the same. With `keptMs` below knotd's control timeout (5 s), a kept connection is never
 * idle that long either: past it knotd drops a connection it is waiting on, and might do so under a command just
 * sent.
 */
export class ControlLine {
  private kept: { ctl: KnotControl; timer: NodeJS.Timeout } | null = null;
  /** Until when each connection of the line may be kept: `keptMs` after it opened. */
  private readonly until = new WeakMap<KnotControl, number>();
  /** Connections taken and not given back. */
  private taken = 0;
  /** Exclusive users running. */
  private aside = 0;

  constructor(private readonly path: string, private readonly keptMs: number) {}

  /** A connection: the kept one while it is still open and in its time, else a new one, on which commands may be
   * sent at once. */
  take(): KnotControl {
    const kept = this.release();
    this.taken++;
    // Its time is checked here too: the timer that closes it cannot run while this process stalls, and knotd may
    // have dropped it meanwhile without this process having read so yet.
    if (kept?.usable && this.left(kept) > 0) {
      kept.hold(true);
      return kept;
    }
    kept?.close();
    return this.open();
  }

  /** Ends a use of `ctl`: kept for the next one when `keep` (its user ended in step: no transaction left open on it,
   * no answer outstanding), still open and in its time, and no other connection of ours or exclusive user waits behind
   * it; else closed. */
  give(given: KnotControl, keep: boolean): void {
    this.taken--;
    if (!keep || !given.usable || this.taken > 0 || this.aside > 0 || this.kept) {
      given.close();
      return;
    }
    let ctl = given;
    if (this.left(ctl) <= 0) {
      // A stream of changes is under way: a new connection takes its place, so that its next change finds one
      // connected. knotd takes connections in the order they came, so whoever waited behind this one goes first.
      ctl.close();
      ctl = this.open();
    }
    ctl.hold(false);
    const timer = setTimeout(() => {
      if (this.kept?.ctl === ctl) this.drop();
    }, this.left(ctl));
    timer.unref();
    this.kept = { ctl, timer };
  }

  /** Runs `fn` with no connection kept: one that does not go through this line (a knotc process), or must not wait
   * behind ours (knotd stopping), is served by knotd once ours closed. */
  async apart<T>(fn: () => Promise<T>): Promise<T> {
    this.aside++;
    this.drop();
    try {
      return await fn();
    } finally {
      this.aside--;
    }
  }

  /** Closes the kept connection, if any. */
  drop(): void {
    this.release()?.close();
  }

  /** Runs the commands in order on a connection of the line (stopping at the first error), and closes it: what goes
   * this way (a zone's reload, a NOTIFY, an abort) comes seldom, and a connection kept after it would only hold
   * knotd's control from another program (a knotc reading the zone just loaded) for nothing. */
  async commands(commands: CtlData[], timeoutMs: number): Promise<CtlData[][]> {
    const ctl = this.take();
    try {
      const out: CtlData[][] = [];
      for (const c of commands) out.push(await ctl.call(c, timeoutMs));
      return out;
    } finally {
      this.give(ctl, false);
    }
  }

  private open(): KnotControl {
    const ctl = KnotControl.open(this.path);
    this.until.set(ctl, performance.now() + this.keptMs);
    return ctl;
  }

  /** How much longer `ctl` may be kept (ms). */
  private left(ctl: KnotControl): number {
    return (this.until.get(ctl) ?? 0) - performance.now();
  }

  private release(): KnotControl | undefined {
    const kept = this.kept;
    this.kept = null;
    if (kept) clearTimeout(kept.timer);
    return kept?.ctl;
  }
}
