/** Small helpers of the DNS bench: free loopback ports, percentiles, executables in sbin. */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { freePort } from '../harness/ports';

export const sleep = (ms: number): Promise<void> => new Promise((res) => setTimeout(res, ms));

/** Distinct free ports (each checked, and not handed out twice). */
export async function freePorts(n: number): Promise<number[]> {
  const out = new Set<number>();
  while (out.size < n) out.add(await freePort());
  return [...out];
}

export interface Stats { n: number; p50: number; p99: number; max: number }

export function stats(values: number[]): Stats {
  const s = Float64Array.from(values).sort();
  const at = (p: number): number => (s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!);
  return { n: s.length, p50: at(50), p99: at(99), max: s.length ? s[s.length - 1]! : NaN };
}

export const ms = (v: number): string => (Number.isNaN(v) ? 'n/a' : v < 10 ? `${v.toFixed(2)}ms` : v < 100 ? `${v.toFixed(1)}ms` : `${Math.round(v)}ms`);

/** An executable on PATH or in the sbin directories Debian installs daemons into (often not on PATH). */
export function findExecutable(name: string): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin']) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return null;
}

export function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== '[::1]' && host !== 'localhost') throw new Error(`not a loopback server: ${url}`);
}
