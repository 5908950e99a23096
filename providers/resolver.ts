/** The resolver port: how the service looks at public DNS (delegation checks, later hostname proofs). */
import { Resolver as DnsResolver } from 'node:dns/promises';

export interface Resolver {
  /** The NS host names public DNS gives for `name` (lower case, no trailing dot); [] when there are none. */
  ns(name: string): Promise<string[]>;
}

/** Resolves through the system's resolvers, or the `servers` given (`ip` or `ip:port`). */
export function systemResolver(servers: string[] = [], timeoutMs = 2_000): Resolver {
  const r = new DnsResolver({ timeout: timeoutMs, tries: 1 });
  if (servers.length) r.setServers(servers);
  return {
    async ns(name) {
      try {
        return (await r.resolveNs(name)).map((h) => h.toLowerCase().replace(/\.$/, ''));
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === 'ENOTFOUND' || code === 'ENODATA') return [];
        throw e;
      }
    },
  };
}
