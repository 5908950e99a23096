import { describe, expect, it } from 'vitest';
import { parseDsRecords, parseRecordLine, serialAbove, soaSerial } from '../../../providers/nameserver/zone-text';

describe('soaSerial', () => {
  it('reads the serial of a rendered zone', () => {
    expect(soaSerial('$ORIGIN a.test.\n@ 3600 IN SOA ns1.a.test. hostmaster.a.test. 2026112601 10800 3600 1209600 300\n')).toBe(2026112601);
  });

  it('reads other layouts: class before TTL, no owner, lower case, parentheses over lines', () => {
    expect(soaSerial('a.test. IN 300 SOA ns. h. 7 1 2 3 4')).toBe(7);
    expect(soaSerial('$ORIGIN a.test.\n  300 soa ns. h. 8 1 2 3 4')).toBe(8);
    expect(soaSerial('@ 1h IN SOA ns. h. (\n    9 ; serial\n    1 2 3 4 )')).toBe(9);
  });

  it('is not fooled by a TXT that mentions SOA, and rejects a text without a SOA', () => {
    expect(() => soaSerial('x 300 IN TXT "SOA a. b. 5 1 2 3 4"\n')).toThrow(/no SOA/);
    expect(() => soaSerial('@ 300 IN SOA ns. h. 4294967296 1 2 3 4')).toThrow(/no SOA/);
  });
});

describe('serialAbove', () => {
  it('compares in RFC 1982 serial arithmetic', () => {
    expect(serialAbove(2, 1)).toBe(true);
    expect(serialAbove(1, 1)).toBe(false);
    expect(serialAbove(1, 2)).toBe(false);
    expect(serialAbove(5, 0xffff_fff0)).toBe(true);
    expect(serialAbove(0xffff_fff0, 5)).toBe(false);
  });
});

describe('parseRecordLine', () => {
  it('makes owners absolute and keeps rdata as written', () => {
    expect(parseRecordLine('a.test.', 'www.a.test 300 IN TXT "two  words" "x\\"y"')).toEqual({
      owner: 'www.a.test.',
      ttl: 300,
      type: 'TXT',
      rdata: '"two  words" "x\\"y"',
    });
    expect(parseRecordLine('a.test.', '@ 300 SOA ns. h. 1 2 3 4 5')).toMatchObject({ owner: 'a.test.', ttl: 300, type: 'SOA' });
    expect(parseRecordLine('a.test.', 'mail.a.test. mx')).toEqual({ owner: 'mail.a.test.', ttl: null, type: 'MX', rdata: '' });
    expect(parseRecordLine('a.test.', 'x.a.test IN 60 A 192.0.2.1')).toMatchObject({ ttl: 60, type: 'A', rdata: '192.0.2.1' });
  });

  it('refuses what is not one record', () => {
    expect(() => parseRecordLine('a.test.', 'www.a.test')).toThrow(/not a resource record/);
    expect(() => parseRecordLine('a.test.', 'www 300 A 192.0.2.1\nx 300 A 192.0.2.2')).toThrow(/not a resource record/);
  });
});

describe('parseDsRecords', () => {
  it('reads keymgr output, upper-casing the digest', () => {
    const out = 'a.test. DS 7869 13 2 13da389db751016b6e6dd2b7ed4fd640ab6e242634b62fe86a29a4d870cab657\n' + 'a.test. DS 7869 13 4 cc8354644768d5ccb92835b2006f8e3292e79ae6adb7a450053bdf5abb0bc475b148c3645c425cea6673cad5769f69a2\n';
    expect(parseDsRecords(out)).toEqual([
      { keyTag: 7869, algorithm: 13, digestType: 2, digest: '13DA389DB751016B6E6DD2B7ED4FD640AB6E242634B62FE86A29A4D870CAB657' },
      { keyTag: 7869, algorithm: 13, digestType: 4, digest: 'CC8354644768D5CCB92835B2006F8E3292E79AE6ADB7A450053BDF5ABB0BC475B148C3645C425CEA6673CAD5769F69A2' },
    ]);
    expect(parseDsRecords('')).toEqual([]);
  });
});
