/** Loopback ports for daemons that tests and benchmarks start. */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

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
