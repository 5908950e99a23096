/** For tests that run a real Knot DNS: whether it is installed, and loopback ports for it (harness/ports.ts). */
import { findKnot } from '../../providers/nameserver/knot';

export { freePort } from '../../harness/ports';

/** True when knotd and knotc are installed (on PATH or in /usr/sbin). */
export function hasKnot(): boolean {
  return findKnot() !== null;
}

/** A describe title that says why its tests are skipped: `describe.skipIf(!hasKnot())(knotTitle('knot'), ...)`. */
export function knotTitle(title: string): string {
  if (hasKnot()) return title;
  // The default reporter shows a skipped file as a count only: say why where everyone reads it.
  process.stderr.write(`SKIPPED "${title}": knotd is not installed (apt-get install knot knot-dnsutils knot-dnssecutils)\n`);
  return `${title} (skipped: knotd not installed)`;
}
