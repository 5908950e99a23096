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

/** A record content rejected by a per-type check; `detail` continues `MX record "..."`. Internal to zonefiles/:
 * validateRRset turns it into an {@link Issue} naming the record. */
export class RecordProblem {
  constructor(readonly detail: string) {}
}
