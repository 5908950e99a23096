/** build.mjs, which `npm ci` runs: it must not leave a newcomer a minute of silence, so it says on stderr that it
 * starts and how long it took. It runs here on a project of two files (a copy of the script beside them, the
 * repository's TypeScript), since compiling the real sources takes a minute. */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cleanup, ROOT, tempDir } from './helpers/proc';

afterAll(cleanup);

function tinyProject(): string {
  const dir = tempDir('hostplane-build-');
  copyFileSync(join(ROOT, 'build.mjs'), join(dir, 'build.mjs'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  mkdirSync(join(dir, 'src'));
  for (const migrations of ['migrations', 'migrations-pg']) mkdirSync(join(dir, 'store', migrations), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.ts'), "import { b } from './b';\nexport const a: number = b + 1;\n");
  writeFileSync(join(dir, 'src', 'b.ts'), 'export const b = 1;\n');
  writeFileSync(join(dir, 'tsconfig.build.json'), JSON.stringify({
    compilerOptions: { target: 'ES2022', module: 'preserve', moduleResolution: 'bundler', rootDir: '.', noCheck: true, types: [] },
    include: ['src'],
  }));
  return dir;
}

it('says on stderr that it compiles, then that dist/ is built and in how long; stdout stays empty', async () => {
  const dir = tinyProject();
  const env = { ...process.env };
  delete env.npm_lifecycle_event;
  const out = await new Promise<{ code: number; stdout: string; stderr: string }>((res) => {
    execFile(process.execPath, ['build.mjs'], { cwd: dir, env, timeout: 60_000 }, (error, stdout, stderr) => {
      res({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
  expect(out.code, out.stderr).toBe(0);
  expect(out.stdout).toBe('');
  expect(out.stderr).toMatch(/^hostplane build: compiling the TypeScript sources into dist\/ \(a minute or more\)\nhostplane build: dist\/ built in \d+\.\d s\n$/);
  expect(readFileSync(join(dir, 'dist', 'src', 'a.js'), 'utf8')).toContain("from './b.js'");
}, 60_000);
