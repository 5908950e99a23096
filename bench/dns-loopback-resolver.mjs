/**
 * Preloaded into the `hostplane serve` child by the DNS benches (`--import`, or NODE_OPTIONS when serve runs
 * through ./bin/hostplane), so that a bench sends no packet off the machine: serve's zone reconciler looks up
 * each zone's delegation (an NS query) through the system's resolvers, which are not on loopback. Every
 * `dns/promises` Resolver created in that process is pointed at BENCH_DNS_RESOLVER (`ip:port`, the bench's
 * own loopback nameserver) instead. Nothing else in serve changes; the lookup runs beside the apply path, at
 * most once per zone in ten minutes. Plain JavaScript: serve may run compiled, without a TypeScript loader.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

const target = process.env.BENCH_DNS_RESOLVER;
if (target) {
  const dnsPromises = createRequire(import.meta.url)('node:dns/promises');
  const Base = dnsPromises.Resolver;
  class LoopbackResolver extends Base {
    constructor(options) {
      super(options);
      this.setServers([target]);
    }
  }
  dnsPromises.Resolver = LoopbackResolver;
  syncBuiltinESMExports();
}
