import { AppError } from '../lib/errors';
import type { ChangeKind } from '../store/feed';
import type { Core, DnsInfo, DomainHandler } from './port';
import { bundleContext, type Sealer } from './sealing';

/** The core in the same process as the API (`hostplane serve`). `verifyHostname` is the hostname reconciler's
 * judgement; a core started without one (a test's) answers 503 `no_core` for it. */
export function localCore(d: {
  sealer: Sealer; dns: DnsInfo; nudge: (kind: ChangeKind, key: string) => void; verifyHostname?: (name: string) => Promise<void>;
  /** The domain operations (sagas/domains.ts); without them they answer 503 `registrar_not_configured`. */
  domains?: DomainHandler;
}): Core {
  return {
    seal: async (context, plaintext) => d.sealer.seal(context, plaintext),
    dns: async () => d.dns,
    nudge: d.nudge,
    verifyHostname: async (name) => {
      if (!d.verifyHostname) throw new AppError(503, 'no_core', 'this core does not verify hostnames');
      await d.verifyHostname(name);
    },
    openBundle: async (nodeId, sealed) => d.sealer.open(bundleContext(nodeId), sealed),
    domain: async (op, input) => {
      if (!d.domains) throw new AppError(503, 'registrar_not_configured', 'this deployment has no registrar');
      return d.domains.call(op, input);
    },
  };
}
