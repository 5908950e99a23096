/** One reconciler shape: time and timers only through the runner and its queue (a reconciler's own timer is work
 * the runner's idle() cannot see), and every reconciler declared `satisfies Reconciler` (the type check does the
 * rest). */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/proc';

const DIR = join(ROOT, 'reconcilers');
const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
const sources = files(DIR).map((f) => ({ path: relative(ROOT, f), text: readFileSync(f, 'utf8') }));
// The leadership loop schedules the runner itself (renewals, the deadline, bids): a scheduler, not a reconciler.
const SCHEDULERS = ['reconcilers/runner.ts', 'reconcilers/queue.ts', 'reconcilers/leadership.ts'];

describe('reconcilers/', () => {
  it('uses setTimeout, setInterval and Date.now only in the runner, its queue and the leadership loop', () => {
    expect(sources.length).toBeGreaterThan(8);
    const offenders = sources.filter((s) => !SCHEDULERS.includes(s.path) && /\b(setTimeout|setInterval|Date\.now)\b/.test(s.text)).map((s) => s.path);
    expect(offenders).toEqual([]);
  });

  it('declares every reconciler `satisfies Reconciler`', () => {
    const factories = sources.filter((s) => /export function \w+Reconciler\(/.test(s.text));
    expect(factories.map((s) => s.path).sort()).toEqual(['reconcilers/bundles.ts', 'reconcilers/domains.ts', 'reconcilers/hostnames.ts', 'reconcilers/projects.ts', 'reconcilers/zones/catalog.ts', 'reconcilers/zones/index.ts']);
    for (const s of factories) expect(s.text, s.path).toMatch(/\} satisfies \w*Reconciler;/);
  });
});
