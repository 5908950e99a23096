import { describe, expect, it } from 'vitest';
import { nextSerial } from '../../zonefiles';

const day = new Date('2024-03-05T23:59:59Z');

describe('nextSerial', () => {
  it('starts the day at YYYYMMDD00 (UTC date)', () => {
    expect(nextSerial(2024030412, day)).toBe(2024030500);
    expect(nextSerial(0, day)).toBe(2024030500);
    expect(nextSerial(1, new Date('2024-03-05T00:30:00+01:00'))).toBe(2024030400);
  });

  it('counts changes within the same day', () => {
    expect(nextSerial(2024030500, day)).toBe(2024030501);
    expect(nextSerial(2024030598, day)).toBe(2024030599);
  });

  it('goes on with previous + 1 after the 100th change of a day', () => {
    expect(nextSerial(2024030599, day)).toBe(2024030600);
  });

  it('goes on with previous + 1 when the previous serial is ahead of the clock', () => {
    expect(nextSerial(2025010100, day)).toBe(2025010101);
    expect(nextSerial(4_000_000_000, day)).toBe(4_000_000_001);
  });

  it('is always strictly greater than the previous serial', () => {
    for (const previous of [0, 1, 2024030499, 2024030500, 2024030599, 2024030600, 4_294_967_294]) {
      expect(nextSerial(previous, day)).toBeGreaterThan(previous);
    }
  });

  it('stays below 2^32 and refuses to wrap', () => {
    expect(nextSerial(4_294_967_294, day)).toBe(4_294_967_295);
    expect(() => nextSerial(4_294_967_295, day)).toThrow(RangeError);
  });

  it('falls back to previous + 1 in years whose date form does not fit 32 bits', () => {
    expect(nextSerial(7, new Date('4295-01-01T00:00:00Z'))).toBe(8);
  });

  it('rejects a previous serial that is not a 32-bit unsigned integer, and an invalid date', () => {
    for (const previous of [-1, 1.5, 2 ** 32, Number.NaN]) expect(() => nextSerial(previous, day)).toThrow(RangeError);
    expect(() => nextSerial(1, new Date('nope'))).toThrow(RangeError);
  });
});
