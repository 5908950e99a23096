/**
 * scripts/cluster.sh (docs/deployment.md, "Trying it on one machine"): it starts PostgreSQL on loopback and three
 * `serve` on it, prints their lines, and `admin status` names one of the three as the leader; SIGTERM stops every
 * process it started and removes its directory.
 */
import { processAlive } from '../../lib/process-alive';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/ports';
import { postgresMissing } from '../../harness/postgres';
import { cleanup, ROOT, runHostplane, tempDir, until } from '../helpers/proc';
import { onPostgres } from '../helpers/store';

const skipped = onPostgres() ? postgresMissing() : 'starts a PostgreSQL cluster of its own: runs in the PostgreSQL pass (HOSTPLANE_TEST_STORE=postgres)';

describe.skipIf(skipped)(`scripts/cluster.sh${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
  afterAll(cleanup);

  it('starts three serve on one PostgreSQL, one of which leads, and stops them all at SIGTERM', async () => {
    const pgPort = await freePort();
    const script = spawn(join(ROOT, 'scripts', 'cluster.sh'), ['--port', '0', '--pg-port', String(pgPort)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    script.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const exited = new Promise<number | null>((resolve) => script.once('exit', (code) => resolve(code)));
    try {
      const lines: string[] = [];
      createInterface({ input: script.stdout }).on('line', (l) => lines.push(l));
      await until('the script to print how to stop it', () => lines.some((l) => l.startsWith('stop:')), 90_000, 100)
        .catch((e: Error) => { throw new Error(`${e.message}\n${lines.join('\n')}\n${stderr}`); });
      const serves = lines.filter((l) => l.startsWith('serve-')).map((l) => JSON.parse(l.slice(l.indexOf('{'))) as { listening: string });
      expect(serves).toHaveLength(3);
      const url = `postgres://hostplane@127.0.0.1:${pgPort}/hostplane`;
      expect(lines.join('\n')).toContain(url);
      // Its own temp dir (the server, run as the postgres user when this is root, must reach it).
      const dir = /under (\S+)\/pg\)/.exec(lines.join('\n'))![1]!;
      expect(existsSync(dir)).toBe(true);
      const status = await runHostplane(['admin', '--data', tempDir('hostplane-cluster-admin-'), '--database-url', url, 'status', '--json']);
      expect(status.code, status.stderr).toBe(0);
      const parsed = JSON.parse(status.stdout) as { leader: { url: string } | null; processes: { url: string; pid: number }[] };
      expect(serves.map((s) => s.listening)).toContain(parsed.leader?.url);
      expect(parsed.processes.map((p) => p.url).sort()).toEqual(serves.map((s) => s.listening).sort());

      script.kill('SIGTERM');
      expect(await exited).toBe(143);
      for (const p of parsed.processes) expect(processAlive(p.pid), `serve pid ${p.pid}`).toBe(false);
      expect(existsSync(dir)).toBe(false);
    } finally {
      script.kill('SIGTERM');
      await exited;
    }
  }, 150_000);
});
