/**
 * Case (c) of bench/dns.ts, in a process of its own so that its memory is the render's alone:
 * renders a zone of N rrsets with zonefiles' renderZone and prints one JSON line with the time of the first
 * (cold) render, the p50 of a few warm ones, and the memory.
 *
 *   node --expose-gc --import tsx bench/dns-render.ts [N]     (default 100000)
 *
 * The zone is a mix as real zones have it: 70% A, 10% AAAA, 5% TXT (every 20th of them 600 bytes, split
 * into 255-byte strings), 5% CNAME, 5% MX, 5% A at two-label owners; each rrset canonical as the API
 * stores it (validateRRset), in store order (by name, then type), built before anything is measured.
 */
import { performance } from 'node:perf_hooks';
import { renderZone, validateRRset, type RRset } from '../zonefiles';
import { soaFor } from '../zonefiles/soa';

const ZONE = 'big.test';

function buildRRsets(n: number): RRset[] {
  const out: RRset[] = [];
  for (let i = 0; i < n; i++) {
    const host = `host-${i}.${ZONE}`;
    const slot = i % 20;
    let rrset: RRset;
    if (slot < 14) rrset = { name: host, type: 'A', ttl: 300, records: [{ content: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }] };
    else if (slot < 16) rrset = { name: host, type: 'AAAA', ttl: 300, records: [{ content: `2001:db8::${(i & 0xffff).toString(16)}:${(i >> 16).toString(16)}` }] };
    else if (slot === 16) {
      const text = i % 400 === 16 ? `v=long ${'x'.repeat(590)}${i}` : `v=spf1 include:_spf.example.com ~all ${i}`;
      rrset = { name: host, type: 'TXT', ttl: 300, records: [{ content: text }] };
    } else if (slot === 17) rrset = { name: host, type: 'CNAME', ttl: 300, records: [{ content: `host-${i - 17}.${ZONE}` }] };
    else if (slot === 18) rrset = { name: host, type: 'MX', ttl: 300, records: [{ content: `10 mail-${i % 50}.${ZONE}` }] };
    else rrset = { name: `www.sub-${i}.${ZONE}`, type: 'A', ttl: 300, records: [{ content: `10.200.${(i >> 8) & 255}.${i & 255}` }] };
    out.push(validateRRset(ZONE, rrset));
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

const MB = 1024 * 1024;
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

function main(): void {
  const n = Number(process.argv[2] ?? 100_000);
  const spec = { name: ZONE, soa: soaFor(ZONE, 2026010100, ['ns1.hostplane.net', 'ns2.hostplane.net']), rrsets: buildRRsets(n) };
  gc();
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  let text: string | null = renderZone(spec);
  const firstMs = performance.now() - t0;
  const rssAfter = process.memoryUsage().rss;
  // ru_maxrss: the highest RSS of this process so far, i.e. the peak during the first render.
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const bytes = Buffer.byteLength(text);
  const lines = text.split('\n').length - 1;
  text = null;

  const warm: number[] = [];
  for (let i = 0; i < 5; i++) {
    gc();
    const t = performance.now();
    renderZone(spec);
    warm.push(performance.now() - t);
  }
  warm.sort((a, b) => a - b);
  process.stdout.write(`${JSON.stringify({
    rrsets: n,
    firstMs,
    warmP50Ms: warm[Math.floor(warm.length / 2)],
    rssBeforeMB: rssBefore / MB,
    rssAfterMB: rssAfter / MB,
    peakRssMB: peakRss / MB,
    textMB: bytes / MB,
    lines,
  })}\n`);
}

main();
