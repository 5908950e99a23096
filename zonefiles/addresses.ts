import { isIPv6 } from 'node:net';

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);

/** The address in dotted-quad form without leading zeros, or undefined when it is not one. */
export function ipv4(text: string): string | undefined {
  return IPV4.test(text) ? text : undefined;
}

/** The IPv6 address in RFC 5952 section 4 form, or undefined when it is not one. */
export function ipv6(text: string): string | undefined {
  // isIPv6 accepts zone ids (`fe80::1%eth0`), which the URL parser refuses; the URL serializer
  // writes RFC 5952 section 4 form: lower case, no leading zeros, longest zero run as `::`.
  if (!isIPv6(text)) return undefined;
  try {
    return new URL(`http://[${text}]`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}
