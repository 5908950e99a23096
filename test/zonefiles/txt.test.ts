import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderRecordData } from '../../zonefiles';

/**
 * Reads TXT rdata written as quoted strings without sharing code with the parser under test: returns
 * the bytes of each character-string.
 */
function decodeStrings(rdata: string): Buffer[] {
  const strings: Buffer[] = [];
  const re = /"((?:[^"\\]|\\[0-9]{3}|\\[^0-9])*)"( |$)/gy;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(rdata)) !== null) {
    const bytes: number[] = [];
    for (const piece of (m[1] as string).matchAll(/\\([0-9]{3})|\\(.)|(.)/gsu)) {
      if (piece[1] !== undefined) bytes.push(Number(piece[1]));
      else bytes.push(...Buffer.from((piece[2] ?? piece[3]) as string, 'utf8'));
    }
    strings.push(Buffer.from(bytes));
    end = re.lastIndex;
  }
  expect(end, `unparsed rdata after ${end}: ${rdata.slice(end, end + 40)}`).toBe(rdata.length);
  return strings;
}

function checkChunking(value: string): void {
  const rdata = renderRecordData('TXT', value);
  expect(rdata).toMatch(/^[\x20-\x7e]*$/);
  const strings = decodeStrings(rdata);
  const expected = Buffer.from(value, 'utf8');
  expect(Buffer.concat(strings).equals(expected)).toBe(true);
  expect(strings.length).toBe(Math.max(1, Math.ceil(expected.length / 255)));
  for (const s of strings.slice(0, -1)) expect(s.length).toBe(255);
  expect((strings.at(-1) as Buffer).length).toBeLessThanOrEqual(255);
}

describe('TXT chunking', () => {
  it('writes a value of exactly 255 bytes as one string and 256 bytes as two', () => {
    expect(renderRecordData('TXT', 'x'.repeat(255))).toBe(`"${'x'.repeat(255)}"`);
    expect(renderRecordData('TXT', 'x'.repeat(256))).toBe(`"${'x'.repeat(255)}" "x"`);
  });

  it('splits a 3-byte character that straddles byte 255 between two strings as \\DDD escapes', () => {
    // "€" is E2 82 AC: byte 255 is E2, bytes 256-257 are 82 AC.
    const value = `${'a'.repeat(254)}€b`;
    expect(renderRecordData('TXT', value)).toBe(`"${'a'.repeat(254)}\\226" "\\130\\172b"`);
    checkChunking(value);
  });

  it('escapes quote and backslash with a backslash and other non-printable bytes as \\DDD', () => {
    expect(renderRecordData('TXT', 'a"b\\c\td\u007fé\u0000')).toBe('"a\\"b\\\\c\\009d\\127\\195\\169\\000"');
  });

  it('keeps semicolons, parentheses and spaces literal inside the quotes', () => {
    expect(renderRecordData('TXT', ' v=DMARC1; p=(none) ')).toBe('" v=DMARC1; p=(none) "');
  });

  it('keeps every string at most 255 bytes and the bytes unchanged, for any Unicode text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 1200 }), (s) => checkChunking(s)));
  });

  it('keeps the bytes unchanged for text of multi-byte characters only', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('€', '😀', 'é', '日', '"', '\\'), minLength: 80, maxLength: 400 }), (s) => checkChunking(s)));
  });
});
