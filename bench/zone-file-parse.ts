/**
 * Speed of reading a zone file (issue 25 "Speed": a 1 MiB file imported within 2 s, of which the parse is one part),
 * in this process, without a server: the 1 MiB file of bench/zone-changes.ts's import case read by parseZoneFile
 * (fields, names, TTLs, and each rrset validated), and validateRRset alone over the rrsets it reads (what every
 * putRRset and change set pays per rrset). Each case runs RUNS times after WARMUP runs and prints one line with p50
 * and max, its aim and whether it is met, and the load average beside it.
 *
 *   npx tsx bench/zone-file-parse.ts                  (also run by `npm run bench`)
 *   node --cpu-prof --cpu-prof-dir DIR --import tsx bench/zone-file-parse.ts   (then bench/profile-summary.ts)
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseZoneFile, validateRRset } from '../zonefiles';
import { ms, stats } from './dns-lib';
import { out } from './dns-sides';
import { command } from './lib';
import { importFile } from './zone-file';

const ZONE = 'import.test';
const WARMUP = 3;
const RUNS = 10;
/** The parse's share of the 2 s import: the diff and apply take the rest. */
const AIM_PARSE_MS = 150;

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

/** `f` run WARMUP times unmeasured, then RUNS times: p50 and max in milliseconds. */
function timed(f: () => void): { p50: number; max: number } {
  for (let i = 0; i < WARMUP; i++) f();
  const took: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    f();
    took.push(performance.now() - t0);
  }
  return stats(took);
}

export async function main(): Promise<number> {
  const { text } = importFile(ZONE, 0);
  const { rrsets } = parseZoneFile(text, ZONE);
  const size = `${(Buffer.byteLength(text) / (1024 * 1024)).toFixed(1)}MiB`;

  const parse = timed(() => parseZoneFile(text, ZONE));
  const met = parse.max <= AIM_PARSE_MS;
  out(`zone-file-parse parse of a ${size} zone file (${rrsets.length} rrsets): p50=${ms(parse.p50)} max=${ms(parse.max)} n=${RUNS}`
    + ` [aim within ${AIM_PARSE_MS}ms (max): ${met ? 'met' : 'MISSED'}] (load ${load()})`);

  const validate = timed(() => {
    for (const rrset of rrsets) validateRRset(ZONE, rrset);
  });
  out(`zone-file-parse validateRRset of its ${rrsets.length} rrsets alone: p50=${ms(validate.p50)} max=${ms(validate.max)} n=${RUNS} (load ${load()})`);
  return 0;
}

command(import.meta.url, 'zone-file-parse', main);
