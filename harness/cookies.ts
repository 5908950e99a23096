import type { IncomingHttpHeaders } from 'node:http';

/** The `name=value` of each Set-Cookie of an answer, as a Cookie header sends them back. */
export const cookiesOf = (a: { headers: IncomingHttpHeaders }): string => (a.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!).join('; ');
