/** For browser tests: Debian's Chromium driven by playwright-core (never a downloaded browser), pages checked with
 * axe-core, and a screenshot of each page kept under .tmp/screenshots for whoever reads a CI run. */
import AxeBuilder from '@axe-core/playwright';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = join(import.meta.dirname, '..', '..');
export const SCREENSHOTS = join(ROOT, '.tmp', 'screenshots');

/** Chromium's path: on PATH or Debian's /usr/bin/chromium; null when it is not installed. */
export function chromiumPath(): string | null {
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** A describe title that says why its tests are skipped where everyone reads it, as knotTitle does. */
export function browserTitle(title: string): string {
  if (chromiumPath()) return title;
  process.stderr.write(`SKIPPED "${title}": chromium is not installed (apt-get install chromium)\n`);
  return `${title} (skipped: chromium not installed)`;
}

/** Launches Chromium headless. `hosts`: names the browser resolves to a loopback address and port of the test's
 * (Chromium's own resolver rules, so no /etc/hosts is touched). */
export async function launchChromium(hosts: Record<string, string> = {}): Promise<Browser> {
  const rules = Object.entries(hosts).map(([name, to]) => `MAP ${name} ${to}`).join(', ');
  return chromium.launch({
    executablePath: chromiumPath()!,
    // As root (CI) Chromium refuses to start sandboxed; the pages it opens are the test's own.
    args: ['--no-sandbox', ...(rules ? [`--host-resolver-rules=${rules}`] : [])],
  });
}

/** axe-core's violations of the page that are critical or serious, as `rule: target` lines (empty when none). */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${v.help}`));
}

/** Saves a full-page screenshot as .tmp/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
