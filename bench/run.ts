/** `npm run bench`: runs every benchmark's main in turn; a bench is added by importing its main into BENCHES.
 * Exits non-zero if any bench fails (a server that does not start, failed requests). */
import { main as api } from './api';
import { main as consolePages } from './console';
import { main as dns } from './dns';
import { main as dnsLatency } from './dns-latency';
import { main as dnsSecondaries } from './dns-secondaries';
import { main as failover } from './failover';
import { main as hostnames } from './hostnames';
import { main as httpFloor } from './http-floor';
import { main as memory } from './memory';
import { main as nodeAccess } from './node-access';
import { main as nodeBundle } from './node-bundle';
import { main as rrsetTombstones } from './rrset-tombstones';
import { main as zoneChanges } from './zone-changes';
import { main as zoneFileParse } from './zone-file-parse';

const BENCHES: [name: string, main: () => Promise<number>][] = [
  ['api', api],
  ['console', consolePages],
  ['dns', dns],
  ['dns-latency', dnsLatency],
  ['dns-secondaries', dnsSecondaries],
  ['failover', () => failover([])],
  ['hostnames', hostnames],
  ['http-floor', () => httpFloor()],
  ['memory', memory],
  ['node-access', nodeAccess],
  ['node-bundle', nodeBundle],
  ['rrset-tombstones', () => rrsetTombstones([])],
  ['zone-changes', () => zoneChanges()],
  ['zone-file-parse', zoneFileParse],
];

let code = 0;
for (const [name, main] of BENCHES) {
  try {
    if ((await main()) !== 0) code = 1;
  } catch (e) {
    process.stderr.write(`bench ${name}: ${(e as Error).message}\n`);
    code = 1;
  }
}
process.exitCode = code;
