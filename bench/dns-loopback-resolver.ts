/**
 * Preloaded into the `hostplane serve` child by bench/dns.ts (`node --import`), so that the bench sends no
 * packet off the machine: serve's zone reconciler looks up each zone's delegation (an NS query) through the
 * system's resolvers, which are not on loopback. Every `dns/promises` Resolver created in that process is
 * pointed at BENCH_DNS_RESOLVER (`ip:port`, the bench's own loopback nameserver) instead. Nothing else in
 * serve changes; the lookup runs beside the apply path, at most once per zone in ten minutes.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

const target = process.env.BENCH_DNS_RESOLVER;
if (target) {
  const dnsPromises = createRequire(import.meta.url)('node:dns/promises') as typeof import('node:dns/promises');
  const Base = dnsPromises.Resolver;
  class LoopbackResolver extends Base {
    constructor(options?: ConstructorParameters<typeof Base>[0]) {
      super(options);
      this.setServers([target!]);
    }
  }
  (dnsPromises as { Resolver: typeof Base }).Resolver = LoopbackResolver;
  syncBuiltinESMExports();
}
