import type { ChangeKind } from '../store/feed';
import type { Core, DnsInfo } from './port';
import type { Sealer } from './sealing';

/** The core in the same process as the API (`hostplane serve`). */
export function localCore(d: { sealer: Sealer; dns: DnsInfo; nudge: (kind: ChangeKind, key: string) => void }): Core {
  return {
    seal: async (context, plaintext) => d.sealer.seal(context, plaintext),
    dns: async () => d.dns,
    nudge: d.nudge,
  };
}
