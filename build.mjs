/**
 * `npm run build`, also run by `npm ci` and `npm install` (the `prepare` script): compiles the service into
 * dist/, so that ./bin/hostplane runs plain JavaScript without a TypeScript loader in the process (measured
 * at about 45 MiB of RSS, and a slower start). It only transpiles (tsconfig.build.json has `noCheck`): type
 * errors are `npm test`'s to report, and work in progress must not break an install.
 *
 * Node's ESM loader wants complete relative specifiers, which the sources leave out ('../lib/log',
 * '../zonefiles'): the compiled imports get them ('../lib/log.js', '../zonefiles/index.js'). The store's
 * migrations are copied beside the compiled store, where it reads them. The build goes to a temp dir that
 * replaces dist/ once complete, and dist/.built (with the time the build started) marks it complete for
 * ./bin/hostplane, which runs the sources through tsx when any source is newer. A failure under `prepare`
 * leaves no dist/ (serve then runs through tsx) rather than failing the install. It says on stderr that it
 * starts and how long it took: under `npm ci` the compile is a minute or more of otherwise silent waiting.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const dist = join(root, 'dist');
const tmp = join(root, `.dist-${process.pid}`);
const started = new Date();

const jsFiles = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
  const path = join(dir, e.name);
  return e.isDirectory() ? jsFiles(path) : e.name.endsWith('.js') ? [path] : [];
});

const isFile = (path) => existsSync(path) && statSync(path).isFile();

/** `./x` → `./x.js` or `./x/index.js`, whichever was compiled. */
function complete(file, specifier) {
  const target = resolve(dirname(file), specifier);
  if (isFile(`${target}.js`)) return `${specifier}.js`;
  if (isFile(join(target, 'index.js'))) return `${specifier}/index.js`;
  if (isFile(target)) return specifier;
  throw new Error(`${file}: cannot resolve ${specifier}`);
}

process.stderr.write('hostplane build: compiling the TypeScript sources into dist/ (a minute or more)\n');
try {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', tmp], { stdio: 'inherit' });
  for (const file of jsFiles(tmp)) {
    const text = readFileSync(file, 'utf8');
    const fixed = text.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.\.?\/[^'"]*)\2/g,
      (_, head, quote, specifier) => `${head}${quote}${complete(file, specifier)}${quote}`);
    if (fixed !== text) writeFileSync(file, fixed);
  }
  for (const migrations of ['migrations', 'migrations-pg']) cpSync(join(root, 'store', migrations), join(tmp, 'store', migrations), { recursive: true });
  const stamp = join(tmp, '.built');
  writeFileSync(stamp, '');
  utimesSync(stamp, started, started);
  rmSync(dist, { recursive: true, force: true });
  renameSync(tmp, dist);
  process.stderr.write(`hostplane build: dist/ built in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s\n`);
} catch (err) {
  if (process.env.npm_lifecycle_event !== 'prepare') throw err;
  process.stderr.write(`hostplane build failed, ./bin/hostplane runs the sources through tsx: ${err.message}\n`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
