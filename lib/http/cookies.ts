/** Reading a `Cookie` header: the node's access gate and sign-in handler read their own cookies from it. */

/** Every value of cookie `name` in a `Cookie` header, in order: a browser sends two of one name when another
 * site managed to plant one beside ours, and the planted one may come first. */
export function cookieValues(header: string | undefined, name: string): string[] {
  if (header === undefined || !header.includes(name)) return [];
  const values: string[] = [];
  for (const pair of header.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === name) values.push(pair.slice(eq + 1).trim());
  }
  return values;
}

/** The first value of cookie `name` in a `Cookie` header (RFC 6265 5.4 orders the most specific first), or null. */
export const cookieValue = (header: string | undefined, name: string): string | null => cookieValues(header, name)[0] ?? null;
