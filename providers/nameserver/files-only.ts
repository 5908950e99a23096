/**
 * The nameserver used when Knot DNS is not installed: zone files are still rendered and written, so they
 * are ready for any server to load, but nothing serves them, and every zone's status says so.
 */
import { mkdirSync } from 'node:fs';
import { removeFileDurably, writeFileDurably } from '../../lib/files';
import { zoneFileNames, zoneFilePath } from './knot-config';
import type { Nameserver, NameserverHealth } from './port';

export function filesOnlyNameserver(zonesDir: string, why: string): Nameserver {
  const health: NameserverHealth = { running: false, lastError: why, pid: null, restarts: 0 };
  const file = (zone: string): string => zoneFilePath(zonesDir, zone);
  return {
    start: async () => {
      mkdirSync(zonesDir, { recursive: true });
    },
    stop: async () => undefined,
    applyZone: (name, zoneText) => writeFileDurably(file(name), zoneText),
    removeZone: (name) => removeFileDurably(file(name)),
    zones: () => zoneFileNames(zonesDir),
    servedSerial: async () => null,
    ds: async () => [],
    health: () => health,
  };
}
