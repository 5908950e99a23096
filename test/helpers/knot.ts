/** For tests that run a real Knot DNS: whether it is installed, and loopback ports for it. */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { findKnot } from '../../providers/nameserver/knot';

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

/** A port on 127.0.0.1 that was free for both UDP and TCP a moment ago (DNS needs both). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const udp = createSocket('udp4');
    const port = await new Promise<number>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, '127.0.0.1', () => resolve(udp.address().port));
    });
    const tcp = createServer();
    const tcpFree = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    if (tcpFree) await new Promise<void>((resolve) => tcp.close(() => resolve()));
    if (tcpFree) return port;
  }
  throw new Error('no port free for both UDP and TCP on 127.0.0.1');
}
