import { ZoneValidationError } from '../../zonefiles';

/** The issues a zone validation refused `f` with; none when it passed. Other errors are thrown again. */
export function issuesOf(f: () => unknown): { path: string; message: string }[] {
  try {
    f();
  } catch (e) {
    if (e instanceof ZoneValidationError) return e.issues;
    throw e;
  }
  return [];
}
