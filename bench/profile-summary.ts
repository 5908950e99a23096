/**
 * Where a process's CPU time went: a summary of a V8 `.cpuprofile` (`node --cpu-prof`), restricted to time windows
 * (a bench's load runs), as the top functions by self time and the time by area (our folders, each npm package,
 * Node's own code, GC, idle). Windows are CLOCK_MONOTONIC microseconds, the clock of both `process.hrtime` and V8's
 * profile timestamps on Linux, so a bench can cut a child's profile to the moments it measured.
 *
 *   npx tsx bench/profile-summary.ts FILE.cpuprofile [TOP]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { REPO } from './lib';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

/** [from, to] in CLOCK_MONOTONIC microseconds. */
export type Window = [number, number];

/** Now, in the profile's clock. */
export const monotonicMicros = (): number => Number(process.hrtime.bigint() / 1000n);

export interface Summary {
  /** Sampled milliseconds inside the windows (idle included). */
  sampledMs: number;
  /** Self time by function, largest first: `name (file:line)`, milliseconds, share of the busy (non-idle) time. */
  top: { fn: string; ms: number; share: number }[];
  /** Self time by area: `ours:api`, `pkg:koa`, `node`, `(garbage collector)`, ..., largest first. */
  areas: { area: string; ms: number; share: number }[];
  /** Share of the windows' samples that were idle (the process waited: I/O, the next request). */
  idle: number;
}

const REPO_URL = `file://${REPO}/`;

function where(frame: CallFrame): { file: string; area: string } {
  const { url } = frame;
  if (!url) return { file: '', area: frame.functionName.startsWith('(') ? frame.functionName : 'native' };
  if (url.startsWith('node:')) return { file: url, area: 'node' };
  const rel = url.startsWith(REPO_URL) ? url.slice(REPO_URL.length) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(rel);
  if (pkg) return { file: rel.slice(rel.lastIndexOf('node_modules/') + 'node_modules/'.length), area: `pkg:${pkg[1]}` };
  if (rel !== url) return { file: rel.replace(/^dist\//, ''), area: `ours:${rel.replace(/^dist\//, '').split('/')[0]}` };
  return { file: rel, area: 'other' };
}

/** Summarizes the samples of `profile` that fall inside any of `windows` (all samples without windows). */
export function summarize(profile: CpuProfile, windows: Window[] = [], topN = 12): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // A compiled file (tsx) keeps no line numbers worth printing, and arrow functions have no names: an anonymous
  // function is named by the nearest named function that called it.
  const nameOf = (id: number): string => {
    const own = byId.get(id)!.callFrame.functionName;
    if (own) return own;
    for (let p = parent.get(id); p !== undefined; p = parent.get(p)) {
      const f = byId.get(p)!.callFrame;
      if (f.functionName && !f.functionName.startsWith('(')) return `(anonymous in ${f.functionName})`;
    }
    return '(anonymous)';
  };
  const inWindow = (t: number): boolean => windows.length === 0 || windows.some(([a, b]) => t >= a && t <= b);
  const self = new Map<number, number>();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (!inWindow(t)) continue;
    // A sample stands for the time until the next one.
    const span = profile.timeDeltas[i + 1] ?? dt;
    self.set(profile.samples[i]!, (self.get(profile.samples[i]!) ?? 0) + span);
    total += span;
  }
  const fns = new Map<string, number>();
  const areas = new Map<string, number>();
  let idle = 0;
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const { file, area } = where(frame);
    const line = frame.lineNumber > 1 ? `:${frame.lineNumber + 1}` : '';
    const fn = `${nameOf(id)}${file ? ` (${file}${line})` : ''}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const busy = Math.max(1, total - idle);
  const ranked = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([k, us]) => ({ k, ms: us / 1000, share: us / busy }));
  return {
    sampledMs: total / 1000,
    top: ranked(fns).slice(0, topN).map(({ k, ms, share }) => ({ fn: k, ms, share })),
    areas: ranked(areas).map(({ k, ms, share }) => ({ area: k, ms, share })),
    idle: total > 0 ? idle / total : 0,
  };
}

export const readProfile = (file: string): CpuProfile => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The summary as lines: one of areas, then the top functions. */
export function formatSummary(label: string, s: Summary): string[] {
  const areas = s.areas.filter((a) => a.share >= 0.01).map((a) => `${a.area} ${pct(a.share)}`).join(', ');
  return [
    `profile ${label}: ${Math.round(s.sampledMs)} ms sampled, ${pct(s.idle)} idle; busy time by area: ${areas}`,
    ...s.top.map((f) => `profile ${label}:   ${pct(f.share).padStart(6)} self  ${f.fn}`),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: tsx bench/profile-summary.ts FILE.cpuprofile [TOP]\n');
    process.exit(2);
  }
  process.stdout.write(`${formatSummary(file, summarize(readProfile(file), [], Number(top ?? 20))).join('\n')}\n`);
}
