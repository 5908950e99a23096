/** SOA serials are unsigned 32-bit numbers (RFC 1035 3.3.13) compared in serial number arithmetic (RFC 1982). */
const MAX_SERIAL = 0xffff_ffff;
const SERIAL_SPACE = 2 ** 32;
/** 2^31: serials this far apart are not comparable (RFC 1982 3.2), so every step stays below it. */
export const SERIAL_HALF = 0x8000_0000;

/**
 * RFC 1982 3.2: whether serial `a` follows serial `b`, as a secondary decides whether to transfer: `a` is
 * 1..2^31-1 steps after `b`, counting modulo 2^32. Equal serials, and serials exactly 2^31 apart (which
 * RFC 1982 leaves undefined), follow neither way.
 */
export function serialGreater(a: number, b: number): boolean {
  return a !== b && (a - b) >>> 0 < SERIAL_HALF;
}

/**
 * The SOA serial that follows `previous` at time `now` in RFC 1982 arithmetic ({@link serialGreater}), in
 * the date form YYYYMMDDnn (UTC date, nn a change counter from 00) while that follows: the day's first
 * change gives YYYYMMDD00, later changes that day count up. When `previous` does not come before today's
 * YYYYMMDD00 (a 100th change in a day, a clock that went back, a serial from another scheme) the result is
 * `previous + 1`, wrapping from 2^32-1 to 1: 0 is skipped, as many tools read it as "no serial". So a zone
 * at the top of the range goes on to today's date form (or to 1), which its secondaries take as newer.
 * Throws RangeError when `previous` is not an integer 0..2^32-1, and for an invalid `now`.
 */
export function nextSerial(previous: number, now: Date): number {
  if (!Number.isInteger(previous) || previous < 0 || previous > MAX_SERIAL) {
    throw new RangeError(`serial ${previous} is not an integer from 0 to ${MAX_SERIAL}`);
  }
  if (Number.isNaN(now.getTime())) throw new RangeError('now is not a valid date');
  const dated = (now.getUTCFullYear() * 10_000 + (now.getUTCMonth() + 1) * 100 + now.getUTCDate()) * 100;
  if (dated <= MAX_SERIAL && serialGreater(dated, previous)) return dated;
  return (previous + 1) % SERIAL_SPACE || 1;
}
