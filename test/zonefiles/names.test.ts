import { describe, expect, it } from 'vitest';
import { isInZone, normalizeHostname, normalizeName, relativeName, resolveOwner, ZoneValidationError } from '../../zonefiles';

describe('normalizeName', () => {
  it.each([
    ['www.example.com', 'www.example.com'],
    ['WWW.Example.COM', 'www.example.com'],
    ['www.example.com.', 'www.example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['Bücher.Example.', 'xn--bcher-kva.example'],
    ['münchen。de', 'xn--mnchen-3ya.de'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['*.example.com', '*.example.com'],
    ['*.bücher.example', '*.xn--bcher-kva.example'],
    ['_sip._tcp.example.com', '_sip._tcp.example.com'],
    ['_dmarc.example.com', '_dmarc.example.com'],
    ['com', 'com'],
    [`${'a'.repeat(63)}.example.com`, `${'a'.repeat(63)}.example.com`],
    [`${'a.'.repeat(121)}example.com`, `${'a.'.repeat(121)}example.com`],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com.`, `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`],
    ['a-b_c.0-9.example', 'a-b_c.0-9.example'],
  ])('normalizes %j to %j', (input, expected) => {
    expect(normalizeName(input)).toBe(expected);
  });

  it.each([
    ['', 'name "" is empty'],
    ['.', 'name "." is empty'],
    ['www..example.com', 'name "www..example.com" has an empty label'],
    ['.example.com', 'name ".example.com" has an empty label'],
    ['example.com..', 'name "example.com.." has an empty label'],
    [`${'a'.repeat(64)}.example.com`, `has the label "${'a'.repeat(64)}" of 64 bytes; at most 63 are allowed`],
    [`${'a.'.repeat(122)}example.com`, 'is 255 characters long; at most 253 are allowed'],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`, 'is 254 characters long; at most 253 are allowed'],
    ['www.Exa$mple.com', 'contains "$"'],
    ['www.exa mple.com', 'name "www.exa mple.com" contains " "; only letters, digits, "-" and "_" are allowed'],
    ['user@example.com', 'contains "@"'],
    ['a/b.example.com', 'contains "/"'],
    ['www.*.example.com', 'name "www.*.example.com" has "*" as a label other than the leftmost one'],
    ['a*.example.com', 'contains "*"'],
    ['ü.123', 'name "ü.123" is not a valid internationalized domain name'],
    ['ü b.example', 'is not a valid internationalized domain name'],
  ])('rejects %j', (input, message) => {
    let error: unknown;
    try {
      normalizeName(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ZoneValidationError);
    expect((error as ZoneValidationError).issues).toEqual([{ path: 'name', message: expect.stringContaining(message) }]);
  });

  it('measures labels in their punycode form, not in Unicode characters', () => {
    expect(normalizeName(`${'ü'.repeat(57)}.example`).split('.')[0]).toHaveLength(63);
    expect(() => normalizeName(`${'ü'.repeat(58)}.example`)).toThrow(/ of 64 bytes; at most 63 are allowed/);
  });
});

describe('normalizeHostname', () => {
  it('normalizes like normalizeName', () => {
    expect(normalizeHostname('Mail.Bücher.Example.')).toBe('mail.xn--bcher-kva.example');
  });

  it('rejects the wildcard label', () => {
    expect(() => normalizeHostname('*.example.com')).toThrow('name "*.example.com" is a host name and must not contain the wildcard "*"');
  });
});

describe('isInZone', () => {
  it.each([
    ['example.com', 'example.com', true],
    ['www.example.com', 'example.com', true],
    ['a.b.example.com', 'example.com', true],
    ['*.example.com', 'example.com', true],
    ['notexample.com', 'example.com', false],
    ['example.com', 'www.example.com', false],
    ['example.org', 'example.com', false],
    ['com', 'example.com', false],
  ])('%s in %s: %s', (name, zone, inside) => {
    expect(isInZone(name, zone)).toBe(inside);
  });
});

describe('relativeName', () => {
  it.each([
    ['example.com', '@'],
    ['www.example.com', 'www'],
    ['a.b.example.com', 'a.b'],
    ['*.example.com', '*'],
  ])('writes %s as %s', (name, relative) => {
    expect(relativeName(name, 'example.com')).toBe(relative);
  });

  it('rejects a name outside the zone', () => {
    expect(() => relativeName('www.example.org', 'example.com')).toThrow('name "www.example.org" is not inside zone "example.com"');
  });
});

describe('resolveOwner', () => {
  it('takes "@" as the apex', () => {
    expect(resolveOwner('@', 'example.com')).toBe('example.com');
  });

  it('normalizes an absolute name inside the zone', () => {
    expect(resolveOwner('WWW.Example.com.', 'example.com')).toBe('www.example.com');
    expect(resolveOwner('café.bücher.example', 'xn--bcher-kva.example')).toBe('xn--caf-dma.xn--bcher-kva.example');
  });

  it('rejects a relative name, which reads as a name outside the zone', () => {
    expect(() => resolveOwner('www', 'example.com')).toThrow('name "www" is not inside zone "example.com"');
  });

  it('rejects an invalid name with the reason', () => {
    expect(() => resolveOwner('a..example.com', 'example.com')).toThrow(ZoneValidationError);
    expect(() => resolveOwner('a..example.com', 'example.com')).toThrow('has an empty label');
  });
});
