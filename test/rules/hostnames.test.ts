/** Custom hostname name rules (spec 4.5 rule 2, issue 9 item 1): one stored form, and every refusal a table row. */
import { describe, expect, it } from 'vitest';
import { checkHostname, defaultFallbackOrigin, hostnameRefusal, inPublicDns } from '../../rules/hostnames';

const PLATFORM = { appDomain: 'hostplane.test', nameservers: ['edge.hostplane.net'], serviceDomains: ['status.example', 'catalog.invalid'] };

describe('checkHostname normalizes', () => {
  it.each([
    ['www.Customer.COM', 'www.customer.com'],
    ['Bücher.Example.COM', 'xn--bcher-kva.example.com'],
    ['xn--bcher-kva.example.com', 'xn--bcher-kva.example.com'],
    ['www.customer.com.', 'www.customer.com'],
    ['a-b.c0.example', 'a-b.c0.example'],
  ])('%s → %s', (input, stored) => {
    expect(checkHostname(input)).toEqual({ ok: true, name: stored });
  });

  it('the Unicode and ASCII spellings are one name', () => {
    expect(checkHostname('BÜCHER.example.com')).toEqual(checkHostname('xn--bcher-kva.example.com'));
  });
});

describe('checkHostname refuses', () => {
  it.each([
    ['empty', '', /is empty/],
    ['an empty label', 'www..customer.com', /empty label/],
    ['a leading hyphen', '-www.customer.com', /letters, digits and inner hyphens/],
    ['a trailing hyphen', 'www-.customer.com', /letters, digits and inner hyphens/],
    ['a label over 63', `${'a'.repeat(64)}.customer.com`, /64 bytes/],
    ['a URL', 'https://www.customer.com/', /URL/],
    ['a path', 'www.customer.com/x', /URL/],
    ['spaces inside', 'www customer.com', /contains " "/],
    ['spaces around', ' www.customer.com', /spaces/],
    ['an IPv4 literal', '192.0.2.1', /IP address/],
    ['an IPv6 literal', '2001:db8::1', /IP address/],
    ['a bracketed IPv6 literal', '[2001:db8::1]', /IP address/],
    ['a single label', 'localhost', /one label/],
    ['a wildcard', '*.customer.com', /wildcard/],
    ['an inner wildcard', 'a.*.customer.com', /wildcard/],
    ['an underscore label', '_dmarc.customer.com', /letters, digits and inner hyphens/],
    ['a bad A-label', 'xn--zz.customer.com', /punycode/],
    ['a numeric top-level label', 'www.customer.123', /all-numeric/],
    ['a name too long for its TXT proof', `${'a.'.repeat(118)}com`, /at most 237/],
  ])('%s', (_what, input, reason) => {
    const r = checkHostname(input);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.reason).toMatch(reason);
  });
});

describe('hostnameRefusal', () => {
  it.each([
    ['the app domain itself', 'hostplane.test', /is a domain of this service/],
    ['a name under the app domain', 'blog.hostplane.test', /under hostplane.test/],
    ['a service domain', 'www.status.example', /under status.example/],
    ['the fallback origin\'s domain', 'x.hostplane.net', /under hostplane.net/],
    ['an ICANN public suffix', 'co.uk', /public suffix/],
    ['a private public suffix', 'github.io', /public suffix/],
  ])('refuses %s', (_what, name, message) => {
    const e = hostnameRefusal(name, PLATFORM);
    expect(e?.status).toBe(400);
    expect(e?.code).toBe('bad_request');
    expect(e?.message).toMatch(message);
  });

  it.each(['www.customer.com', 'customer.co.uk', 'me.github.io', 'hostplane.test.customer.com'])('lets %s through', (name) => {
    expect(hostnameRefusal(name, PLATFORM)).toBeNull();
  });
});

it('the default fallback origin is edge. + the nameservers\' registrable domain', () => {
  expect(defaultFallbackOrigin(['ns1.hostplane.net', 'ns2.hostplane.net'])).toBe('edge.hostplane.net');
  expect(defaultFallbackOrigin(['a.ns.example.co.uk'])).toBe('edge.example.co.uk');
});

describe('inPublicDns: whose answers a tenant may read of a name', () => {
  it.each([
    ['www.example.com', true],
    ['shop.co.uk', true],
    ['app.herokuapp.com', true],
    ['www.example.com.', true],
    ['WWW.Example.COM', true],
    ['db.corp.internal', false],
    ['www.customer.test', false],
    ['status.example', false],
    ['printer.local', false],
    ['fs.corp', false],
    ['nas.lan', false],
    ['api.svc.cluster.local', false],
    ['router.home.arpa', false],
    ['5.0.0.10.in-addr.arpa', false],
    ['localhost', false],
    ['catalog.invalid', false],
  ])('%s: %s', (name, inPublic) => {
    expect(inPublicDns(name)).toBe(inPublic);
  });
});
