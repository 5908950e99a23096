import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextSerial, serialGreater } from '../../zonefiles';

const day = new Date('2024-03-05T23:59:59Z');
const TOP = 4_294_967_295;
const serial = fc.integer({ min: 0, max: TOP });
const date = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });

describe('serialGreater (RFC 1982)', () => {
  it('orders nearby serials as numbers do', () => {
    expect(serialGreater(2, 1)).toBe(true);
    expect(serialGreater(1, 1)).toBe(false);
    expect(serialGreater(1, 2)).toBe(false);
  });

  it('takes a serial past the top that wrapped to a small number as the later one', () => {
    expect(serialGreater(0, TOP)).toBe(true);
    expect(serialGreater(5, 0xffff_fff0)).toBe(true);
    expect(serialGreater(2024030500, TOP)).toBe(true);
    expect(serialGreater(TOP, 2024030500)).toBe(false);
  });

  it('holds serials 2^31 apart incomparable, and 2^31 - 1 apart comparable', () => {
    expect(serialGreater(2 ** 31, 0)).toBe(false);
    expect(serialGreater(0, 2 ** 31)).toBe(false);
    expect(serialGreater(2 ** 31 - 1, 0)).toBe(true);
    expect(serialGreater(0, 2 ** 31 + 1)).toBe(true);
  });

  it('is asymmetric: of two different serials not 2^31 apart, exactly one is the later', () => {
    fc.assert(
      fc.property(serial, serial, (a, b) => {
        const apart = (a - b) >>> 0 === 2 ** 31;
        expect(serialGreater(a, b) && serialGreater(b, a)).toBe(false);
        expect(serialGreater(a, b) || serialGreater(b, a)).toBe(a !== b && !apart);
      }),
    );
  });
});

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

  it('wraps at the top of the range to the date form, which RFC 1982 takes as later', () => {
    expect(nextSerial(TOP, day)).toBe(2024030500);
    expect(nextSerial(TOP - 1, day)).toBe(2024030500);
    expect(serialGreater(2024030500, TOP)).toBe(true);
  });

  it('wraps to 1, never 0, when the date form does not follow the top', () => {
    // In years whose date form is 2^31 or more past the top, the date form reads as older.
    expect(nextSerial(TOP, new Date('2200-01-01T00:00:00Z'))).toBe(1);
    expect(nextSerial(TOP, new Date('4295-01-01T00:00:00Z'))).toBe(1);
  });

  it('falls back to previous + 1 in years whose date form does not fit 32 bits', () => {
    expect(nextSerial(7, new Date('4295-01-01T00:00:00Z'))).toBe(8);
  });

  it('always advances in RFC 1982 terms, by less than 2^31, and never throws on a valid serial', () => {
    fc.assert(
      fc.property(serial, date, (previous, now) => {
        const next = nextSerial(previous, now);
        expect(Number.isInteger(next) && next >= 1 && next <= TOP).toBe(true);
        expect(serialGreater(next, previous)).toBe(true);
        expect((next - previous) >>> 0).toBeLessThan(2 ** 31);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps advancing through the top: a thousand changes in a row from near 2^32 each follow the one before', () => {
    let s = TOP - 500;
    for (let i = 0; i < 1000; i++) {
      const next = nextSerial(s, new Date('2300-06-01T00:00:00Z'));
      expect(serialGreater(next, s)).toBe(true);
      s = next;
    }
    expect(s).toBe(500);
  });

  it('rejects a previous serial that is not a 32-bit unsigned integer, and an invalid date', () => {
    for (const previous of [-1, 1.5, 2 ** 32, Number.NaN]) expect(() => nextSerial(previous, day)).toThrow(RangeError);
    expect(() => nextSerial(1, new Date('nope'))).toThrow(RangeError);
  });
});
