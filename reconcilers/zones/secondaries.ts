/**
 * The look at the secondaries (`--secondaries`): after a change is served, each secondary's serial is compared
 * with the served one; one behind gets NOTIFY again, and the zone's SecondariesInSync condition says which. The
 * zone pass schedules the look (a pass of its own, through the runner), so nothing of it runs on a timer.
 */
import type { Logger } from '../../lib/log';
import type { Nameserver, SecondarySerial } from '../../providers/nameserver/port';
import type { Judged } from '../../store/status';
import type { ZoneFacts } from '../../store/zones';
import { serialGreater } from '../../zonefiles';

/** What a look at the secondaries found: the condition and the fact to record, and whether one is behind. */
export interface SecondaryLook {
  condition: Judged;
  facts: Pick<ZoneFacts, 'secondaries'>;
  behind: boolean;
}

/** The SecondariesInSync condition of secondaries serving `serials`, against the served serial `want`: a
 * secondary at `want` or later (RFC 1982) is in sync. */
export function judgeSecondaries(serials: SecondarySerial[], want: number): SecondaryLook {
  const behind = serials.filter((s) => s.serial === null || (s.serial !== want && !serialGreater(s.serial, want)));
  return {
    condition: behind.length === 0
      ? { type: 'SecondariesInSync', status: 'True', reason: 'InSync', message: `every secondary serves serial ${want}` }
      : {
        type: 'SecondariesInSync', status: 'False', reason: 'SecondaryBehind',
        message: `${behind.map((b) => `${b.address} serves ${b.serial ?? 'nothing'}`).join(', ')}, not serial ${want}; NOTIFY is sent again`,
      },
    facts: { secondaries: serials },
    behind: behind.length > 0,
  };
}

/** Asks each secondary what it serves of `name` and sends NOTIFY again when one is behind `want`. Null when the
 * nameserver has no secondaries. A secondary that cannot be asked counts as serving nothing. */
export async function lookAtSecondaries(d: { nameserver: Nameserver; log: Logger }, name: string, want: number): Promise<SecondaryLook | null> {
  const serials = d.nameserver.secondarySerials ? await d.nameserver.secondarySerials(name) : [];
  if (serials.length === 0) return null;
  const look = judgeSecondaries(serials, want);
  if (look.behind) await d.nameserver.notifySecondaries?.(name).catch((e: Error) => d.log.debug({ zone: name, err: e.message }, 'NOTIFY failed'));
  return look;
}
