/**
 * The `next` of deployment access (spec 4.4 rule 5): where a browser goes after the sign-in round trip. One
 * function for both ends, so they cannot disagree: the API refuses to issue a code for an unsafe `next`
 * (authorizeAccess, 400), and the node refuses to redirect to one at its callback (agent/gate/access-gate.ts),
 * whatever the code says.
 */

/** The longest `next` taken. */
export const MAX_NEXT = 2048;

/** One leading `/` not followed by `/` or `\`, then printable ASCII without space (0x21..0x7E) only. */
const PATH_ONLY = /^\/(?![/\\])[\x21-\x7e]*$/;

/** A `.` or `..` segment in the path part: `/.//evil.example` resolves to `//evil.example`, which a worker that
 * builds a redirect from the request's path would send to another host. */
const DOT_SEGMENT = /^[^?#]*?(?:^|\/)\.{1,2}(?:\/|[?#]|$)/;

const safeForm = (s: string): boolean => PATH_ONLY.test(s) && !DOT_SEGMENT.test(s);

/**
 * Whether `next` is a path on the same host, by an allowlist: it and its form after one percent-decoding both
 * match PATH_ONLY and have no dot segment (so `/%2F/evil.example` and `/%5Cevil.example`, which decode to a
 * protocol-relative address, are refused, and so is an encoding that does not decode).
 */
export function isSafeNext(next: string): boolean {
  if (next.length > MAX_NEXT || !safeForm(next)) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(next);
  } catch {
    return false;
  }
  return safeForm(decoded);
}
