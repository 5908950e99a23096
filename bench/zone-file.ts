/** The 1 MiB zone file of the import benches (bench/zone-changes.ts through the API, bench/zone-file-parse.ts the parser
 * alone), built in one place so that both measure the same file. */
import { addressOf } from './dns-sides';

/** The API's body limit for an import, which the file comes just under. */
export const IMPORT_BYTES = 1024 * 1024;
/** Rrsets a replacing import's file drops from the front and adds at the end, against the previous run's file. */
export const IMPORT_SHIFT = 100;

/** A zone file of `zone` of about IMPORT_BYTES (a little under): relative names, `$TTL`, comments, A, AAAA, MX and TXT;
 * run `run` shifts its names by IMPORT_SHIFT and changes every address. The name of its last A rrset and address. */
export function importFile(zone: string, run: number): { text: string; last: { name: string; address: string } } {
  const head = [`$ORIGIN ${zone}.`, '$TTL 300', `; bench zone file, run ${run}`, '@ 3600 IN MX 10 mail', `@ IN TXT "v=spf1 ip4:192.0.2.${run} -all"`];
  const lines = [...head];
  let bytes = head.reduce((n, l) => n + l.length + 1, 0);
  let last = { name: '', address: '' };
  for (let i = run * IMPORT_SHIFT; ; i++) {
    const address = addressOf(i, 20 + run);
    const block = i % 10 === 0
      ? [`h${i} IN A ${address}`, `  IN AAAA 2001:db8::${run.toString(16)}:${(i & 0xffff).toString(16)}`, `  IN TXT "host ${i}" "run ${run}" ; a comment`]
      : [`h${i} IN A ${address}`];
    const size = block.reduce((n, l) => n + l.length + 1, 0);
    if (bytes + size > IMPORT_BYTES) break;
    lines.push(...block);
    bytes += size;
    last = { name: `h${i}.${zone}`, address };
  }
  return { text: `${lines.join('\n')}\n`, last };
}
