/** One problem found in a zone, an rrset or a name: `path` points into the input (`records[2].content`, `ttl`, `line 7`). */
export interface Issue {
  path: string;
  message: string;
}

/**
 * Invalid zone data. Validation collects every problem before throwing (octodns style), so a caller
 * fixes all of them in one round trip. The API maps it to 400 `bad_request` with `details.issues`.
 */
export class ZoneValidationError extends Error {
  override name = 'ZoneValidationError';
  readonly status = 400;

  constructor(readonly issues: Issue[]) {
    super(issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; '));
  }
}

/** Problems one refusal lists at most: a file of thousands of bad lines is answered with the first of them and a
 * count of the rest, not a body as large as the file. */
export const MAX_LISTED = 100;

/** Characters of one listed problem at most: a problem that quotes its field would otherwise answer a line of
 * 1 MiB (in `\DDD` escapes, 4 bytes a byte) as a 400 of several. */
export const MAX_PROBLEM_CHARS = 300;

const clipped = (i: Issue): Issue => (i.message.length > MAX_PROBLEM_CHARS ? { ...i, message: `${i.message.slice(0, MAX_PROBLEM_CHARS - 1)}…` } : i);

/** The refusal of a zone file: its problems in line order (`line N` paths; any other path first), at most
 * MAX_LISTED of them, each cut to MAX_PROBLEM_CHARS, then how many more there are, and the line from which the file was not checked when
 * reading stopped once MAX_LISTED problems were found (`uncheckedFrom`). */
export function fileRefused(issues: Issue[], uncheckedFrom?: number): ZoneValidationError {
  const lineOf = (i: Issue): number => Number(i.path.slice('line '.length)) || 0;
  const sorted = [...issues].sort((a, b) => lineOf(a) - lineOf(b));
  const shown = sorted.slice(0, MAX_LISTED).map(clipped);
  if (sorted.length > MAX_LISTED) shown.push({ path: '', message: `${sorted.length - MAX_LISTED} more problems not listed` });
  if (uncheckedFrom !== undefined) {
    shown.push({ path: '', message: `checking stopped at ${MAX_LISTED} problems: the file from line ${uncheckedFrom} on was not checked` });
  }
  return new ZoneValidationError(shown);
}

/** A record content rejected by a per-type check; `detail` continues `MX record "..."`. Internal to zonefiles/:
 * validateRRset turns it into an {@link Issue} naming the record. */
export class RecordProblem {
  constructor(readonly detail: string) {}
}
