/** SOA serials are unsigned 32-bit numbers (RFC 1035 3.3.13). */
const MAX_SERIAL = 0xffff_ffff;

/**
 * The SOA serial that follows `previous` at time `now`, in the date form YYYYMMDDnn (UTC date, nn a
 * change counter from 00) while that stays ahead: the day's first change gives YYYYMMDD00, later
 * changes that day count up. When `previous` is already at or past today's YYYYMMDD99 (a 100th change
 * in a day, a clock that went back, or a serial from another scheme) the result is `previous + 1`, which
 * is always strictly greater. RFC 1982 wrap-around is not used: throws RangeError when `previous` is
 * not an integer 0..2^32-1 or is already 2^32-1, and for an invalid `now`.
 */
export function nextSerial(previous: number, now: Date): number {
  if (!Number.isInteger(previous) || previous < 0 || previous > MAX_SERIAL) {
    throw new RangeError(`serial ${previous} is not an integer from 0 to ${MAX_SERIAL}`);
  }
  if (Number.isNaN(now.getTime())) throw new RangeError('now is not a valid date');
  const dated = (now.getUTCFullYear() * 10_000 + (now.getUTCMonth() + 1) * 100 + now.getUTCDate()) * 100;
  if (previous < dated && dated <= MAX_SERIAL) return dated;
  if (previous === MAX_SERIAL) throw new RangeError(`serial ${previous} cannot grow without RFC 1982 wrap-around`);
  return previous + 1;
}
