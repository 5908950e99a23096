import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { processAlive } from '../../lib/process-alive';

describe('processAlive', () => {
  it('is true for a running process and false once it has exited and been reaped, or for no pid', async () => {
    expect(processAlive(process.pid)).toBe(true);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    expect(processAlive(child.pid)).toBe(true);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(processAlive(child.pid)).toBe(false);
    expect(processAlive(undefined)).toBe(false);
  });

  it('is true for a process this one may not signal (EPERM): it exists', () => {
    // pid 1 always exists; unprivileged, signalling it is EPERM.
    expect(processAlive(1)).toBe(true);
  });
});
